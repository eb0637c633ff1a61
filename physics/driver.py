"""The closed-loop driver, compiled into the kernel: it steers along a path and works the pedals.

It acts before the car's frame and only through that frame's inputs: :func:`drive` copies the
frame's inputs and writes the analog overrides (steer, throttle, brake, clutch, gear) of the
controls it drives, so every model kind is driven through the same controls (the steering rate
and lock of physics.steering, the gear rule of physics.gearbox) and no frame function knows of it.
An override the script itself sets on a frame (``[[set]] throttle_pedal = 0``) wins over the
driver; keys are ignored for the controls the driver holds. After the car's frame,
:func:`carry` stores the driver's memory in the new state and its channels in the telemetry.

Lateral: a preview law. With e the car's distance from the path (left positive), e_psi the angle
of its course (heading + body slip) to the path's, and D = max(preview_min, v * preview_time) the
preview distance, the error at the preview point is e_p = e + D sin(e_psi) and the curvature asked
for is kappa = kappa_path(s + v * lead_time) - 4 zeta^2 / D^2 * e_p - (integral of the same gain
times e over integral_time). Linearised on a straight path, e'' = v^2 (kappa - kappa_path), this is
e'' + 2 zeta (2 v / D) e' + (2 v / D)^2 e = 0: a lateral error decays like a second-order system
of natural frequency 2 v / D and damping zeta, at any speed (the lookahead law of Rossetter and
Gerdes, "Lyapunov based performance guarantees for the potential field lane-keeping assistance
system", 2006). The wheel angle is the kinematic atan(L kappa) plus ``yaw_gain`` L times the
curvature the car falls short of (kappa - r / v), which holds an oversteering car's yaw and takes up
most of an understeer at once (the integral the rest); the term fades in above a crawl, and the kinematic
bicycle, which neither understeers nor oversteers, gets none. The steer is held over the frame and a dynamic or
four-wheel car answers it through the frame's implicit step, about a frame later than a car driven continuously
would: for those the errors are taken a frame on (course and path heading turned by r dt and kappa_path v dt, the
preview distance longer by v dt), faded in between once and twice the crawl speed.

Longitudinal: a PI controller on the speed error relative to the target (so the gains suit a car
in metres or in pixels), throttle for a positive demand and ``brake_share`` of it on the brake for
a negative one; or a deceleration held by a PI on the brake with the car's own full-pedal force as
feedforward. On a manual car the demand is a drive force (:func:`reference_force` at 1) and the throttle
is what gives it in the gear engaged (:func:`throttle_for`), so the loop's gain does not change with the
gear, and the brake what the engine's braking with the throttle closed does not give
(:func:`beyond_engine_braking`); its integral stops against a full throttle and beyond ``INTEGRAL_ZONE`` of
the speed. Pedal demands move at the car's pedal rates (physics.pedals.ramp). A manual car shifts up above
``upshift`` and down below ``downshift`` times the rev limit, and holding a constant speed also up early and
down for a kick-down (:func:`shift_phase`): clutch in at its rate, the gear selected once the clutch is down
to the gearbox's ``shift_clutch``, clutch out. On a car with the automatic clutch, under hard braking (``BRAKING``)
nothing is shifted down; off the throttle, braking hard or after the trigger, where the gear would drag the engine
below idle, the clutch goes in and stays in, with the gear for the speed put in. Braking hard below ABS's floor the
driver holds the steer.
"""

from __future__ import annotations

import math
from collections import namedtuple

from . import approx, engine, gearbox, path, pedals
from .driver_params import AFTER_CONTINUE, AFTER_DECELERATE, AFTER_HOLD, PEDALS_FIXED, PEDALS_SPEED
from .jit import scalar
from .records import copy_inputs

