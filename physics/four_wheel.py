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

from . import aero, aids, body, brakes, corners, differential, engine, steering, surface, suspension, tyre, wheel
from . import step as _step
from .corners import Wheel
from .jit import scalar

Contact = namedtuple("Contact", "u w d alpha kappa fx fy sx sec ky limit grip c s lever_x lever_y")
"""One tyre at the frame's start: contact-patch speeds along (u) and across (w) its wheel, the speed slips are
taken against (d), the slips, its forces and slopes, its grip along the road beside its lateral force
(limit), and its two force directions in (vx, vy, r): along h = (c, s, lever_x), across g = (-s, c, lever_y)."""

Planar = namedtuple("Planar", "a11 a12 a13 a22 a23 a33 b1 b2 b3")
"""The body's linearly implicit step (M + dt K) dv = dt F, summed tyre by tyre (symmetric: six entries)."""

Held = namedtuple("Held", "omega held abs_on tcs_on")
"""A wheel after the aids: its speed, whether the brakes set it, and which aid acted."""

Finished = namedtuple("Finished", "omega fx fx_lin")
"""A wheel after the body's update, its tyre's force along the wheel, and that force as the body's step took it."""


@scalar
def friction(p, load, static, road):
    """The tyre's friction coefficient under ``load`` on a road of friction ``road``: less ``load_sensitivity``
    per static load of extra load."""
    share = load / static - 1.0 if static > 0.0 else 0.0
    return road * max(1.0 - p.tyres_load_sensitivity * share, 0.1)


@scalar
def ground(p, road, s, x, y):
    """The road's friction and rolling coefficients under the corner at (x, y) in the car's frame."""
    c, sn = math.cos(s.heading), math.sin(s.heading)
    return surface.under(road, s.x + c * x - sn * y, s.y + sn * x + c * y, p.tyres_mu, p.aero_rolling_coefficient)


@scalar
def cornering_scale(p, load, static, mu, road):
    """The factor on the lateral curve's B that makes the cornering stiffness B C D follow Pacejka's
    saturating K = K_static sin(2 atan(Fz / (p_Ky2 Fz_static))) / sin(2 atan(1 / p_Ky2)) (Pacejka, Tyre and
    Vehicle Dynamics, 2012, the MF-Tyre cornering stiffness), D being mu Fz (``road`` the friction at no load
    sensitivity): 1 at the static load."""
    q = p.tyres_cornering_load
    if q <= 0.0 or static <= 0.0:
        return 1.0
    x = max(load / static, 1e-6)
    return math.sin(2.0 * math.atan(x / q)) / math.sin(2.0 * math.atan(1.0 / q)) / (x * mu / road)


@scalar
def contact(p, vx, vy, r, x, y, delta, omega, load, mu, road, front):
    """One corner's tyre at the frame's start (a :class:`Contact`)."""
    c, s = math.cos(delta), math.sin(delta)
    vcx, vcy = vx - r * y, vy + r * x
    u = vcx * c + vcy * s
    w = vcy * c - vcx * s
    floor = p.model_slip_speed
    d = wheel.slip_speed(u, floor)
    alpha = wheel.slip_angle(u, w, floor)
    kappa = wheel.slip_ratio(omega, p.body_wheel_radius, u, floor)
    scale = cornering_scale(p, load, p.static_front if front else p.static_rear, mu, road)
    b_y = (p.tyres_b_front if front else p.tyres_b_rear) * scale
    peak_y = (p.peak_front if front else p.peak_rear) / scale  # the peak sits at one B alpha
    fx, fy, sx, sy, sec, grip = tyre.combined(kappa, alpha, load, mu, p.tyres_lateral_share, p.tyres_b_long,
                                              p.tyres_c_long, p.tyres_e_long, p.peak_long, b_y, p.tyres_c, p.tyres_e,
                                              peak_y)
    ky = sy * d / (d * d + w * w)
    limit = tyre.longitudinal_limit(fy, load, mu, p.tyres_lateral_share)
    return Contact(u, w, d, alpha, kappa, fx, fy, sx, sec, ky, limit, grip, c, s, x * s - y * c, x * c + y * s)


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
def along(k, dvx, dvy, dr):
    """The change of the road's speed under a wheel, along it, for the body's change (dvx, dvy, dr)."""
    return k.c * dvx + k.s * dvy + k.lever_x * dr


