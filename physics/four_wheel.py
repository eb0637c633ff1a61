"""The four-wheel car: a combined-slip tyre per corner, lateral load transfer through the body's roll, a
differential on the driven axle, and brakes, ABS, traction and stability control per wheel.

One frame, as on the single-track combined model (physics.step.grip_frame): the loads from the last
frame's accelerations and the roll (physics.suspension); each corner's contact-patch velocity, slips and
tyre forces (:func:`contact`, once per corner); the wheels advanced with the body frozen (the driven pair
through the clutch and the differential, physics.differential), linearly implicit in their tyres'
slopes; then the body's vx, vy and yaw rate in one linearly implicit step with all eight tyre slopes
(:func:`add_tyre`, physics.body.solve3). A tyre whose linearised force passes its grip gives the car and
its wheel the limit (physics.wheel.at_limit). The roll follows the frame's lateral acceleration.

Corner positions in the car frame: the front wheels at x = lf, the rear at x = -lr, the left at
y = track / 2, the right at -track / 2; the front wheels' angles follow ``steering.ackermann`` of the
Ackermann geometry.
"""

from __future__ import annotations

import math
from collections import namedtuple

from . import (
    aero,
    aids,
    approx,
    body,
    brakes,
    corners,
    differential,
    engine,
    steering,
    surface,
    suspension,
    tyre,
    wheel,
)
from . import step as _step
from .corners import Wheel
from .jit import scalar

HELD_SLOPE = 1e12  # [N per L/s] a wheel its brake holds at rest, in the drivetrain's solves (solve_slope)

Contact = namedtuple("Contact", "u w d alpha kappa fx fy sx sec ky limit grip c s lever_x lever_y")
"""One tyre at the frame's start: contact-patch speeds along (u) and across (w) its wheel, the speed slips are
taken against (d), the slips, its forces and slopes, its grip along the road beside its lateral force
(limit), and its two force directions in (vx, vy, r): along h = (c, s, lever_x), across g = (-s, c, lever_y)."""

Slips = namedtuple("Slips", "u w d alpha kappa b_y peak_y k a rho dx dy c s lever_x lever_y")
"""One tyre before its magic-formula curves: a :class:`Contact`'s speeds, slips and directions, the lateral curve's
B and peak slip at its load, and physics.tyre.combined_slips' normalised slips (k, a, rho) and peaks (dx, dy)."""

Planar = namedtuple("Planar", "a11 a12 a13 a22 a23 a33 b1 b2 b3")
"""The body's linearly implicit step (M + dt K) dv = dt F, summed tyre by tyre (symmetric: six entries)."""

Held = namedtuple("Held", "omega held abs_on tcs_on")
"""A wheel after the aids: its speed, whether the brakes set it, and which aid acted."""

Finished = namedtuple("Finished", "omega fx fx_lin brake abs_on tcs_on")
"""A wheel after the body's update, its tyre's force along the wheel, that force as the body's step took it, the
torque [N m] the brakes put on the wheel (signed as its speed changed: negative on a wheel turning forwards), and
whether ABS or traction control acted in this second update (at the tyre's grip: :func:`finish`)."""

Pair = namedtuple("Pair", "start_l start_r fx_l kx_l fx_r kx_r drive_l drive_r own_l own_r coupled held rub stuck "
                         "clutch_t t0")
"""One driven axle through its differential: each wheel's speed and tyre force (with slope) where it starts the
frame, its drive torque for the body-frozen update, what turns it at the grip (``own``) with ``coupled`` of the
engine's inertia on it, whether the differential held, the brake torque a stalled engine rubs on each wheel, whether
the clutch stuck and the torque it passed when it did not, and the drivetrain's torque before the engine's inertia
answers (``t0``)."""

Driveline = namedtuple("Driveline", "start_fl start_fr start_rl start_rr fx_fl fx_fr fx_rl fx_rr kx_fl kx_fr kx_rl "
                                    "kx_rr drive_fl drive_fr drive_rl drive_rr own_fl own_fr own_rl own_rr c_front "
                                    "c_rear held_front held_rear held_centre rub_front rub_rear stuck clutch_t t0")
"""The four wheels as the drivetrain starts them: per wheel as :class:`Pair`'s fields; ``c_*`` the engine's inertia
on each wheel of an axle at the grip, ``held_*`` the axles' and the centre's differentials, ``rub_*`` the brake a
stalled engine puts on each wheel of an axle, whether the clutch stuck and the torque it passed when it did not."""


@scalar
def friction(p, load, static, road):
    """The tyre's friction coefficient under ``load`` on a road of friction ``road``: less ``load_sensitivity``
    per reference load ``static`` (tyres.nominal_load, or the wheel's static load) of extra load."""
    share = load / static - 1.0 if static > 0.0 else 0.0
    return road * max(1.0 - p.tyres_load_sensitivity * share, 0.1)


@scalar
def ground(p, road, s, c, sn, x, y):
    """The road's friction and rolling coefficients under the corner at (x, y) in the car's frame; ``c``, ``sn``
    are the cosine and sine of the heading."""
    return surface.under_rows(road, 0, road.shape[0], s.x + c * x - sn * y, s.y + sn * x + c * y, p.tyres_mu,
                              p.aero_rolling_coefficient)


@scalar
def cornering_scale(p, load, static, mu, road):
    """The factor on the lateral curve's B that makes the cornering stiffness B C D follow Pacejka's
    saturating K = K_ref sin(2 atan(Fz / (p_Ky2 Fz_ref))) / sin(2 atan(1 / p_Ky2)) (Pacejka, Tyre and
    Vehicle Dynamics, 2012, the MF-Tyre cornering stiffness), D being mu Fz (``road`` the friction at no load
    sensitivity): 1 at the reference load ``static`` (tyres.nominal_load, or the wheel's static load)."""
    q = p.tyres_cornering_load
    if q <= 0.0 or static <= 0.0:
        return 1.0
    x = max(load / static, 1e-6)
    z = x / q
    return 2.0 * z / (1.0 + z * z) / p.cornering_norm / (x * mu / road)  # sin(2 atan z) = 2 z / (1 + z^2)


@scalar(inline=True)
def contact_slips(p, vx, vy, r, x, y, c, s, omega, load, mu, road, front):
    """One corner's tyre at the frame's start, up to its magic-formula curves (a :class:`Slips`): the contact
    patch's velocity, the slips, the lateral curve's B and peak slip at this load, and physics.tyre.combined_slips.
    ``c``, ``s`` are the cosine and sine of the wheel's angle (1 and 0 for a rear wheel). The frame runs its four
    corners' eight curves at once (:func:`put_lanes`, physics.tyre.magic_lanes) and ends with :func:`lane_contact`:
    physics.tyre.combined, in parts."""
    vcx, vcy = vx - r * y, vy + r * x
    u = vcx * c + vcy * s
    w = vcy * c - vcx * s
    floor = p.model_slip_speed
    d = wheel.slip_speed(u, floor)
    alpha = wheel.slip_angle(u, w, floor)
    kappa = wheel.slip_ratio(omega, p.body_wheel_radius, u, floor)
    scale = cornering_scale(p, load, p.reference_front if front else p.reference_rear, mu, road)
    b_y = (p.tyres_b_front if front else p.tyres_b_rear) * scale
    peak_y = (p.peak_front if front else p.peak_rear) / scale  # the peak sits at one B alpha
    k, a, rho, dx, dy = tyre.combined_slips(kappa, alpha, load, mu, p.tyres_lateral_share, p.peak_long, peak_y)
    return Slips(u, w, d, alpha, kappa, b_y, peak_y, k, a, rho, dx, dy, c, s, x * s - y * c, x * c + y * s)


@scalar
def put_lanes(p, lanes, j, q):
    """A corner's two magic-formula curves, along and across its wheel, into lanes 2 j and 2 j + 1."""
    tyre.put_combined(lanes, j, q.rho, q.dx, q.dy, p.tyres_b_long, p.tyres_c_long, p.tyres_e_long, p.peak_long,
                      q.b_y, p.tyres_c, p.tyres_e, q.peak_y)


@scalar
def lane_contact(p, lanes, j, q, load, mu):
    """Corner ``j``'s :class:`Contact` from its :class:`Slips` and its lanes after physics.tyre.magic_lanes."""
    fx, fy, sx, sy, sec, grip = tyre.lane_forces(lanes, j, q.k, q.a, q.rho, q.dx, q.dy, p.tyres_b_long,
                                                 p.tyres_c_long, q.b_y, p.tyres_c, p.peak_long, q.peak_y)
    ky = sy * q.d / (q.d * q.d + q.w * q.w)
    limit = tyre.longitudinal_limit(fy, load, mu, p.tyres_lateral_share)
    return Contact(q.u, q.w, q.d, q.alpha, q.kappa, fx, fy, sx, sec, ky, limit, grip, q.c, q.s, q.lever_x, q.lever_y)


@scalar
def slope(k, torque, omega, brake, radius):
    """The tyre's longitudinal slope [N per L/s] for the wheel's implicit update (physics.wheel.slip_slope)."""
    return wheel.slip_slope(k.sx, k.sec, k.kappa, torque - radius * k.fx - brake * brakes.sign(omega)) / k.d


@scalar
def start_force(k, kx, moved, radius):
    """A tyre's force along its wheel where the wheel starts the frame from, ``moved`` [rad/s] from where its
    slip was taken (a clutch lock-up moves it), within its grip, and the slope the wheel's update uses: its own,
    or none at the grip (where the force no longer grows with the slip)."""
    shared = k.fx + kx * radius * moved
    fx = min(max(shared, -k.limit), k.limit)
    return fx, (kx if fx == shared else 0.0)


@scalar
def solve_slope(k, kx, torque, radius, let_off, peak, omega, brake):
    """The tyre's slope the drivetrain's solves take (the clutch's lock-up test, the centre's and the axles' couplings,
    :func:`pair`, :func:`all_wheels`), which take the road's torque on each wheel without its brake (the brakes act
    after, as friction, physics.wheel.spin). The wheel's own slope (:func:`slope`) is chosen with its brake: where the
    brake drives the slip on past the tyre's peak, the falling tangent (none, clipped at zero). Where ABS holds that
    wheel's slip to a target (``let_off``: the pedal's brake with ABS, or stability control's), it lets the brake off as
    far as that takes, and the wheel comes back towards the road with its tyre's slope without the brake: past the peak
    (``peak``, the longitudinal peak slip) the solves take the larger of the two. With the brake's slope alone they saw
    a free wheel pushed by its whole tyre force and no brake: a light one made its axle light and its tyre's torque
    large, and the centre's coupling and the clutch's lock-up torque were sized on a wheel spinning up hundreds of rad/s
    in a frame (stability control braking a front wheel of a locked centre's open axle, 0.1 kg m^2 an axle: a 3,168 N m
    coupling threw the other front wheel from 12 to -237 rad/s; a slipping clutch, taking the wheels past the engine,
    pushed the engine up 290 rpm with the throttle closed). A wheel its brake holds at rest (``omega`` 0, ``brake`` more
    than the torques on it) stands in the solves (a slope past any tyre's): seen free, the rear wheels on the handbrake,
    their tyres sliding at the full slip, spun up in the clutch's lock-up test, which slipped the clutch against a
    stalled engine (396 to 439 rpm) and threw a front wheel from 8 to -98 rad/s."""
    if omega == 0.0 and brake >= abs(torque - radius * k.fx):
        return HELD_SLOPE  # a wheel its brake holds at rest: the solves see it stand, as its brake keeps it
    if not let_off or abs(k.kappa) <= peak:
        return kx
    return max(kx, wheel.slip_slope(k.sx, k.sec, k.kappa, torque - radius * k.fx) / k.d)


@scalar
def start_slope(k, kx, ks, moved, radius):
    """The solves' slope (:func:`solve_slope`) where the wheel starts the frame (:func:`start_force`): none at the
    grip, where the force no longer grows with the slip."""
    shared = k.fx + kx * radius * moved
    return ks if -k.limit <= shared <= k.limit else 0.0


@scalar
def add_tyre(m, k, fx, kx, dt):
    """``m`` with one tyre's force (along its wheel ``fx``, across it k.fy) and slopes added."""
    h1, h2, h3 = k.c, k.s, k.lever_x
    g1, g2, g3 = -k.s, k.c, k.lever_y
    ky = k.ky
    return Planar(m.a11 + dt * (kx * h1 * h1 + ky * g1 * g1), m.a12 + dt * (kx * h1 * h2 + ky * g1 * g2),
                  m.a13 + dt * (kx * h1 * h3 + ky * g1 * g3), m.a22 + dt * (kx * h2 * h2 + ky * g2 * g2),
                  m.a23 + dt * (kx * h2 * h3 + ky * g2 * g3), m.a33 + dt * (kx * h3 * h3 + ky * g3 * g3),
                  m.b1 + dt * (fx * h1 + k.fy * g1), m.b2 + dt * (fx * h2 + k.fy * g2),
                  m.b3 + dt * (fx * h3 + k.fy * g3))


@scalar
def braked(free, brake, partner, partner_free, inertia, share, dt):
    """A wheel's speed after its brake [N m] in its first, body-frozen update, and whether the brake stopped it
    (physics.wheel.hold): ``free`` its speed without the brake, ``inertia`` its own (its tyre's slope taken
    implicitly), ``partner`` and ``partner_free`` the other wheel of its axle's brake and free speed, ``share`` its
    part of an engine the clutch locks to the axle (G^2 I_e / 2 a wheel; 0 else, and then the bits of one hold).

    Where both wheels turn the same way, the brakes they have in common slow the axle's mean speed, which the engine
    turns with: they act on the wheel with its share of the engine. What one wheel has beyond its partner's turns the
    wheels apart, which an open differential lets the engine take no part in: it acts on the wheel alone (the carrier
    then follows the torques, :func:`locked_momentum`). Wheels turning opposite ways (or one at rest) have brakes that
    oppose each other's turning, which turns them apart, not the mean: each acts on its wheel alone. (Taken on the
    mean, the handbrake on light rear wheels, 0.05 kg m^2 an axle, at either side of rest with a stalled engine in
    gear left them free in this update; the tyres at their grip then threw them apart, 350 J gained in a frame.)
    Taken on the bare wheel (1.1 kg m^2 a rear wheel of the sedan, the engine's share 5.35 in 2nd), the common brake
    slowed the wheels faster than wheels and engine went, the tyres' force on the body followed that speed, and the
    slip the wheels kept moved with dt: braking at 4.7 m/s^2, a rear slip ratio of -0.0075 at 1/120 s, -0.0141 at
    1/1000 s and -0.018 towards dt -> 0 for the same tyre force.
    """
    if share <= 0.0 or free * partner_free <= 0.0:
        return wheel.hold(free, brake, inertia, dt)
    common = min(brake, partner)
    together, stopped = wheel.hold(free, common, inertia + share, dt)
    alone, stopped_alone = wheel.hold(together, brake - common, inertia, dt)
    return alone, stopped or stopped_alone


@scalar
def pair_braked(free_l, free_r, b_l, b_r, j_l, j_r, share, dt, one=False):
    """Both wheels of an axle after their brakes in their first, body-frozen update: (speed, stopped) of the left
    wheel, then of the right (physics.wheel.hold's). ``free_*`` their speeds without the brakes, ``b_*`` the brakes
    [N m], ``j_*`` the wheels' own inertias (their tyres' slopes taken implicitly), ``share`` each wheel's part of an
    engine the clutch locks to the axle (G^2 I_e / 2; 0 else, and then the bits of a hold each).

    The engine turns with the wheels' mean and the differential passes them equal torques: with s the way both
    turn, j_k dw_k = -dt s B_k + T dt and 2 share d(mean) = -2 T dt, so d(mean) = -dt s (B_l / j_l + B_r / j_r) /
    (2 + share (1 / j_l + 1 / j_r)) and dw_k = -dt s B_k / j_k - share d(mean) / j_k: the engine's answer is one
    torque on both wheels whatever their inertias. (Braked each with its own share, :func:`braked`, wheels whose
    tyres' slopes differ, left and right in a bend, got different answers, which an open differential cannot pass:
    the rear tyres' forces apart by 142 N at 1/120 s and -3 N at 1/8000 s, ISO 7975's heading deviation moving from
    1.69 to 2.05 deg as dt shrank.) Where that would take a wheel through rest (its brake holds it there), the wheels
    turn opposite ways, or their brakes differ (stability control's on one wheel: solved together, the engine's answer
    sped the unbraked partner up, and the hunts on the stock sedan found energy), each is braked by :func:`braked`.
    A limited-slip or locked differential that held this frame (``one``) has had its wheels' brakes shared already
    (locked_brakes), in proportion to the wheels' inertias: with an engine locked to them, the pair and the engine's
    share turn as one body under their sum, both wheels by dt (B_l + B_r) / (j_l + j_r + 2 share), where that keeps
    them turning their way (else as above; without an engine on them, as above, which is the same but for rounding). (Braked each as
    above, the wheel with the larger share of stability control's brake fell further within the update, the coupling
    brought the two together only after the body's step, and the body had taken that tyre's force at the lower speed.)"""
    if one and share > 0.0 and free_l * free_r > 0.0 and b_l + b_r > 0.0:
        way = brakes.sign(free_l)
        drop = dt * way * (b_l + b_r) / (j_l + j_r + 2.0 * share)
        w_l, w_r = free_l - drop, free_r - drop
        if w_l * free_l > 0.0 and w_r * free_r > 0.0:
            return w_l, False, w_r, False
    if share > 0.0 and free_l * free_r > 0.0 and b_l == b_r:
        way = brakes.sign(free_l)
        mean = -dt * way * (b_l / j_l + b_r / j_r) / (2.0 + share * (1.0 / j_l + 1.0 / j_r))
        w_l = free_l - dt * way * b_l / j_l - share * mean / j_l
        w_r = free_r - dt * way * b_r / j_r - share * mean / j_r
        if w_l * free_l > 0.0 and w_r * free_r > 0.0:
            return w_l, False, w_r, False
    w_l, held_l = braked(free_l, b_l, b_r, free_r, j_l, share, dt)
    w_r, held_r = braked(free_r, b_r, b_l, free_l, j_r, share, dt)
    return w_l, held_l, w_r, held_r