UPSHIFT_MARGIN = 1.1
"""An early upshift (holding a speed) is only into a gear that turns the engine at least this many times the downshift
speed, at the car's speed and at the speed asked for: the car can lose a tenth of its speed before the gear goes back
down, and no speed is held with the engine labouring."""
INTEGRAL_ZONE = 0.05
"""A manual car's speed controller integrates its error only within this share of the speed asked for: a run-up is
the proportional part's (integrated on the way, the drive that holds 100 km/h in 4th was overshot by 1.6 km/h after
the shift from 2nd, and took 6 s to come back)."""
KICKDOWN = 1.2
"""Holding a speed at full throttle, the driver shifts down into a gear that gives at least this many times the drive at
the wheels."""
IDLE_MARGIN = 2.0
"""No speed is held with the engine below this many times its idle speed (the early upshift's floor where the driver's
``downshift`` is lower: at 0, the sedan held 30 km/h in 6th at 647 rpm, below its 800 rpm idle)."""
RELIEF = 0.9
"""Holding a speed with the engine above ``RELIEF_RPM`` of the upshift speed, the driver shifts up one gear where that
gear gives the drive with at most this throttle (past ``cruise``, below a kick-down's full throttle): without it a gear
that needed between ``cruise`` and full throttle was never taken, and manual003 held 170 km/h in 3rd at 6,504 rpm."""
RELIEF_RPM = 0.75
"""The share of the upshift speed above which a gear that needs up to ``RELIEF`` of throttle is taken (below it, only
one that needs up to ``cruise``)."""
BRAKING = 0.3
"""A brake pedal from this on is hard braking: on a car with the automatic clutch the driver does not shift down under it
(it declutches instead once the gear would drag the engine below idle, and puts in the gear for the speed with the
clutch down, :func:`drive`). Shifting down through the gears under an ABS stop cycled the clutch under the brakes: on
split mu each engagement dragged the icy rear wheel (to a slip of -0.95 in 1st at 40 km/h)."""

Look = namedtuple("Look", "row speed_i lateral_i phase gear after steer throttle "
                          "lateral_error path_distance target_speed target_x target_y")
"""What a frame of driving leaves: the driver's memory for the next frame, then its channels."""


@scalar
def idle(s):
    """Nobody drives this frame: the memory stays as it is, the channels are at rest."""
    return Look(s.drv_row, s.drv_speed_i, s.drv_lateral_i, s.drv_phase, s.drv_gear, s.drv_after, s.drv_steer,
                s.drv_throttle, 0.0, 0.0, 0.0, s.x, s.y)


@scalar
def carry(look, new, out):
    """The driver's memory into the next state, its channels into the frame's telemetry."""
    new.drv_row = look.row
    new.drv_speed_i = look.speed_i
    new.drv_lateral_i = look.lateral_i
    new.drv_phase = look.phase
    new.drv_gear = look.gear
    new.drv_after = look.after
    new.drv_steer = look.steer
    new.drv_throttle = look.throttle
    out.lateral_error = look.lateral_error
    out.path_distance = look.path_distance
    out.target_speed = look.target_speed
    out.target_x = look.target_x
    out.target_y = look.target_y


