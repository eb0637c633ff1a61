"""One fixed-timestep step of a batch of cars: the subsystems composed, kinematic or dynamic.

The step is deterministic: the same car, state, inputs and dt give bit-identical results. Most of
it is explicit Euler; the stiff parts (tyre slip against lateral speed, yaw rate and the front
tyre's pull along the car) are taken linearly implicitly, and the car frame's turn is an exact
rotation. It returns the next state and the frame's telemetry (the state at the frame's start and
the forces that acted during it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import aero, blend, body, brakes, clutch, drive, engine, gearbox, kinematic, pedals, standstill, steering, tyre
from .car import Car
from .inputs import Inputs
from .state import State
from .telemetry import Telemetry

_EPS2 = 1e-6  # [(L/s)^2] keeps slip-angle slopes finite at a standstill
_KMH = 3.6


@dataclass(slots=True)
class Controls:
    """The driver's controls after this frame's inputs: pedals, wheel angle, gear."""

    throttle: np.ndarray
    brake: np.ndarray
    clutch_pedal: np.ndarray
    steer: np.ndarray
    handbrake: np.ndarray
    gear: np.ndarray
    up_pending: np.ndarray
    down_pending: np.ndarray


@dataclass(slots=True)
class Drivetrain:
    """What the drivetrain does this frame, before the road's grip limit."""

    demand: np.ndarray  # [N] drive force the wheels ask of the road
    brake_share: np.ndarray  # share of the brake pedal that brakes
    gear: np.ndarray  # gear as reported (direct drive: -1 while reversing)
    ratio: np.ndarray  # overall ratio engine -> wheel (0 in neutral or without a gearbox)
    engagement: np.ndarray
    throttle: np.ndarray  # after the rev limiter
    engine_torque: np.ndarray
    axle_torque: np.ndarray
    imposed_rpm: np.ndarray  # engine speed the wheels, gear and final drive would impose
    auto_clutch: np.ndarray  # the automatic clutch's engagement this frame


def controls(car: Car, s: State, u: Inputs, dt: float) -> Controls:
    """Pedals, steering and gear after this frame's keys and overrides."""
    p = car.params
    pp = p.pedals
    throttle = pedals.pedal(s.throttle, u.throttle, u.throttle_on, u.throttle_value, pp.throttle_rise,
                            pp.throttle_fall, dt)
    brake = pedals.pedal(s.brake, u.brake, u.brake_on, u.brake_value, pp.brake_rise, pp.brake_fall, dt)
    clutch_pedal = pedals.pedal(s.clutch_pedal, u.clutch, u.clutch_on, u.clutch_value, pp.clutch_rise,
                                pp.clutch_fall, dt)
    goal = steering.target(u.left, u.right, u.steer_on, u.steer_value, p.steering.lock)
    steer = steering.follow(s.steer, goal, p.steering.rate, dt)
    gear, up_pending, down_pending = s.gear, s.up_pending, s.down_pending
    if car.manual and ((u.gear_up | u.gear_down).any() or (s.up_pending | s.down_pending).any()):
        gear, up_pending, down_pending = gearbox.shift(
            s.gear, u.gear_up, u.gear_down, s.up_held, s.down_held, s.up_pending, s.down_pending,
            clutch_pedal, p.gearbox.shift_clutch, car.top_gear)
    if car.manual and u.gear_on.any():
        gear = np.where(u.gear_on, np.minimum(np.maximum(u.gear_value, gearbox.REVERSE), car.top_gear), gear)
    return Controls(throttle, brake, clutch_pedal, steer, u.handbrake, gear, up_pending, down_pending)