@scalar
def equal_brake_inertia(j, j_partner, share, free, partner_free):
    """The inertia [kg m^2] ABS's select-low sizes a wheel's brake torque with, for a change of its speed it wants:
    where :func:`pair_braked` solves the pair's equal brakes together, the inertia the wheel answers them with, j (1 +
    share (1/j + 1/j_partner) / 2) (j + share for two alike); elsewhere (the wheels turn opposite ways, or all-wheel
    drive, whose brakes act on the bare wheels) j + share, as the sizing took it before, though the brake then turns
    the bare wheel: the torque so sized is more than that change takes, and the select-low takes no more than the
    pedal's."""
    if share > 0.0 and free * partner_free > 0.0:
        return j + 0.5 * share * j * (1.0 / j + 1.0 / j_partner)
    return j + share


@scalar
def along(k, dvx, dvy, dr):
    """The change of the road's speed under a wheel, along it, for the body's change (dvx, dvy, dr)."""
    return k.c * dvx + k.s * dvy + k.lever_x * dr


@scalar
def applied_fy(k, dvx, dvy, dr):
    """The lateral force a tyre applied over the body's step (dvx, dvy, dr): its force at the frame's start moved along
    its slope by the change of the road's speed under it, across the wheel (the sideways direction :func:`add_tyre`
    solves with)."""
    return k.fy - k.ky * (k.c * dvy - k.s * dvx + k.lever_y * dr)


@scalar
def abs_room(p, k, front):
    """The share of the straight-line ABS slip a wheel's own tyre leaves beside its lateral demand; a rear
    wheel's slip angle counts ``abs_rear_margin`` times (physics.aids)."""
    peak = p.peak_front if front else p.peak_rear
    margin = 1.0 if front else p.brakes_abs_rear_margin
    return aids.ellipse(margin * aids.cornering_share(k.alpha, peak))


@scalar(inline=True)
def aided(p, k, omega, free, inertia, held, ahead, braking, target, spin_target, most, dt, brake, esc, esc_target):
    """A wheel's speed after ABS (when ``braking``) and traction control's brake (``spin_target`` nonzero).

    ``omega`` is the wheel's speed with its whole ``brake`` [N m], ``free`` without it. ABS lets the brake off so
    the slip passes no further than ``target``; stability control's part of the brake (``esc``) acts on top of
    what ABS leaves the rest, and the two together take the wheel no further than ``esc_target``.
    """
    radius, floor = p.body_wheel_radius, p.model_slip_speed
    abs_on = False
    if braking:
        if esc > 0.0:
            rest, _ = wheel.hold(free, max(brake - esc, 0.0), inertia, dt)
            rest = wheel.anti_lock(rest, free, k.u, ahead, radius, floor, target)
            with_esc, _ = wheel.hold(rest, esc, inertia, dt)
            kept = wheel.anti_lock(with_esc, rest, k.u, ahead, radius, floor, esc_target)
        else:
            kept = wheel.anti_lock(omega, free, k.u, ahead, radius, floor, target)
        abs_on = kept != omega
        omega = kept
    tcs = wheel.anti_spin(omega, k.u, ahead, radius, floor, spin_target, most)
    tcs_on = tcs != omega
    return Held(tcs, held or abs_on or tcs_on, abs_on, tcs_on)


@scalar
def pair_slopes(kx_l, kx_r, j_l, j_r, i, c, radius, dt, coupled, s_l, s_r):
    """A driven pair's tyre slopes for the body's step, its forces moving by -K du as the road under the wheels moves
    by du (:func:`pair_follow`): (K_ll, K_rr, K_lr). ``s_*`` are the wheels' own (each with its share ``c`` of the
    engine, what :func:`finish` follows with where the pair is not ``coupled``), and then K_lr is 0.

    Through an open (or slipping) differential the engine's inertia answers the pair's mean speed only: its torque is
    the same on both wheels. With a_k = dt R^2 kx_k / j_k and D = 1 + c (1/j_l + 1/j_r) / 2,
    K_kk = kx_k (i / j_k + c a_k / (2 D j_k)) and K_lr = kx_l c a_r / (2 D j_l) (symmetric); for wheels alike moving
    together K_kk + K_lr is the wheel's own kx (i + c) / (j + c), as before, and their difference sees kx i / j
    only. Each wheel taking its own half of the engine, the engine passed the two wheels different torques where
    their tyres' slopes differ, which an open differential cannot: braking in a turn, the light inside rear wheel
    deep in its slip and the outside one stiff, the rear tyres' forces apart by 70-80 N beyond what turned the
    wheels apart at 1/120 s (tail_happy, ISO 7975), a yaw moment inwards that shrank with dt: the heading deviation
    1.95, 1.89 and 1.84 deg at 1/120, 1/480 and 1/2000 s."""
    if not coupled:
        return s_l, s_r, 0.0
    den = 1.0 + 0.5 * c * (1.0 / j_l + 1.0 / j_r)
    a_l, a_r = dt * radius * radius * kx_l / j_l, dt * radius * radius * kx_r / j_r
    k_ll = kx_l * (i / j_l + c * a_l / (2.0 * den * j_l))
    k_rr = kx_r * (i / j_r + c * a_r / (2.0 * den * j_r))
    return k_ll, k_rr, kx_l * c * a_r / (2.0 * den * j_l)


@scalar
def add_cross(m, k_l, k_r, kc, dt):
    """``m`` with the cross slope ``kc`` of two tyres' forces along their wheels (:func:`pair_slopes`):
    dt kc (h_l h_r' + h_r h_l'), h = (c, s, lever_x) as in :func:`add_tyre`."""
    a1, a2, a3 = k_l.c, k_l.s, k_l.lever_x
    b1, b2, b3 = k_r.c, k_r.s, k_r.lever_x
    e = dt * kc
    return Planar(m.a11 + 2.0 * e * a1 * b1, m.a12 + e * (a1 * b2 + a2 * b1), m.a13 + e * (a1 * b3 + a3 * b1),
                  m.a22 + 2.0 * e * a2 * b2, m.a23 + e * (a2 * b3 + a3 * b2), m.a33 + 2.0 * e * a3 * b3,
                  m.b1, m.b2, m.b3)


@scalar
def pair_follow(kx_l, kx_r, j_l, j_r, c, du_l, du_r, radius, dt, coupled):
    """How far a driven pair's wheels turn [rad/s] as the body's step moves the road under them by ``du_*``, their
    tyres' slopes ``kx_*`` taken implicitly (``j_*``): each with its own share ``c`` of the engine, or, ``coupled``
    (an engine locked to the pair through an open or slipping differential), with the engine's inertia on their mean
    and its torque the same on both (:func:`pair_slopes`)."""
    if not coupled:
        return dt * radius * kx_l * du_l / (j_l + c), dt * radius * kx_r * du_r / (j_r + c)
    den = 1.0 + 0.5 * c * (1.0 / j_l + 1.0 / j_r)
    mean = dt * radius * 0.5 * (kx_l * du_l / j_l + kx_r * du_r / j_r) / den
    return (dt * radius * kx_l * du_l - c * mean) / j_l, (dt * radius * kx_r * du_r - c * mean) / j_r


@scalar(inline=True)
def finish(p, k, start, h, fx0, kx_s, inertia, du, drive, brake, mass, dt, ahead, braking, target,
           spin_target, at_grip, esc, esc_target, first, grouped, change):
    """A wheel after the body's update (``h`` its :class:`Held` state): at the tyre's grip (physics.wheel.at_limit,
    then the aids again), or following the road the body moved under it. ``at_grip``: the frame started the tyre at
    its grip (a lock-up carried the wheel there, :func:`start_force`), where its force did not follow the slip: it
    too may grip again within the frame, as on the single-track car. ``first``: the brakes' torque on the wheel in
    its first, body-frozen update (:func:`brake_torque`), which stands unless the wheel turns again at the grip.
    ``grouped``: a differential holds the wheel at one speed with others (an axle's, with all-wheel drive all four); at
    its grip (reached within the frame: one that started there turns as above, a lock-up's) its tyre slides at
    the limit and the wheel turns with the group (the others' tyres set that), not alone under its share of the
    differential's torque: that share, sized for a tyre that grips, spun a locked four-wheel drive's wheel up by
    4 rad/s in a frame as it coasted round a bend in neutral, its partners not paying for it. ``change``: how far the
    wheel follows the road (:func:`pair_follow`), where its tyre stays within its grip and no brake or aid set it."""
    radius = p.body_wheel_radius
    fx_lin = fx0 - kx_s * du
    fx = min(max(fx_lin, -k.limit), k.limit)
    if (fx != fx_lin and not grouped) or at_grip:
        mobility = 1.0 / mass + k.lever_x * k.lever_x / p.body_yaw_inertia
        u_end = k.u + du + dt * (fx - fx_lin) * mobility
        omega, free, held, fx = wheel.at_limit(start, drive, fx, brake, radius, inertia, k.u,
                                               u_end - dt * fx * mobility, 1.0 / mobility, dt)
        # Traction control's brake turns the wheel here with the engine's share on it (``inertia``), and its tyre at
        # the grip adds no slope: no further a frame than what the brake has left beside ``brake`` moves that. (Held
        # to what that brake moves the wheel with its tyre's slope on it, as in the first update, it gave a light wheel
        # whose tyre let go 7.9 N m of the 3,300 N m it had left, and the drive spun it from 11 to 525
        # rad/s in a frame beside its partner, which traction control held, through an open differential.)
        left = max(0.5 * p.brakes_force * radius - brake, 0.0)
        a = aided(p, k, omega, free, inertia, held, ahead, braking, target, spin_target, dt * left / inertia, dt,
                  brake, esc, esc_target)
        return Finished(a.omega, fx, fx_lin, inertia * (a.omega - free) / dt, a.abs_on, a.tcs_on)
    if h.held:
        return Finished(h.omega, fx, fx_lin, first, False, False)
    return Finished(wheel.follow(h.omega, change, brake > 0.0), fx, fx_lin, first, False, False)


@scalar
def carrier(front_share, w_fl, w_fr, w_rl, w_rr):
    """The speed the gearbox's output turns at [rad/s of the wheels]: the driven axle's mean wheel speed, or the
    centre differential's carrier between the axles' with all-wheel drive."""
    if front_share == 0.0:
        return 0.5 * (w_rl + w_rr)
    if front_share == 1.0:
        return 0.5 * (w_fl + w_fr)
    return front_share * 0.5 * (w_fl + w_fr) + (1.0 - front_share) * 0.5 * (w_rl + w_rr)


@scalar
def caught(p, g, omega_e, ratio, w_fl, w_fr, w_rl, w_rr, i_f, i_r):
    """The engine's and the wheels' speeds where a slipping clutch that carried the carrier past the engine's speed
    catches within the frame: the clutch's impulse Q [N m s at the engine] that brings the engine and the carrier to
    one speed, the carrier answering it as the differentials split it (each axle's wheels alike, their differences
    as they were; both axles alike where the centre held this frame). A catch loses energy, never makes it."""
    a_f = p.front_drive
    a_r = 1.0 - a_f
    rigid = g.held_centre and p.centre_kind != 0 and 0.0 < a_f < 1.0
    if rigid:  # the carrier is every driven wheel at once
        give_f = give_r = 1.0 / (2.0 * i_f + 2.0 * i_r)
    else:  # an impulse P moves the axles' means by a_f P / (2 i_f) and a_r P / (2 i_r)
        give_f, give_r = a_f / (2.0 * i_f), a_r / (2.0 * i_r)
    mobility = a_f * give_f + a_r * give_r  # the carrier's speed per unit impulse on it
    q = (omega_e - ratio * carrier(a_f, w_fl, w_fr, w_rl, w_rr)) / (1.0 / p.engine_inertia + ratio * ratio * mobility)
    front, rear = ratio * q * give_f, ratio * q * give_r  # nothing on an axle the engine does not drive (a share of 0)
    return omega_e - q / p.engine_inertia, w_fl + front, w_fr + front, w_rl + rear, w_rr + rear


@scalar(inline=True)
def pair(p, s, u, k_l, k_r, kx_l, kx_r, ks_l, ks_r, w_l, w_r, i, engine_torque, capacity, direct_torque, ratio,
         dt):
    """One driven axle through the clutch and its differential (a :class:`Pair`); an engine locked to it adds its
    inertia.

    A clutch that locks up shares the engine's and the wheels' angular momentum first (as on the single-track car,
    physics.step.grip_frame): the pair's mean speed jumps to where the momentum puts it, their difference stays
    (the differential passes none of it), and the frame runs from those speeds with the engine's inertia on the
    pair. A lock-up so loses energy, never makes it.
    """
    radius = p.body_wheel_radius
    j_l, j_r = i + dt * radius * radius * ks_l, i + dt * radius * radius * ks_r  # the solves' slopes (solve_slope)
    omega_e = s.rpm / engine.RPM_PER_RAD_S
    mean = 0.5 * (w_l + w_r)
    # The clutch sees the pair as its differential lets the mean speed answer a torque (:func:`axle_body`): through
    # an open one a light wheel beside one that grips makes the axle light, and taking the wheels' sum there let a
    # slipping clutch carry the carrier past the engine's speed within a frame (a stalled engine spun up rolling
    # in reverse, then a lock-up that gave the car the engine's energy).
    j_axle, road_axle = axle_body(p, j_l, j_r, radius * k_l.fx, radius * k_r.fx)
    if p.diff_kind == 1:  # the wheels as one: the sums, in the bits they always had
        road_axle = radius * (k_l.fx + k_r.fx)
    clutch_t, stuck = clutch_passes(p, s, engine_torque, capacity, ratio, mean, road_axle, j_axle, dt)
    t0, coupled, rub = direct_torque, 0.0, 0.0
    start_l, start_r = w_l, w_r
    if p.manual:
        if stuck:
            coupled = 0.5 * ratio * ratio * p.engine_inertia
            shared = (2.0 * i * mean + ratio * p.engine_inertia * omega_e) / (2.0 * i + 2.0 * coupled)
            start_l, start_r = w_l + (shared - mean), w_r + (shared - mean)
            t0, rub = locked_drive(p, s, u, engine_torque, ratio)
            rub = 0.5 * rub
        else:
            t0 = ratio * clutch_t
    # The tyres' forces where the wheels start from (linear in their slopes; a lock-up moves them), within
    # their grip: past it the force no longer grows with the slip (physics.wheel.at_limit lets it grip again).
    if stuck:  # the engine's inertia answers as the wheels do in their own updates, their brakes' slopes with them
        ks_l, ks_r = kx_l, kx_r
    ks_l = start_slope(k_l, kx_l, ks_l, start_l - w_l, radius)
    ks_r = start_slope(k_r, kx_r, ks_r, start_r - w_r, radius)
    fx_l, kx_l = start_force(k_l, kx_l, start_l - w_l, radius)
    fx_r, kx_r = start_force(k_r, kx_r, start_r - w_r, radius)
    j_l, j_r = i + dt * radius * radius * ks_l, i + dt * radius * radius * ks_r
    axle, drive_l, drive_r, held = differential.share(p, t0, coupled, start_l, start_r, radius * fx_l,
                                                      radius * fx_r, j_l, j_r, dt)
    # What turns each driven wheel with the engine's inertia on it (at the grip, physics.wheel.at_limit):
    # the axle's torque before the engine's inertia answers, and the differential's coupling.
    own_l = 0.5 * t0 + (drive_l - 0.5 * axle)
    own_r = 0.5 * t0 + (drive_r - 0.5 * axle)
    return Pair(start_l, start_r, fx_l, kx_l, fx_r, kx_r, drive_l, drive_r, own_l, own_r, coupled, held, rub, stuck,
                clutch_t, t0)