@scalar
def steer_share(d, track, p, s, speed, row, path_s, error, path_heading, path_curvature, dt):
    """The steering (share of full lock) the preview law asks for, the new integral, and the preview point."""
    wheelbase = p.body_wheelbase
    crawl = d.preview_min / d.preview_time  # [L/s] the speed at which the preview distance stops shrinking
    # The course is the heading and the body's slip angle. At a crawl the slip angle answers the steer within a
    # frame (the kinematic car's is lr / L of it), and through the heading term (about 13 times the slip
    # angle's error at 2.6 m/s on the sedan) the steer chattered at its rate limit, a frame each way: the slip
    # angle fades in between half and once that speed, and the heading alone steers a crawling car.
    beta = min(max(2.0 * speed / crawl - 1.0, 0.0), 1.0) * approx.atan2(s.vy, abs(s.vx) + 1e-9)
    # The dynamic and four-wheel cars answer the steer held over the frame through the frame's implicit step: their
    # loop lags a driver acting continuously by about a frame (half a frame the hold, about half the step), which at
    # 1/120 s set the F1TENTH car swinging about the ISO 4138 circle near its limit (its yaw mode is near the preview
    # loop's 2 / preview_time): a maximum lateral acceleration of 2.46 m/s^2 against 3.06 at 1/480 s. Their errors
    # are taken a frame on: the course turned by r dt, the preview point a frame's travel further (v dt sin(e_psi)
    # more error). The kinematic bicycle turns with its steer within the frame; taken a frame on, its course would
    # answer the steer twice. The path's heading is taken a frame's travel on too: on a circle followed at its
    # curvature the two turn alike, and the course alone taken on was a bias of v dt kappa in e_psi (4 zeta^2 dt /
    # preview_time of the curvature asked for: 0.22 of it at 1/120 s) that the integral had to take out. The lead is
    # itself a feedback of the yaw rate a frame late, and slowly the yaw answers the steer within a frame: it fades in
    # between once and twice the crawl speed (at 1/60 s, taken whole, the sedan's steer went 1.15 deg a frame each way
    # on the circle from 20 km/h, its first 10 s; 0.10 faded, 0.10 without it).
    lead = 0.0 if p.kinematic else min(max(speed / crawl - 1.0, 0.0), 1.0) * dt
    course = s.heading + beta + s.yaw_rate * lead
    e_psi = approx.atan2(*approx.sincos(course - (path_heading + path_curvature * speed * lead)))
    reach = max(d.preview_min, speed * d.preview_time)
    gain = 4.0 * d.damping * d.damping / (reach * reach)
    limit = approx.tan(p.steering_lock) / wheelbase
    lateral_i = min(max(s.drv_lateral_i + dt * gain * error / d.integral_time, -limit), limit)
    ahead = path.point_at(track, d.path_start, d.path_count, d.closed, path_s + speed * d.lead_time)
    kappa = ahead[3] - gain * (error + (reach + speed * lead) * approx.sin(e_psi)) - lateral_i
    kappa = min(max(kappa, -limit), limit)
    kappa_car = s.yaw_rate / max(speed, crawl)
    # At a crawl the yaw rate answers the steer within a frame and the feedback would chatter: it fades
    # in between two and four times that speed. The kinematic bicycle's yaw rate answers it within a frame at any
    # speed: the feedback, a frame late, was a loop of gain yaw_gain (1 by default) around its steer, which swung
    # 0.5 deg a frame each way at the steering rate from 81 km/h on the ISO 4138 circle. It neither understeers nor
    # oversteers, and gets none.
    fade = 0.0 if p.kinematic else min(max(speed / crawl - 2.0, 0.0) * 0.5, 1.0)
    delta = approx.atan(wheelbase * kappa) + fade * d.yaw_gain * wheelbase * (kappa - kappa_car)
    target = path.point_at(track, d.path_start, d.path_count, d.closed, path_s + reach)
    return min(max(delta / p.steering_lock, -1.0), 1.0), lateral_i, target[0], target[1]


@scalar
def speed_demand(d, track, speed, path_s, speed_i, t, dt):
    """The pedal demand (-1 .. 1: brake below zero) of the speed controller, its new integral, the target."""
    target = d.speed
    if d.profile_count > 0:
        target = path.profile_at(track, d.profile_start, d.profile_count, path_s if d.profile_by_distance else t)
    scale = max(abs(target), d.preview_min / d.preview_time)
    error = (target - speed) / scale
    demand = d.speed_gain * error + speed_i
    if (demand < 1.0 or error < 0.0) and (demand > -1.0 or error > 0.0):  # no wind-up against a full pedal
        speed_i = min(max(speed_i + dt * d.speed_integral * error, -1.0), 1.0)
    return min(max(demand, -1.0), 1.0), speed_i, target, error


@scalar
def per_ratio(p, vx):
    """The engine speed [rpm] the road imposes per unit of gear ratio at the car's speed ``vx`` (through the final drive
    and the driven wheels' radius)."""
    return abs(vx) / p.body_wheel_radius * p.gearbox_final_drive * 60.0 / (2.0 * math.pi)


@scalar
def reference_force(p):
    """The drive force [N] a manual car's speed controller asks for at a demand of 1: the engine's peak torque through
    1st gear and the final drive at the driven wheels, the most the car pushes with."""
    return p.engine_peak_torque * abs(p.gear_ratio[2]) * p.gearbox_final_drive / p.body_wheel_radius


@scalar
def throttle_for(p, force, gear, imposed):
    """The throttle at which a manual car's engine gives the drive ``force`` [N] at the wheels in ``gear`` (``imposed``
    rpm per unit ratio; the engine at idle at the least): the torque at the flywheel plus the engine's friction over
    its full-throttle curve. Above 1 where the engine cannot, below 0 where its braking alone is that force."""
    ratio = abs(p.gear_ratio[gear + 1])
    rpm = max(imposed * ratio, p.engine_idle_rpm)
    return (force * p.body_wheel_radius / (ratio * p.gearbox_final_drive) + engine.friction(rpm, p)) \
        / max(engine.curve(rpm, p), 1e-9)


