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
def capacity(kind, preload, ramp, bias):
    """What a differential of ``kind`` (0 open, 1 locked, 2 limited slip, 3 torque sensing) can hold, as two terms:
    (P, k), the most |T_left - T_right| being P + k |T| with T the torque through it (a locked one: LOCKED_CAPACITY)."""
    if kind == 1:
        return LOCKED_CAPACITY, 0.0
    if kind == 2:
        return preload, ramp
    if kind == 3:
        return 0.0, (bias - 1.0) / (bias + 1.0)
    return 0.0, 0.0


@scalar
def coupling(lock, torque_free, slope, fixed, share):
    """The coupling Tc the differential passes: (Tc, held). ``lock`` is the Tc that would hold the two sides at one
    speed, and the torque through the differential is ``torque_free + slope Tc`` (an engine locked to the carrier
    takes a share of the wheels' acceleration, which the coupling changes). The differential holds at most
    |Tc| <= (P + k |T|) / 2 (:func:`capacity`: ``fixed`` P, ``share`` k), with T the torque that flows at that Tc,
    not the one before it: sized on the torque before the coupling, a limited-slip differential with one wheel on
    ice held a quarter less than its ramp (0.30 of the axle's torque across it for a ramp of 0.40 at 1/120 s, 0.38 at
    1e-4 s) and a torque-sensing one's bias ratio of 3 came out 2.1.

    Where it slips, |Tc| = m solves m = (P + k |T_f + a s m|) / 2 (s the sign of ``lock``, a = ``slope``): linear on
    each side of T = 0, so each side's root is tried and the one on its own side taken."""
    if lock != lock:
        return lock, True  # (a nan goes on to the guard, as it did)
    if share == 0.0:  # open, locked or a preload alone: the capacity does not depend on the torque (a clamp)
        most = 0.5 * fixed
        return min(max(lock, -most), most), abs(lock) <= most
    if abs(lock) <= 0.5 * (fixed + share * abs(torque_free + slope * lock)):
        return lock, True
    s = 1.0 if lock > 0.0 else -1.0
    most = abs(lock)
    for sign in (1.0, -1.0):
        d = 1.0 - 0.5 * share * sign * slope * s
        if d > 0.0:
            m = 0.5 * (fixed + share * sign * torque_free) / d
            if 0.0 <= m <= most and sign * (torque_free + slope * s * m) >= 0.0:
                return s * m, False
    # The torque through it is zero where it slips (or no root is on its side): P / 2.
    return s * min(0.5 * fixed, most), False


@scalar
def centre(p, t0, engine, split, w_front, w_rear, road_front, road_rear, i_front, i_rear, dt):
    """The centre differential of an all-wheel-drive car: (torque in, the front axle's, the rear's, held at one speed).

    The axles enter as one body each: ``w_*`` their mean wheel speeds, ``i_*`` the inertias those answer a torque
    with, ``road_*`` the road's torques on them. The torque in splits ``split`` : 1 - ``split`` plus a coupling
    Tc (front +Tc, rear -Tc) that the centre's kind allows (:func:`capacity`, centre_*); the carrier turns at
    ``split`` w_front + (1 - split) w_rear, and an engine locked to it adds ``engine`` = G^2 I_e there, so the
    torque in is ``t0`` less what the engine's inertia takes. :func:`share` is the case split = 1/2 of the same
    equations.
    """
    g = split * split / i_front + (1.0 - split) * (1.0 - split) / i_rear
    h = split / i_front - (1.0 - split) / i_rear
    q = split * road_front / i_front + (1.0 - split) * road_rear / i_rear
    den = 1.0 + engine * g
    torque_free = (t0 + engine * q) / den
    lock = ((-(w_front - w_rear) / dt - h * torque_free + road_front / i_front - road_rear / i_rear)
            / (1.0 / i_front + 1.0 / i_rear - engine * h * h / den))
    fixed, share_ = capacity(p.centre_kind, p.differential_centre_preload, p.differential_centre_ramp,
                             p.differential_centre_bias_ratio)
    tc, held = coupling(lock, torque_free, -engine * h / den, fixed, share_)
    torque = torque_free - engine * h * tc / den
    return torque, split * torque + tc, (1.0 - split) * torque - tc, held


@scalar(inline=True)
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
    fixed, share_ = capacity(p.diff_kind, p.differential_preload, p.differential_ramp, p.differential_bias_ratio)
    tc, held = coupling(lock, torque_free, -coupled * h / den, fixed, share_)
    torque = torque_free - coupled * h * tc / den
    return torque, 0.5 * torque + tc, 0.5 * torque - tc, held