@scalar
def locked_drive(p, s, u, engine_torque, ratio):
    """The driven wheels' torque [N m] from an engine locked to them through the clutch, and the brake torque it
    rubs on them all together: a running engine drives them; a stalled one only rubs, and the starter drives."""
    if not s.stalled:
        return ratio * engine_torque, 0.0
    return ratio * (engine.starter(s.rpm, p) if u.start else 0.0), abs(ratio) * engine.friction(s.rpm, p)


@scalar
def clutch_passes(p, s, engine_torque, capacity, ratio, w, road, inertia, dt):
    """The clutch's torque [N m at the engine] and whether it sticks, against driven wheels that turn at ``w``
    (the carrier's speed) with ``inertia`` and the road's torque ``road`` on them (nothing without an engine)."""
    if not p.manual:
        return 0.0, False
    return wheel.clutch_torque(s.rpm / engine.RPM_PER_RAD_S, w, engine_torque, road, ratio, capacity,
                               p.engine_inertia, inertia, dt)


@scalar
def axle_body(p, j_l, j_r, road_l, road_r):
    """An axle as one body on the centre differential: (inertia, road torque) its mean wheel speed answers a torque
    with. Through a locked differential the wheels turn as one (the sums); through an open one each takes half the
    torque, so the mean answers like 4 / (1/j_l + 1/j_r) with the road's torques weighted alike: a wheel spinning
    freely beside one that grips makes the axle light, as it is. A clutch pack between them counts as open here (it
    couples the wheels within the axle's own solve, physics.differential.share)."""
    if p.diff_kind == 1:
        return j_l + j_r, road_l + road_r
    inertia = 4.0 / (1.0 / j_l + 1.0 / j_r)
    return inertia, 0.5 * inertia * (road_l / j_l + road_r / j_r)


@scalar
def past_grip(k, kx, moved, radius, share):
    """Whether a lock-up's share, moving a driven wheel (``share`` of the drive, more than 0) by ``moved`` [rad/s],
    carries its tyre from within its grip to past it (:func:`start_force`)."""
    return share > 0.0 and abs(k.fx) <= k.limit and abs(k.fx + kx * radius * moved) > k.limit


@scalar
def all_wheels(p, s, u, k_fl, k_fr, k_rl, k_rr, kx_fl, kx_fr, kx_rl, kx_rr, ks_fl, ks_fr, ks_rl, ks_rr, i_f, i_r,
               engine_torque, capacity, direct_torque, ratio, dt):
    """All-wheel drive: the clutch, the centre differential and each axle's (a :class:`Driveline`).

    Each axle enters the centre as one body (:func:`axle_body`: its mean wheel speed, and the inertia and road
    torque that mean answers with through its differential); the carrier turns at split w_front + (1 - split) w_rear, which is what the clutch and the engine
    see. A clutch that locks up shares the engine's angular momentum with the carrier first, the impulse going to
    each axle by its share of the split (so a lock-up only loses energy); the centre then splits the torque
    (physics.differential.centre, the engine's inertia on the carrier) and each axle's differential its axle's
    (physics.differential.share).
    """
    radius = p.body_wheel_radius
    split = p.front_drive
    r2 = dt * radius * radius
    # The solves take no brakes, and the slopes that go with that (solve_slope).
    j_front, road_front = axle_body(p, i_f + r2 * ks_fl, i_f + r2 * ks_fr, radius * k_fl.fx, radius * k_fr.fx)
    j_rear, road_rear = axle_body(p, i_r + r2 * ks_rl, i_r + r2 * ks_rr, radius * k_rl.fx, radius * k_rr.fx)
    mean_f, mean_r = 0.5 * (s.wheel_fl + s.wheel_fr), 0.5 * (s.wheel_rl + s.wheel_rr)
    carrier_inertia = 1.0 / (split * split / j_front + (1.0 - split) * (1.0 - split) / j_rear)
    road = carrier_inertia * (split * road_front / j_front + (1.0 - split) * road_rear / j_rear)
    carrier = split * mean_f + (1.0 - split) * mean_r
    clutch_t, stuck = clutch_passes(p, s, engine_torque, capacity, ratio, carrier, road, carrier_inertia, dt)
    t0, engine_on, rub = direct_torque, 0.0, 0.0
    move_f, move_r = 0.0, 0.0
    if p.manual and stuck:
        bare = 1.0 / (split * split / (2.0 * i_f) + (1.0 - split) * (1.0 - split) / (2.0 * i_r))
        shared = ((bare * carrier + ratio * p.engine_inertia * s.rpm / engine.RPM_PER_RAD_S)
                  / (bare + ratio * ratio * p.engine_inertia))
        impulse = bare * (shared - carrier)
        move_f, move_r = split * impulse / (2.0 * i_f), (1.0 - split) * impulse / (2.0 * i_r)
        # Through an open centre. The clutch's lock-up test took the tyres as linear in their slopes; a share that
        # carries a tyre past its grip (light wheels: the bare wheels take the engine's whole speed above the
        # carrier) leaves that tyre at its limit with no slope, and the axles then take forces the split cannot
        # pass: the frame turns each wheel with its own share of the engine (finish, physics.wheel.at_limit), and
        # locked_momentum takes the carrier's momentum from the torques but keeps the axles' difference, which no
        # torque through an open centre made (0.05 kg m^2 an axle, the clutch coming up in 2nd at 10 km/h: the rear
        # carried from 1,160 N to its 4,645 N grip, re-gripping at 835 N while the front pushed 2,879 N a wheel,
        # 26 J past the engine's work in a frame). The clutch slips this frame at the torque the test found (no
        # more than its capacity), which only loses energy, and catches at the frame's end (:func:`caught`) or
        # locks up the next.
        if p.centre_kind == 0 and (past_grip(k_fl, kx_fl, move_f, radius, split)
                                   or past_grip(k_fr, kx_fr, move_f, radius, split)
                                   or past_grip(k_rl, kx_rl, move_r, radius, 1.0 - split)
                                   or past_grip(k_rr, kx_rr, move_r, radius, 1.0 - split)):
            stuck = False
            move_f, move_r = 0.0, 0.0
    if p.manual:
        if stuck:
            engine_on = ratio * ratio * p.engine_inertia
            t0, rub = locked_drive(p, s, u, engine_torque, ratio)
        else:
            t0 = ratio * clutch_t
    if stuck:  # the engine's inertia answers as the wheels do in their own updates, their brakes' slopes with them
        ks_fl, ks_fr, ks_rl, ks_rr = kx_fl, kx_fr, kx_rl, kx_rr
    ks_fl, ks_fr = start_slope(k_fl, kx_fl, ks_fl, move_f, radius), start_slope(k_fr, kx_fr, ks_fr, move_f, radius)
    ks_rl, ks_rr = start_slope(k_rl, kx_rl, ks_rl, move_r, radius), start_slope(k_rr, kx_rr, ks_rr, move_r, radius)
    fx_fl, kx_fl = start_force(k_fl, kx_fl, move_f, radius)
    fx_fr, kx_fr = start_force(k_fr, kx_fr, move_f, radius)
    fx_rl, kx_rl = start_force(k_rl, kx_rl, move_r, radius)
    fx_rr, kx_rr = start_force(k_rr, kx_rr, move_r, radius)
    j_fl, j_fr, j_rl, j_rr = i_f + r2 * ks_fl, i_f + r2 * ks_fr, i_r + r2 * ks_rl, i_r + r2 * ks_rr
    st_fl, st_fr, st_rl, st_rr = s.wheel_fl + move_f, s.wheel_fr + move_f, s.wheel_rl + move_r, s.wheel_rr + move_r
    j_front, road_front = axle_body(p, j_fl, j_fr, radius * fx_fl, radius * fx_fr)
    j_rear, road_rear = axle_body(p, j_rl, j_rr, radius * fx_rl, radius * fx_rr)
    into, front, rear, held_c = differential.centre(p, t0, engine_on, split, 0.5 * (st_fl + st_fr),
                                                    0.5 * (st_rl + st_rr), road_front, road_rear, j_front, j_rear, dt)
    _, d_fl, d_fr, held_f = differential.share(p, front, 0.0, st_fl, st_fr, radius * fx_fl, radius * fx_fr, j_fl,
                                               j_fr, dt)
    _, d_rl, d_rr, held_r = differential.share(p, rear, 0.0, st_rl, st_rr, radius * fx_rl, radius * fx_rr, j_rl,
                                               j_rr, dt)
    # At the grip a wheel turns under its torque before the engine's inertia answers, with its share of that
    # inertia on it (the carrier's weight on each wheel: split / 2 at the front, (1 - split) / 2 at the rear).
    answer = t0 - into
    return Driveline(st_fl, st_fr, st_rl, st_rr, fx_fl, fx_fr, fx_rl, fx_rr, kx_fl, kx_fr, kx_rl, kx_rr,
                     d_fl, d_fr, d_rl, d_rr, d_fl + 0.5 * split * answer, d_fr + 0.5 * split * answer,
                     d_rl + 0.5 * (1.0 - split) * answer, d_rr + 0.5 * (1.0 - split) * answer,
                     0.5 * split * engine_on, 0.5 * (1.0 - split) * engine_on, held_f, held_r, held_c,
                     0.5 * split * rub, 0.5 * (1.0 - split) * rub, stuck, clutch_t, t0)


@scalar
def axle_allowance(p, k_l, k_r, kx_l, kx_r, w_l, w_r, i, ahead, direction, dt):
    """Launch control: the most drive torque [N m] a driven axle may take this frame (physics.aids.launch_allowance
    for each wheel). As traction control's throttle cut follows the less spinning wheel and its brake takes the
    other: through a differential that splits the torque evenly (open, limited slip, torque sensing), twice the
    better wheel's; through a locked one both wheels' together. A wheel that cannot take its share spins on to
    ``tcs_brake_slip``, where its brake holds it and so passes the rest across the differential."""
    radius, floor = p.body_wheel_radius, p.model_slip_speed
    a_l = aids.launch_allowance(p, w_l, k_l.u, ahead, radius, floor, direction, i + dt * radius * radius * kx_l, i,
                                radius * k_l.fx, radius * k_l.limit, dt)
    a_r = aids.launch_allowance(p, w_r, k_r.u, ahead, radius, floor, direction, i + dt * radius * radius * kx_r, i,
                                radius * k_r.fx, radius * k_r.limit, dt)
    if p.diff_kind == 1:
        return a_l + a_r
    return 2.0 * max(a_l, a_r)


@scalar
def launch_allowance(p, s, k_fl, k_fr, k_rl, k_rr, kx_fl, kx_fr, kx_rl, kx_rr, i_f, i_r, ahead, direction, dt):
    """Launch control: the most drive torque [N m at the wheels] the driven wheels may take this frame
    (:func:`axle_allowance`); with all-wheel drive the better axle's at the centre differential's split
    ``front_drive``, the other axle's spin caught by its brakes as across an axle."""
    share = p.front_drive
    if share == 0.0:
        return axle_allowance(p, k_rl, k_rr, kx_rl, kx_rr, s.wheel_rl, s.wheel_rr, i_r, ahead, direction, dt)
    front = axle_allowance(p, k_fl, k_fr, kx_fl, kx_fr, s.wheel_fl, s.wheel_fr, i_f, ahead * k_fl.c, direction,
                           dt)
    if share == 1.0:
        return front
    rear = axle_allowance(p, k_rl, k_rr, kx_rl, kx_rr, s.wheel_rl, s.wheel_rr, i_r, ahead, direction, dt)
    return max(front / share, rear / (1.0 - share))


@scalar
def spin_over(p, k, start, drive, fx, kx, inertia, ahead, direction, dt):
    """How far [rad/s, in the drivetrain's direction] a driven wheel ends the frame, free of brakes, past the speed
    traction control holds it to (physics.aids.tcs_hold): its first update (physics.wheel.spin) from the
    drivetrain's start."""
    radius = p.body_wheel_radius
    free = wheel.spin(start, drive, fx, kx, 0.0, radius, inertia, dt)[1]
    return direction * (free - aids.tcs_hold(p, k.u, ahead, radius, p.model_slip_speed, direction))


TCS_SOLVES = 8  # the drivetrain's solves traction control's engine cut may take in a frame (four_wheel_frame)


@scalar
def open_pull(i, c, j):
    """The torque, in times the bare wheel's (``j``, its tyre's slope taken implicitly), a brake takes to turn a driven
    wheel by a change of speed, where the engine is locked through an open differential to its axle and both wheels
    turn one way: the differential passes part of the torque across (the partner turns up) and the carrier, which the
    engine's inertia keeps, takes the rest (:func:`locked_momentum`: the axle's wheels ``i`` each, the engine's ``c`` a
    wheel). The bare wheel's torque turned it (i + c + j) / (2 (i + c)) of the change once the carrier had answered:
    a launch on split mu held the icy wheel between 0.14 and 0.21 of slip for a tcs_brake_slip of 0.12."""
    return 2.0 * (i + c) / (i + c + j)


@scalar
def open_lift(drop, i, c, j):
    """What a brake on one wheel of a driven pair locked to the engine through an open differential turns the partner
    up by, where it turns its own wheel down by ``drop``: (i + c - j) / (i + c + j) of it (:func:`open_pull`)."""
    return drop * (i + c - j) / (i + c + j)


@scalar
def open_tcs(p, k, omega, free, j, held, ahead, spin_target, most, dt, partner, i, c):
    """Traction control's brake on a driven wheel (speed ``omega``, ``free`` its speed without brakes) whose partner
    across an open differential turns free, the engine locked to the two (``i`` each wheel's inertia, ``c`` the
    engine's on each wheel): (the wheel, its partner) after the first update, as :class:`Held`. The wheel goes to its
    target (physics.wheel.anti_spin, by at most ``most``), and the partner turns up by (i + c - j) / (i + c + j) of
    that, what the differential passes across while the engine's inertia keeps the carrier (:func:`open_pull`): the
    pair's mean then moves as :func:`locked_momentum` takes it from the brake's torque, open_pull times the bare
    wheel's."""
    h = aided(p, k, omega, free, j, held, ahead, False, 1.0, spin_target, most, dt, 0.0, 0.0, 1.0)
    up = open_lift(omega - h.omega, i, c, j)
    return h, Held(partner.omega + up, partner.held, partner.abs_on, partner.tcs_on)


@scalar
def open_impulses(d_l, d_r, i, c, top, dt):
    """The brake impulses [N m s] that slow the two wheels of an open pair locked to the engine by ``d_l`` and ``d_r``
    (``i`` a wheel's inertia, ``c`` the engine's on each wheel, as :func:`locked_momentum` counts them): the
    differential passes them equal torques and the engine turns with their mean, so a wheel takes
    i d_k + c (d_l + d_r) / 2. With the share of them a brake of ``top`` [N m] gives in ``dt`` where the one that needs
    more has not that much (1 where it has)."""
    t_l, t_r = i * d_l + 0.5 * c * (d_l + d_r), i * d_r + 0.5 * c * (d_l + d_r)
    most = max(abs(t_l), abs(t_r))
    return t_l, t_r, min(top * dt / most, 1.0) if most > 0.0 else 1.0


@scalar
def both_tcs(p, k_l, k_r, omega_l, omega_r, j_l, j_r, ahead_l, ahead_r, spin_target, i, c, top, dt):
    """Traction control's brakes on both driven wheels of an axle locked to the engine through an open differential
    (speeds ``omega_*`` before them, no other brake on the axle): (left, right) as :class:`Held` after the first update,
    and each brake's torque in times what turns its bare wheel (``j_*``) so. The engine turns with the wheels' mean and
    the differential passes them equal torques: a wheel slowed by d_k takes i d_k + c (d_l + d_r) / 2 of brake impulse
    [N m s] (``i`` a wheel's inertia, ``c`` the engine's on each, as :func:`locked_momentum` counts them, which then
    leaves the wheels where this puts them). Both go to their targets (physics.wheel.anti_spin) where each brake has
    that much torque (``top``); else both as far as the brake that needs more goes with its whole torque. (Sized
    (i + c) / j times the bare wheel's each, the wheel further past its target ran out of brake while the other had
    some left: at tcs_slip 0.3 on split mu they swapped slips frame by frame, and at 1/500 s the icy one spun away.)"""
    h_l = aided(p, k_l, omega_l, omega_l, j_l, True, ahead_l, False, 1.0, spin_target, math.inf, dt, 0.0, 0.0, 1.0)
    h_r = aided(p, k_r, omega_r, omega_r, j_r, True, ahead_r, False, 1.0, spin_target, math.inf, dt, 0.0, 0.0, 1.0)
    d_l, d_r = omega_l - h_l.omega, omega_r - h_r.omega
    t_l, t_r, scale = open_impulses(d_l, d_r, i, c, top, dt)
    d_l, d_r = scale * d_l, scale * d_r
    pull_l = t_l / (j_l * d_l / scale) if d_l != 0.0 else 1.0
    pull_r = t_r / (j_r * d_r / scale) if d_r != 0.0 else 1.0
    return (Held(omega_l - d_l, True, False, d_l != 0.0), Held(omega_r - d_r, True, False, d_r != 0.0), pull_l,
            pull_r)


