"""The driven axle's differential: how the drive is shared between the left and the right wheel.

The differential passes the torque T into the axle as T/2 + Tc to the left wheel and T/2 - Tc to the
right; Tc is what couples the two: nothing in an open differential, whatever holds the wheels at one
speed in a locked one, and up to a locking torque |T_left - T_right| <= 2 |Tc| otherwise, as friction
that may stick: a clutch pack's preload plus its ramp's share of the torque through it (limited slip),
or (B - 1) / (B + 1) of it for a torque-sensing (Torsen) differential of bias ratio B, in which the
slower wheel takes at most B times the faster one's torque (Milliken, Race Car Vehicle Dynamics, on
differentials).
"""

from __future__ import annotations

from .jit import scalar

LOCKED_CAPACITY = 1e30  # [N m] a locked differential holds whatever it takes


@scalar
def locking_torque(p, torque):
    """The most |T_left - T_right| [N m] the differential can hold with ``torque`` going through it."""
    kind = p.diff_kind
    if kind == 1:
        return LOCKED_CAPACITY
    if kind == 2:
        return p.differential_preload + p.differential_ramp * abs(torque)
    if kind == 3:
        bias = p.differential_bias_ratio
        return (bias - 1.0) / (bias + 1.0) * abs(torque)
    return 0.0


@scalar
def share(p, t0, coupled, w_left, w_right, road_left, road_right, i_left, i_right, dt):
    """The axle's drive split: (torque into the axle, left wheel's, right wheel's, held at one speed).

    ``i_left``/``i_right`` are the wheels' effective inertias (their tyre's slope taken implicitly, as in
    physics.wheel.spin) and ``road_*`` the road's torques on them. The torque into the axle is
    ``t0 - coupled (w'_left + w'_right)``: an engine locked to the wheels through the clutch adds its
    inertia there (``coupled`` = G^2 I_e / 2), and its torque into the axle then depends on how the wheels
    accelerate. Solved for the speeds at the frame's end: the coupling that would bring the two wheels to
    one speed passes when the differential can hold it, else it slips at its locking torque.
    """
    g = 1.0 / i_left + 1.0 / i_right
    h = 1.0 / i_left - 1.0 / i_right
    q = road_left / i_left + road_right / i_right
    r = road_left / i_left - road_right / i_right
    den = 1.0 + 0.5 * coupled * g
    torque_free = t0 - coupled * (0.5 * t0 * g - q) / den  # into the axle with no coupling between the wheels
    lock = (-(w_left - w_right) / dt - 0.5 * h * torque_free + r) / (g - 0.5 * coupled * h * h / den)
    most = 0.5 * locking_torque(p, torque_free)
    tc = min(max(lock, -most), most)
    torque = torque_free - coupled * h * tc / den
    return torque, 0.5 * torque + tc, 0.5 * torque - tc, abs(lock) <= most