def drivetrain(car: Car, s: State, c: Controls, wheel_speed, dt: float) -> Drivetrain:
    """003's engine -> clutch -> gearbox chain, or 002's direct drive force."""
    p = car.params
    if not car.manual:
        demand, brake_share, reversing = drive.direct(c.throttle, c.brake, wheel_speed, p.drive)
        zeros = np.zeros(car.n)
        gear = np.where(reversing, -1.0, 1.0)
        return Drivetrain(demand, brake_share, gear, zeros, np.ones(car.n), c.throttle, zeros,
                          demand * p.body.wheel_radius, zeros, zeros)
    e = p.engine
    ratio = car.ratios[car.rows, c.gear + 1] * p.gearbox.final_drive
    in_gear = ratio != 0.0
    auto = clutch.automatic(s.auto_clutch, s.rpm, p.clutch, e.idle_rpm, dt)
    engagement = clutch.engagement(c.clutch_pedal, auto, wheel_speed, p.clutch)
    throttle = engine.limited_throttle(c.throttle, s.rpm, e)
    turning = wheel_speed / p.body.wheel_radius * ratio  # [rad/s] the engine speed the wheels impose
    torque = engine.net_torque(throttle, s.rpm, e, turning < 0.0)
    axle = clutch.transmitted(torque, engagement, p.clutch.capacity) * ratio * in_gear
    imposed = np.maximum(turning, 0.0) * engine.RPM_PER_RAD_S
    return Drivetrain(axle / p.body.wheel_radius, c.brake, c.gear.astype(float), ratio, engagement, throttle,
                      torque, axle, imposed, auto)


def next_rpm(car: Car, s: State, d: Drivetrain, slipping, dt: float):
    """003: engine speed, free revving blended with what wheels, gear and final drive impose.

    While the driven wheels spin (or the handbrake locks them) the clutch counts as open in this
    blend, so the engine flares.
    """
    if not car.manual:
        return s.rpm
    p = car.params
    coupled = d.engagement * (d.ratio != 0.0) * ~slipping
    coupling = clutch.rpm_coupling(coupled, dt, p.clutch.sync_time)
    return engine.coupled_rpm(engine.free_rpm(s.rpm, d.throttle, p.engine, dt), d.imposed_rpm, coupling)


def step(car: Car, s: State, u: Inputs, dt: float, t: float = 0.0) -> tuple[State, Telemetry]:
    """Advance every car of the batch by dt; returns the next state and this frame's telemetry."""
    c = controls(car, s, u, dt)
    if car.kinematic:
        return _kinematic(car, s, u, c, dt, t)
    return _dynamic(car, s, u, c, dt, t)


def _kinematic(car: Car, s: State, u: Inputs, c: Controls, dt: float, t: float):
    """001: the bicycle about the rear axle or the centre of mass; 002's forces along the path."""
    p = car.params
    b = p.body
    hb_swap = c.handbrake & (p.steering.handbrake_wheelbase > 0.0)
    wheelbase = np.where(hb_swap, p.steering.handbrake_wheelbase, b.wheelbase)
    tan_d = np.tan(c.steer)
    beta = kinematic.slip_angle(tan_d, b.lr * wheelbase / b.wheelbase, wheelbase) * car.reference_com
    speed = np.sign(s.vx) * np.hypot(s.vx, s.vy)
    d = drivetrain(car, s, c, s.vx, dt)
    drag, _, rolling = aero.resistances(speed, 0.0, car.c_drag, p.aero.rolling, b.mass, dt)
    other = d.demand + drag + rolling
    brake = brakes.hold(speed, other, d.brake_share * p.brakes.force, b.mass, dt)
    brake = brake + brakes.cap_speed(speed, other + brake, p.brakes.handbrake_speed * c.handbrake, b.mass, dt)
    accel = (other + brake) / b.mass
    new_speed = speed + dt * accel
    stopped = standstill.stop_mask(new_speed, accel, d.demand, p.model.stop_speed, car.weight)
    new_speed = np.where(stopped, 0.0, new_speed)
    yaw_rate = kinematic.yaw_rate(new_speed, tan_d, wheelbase, beta)
    heading = s.heading + dt * yaw_rate
    cos_b, sin_b = np.cos(beta), np.sin(beta)
    new = State(
        x=s.x + dt * new_speed * np.cos(heading + beta), y=s.y + dt * new_speed * np.sin(heading + beta),
        heading=heading, vx=new_speed * cos_b, vy=new_speed * sin_b, yaw_rate=yaw_rate,
        steer=c.steer, throttle=c.throttle, brake=c.brake, clutch_pedal=c.clutch_pedal, gear=c.gear,
        rpm=next_rpm(car, s, d, np.zeros(car.n, dtype=bool), dt), auto_clutch=d.auto_clutch, accel=accel,
        spinning=np.zeros(car.n, dtype=bool),
        up_held=u.gear_up, down_held=u.gear_down, up_pending=c.up_pending, down_pending=c.down_pending,
    )
    zeros = np.zeros(car.n)
    front, rear = body.axle_loads(b.mass, p.model.gravity, b.lr, b.wheelbase, zeros, zeros)
    lat = (new.vy - s.vy) / dt + new.vx * yaw_rate
    return new, _telemetry(car, s, c, d, t, tan_d / wheelbase, d.demand, drag, rolling, brake, accel, lat,
                           zeros, zeros, zeros, zeros, zeros, front, rear, np.ones(car.n), beta + zeros)