@scalar
def tcs_speed(p, k, ahead, spin_target):
    """The speed traction control's brake holds a driven wheel at, where its torque is enough
    (physics.wheel.anti_spin): ``spin_target`` of slip past the road under it at the frame's end, never past
    standstill."""
    limit = wheel.spin_limit(k.u + ahead, p.body_wheel_radius, p.model_slip_speed, spin_target)
    return max(limit, 0.0) if spin_target > 0.0 else min(limit, 0.0)


@scalar
def partner_tcs(p, k_l, k_r, omega_l, omega_r, j_l, j_r, ahead_l, ahead_r, spin_target, i, c, top, dt):
    """Traction control's brake on the left wheel of an open pair locked to the engine (:func:`open_tcs`) turned the
    right one, free of brakes, up past its own target: both wheels braked to their targets, as :func:`both_tcs` brakes
    them, the right one's target above its speed (``omega_r``) before the brakes. Its brake then takes only what the
    differential passes across beyond that: the left wheel's brake impulse is i d_l + c (d_l + d_r) / 2, the right
    one's i d_r + c (d_l + d_r) / 2 with d_r < 0 (d_k the wheel's fall). (Left to turn up, the partner of a wheel on
    ice ran at 0.19 of slip at 1/120 s and 0.11 at 1/2000 s, for a tcs_brake_slip of 0.12 and a tcs_slip of 0.3.)
    Returns (left, right) as :class:`Held`, each brake's torque in times what turns its bare wheel so, and whether the
    right brake pushes (it cannot: the caller keeps :func:`open_tcs`'s answer; nor can a brake whose wheel does not
    turn, at its target already, be read from its wheel's change: the same, and :func:`open_pair_over` likewise)."""
    d_l, d_r = omega_l - tcs_speed(p, k_l, ahead_l, spin_target), omega_r - tcs_speed(p, k_r, ahead_r, spin_target)
    t_l, t_r, scale = open_impulses(d_l, d_r, i, c, top, dt)
    pushes = t_r * spin_target <= 0.0 or t_l * spin_target <= 0.0 or d_r == 0.0
    pull_l = t_l / (j_l * d_l) if d_l != 0.0 else 1.0
    pull_r = t_r / (j_r * d_r) if d_r != 0.0 else 1.0
    return (Held(omega_l - scale * d_l, True, False, True), Held(omega_r - scale * d_r, True, False, True), pull_l,
            pull_r, pushes)


@scalar
def open_axle_esc(h_l, h_r, w_l, w_r, free_l, free_r, j_l, j_r, held_l, held_r, e_l, e_r, i, c):
    """Stability control's brake on one wheel of a driven axle locked to the engine through an open differential, the
    other wheel free of brakes. The first update (:func:`aided`) took it on the bare wheel, and the partner turned up
    only after the body's step (:func:`locked_momentum`): the differential passes part of it across and the carrier,
    which the engine's inertia keeps, takes the rest, so the braked wheel turns down by 1 / open_pull of that and its
    partner up by :func:`open_lift` of it, within the update, where the body's step takes their tyres' forces. Returns
    the wheels (as :class:`Held`) and their speeds before traction control's brakes (``w_*``, ``free_*``: the
    partner's raised). Where the brake holds its wheel at its slip target (through ABS's valves), or stopped it,
    nothing changes. (Taken on the bare wheel, with stability control braking the dry rear wheel on split mu and
    traction control the icy one, the icy wheel sat at 0.20 of slip on average at 1/120 s and 0.135 at 1/2000 s, for a
    tcs_brake_slip of 0.12.)"""
    if e_l > 0.0 and e_r == 0.0 and not h_l.held and not held_r:
        h_l, w_r, free_r = esc_turned(h_l, free_l, w_r, free_r, j_l, i, c)
    elif e_r > 0.0 and e_l == 0.0 and not h_r.held and not held_l:
        h_r, w_l, free_l = esc_turned(h_r, free_r, w_l, free_l, j_r, i, c)
    return h_l, h_r, w_l, w_r, free_l, free_r


@scalar
def esc_turned(h, free, w_partner, free_partner, j, i, c):
    """:func:`open_axle_esc` for the braked wheel (``h`` as :func:`aided` left it, ``free`` its speed without brakes,
    ``j`` its inertia): the wheel turned down by 1 / open_pull of its bare change, and the partner's speeds
    (``w_partner``, ``free_partner``) raised by :func:`open_lift` of that."""
    drop = (free - h.omega) / open_pull(i, c, j)
    up = open_lift(drop, i, c, j)
    return Held(free - drop, False, h.abs_on, h.tcs_on), w_partner + up, free_partner + up


@scalar
def open_axle_tcs(p, k_l, k_r, h_l, h_r, omega_l, omega_r, free_l, free_r, j_l, j_r, held_l, held_r, ahead_l, ahead_r,
                  spin_target, most_l, most_r, i, c, top, dt, b_l, b_r):
    """Traction control's brakes on a driven axle locked to the engine through an open differential, no pedal or
    handbrake on it (``h_*`` the wheels as :func:`aided` left them, each wheel braked alone; ``b_*`` their brakes,
    stability control's alone): one wheel braked, its partner turning free or carrying stability control's brake
    (:func:`open_axle_esc` turned them first), by :func:`open_tcs`, and where that turns a partner free of brakes up
    past its own target, both to their targets by :func:`partner_tcs`; both braked, neither by stability control, by
    :func:`both_tcs`. Returns (left, right) as :class:`Held` and each brake's torque in times what turns its bare wheel
    so (1 for a wheel not braked)."""
    if h_l.tcs_on and not h_r.held and b_l == 0.0:
        return one_tcs(p, k_l, k_r, h_r, omega_l, omega_r, free_l, j_l, j_r, held_l, ahead_l, ahead_r, spin_target,
                       most_l, b_r, i, c, top, dt)
    if h_r.tcs_on and not h_l.held and b_r == 0.0:
        n_r, n_l, pull_r, pull_l = one_tcs(p, k_r, k_l, h_l, omega_r, omega_l, free_r, j_r, j_l, held_r, ahead_r,
                                           ahead_l, spin_target, most_r, b_l, i, c, top, dt)
        return n_l, n_r, pull_l, pull_r
    if h_l.tcs_on and h_r.tcs_on and b_l == 0.0 and b_r == 0.0:
        return both_tcs(p, k_l, k_r, omega_l, omega_r, j_l, j_r, ahead_l, ahead_r, spin_target, i, c, top, dt)
    return h_l, h_r, 1.0, 1.0


@scalar
def one_tcs(p, k, k_partner, h_partner, omega, omega_partner, free, j, j_partner, held, ahead, ahead_partner,
            spin_target, most, b_partner, i, c, top, dt):
    """:func:`open_axle_tcs` where traction control brakes one wheel (``k``, ``omega``, ...) and not its partner:
    (the wheel, its partner) as :class:`Held` and their brakes' torques in times what turns each bare wheel so. The
    wheel to its target with the partner turned up (:func:`open_tcs`); where that carries a partner free of brakes
    (``b_partner`` 0) past its own target, both to their targets (:func:`partner_tcs`)."""
    pull = open_pull(i, c, j)
    a, a_partner = open_tcs(p, k, omega, free, j, held, ahead, spin_target, most / pull, dt, h_partner, i, c)
    if b_partner == 0.0 and (a_partner.omega - tcs_speed(p, k_partner, ahead_partner, spin_target)) * spin_target > 0.0:
        n, n_partner, pull_n, pull_partner, pushes = partner_tcs(p, k, k_partner, omega, omega_partner, j, j_partner,
                                                                 ahead, ahead_partner, spin_target, i, c, top, dt)
        if not pushes:
            return n, n_partner, pull_n, pull_partner
    return a, a_partner, pull, 1.0


@scalar
def open_pair_over(p, k_l, k_r, start_l, start_r, drive_l, drive_r, fx_l, fx_r, kx_l, kx_r, i, c, ahead_l, ahead_r,
                   direction, spin_target, bare, e_l, e_r, dt):
    """The least :func:`spin_over` of a driven pair locked to the engine through an open differential, after the
    brake traction control puts on a wheel spinning past ``spin_target``, where ``bare`` (no pedal or handbrake on the
    axle; ``e_*`` stability control's brakes, which turn the pair as :func:`open_axle_esc` does, and a wheel it brakes
    traction control's brake leaves alone):
    that brake holds its wheel there and turns the partner up by what the differential passes across (the carrier,
    which the engine's inertia keeps, turns on: :func:`open_pull`'s update and :func:`locked_momentum`). Solved without
    it, the engine's cut left the wheel on the better grip under its target, and the brake on the other then carried
    it past (split mu: 0.05 to 0.16 of slip at 1/120 s for a tcs_slip of 0.1). With both wheels past it, both are
    braked (:func:`both_tcs`). Where a brake cannot hold its wheel at ``spin_target`` (its whole torque is not enough),
    what it leaves the wheel past it counts too: the engine gives that up, however little the other wheel spins.
    (Not counted, a tcs_slip above tcs_brake_slip left the engine's whole torque to the brakes, and at 1/500 s the icy
    wheel of a split-mu launch spun away to 3.5 of slip while the engine followed the other one, held at 0.12.)"""
    radius, floor = p.body_wheel_radius, p.model_slip_speed
    free_l, _, j_l, _ = wheel.spin(start_l, drive_l, fx_l, kx_l, 0.0, radius, i, dt)
    free_r, _, j_r, _ = wheel.spin(start_r, drive_r, fx_r, kx_r, 0.0, radius, i, dt)
    if free_l * free_r <= 0.0 or c <= 0.0 or not bare:
        over_l = direction * (free_l - aids.tcs_hold(p, k_l.u, ahead_l, radius, floor, direction))
        over_r = direction * (free_r - aids.tcs_hold(p, k_r.u, ahead_r, radius, floor, direction))
        return min(over_l, over_r)
    # Stability control's brake on one wheel, as the first update turns the pair (open_axle_esc).
    if e_l > 0.0 and e_r == 0.0:
        free_l, free_r = esc_on_pair(free_l, free_r, e_l, j_l, i, c, dt)
    if e_r > 0.0 and e_l == 0.0:
        free_r, free_l = esc_on_pair(free_r, free_l, e_r, j_r, i, c, dt)
    if e_l > 0.0 and e_r > 0.0:  # on both, each on its bare wheel (pair_braked)
        free_l, free_r = wheel.hold(free_l, e_l, j_l, dt)[0], wheel.hold(free_r, e_r, j_r, dt)[0]
    over_l = direction * (free_l - aids.tcs_hold(p, k_l.u, ahead_l, radius, floor, direction))
    over_r = direction * (free_r - aids.tcs_hold(p, k_r.u, ahead_r, radius, floor, direction))
    left = 0.5 * p.brakes_force * radius
    road_l, road_r = k_l.u + ahead_l, k_r.u + ahead_r
    past_l = direction * (free_l - wheel.spin_limit(road_l, radius, floor, spin_target))
    past_r = direction * (free_r - wheel.spin_limit(road_r, radius, floor, spin_target))
    if e_l > 0.0 or e_r > 0.0:  # traction control brakes a wheel stability control brakes as it finds it
        past_l = past_l if e_l == 0.0 else 0.0
        past_r = past_r if e_r == 0.0 else 0.0
    down_l = max(min(past_l, dt * left / (j_l * open_pull(i, c, j_l))), 0.0)
    down_r = max(min(past_r, dt * left / (j_r * open_pull(i, c, j_r))), 0.0)
    up_l = open_lift(down_r, i, c, j_r)
    up_r = open_lift(down_l, i, c, j_l)
    # Both braked, as both_tcs brakes them; or one, and its partner, free of brakes, turned up past its own target and
    # braked there too (partner_tcs: its past is below zero, and its brake takes only what comes across).
    t_l, t_r, scale = open_impulses(past_l, past_r, i, c, left, dt)
    both = past_l > 0.0 and past_r > 0.0
    if not both and past_l > 0.0 and e_r == 0.0 and past_r + up_r > 0.0 and past_r != 0.0:
        both = t_r > 0.0
    if not both and past_r > 0.0 and e_l == 0.0 and past_l + up_l > 0.0 and past_l != 0.0:
        both = t_l > 0.0
    if both:  # both brakes' impulses positive, so the share is as both_tcs and partner_tcs take it
        least = min(over_l - scale * past_l, over_r - scale * past_r)
        short = (1.0 - scale) * max(past_l, past_r)
        return max(least, short) if short > 0.0 else least
    least = over_l - down_l + up_l if over_l <= over_r else over_r - down_r + up_r
    short = max(past_l - down_l, past_r - down_r)  # how far a brake that has not torque enough leaves its wheel
    return max(least, short) if short > 0.0 else least


@scalar
def esc_on_pair(free, free_partner, e, j, i, c, dt):
    """The speeds (the braked wheel's, its partner's) that stability control's brake ``e`` on one wheel of an open pair
    locked to the engine leaves, as :func:`open_axle_esc` turns them; a brake that stops its wheel acts on it alone."""
    braked, stopped = wheel.hold(free, e, j, dt)
    drop = (free - braked) / (1.0 if stopped else open_pull(i, c, j))
    return free - drop, free_partner + (0.0 if stopped else open_lift(drop, i, c, j))


@scalar
def axle_over(p, held, k_l, k_r, start_l, start_r, drive_l, drive_r, fx_l, fx_r, kx_l, kx_r, i, c, ahead_l, ahead_r,
              direction, spin_target, bare, e_l, e_r, dt):
    """One driven axle's part of :func:`least_over`: through its differential (:func:`open_pair_over`) where that lets
    the wheels apart (open, or a coupling that did not hold, ``held``), its wheels' own :func:`spin_over` where it
    holds."""
    if p.diff_kind == 0 or not held:
        return open_pair_over(p, k_l, k_r, start_l, start_r, drive_l, drive_r, fx_l, fx_r, kx_l, kx_r, i, c, ahead_l,
                              ahead_r, direction, spin_target, bare, e_l, e_r, dt)
    return min(spin_over(p, k_l, start_l, drive_l, fx_l, kx_l, i, ahead_l, direction, dt),
               spin_over(p, k_r, start_r, drive_r, fx_r, kx_r, i, ahead_r, direction, dt))


@scalar
def least_over(p, g, k_fl, k_fr, k_rl, k_rr, ahead, direction, i_f, i_r, spin_target, bare_f, bare_r, e_fl, e_fr,
               e_rl, e_rr, dt):
    """The least :func:`spin_over` of the driven wheels of :class:`Driveline` ``g``: traction control's engine cut
    follows the less spinning one, its brake takes the others (through an open differential on one driven axle,
    :func:`open_pair_over`; a limited-slip or torque-sensing one that slips this frame counts as open, its
    coupling's torque standing in the wheels' drives). With all-wheel drive the least of each axle's: through its
    differential where that lets the wheels apart (the engine's share on each axle, ``c_front`` and ``c_rear``, taken
    as a one-axle car's; the centre's kind does not enter, so a locked centre is taken so too), wheel by wheel where it
    holds. (Counted wheel by wheel on both axles before 0.3.24, the brakes on the spinning axle sped the held one past
    its target through the centre: 0.120 of slip for a tcs_slip of 0.1 on snow at 1/120 s, 0.102 at 1/1000 s.)"""
    rear = 0.0
    if p.front_drive < 1.0:
        rear = axle_over(p, g.held_rear, k_rl, k_rr, g.start_rl, g.start_rr, g.drive_rl, g.drive_rr, g.fx_rl, g.fx_rr,
                         g.kx_rl, g.kx_rr, i_r, g.c_rear, ahead, ahead, direction, spin_target, bare_r, e_rl, e_rr, dt)
        if p.front_drive == 0.0:
            return rear
    front = axle_over(p, g.held_front, k_fl, k_fr, g.start_fl, g.start_fr, g.drive_fl, g.drive_fr, g.fx_fl, g.fx_fr,
                      g.kx_fl, g.kx_fr, i_f, g.c_front, ahead * k_fl.c, ahead * k_fr.c, direction, spin_target, bare_f,
                      e_fl, e_fr, dt)
    return front if p.front_drive == 1.0 else min(front, rear)


