"""One fixed-timestep step of one car: the subsystems composed, kinematic, dynamic or four-wheel (physics.four_wheel).

``car_frame(p, s, u, new, out, dt, t, road, lanes)`` reads the car's parameter record ``p``, its state ``s``
and this frame's inputs ``u`` (records of physics.records.PARAMS, STATE and INPUTS), and writes
the next state into ``new`` and the frame's telemetry (the state at the frame's start and the
forces that acted during it) into ``out``. physics.kernel runs it over cars and frames in its parts: a
four-wheel or kinematic car's :func:`whole_frame`, and a single-track car's :func:`first_part` and
:func:`last_part`, with the tyres' curves of several cars computed between them in one call (the same bits).

The step is deterministic: the same car, state, inputs and dt give bit-identical results. Most of
it is explicit Euler; the stiff parts (tyre slip against the body's speeds and yaw rate, and the
wheels' spin) are taken linearly implicitly, and the car frame's turn is an exact rotation under
which the heading turns by the same angle, so the velocity in the world changes only by forces.

The subsystems are reached through their modules (``standstill.stop_mask``): physics.kernel's
``build_kernel(variants=...)`` compiles this file again with any of them replaced.
"""

from __future__ import annotations

import math
from collections import namedtuple

from . import (
    aero,
    aids,
    approx,
    blend,
    body,
    brakes,
    clutch,
    corners,
    drive,
    engine,
    four_wheel,
    gearbox,
    kinematic,
    pedals,
    standstill,
    steering,
    surface,
    tyre,
    wheel,
)
from .jit import scalar

_EPS2 = 1e-6  # [(L/s)^2] keeps slip-angle slopes finite at a standstill
_KMH = 3.6

Controls = namedtuple("Controls", "throttle brake clutch_pedal steer handbrake gear up_pending down_pending")
"""The driver's controls after this frame's inputs: pedals, wheel angle, gear."""

Drivetrain = namedtuple("Drivetrain", "demand brake_share gear ratio engagement throttle engine_torque axle_torque "
                                      "imposed_rpm auto_clutch")
"""What the drivetrain does this frame, before the road's grip limit: the drive force the wheels ask
of the road, the share of the brake pedal that brakes, the gear as reported (direct drive: -1 while
reversing), the overall ratio engine -> wheel (0 in neutral or without a gearbox), the clutch
engagement, the throttle after the rev limiter and the driver aids' cuts (telemetry's ``throttle_applied``), engine and axle torque, the engine speed the wheels
impose and the automatic clutch's engagement this frame."""

GripCurves = namedtuple("GripCurves", "sin_d cos_d tan_d load_f load_r mu_f rolling_f mu_r rolling_r uf wf ur wr df "
                                      "dr alpha_f alpha_r kappa_f kappa_r k_f a_f rho_f dx_f dy_f k_r a_r rho_r dx_r "
                                      "dy_r")
"""What :func:`grip_curves` found that :func:`grip_finish` goes on from: the steer's sine, cosine and tangent, the
axles' loads, the road's grip and rolling coefficient under them, the contact patches' velocities and slip speeds,
the slips, and :func:`physics.tyre.combined_slips` of each axle. Every field is a float64 (a batch keeps them in a
row of floats, physics.kernel)."""

DynamicCurves = namedtuple("DynamicCurves", "sin_d cos_d tan_d w k load_f load_r uf wf ur wr alpha_f alpha_r vx_turned "
                                            "vy_turned")
"""What :func:`dynamic_curves` found that :func:`dynamic_finish` goes on from: the steer's sine, cosine and tangent,
the kinematic bicycle's weight and the tyres' share, the axles' loads, the contact patches' velocities and the slip
angles, and the car-frame velocity after the frame's turn they were taken at (float64 each)."""


@scalar(inline=True)
def controls(p, s, u, dt):
    """Pedals, steering and gear after this frame's keys and overrides."""
    throttle = pedals.pedal(s.throttle, u.throttle, u.throttle_on, u.throttle_value, p.pedals_throttle_rise,
                            p.pedals_throttle_fall, dt)
    brake = pedals.pedal(s.brake, u.brake, u.brake_on, u.brake_value, p.pedals_brake_rise, p.pedals_brake_fall, dt)
    clutch_pedal = pedals.pedal(s.clutch_pedal, u.clutch, u.clutch_on, u.clutch_value, p.pedals_clutch_rise,
                                p.pedals_clutch_fall, dt)
    goal = steering.target(u.left, u.right, u.steer_on, u.steer_value, p.steering_lock)
    steer = steering.follow(s.steer, goal, p.steering_rate, dt)
    gear, up_pending, down_pending = s.gear, s.up_pending, s.down_pending
    if p.manual:
        gear, up_pending, down_pending = gearbox.shift(
            s.gear, u.gear_up, u.gear_down, s.up_held, s.down_held, s.up_pending, s.down_pending,
            clutch_pedal, p.gearbox_shift_clutch, p.top_gear)
        if u.gear_on:
            gear = min(max(u.gear_value, gearbox.REVERSE), p.top_gear)
    return Controls(throttle, brake, clutch_pedal, steer, u.handbrake, gear, up_pending, down_pending)


@scalar(inline=True)
def drivetrain(p, s, c, wheel_speed, dt):
    """003's engine -> clutch -> gearbox chain, or 002's direct drive force."""
    if not p.manual:
        demand, brake_share, reversing = drive.direct(c.throttle, c.brake, wheel_speed, p, c.throttle)
        return Drivetrain(demand, brake_share, -1.0 if reversing else 1.0, 0.0, 1.0, c.throttle, 0.0,
                          demand * p.body_wheel_radius, 0.0, 0.0)
    ratio = p.gear_ratio[c.gear + 1] * p.gearbox_final_drive
    in_gear = 1.0 if ratio != 0.0 else 0.0
    auto = clutch.automatic(s.auto_clutch, s.rpm, p, dt)
    engagement = clutch.engagement(c.clutch_pedal, auto, wheel_speed, p)
    throttle = engine.limited_throttle(c.throttle, s.rpm, p)
    turning = wheel_speed / p.body_wheel_radius * ratio  # [rad/s] the engine speed the wheels impose
    torque = engine.net_torque(throttle, s.rpm, p, turning < 0.0)
    if engagement < 1.0 and turning * engine.RPM_PER_RAD_S < s.rpm:
        # A clutch that slips with the engine its faster side: its friction can only push the wheels on, never pull
        # them back (the engine's own friction slows the engine). Passed as it was, the engine's net torque a little
        # below nought (a light throttle just above idle, where the idle control fades) pulled a car at rest
        # backwards, the friction turned round as the wheels rolled back a hair, and the car chattered forever (13 N
        # back, 54 N on, every few frames). A clutch let fully in passes the engine's braking as before.
        torque = max(torque, 0.0)
    axle = clutch.transmitted(torque, engagement, p.clutch_capacity) * ratio * in_gear
    imposed = max(turning, 0.0) * engine.RPM_PER_RAD_S
    return Drivetrain(axle / p.body_wheel_radius, c.brake, float(c.gear), ratio, engagement, throttle, torque, axle,
                      imposed, auto)


@scalar
def next_rpm(p, s, d, slipping, dt):
    """003: engine speed, free revving blended with what wheels, gear and final drive impose.

    While the driven wheels spin (or the handbrake locks them) the clutch counts as open in this
    blend, so the engine flares.
    """
    if not p.manual:
        return s.rpm
    coupled = d.engagement * (1.0 if d.ratio != 0.0 else 0.0) * (0.0 if slipping else 1.0)
    coupling = clutch.rpm_coupling(coupled, dt, p.clutch_sync_time)
    return engine.coupled_rpm(engine.free_rpm(s.rpm, d.throttle, p, dt), d.imposed_rpm, coupling)


