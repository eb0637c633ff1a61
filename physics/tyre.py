"""003: tyre slip angles and the Pacejka magic-formula lateral force."""

from __future__ import annotations

import functools
import math

import numba

from . import approx
from .jit import DISABLED, scalar, vector_doubles


@scalar
def slip(u, w):
    """Slip angle [rad]: direction the tyre travels minus direction it points, atan2(lateral, |forward|).

    ``u``/``w`` are the contact patch's velocity along and across the wheel; using |u| keeps the
    angle meaningful in reverse, where the force still opposes the sideways motion.
    """
    return approx.atan2(w, abs(u))


@scalar
def pacejka(alpha, load, b, c, e, mu):
    """Lateral force [N] opposing a slip angle, and its slope.

    003's magic formula F = -D sin(C atan(B a - E (B a - atan(B a)))), D = mu * load. The slope
    -dF/d(alpha) [N/rad] is clipped at zero past the peak; the step uses it for stability.
    """
    force, slope = magic(alpha, b, c, e, mu * load)
    return -force, max(slope, 0.0)


@functools.lru_cache(maxsize=4096)
def peak_slip(b, c, e):
    """Slip at the peak of the magic formula D sin(C atan(B x - E (B x - atan(B x)))), for the combined model.

    The peak is where C atan(phi) = pi / 2, phi = tan(pi / (2 C)); phi(x) = (1 - E) B x + E atan(B x)
    rises monotonically for E <= 1, so bisection finds x. A curve with C <= 1 has no peak: its
    slip at B x = 10 stands in. Plain Python, called when a car's parameter record is built; remembered
    for the last few thousand curves (a sweep of 10,000 cars mostly shares its tyres).
    """
    if c <= 1.0:
        return 10.0 / b
    goal = math.tan(0.5 * math.pi / c)
    lo, hi = 0.0, 1.0
    while (1.0 - e) * b * hi + e * math.atan(b * hi) < goal and hi < 1e6:
        hi *= 2.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if (1.0 - e) * b * mid + e * math.atan(b * mid) < goal:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@scalar
def magic(x, b, c, e, peak):
    """The magic formula F = D sin(C atan(B x - E (B x - atan(B x)))) with D = ``peak`` [N], and dF/dx.

    Pacejka, Tyre and Vehicle Dynamics (2012), eq. 4.49; the same curve as :func:`pacejka`, signed
    like ``x``.
    """
    bx = b * x
    phi = bx - e * (bx - approx.atan(bx))
    shape = c * approx.atan(phi)
    dphi = b - e * (b - b / (1.0 + bx * bx))
    sin_s, cos_s = approx.sincos(shape)
    return peak * sin_s, peak * cos_s * c * dphi / (1.0 + phi * phi)


@scalar
def combined(kappa, alpha, load, mu, lat_share, b_x, c_x, e_x, peak_x, b_y, c_y, e_y, peak_y):
    """Longitudinal and lateral force [N] of one axle's tyres sharing one friction ellipse, and their slopes.

    ``kappa`` is the slip ratio (wheel faster than the road: positive, driving), ``alpha`` the
    slip angle [rad]. Combined slip by normalised slip (Bakker, Nyborg and Pacejka, SAE 870421;
    Milliken, Race Car Vehicle Dynamics, sec. 2.6): each slip is divided by its peak slip, the
    resultant rho = |(kappa / kappa_peak, alpha / alpha_peak)| runs each pure-slip curve, and the
    force points along the normalised slip:

        Fx = (k / rho) Fx0(rho kappa_peak),  Fy = -(a / rho) Fy0(rho alpha_peak),

    so (Fx / Dx)^2 + (Fy / Dy)^2 <= 1 with Dx = mu Fz and Dy = lat_share mu Fz, and a tyre
    spinning or locked (large k) keeps little lateral force. Returns (Fx, Fy, dFx/dkappa,
    -dFy/dalpha, Fx / kappa, usage): the slopes at fixed other slip (the step uses them for a
    linearly implicit update), the longitudinal secant, and the share of the ellipse used, 0..1.
    The longitudinal slope is clipped at zero past the peak; the lateral one is at least the
    secant Fy / alpha, so that a sliding tyre is never carried through zero slip in one step
    (F_new = secant * slip_new crosses zero only with the slip).
    """
    k, a, rho, dx, dy = combined_slips(kappa, alpha, load, mu, lat_share, peak_x, peak_y)
    fx0, sx = magic(rho * peak_x, b_x, c_x, e_x, dx)
    fy0, sy = magic(rho * peak_y, b_y, c_y, e_y, dy)
    return combined_forces(k, a, rho, dx, dy, fx0, sx, fy0, sy, b_x, c_x, b_y, c_y, peak_x, peak_y)