@scalar(inline=True)
def driveline(p, s, u, k_fl, k_fr, k_rl, k_rr, kx_fl, kx_fr, kx_rl, kx_rr, ks_fl, ks_fr, ks_rl, ks_rr, i_f, i_r,
              engine_torque, capacity, direct_torque, ratio, dt):
    """The drivetrain's start of the frame for every wheel (a :class:`Driveline`): the rear or the front pair through
    :func:`pair`, the other pair rolling free, or all four through :func:`all_wheels`."""
    if p.front_drive == 0.0:
        r = pair(p, s, u, k_rl, k_rr, kx_rl, kx_rr, ks_rl, ks_rr, s.wheel_rl, s.wheel_rr, i_r, engine_torque,
                 capacity, direct_torque, ratio, dt)
        return Driveline(s.wheel_fl, s.wheel_fr, r.start_l, r.start_r, k_fl.fx, k_fr.fx, r.fx_l, r.fx_r, kx_fl,
                         kx_fr, r.kx_l, r.kx_r, 0.0, 0.0, r.drive_l, r.drive_r, 0.0, 0.0, r.own_l, r.own_r, 0.0,
                         r.coupled, False, r.held, False, 0.0, r.rub, r.stuck, r.clutch_t, r.t0)
    if p.front_drive == 1.0:
        f = pair(p, s, u, k_fl, k_fr, kx_fl, kx_fr, ks_fl, ks_fr, s.wheel_fl, s.wheel_fr, i_f, engine_torque,
                 capacity, direct_torque, ratio, dt)
        return Driveline(f.start_l, f.start_r, s.wheel_rl, s.wheel_rr, f.fx_l, f.fx_r, k_rl.fx, k_rr.fx, f.kx_l,
                         f.kx_r, kx_rl, kx_rr, f.drive_l, f.drive_r, 0.0, 0.0, f.own_l, f.own_r, 0.0, 0.0, f.coupled,
                         0.0, f.held, False, False, f.rub, 0.0, f.stuck, f.clutch_t, f.t0)
    return all_wheels(p, s, u, k_fl, k_fr, k_rl, k_rr, kx_fl, kx_fr, kx_rl, kx_rr, ks_fl, ks_fr, ks_rl, ks_rr, i_f,
                      i_r, engine_torque, capacity, direct_torque, ratio, dt)