@scalar
def beyond_engine_braking(p, force, gear, imposed):
    """The part [N] of a negative ``force`` that a manual car's engine does not give with the throttle closed in
    ``gear`` (``imposed`` rpm per unit ratio): its friction through the gear at the wheels; 0 where the engine's braking
    alone is enough, so the brake comes in where the throttle (:func:`throttle_for`) is closed and never beside it."""
    ratio = abs(p.gear_ratio[gear + 1])
    rpm = max(imposed * ratio, p.engine_idle_rpm)
    return min(force + engine.friction(rpm, p) * ratio * p.gearbox_final_drive / p.body_wheel_radius, 0.0)


@scalar
def gear_for_speed(d, p, imposed):
    """The forward gear a declutched car goes on in at ``imposed`` rpm per unit ratio: the highest that turns the
    engine above the downshift speed, else 1st."""
    for gear in range(p.top_gear, 1, -1):
        if imposed * p.gear_ratio[gear + 1] > d.downshift * p.engine_rev_limit:
            return gear
    return 1


@scalar
def shift_phase(d, p, s, speed, force, holding, target_speed, braking):
    """The shift under way or to begin: (phase, target gear). ``force`` is the drive [N] the speed controller asks for,
    ``holding`` whether it works the pedals to hold a constant ``target_speed`` (no profile; nobody else's pedal
    overrides it), ``braking`` whether the frame's brake pedal is at ``BRAKING`` or more (no downshift then).

    The rule reads the engine speed the road imposes in the gear (the car's speed through the gear
    and final drive), not the engine's own: just after a shift the clutch still slips, and a
    spinning wheel revs the engine without the car going faster. Up:

    - above ``upshift`` of the rev limit (a full-throttle run's shifts, and every shift of a driver that holds a pedal);
    - holding a speed, early, into the highest gear that turns the engine ``UPSHIFT_MARGIN`` times the downshift speed
      (and ``IDLE_MARGIN`` times idle) at the car's speed and at the speed asked for, and gives the drive asked for with
      at most ``cruise`` of throttle. At full throttle on the way to a speed no higher gear does; as the speed comes
      near and the drive asked for falls, one does (and, the drive falling on, the next): a test driver holds 80 km/h
      in 3rd, not in 2nd at 4,700 rpm;
    - holding a speed with the engine above ``RELIEF_RPM`` of the upshift speed, one gear up where that gear turns the
      engine above the same floor and gives the drive with at most ``RELIEF`` of throttle.

    Down, into a gear that turns the engine below 0.9 ``upshift`` of the rev limit, when the car is rolling and not
    braking hard:

    - below ``downshift`` of the rev limit;
    - holding a speed, at full throttle and still slowing, where the lower gear gives ``KICKDOWN`` times the drive at
      full throttle (a kick-down). An upshift needs at most ``RELIEF`` of throttle in the gear above, a kick-down full
      throttle and the car slowing in the gear it leaves: neither undoes the other. A kick-down's clutch costs speed and
      swells the drive asked for; it is judged on the pedal once it is back at full, so one gear that holds the speed
      is not passed over for the next.

    The engine speed the road imposes is taken with the sign of the car's course (``vx``): a car rolling backwards in
    a forward gear is never shifted up, as a slow one is shifted down.
    """
    phase, gear = s.drv_phase, s.drv_gear
    if phase != 0 or not (p.manual and d.shift) or s.gear < 1:
        return phase, gear
    limit = p.engine_rev_limit
    imposed = per_ratio(p, s.vx) if s.vx > 0.0 else -per_ratio(p, s.vx)
    ratio = p.gear_ratio[s.gear + 1]  # gear_ratio is indexed by gear + 1
    rpm = imposed * ratio
    if s.gear < p.top_gear:
        if rpm > d.upshift * limit:
            return 1, s.gear + 1
        if holding:
            floor = UPSHIFT_MARGIN * max(d.downshift * limit, IDLE_MARGIN * p.engine_idle_rpm)
            at_target = per_ratio(p, target_speed)
            if d.cruise > 0.0:
                for up in range(p.top_gear, s.gear, -1):  # the highest such gear
                    ratio_up = p.gear_ratio[up + 1]
                    if imposed * ratio_up > floor and at_target * ratio_up > floor \
                            and throttle_for(p, force, up, imposed) <= d.cruise:
                        return 1, up
            ratio_up = p.gear_ratio[s.gear + 2]
            if rpm > RELIEF_RPM * d.upshift * limit and imposed * ratio_up > floor and at_target * ratio_up > floor \
                    and throttle_for(p, force, s.gear + 1, imposed) <= RELIEF:
                return 1, s.gear + 1
    if s.gear > 1 and speed > p.clutch_auto_speed and not braking:
        down_rpm = imposed * p.gear_ratio[s.gear]
        if down_rpm < 0.9 * d.upshift * limit:
            if rpm < d.downshift * limit:
                return 1, s.gear - 1
            if holding and s.throttle >= 1.0 and s.accel < 0.0 and throttle_for(p, force, s.gear, imposed) > 1.0 and \
                    (engine.curve(down_rpm, p) - engine.friction(down_rpm, p)) * p.gear_ratio[s.gear] \
                    > KICKDOWN * (engine.curve(rpm, p) - engine.friction(rpm, p)) * ratio:
                return 1, s.gear - 1
    return phase, gear