def _dynamic(car: Car, s: State, u: Inputs, c: Controls, dt: float, t: float):
    """002/003: tyre forces on a single-track body, blended into the kinematic bicycle at low speed."""
    p = car.params
    b, ty = p.body, p.tyres
    lf, lr, mass = car.lf, b.lr, b.mass
    sin_d, cos_d = np.sin(c.steer), np.cos(c.steer)
    tan_d = sin_d / cos_d
    w = blend.kinematic_weight(np.hypot(s.vx, s.vy), p.model.blend_low, p.model.blend_high)
    k = blend.tyre_force_weight(w)
    load_f, load_r = body.axle_loads(mass, p.model.gravity, lr, b.wheelbase, b.cg_height, s.accel)

    # Contact-patch velocities along (u) and across (w) each wheel; slip angles; Pacejka forces.
    front_lat = s.vy + lf * s.yaw_rate
    uf = s.vx * cos_d + front_lat * sin_d
    wf = front_lat * cos_d - s.vx * sin_d
    ur, wr = s.vx, s.vy - lr * s.yaw_rate
    # Both axles in one evaluation: [front cars..., rear cars...].
    n = car.n
    alpha = tyre.slip(np.concatenate([uf, ur]), np.concatenate([wf, wr]))
    fy, slope = tyre.pacejka(alpha, np.concatenate([load_f, load_r]), car.tyre_b, car.tyre_c, car.tyre_e, car.tyre_mu)
    alpha_f, alpha_r, fy_f, fy_r = alpha[:n], alpha[n:], fy[:n], fy[n:]
    rear_v2 = ur * ur + wr * wr + _EPS2
    kf = slope[:n] * np.abs(uf) / (uf * uf + wf * wf + _EPS2)
    kr = slope[n:] * np.abs(ur) / rear_v2
    locked = c.handbrake
    any_locked = locked.any()
    if any_locked:
        # The handbrake locks the rear wheels: they slide, grip falling to a fraction of the peak.
        sliding = ty.slide_fraction * ty.mu * load_r
        rear_v = np.sqrt(rear_v2)
        fy_r = np.where(locked, -sliding * wr / rear_v, fy_r)
        kr = np.where(locked, sliding * (ur * ur + _EPS2) / (rear_v2 * rear_v), kr)
        hand_capacity = locked * sliding * (np.abs(ur) + 1e-9) / (rear_v + 1e-9)
    else:
        hand_capacity = 0.0

    d = drivetrain(car, s, c, s.vx, dt)
    limit = ty.traction_mu * (car.weight if car.all_driven else load_r)
    if car.manual:
        # Spinning wheels flare the engine; they spin on while it is faster than the road and the
        # axle still drives them (the clutch pressed or the throttle lifted, they grip again).
        still = (s.rpm > d.imposed_rpm) & (d.demand * d.ratio > 0.0)
    else:
        # Without an engine model: until the demand falls below what sliding rubber passes.
        still = np.abs(d.demand) > ty.spin_fraction * limit
    force, spinning = drive.traction(d.demand, limit, s.spinning, still, ty.spin_fraction)
    if any_locked:  # locked rear wheels pass no drive and do not spin
        spinning = spinning & ~locked
        force = force * ~locked
    drag_x, drag_y, rolling = aero.resistances(s.vx, s.vy, car.c_drag, p.aero.rolling, mass, dt)
    dyn = 1.0 - w
    # The car frame turns by yaw_rate * dt under the velocity: rotated exactly, so a spinning car
    # gains no energy from the step (explicit m vy r terms would, at high yaw rates).
    vx_turned, vy_turned = body.frame_turn(s.vx, s.vy, s.yaw_rate * dt)
    coupling = mass * dyn * (vx_turned - s.vx) / dt
    other = force + drag_x + rolling - k * fy_f * sin_d + coupling
    brake = brakes.hold(s.vx, other, d.brake_share * p.brakes.force + hand_capacity, mass, dt)
    # The front tyre's pull along the car (its lateral force times sin(steer)) stiffens with the
    # lock; taken implicitly it adds dt times its slope to the mass, so it damps instead of ringing.
    vx = s.vx + dt * (other + brake) / (mass + dt * k * kf * sin_d * sin_d)
    accel = (other - coupling + brake) / mass

    vy_dyn, r_dyn = body.lateral_step(vy_turned, s.yaw_rate, fy_f * cos_d + fy_r + drag_y,
                                      lf * fy_f * cos_d - lr * fy_r, kf, kr, cos_d, lf, lr, mass, b.yaw_inertia, dt)
    vy_kin, r_kin = blend.kinematic_motion(vx, tan_d, lr, b.wheelbase)
    vy = w * vy_kin + dyn * vy_dyn
    yaw_rate = w * r_kin + dyn * r_dyn
    moving = ~standstill.stop_mask(np.hypot(vx, vy), accel, force, p.model.stop_speed, car.weight)
    vx, vy, yaw_rate = vx * moving, vy * moving, yaw_rate * moving

    heading = s.heading + dt * yaw_rate
    cos_h, sin_h = np.cos(heading), np.sin(heading)
    new = State(
        x=s.x + dt * (vx * cos_h - vy * sin_h), y=s.y + dt * (vx * sin_h + vy * cos_h),
        heading=heading, vx=vx, vy=vy, yaw_rate=yaw_rate,
        steer=c.steer, throttle=c.throttle, brake=c.brake, clutch_pedal=c.clutch_pedal, gear=c.gear,
        rpm=next_rpm(car, s, d, spinning | locked, dt), auto_clutch=d.auto_clutch, accel=accel, spinning=spinning,
        up_held=u.gear_up, down_held=u.gear_down, up_pending=c.up_pending, down_pending=c.down_pending,
    )
    lat = (vy - s.vy) / dt + vx * yaw_rate
    beta = np.arctan2(s.vy, np.abs(s.vx))
    return new, _telemetry(car, s, c, d, t, tan_d / b.wheelbase, force, drag_x, rolling, brake, accel, lat,
                           spinning, alpha_f, alpha_r, k * fy_f, k * fy_r, load_f, load_r, w, beta)