@scalar
def combined_slips(kappa, alpha, load, mu, lat_share, peak_x, peak_y):
    """:func:`combined`'s first part: the normalised slips k and a, their resultant rho, and the peaks Dx, Dy [N].

    The two pure-slip curves are then run at rho kappa_peak and rho alpha_peak, by :func:`magic` or, for several
    tyres at once, by :func:`magic_lanes`; :func:`combined_forces` ends the computation."""
    dx = mu * load
    dy = lat_share * mu * load
    k = kappa / peak_x
    a = alpha / peak_y
    return k, a, math.sqrt(k * k + a * a), dx, dy


@scalar
def combined_forces(k, a, rho, dx, dy, fx0, sx, fy0, sy, b_x, c_x, b_y, c_y, peak_x, peak_y):
    """:func:`combined`'s last part, from the pure-slip curves' forces and slopes at rho times each peak slip."""
    if rho < 1e-9:
        return 0.0, 0.0, dx * b_x * c_x, dy * b_y * c_y, dx * b_x * c_x, 0.0
    kk = k * k / (rho * rho)
    aa = a * a / (rho * rho)
    secant_x = fx0 / (rho * peak_x)
    secant_y = fy0 / (rho * peak_y)
    slope_x = max((aa * fx0 / rho + kk * sx * peak_x) / peak_x, 0.0)
    slope_y = max((kk * fy0 / rho + aa * sy * peak_y) / peak_y, secant_y)
    fx = k / rho * fx0
    fy = -a / rho * fy0
    usage = 0.0
    if dx > 0.0 and dy > 0.0:
        ux, uy = fx / dx, fy / dy  # products, not ** 2: Python's ** calls the C library's pow
        usage = min(math.sqrt(ux * ux + uy * uy), 1.0)
    return fx, fy, slope_x, slope_y, secant_x, usage


LANES = 8
"""Curves :func:`magic_lanes` evaluates at once for the four-wheel car: its four tyres, each along and across.
Eight float64 lanes are one AVX-512 register, two AVX2 ones."""


@functools.cache
def narrow() -> int:
    """Lanes a single-track car's frames get (the combined car fills four, the 002/003 car two): one vector register,
    4 with AVX2, and 8 with AVX-512 where the compiler fills its 512-bit registers (physics.jit.vector_doubles).
    Where a register holds four, :func:`magic_lanes` over four lanes costs what one curve does, and over eight twice
    that; where it holds eight, eight cost one register and four would run one at a time.

    Asked once, when the first physics.kernel.Workspace is made, not at import: on an AVX-512 machine the answer
    compiles a small loop."""
    return vector_doubles()


LANE_ROWS = 7
"""Rows of a lanes array: x, B, C, E and D in; the force and its slope dF/dx out."""

# magic inlined into magic_lanes' loop by numba, so that the loop has no call and the compiler vectorises it
_magic_inline = magic if DISABLED else numba.njit(error_model="numpy", inline="always")(magic.py_func)