@scalar
def drive(d, track, p, s, u, v, dt, t):
    """The inputs the car's frame gets (into ``v``): ``u`` with the driver's controls; returns its Look."""
    copy_inputs(u, v)
    if t >= d.end_time:
        return idle(s)
    speed = approx.hypot(s.vx, s.vy)
    row, path_s, error, heading, curvature = s.drv_row, 0.0, 0.0, s.heading, 0.0
    has_path = d.path_count > 1
    if has_path:
        row, path_s, error, heading, curvature = path.locate(track, d.path_start, d.path_count, d.closed, s.drv_row,
                                                             s.x, s.y)
    triggered = s.drv_after or t >= d.until_time or (has_path and path_s >= d.until_distance)
    steer_hold, throttle_hold = s.drv_steer, s.drv_throttle
    speed_i = s.drv_speed_i
    if triggered and not s.drv_after:  # the moment of the trigger: what is held from now on
        steer_hold, throttle_hold = s.steer / p.steering_lock, s.throttle
        speed_i = 0.0

    # Hard braking, the pedal as it is (the script's, or the driver's own from its last frame)
    hard_braking = (u.brake_value if u.brake_on else s.brake) >= BRAKING
    lateral_i, tx, ty = s.drv_lateral_i, s.x, s.y
    if d.lateral and has_path:
        share, lateral_i, tx, ty = steer_share(d, track, p, s, speed, row, path_s, error, heading, curvature, dt)
        if triggered and d.after_steer == 1:
            share = steer_hold
        elif hard_braking and speed < p.brakes_abs_min_speed:
            # Below ABS's floor the brakes may lock the wheels, and a locked front wheel does not steer the car: the
            # driver holds the steer. The preview law, which steers for the distance ahead at any speed, wound on full
            # opposite lock over a split-mu stop's last metres (-31.5 deg as the car stopped, yawing on its locked
            # wheels) and left it there.
            share, lateral_i = s.steer / p.steering_lock, s.drv_lateral_i
        if not u.steer_on:
            v.steer_on = True
            v.steer_value = share

    phase, gear = s.drv_phase, s.drv_gear
    target_speed = 0.0
    if d.pedals != 0:
        throttle, brake, new_i = 0.0, 0.0, speed_i
        mode = d.after_throttle if triggered else AFTER_CONTINUE
        # Hard braking on a car with the automatic clutch (a bare manual shifts down as before: nothing would let its
        # clutch out at a standstill)
        braking = p.clutch_auto_speed > 0.0 and hard_braking
        imposed = per_ratio(p, s.vx) if p.manual else 0.0  # [rpm per unit ratio] the engine speed the road imposes
        if mode == AFTER_CONTINUE:
            force = 0.0
            if d.pedals == PEDALS_SPEED:
                demand, new_i, target_speed, error_v = speed_demand(d, track, speed, path_s, speed_i, t, dt)
                throttle = max(demand, 0.0)
                if p.manual and s.gear != 0:
                    # A manual car's demand is a drive force, the throttle what gives it in the gear engaged: the
                    # loop's gain is the same in every gear, and a shift does not change the drive asked for.
                    reference = reference_force(p)
                    force = demand * reference
                    need = throttle_for(p, force, s.gear, imposed)
                    throttle = min(max(need, 0.0), 1.0)
                    if (need >= 1.0 and new_i > speed_i) or abs(error_v) > INTEGRAL_ZONE:
                        new_i = speed_i
                    # the brake for what the engine's braking does not give: never beside an open throttle
                    brake = min(-beyond_engine_braking(p, force, s.gear, imposed) / reference * d.brake_share, 1.0)
                else:
                    brake = min(max(-demand, 0.0) * d.brake_share, 1.0)
            elif d.pedals == PEDALS_FIXED:
                throttle = d.throttle
            # Holding a constant speed, with its own pedals (a speed profile, such as ISO 4138's ramp, shifts at the
            # upshift speed: no gear change within its quasi-steady seconds that it can do without)
            holding = d.pedals == PEDALS_SPEED and d.profile_count == 0 and not u.throttle_on and not u.brake_on
            phase, gear = shift_phase(d, p, s, speed, max(force, 0.0), holding, target_speed, braking)
            if phase == 0:
                speed_i = new_i
            else:
                throttle = 0.0  # off the throttle while the clutch is out of play
        elif mode == AFTER_HOLD:
            throttle = throttle_hold
        elif mode == AFTER_DECELERATE:
            error_a = (s.accel + d.decel) / p.model_gravity  # > 0: slowing less than asked
            brake = d.decel * p.body_mass / p.brakes_force + d.decel_gain * error_a + speed_i
            if brake < 1.0 or error_a < 0.0:
                speed_i = speed_i + dt * d.decel_integral * error_a
            brake = min(max(brake, 0.0), 1.0)
        if not u.throttle_on:
            v.throttle_on = True
            v.throttle_value = pedals.ramp(s.throttle, throttle, p.pedals_throttle_rise, p.pedals_throttle_fall, dt)
        if not u.brake_on:
            v.brake_on = True
            v.brake_value = pedals.ramp(s.brake, brake, p.pedals_brake_rise, p.pedals_brake_fall, dt)
        if p.manual and d.shift and not u.clutch_on:
            # Phase 1 presses the clutch; once it is down far enough the gear goes in and phase 2 lets it out.
            if phase == 1 and s.clutch_pedal >= p.gearbox_shift_clutch:
                if not u.gear_on:
                    v.gear_on = True
                    v.gear_value = min(max(gear, gearbox.REVERSE), p.top_gear)
                phase = 2
            elif phase == 2 and s.clutch_pedal <= 0.0:
                phase = 0
            # Off the throttle, braking hard (which shifts nothing down) or slowing after the trigger (which shifts
            # nothing), where the gear would drag the engine below its idle speed, the clutch goes in and stays in, down
            # to the speed at which the automatic clutch holds the engine: the engine is not dragged to a stall (ISO
            # 7975's stop, held in 3rd with the clutch let out, stalls the engine at 12 km/h). On the throttle the car
            # is pulling away (manual003's 1st turns its engine below idle at the automatic clutch's speed). With the
            # clutch down the gear for the speed goes in (1st, or the highest that turns the engine above the
            # downshift speed), so that the car pulls away again in it, and a stop ends in 1st, not in 4th. A car with
            # no automatic clutch is left as it was.
            lugging = phase == 0 and s.gear != 0 and p.clutch_auto_speed > 0.0 and v.throttle_value <= 0.0 \
                and (braking or mode != AFTER_CONTINUE) and speed > p.clutch_auto_speed - p.clutch_auto_band \
                and (s.clutch_pedal > 0.0 or imposed * abs(p.gear_ratio[s.gear + 1]) < p.engine_idle_rpm)
            if lugging and s.gear > 0 and s.clutch_pedal >= p.gearbox_shift_clutch and not u.gear_on:
                v.gear_on = True
                v.gear_value = gear_for_speed(d, p, imposed)
            v.clutch_on = True
            v.clutch_value = pedals.ramp(s.clutch_pedal, 1.0 if phase == 1 or lugging else 0.0, p.pedals_clutch_rise,
                                         p.pedals_clutch_fall, dt)
    return Look(row, speed_i, lateral_i, phase, gear, triggered, steer_hold, throttle_hold, error, path_s,
                target_speed, tx, ty)
