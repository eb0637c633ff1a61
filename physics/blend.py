"""003: below a speed band the dynamic car follows the kinematic bicycle, blended smoothly."""

from __future__ import annotations

import math

from . import approx
from .jit import scalar


@scalar
def kinematic_weight(speed, low, high):
    """1 below ``low`` (fully kinematic), 0 above ``high``, a smoothstep between (no jump, no kink).

    ``speed`` is a magnitude (>= 0).
    """
    s = min(max((speed - low) / (high - low), 0.0), 1.0)
    return 1.0 - s * s * (3.0 - 2.0 * s)


@scalar
def tyre_force_weight(kinematic):
    """Share of the tyres' forces that acts on the car.

    In the kinematic regime slip angles are meaningless (atan2 of a tiny forward speed), so the
    tyre forces fade out with the blend; letting them act at a crawl is 003's full-lock stall.
    """
    return 1.0 - kinematic


@scalar
def kinematic_motion(vx, tan_delta, lr, wheelbase):
    """Lateral velocity and yaw rate of the centre of mass in the kinematic bicycle (001, CoM form).

    ``vx`` is the centre of mass's forward speed v cos(beta), which is also the rear axle's speed:
    vy = v sin(beta) = vx lr tan(delta) / L and r = v cos(beta) tan(delta) / L = vx tan(delta) / L.
    """
    curvature = tan_delta / wheelbase
    return vx * lr * curvature, vx * curvature


@scalar
def reach(dx, dy, dr, limit, yaw_limit):
    """Share 0..1 of the way to the kinematic path the kinematic share gets this frame.

    The kinematic bicycle's velocity (dx, dy) and yaw rate (dr) away are where rolling tyres hold the
    car, and the tyres hold it there with their grip: a car sliding sideways or spinning as it slows
    into the band is brought onto the path at most as fast as mu g (``limit``, a speed step) and
    its yaw equivalent (``yaw_limit``) allow, instead of in one frame. One share for all three keeps
    the step on the straight line to the path. Driving on the path the step is the path's own turn
    (v^2 / R, small below the band) and the share is 1.
    """
    share = 1.0
    size = approx.hypot(dx, dy)
    if size > limit:
        share = limit / size
    if abs(dr) * share > yaw_limit:
        share = yaw_limit / abs(dr)
    return share


@scalar
def energy_share(vx, vy, r, mass, inertia, energy, impulse):
    """Share 0..1 of the kinematic path's velocity (vx, vy, r) that the energy allows.

    Coming onto the path takes nothing but tyre forces, and they do no work on the car: a state
    pulled onto a path of more energy (a car understeering at lock, whose path yaws faster, or a
    wheel turned at a crawl) pays with speed instead of gaining energy. ``energy`` [J] is what the
    share has before the frame's forces and half their work at the start speed; ``impulse`` [N s]
    those forces over the frame. The path's energy q v^2 at forward speed v may reach
    energy + impulse v / 2 (their work at the mean of the two speeds), so v solves
    q v^2 - impulse v / 2 - energy = 0 on the side of ``vx``.
    """
    path = 0.5 * (mass * (vx * vx + vy * vy) + inertia * r * r)
    # (vx * vx is 0 for an abs(vx) below 1.5e-162 too: a car that creeps towards rest that slowly never stops
    # when the stop rule is off, model.stop_speed = 0; its path has no energy worth keeping from it)
    if vx * vx == 0.0 or path <= energy + 0.5 * impulse * vx:
        return 1.0
    q = path / (vx * vx)
    if not q > 0.0:  # a path whose energy rounds to 0 (a very light car at such a speed): nothing to keep from it
        return 1.0
    root = 0.25 * impulse * impulse + 4.0 * q * energy
    if root <= 0.0:
        return 0.0
    side = 1.0 if vx > 0.0 else -1.0
    v = (0.5 * impulse + side * math.sqrt(root)) / (2.0 * q)
    return min(max(v / vx, 0.0), 1.0)