@scalar
def put_lane(lanes, j, x, b, c, e, peak):
    """Lane ``j`` of ``lanes`` (LANE_ROWS, n) gets one magic-formula curve's inputs: slip x, B, C, E and D."""
    lanes[0, j] = x
    lanes[1, j] = b
    lanes[2, j] = c
    lanes[3, j] = e
    lanes[4, j] = peak


@scalar
def put_combined(lanes, j, rho, dx, dy, b_x, c_x, e_x, peak_x, b_y, c_y, e_y, peak_y):
    """One combined-slip tyre's two curves (:func:`combined_slips`' rho, dx, dy), along and across, into lanes
    2 j and 2 j + 1."""
    put_lane(lanes, 2 * j, rho * peak_x, b_x, c_x, e_x, dx)
    put_lane(lanes, 2 * j + 1, rho * peak_y, b_y, c_y, e_y, dy)


@scalar
def lane_forces(lanes, j, k, a, rho, dx, dy, b_x, c_x, b_y, c_y, peak_x, peak_y):
    """:func:`combined_forces` of the tyre :func:`put_combined` put in lanes 2 j and 2 j + 1, after
    :func:`magic_lanes`."""
    return combined_forces(k, a, rho, dx, dy, lanes[5, 2 * j], lanes[6, 2 * j], lanes[5, 2 * j + 1],
                           lanes[6, 2 * j + 1], b_x, c_x, b_y, c_y, peak_x, peak_y)


@scalar
def magic_lanes(lanes):
    """:func:`magic` of every lane of ``lanes`` (LANE_ROWS, n): rows 0-4 x, B, C, E, D in, rows 5 and 6 the
    force and dF/dx out. n is LANES for a four-wheel car; for a group of single-track cars run side by side
    (physics.kernel._block_two) it is the lanes they fill, rounded up to a multiple of :func:`narrow`: 4 to 36. A
    replacement (physics.build_kernel) must loop over ``lanes.shape[1]`` as this does, never over a constant, or it
    reads and writes past a group's lanes.

    One loop with nothing but :func:`magic` (itself branch-free: physics.approx) in it, which the compiler turns
    into SIMD instructions over the lanes: each lane gets the bits :func:`magic` gives it alone
    (tests/physics/test_tyre_lanes.py): on an AVX-512 machine eight curves took about twice the time of one
    (89 ns against 47 ns for one scalar call), and on an AVX2 one four took what one did (109 against 105 ns). The trip count is read from the array, not a constant: a loop of a constant eight
    iterations is unrolled instead of vectorised.
    """
    for j in range(lanes.shape[1]):
        lanes[5, j], lanes[6, j] = _magic_inline(lanes[0, j], lanes[1, j], lanes[2, j], lanes[3, j], lanes[4, j])


@scalar
def _room_beside(force, axis, room, dx):
    """What the friction ellipse leaves along one of its half-axes, ``room``, beside ``force`` along the other,
    ``axis``; the whole half-axis where the tyre has no grip (``dx`` = mu Fz not positive)."""
    share = force / axis if dx > 0.0 else 0.0
    return room * math.sqrt(max(1.0 - share * share, 0.0))


@scalar
def lateral_limit(fx, load, mu, lat_share):
    """The largest lateral force [N] the friction ellipse (:func:`longitudinal_limit`'s) leaves beside the longitudinal
    force ``fx``."""
    dx = mu * load
    return _room_beside(fx, dx, lat_share * dx, dx)


@scalar
def longitudinal_limit(fy, load, mu, lat_share):
    """The largest longitudinal force [N] the friction ellipse leaves beside the lateral force ``fy``.

    (Fx / (mu Fz))^2 + (Fy / (lat_share mu Fz))^2 <= 1 (physics.tyre.combined's ellipse): a tyre that
    corners has less to give along the road.
    """
    dx = mu * load
    return _room_beside(fy, lat_share * dx, dx, dx)