@scalar
def car_frame(p, s, u, new, out, dt, t, road, lanes):
    """Advance one car by dt on ``road`` (its surfaces' rows, physics.surface): the next state into ``new``,
    this frame's telemetry into ``out``. ``lanes`` is the car's scratch space for its tyres' curves
    (float64 (physics.tyre.LANE_ROWS, n), physics.tyre.magic_lanes: n is LANES for a four-wheel car, narrow() else)."""
    if two_part_lanes(p) == 0:
        whole_frame(p, s, u, new, out, dt, t, road, lanes)
        return
    c = controls(p, s, u, dt)
    if p.combined:
        grip_frame(p, s, u, c, new, out, dt, t, road, lanes)
    else:
        dynamic_frame(p, s, u, c, new, out, dt, t, lanes)
    single_track(out, new)


@scalar
def whole_frame(p, s, u, new, out, dt, t, road, lanes):
    """:func:`car_frame` of a four-wheel or kinematic car, whose frames a batch runs whole (:func:`two_part_lanes`)."""
    c = controls(p, s, u, dt)
    if p.four_wheel:
        four_wheel.four_wheel_frame(p, s, u, c, new, out, dt, t, road, lanes)
        return
    kinematic_frame(p, s, u, c, new, out, dt, t)
    single_track(out, new)


# The kernel (physics.kernel) runs a single-track car's frame in two parts, so that one call computes the tyre curves of
# several cars: :func:`first_part` up to the curves, physics.tyre.magic_lanes over the cars' lanes, and
# :func:`last_part`. In between, a car's controls and what its first part found wait in a row of floats (``kept``).
# Together they are :func:`car_frame`, bit for bit; :func:`whole_frame` is the other cars' frame.
KEPT_CONTROLS = 8  # Controls' fields, the bools as 0.0 and 1.0 and the gear as a float (exact)
GRIP_KEPT = len(GripCurves._fields)
DYNAMIC_KEPT = len(DynamicCurves._fields)
KEPT = KEPT_CONTROLS + max(GRIP_KEPT, DYNAMIC_KEPT)
"""Floats a car keeps between the two parts of its frame."""


@scalar
def two_part_lanes(p):
    """How many lanes of physics.tyre.magic_lanes a car's frame fills when a batch runs it in two parts (the
    combined car's four curves, the 002/003 car's two), 0 for a car whose frames run whole (the kinematic and
    four-wheel cars)."""
    if p.four_wheel or p.kinematic:
        return 0
    return 4 if p.combined else 2