@scalar
def abs_room(p, k, front):
    """The share of the straight-line ABS slip a wheel's own tyre leaves beside its lateral demand; a rear
    wheel's slip angle counts ``abs_rear_margin`` times (physics.aids)."""
    peak = p.peak_front if front else p.peak_rear
    margin = 1.0 if front else p.brakes_abs_rear_margin
    return aids.ellipse(margin * aids.cornering_share(k.alpha, peak))


@scalar
def aided(p, k, omega, free, inertia, held, ahead, braking, target, spin_target, most, dt):
    """A wheel's speed after ABS (when ``braking``) and traction control's brake (``spin_target`` nonzero)."""
    radius, floor = p.body_wheel_radius, p.model_slip_speed
    abs_on = False
    if braking:
        kept = wheel.anti_lock(omega, free, k.u, ahead, radius, floor, target)
        abs_on = kept != omega
        omega = kept
    tcs = wheel.anti_spin(omega, k.u, ahead, radius, floor, spin_target, most)
    tcs_on = tcs != omega
    return Held(tcs, held or abs_on or tcs_on, abs_on, tcs_on)


@scalar
def finish(p, k, start, h, fx0, kx, kx_s, inertia, eff, du, drive, brake, mass, dt, ahead, braking, target,
           spin_target, most):
    """A wheel after the body's update (``h`` its :class:`Held` state): at the tyre's grip
    (physics.wheel.at_limit, then the aids again), or following the road the body moved under it."""
    radius = p.body_wheel_radius
    fx_lin = fx0 - kx_s * du
    fx = min(max(fx_lin, -k.limit), k.limit)
    if fx != fx_lin:
        mobility = 1.0 / mass + k.lever_x * k.lever_x / p.body_yaw_inertia
        u_end = k.u + du + dt * (fx - fx_lin) * mobility
        omega, free, held, fx = wheel.at_limit(start, drive, fx, brake, radius, inertia, k.u,
                                               u_end - dt * fx * mobility, 1.0 / mobility, dt)
        omega = aided(p, k, omega, free, inertia, held, ahead, braking, target, spin_target, most, dt).omega
        return Finished(omega, fx, fx_lin)
    if h.held:
        return Finished(h.omega, fx, fx_lin)
    return Finished(wheel.follow(h.omega, dt * radius * kx * du / eff, brake > 0.0), fx, fx_lin)