@scalar
def four_wheel_frame(p, s, u, c, new, out, dt, t, road, lanes):
    """Advance the four-wheel car by dt on ``road`` (its surfaces' rows, physics.surface): the next state into
    ``new``, this frame's telemetry into ``out``; ``lanes`` is scratch space for the tyres (physics.tyre.magic_lanes,
    float64 (LANE_ROWS, LANES))."""
    lf, lr, mass, inertia = p.lf, p.body_lr, p.body_mass, p.body_yaw_inertia
    radius, half = p.body_wheel_radius, 0.5 * p.body_track
    tan_d = approx.tan(c.steer)
    left, right = steering.ackermann(tan_d, p.body_wheelbase, p.body_track)
    d_fl = c.steer + p.steering_ackermann * (left - c.steer)
    d_fr = c.steer + p.steering_ackermann * (right - c.steer)

    # Loads from the last frame's accelerations and the roll, and each corner's tyre.
    shift_f, shift_r = suspension.lateral_transfer(p, s.accel_y, s.roll, s.roll_rate)
    z_fl, z_fr, z_rl, z_rr = suspension.wheel_loads(p, s.accel, shift_f, shift_r)
    sin_s, cos_s = approx.sincos(s.heading)
    g_fl, c_fl = ground(p, road, s, cos_s, sin_s, lf, half)
    g_fr, c_fr = ground(p, road, s, cos_s, sin_s, lf, -half)
    g_rl, c_rl = ground(p, road, s, cos_s, sin_s, -lr, half)
    g_rr, c_rr = ground(p, road, s, cos_s, sin_s, -lr, -half)
    mu_fl, mu_fr = friction(p, z_fl, p.reference_front, g_fl), friction(p, z_fr, p.reference_front, g_fr)
    mu_rl, mu_rr = friction(p, z_rl, p.reference_rear, g_rl), friction(p, z_rr, p.reference_rear, g_rr)
    sin_fl, cos_fl = approx.sincos(d_fl)
    sin_fr, cos_fr = approx.sincos(d_fr)
    q_fl = contact_slips(p, s.vx, s.vy, s.yaw_rate, lf, half, cos_fl, sin_fl, s.wheel_fl, z_fl, mu_fl, g_fl, True)
    q_fr = contact_slips(p, s.vx, s.vy, s.yaw_rate, lf, -half, cos_fr, sin_fr, s.wheel_fr, z_fr, mu_fr, g_fr, True)
    q_rl = contact_slips(p, s.vx, s.vy, s.yaw_rate, -lr, half, 1.0, 0.0, s.wheel_rl, z_rl, mu_rl, g_rl, False)
    q_rr = contact_slips(p, s.vx, s.vy, s.yaw_rate, -lr, -half, 1.0, 0.0, s.wheel_rr, z_rr, mu_rr, g_rr, False)
    # The four tyres' eight magic-formula curves at once, in SIMD lanes (the same bits as one at a time).
    put_lanes(p, lanes, 0, q_fl)
    put_lanes(p, lanes, 1, q_fr)
    put_lanes(p, lanes, 2, q_rl)
    put_lanes(p, lanes, 3, q_rr)
    tyre.magic_lanes(lanes)
    k_fl = lane_contact(p, lanes, 0, q_fl, z_fl, mu_fl)
    k_fr = lane_contact(p, lanes, 1, q_fr, z_fr, mu_fr)
    k_rl = lane_contact(p, lanes, 2, q_rl, z_rl, mu_rl)
    k_rr = lane_contact(p, lanes, 3, q_rr, z_rr, mu_rr)

    # The drivetrain (traction control's cut follows the less spinning driven wheel: the brake takes the other).
    front_share = p.front_drive
    kappa = min(k_rl.kappa, k_rr.kappa)
    if front_share == 1.0:
        kappa = min(k_fl.kappa, k_fr.kappa)
    elif front_share > 0.0:
        kappa = min(kappa, k_fl.kappa, k_fr.kappa)
    driven = carrier(front_share, s.wheel_fl, s.wheel_fr, s.wheel_rl, s.wheel_rr)
    # Stability control's brakes, and its cut of the engine against oversteer (physics.aids.esc_torques).
    road_mu = 0.25 * (g_fl + g_fr + g_rl + g_rr)
    yaw_target = aids.yaw_target(p, s.yaw_target, s.vx, c.steer, road_mu, dt)
    e_fl, e_fr, e_rl, e_rr, esc_cut = aids.esc_torques(p, s.vx, s.vy, s.yaw_rate, yaw_target)
    d, engine_torque, capacity, direct_torque, tcs, closed = _step.grip_drive(p, s, c, u.start, kappa, driven, dt,
                                                                             esc_cut)
    ratio = d.ratio
    full = d.brake_share * p.brakes_force * radius
    b_front = 0.5 * p.brakes_front_share * full
    b_rear = 0.5 * full - b_front
    if c.handbrake:
        b_rear = b_rear + 0.5 * p.brakes_force * radius
    top = 0.5 * p.brakes_force * radius  # one wheel's whole brake
    b_fl, b_fr = min(b_front + e_fl, top), min(b_front + e_fr, top)
    b_rl, b_rr = min(b_rear + e_rl, top), min(b_rear + e_rr, top)
    i_f, i_r = 0.5 * p.body_wheel_inertia_front, 0.5 * p.body_wheel_inertia_rear
    guess = 0.5 * (ratio * min(max(engine_torque, -capacity), capacity) if p.manual else direct_torque)
    kx_fl = slope(k_fl, front_share * guess, s.wheel_fl, b_fl, radius)
    kx_fr = slope(k_fr, front_share * guess, s.wheel_fr, b_fr, radius)
    kx_rl = slope(k_rl, (1.0 - front_share) * guess, s.wheel_rl, b_rl, radius)
    kx_rr = slope(k_rr, (1.0 - front_share) * guess, s.wheel_rr, b_rr, radius)

    # Launch control while the automatic launch clutch slips (physics.step.launch_control).
    ahead = dt * s.accel
    launch_on = False
    slipping_torque = engine_torque
    if p.manual and _step.launching(p, s, c, d.auto_clutch):
        allowance = launch_allowance(p, s, k_fl, k_fr, k_rl, k_rr, kx_fl, kx_fr, kx_rl, kx_rr, i_f, i_r, ahead,
                                     brakes.sign(ratio), dt)
        capacity, slipping_torque, launch_on = _step.launch_control(p, s, engine_torque, capacity, allowance, ratio,
                                                                    ratio * driven, dt)

    # The driven wheels through the clutch and the differentials (an engine locked to them adds its inertia);
    # a stalled engine locked to them rubs on them as a brake.
    valves = abs(s.vx) > p.brakes_abs_min_speed  # the brakes' slip control works (stability control's, and ABS's)
    abs_ready = p.brakes_abs > 0 and valves
    braking = abs_ready and d.brake_share > 0.0
    rear_abs = braking and not c.handbrake
    # Stability control brakes through ABS's valves: a wheel it brakes is held to its slip target whether or not
    # the pedal is pressed, and whether or not ABS acts on the pedal's brake (the handbrake pulls the rear brakes
    # past them).
    abs_fl, abs_fr = braking or (valves and e_fl > 0.0), braking or (valves and e_fr > 0.0)
    abs_rl = rear_abs or (valves and e_rl > 0.0 and not c.handbrake)
    abs_rr = rear_abs or (valves and e_rr > 0.0 and not c.handbrake)
    # The drivetrain's solves take no brakes: a wheel past its tyre's peak whose brake ABS lets off (its slip held to
    # a target) comes back with its tyre's slope without the brake (solve_slope).
    # A wheel its brake holds at rest stands in the solves where the clutch can lock the wheels to the engine (in
    # gear, solve_slope); in neutral the couplings' meet keeps a locked group with its braked wheel, and standing it
    # in their solve too moved a locked rollback's handbrake-held wheels back off rest (0 to -0.009 rad/s a frame).
    geared = ratio != 0.0
    hb_fl, hb_fr = (b_fl, b_fr) if geared else (-1.0, -1.0)  # (a brake of -1 holds no wheel)
    hb_rl, hb_rr = (b_rl, b_rr) if geared else (-1.0, -1.0)
    ks_fl = solve_slope(k_fl, kx_fl, front_share * guess, radius, abs_fl, p.peak_long, s.wheel_fl, hb_fl)
    ks_fr = solve_slope(k_fr, kx_fr, front_share * guess, radius, abs_fr, p.peak_long, s.wheel_fr, hb_fr)
    ks_rl = solve_slope(k_rl, kx_rl, (1.0 - front_share) * guess, radius, abs_rl, p.peak_long, s.wheel_rl, hb_rl)
    ks_rr = solve_slope(k_rr, kx_rr, (1.0 - front_share) * guess, radius, abs_rr, p.peak_long, s.wheel_rr, hb_rr)
    # Traction control holding the slip within the frame, as on the single-track car (physics.aids.tcs_torque): with
    # the clutch locked, the engine gives up what leaves the less spinning driven wheel at tcs_slip at the frame's
    # end (its brake takes a wheel that spins further), down to its closed-throttle torque. The drivetrain is solved
    # at the engine's torque, at the closed throttle's and at the torque between them where the two put that wheel
    # at its target (the driven wheels' speeds are linear in the engine's torque while the clutch holds; where a wheel
    # crosses tcs_brake_slip the line bends, and the torque between is found again, up to TCS_SOLVES solves). Without it
    # only the throttle cut that follows the slip (physics.aids.tcs_cut) acted, and a locked clutch's launch on snow
    # held the slip at 0.137 for a tcs_slip of 0.1, its wheels' brakes working against the engine by an amount that
    # moved with dt (51 N m at 1/120 s, 319 at 1/1000 s).
    direction = brakes.sign(ratio)
    tcs_engine = (p.aids_tcs > 0 and p.manual and not s.stalled and direction != 0.0 and engine_torque > closed
                  and s.rpm > p.engine_idle_rpm + p.engine_limiter_band)
    torque = engine_torque
    hold_target = p.aids_tcs_brake_slip * direction
    bare_f, bare_r = b_fl == e_fl and b_fr == e_fr, b_rl == e_rl and b_rr == e_rr  # no pedal or handbrake
    high, over_high, low, over_low, span, kept = engine_torque, 0.0, closed, 0.0, 0.0, 0
    for attempt in range(TCS_SOLVES):
        g = driveline(p, s, u, k_fl, k_fr, k_rl, k_rr, kx_fl, kx_fr, kx_rl, kx_rr, ks_fl, ks_fr, ks_rl, ks_rr, i_f,
                      i_r, torque, capacity, direct_torque, ratio, dt)
        if attempt == TCS_SOLVES - 1:
            break
        over = least_over(p, g, k_fl, k_fr, k_rl, k_rr, ahead, direction, i_f, i_r, hold_target, bare_f, bare_r,
                          e_fl, e_fr, e_rl, e_rr, dt) if tcs_engine and g.stuck else 0.0
        if attempt == 0:
            over_high = over
            if not over > 0.0:
                break
            g_full, torque = g, closed
            continue
        if attempt == 1:
            if not g.stuck:  # the clutch slips at the closed throttle: the frame as it was, at the engine's torque
                g, torque = g_full, engine_torque
                break
            if over >= 0.0:
                break  # the closed throttle leaves it past its target too: the brake takes the rest
            over_low, span = over, over_high - over
        else:  # the interpolated torque: done where it lands on the target, else again within the bracket
            if abs(over) <= 1e-9 * span:
                break
            # Regula falsi, Illinois' way: an end kept twice counts half, so that a bend in the line (where a wheel
            # reaches tcs_brake_slip, or light wheels whose speeds turn steeply with the torque) is closed in on.
            if over > 0.0:
                high, over_high = torque, over
                over_low = 0.5 * over_low if kept == -1 else over_low
                kept = -1
            else:
                low, over_low = torque, over
                over_high = 0.5 * over_high if kept == 1 else over_high
                kept = 1
        torque = high - over_high * (high - low) / (over_high - over_low)
    tcs_took = torque != engine_torque
    engine_torque = torque
    launch_on = launch_on and not g.stuck
    if launch_on:
        engine_torque = slipping_torque
    # A wheel a lock-up carried to its tyre's grip starts there with no slope (:func:`start_force`).
    grip_fl, grip_fr, grip_rl, grip_rr = g.kx_fl != kx_fl, g.kx_fr != kx_fr, g.kx_rl != kx_rl, g.kx_rr != kx_rr
    kx_fl, kx_fr, kx_rl, kx_rr = g.kx_fl, g.kx_fr, g.kx_rl, g.kx_rr
    b_fl, b_fr = b_fl + g.rub_front, b_fr + g.rub_front
    b_rl, b_rr = b_rl + g.rub_rear, b_rr + g.rub_rear
    stuck = g.stuck
    # Wheels a differential holds at one speed this frame turn as one body under their brakes together (locked_brakes):
    # the rear brakes of a locked four-wheel drive slow the front wheels as much as the rear ones.
    o_fl, o_fr, o_rl, o_rr = b_fl, b_fr, b_rl, b_rr  # where the torques act, for the telemetry
    one_front = g.held_front and p.diff_kind != 0
    one_rear = g.held_rear and p.diff_kind != 0
    one_centre = g.held_centre and p.centre_kind != 0
    # The wheels' speeds without brakes in their first update, with the body frozen (their inertias j_* with their
    # tyres' slopes).
    free_fl, _, j_fl, _ = wheel.spin(g.start_fl, g.drive_fl, g.fx_fl, kx_fl, 0.0, radius, i_f, dt)
    free_fr, _, j_fr, _ = wheel.spin(g.start_fr, g.drive_fr, g.fx_fr, kx_fr, 0.0, radius, i_f, dt)
    free_rl, _, j_rl, _ = wheel.spin(g.start_rl, g.drive_rl, g.fx_rl, kx_rl, 0.0, radius, i_r, dt)
    free_rr, _, j_rr, _ = wheel.spin(g.start_rr, g.drive_rr, g.fx_rr, kx_rr, 0.0, radius, i_r, dt)
    # With the engine locked to the wheels and only stability control's brakes on them, an axle its differential lets
    # apart takes them through the differential as a one-axle car's (open_axle_esc, open_axle_tcs below), also where
    # the centre holds: the carrier, the engine and the other axle keep it, and locked_momentum moves both axles' means
    # alike after. Shared among all four first (locked_brakes), the wheel stability control braked took its whole
    # torque again on top (aided), and with the brake on the axles' other wheels the open-axle treatment of traction
    # control's brakes was not taken. Only where both axles take that path (their wheels turning one way, neither held
    # by its differential); else the centre shares the brakes as before.
    front_open = (p.diff_kind == 0 or not g.held_front) and free_fl * free_fr > 0.0
    rear_open = (p.diff_kind == 0 or not g.held_rear) and free_rl * free_rr > 0.0
    if (one_centre and front_open and rear_open and g.stuck and bare_f and bare_r and g.rub_front == 0.0
            and g.rub_rear == 0.0):
        one_centre = False
    # A pair its differential held in the drivetrain's solve, which takes no brakes, and which can hold the difference
    # of stability control's brakes on its wheels too (a locked one, or a coupling whose locking torque, P + k |T|, is
    # more): the pair and the engine answer the brakes as one body (pair_braked, aided below). A coupling that cannot
    # would slip under that brake; its pair is left to the wheels' own updates, as before 0.3.24.
    lock_p, lock_k = differential.capacity(p.diff_kind, p.differential_preload, p.differential_ramp,
                                           p.differential_bias_ratio)
    bears_f = one_front and (p.diff_kind == 1 or abs(e_fl - e_fr) <= lock_p + lock_k * abs(g.drive_fl + g.drive_fr))
    bears_r = one_rear and (p.diff_kind == 1 or abs(e_rl - e_rr) <= lock_p + lock_k * abs(g.drive_rl + g.drive_rr))
    r2 = dt * radius * radius
    b_fl, b_fr, b_rl, b_rr = locked_brakes(one_front, one_rear, one_centre, b_fl, b_fr, b_rl, b_rr, i_f + r2 * kx_fl,
                                           i_f + r2 * kx_fr, i_r + r2 * kx_rl, i_r + r2 * kx_rr)

    # The wheels with the body frozen, then ABS (the rear select-low: both rear wheels get the brake the one
    # nearer to locking takes) and traction control's brake on a driven wheel spinning past its target.
    # (With all-wheel drive the axles' means are not one with the engine: the centre differential lets them apart,
    # and the brakes split otherwise than the torque; there the brakes act on the wheels alone, as before.)
    c_f, c_r = g.c_front, g.c_rear
    one_axle = front_share == 0.0 or front_share == 1.0
    b_share_f, b_share_r = (c_f, c_r) if one_axle else (0.0, 0.0)
    w_fl, held_fl, w_fr, held_fr = pair_braked(free_fl, free_fr, b_fl, b_fr, j_fl, j_fr, b_share_f, dt, bears_f)
    w_rl, held_rl, w_rr, held_rr = pair_braked(free_rl, free_rr, b_rl, b_rr, j_rl, j_rr, b_share_r, dt, bears_r)
    # Each wheel's ABS slip target: the straight-line one lowered by its tyre's lateral demand, a front one's
    # by the rear axle's too (cornering brake control, physics.aids.front_room); a wheel stability control
    # brakes may go to its own, larger slip (physics.aids.esc_slip_target). With ABS switched off the pedal's
    # brake may lock a wheel (a target of 1), and stability control's own brake still goes no further than esc_slip.
    if abs_ready:
        straight = p.peak_long * p.brakes_abs_slip
        room_rl, room_rr = abs_room(p, k_rl, False), abs_room(p, k_rr, False)
        rear_room = min(room_rl, room_rr)
        t_fl = straight * aids.front_room(p, abs_room(p, k_fl, True), rear_room)
        t_fr = straight * aids.front_room(p, abs_room(p, k_fr, True), rear_room)
        t_rl, t_rr = straight * room_rl, straight * room_rr
        te_fl, te_fr = aids.esc_slip_target(p, t_fl), aids.esc_slip_target(p, t_fr)
        te_rl, te_rr = aids.esc_slip_target(p, t_rl), aids.esc_slip_target(p, t_rr)
    else:
        t_fl = t_fr = t_rl = t_rr = 1.0
        te_fl = te_fr = te_rl = te_rr = p.aids_esc_slip
    let_off_rl, let_off_rr = False, False
    # Select-low acts on the pedal's part of the rear brakes; stability control's part (on one wheel) acts on top.
    # The torque each wheel's slip target takes is sized for the wheel as it answers a brake its partner gets too,
    # with its share of an engine locked to them (see brake_torque), no more than the pedal's. Where neither wheel
    # reaches its target the brakes stand (sized back from the speeds, the pedal's torque came out an ulp less and
    # took a brake for let off).
    if rear_abs and p.brakes_abs_select_low > 0:
        pedal_b_rl, pedal_b_rr = max(b_rl - e_rl, 0.0), max(b_rr - e_rr, 0.0)
        pedal_rl, _, pedal_rr, _ = pair_braked(free_rl, free_rr, pedal_b_rl, pedal_b_rr, j_rl, j_rr, b_share_r, dt,
                                               bears_r)
        kept_rl = wheel.anti_lock(pedal_rl, free_rl, k_rl.u, ahead, radius, p.model_slip_speed, t_rl)
        kept_rr = wheel.anti_lock(pedal_rr, free_rr, k_rr.u, ahead, radius, p.model_slip_speed, t_rr)
        # Past its target under the pedal's brake, whether or not letting it off would help (the drivetrain can hold a
        # wheel there: in 1st with the clutch in, the engine drags an icy rear wheel to a stop through an open
        # differential). Asked as ABS letting off had no limit: where the wheel would end the frame at rest or turning
        # back without its brake, that is nothing to let off, and the select-low passed over such a frame, the dry
        # rear wheel getting the pedal's whole brake (split_mu_braking at 1/120 s: 1,056 N m in every fourth or fifth
        # frame of the stop's last seconds against 158 in the others, and never at 1/2000 s).
        past_rl = wheel.anti_lock(pedal_rl, math.copysign(math.inf, k_rl.u), k_rl.u, ahead, radius, p.model_slip_speed,
                                  t_rl) != pedal_rl
        past_rr = wheel.anti_lock(pedal_rr, math.copysign(math.inf, k_rr.u), k_rr.u, ahead, radius, p.model_slip_speed,
                                  t_rr) != pedal_rr
        if past_rl or past_rr:  # (a wheel whose brake ABS lets off, kept != pedal, is past its target too)
            share_rl = b_share_r if b_share_r > 0.0 else c_r
            answer_rl = equal_brake_inertia(j_rl, j_rr, share_rl, free_rl, free_rr)
            answer_rr = equal_brake_inertia(j_rr, j_rl, share_rl, free_rr, free_rl)
            low_of_rl = min(answer_rl * abs(free_rl - kept_rl) / dt, pedal_b_rl)
            low_of_rr = min(answer_rr * abs(free_rr - kept_rr) / dt, pedal_b_rr)
            # A wheel stability control brakes (it alone) is past the pedal's target by that brake: what would bring
            # it back within the frame is nothing, and sized on that the select-low took the pedal's brake off its
            # partner too (split_mu_braking's dry rear wheel unbraked while ESC held the icy one, the stop 2.5 m
            # longer). Its share is the road's torque on it instead, what its brake takes holding a steady slip there.
            if e_rl > 0.0 and e_rr <= 0.0:
                low_of_rl = min(radius * abs(g.fx_rl), pedal_b_rl)
            if e_rr > 0.0 and e_rl <= 0.0:
                low_of_rr = min(radius * abs(g.fx_rr), pedal_b_rr)
            low = min(low_of_rl, low_of_rr)
            b_rl, b_rr = low + e_rl, low + e_rr  # the rear brakes from here on (no more than they were)
            low_w_rl, low_rl, low_w_rr, low_rr = pair_braked(free_rl, free_rr, b_rl, b_rr, j_rl, j_rr, b_share_r, dt,
                                                             bears_r)
            let_off_rl, let_off_rr = low_w_rl != w_rl, low_w_rr != w_rr  # the ABS let a rear brake off
            w_rl, w_rr = low_w_rl, low_w_rr
            held_rl = held_rl or low_rl or let_off_rl or kept_rl != w_rl
            held_rr = held_rr or low_rr or let_off_rr or kept_rr != w_rr
    spin_target = p.aids_tcs_brake_slip * (brakes.sign(ratio) if p.manual else 1.0) * (1.0 if p.aids_tcs > 0 else 0.0)
    spin_front = spin_target if front_share > 0.0 else 0.0
    spin_rear = spin_target if front_share < 1.0 else 0.0
    # Traction control brakes with what the wheel's brake has left beside the pedal's and the handbrake's.
    most_fl, most_fr = dt * max(top - b_fl, 0.0) / j_fl, dt * max(top - b_fr, 0.0) / j_fr
    most_rl, most_rr = dt * max(top - b_rl, 0.0) / j_rl, dt * max(top - b_rr, 0.0) / j_rr
    # On wheels a differential holds as one (bears_*), stability control's brake was shared with the pedal's
    # (locked_brakes) and acted on the pair as one (pair_braked): ABS then lets the brake off where the wheel stability
    # control brakes passes its larger target, and its partner where it passes its own. (Taken on top on the bare wheel,
    # its whole torque slowed the braked wheel alone within the update: a locked differential's split-mu launch,
    # stability control braking the dry rear wheel, took that tyre's force 500 N under its curve's at 1/120 s and
    # reached 64.1 km/h at 8 s against 69.0 at 1/2000 s.)
    a_fl, a_fr = (0.0, 0.0) if bears_f else (e_fl, e_fr)
    a_rl, a_rr = (0.0, 0.0) if bears_r else (e_rl, e_rr)
    u_fl = te_fl if bears_f and e_fl > 0.0 else t_fl
    u_fr = te_fr if bears_f and e_fr > 0.0 else t_fr
    u_rl = te_rl if bears_r and e_rl > 0.0 else t_rl
    u_rr = te_rr if bears_r and e_rr > 0.0 else t_rr
    h_fl = aided(p, k_fl, w_fl, free_fl, j_fl, held_fl, ahead * k_fl.c, abs_fl, u_fl, spin_front, most_fl, dt, b_fl,
                 a_fl, te_fl)
    h_fr = aided(p, k_fr, w_fr, free_fr, j_fr, held_fr, ahead * k_fr.c, abs_fr, u_fr, spin_front, most_fr, dt, b_fr,
                 a_fr, te_fr)
    h_rl = aided(p, k_rl, w_rl, free_rl, j_rl, held_rl, ahead, abs_rl, u_rl, spin_rear, most_rl, dt, b_rl, a_rl, te_rl)
    h_rr = aided(p, k_rr, w_rr, free_rr, j_rr, held_rr, ahead, abs_rr, u_rr, spin_rear, most_rr, dt, b_rr, a_rr, te_rr)
    # Where the torques act, for the telemetry: traction control's brake too, on the wheel it brakes (a group the
    # differentials hold gives its torque back to the brakes that gave it, at_own_brakes; without it, traction
    # control's brake on the icy wheel of a locked centre's car showed on the wheel stability control braked, its own
    # flag on with no torque in 763 of 925 frames of a split-mu launch at 1/120 s).
    o_fl = o_fl + (j_fl * abs(w_fl - h_fl.omega) / dt if h_fl.tcs_on else 0.0)
    o_fr = o_fr + (j_fr * abs(w_fr - h_fr.omega) / dt if h_fr.tcs_on else 0.0)
    o_rl = o_rl + (j_rl * abs(w_rl - h_rl.omega) / dt if h_rl.tcs_on else 0.0)
    o_rr = o_rr + (j_rr * abs(w_rr - h_rr.omega) / dt if h_rr.tcs_on else 0.0)
    # (and the second update's at the tyre's grip, below: its brake is the wheel's whole)
    # Through an open differential on a driven axle (or one whose coupling slips this frame: its torque stands in the
    # wheels' drives, and the rest passes as through an open one; with all-wheel drive each axle with its share of the
    # engine), with the engine locked to it and no pedal or handbrake on the axle, a brake on one wheel turns its
    # partner up: the engine's inertia keeps the carrier, and the differential
    # passes the brake's torque across. Stability control's brake does so within the first update (open_axle_esc);
    # then traction control's on one wheel, its partner free or braked by stability control, turns both wheels as they
    # end (open_tcs), so that the body's step takes the partner's tyre force at the slip it ends with; the brake's
    # torque is what turns the pair so (open_pull times the bare wheel's), within what the brake has left. The engine's cut above counted
    # the partner's turning up (open_pair_over). With both wheels braked (the engine's cut spent), their brakes slow
    # the engine with them (both_tcs). Sized for the bare wheels, the brakes of light ones (0.05 kg m^2 an axle) gave
    # 170 N m of their 3,300 and the wheels, spun up as the launch clutch locked, stayed at 2 of slip for 1.5 s.
    pull_fl = pull_fr = pull_rl = pull_rr = 1.0
    esc_only_f, esc_only_r = b_fl == e_fl and b_fr == e_fr, b_rl == e_rl and b_rr == e_rr  # no pedal or handbrake
    if stuck and (p.diff_kind == 0 or not g.held_front) and front_share > 0.0 and esc_only_f and free_fl * free_fr > 0.0:
        h_fl, h_fr, w_fl, w_fr, free_fl, free_fr = open_axle_esc(
            h_fl, h_fr, w_fl, w_fr, free_fl, free_fr, j_fl, j_fr, held_fl, held_fr, e_fl, e_fr, i_f, c_f)
        if e_fl > 0.0:  # the partner, raised, as traction control finds it
            h_fr = aided(p, k_fr, w_fr, free_fr, j_fr, held_fr, ahead * k_fr.c, abs_fr, t_fr, spin_front, most_fr, dt,
                         b_fr, e_fr, te_fr)
        elif e_fr > 0.0:
            h_fl = aided(p, k_fl, w_fl, free_fl, j_fl, held_fl, ahead * k_fl.c, abs_fl, t_fl, spin_front, most_fl, dt,
                         b_fl, e_fl, te_fl)
        h_fl, h_fr, pull_fl, pull_fr = open_axle_tcs(p, k_fl, k_fr, h_fl, h_fr, w_fl, w_fr, free_fl, free_fr, j_fl, j_fr,
                                                     held_fl, held_fr, ahead * k_fl.c, ahead * k_fr.c, spin_front,
                                                     most_fl, most_fr, i_f, c_f, top, dt, b_fl, b_fr)
    if stuck and (p.diff_kind == 0 or not g.held_rear) and front_share < 1.0 and esc_only_r and free_rl * free_rr > 0.0:
        h_rl, h_rr, w_rl, w_rr, free_rl, free_rr = open_axle_esc(
            h_rl, h_rr, w_rl, w_rr, free_rl, free_rr, j_rl, j_rr, held_rl, held_rr, e_rl, e_rr, i_r, c_r)
        if e_rl > 0.0:
            h_rr = aided(p, k_rr, w_rr, free_rr, j_rr, held_rr, ahead, abs_rr, t_rr, spin_rear, most_rr, dt, b_rr, e_rr,
                         te_rr)
        elif e_rr > 0.0:
            h_rl = aided(p, k_rl, w_rl, free_rl, j_rl, held_rl, ahead, abs_rl, t_rl, spin_rear, most_rl, dt, b_rl, e_rl,
                         te_rl)
        h_rl, h_rr, pull_rl, pull_rr = open_axle_tcs(p, k_rl, k_rr, h_rl, h_rr, w_rl, w_rr, free_rl, free_rr, j_rl, j_rr,
                                                     held_rl, held_rr, ahead, ahead, spin_rear, most_rl, most_rr, i_r,
                                                     c_r, top, dt, b_rl, b_rr)
    # A rear wheel select-low let off counts as ABS's too (its flag, and not a wheel its brake holds in place).
    h_rl = Held(h_rl.omega, h_rl.held, h_rl.abs_on or let_off_rl, h_rl.tcs_on)
    h_rr = Held(h_rr.omega, h_rr.held, h_rr.abs_on or let_off_rr, h_rr.tcs_on)

    # The body: vx, vy and the yaw rate in one linearly implicit step with every tyre's slopes. A held wheel
    # adds its tyre's whole longitudinal slope, a free one its slope in series with its inertia (the engine's
    # share on a driven wheel it is locked to).
    coefficient = (c_fl * z_fl + c_fr * z_fr + c_rl * z_rl + c_rr * z_rr) / p.weight
    drag_x, drag_y, rolling = aero.resistances(s.vx, s.vy, p, mass, dt, coefficient)
    vx_turned, vy_turned = body.frame_turn(s.vx, s.vy, s.yaw_rate * dt)
    m = Planar(mass, 0.0, 0.0, mass, 0.0, inertia, dt * (drag_x + rolling) + mass * (vx_turned - s.vx),
               dt * drag_y + mass * (vy_turned - s.vy), 0.0)
    r_fl, r_fr, r_rl, r_rr = i_f + c_f, i_f + c_f, i_r + c_r, i_r + c_r
    s_fl = kx_fl * (1.0 if h_fl.held else r_fl / (j_fl + c_f))
    s_fr = kx_fr * (1.0 if h_fr.held else r_fr / (j_fr + c_f))
    s_rl = kx_rl * (1.0 if h_rl.held else r_rl / (j_rl + c_r))
    s_rr = kx_rr * (1.0 if h_rr.held else r_rr / (j_rr + c_r))
    f_fl = g.fx_fl + kx_fl * radius * (h_fl.omega - g.start_fl)  # the lines the wheels' own updates used
    f_fr = g.fx_fr + kx_fr * radius * (h_fr.omega - g.start_fr)
    f_rl = g.fx_rl + kx_rl * radius * (h_rl.omega - g.start_rl)
    f_rr = g.fx_rr + kx_rr * radius * (h_rr.omega - g.start_rr)
    # A driven pair the engine is locked to through a differential that lets its wheels apart: the engine answers
    # their mean (pair_slopes), where both tyres start within their grip, neither wheel's speed is set (a brake or an
    # aid holds it) and stability control brakes neither: the mean's answer takes both wheels following the road along
    # their slopes. With a tyre at its grip and stability control braking the other, light front-driven wheels (0.05
    # kg m^2 each) stalled in 1st gained 167 J in a frame (`carbench hunt --seed 15`; either condition holds that
    # case).
    co_f = (front_share == 1.0 and c_f > 0.0 and not one_front and not h_fl.held and not h_fr.held
            and not grip_fl and not grip_fr and e_fl + e_fr == 0.0)
    co_r = (front_share == 0.0 and c_r > 0.0 and not one_rear and not h_rl.held and not h_rr.held
            and not grip_rl and not grip_rr and e_rl + e_rr == 0.0)
    s_fl, s_fr, x_f = pair_slopes(kx_fl, kx_fr, j_fl, j_fr, i_f, c_f, radius, dt, co_f, s_fl, s_fr)
    s_rl, s_rr, x_r = pair_slopes(kx_rl, kx_rr, j_rl, j_rr, i_r, c_r, radius, dt, co_r, s_rl, s_rr)
    m = add_tyre(add_tyre(add_tyre(add_tyre(m, k_fl, f_fl, s_fl, dt), k_fr, f_fr, s_fr, dt), k_rl, f_rl, s_rl, dt),
                 k_rr, f_rr, s_rr, dt)
    m = add_cross(add_cross(m, k_fl, k_fr, x_f, dt), k_rl, k_rr, x_r, dt)
    dvx, dvy, dr = body.solve3(m.a11, m.a12, m.a13, m.a22, m.a23, m.a33, m.b1, m.b2, m.b3)

    # Each tyre within its grip; the wheels follow, or turn under the limit and may grip again.
    du_fl, du_fr = along(k_fl, dvx, dvy, dr), along(k_fr, dvx, dvy, dr)
    du_rl, du_rr = along(k_rl, dvx, dvy, dr), along(k_rr, dvx, dvy, dr)
    # A wheel whose tyre the step carries past its grip turns under the limit alone (finish, physics.wheel.at_limit,
    # with its own share of the engine): its partner then follows with its own share too, not the pair's mean, which
    # the limited wheel no longer answers.
    co_f = co_f and not (_step.excess(f_fl - x_f * du_fr - s_fl * du_fl, k_fl.limit) != 0.0
                         or _step.excess(f_fr - x_f * du_fl - s_fr * du_fr, k_fr.limit) != 0.0)
    co_r = co_r and not (_step.excess(f_rl - x_r * du_rr - s_rl * du_rl, k_rl.limit) != 0.0
                         or _step.excess(f_rr - x_r * du_rl - s_rr * du_rr, k_rr.limit) != 0.0)
    # The engine's share in what ABS's brake took (brake_torque): none where one driven axle's wheels turn opposite
    # ways, which the first update braked bare (braked).
    t_share_f = 0.0 if one_axle and free_fl * free_fr <= 0.0 else c_f
    t_share_r = 0.0 if one_axle and free_rl * free_rr <= 0.0 else c_r
    ch_fl, ch_fr = pair_follow(kx_fl, kx_fr, j_fl, j_fr, c_f, du_fl, du_fr, radius, dt, co_f)
    ch_rl, ch_rr = pair_follow(kx_rl, kx_rr, j_rl, j_rr, c_r, du_rl, du_rr, radius, dt, co_r)
    n_fl = finish(p, k_fl, g.start_fl, h_fl, f_fl - x_f * du_fr, s_fl, r_fl, du_fl,
                  g.own_fl, b_fl, mass, dt, ahead * k_fl.c, abs_fl, u_fl, spin_front, grip_fl, a_fl, te_fl,
                  brake_torque(h_fl, pull_fl * j_fl, t_share_f, free_fl, b_fl, dt), one_front, ch_fl)
    n_fr = finish(p, k_fr, g.start_fr, h_fr, f_fr - x_f * du_fl, s_fr, r_fr, du_fr,
                  g.own_fr, b_fr, mass, dt, ahead * k_fr.c, abs_fr, u_fr, spin_front, grip_fr, a_fr, te_fr,
                  brake_torque(h_fr, pull_fr * j_fr, t_share_f, free_fr, b_fr, dt), one_front, ch_fr)
    n_rl = finish(p, k_rl, g.start_rl, h_rl, f_rl - x_r * du_rr, s_rl, r_rl, du_rl,
                  g.own_rl, b_rl, mass, dt, ahead, abs_rl, u_rl, spin_rear, grip_rl, a_rl, te_rl,
                  brake_torque(h_rl, pull_rl * j_rl, t_share_r, free_rl, b_rl, dt), one_rear, ch_rl)
    n_rr = finish(p, k_rr, g.start_rr, h_rr, f_rr - x_r * du_rl, s_rr, r_rr, du_rr,
                  g.own_rr, b_rr, mass, dt, ahead, abs_rr, u_rr, spin_rear, grip_rr, a_rr, te_rr,
                  brake_torque(h_rr, pull_rr * j_rr, t_share_r, free_rr, b_rr, dt), one_rear, ch_rr)
    # The lateral forces the step applied (the telemetry's), each within what its tyre's ellipse leaves beside its
    # longitudinal force: the body gives back what the linearised step carried past it, along the tyre's sideways
    # direction, as it does along the wheel for a longitudinal force at its limit (physics.step.grip_finish).
    share = p.tyres_lateral_share
    fy_fl = applied_fy(k_fl, dvx, dvy, dr)
    fy_fr = applied_fy(k_fr, dvx, dvy, dr)
    fy_rl = applied_fy(k_rl, dvx, dvy, dr)
    fy_rr = applied_fy(k_rr, dvx, dvy, dr)
    ex_fl = _step.excess(fy_fl, tyre.lateral_limit(n_fl.fx, z_fl, mu_fl, share))
    ex_fr = _step.excess(fy_fr, tyre.lateral_limit(n_fr.fx, z_fr, mu_fr, share))
    ex_rl = _step.excess(fy_rl, tyre.lateral_limit(n_rl.fx, z_rl, mu_rl, share))
    ex_rr = _step.excess(fy_rr, tyre.lateral_limit(n_rr.fx, z_rr, mu_rr, share))
    fy_fl, fy_fr, fy_rl, fy_rr = fy_fl + ex_fl, fy_fr + ex_fr, fy_rl + ex_rl, fy_rr + ex_rr
    y_fl, y_fr, y_rl, y_rr = dt * ex_fl, dt * ex_fr, dt * ex_rl, dt * ex_rr
    x_fl, x_fr = dt * (n_fl.fx - n_fl.fx_lin), dt * (n_fr.fx - n_fr.fx_lin)
    x_rl, x_rr = dt * (n_rl.fx - n_rl.fx_lin), dt * (n_rr.fx - n_rr.fx_lin)
    vx = s.vx + dvx + (x_fl * k_fl.c + x_fr * k_fr.c + x_rl + x_rr - y_fl * k_fl.s - y_fr * k_fr.s) / mass
    vy = s.vy + dvy + (x_fl * k_fl.s + x_fr * k_fr.s + y_fl * k_fl.c + y_fr * k_fr.c + y_rl + y_rr) / mass
    yaw_rate = s.yaw_rate + dr + (x_fl * k_fl.lever_x + x_fr * k_fr.lever_x + x_rl * k_rl.lever_x
                                  + x_rr * k_rr.lever_x + y_fl * k_fl.lever_y + y_fr * k_fr.lever_y
                                  + y_rl * k_rl.lever_y + y_rr * k_rr.lever_y) / inertia
    accel = (vx - vx_turned) / dt
    # The roll and the lateral load transfer take the frame's lateral acceleration as it was first written:
    # dvy/dt + vx r with the new yaw rate, which runs ahead of the forces' own (below) where the yaw rate
    # changes fast. Kept, so that four-wheel runs move as they did; the channel is the forces' own.
    accel_y = (vy - s.vy) / dt + vx * yaw_rate
    w_fl, w_fr, w_rl, w_rr = n_fl.omega, n_fr.omega, n_rl.omega, n_rr.omega
    # A differential that held this frame turns its wheels (or, the centre one, its axles) as one; so does one whose
    # coupling carried the wheels (axles) through one speed within the frame: its clutch pack's or gears' friction
    # opposes their relative slip and sticks where the slip ends, it never turns it round. Sized for tyres that grip,
    # the torque it passes a light wheel whose tyre let go spun that wheel past its partner (a torque-sensing rear
    # axle rolling back, one wheel from -8 to +215 rad/s in a frame, the other at -7).
    if p.diff_kind != 0 and (g.held_front or crossed(g.start_fl - g.start_fr, w_fl - w_fr)):
        w_fl = w_fr = ((j_fl + c_f) * w_fl + (j_fr + c_f) * w_fr) / (j_fl + j_fr + 2.0 * c_f)
    if p.diff_kind != 0 and (g.held_rear or crossed(g.start_rl - g.start_rr, w_rl - w_rr)):
        w_rl = w_rr = ((j_rl + c_r) * w_rl + (j_rr + c_r) * w_rr) / (j_rl + j_rr + 2.0 * c_r)
    if p.centre_kind != 0 and 0.0 < front_share < 1.0 and (
            g.held_centre or crossed(g.start_fl + g.start_fr - g.start_rl - g.start_rr, w_fl + w_fr - w_rl - w_rr)):
        weight_f, weight_r = j_fl + j_fr + 2.0 * c_f, j_rl + j_rr + 2.0 * c_r
        mean_f, mean_r = 0.5 * (w_fl + w_fr), 0.5 * (w_rl + w_rr)
        one = (weight_f * mean_f + weight_r * mean_r) / (weight_f + weight_r)
        w_fl, w_fr, w_rl, w_rr = w_fl + (one - mean_f), w_fr + (one - mean_f), w_rl + (one - mean_r), w_rr + (
            one - mean_r)

    # ABS too: it only lets a brake off, and a driven wheel it lets spin up takes the engine's inertia with it.
    if stuck:
        w_fl, w_fr, w_rl, w_rr = locked_momentum(p, g, n_fl, n_fr, n_rl, n_rr, grip_fl, grip_fr, grip_rl, grip_rr,
                                                 axle_fixed(p, fixed(h_fl), fixed(h_fr), g.held_front),
                                                 axle_fixed(p, fixed(h_rl), fixed(h_rr), g.held_rear),
                                                 w_fl, w_fr, w_rl, w_rr, i_f, i_r, dt)

    # The engine: one with the wheels through a stuck clutch, else its own torque less the clutch's.
    rpm, stalled = s.rpm, s.stalled
    through = g.t0  # [N m] the drivetrain's torque into the driven wheels this frame (telemetry)
    if p.manual:
        if stuck:
            moved = carrier(front_share, w_fl, w_fr, w_rl, w_rr)
            omega_e = ratio * moved
            # Less what turned the engine's inertia with the wheels, from where the frame started them (the lock-up's
            # shared speed) to where it left them.
            turned = moved - carrier(front_share, g.start_fl, g.start_fr, g.start_rl, g.start_rr)
            through = g.t0 - 2.0 * (g.c_front + g.c_rear) * turned / dt
        else:
            omega_e = engine.turned_speed(s.rpm / engine.RPM_PER_RAD_S, engine_torque, g.clutch_t, p, dt)
            # A slipping clutch turns the carrier towards the engine's speed, never past it (physics.step.grip_finish),
            # if it can hold the driven wheels against their brakes (the pedal's, the handbrake, traction or stability
            # control; a wheel held at rest by its brake, by all the brake can give): a wheel braked harder than its
            # share of what the clutch passes is left to its brake.
            passed = abs(ratio * g.clutch_t)
            hold_front = max(b_fl, b_fr, abs(n_fl.brake), abs(n_fr.brake)) <= 0.5 * front_share * passed
            hold_rear = max(b_rl, b_rr, abs(n_rl.brake), abs(n_rr.brake)) <= 0.5 * (1.0 - front_share) * passed
            can_hold = (front_share == 0.0 or hold_front) and (front_share == 1.0 or hold_rear)
            if g.clutch_t * (omega_e - ratio * carrier(front_share, w_fl, w_fr, w_rl, w_rr)) < 0.0 and can_hold:
                omega_e, w_fl, w_fr, w_rl, w_rr = caught(p, g, omega_e, ratio, w_fl, w_fr, w_rl, w_rr, i_f, i_r)
        rpm = max(omega_e, 0.0) * engine.RPM_PER_RAD_S
        stalled = engine.next_stalled(rpm, s.rpm, stalled, u.start, p)

    drive_force = (g.drive_fl + g.drive_fr + g.drive_rl + g.drive_rr) / radius
    speed = approx.hypot(vx, vy)
    lateral = (vy - vy_turned) / dt  # as accel, before the stop rule: the change the forces made (accel_lat)
    if ((_step.standstill.stop_mask(speed, accel, drive_force, p.model_stop_speed, p.weight)
         and speed <= 0.25 * p.tyres_mu * p.model_gravity * dt)
            or _step.standstill.braked_to_rest(s.vx, vx, speed, (b_fl + b_fr + b_rl + b_rr) / radius, drive_force,
                                               mass, dt, mu_fl * z_fl + mu_fr * z_fr + mu_rl * z_rl + mu_rr * z_rr)):
        vx, vy, yaw_rate = vx * 0.0, vy * 0.0, yaw_rate * 0.0
        # The wheels stop with the car; those a stuck clutch holds to the engine keep its speed.
        if not (stuck and front_share > 0.0):
            w_fl, w_fr = 0.0, 0.0
        if not (stuck and front_share < 1.0):
            w_rl, w_rr = 0.0, 0.0
    heading = s.heading + dt * s.yaw_rate
    sin_h, cos_h = approx.sincos(heading)
    roll, roll_rate = suspension.roll_step(s.roll, s.roll_rate, suspension.roll_moment(p, accel_y),
                                           suspension.roll_stiffness(p), p.suspension_roll_damping,
                                           p.suspension_roll_inertia, dt)

    # Telemetry: the channels every model shares, the axles' sums, and each corner's own. The torque into the driven
    # wheels is what the clutch passed (``through``): through a stuck one the engine's torque less what turned its
    # inertia as the wheels went. The differentials' solve's sum had the engine's inertia answering the wheels' motion
    # without their brakes: in a straight stop in 2nd (a third of the pedal, 2 s after 5 s of full throttle) it read
    # -575, -715 and -742 N m at 1/120, 1/1000 and 1e-4 s; this reads -131 at each (the engine's -280 through the gears,
    # its inertia slowing with the wheels giving back 149).
    d = _step.Drivetrain(through / radius, d.brake_share, d.gear, d.ratio, d.engagement, d.throttle, engine_torque,
                         through, 0.0, d.auto_clutch)
    _step.frame_telemetry(p, s, c, d, out, t, tan_d / p.body_wheelbase)
    o_fl = max(o_fl, abs(n_fl.brake)) if n_fl.tcs_on else o_fl
    o_fr = max(o_fr, abs(n_fr.brake)) if n_fr.tcs_on else o_fr
    o_rl = max(o_rl, abs(n_rl.brake)) if n_rl.tcs_on else o_rl
    o_rr = max(o_rr, abs(n_rr.brake)) if n_rr.tcs_on else o_rr
    used_fl, used_fr, used_rl, used_rr = at_own_brakes(one_front, one_rear, one_centre, abs(n_fl.brake),
                                                       abs(n_fr.brake), abs(n_rl.brake), abs(n_rr.brake), o_fl, o_fr,
                                                       o_rl, o_rr, top)
    out.wheel_left = d_fl
    out.wheel_right = d_fr
    out.drive_force = d.demand
    out.drag_force = drag_x
    out.rolling_force = rolling
    out.brake_force = -brakes.sign(s.vx) * (used_fl + used_fr + used_rl + used_rr) / radius
    out.accel_long = accel
    out.accel_lat = lateral
    spinning = max(k_rl.kappa, k_rr.kappa) > p.peak_long and n_rl.fx + n_rr.fx > 0.0
    if front_share == 1.0:
        spinning = max(k_fl.kappa, k_fr.kappa) > p.peak_long and n_fl.fx + n_fr.fx > 0.0
    elif front_share > 0.0:
        spinning = spinning or (max(k_fl.kappa, k_fr.kappa) > p.peak_long and n_fl.fx + n_fr.fx > 0.0)
    out.wheelspin = 1.0 if spinning else 0.0
    out.slip_front = 0.5 * (k_fl.alpha + k_fr.alpha)
    out.slip_rear = 0.5 * (k_rl.alpha + k_rr.alpha)
    out.fy_front = fy_fl + fy_fr
    out.fy_rear = fy_rl + fy_rr
    out.load_front = z_fl + z_fr
    out.load_rear = z_rl + z_rr
    out.kinematic_weight = max(1.0 - abs(s.vx) / p.model_slip_speed, 0.0)
    out.wheel_front = 0.5 * (s.wheel_fl + s.wheel_fr)
    out.wheel_rear = 0.5 * (s.wheel_rl + s.wheel_rr)
    out.slip_ratio_front = 0.5 * (k_fl.kappa + k_fr.kappa)
    out.slip_ratio_rear = 0.5 * (k_rl.kappa + k_rr.kappa)
    out.fx_front = n_fl.fx + n_fr.fx
    out.fx_rear = n_rl.fx + n_rr.fx
    out.grip_front = max(k_fl.grip, k_fr.grip)
    out.grip_rear = max(k_rl.grip, k_rr.grip)
    out.brake_front = (used_fl + used_fr) / radius
    out.brake_rear = (used_rl + used_rr) / radius
    out.stalled = 1.0 if s.stalled else 0.0
    # An aid's flag where it acted in either update: at the tyre's grip the second (finish) brakes the wheel too,
    # and its torque showed with no flag (65 N m on a front wheel of a split-mu launch, traction control's).
    shown_abs_fl, shown_tcs_fl = h_fl.abs_on or n_fl.abs_on, h_fl.tcs_on or n_fl.tcs_on
    shown_abs_fr, shown_tcs_fr = h_fr.abs_on or n_fr.abs_on, h_fr.tcs_on or n_fr.tcs_on
    shown_abs_rl, shown_tcs_rl = h_rl.abs_on or n_rl.abs_on, h_rl.tcs_on or n_rl.tcs_on
    shown_abs_rr, shown_tcs_rr = h_rr.abs_on or n_rr.abs_on, h_rr.tcs_on or n_rr.tcs_on
    out.tcs_active = 1.0 if (tcs > 0.0 or tcs_took or launch_on or shown_tcs_fl or shown_tcs_fr or shown_tcs_rl
                             or shown_tcs_rr) else 0.0
    out.roll = s.roll
    out.mu_front = 0.5 * (mu_fl + mu_fr)
    out.mu_rear = 0.5 * (mu_rl + mu_rr)
    out.esc_active = 1.0 if e_fl + e_fr + e_rl + e_rr > 0.0 else 0.0
    corners.write_fl(out, Wheel(z_fl, mu_fl, k_fl.alpha, k_fl.kappa, n_fl.fx, fy_fl, s.wheel_fl, used_fl,
                                1.0 if shown_abs_fl else 0.0, 1.0 if shown_tcs_fl else 0.0, 1.0 if e_fl > 0.0 else 0.0))
    corners.write_fr(out, Wheel(z_fr, mu_fr, k_fr.alpha, k_fr.kappa, n_fr.fx, fy_fr, s.wheel_fr, used_fr,
                                1.0 if shown_abs_fr else 0.0, 1.0 if shown_tcs_fr else 0.0, 1.0 if e_fr > 0.0 else 0.0))
    corners.write_rl(out, Wheel(z_rl, mu_rl, k_rl.alpha, k_rl.kappa, n_rl.fx, fy_rl, s.wheel_rl, used_rl,
                                1.0 if shown_abs_rl else 0.0, 1.0 if shown_tcs_rl else 0.0, 1.0 if e_rl > 0.0 else 0.0))
    corners.write_rr(out, Wheel(z_rr, mu_rr, k_rr.alpha, k_rr.kappa, n_rr.fx, fy_rr, s.wheel_rr, used_rr,
                                1.0 if shown_abs_rr else 0.0, 1.0 if shown_tcs_rr else 0.0, 1.0 if e_rr > 0.0 else 0.0))

    new.x = s.x + dt * (vx * cos_h - vy * sin_h)
    new.y = s.y + dt * (vx * sin_h + vy * cos_h)
    new.heading = heading
    new.vx = vx
    new.vy = vy
    new.yaw_rate = yaw_rate
    new.rpm = rpm
    new.accel = accel
    new.accel_y = accel_y
    new.roll = roll
    new.roll_rate = roll_rate
    new.yaw_target = yaw_target
    new.spinning = spinning
    new.wheel_front = 0.5 * (w_fl + w_fr)
    new.wheel_rear = 0.5 * (w_rl + w_rr)
    new.wheel_fl = w_fl
    new.wheel_fr = w_fr
    new.wheel_rl = w_rl
    new.wheel_rr = w_rr
    new.stalled = stalled
    new.tcs = tcs
    _step.carry_controls(s, u, c, d, new)