def _telemetry(car, s, c, d, t, curvature, force, drag, rolling, brake, accel, lat, spinning, alpha_f, alpha_r,
               fy_f, fy_r, load_f, load_r, weight, beta) -> Telemetry:
    p = car.params
    speed = np.sign(s.vx) * np.hypot(s.vx, s.vy)
    left, right = steering.ackermann(curvature * p.body.wheelbase, p.body.wheelbase, p.body.track)
    return Telemetry(
        t=np.full(car.n, t), x=s.x, y=s.y, heading=s.heading, speed=speed, speed_kmh=speed * _KMH,
        vx=s.vx, vy=s.vy, yaw_rate=s.yaw_rate, beta=beta, steer=c.steer,
        wheel_left=left, wheel_right=right, curvature=curvature, throttle=c.throttle, brake=c.brake,
        clutch_pedal=c.clutch_pedal, clutch=d.engagement, handbrake=c.handbrake.astype(float),
        gear=d.gear, rpm=s.rpm, engine_torque=d.engine_torque, axle_torque=d.axle_torque, drive_force=force,
        drag_force=drag, rolling_force=rolling, brake_force=brake, accel_long=accel, accel_lat=lat,
        wheelspin=spinning.astype(float), slip_front=alpha_f, slip_rear=alpha_r, fy_front=fy_f, fy_rear=fy_r,
        load_front=load_f, load_rear=load_r, kinematic_weight=weight,
    )