@scalar
def four_wheel_frame(p, s, u, c, new, out, dt, t, road):
    """Advance the four-wheel car by dt on ``road`` (its surfaces' rows, physics.surface): the next state into
    ``new``, this frame's telemetry into ``out``."""
    lf, lr, mass, inertia = p.lf, p.body_lr, p.body_mass, p.body_yaw_inertia
    radius, half = p.body_wheel_radius, 0.5 * p.body_track
    tan_d = math.tan(c.steer)
    left, right = steering.ackermann(tan_d, p.body_wheelbase, p.body_track)
    d_fl = c.steer + p.steering_ackermann * (left - c.steer)
    d_fr = c.steer + p.steering_ackermann * (right - c.steer)

    # Loads from the last frame's accelerations and the roll, and each corner's tyre.
    shift_f, shift_r = suspension.lateral_transfer(p, s.accel_y, s.roll, s.roll_rate)
    z_fl, z_fr, z_rl, z_rr = suspension.wheel_loads(p, s.accel, shift_f, shift_r)
    g_fl, c_fl = ground(p, road, s, lf, half)
    g_fr, c_fr = ground(p, road, s, lf, -half)
    g_rl, c_rl = ground(p, road, s, -lr, half)
    g_rr, c_rr = ground(p, road, s, -lr, -half)
    mu_fl, mu_fr = friction(p, z_fl, p.static_front, g_fl), friction(p, z_fr, p.static_front, g_fr)
    mu_rl, mu_rr = friction(p, z_rl, p.static_rear, g_rl), friction(p, z_rr, p.static_rear, g_rr)
    k_fl = contact(p, s.vx, s.vy, s.yaw_rate, lf, half, d_fl, s.wheel_fl, z_fl, mu_fl, g_fl, True)
    k_fr = contact(p, s.vx, s.vy, s.yaw_rate, lf, -half, d_fr, s.wheel_fr, z_fr, mu_fr, g_fr, True)
    k_rl = contact(p, s.vx, s.vy, s.yaw_rate, -lr, half, 0.0, s.wheel_rl, z_rl, mu_rl, g_rl, False)
    k_rr = contact(p, s.vx, s.vy, s.yaw_rate, -lr, -half, 0.0, s.wheel_rr, z_rr, mu_rr, g_rr, False)

    # The drivetrain (traction control's cut follows the less spinning driven wheel: the brake takes the other).
    d, engine_torque, capacity, direct_torque, tcs = _step.grip_drive(p, s, c, u.start, min(k_rl.kappa, k_rr.kappa),
                                                                       dt)
    ratio = d.ratio
    full = d.brake_share * p.brakes_force * radius
    b_front = 0.5 * p.brakes_front_share * full
    b_rear = 0.5 * full - b_front
    if c.handbrake:
        b_rear = b_rear + 0.5 * p.brakes_force * radius
    yaw_target = aids.yaw_target(p, s.yaw_target, s.vx, c.steer, dt)
    e_fl, e_fr, e_rl, e_rr = aids.esc_torques(p, s.vx, s.yaw_rate, yaw_target)
    top = 0.5 * p.brakes_force * radius  # one wheel's whole brake
    b_fl, b_fr = min(b_front + e_fl, top), min(b_front + e_fr, top)
    b_rl, b_rr = min(b_rear + e_rl, top), min(b_rear + e_rr, top)
    i_f, i_r = 0.5 * p.body_wheel_inertia_front, 0.5 * p.body_wheel_inertia_rear
    guess = 0.5 * (ratio * min(max(engine_torque, -capacity), capacity) if p.manual else direct_torque)
    kx_fl = slope(k_fl, 0.0, s.wheel_fl, b_fl, radius)
    kx_fr = slope(k_fr, 0.0, s.wheel_fr, b_fr, radius)
    kx_rl = slope(k_rl, guess, s.wheel_rl, b_rl, radius)
    kx_rr = slope(k_rr, guess, s.wheel_rr, b_rr, radius)

    # The driven pair through the clutch and the differential; an engine locked to them adds its inertia.
    # A clutch that locks up shares the engine's and the wheels' angular momentum first (as on the single-track
    # car, physics.step.grip_frame): the pair's mean speed jumps to where the momentum puts it, their
    # difference stays (the differential passes none of it), and the frame runs from those speeds with the
    # engine's inertia on the pair. A lock-up so loses energy, never makes it.
    j_rl, j_rr = i_r + dt * radius * radius * kx_rl, i_r + dt * radius * radius * kx_rr
    omega_e = s.rpm / engine.RPM_PER_RAD_S
    mean = 0.5 * (s.wheel_rl + s.wheel_rr)
    clutch_t, stuck = 0.0, False
    t0, coupled = direct_torque, 0.0
    start_rl, start_rr = s.wheel_rl, s.wheel_rr
    if p.manual:
        clutch_t, stuck = wheel.clutch_torque(omega_e, mean, engine_torque, radius * (k_rl.fx + k_rr.fx), ratio,
                                              capacity, p.engine_inertia, j_rl + j_rr, dt)
        if stuck:
            coupled = 0.5 * ratio * ratio * p.engine_inertia
            shared = (2.0 * i_r * mean + ratio * p.engine_inertia * omega_e) / (2.0 * i_r + 2.0 * coupled)
            start_rl, start_rr = s.wheel_rl + (shared - mean), s.wheel_rr + (shared - mean)
            t0 = ratio * engine_torque
            if s.stalled:  # a stalled engine only rubs (a brake on the wheels); the starter drives them
                t0 = ratio * (engine.starter(s.rpm, p) if u.start else 0.0)
                b_rl = b_rl + 0.5 * abs(ratio) * engine.friction(s.rpm, p)
                b_rr = b_rr + 0.5 * abs(ratio) * engine.friction(s.rpm, p)
        else:
            t0 = ratio * clutch_t
    # The tyres' forces where the wheels start from (linear in their slopes; a lock-up moves them), within
    # their grip: past it the force no longer grows with the slip (physics.wheel.at_limit lets it grip again).
    fx_rl, kx_rl = start_force(k_rl, kx_rl, start_rl - s.wheel_rl, radius)
    fx_rr, kx_rr = start_force(k_rr, kx_rr, start_rr - s.wheel_rr, radius)
    j_rl, j_rr = i_r + dt * radius * radius * kx_rl, i_r + dt * radius * radius * kx_rr
    axle, drive_rl, drive_rr, diff_held = differential.share(p, t0, coupled, start_rl, start_rr, radius * fx_rl,
                                                             radius * fx_rr, j_rl, j_rr, dt)
    # What turns each driven wheel with the engine's inertia on it (at the grip, physics.wheel.at_limit):
    # the axle's torque before the engine's inertia answers, and the differential's coupling.
    own_rl = 0.5 * t0 + (drive_rl - 0.5 * axle)
    own_rr = 0.5 * t0 + (drive_rr - 0.5 * axle)

    # The wheels with the body frozen, then ABS (the rear select-low: both rear wheels get the brake the one
    # nearer to locking takes) and traction control's brake on a driven wheel spinning past its target.
    w_fl, free_fl, j_fl, held_fl = wheel.spin(s.wheel_fl, 0.0, k_fl.fx, kx_fl, b_fl, radius, i_f, dt)
    w_fr, free_fr, j_fr, held_fr = wheel.spin(s.wheel_fr, 0.0, k_fr.fx, kx_fr, b_fr, radius, i_f, dt)
    w_rl, free_rl, j_rl, held_rl = wheel.spin(start_rl, drive_rl, fx_rl, kx_rl, b_rl, radius, i_r, dt)
    w_rr, free_rr, j_rr, held_rr = wheel.spin(start_rr, drive_rr, fx_rr, kx_rr, b_rr, radius, i_r, dt)
    ahead = dt * s.accel
    braking = p.brakes_abs > 0 and d.brake_share > 0.0 and abs(s.vx) > p.brakes_abs_min_speed
    # Each wheel's ABS slip target: the straight-line one lowered by its tyre's lateral demand, a front one's
    # by the rear axle's too (cornering brake control, physics.aids.front_room).
    straight = p.peak_long * p.brakes_abs_slip
    room_rl, room_rr = abs_room(p, k_rl, False), abs_room(p, k_rr, False)
    rear_room = min(room_rl, room_rr)
    t_fl = straight * aids.front_room(p, abs_room(p, k_fl, True), rear_room)
    t_fr = straight * aids.front_room(p, abs_room(p, k_fr, True), rear_room)
    t_rl, t_rr = straight * room_rl, straight * room_rr
    rear_abs = braking and not c.handbrake
    if rear_abs and p.brakes_abs_select_low > 0:
        kept_rl = wheel.anti_lock(w_rl, free_rl, k_rl.u, ahead, radius, p.model_slip_speed, t_rl)
        kept_rr = wheel.anti_lock(w_rr, free_rr, k_rr.u, ahead, radius, p.model_slip_speed, t_rr)
        low = min(j_rl * abs(free_rl - kept_rl), j_rr * abs(free_rr - kept_rr)) / dt
        w_rl, low_rl = wheel.hold(free_rl, low, j_rl, dt)
        w_rr, low_rr = wheel.hold(free_rr, low, j_rr, dt)
        held_rl = held_rl or low_rl or kept_rl != w_rl
        held_rr = held_rr or low_rr or kept_rr != w_rr
    spin_target = p.aids_tcs_brake_slip * (brakes.sign(ratio) if p.manual else 1.0) * (1.0 if p.aids_tcs > 0 else 0.0)
    most_rl, most_rr = dt * top / j_rl, dt * top / j_rr
    h_fl = aided(p, k_fl, w_fl, free_fl, j_fl, held_fl, ahead * k_fl.c, braking, t_fl, 0.0, 0.0, dt)
    h_fr = aided(p, k_fr, w_fr, free_fr, j_fr, held_fr, ahead * k_fr.c, braking, t_fr, 0.0, 0.0, dt)
    h_rl = aided(p, k_rl, w_rl, free_rl, j_rl, held_rl, ahead, rear_abs, t_rl, spin_target, most_rl, dt)
    h_rr = aided(p, k_rr, w_rr, free_rr, j_rr, held_rr, ahead, rear_abs, t_rr, spin_target, most_rr, dt)

    # The body: vx, vy and the yaw rate in one linearly implicit step with every tyre's slopes. A held wheel
    # adds its tyre's whole longitudinal slope, a free one its slope in series with its inertia (the engine's
    # share on a driven wheel it is locked to).
    coefficient = (c_fl * z_fl + c_fr * z_fr + c_rl * z_rl + c_rr * z_rr) / p.weight
    drag_x, drag_y, rolling = aero.resistances(s.vx, s.vy, p, mass, dt, coefficient)
    vx_turned, vy_turned = body.frame_turn(s.vx, s.vy, s.yaw_rate * dt)
    m = Planar(mass, 0.0, 0.0, mass, 0.0, inertia, dt * (drag_x + rolling) + mass * (vx_turned - s.vx),
               dt * drag_y + mass * (vy_turned - s.vy), 0.0)
    r_rl, r_rr = i_r + coupled, i_r + coupled
    s_fl = kx_fl * (1.0 if h_fl.held else i_f / j_fl)
    s_fr = kx_fr * (1.0 if h_fr.held else i_f / j_fr)
    s_rl = kx_rl * (1.0 if h_rl.held else r_rl / (j_rl + coupled))
    s_rr = kx_rr * (1.0 if h_rr.held else r_rr / (j_rr + coupled))
    f_fl = k_fl.fx + kx_fl * radius * (h_fl.omega - s.wheel_fl)  # the lines the wheels' own updates used
    f_fr = k_fr.fx + kx_fr * radius * (h_fr.omega - s.wheel_fr)
    f_rl = fx_rl + kx_rl * radius * (h_rl.omega - start_rl)
    f_rr = fx_rr + kx_rr * radius * (h_rr.omega - start_rr)
    m = add_tyre(add_tyre(add_tyre(add_tyre(m, k_fl, f_fl, s_fl, dt), k_fr, f_fr, s_fr, dt), k_rl, f_rl, s_rl, dt),
                 k_rr, f_rr, s_rr, dt)
    dvx, dvy, dr = body.solve3(m.a11, m.a12, m.a13, m.a22, m.a23, m.a33, m.b1, m.b2, m.b3)

    # Each tyre within its grip; the wheels follow, or turn under the limit and may grip again.
    n_fl = finish(p, k_fl, s.wheel_fl, h_fl, f_fl, kx_fl, s_fl, i_f, j_fl, along(k_fl, dvx, dvy, dr), 0.0, b_fl,
                  mass, dt, ahead * k_fl.c, braking, t_fl, 0.0, 0.0)
    n_fr = finish(p, k_fr, s.wheel_fr, h_fr, f_fr, kx_fr, s_fr, i_f, j_fr, along(k_fr, dvx, dvy, dr), 0.0, b_fr,
                  mass, dt, ahead * k_fr.c, braking, t_fr, 0.0, 0.0)
    n_rl = finish(p, k_rl, start_rl, h_rl, f_rl, kx_rl, s_rl, r_rl, j_rl + coupled, along(k_rl, dvx, dvy, dr),
                  own_rl, b_rl, mass, dt, ahead, rear_abs, t_rl, spin_target, most_rl)
    n_rr = finish(p, k_rr, start_rr, h_rr, f_rr, kx_rr, s_rr, r_rr, j_rr + coupled, along(k_rr, dvx, dvy, dr),
                  own_rr, b_rr, mass, dt, ahead, rear_abs, t_rr, spin_target, most_rr)
    x_fl, x_fr = dt * (n_fl.fx - n_fl.fx_lin), dt * (n_fr.fx - n_fr.fx_lin)
    x_rl, x_rr = dt * (n_rl.fx - n_rl.fx_lin), dt * (n_rr.fx - n_rr.fx_lin)
    vx = s.vx + dvx + (x_fl * k_fl.c + x_fr * k_fr.c + x_rl + x_rr) / mass
    vy = s.vy + dvy + (x_fl * k_fl.s + x_fr * k_fr.s) / mass
    yaw_rate = s.yaw_rate + dr + (x_fl * k_fl.lever_x + x_fr * k_fr.lever_x + x_rl * k_rl.lever_x
                                  + x_rr * k_rr.lever_x) / inertia
    accel = (vx - vx_turned) / dt
    accel_y = (vy - s.vy) / dt + vx * yaw_rate
    w_fl, w_fr, w_rl, w_rr = n_fl.omega, n_fr.omega, n_rl.omega, n_rr.omega
    if diff_held and p.diff_kind != 0:  # a differential that held this frame turns its wheels as one
        w_rl = w_rr = ((j_rl + coupled) * w_rl + (j_rr + coupled) * w_rr) / (j_rl + j_rr + 2.0 * coupled)

    # The engine: one with the wheels through a stuck clutch, else its own torque less the clutch's.
    rpm, stalled = s.rpm, s.stalled
    if p.manual:
        if stuck:
            omega_e = ratio * 0.5 * (w_rl + w_rr)
        else:
            omega_e = omega_e + dt * (engine_torque - clutch_t) / p.engine_inertia
        rpm = max(omega_e, 0.0) * engine.RPM_PER_RAD_S
        stalled = engine.next_stalled(rpm, s.rpm, stalled, u.start, p)

    drive_force = (drive_rl + drive_rr) / radius
    speed = math.hypot(vx, vy)
    if ((_step.standstill.stop_mask(speed, accel, drive_force, p.model_stop_speed, p.weight)
         and speed <= 0.25 * p.tyres_mu * p.model_gravity * dt)
            or _step.standstill.braked_to_rest(s.vx, vx, speed, (b_fl + b_fr + b_rl + b_rr) / radius, drive_force,
                                               mass, dt)):
        vx, vy, yaw_rate = vx * 0.0, vy * 0.0, yaw_rate * 0.0
        w_fl, w_fr = 0.0, 0.0
        if not stuck:
            w_rl, w_rr = 0.0, 0.0
    heading = s.heading + dt * s.yaw_rate
    cos_h, sin_h = math.cos(heading), math.sin(heading)
    roll, roll_rate = suspension.roll_step(s.roll, s.roll_rate, suspension.roll_moment(p, accel_y),
                                           p.roll_stiffness_front + p.roll_stiffness_rear, p.suspension_roll_damping,
                                           p.suspension_roll_inertia, dt)

    # Telemetry: the channels every model shares, the axles' sums, and each corner's own.
    d = _step.Drivetrain(drive_force, d.brake_share, d.gear, d.ratio, d.engagement, d.throttle, engine_torque,
                         drive_rl + drive_rr, 0.0, d.auto_clutch)
    _step.frame_telemetry(p, s, c, d, out, t, tan_d / p.body_wheelbase)
    used_fl = brake_used(h_fl.held, j_fl, free_fl, h_fl.omega, b_fl, dt)
    used_fr = brake_used(h_fr.held, j_fr, free_fr, h_fr.omega, b_fr, dt)
    used_rl = brake_used(h_rl.held, j_rl, free_rl, h_rl.omega, b_rl, dt)
    used_rr = brake_used(h_rr.held, j_rr, free_rr, h_rr.omega, b_rr, dt)
    out.wheel_left = d_fl
    out.wheel_right = d_fr
    out.drive_force = drive_force
    out.drag_force = drag_x
    out.rolling_force = rolling
    out.brake_force = -brakes.sign(s.vx) * (used_fl + used_fr + used_rl + used_rr) / radius
    out.accel_long = accel
    out.accel_lat = accel_y
    spinning = max(k_rl.kappa, k_rr.kappa) > p.peak_long and n_rl.fx + n_rr.fx > 0.0
    out.wheelspin = 1.0 if spinning else 0.0
    out.slip_front = 0.5 * (k_fl.alpha + k_fr.alpha)
    out.slip_rear = 0.5 * (k_rl.alpha + k_rr.alpha)
    out.fy_front = k_fl.fy + k_fr.fy
    out.fy_rear = k_rl.fy + k_rr.fy
    out.load_front = z_fl + z_fr
    out.load_rear = z_rl + z_rr
    out.kinematic_weight = max(1.0 - abs(s.vx) / p.model_slip_speed, 0.0)
    out.beta = math.atan2(s.vy, abs(s.vx))
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
    out.tcs_active = 1.0 if tcs > 0.0 or h_rl.tcs_on or h_rr.tcs_on else 0.0
    out.roll = s.roll
    out.mu_front = 0.5 * (mu_fl + mu_fr)
    out.mu_rear = 0.5 * (mu_rl + mu_rr)
    out.esc_active = 1.0 if e_fl + e_fr + e_rl + e_rr > 0.0 else 0.0
    corners.write_fl(out, Wheel(z_fl, mu_fl, k_fl.alpha, k_fl.kappa, n_fl.fx, k_fl.fy, s.wheel_fl, used_fl,
                                1.0 if h_fl.abs_on else 0.0, 0.0, 1.0 if e_fl > 0.0 else 0.0))
    corners.write_fr(out, Wheel(z_fr, mu_fr, k_fr.alpha, k_fr.kappa, n_fr.fx, k_fr.fy, s.wheel_fr, used_fr,
                                1.0 if h_fr.abs_on else 0.0, 0.0, 1.0 if e_fr > 0.0 else 0.0))
    corners.write_rl(out, Wheel(z_rl, mu_rl, k_rl.alpha, k_rl.kappa, n_rl.fx, k_rl.fy, s.wheel_rl, used_rl,
                                1.0 if h_rl.abs_on else 0.0, 1.0 if h_rl.tcs_on else 0.0, 1.0 if e_rl > 0.0 else 0.0))
    corners.write_rr(out, Wheel(z_rr, mu_rr, k_rr.alpha, k_rr.kappa, n_rr.fx, k_rr.fy, s.wheel_rr, used_rr,
                                1.0 if h_rr.abs_on else 0.0, 1.0 if h_rr.tcs_on else 0.0, 1.0 if e_rr > 0.0 else 0.0))

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
def brake_used(held, inertia, free, omega, brake, dt):
    """The brake torque [N m] that acted: what stopped or held the wheel, else all of it."""
    return abs(inertia * (free - omega)) / dt if held else brake