@scalar
def locked_brakes(one_front, one_rear, one_centre, b_fl, b_fr, b_rl, b_rr, j_fl, j_fr, j_rl, j_rr):
    """The brake torques [N m] the wheels' first updates take where differentials hold wheels at one speed: the torque
    of a group (an axle whose differential holds, or all four where both axles' and the centre's hold) shared among
    its wheels in proportion to their inertias ``j_*`` (the tyre's slope taken implicitly), so that the brakes slow
    them alike and stop them together, as they do the one body the wheels are; where the centre holds and an axle's
    differential does not, shared between the axles so that their mean speeds slow alike. Each wheel took its own brake: a
    locked four-wheel drive rolling back on its handbrake had its rear wheels braked and its front ones not, every
    frame, and the differentials' turning them as one after the body's update gained energy (65 J in a frame)."""
    if one_centre and one_front and one_rear:
        total, weight = b_fl + b_fr + b_rl + b_rr, j_fl + j_fr + j_rl + j_rr
        return total * j_fl / weight, total * j_fr / weight, total * j_rl / weight, total * j_rr / weight
    if one_centre:
        # The centre holds the axles' mean speeds together: the brakes' torque is shared between the axles so that
        # their means slow alike, each axle's part split between its wheels as its own brakes split theirs (by the
        # wheels' inertias where its differential holds them too, or where it has no brake of its own).
        p_fl, p_fr = _split(one_front, b_fl, b_fr, j_fl, j_fr)
        p_rl, p_rr = _split(one_rear, b_rl, b_rr, j_rl, j_rr)
        a_f, a_r = p_fl / j_fl + p_fr / j_fr, p_rl / j_rl + p_rr / j_rr  # each axle's mean's slowing per N m (x2)
        total = b_fl + b_fr + b_rl + b_rr
        front, rear = total * a_r / (a_f + a_r), total * a_f / (a_f + a_r)
        return front * p_fl, front * p_fr, rear * p_rl, rear * p_rr
    if one_front:
        total, weight = b_fl + b_fr, j_fl + j_fr
        b_fl, b_fr = total * j_fl / weight, total * j_fr / weight
    if one_rear:
        total, weight = b_rl + b_rr, j_rl + j_rr
        b_rl, b_rr = total * j_rl / weight, total * j_rr / weight
    return b_fl, b_fr, b_rl, b_rr