@scalar(inline=True)
def first_part(p, s, u, dt, ground, start, end, lanes, first, kept, q):
    """:func:`car_frame` of a car :func:`two_part_lanes` counts, up to its tyres' curves: its curves go into lanes
    ``first`` onwards of ``lanes``, its controls and what it found into row ``q`` of ``kept`` (KEPT floats) for
    :func:`last_part`."""
    c = controls(p, s, u, dt)
    kept[q, 0] = c.throttle
    kept[q, 1] = c.brake
    kept[q, 2] = c.clutch_pedal
    kept[q, 3] = c.steer
    kept[q, 4] = 1.0 if c.handbrake else 0.0
    kept[q, 5] = float(c.gear)
    kept[q, 6] = 1.0 if c.up_pending else 0.0
    kept[q, 7] = 1.0 if c.down_pending else 0.0
    if p.combined:
        _keep_fields(kept, q, grip_curves(p, s, c, ground, start, end, lanes, first // 2))
    else:
        _keep_fields(kept, q, dynamic_curves(p, s, c, lanes, first, dt))


@scalar
def _keep_fields(kept, q, fields):
    """A tuple of floats into row ``q`` of ``kept``, after the controls."""
    for j in range(len(fields)):
        kept[q, KEPT_CONTROLS + j] = fields[j]


@scalar(inline=True)
def last_part(p, s, u, new, out, dt, t, lanes, first, kept, q):
    """The rest of :func:`car_frame` after :func:`first_part` and physics.tyre.magic_lanes: the same bits."""
    c = Controls(kept[q, 0], kept[q, 1], kept[q, 2], kept[q, 3], kept[q, 4] != 0.0, int(kept[q, 5]), kept[q, 6] != 0.0,
                 kept[q, 7] != 0.0)
    if p.combined:
        grip_finish(p, s, u, c, new, out, dt, t, lanes, first // 2, kept_grip(kept, q))
    else:
        dynamic_finish(p, s, u, c, new, out, dt, t, lanes, first, kept_dynamic(kept, q))
    single_track(out, new)


# Each field by a constant index: a tuple built in a loop (numba's to_fixed_tuple) was stored whole and read back at
# every step of it, 1,700 moves a frame.
@scalar
def kept_grip(kept, q):
    """The :class:`GripCurves` :func:`first_part` kept."""
    k = KEPT_CONTROLS
    return GripCurves(kept[q, k], kept[q, k + 1], kept[q, k + 2], kept[q, k + 3], kept[q, k + 4], kept[q, k + 5],
                      kept[q, k + 6], kept[q, k + 7], kept[q, k + 8], kept[q, k + 9], kept[q, k + 10],
                      kept[q, k + 11], kept[q, k + 12], kept[q, k + 13], kept[q, k + 14], kept[q, k + 15],
                      kept[q, k + 16], kept[q, k + 17], kept[q, k + 18], kept[q, k + 19], kept[q, k + 20],
                      kept[q, k + 21], kept[q, k + 22], kept[q, k + 23], kept[q, k + 24], kept[q, k + 25],
                      kept[q, k + 26], kept[q, k + 27], kept[q, k + 28])


@scalar
def kept_dynamic(kept, q):
    """The :class:`DynamicCurves` :func:`first_part` kept."""
    k = KEPT_CONTROLS
    return DynamicCurves(kept[q, k], kept[q, k + 1], kept[q, k + 2], kept[q, k + 3], kept[q, k + 4], kept[q, k + 5],
                         kept[q, k + 6], kept[q, k + 7], kept[q, k + 8], kept[q, k + 9], kept[q, k + 10],
                         kept[q, k + 11], kept[q, k + 12], kept[q, k + 13], kept[q, k + 14])


@scalar
def kinematic_frame(p, s, u, c, new, out, dt, t):
    """001: the bicycle about the rear axle or the centre of mass; 002's forces along the path."""
    mass = p.body_mass
    hb_swap = c.handbrake and p.steering_handbrake_wheelbase > 0.0
    wheelbase = p.steering_handbrake_wheelbase if hb_swap else p.body_wheelbase
    tan_d = approx.tan(c.steer)
    beta = kinematic.slip_angle(tan_d, p.body_lr * wheelbase / p.body_wheelbase, wheelbase)
    beta = beta * (1.0 if p.reference_com else 0.0)
    speed = brakes.sign(s.vx) * approx.hypot(s.vx, s.vy)
    d = drivetrain(p, s, c, s.vx, dt)
    drag, _, rolling = aero.resistances(speed, 0.0, p, mass, dt, p.aero_rolling_coefficient)
    other = d.demand + drag + rolling
    brake = brakes.hold(speed, other, d.brake_share * p.brakes_force, mass, dt)
    cap = p.brakes_handbrake_speed * (1.0 if c.handbrake else 0.0)
    brake = brake + brakes.cap_speed(speed, other + brake, cap, mass, dt)
    accel = (other + brake) / mass
    new_speed = speed + dt * accel
    if standstill.stop_mask(new_speed, accel, d.demand, p.model_stop_speed, p.weight):
        new_speed = 0.0
    yaw_rate = kinematic.yaw_rate(new_speed, tan_d, wheelbase, beta)
    heading = s.heading + dt * yaw_rate
    sin_b, cos_b = approx.sincos(beta)
    vx, vy = new_speed * cos_b, new_speed * sin_b

    front, rear = body.axle_loads(mass, p.model_gravity, p.body_lr, p.body_wheelbase, 0.0, 0.0)
    frame_telemetry(p, s, c, d, out, t, tan_d / wheelbase)
    out.drive_force = d.demand
    out.drag_force = drag
    out.rolling_force = rolling
    out.brake_force = brake
    out.accel_long = accel
    # the change of the velocity in the world along the lateral axis (telemetry.accel_lat): the heading turns by
    # the new yaw rate here
    out.accel_lat = (vy - body.frame_turn(s.vx, s.vy, yaw_rate * dt)[1]) / dt
    out.wheelspin = 0.0
    out.slip_front = 0.0
    out.slip_rear = 0.0
    out.fy_front = 0.0
    out.fy_rear = 0.0
    out.load_front = front
    out.load_rear = rear
    out.kinematic_weight = 1.0
    out.beta = beta + 0.0
    rolling_wheels(p, s.vx, s.vx, 0.0, 0.0, abs(brake), out)

    sin_t, cos_t = approx.sincos(heading + beta)
    new.x = s.x + dt * new_speed * cos_t
    new.y = s.y + dt * new_speed * sin_t
    new.heading = heading
    new.vx = vx
    new.vy = vy
    new.yaw_rate = yaw_rate
    new.rpm = next_rpm(p, s, d, False, dt)
    new.accel = accel
    new.spinning = False
    new.wheel_front = vx / p.body_wheel_radius
    new.wheel_rear = new.wheel_front
    new.stalled = False
    new.tcs = 0.0
    carry_controls(s, u, c, d, new)


@scalar
def dynamic_frame(p, s, u, c, new, out, dt, t, lanes):
    """002/003: tyre forces on a single-track body, blended into the kinematic bicycle at low speed.

    In three parts, as :func:`grip_frame`: :func:`dynamic_curves`, physics.tyre.magic_lanes, :func:`dynamic_finish`.
    """
    g = dynamic_curves(p, s, c, lanes, 0, dt)
    tyre.magic_lanes(lanes)
    dynamic_finish(p, s, u, c, new, out, dt, t, lanes, 0, g)


@scalar(inline=True)
def dynamic_curves(p, s, c, lanes, j, dt):
    """:func:`dynamic_frame`'s first part: both axles' lateral curves in lanes j and j + 1 of ``lanes``; returns a
    :class:`DynamicCurves`.

    The slips are taken at the car-frame velocity after the frame's turn (physics.body.frame_turn), where the body's
    implicit step (physics.body.planar_step) starts and linearises the forces: taken at the frame's start, the forces
    missed what the turn itself changed, about the tyres' slopes times vx r dt, and the handling figures moved with dt
    (the classic's step-steer yaw response time 0.883 s at 1/120 s against 0.909 at 1/2000 s; now 0.913 and 0.911)."""
    lf, lr, mass = p.lf, p.body_lr, p.body_mass
    sin_d, cos_d = approx.sincos(c.steer)
    tan_d = sin_d / cos_d
    w = blend.kinematic_weight(approx.hypot(s.vx, s.vy), p.model_blend_low, p.model_blend_high)
    k = blend.tyre_force_weight(w)
    load_f, load_r = body.axle_loads(mass, p.model_gravity, lr, p.body_wheelbase, p.body_cg_height, s.accel)

    # Contact-patch velocities along (u) and across (w) each wheel; slip angles; Pacejka forces.
    vx, vy = body.frame_turn(s.vx, s.vy, s.yaw_rate * dt)
    front_lat = vy + lf * s.yaw_rate
    uf = vx * cos_d + front_lat * sin_d
    wf = front_lat * cos_d - vx * sin_d
    ur, wr = vx, vy - lr * s.yaw_rate
    alpha_f, alpha_r = tyre.slip(uf, wf), tyre.slip(ur, wr)
    # physics.tyre.pacejka for both axles, the two curves at once in SIMD lanes (the same bits).
    tyre.put_lane(lanes, j, alpha_f, p.tyres_b_front, p.tyres_c, p.tyres_e, p.tyres_mu * load_f)
    tyre.put_lane(lanes, j + 1, alpha_r, p.tyres_b_rear, p.tyres_c, p.tyres_e, p.tyres_mu * load_r)
    return DynamicCurves(sin_d, cos_d, tan_d, w, k, load_f, load_r, uf, wf, ur, wr, alpha_f, alpha_r, vx, vy)


@scalar(inline=True)
def dynamic_finish(p, s, u, c, new, out, dt, t, lanes, j, g):
    """:func:`dynamic_frame` after its tyres' curves: ``g`` is :func:`dynamic_curves`' answer, the curves' forces in
    lanes j and j + 1 of ``lanes`` (physics.tyre.magic_lanes)."""
    lf, lr, mass = p.lf, p.body_lr, p.body_mass
    sin_d, cos_d, tan_d, w, k, load_f, load_r = g.sin_d, g.cos_d, g.tan_d, g.w, g.k, g.load_f, g.load_r
    uf, wf, ur, wr, alpha_f, alpha_r = g.uf, g.wf, g.ur, g.wr, g.alpha_f, g.alpha_r
    fy_f, slope_f = -lanes[5, j], max(lanes[6, j], 0.0)
    fy_r, slope_r = -lanes[5, j + 1], max(lanes[6, j + 1], 0.0)
    rear_v2 = ur * ur + wr * wr + _EPS2
    kf = slope_f * abs(uf) / (uf * uf + wf * wf + _EPS2)
    kr = slope_r * abs(ur) / rear_v2
    locked = c.handbrake
    hand_capacity = 0.0
    if locked:
        # The handbrake locks the rear wheels: they slide, grip falling to a fraction of the peak.
        sliding = p.tyres_slide_fraction * p.tyres_mu * load_r
        rear_v = math.sqrt(rear_v2)
        fy_r = -sliding * wr / rear_v
        kr = sliding * (ur * ur + _EPS2) / (rear_v2 * rear_v)
        hand_capacity = sliding * (abs(ur) + 1e-9) / (rear_v + 1e-9)

    d = drivetrain(p, s, c, s.vx, dt)
    limit = p.tyres_traction_mu * (p.weight if p.all_driven else load_r)
    may_spin = True
    if p.manual:
        # Spinning wheels flare the engine; they spin on while it is faster than the road and the
        # axle still drives them (the clutch pressed or the throttle lifted, they grip again). Driven on, they
        # start to only where the road turns the engine below its rev limit: past it the engine, which revs no
        # higher, cannot turn them ahead of the road.
        still = s.rpm > d.imposed_rpm and d.demand * d.ratio > 0.0
        may_spin = d.imposed_rpm < p.engine_rev_limit or d.demand * d.ratio <= 0.0
    else:
        # Without an engine model: until the demand falls below what sliding rubber passes.
        still = abs(d.demand) > p.tyres_spin_fraction * limit
    force, spinning = drive.traction(d.demand, limit, s.spinning, still, p.tyres_spin_fraction, may_spin)
    if locked:  # locked rear wheels pass no drive and do not spin
        spinning = False
        force = force * 0.0
    drag_x, drag_y, rolling = aero.resistances(s.vx, s.vy, p, mass, dt, p.aero_rolling_coefficient)
    dyn = 1.0 - w
    # The car frame turned by yaw_rate * dt under the velocity (dynamic_curves, where the slips were taken): rotated
    # exactly, so a spinning car gains no energy from the step (explicit m vy r terms would, at high yaw rates).
    vx_turned, vy_turned = g.vx_turned, g.vy_turned
    other = force + drag_x + rolling - k * fy_f * sin_d
    capacity = brakes.road_limit(d.brake_share * p.brakes_force + hand_capacity, p.tyres_mu, p.weight)
    brake = brakes.hold(s.vx, other, capacity, mass, dt)
    brake = brakes.within_grip(force, brake, max(p.tyres_mu, p.tyres_traction_mu) * p.weight)
    # On the kinematic path the body moves as one with its forward speed: the centre of mass swings
    # out (vy = vx lr tan / L) and the car yaws (r = vx tan / L), so a force along the car speeds up
    # m (1 + (lr tan / L)^2) + Iz (tan / L)^2, not m alone (the energy of the path is 1/2 m_path vx^2).
    vy_per_vx, r_per_vx = blend.kinematic_motion(1.0, tan_d, lr, p.body_wheelbase)
    path_mass = mass * (1.0 + vy_per_vx * vy_per_vx) + p.body_yaw_inertia * r_per_vx * r_per_vx
    vx_kin_forces = s.vx + dt * (other + brake) / path_mass
    accel = (other + brake) * (dyn / mass + w / path_mass)

    # The body's vx, vy and yaw rate in one linearly implicit step with the tyres' slopes along their sideways
    # directions (physics.body.planar_step, as the combined model's): the front tyre's force pulls along the car by
    # sin(steer) and its slope couples vx with vy and r. Solved one after the other (vx with k kf sin^2 alone, then
    # vy and r), the step left out that coupling, and with the slips taken after the frame's turn a car circling in
    # reverse at full lock gained 0.01 W coasting (the F1TENTH car at 1 m/s).
    dvx, dvy, dr = body.planar_step(mass, p.body_yaw_inertia, other + brake, fy_f * cos_d + fy_r + drag_y,
                                    lf * fy_f * cos_d - lr * fy_r, 0.0, 0.0, kf, kr, cos_d, sin_d, lf, lr, dt)
    # What the step moved each tyre's lateral force by, along its slope (the telemetry's: the dynamic share's forces are
    # the ones it applied, as the combined model's, and sum to m a_y where the car is fully dynamic), within the
    # curve's peak, mu Fz, or a locked rear's sliding force (where the linearised step passed it the body gives back
    # the difference, as grip_finish's).
    step_f = kf * (cos_d * (dvy + lf * dr) - sin_d * dvx)
    step_r = kr * (dvy - lr * dr)
    over_f = excess(fy_f - step_f, p.tyres_mu * load_f)
    rear_limit = p.tyres_slide_fraction * p.tyres_mu * load_r if locked else p.tyres_mu * load_r
    over_r = excess(fy_r - step_r, rear_limit)
    if over_f != 0.0 or over_r != 0.0:
        step_f, step_r = step_f - over_f, step_r - over_r
        back_x, back_y, back_r = body.sideways_give_back(over_f, over_r, cos_d, sin_d, lf, lr, mass,
                                                         p.body_yaw_inertia, dt)
        dvx, dvy, dr = dvx + back_x, dvy + back_y, dr + back_r
    vy_dyn, r_dyn = vy_turned + dvy, s.yaw_rate + dr
    # The dynamic share moves as its forces say. The kinematic share starts where the frame's turn and
    # the forces carried it and is pulled onto the kinematic path (001): its forward speed is the
    # forces', its lateral speed and yaw rate follow the wheels; the tyres pull it there within their
    # grip, and the path's energy is at most what the share had plus the forces' work.
    inertia = p.body_yaw_inertia
    vx_base = vx_kin_forces + (vx_turned - s.vx)
    impulse = dt * (other + brake)
    energy = (0.5 * (mass * (vx_turned * vx_turned + vy_turned * vy_turned) + inertia * s.yaw_rate * s.yaw_rate)
              + 0.5 * impulse * s.vx)
    vy_path, r_path = blend.kinematic_motion(vx_kin_forces, tan_d, lr, p.body_wheelbase)
    fits = blend.energy_share(vx_kin_forces, vy_path, r_path, mass, inertia, energy, impulse)
    vx_path, vy_path, r_path = fits * vx_kin_forces, fits * vy_path, fits * r_path
    grip = p.tyres_mu * p.model_gravity * dt
    share = blend.reach(vx_path - vx_base, vy_path - vy_turned, r_path - s.yaw_rate, grip,
                        grip * mass * max(lf, lr) / inertia)
    vx = dyn * (vx_turned + dvx) + w * (vx_base + share * (vx_path - vx_base))
    vy = dyn * vy_dyn + w * (vy_turned + share * (vy_path - vy_turned))
    yaw_rate = dyn * r_dyn + w * (s.yaw_rate + share * (r_path - s.yaw_rate))
    accel_y = (vy - vy_turned) / dt  # as accel, before the stop rule: the change the forces made (telemetry.accel_lat)
    if standstill.stop_mask(approx.hypot(vx, vy), accel, force, p.model_stop_speed, p.weight):
        vx, vy, yaw_rate = vx * 0.0, vy * 0.0, yaw_rate * 0.0
    # The heading turns by the angle the velocity was carried through (frame_turn): the velocity in
    # the world then changes only by what the tyres, drive, brakes and air do.
    heading = s.heading + dt * s.yaw_rate
    sin_h, cos_h = approx.sincos(heading)

    frame_telemetry(p, s, c, d, out, t, tan_d / p.body_wheelbase)
    out.drive_force = force
    out.drag_force = drag_x
    out.rolling_force = rolling
    out.brake_force = brake
    out.accel_long = accel
    out.accel_lat = accel_y
    out.wheelspin = 1.0 if spinning else 0.0
    out.slip_front = alpha_f
    out.slip_rear = alpha_r
    out.fy_front = k * fy_f - dyn * step_f
    out.fy_rear = k * fy_r - dyn * step_r
    out.load_front = load_f
    out.load_rear = load_r
    out.kinematic_weight = w
    rolling_wheels(p, uf, ur, approx.hypot(k * fy_f, 0.0) / (p.tyres_mu * load_f),
                   approx.hypot(force / (p.tyres_traction_mu * load_r), k * fy_r / (p.tyres_mu * load_r)), abs(brake), out)

    new.x = s.x + dt * (vx * cos_h - vy * sin_h)
    new.y = s.y + dt * (vx * sin_h + vy * cos_h)
    new.heading = heading
    new.vx = vx
    new.vy = vy
    new.yaw_rate = yaw_rate
    new.rpm = next_rpm(p, s, d, spinning or locked, dt)
    new.accel = accel
    new.spinning = spinning
    new.wheel_front = vx / p.body_wheel_radius
    new.wheel_rear = new.wheel_front
    new.stalled = False
    new.tcs = 0.0
    carry_controls(s, u, c, d, new)


@scalar
def launch_asked(p, c):
    """Whether the driver asks for a launch traction control may hold: traction control on, the throttle open,
    the brake and the handbrake off."""
    return p.aids_tcs > 0 and c.throttle > 0.0 and c.brake <= 0.0 and not c.handbrake


@scalar
def launching(p, s, c, auto):
    """Whether launch control holds the driven wheels' slip through the clutch: a launch asked for
    (:func:`launch_asked`), a running engine, and the automatic launch clutch (``auto``, its engagement this frame)
    engaging the clutch and not yet closed (the pedal is let out further than it)."""
    return (launch_asked(p, c) and p.clutch_auto_speed > 0.0 and not s.stalled and auto < 1.0
            and auto <= 1.0 - c.clutch_pedal)


@scalar
def launch_control(p, s, engine_torque, capacity, allowance, ratio, imposed, dt):
    """Launch control's clutch capacity [N m] and the engine's torque [N m] should the clutch slip.

    The clutch passes no more than ``allowance`` (the driven wheels' torque at their slip target,
    physics.aids.launch_allowance, at the wheels). A slipping clutch's engine gives up what the clutch holds back,
    down to its closed-throttle torque, so that it revs as it would have (the launch clutch's engagement follows
    the engine's speed; a throttle cut alone had the launch cycle between spin and bog), but never so much that it
    ends the frame below the speed the wheels impose through the gears (``imposed`` [rad/s]): it meets them there
    and the clutch locks without the engine's momentum jolting the wheels. A clutch that sticks keeps the engine's
    whole torque, for traction control to take. Returns (capacity, engine torque if slipping, whether it acted).
    """
    if ratio == 0.0 or allowance >= capacity * abs(ratio):
        return capacity, engine_torque, False
    most = allowance / abs(ratio)
    closed = engine.governed_torque(0.0, s.rpm, p, False, False)
    held = max(engine_torque - (capacity - most), min(closed, engine_torque))
    meets = most + p.engine_inertia * (imposed - s.rpm / engine.RPM_PER_RAD_S) / dt
    return most, min(max(held, meets), engine_torque), True


@scalar(inline=True)
def grip_drive(p, s, c, cranking, kappa, driven, dt, esc_cut):
    """Combined model: the engine's torque, the clutch's capacity and the overall ratio, or 002's direct drive.

    ``driven`` is the speed [rad/s] of what the gearbox drives (the driven wheels' mean).

    Traction control cuts the throttle by what the driven wheels' slip ratio ``kappa`` asks
    (physics.aids.tcs_cut), stability control by ``esc_cut`` (physics.aids.esc_torques; 0 on a single-track car),
    neither while the engine turns within its limiter band above idle. Returns (Drivetrain for the telemetry, engine torque, clutch capacity
    [N m], drive torque of a direct-drive car at its wheels [N m], the share traction control cut, the running
    engine's closed-throttle torque [N m] at this speed, what traction control may take it down to: 0 for direct
    drive).
    """
    if not p.manual:
        cut = aids.tcs_cut(p, kappa, 1.0, s.tcs, dt)
        applied = c.throttle * (1.0 - cut) * (1.0 - esc_cut)
        demand, brake_share, reversing = drive.direct(applied, c.brake, s.vx, p, c.throttle)
        # Reversing on the brake, the drive takes none of the throttle (physics.drive.direct).
        d = Drivetrain(demand, brake_share, -1.0 if reversing else 1.0, 0.0, 1.0, 0.0 if reversing else applied, 0.0,
                       demand * p.body_wheel_radius, 0.0, 0.0)
        return d, 0.0, 0.0, demand * p.body_wheel_radius, cut, 0.0
    ratio = p.gear_ratio[c.gear + 1] * p.gearbox_final_drive
    if p.clutch_auto_speed > 0.0:
        # the engine's speed above what the driven wheels impose, for the hand-over of a launch that launch
        # control holds: one the launch clutch has not yet closed on (a shift later on is left alone), with the
        # driven wheels near the slip it holds them at (0.8 of it) (a launch the tyres take whole hands
        # over as it always did, and does not slip the clutch for seconds)
        held = launch_asked(p, c) and s.auto_clutch < 1.0 and brakes.sign(ratio) * kappa >= 0.8 * p.aids_tcs_slip
        above = s.rpm - abs(ratio * driven) * engine.RPM_PER_RAD_S if held else 0.0
        auto = clutch.launch(s.auto_clutch, s.rpm, s.vx, above, p, dt)
        engagement = min(1.0 - c.clutch_pedal, auto)
    else:  # a bare manual: the pedal alone
        auto = 0.0
        engagement = 1.0 - c.clutch_pedal
    # Traction control never takes the engine below its idle: it would stall it (cars' engine controls
    # hand back the torque near idle). While the automatic launch clutch slips, launch control holds the
    # wheels' slip through the clutch instead (:func:`launch_control`) and leaves the throttle alone: a
    # throttle cut reaches the wheels only through the engine's speed, which the launch clutch's engagement
    # follows, and the launch cycled between spin and bog.
    above_idle = s.rpm > p.engine_idle_rpm + p.engine_limiter_band
    cut = aids.tcs_cut(p, kappa, brakes.sign(ratio), s.tcs, dt) if above_idle and not launching(p, s, c, auto) else 0.0
    throttle = engine.limited_throttle(c.throttle, s.rpm, p) * (1.0 - cut) * (1.0 - (esc_cut if above_idle else 0.0))
    torque, closed = engine.governed_torques(throttle, s.rpm, p, s.stalled, cranking)
    d = Drivetrain(0.0, c.brake, float(c.gear), ratio, engagement, throttle, torque, 0.0, 0.0, auto)
    return d, torque, p.clutch_capacity * engagement, 0.0, cut, closed


@scalar
def grip_frame(p, s, u, c, new, out, dt, t, road, lanes):
    """Combined model: wheels and engine with inertia, tyres sharing one friction ellipse, brakes limited by the road.

    Per axle a wheel speed gives the slip ratio, the slip angle comes from the contact patch's
    velocity, and the combined-slip tyre (physics.tyre.combined) gives both forces. The wheels are
    advanced first with the body frozen (linearly implicit in their own tyre slope, brakes and
    clutch as friction that may stick; a clutch locking up shares the engine's momentum); the
    body's vx, vy and yaw rate are then one linearly implicit step with every tyre's slope
    (physics.body.planar_step; a wheel that still turns freely adds its tyre's slope in series with
    its own inertia). A tyre whose linearised force passes the road's limit gives car and wheel the
    limit (physics.wheel.at_limit). No state is overwritten at low speed: the slips are taken
    against at least ``model.slip_speed``, so a crawling car's tyres act as dampers and the
    kinematic bicycle emerges from the forces.

    In three parts: :func:`grip_curves` (the slips, and the tyres' curves put in lanes 0 to 3),
    physics.tyre.magic_lanes, :func:`grip_finish`. A batch runs the first part of several cars, their curves in
    one call, then the last part of each (physics.kernel): every car gets the bits of this function.
    """
    g = grip_curves(p, s, c, road, 0, road.shape[0], lanes, 0)
    tyre.magic_lanes(lanes)
    grip_finish(p, s, u, c, new, out, dt, t, lanes, 0, g)


@scalar(inline=True)
def grip_curves(p, s, c, ground, start, end, lanes, j):
    """:func:`grip_frame`'s first part: the slips, and both axles' curves (physics.tyre.put_combined) in lanes 2 j to
    2 j + 3 of ``lanes``; returns a :class:`GripCurves`."""
    lf, lr, mass = p.lf, p.body_lr, p.body_mass
    radius = p.body_wheel_radius
    floor = p.model_slip_speed
    sin_d, cos_d = approx.sincos(c.steer)
    tan_d = sin_d / cos_d
    load_f, load_r = body.axle_loads(mass, p.model_gravity, lr, p.body_wheelbase, p.body_cg_height, s.accel)
    # The road under each axle's centre (physics.surface): its friction and rolling coefficients.
    sin_h0, cos_h0 = approx.sincos(s.heading)
    mu_f, rolling_f = surface.under_rows(ground, start, end, s.x + lf * cos_h0, s.y + lf * sin_h0, p.tyres_mu,
                                         p.aero_rolling_coefficient)
    mu_r, rolling_r = surface.under_rows(ground, start, end, s.x - lr * cos_h0, s.y - lr * sin_h0, p.tyres_mu,
                                         p.aero_rolling_coefficient)

    # Contact-patch velocities along (u) and across (w) each wheel, the slips and the tyre forces.
    front_lat = s.vy + lf * s.yaw_rate
    uf = s.vx * cos_d + front_lat * sin_d
    wf = front_lat * cos_d - s.vx * sin_d
    ur, wr = s.vx, s.vy - lr * s.yaw_rate
    df, dr = wheel.slip_speed(uf, floor), wheel.slip_speed(ur, floor)
    alpha_f, alpha_r = wheel.slip_angle(uf, wf, floor), wheel.slip_angle(ur, wr, floor)
    kappa_f = wheel.slip_ratio(s.wheel_front, radius, uf, floor)
    kappa_r = wheel.slip_ratio(s.wheel_rear, radius, ur, floor)
    # physics.tyre.combined for both axles, its four magic-formula curves at once in SIMD lanes (the same bits).
    k_f, a_f, rho_f, dx_f, dy_f = tyre.combined_slips(kappa_f, alpha_f, load_f, mu_f, p.tyres_lateral_share,
                                                      p.peak_long, p.peak_front)
    k_r, a_r, rho_r, dx_r, dy_r = tyre.combined_slips(kappa_r, alpha_r, load_r, mu_r, p.tyres_lateral_share,
                                                      p.peak_long, p.peak_rear)
    tyre.put_combined(lanes, j, rho_f, dx_f, dy_f, p.tyres_b_long, p.tyres_c_long, p.tyres_e_long, p.peak_long,
                      p.tyres_b_front, p.tyres_c, p.tyres_e, p.peak_front)
    tyre.put_combined(lanes, j + 1, rho_r, dx_r, dy_r, p.tyres_b_long, p.tyres_c_long, p.tyres_e_long, p.peak_long,
                      p.tyres_b_rear, p.tyres_c, p.tyres_e, p.peak_rear)
    return GripCurves(sin_d, cos_d, tan_d, load_f, load_r, mu_f, rolling_f, mu_r, rolling_r, uf, wf, ur, wr, df, dr,
                      alpha_f, alpha_r, kappa_f, kappa_r, k_f, a_f, rho_f, dx_f, dy_f, k_r, a_r, rho_r, dx_r, dy_r)


@scalar(inline=True)
def grip_finish(p, s, u, c, new, out, dt, t, lanes, j, g):
    """:func:`grip_frame` after its tyres' curves: ``g`` is :func:`grip_curves`' answer, the curves' forces in lanes
    2 j to 2 j + 3 of ``lanes`` (physics.tyre.magic_lanes)."""
    lf, lr, mass = p.lf, p.body_lr, p.body_mass
    radius = p.body_wheel_radius
    floor = p.model_slip_speed
    sin_d, cos_d, tan_d, load_f, load_r, mu_f, rolling_f, mu_r, rolling_r = (g.sin_d, g.cos_d, g.tan_d, g.load_f,
                                                                            g.load_r, g.mu_f, g.rolling_f, g.mu_r,
                                                                            g.rolling_r)
    uf, wf, ur, wr, df, dr = g.uf, g.wf, g.ur, g.wr, g.df, g.dr
    alpha_f, alpha_r, kappa_f, kappa_r = g.alpha_f, g.alpha_r, g.kappa_f, g.kappa_r
    k_f, a_f, rho_f, dx_f, dy_f = g.k_f, g.a_f, g.rho_f, g.dx_f, g.dy_f
    k_r, a_r, rho_r, dx_r, dy_r = g.k_r, g.a_r, g.rho_r, g.dx_r, g.dy_r
    fxf, fyf, sxf, syf, secf, grip_f = tyre.lane_forces(lanes, j, k_f, a_f, rho_f, dx_f, dy_f, p.tyres_b_long,
                                                        p.tyres_c_long, p.tyres_b_front, p.tyres_c, p.peak_long,
                                                        p.peak_front)
    fxr, fyr, sxr, syr, secr, grip_r = tyre.lane_forces(lanes, j + 1, k_r, a_r, rho_r, dx_r, dy_r, p.tyres_b_long,
                                                        p.tyres_c_long, p.tyres_b_rear, p.tyres_c, p.peak_long,
                                                        p.peak_rear)
    kyf, kyr = syf * df / (df * df + wf * wf), syr * dr / (dr * dr + wr * wr)  # [N per L/s] sideways

    # Drive and brake torques. The brake pedal's torque is split front/rear; the handbrake locks the rear.
    driven_slip = max(kappa_f, kappa_r) if p.all_driven else kappa_r
    d, engine_torque, capacity, direct_torque, tcs, closed = grip_drive(p, s, c, u.start, driven_slip, s.wheel_rear,
                                                                       dt, 0.0)
    full_brake = d.brake_share * p.brakes_force * radius
    brake_f = p.brakes_front_share * full_brake
    brake_r = full_brake - brake_f
    if c.handbrake:
        brake_r = brake_r + p.brakes_force * radius
    drive_f = 0.5 * direct_torque if p.all_driven else 0.0
    drive_r = direct_torque - drive_f
    # The tyres' longitudinal slopes [N per L/s of the rim's speed against the road].
    kxf = wheel.slip_slope(sxf, secf, kappa_f, drive_f - radius * fxf - brake_f * brakes.sign(s.wheel_front)) / df
    ratio = d.ratio
    if p.manual:  # what the clutch can pass of the engine's torque, for the direction of the slip only
        drive_r = ratio * min(max(engine_torque, -capacity), capacity)
    kxr = wheel.slip_slope(sxr, secr, kappa_r, drive_r - radius * fxr - brake_r * brakes.sign(s.wheel_rear)) / dr
    inertia_r = p.body_wheel_inertia_rear
    start_r = s.wheel_rear
    clutch_t, stuck = 0.0, False
    omega_e = s.rpm / engine.RPM_PER_RAD_S
    ahead_r = dt * s.accel  # the road's change under the wheels this frame, from the last one's deceleration
    limit_r = tyre.longitudinal_limit(fyr, load_r, mu_r, p.tyres_lateral_share)
    launch_on = False
    slipping_torque = engine_torque
    if p.manual and launching(p, s, c, d.auto_clutch):
        allowance = aids.launch_allowance(p, s.wheel_rear, ur, ahead_r, radius, floor, brakes.sign(ratio),
                                          inertia_r + dt * radius * radius * kxr, inertia_r, radius * fxr,
                                          radius * limit_r, dt)
        capacity, slipping_torque, launch_on = launch_control(p, s, engine_torque, capacity, allowance, ratio,
                                                              ratio * s.wheel_rear, dt)
    if p.manual:
        clutch_t, stuck = wheel.clutch_torque(omega_e, s.wheel_rear, engine_torque, radius * fxr, ratio, capacity,
                                              p.engine_inertia, inertia_r + dt * radius * radius * kxr, dt)
        launch_on = launch_on and not stuck
        if launch_on:
            engine_torque = slipping_torque
        if stuck:  # engine and wheels turn as one: the engine's inertia and torque act on the wheel
            # They meet at the speed their angular momentum gives (a lock-up loses energy, never makes it).
            start_r = ((inertia_r * s.wheel_rear + ratio * p.engine_inertia * omega_e)
                       / (inertia_r + ratio * ratio * p.engine_inertia))
            inertia_r = inertia_r + ratio * ratio * p.engine_inertia
            drive_r = ratio * engine_torque
            if s.stalled:
                # A stalled engine only rubs: its friction brakes the wheels it is geared to, and
                # like a brake it stops them without turning them back (or holds them at rest); the
                # starter, while the key is held, drives them.
                drive_r = ratio * (engine.starter(s.rpm, p) if u.start else 0.0)
                brake_r = brake_r + abs(ratio) * engine.friction(s.rpm, p)
        else:
            drive_r = ratio * clutch_t

    # The wheels with the body frozen: drive, road and brake; ABS lets off a wheel braked past the peak.
    wf_new, wf_free, jf, held_f = wheel.spin(s.wheel_front, drive_f, fxf, kxf, brake_f, radius,
                                                 p.body_wheel_inertia_front, dt)
    # The tyre's force where the wheel starts from (linear in its slope; a lock-up moves it), within the road's grip.
    # A lock-up that carries the wheel past what the tyre can pass leaves it sliding at the limit, where
    # its force no longer grows with the slip: it turns under the limit alone (physics.wheel.at_limit
    # below lets it grip again within the frame).
    fxr_shared = fxr + kxr * radius * (start_r - s.wheel_rear)
    fxr_start = min(max(fxr_shared, -limit_r), limit_r)
    kxr_w = kxr if fxr_start == fxr_shared else 0.0
    wr_new, wr_free, jr, held_r = wheel.spin(start_r, drive_r, fxr_start, kxr_w, brake_r, radius, inertia_r, dt)
    target_f, target_r = aids.abs_targets(p, alpha_f, alpha_r, s.vx * s.yaw_rate)
    ahead_f = ahead_r * cos_d
    abs_on = p.brakes_abs > 0 and d.brake_share > 0.0 and abs(s.vx) > p.brakes_abs_min_speed
    if abs_on:
        abs_f = wheel.anti_lock(wf_new, wf_free, uf, ahead_f, radius, floor, target_f)
        held_f = held_f or abs_f != wf_new
        wf_new = abs_f
        if not c.handbrake:
            abs_r = wheel.anti_lock(wr_new, wr_free, ur, ahead_r, radius, floor, target_r)
            held_r = held_r or abs_r != wr_new
            wr_new = abs_r
    # Traction control: with the clutch locked the engine gives up what keeps the driven wheel at its slip
    # target; a wheel that spins on past tcs_brake_slip (a slipping clutch passes its capacity whatever the
    # engine's torque) is braked too, up to the brake's full torque on that axle.
    # Neither takes the engine below what its idle control holds: traction control never stalls it.
    tcs_on = tcs > 0.0 or launch_on
    above_idle = not p.manual or s.rpm > p.engine_idle_rpm + p.engine_limiter_band
    if stuck and not s.stalled and above_idle:
        direction = brakes.sign(ratio)
        gross = abs(ratio) * (engine_torque - closed)
        take = aids.tcs_torque(p, wr_new, ur, ahead_r, radius, floor, direction, jr, max(gross, 0.0), dt)
        if take > 0.0:
            wr_new = wr_new - direction * take * dt / jr
            wr_free = wr_free - direction * take * dt / jr
            engine_torque = engine_torque - take / abs(ratio)
            drive_r = drive_r - direction * take
            tcs_on = True
    spin_target = (p.aids_tcs_brake_slip * (brakes.sign(ratio) if p.manual else 1.0)
                   * (1.0 if p.aids_tcs > 0 and above_idle else 0.0))
    # Traction control brakes with what the axle's service brake has left beside the pedal's part of it.
    spin_left_r = max((1.0 - p.brakes_front_share) * p.brakes_force * radius - (full_brake - brake_f), 0.0)
    spin_most_r = dt * spin_left_r / jr
    tcs_r = wheel.anti_spin(wr_new, ur, ahead_r, radius, floor, spin_target, spin_most_r)
    tcs_on = tcs_on or tcs_r != wr_new
    held_r = held_r or tcs_r != wr_new
    rear_braked = brake_r > 0.0 or held_r  # a brake acted on the rear wheel this frame (the pedal's, ABS, TCS)
    wr_new = tcs_r
    if p.all_driven:
        tcs_f = wheel.anti_spin(wf_new, uf, ahead_f, radius, floor, spin_target,
                                dt * max(p.brakes_front_share * p.brakes_force * radius - brake_f, 0.0) / jf)
        tcs_on = tcs_on or tcs_f != wf_new
        held_f = held_f or tcs_f != wf_new
        wf_new = tcs_f

    # The body's velocity and yaw rate in one linearly implicit step with every tyre's slope
    # (physics.body.planar_step): a held wheel adds its tyre's whole longitudinal slope, a free one its
    # slope in series with its inertia (I / I_eff of it); the frame's turn enters as a force would.
    rolling_coefficient = (rolling_f * load_f + rolling_r * load_r) / p.weight
    drag_x, drag_y, rolling = aero.resistances(s.vx, s.vy, p, mass, dt, rolling_coefficient)
    vx_turned, vy_turned = body.frame_turn(s.vx, s.vy, s.yaw_rate * dt)
    inertia = p.body_yaw_inertia
    # The tyres' longitudinal forces at the wheels' new speeds, body still frozen (linear in the slope).
    fxf_0 = fxf + kxf * radius * (wf_new - s.wheel_front)
    fxr_0 = fxr_start + kxr_w * radius * (wr_new - start_r)  # the line the wheel's own update used
    kxf_s = kxf * (1.0 if held_f else p.body_wheel_inertia_front / jf)
    kxr_s = kxr_w * (1.0 if held_r else inertia_r / jr)
    front_y = fxf_0 * sin_d + fyf * cos_d
    dvx, dvy, dr = body.planar_step(mass, inertia,
                                    fxf_0 * cos_d - fyf * sin_d + fxr_0 + drag_x + rolling
                                    + mass * (vx_turned - s.vx) / dt,
                                    front_y + fyr + drag_y + mass * (vy_turned - s.vy) / dt, lf * front_y - lr * fyr,
                                    kxf_s, kxr_s, kyf, kyr, cos_d, sin_d, lf, lr, dt)
    du_f = cos_d * dvx + sin_d * (dvy + lf * dr)  # the road's speed under the front wheel, along it
    # The lateral forces the step applied: each tyre's along its slope to where the step left its sideways speed
    # (the telemetry's; with the longitudinal ones they sum to m a_y, where the curves' own, at the frame's start,
    # missed the step's change of the slips). Within the grip below.
    fyf_applied = fyf - kyf * (cos_d * (dvy + lf * dr) - sin_d * dvx)
    fyr_applied = fyr - kyr * (dvy - lr * dr)
    fxf_lin = fxf_0 - kxf_s * du_f
    fxr_lin = fxr_0 - kxr_s * dvx
    limit_f = tyre.longitudinal_limit(fyf, load_f, mu_f, p.tyres_lateral_share)
    fxf = min(max(fxf_lin, -limit_f), limit_f)
    fxr = min(max(fxr_lin, -limit_r), limit_r)
    # Where the linearised force passed the road's limit the car gets the limit, not the extrapolation,
    # and the wheel turns under that same force (physics.wheel.at_limit); elsewhere a free wheel follows
    # the road the body's update moved under it, through its tyre's slope. A front force acts along
    # the front wheel: on vx, vy and the yaw rate (its mobility along the wheel is 1/m + (lf sin d)^2 / Iz).
    lever = lf * sin_d
    front_mobility = 1.0 / mass + lever * lever / inertia
    extra_f = dt * (fxf - fxf_lin)
    vx = s.vx + dvx + (extra_f * cos_d + dt * (fxr - fxr_lin)) / mass
    vy = s.vy + dvy + extra_f * sin_d / mass
    yaw_rate = s.yaw_rate + dr + extra_f * lf * sin_d / inertia
    if fxr != fxr_lin or kxr_w != kxr:
        v_without = vx - dt * fxr / mass
        wr_new, wr_free, held_r, fxr = wheel.at_limit(start_r, drive_r, fxr, brake_r, radius, inertia_r, ur,
                                                     v_without, mass, dt)
        vx = v_without + dt * fxr / mass
        at_grip_r = wr_new
        if abs_on and not c.handbrake:
            wr_new = wheel.anti_lock(wr_new, wr_free, ur, ahead_r, radius, floor, target_r)
        # At the grip the wheel turns with the engine's share on it (inertia_r), where spin_most_r is sized for
        # the wheel and its tyre's slope: no further than what the brake has left moves that.
        wr_new = wheel.anti_spin(wr_new, ur, ahead_r, radius, floor, spin_target,
                                 min(spin_most_r, dt * spin_left_r / inertia_r))
        rear_braked = rear_braked or held_r or wr_new != at_grip_r
    elif not held_r:
        wr_new = wheel.follow(wr_new, dt * radius * kxr_w * dvx / jr, brake_r > 0.0)
    if fxf != fxf_lin:
        before = fxf
        u_end = uf + du_f + extra_f * front_mobility
        wf_new, wf_free, held_f, fxf = wheel.at_limit(s.wheel_front, drive_f, fxf, brake_f, radius,
                                                     p.body_wheel_inertia_front, uf,
                                                     u_end - dt * fxf * front_mobility, 1.0 / front_mobility, dt)
        change = dt * (fxf - before)
        vx = vx + change * cos_d / mass
        vy = vy + change * sin_d / mass
        yaw_rate = yaw_rate + change * lf * sin_d / inertia
        if abs_on:
            wf_new = wheel.anti_lock(wf_new, wf_free, uf, ahead_f, radius, floor, target_f)
    elif not held_f:
        wf_new = wheel.follow(wf_new, dt * radius * kxf * du_f / jf, brake_f > 0.0)
    # A lateral force the linearised step carried past what the tyre's ellipse leaves beside its longitudinal one
    # gets that limit, and the body gives back the difference along the tyre's sideways direction (as the
    # longitudinal forces at their limit above): at the grip the slope no longer holds, and the step had given the
    # car up to 5% more than the tyre can (single frames found by `carbench hunt`'s grip monitor).
    over_f = excess(fyf_applied, tyre.lateral_limit(fxf, load_f, mu_f, p.tyres_lateral_share))
    over_r = excess(fyr_applied, tyre.lateral_limit(fxr, load_r, mu_r, p.tyres_lateral_share))
    if over_f != 0.0 or over_r != 0.0:
        fyf_applied, fyr_applied = fyf_applied + over_f, fyr_applied + over_r
        back_x, back_y, back_r = body.sideways_give_back(over_f, over_r, cos_d, sin_d, lf, lr, mass, inertia, dt)
        vx, vy, yaw_rate = vx + back_x, vy + back_y, yaw_rate + back_r
    accel = (vx - vx_turned) / dt

    # The engine: one with the wheels through a stuck clutch, else its own torque less the clutch's.
    rpm = s.rpm
    stalled = s.stalled
    if p.manual:
        if stuck:
            omega_e = ratio * wr_new
        else:
            omega_e = engine.turned_speed(omega_e, engine_torque, clutch_t, p, dt)
            # A slipping clutch turns the wheel towards the engine's speed, never past it: where the frame carried the
            # wheel beyond (a light wheel whose tyre let go), the clutch caught within it and the two meet, if it can
            # hold the wheel against its brake: one braked harder than the clutch passes is left to the brake (the
            # handbrake holds the rear wheel locked against a slipping clutch).
            braking_r = max(brake_r, jr * abs(wr_free - wr_new) / dt) if rear_braked else 0.0
            if clutch_t * (omega_e - ratio * wr_new) < 0.0 and braking_r <= abs(ratio * clutch_t):
                wr_new = wheel.meet(omega_e, wr_new, ratio, p.engine_inertia, inertia_r)
                omega_e = ratio * wr_new
        rpm = max(omega_e, 0.0) * engine.RPM_PER_RAD_S
        stalled = engine.next_stalled(rpm, s.rpm, stalled, u.start, p)

    drive_force = (drive_r + drive_f) / radius
    speed = approx.hypot(vx, vy)
    accel_y = (vy - vy_turned) / dt  # as accel, before the stop rule: the change the forces made (telemetry.accel_lat)
    # The stop rule ends a crawl; only where the tyres could have stopped the car within the frame.
    if ((standstill.stop_mask(speed, accel, drive_force, p.model_stop_speed, p.weight)
         and speed <= 0.25 * p.tyres_mu * p.model_gravity * dt)
            or standstill.braked_to_rest(s.vx, vx, speed, (brake_f + brake_r) / radius, drive_force, mass, dt,
                                         mu_f * load_f + mu_r * load_r)):
        vx, vy, yaw_rate = vx * 0.0, vy * 0.0, yaw_rate * 0.0
        wf_new = 0.0
        wr_new = 0.0 if not stuck else wr_new
    # The heading turns by the angle the velocity was carried through (frame_turn): the velocity in
    # the world then changes only by the forces.
    heading = s.heading + dt * s.yaw_rate
    sin_h, cos_h = approx.sincos(heading)

    d = Drivetrain(drive_force, d.brake_share, d.gear, d.ratio, d.engagement, d.throttle, engine_torque,
                   drive_r + drive_f, 0.0, d.auto_clutch)
    frame_telemetry(p, s, c, d, out, t, tan_d / p.body_wheelbase)
    spinning = kappa_r > p.peak_long and fxr > 0.0
    out.drive_force = drive_force
    out.drag_force = drag_x
    out.rolling_force = rolling
    # A held wheel took only the brake torque that stopped it (or that ABS let through); a turning one all of it.
    brake_force_f = abs(jf * (wf_free - wf_new)) / (dt * radius) if held_f else brake_f / radius
    brake_force_r = abs(jr * (wr_free - wr_new)) / (dt * radius) if held_r else brake_r / radius
    out.brake_force = -brakes.sign(s.vx) * (brake_force_f + brake_force_r)
    out.accel_long = accel
    out.accel_lat = accel_y
    out.wheelspin = 1.0 if spinning else 0.0
    out.slip_front = alpha_f
    out.slip_rear = alpha_r
    out.fy_front = fyf_applied
    out.fy_rear = fyr_applied
    out.load_front = load_f
    out.load_rear = load_r
    out.kinematic_weight = max(1.0 - abs(ur) / floor, 0.0)
    out.wheel_front = s.wheel_front
    out.wheel_rear = s.wheel_rear
    out.slip_ratio_front = kappa_f
    out.slip_ratio_rear = kappa_r
    out.fx_front = fxf
    out.fx_rear = fxr
    out.grip_front = grip_f
    out.grip_rear = grip_r
    out.brake_front = brake_force_f
    out.brake_rear = brake_force_r
    out.stalled = 1.0 if s.stalled else 0.0
    out.tcs_active = 1.0 if tcs_on else 0.0
    out.mu_front = mu_f
    out.mu_rear = mu_r

    new.x = s.x + dt * (vx * cos_h - vy * sin_h)
    new.y = s.y + dt * (vx * sin_h + vy * cos_h)
    new.heading = heading
    new.vx = vx
    new.vy = vy
    new.yaw_rate = yaw_rate
    new.rpm = rpm
    new.accel = accel
    new.spinning = spinning
    new.wheel_front = wf_new
    new.wheel_rear = wr_new
    new.stalled = stalled
    new.tcs = tcs
    carry_controls(s, u, c, d, new)


@scalar
def excess(force, limit):
    """What takes ``force`` back within +-``limit`` (0.0 where it is within, and only there)."""
    return min(max(force, -limit), limit) - force


@scalar
def rolling_wheels(p, u_front, u_rear, grip_front, grip_rear, brake, out):
    """The wheel channels of the models without wheel dynamics: rolling wheels, the brake split by front_share."""
    out.wheel_front = u_front / p.body_wheel_radius
    out.wheel_rear = u_rear / p.body_wheel_radius
    out.slip_ratio_front = 0.0
    out.slip_ratio_rear = 0.0
    out.fx_front = 0.0
    out.fx_rear = out.drive_force
    out.grip_front = min(grip_front, 1.0)
    out.grip_rear = min(grip_rear, 1.0)
    out.brake_front = p.brakes_front_share * brake
    out.brake_rear = brake - out.brake_front
    out.stalled = 0.0
    out.tcs_active = 0.0
    out.mu_front = p.tyres_mu
    out.mu_rear = p.tyres_mu


@scalar
def single_track(out, new):
    """What a single-track car has none of: the four-wheel car's corners, roll and stability control."""
    corners.zero_corners(out)
    corners.zero_corner_state(new)
    out.roll = 0.0
    out.esc_active = 0.0
    new.roll = 0.0
    new.roll_rate = 0.0
    new.accel_y = 0.0
    new.yaw_target = 0.0


@scalar
def carry_controls(s, u, c, d, new):
    """The controls and key memory the next frame starts from, and the direction of travel."""
    new.backwards = body.travels_backwards(new.vx, new.vy, s.vx, s.vy, s.backwards)
    new.steer = c.steer
    new.throttle = c.throttle
    new.brake = c.brake
    new.clutch_pedal = c.clutch_pedal
    new.gear = c.gear
    new.auto_clutch = d.auto_clutch
    new.up_held = u.gear_up
    new.down_held = u.gear_down
    new.up_pending = c.up_pending
    new.down_pending = c.down_pending


@scalar
def frame_telemetry(p, s, c, d, out, t, curvature):
    """The channels both models share: the state at the frame's start, the controls and the drivetrain
    (those that nothing else needs are :func:`detail_channels`')."""
    out.t = t
    out.x = s.x
    out.y = s.y
    out.heading = s.heading
    out.vx = s.vx
    out.vy = s.vy
    out.yaw_rate = s.yaw_rate
    out.steer = c.steer
    out.curvature = curvature
    out.throttle = c.throttle
    out.throttle_applied = d.throttle
    out.brake = c.brake
    out.clutch_pedal = c.clutch_pedal
    out.clutch = d.engagement
    out.handbrake = 1.0 if c.handbrake else 0.0
    out.gear = d.gear
    out.rpm = s.rpm
    out.engine_torque = d.engine_torque
    out.axle_torque = d.axle_torque


DETAIL_PARTS = (("speed", "speed_kmh"), ("beta",), ("wheel_left", "wheel_right"))
"""The channels :func:`detail_channels` writes, in its three parts: part j runs when bit j of its ``parts`` is set."""
DETAIL = tuple(name for part in DETAIL_PARTS for name in part)
"""The channels :func:`detail_channels` writes: no other channel and no state needs them."""


@scalar(inline=True)
def detail_channels(p, s, out, parts):
    """Speed, body slip angle and the single-track cars' Ackermann wheel angles, from the state ``s`` at the
    frame's start and the frame's curvature (``out.curvature``, written by the frame).

    Nothing else is computed from them, so the kernel computes each part of :data:`DETAIL_PARTS` only when a run
    asks for one of its channels (``parts``, a bit each: physics.kernel.asks_detail): a sweep of the speed does not
    pay for the wheel angles. The kinematic model's slip angle is its own (kinematic_frame writes it); the
    four-wheel car's wheel angles are those it steers with (four_wheel_frame writes them).
    """
    if parts & 1:
        speed = (-1.0 if s.backwards else 1.0) * approx.hypot(s.vx, s.vy)
        out.speed = speed
        out.speed_kmh = speed * _KMH
    if parts & 2 and not p.kinematic:
        out.beta = approx.atan2(s.vy, abs(s.vx))
    if parts & 4 and not p.four_wheel:
        left, right = steering.ackermann(out.curvature * p.body_wheelbase, p.body_wheelbase, p.body_track)
        out.wheel_left = left
        out.wheel_right = right
