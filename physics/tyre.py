"""003: tyre slip angles and the Pacejka magic-formula lateral force."""

from __future__ import annotations

import math

from .jit import scalar


@scalar
def slip(u, w):
    """Slip angle [rad]: direction the tyre travels minus direction it points, atan2(lateral, |forward|).

    ``u``/``w`` are the contact patch's velocity along and across the wheel; using |u| keeps the
    angle meaningful in reverse, where the force still opposes the sideways motion.
    """
    return math.atan2(w, abs(u))


@scalar
def pacejka(alpha, load, b, c, e, mu):
    """Lateral force [N] opposing a slip angle, and its slope.

    003's magic formula F = -D sin(C atan(B a - E (B a - atan(B a)))), D = mu * load. The slope
    -dF/d(alpha) [N/rad] is clipped at zero past the peak; the step uses it for stability.
    """
    ba = b * alpha
    phi = ba - e * (ba - math.atan(ba))
    shape = c * math.atan(phi)
    peak = mu * load
    dphi = b - e * (b - b / (1.0 + ba * ba))
    slope = max(peak * math.cos(shape) * c * dphi / (1.0 + phi * phi), 0.0)
    return -peak * math.sin(shape), slope