@scalar
def _split(held, b_l, b_r, j_l, j_r):
    """How an axle's brake torque is split between its wheels (shares that sum to 1): by their inertias where its
    differential holds them at one speed or it has no brake of its own, else as its brakes split it."""
    if held or b_l + b_r <= 0.0:
        return j_l / (j_l + j_r), j_r / (j_l + j_r)
    return b_l / (b_l + b_r), b_r / (b_l + b_r)


@scalar
def _within(a, b, c, d, top, n):
    """Brake torques [N m] of a group's ``n`` wheels (2: ``a`` and ``b``, 4: all) with what any has past ``top`` (a
    brake's whole torque) moved to the others, in proportion to what their brakes have left; what none has room for
    (a stalled engine's drag, which the brakes' torques carry) shared alike among them, so that the sum stays."""
    over = max(a - top, 0.0) + max(b - top, 0.0)
    if n == 4:
        over = over + max(c - top, 0.0) + max(d - top, 0.0)
    if over <= 0.0:
        return a, b, c, d
    a, b = min(a, top), min(b, top)
    room = 2.0 * top - a - b
    if n == 4:
        c, d = min(c, top), min(d, top)
        room = room + 2.0 * top - c - d
    share = min(over / room, 1.0) if room > 0.0 else 1.0
    rest = (over - share * room) / n
    a, b = a + share * (top - a) + rest, b + share * (top - b) + rest
    if n == 4:
        c, d = c + share * (top - c) + rest, d + share * (top - d) + rest
    return a, b, c, d


@scalar
def at_own_brakes(one_front, one_rear, one_centre, u_fl, u_fr, u_rl, u_rr, o_fl, o_fr, o_rl, o_rr, top):
    """The brake torques the wheels took (``u_*``, of torques :func:`locked_brakes` shared among wheels held as one)
    given back to the brakes that gave them (``o_*``, each wheel's own): a group's total in proportion to its brakes'
    own torques, so that a locked four-wheel drive's handbrake shows on the rear wheels, no brake more than ``top``,
    its whole torque, where the group's others have room (:func:`_within`). Past it, the rest is what an aid's brake
    put on another wheel of the group (traction control's beside stability control's): given in proportion, a locked
    axle's wheel that stability control braked read 4,814 N m of its 3,300."""
    if one_centre:
        total, used = o_fl + o_fr + o_rl + o_rr, u_fl + u_fr + u_rl + u_rr
        if total > 0.0:
            return _within(used * o_fl / total, used * o_fr / total, used * o_rl / total, used * o_rr / total, top, 4)
        return u_fl, u_fr, u_rl, u_rr
    if one_front and o_fl + o_fr > 0.0:
        total, used = o_fl + o_fr, u_fl + u_fr
        u_fl, u_fr, _, _ = _within(used * o_fl / total, used * o_fr / total, 0.0, 0.0, top, 2)
    if one_rear and o_rl + o_rr > 0.0:
        total, used = o_rl + o_rr, u_rl + u_rr
        u_rl, u_rr, _, _ = _within(used * o_rl / total, used * o_rr / total, 0.0, 0.0, top, 2)
    return u_fl, u_fr, u_rl, u_rr


@scalar(inline=True)
def locked_momentum(p, g, n_fl, n_fr, n_rl, n_rr, grip_fl, grip_fr, grip_rl, grip_rr, fixed_front, fixed_rear, w_fl,
                    w_fr, w_rl, w_rr, i_f, i_r, dt):
    """The driven wheels' speeds with the engine locked to them, their carrier where the frame's torques put it.

    The differentials' solve takes each driven tyre's force as linear in its wheel's speed and no brake; a wheel
    that ended the frame at its tyre's grip, or that a brake (stability control) slowed, turned otherwise, and the
    engine, which turns with the carrier, would follow without any torque paying for it (the front-driven car
    gained 336 J in a frame as stability control let go of a braked front wheel). Where that happened the
    carrier's momentum, wheels and engine together, is taken from the torques that acted on them: the drivetrain's,
    the tyres' forces the body got and the brakes' (each :class:`Finished`'s ``brake``, what acted on its wheel in
    the update that set it, ABS and traction control included: ABS only lets a brake off, so a wheel it let spin
    up towards its slip target turns the engine with it at the tyre's expense, not for nothing); the driven
    wheels move by that impulse's share of each axle, their differences as they were, and a braked wheel is not
    carried through zero (the brake holds it there).
    """
    a_f = p.front_drive
    a_r = 1.0 - a_f
    engine_on = 2.0 * (g.c_front + g.c_rear)
    acted = (((n_fl.fx != n_fl.fx_lin or grip_fl or n_fl.brake != 0.0 or n_fr.fx != n_fr.fx_lin or grip_fr
               or n_fr.brake != 0.0) and a_f > 0.0)
             or ((n_rl.fx != n_rl.fx_lin or grip_rl or n_rl.brake != 0.0 or n_rr.fx != n_rr.fx_lin or grip_rr
                  or n_rr.brake != 0.0) and a_r > 0.0))
    # With all-wheel drive the centre's solve lumps each axle into one body (:func:`axle_body`), which a clutch
    # pack that holds makes approximate: the carrier's momentum is taken from the torques every frame.
    acted = acted or 0.0 < a_f < 1.0
    if not acted or engine_on <= 0.0:
        return w_fl, w_fr, w_rl, w_rr
    # An axle whose brakes hold a wheel (the handbrake, a stopped wheel) stays where they put it (below): brakes only
    # take speed away, so an axle that ended the frame further from rest than it started, or past it, was not held there
    # (the held differential turned the braked wheel with one that ABS let spin up): the carrier moves it with the
    # others. Taken as held, it carried the engine up with it for nothing (7 kJ in a frame, a limited-slip centre
    # as the handbrake let go of the rear wheels and stability control braked one).
    fixed_front = fixed_front and not _left_rest(g.start_fl + g.start_fr, w_fl + w_fr)
    fixed_rear = fixed_rear and not _left_rest(g.start_rl + g.start_rr, w_rl + w_rr)
    radius = p.body_wheel_radius
    j_front, j_rear = 2.0 * i_f, 2.0 * i_r
    # How an impulse P on the carrier moves each axle's mean (k_f P, k_r P): by its share of the split through an
    # open centre, both alike through one that held this frame.
    k_f, k_r = a_f / j_front, a_r / j_rear
    if g.held_centre and p.centre_kind != 0:
        if fixed_front or fixed_rear:  # both axles as one, and the brakes hold one of them
            return w_fl, w_fr, w_rl, w_rr
        k_f = k_r = 1.0 / (j_front + j_rear)
    if fixed_front:
        k_f = 0.0
    if fixed_rear:
        k_r = 0.0
    if a_f * k_f + a_r * k_r <= 0.0:
        return w_fl, w_fr, w_rl, w_rr
    mode = 1.0 / (a_f * k_f + a_r * k_r)  # the wheels' inertia on the carrier
    torque_front = -radius * (n_fl.fx + n_fr.fx) + n_fl.brake + n_fr.brake
    torque_rear = -radius * (n_rl.fx + n_rr.fx) + n_rl.brake + n_rr.brake
    on_carrier = g.t0 + mode * (k_f * torque_front + k_r * torque_rear)
    # A fixed axle enters at where its brakes left it, the others at their start.
    start = carrier(a_f, w_fl if fixed_front else g.start_fl, w_fr if fixed_front else g.start_fr,
                    w_rl if fixed_rear else g.start_rl, w_rr if fixed_rear else g.start_rr)
    due = start + dt * on_carrier / (mode + engine_on)
    impulse = mode * (due - carrier(a_f, w_fl, w_fr, w_rl, w_rr))
    move_f, move_r = k_f * impulse, k_r * impulse
    return (wheel.follow(w_fl, move_f, n_fl.brake != 0.0), wheel.follow(w_fr, move_f, n_fr.brake != 0.0),
            wheel.follow(w_rl, move_r, n_rl.brake != 0.0), wheel.follow(w_rr, move_r, n_rr.brake != 0.0))


@scalar
def crossed(start, end):
    """Whether a relative speed (of two wheels, or two axles' means) went through zero within the frame."""
    return start * end < 0.0


@scalar
def _left_rest(start, end):
    """Whether an axle's speed (``start`` to ``end``, the sums of its wheels') moved away from rest or through it,
    which no brake does."""
    return crossed(start, end) or abs(end) > abs(start)


@scalar
def axle_fixed(p, left, right, held):
    """Whether the brakes hold a driven axle where they put it (:func:`locked_momentum`): both its wheels held,
    or one through a differential that held the two as one this frame. Through an open differential (or one that
    slipped) the carrier turns on through the other wheel, the engine's momentum with it: an axle taken as held
    there stopped the engine's flywheel with nothing paying for it (abs_spin_up_in_gear: 4,540 to 3,030 rpm in
    a frame, 12 kJ, as the handbrake stopped the inside rear wheel)."""
    return (left and right) or ((left or right) and held and p.diff_kind != 0)


@scalar
def fixed(h):
    """Whether a brake holds the wheel where it put it (the handbrake, a wheel braked to a stop): not where an aid
    set its speed (ABS, the rear's select-low among it, or traction control), which only chose how much brake
    torque acted."""
    return h.held and not (h.tcs_on or h.abs_on)


@scalar
def brake_torque(h, inertia, share, free, brake, dt):
    """The torque [N m] the brakes put on a wheel in its first update, signed as its speed changed: what stopped,
    held or (with the aids) slowed it, else all of ``brake`` against its turning.

    ABS chose the wheel's speed for the wheel alone (``inertia``); on a driven wheel the engine is locked to
    (``share``, its part of the engine's inertia) the same change of speed takes more torque, which the brake
    gives up to its whole ``brake``: :func:`locked_momentum` then turns wheels and engine together to ABS's speed,
    or as near as the brake takes them. Where one driven axle's wheels turn opposite ways the first update braked
    each bare (:func:`braked`), the engine's inertia answering their mean, not either wheel: ``share`` is 0 there,
    and the torque is the one that turned the bare wheel. (Sized with the engine's share, the brake of a light front
    wheel that stability control braked, the engine stalled in 1st and the carrier near rest, read its whole 3,688
    N m for the 283 that turned it, :func:`locked_momentum` took the carrier's momentum from that, and the wheels
    chattered by up to 14 rad/s a frame: 170 and 224 J gained in a frame, `carbench hunt --seed 30` and `--seed 22` on
    the sedan with front drive and 0.1 kg m^2 an axle.)
    """
    if not h.held:
        return -brakes.sign(free) * brake
    if h.abs_on and not h.tcs_on and share > 0.0:
        return min(max((inertia + share) * (h.omega - free) / dt, -brake), brake)
    return inertia * (h.omega - free) / dt
