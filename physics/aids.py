"""Driver aids of the combined model: the anti-lock brakes' slip targets and traction control.

``p`` is one car's parameter record (physics.records.PARAMS).
"""

from __future__ import annotations

import math

from . import approx
from .jit import scalar


@scalar
def cornering_share(alpha, peak):
    """How much of a tyre's lateral peak its slip angle uses, |alpha| / alpha_peak (normalised combined slip)."""
    return abs(alpha) / peak


@scalar
def ellipse(lateral):
    """The share of a tyre's longitudinal slip that its friction ellipse leaves at normalised slip angle
    ``lateral``: sqrt(1 - lateral^2), 0 past the lateral peak.

    With normalised combined slip (physics.tyre.combined) the resultant sqrt(k^2 + a^2) runs the
    pure-slip curves: a wheel braked to k = sqrt(1 - a^2) of its peak slip keeps the resultant at the
    peak, and any more braking only costs lateral grip.
    """
    return math.sqrt(max(1.0 - lateral * lateral, 0.0))


@scalar
def front_room(p, own, rear_room):
    """The share of the front's straight-line ABS slip it may use: its own tyre's room (:func:`ellipse`), and
    with ``abs_cornering`` no more than the rear's.

    Braking moves load off the rear axle: in a bend whose rear tyres already use most of their lateral grip,
    the front's braking alone takes them past the peak and the tail steps out however little the rear is
    braked (the single-track sedan at 0.4 pedal in a 0.7 g bend spun with its rear brake already released).
    Cornering brake control (Bosch's CBC) lets the front brakes off too as the rear nears its limit.
    """
    if p.brakes_abs_cornering > 0:
        return min(own, rear_room)
    return own


@scalar
def abs_targets(p, alpha_f, alpha_r, lateral_accel):
    """ABS slip-ratio targets (magnitudes) of the front and the rear axle.

    Each is ``abs_slip`` of the peak slip on a straight, lowered by the lateral demand on its own tyre
    (:func:`ellipse`; the front's by the rear's too, :func:`front_room`). The rear's slip angle counts
    ``abs_rear_margin`` times, so it lets go before
    its lateral peak, and with ``abs_select_low`` the rear axle is braked to what its inner wheel can
    take: that wheel carries 1 - 2 h a_y / (g t) of the axle's mean load (lateral load transfer in
    proportion to the axle loads) and would lock first.
    """
    straight = p.peak_long * p.brakes_abs_slip
    rear_room = ellipse(p.brakes_abs_rear_margin * cornering_share(alpha_r, p.peak_rear))
    front = straight * front_room(p, ellipse(cornering_share(alpha_f, p.peak_front)), rear_room)
    rear = straight * rear_room
    if p.brakes_abs_select_low > 0:
        inner = 1.0 - 2.0 * p.body_cg_height * abs(lateral_accel) / (p.model_gravity * p.body_track)
        rear = rear * min(max(inner, 0.0), 1.0)
    return front, rear


@scalar
def tcs_cut(p, kappa, direction, previous, dt):
    """Traction control's cut of the throttle: the share of the engine's torque cut, 0..1, for the driven
    wheels' slip ratio ``kappa`` at the frame's start (what a wheel spinning with the clutch slipping needs:
    the engine's torque then reaches the wheel only later, through the engine's speed).

    The cut grows by ``tcs_gain`` per unit of slip beyond ``tcs_slip`` in the direction the
    drivetrain drives (``direction``: 1 forwards, -1 in reverse), at once, as an engine intervention
    (ignition and throttle) does, and gives the torque back at most ``tcs_recovery`` per second from
    the cut it had (``previous``): a cut released at once would let the wheels break loose again a
    frame later. A wheel slower than the road is the brakes' business.
    """
    if p.aids_tcs <= 0:
        return 0.0
    asked = min(max(p.aids_tcs_gain * (direction * kappa - p.aids_tcs_slip), 0.0), 1.0)
    return max(asked, previous - p.aids_tcs_recovery * dt)


@scalar
def tcs_hold(p, u, ahead, radius, floor, direction):
    """The speed [rad/s] traction control holds a driven wheel to: ``tcs_slip`` above the road's speed at the
    frame's end, u + ``ahead``, in the direction the drivetrain drives (taken against at least ``floor``)."""
    road = u + ahead
    return (road + direction * p.aids_tcs_slip * max(abs(road), floor)) / radius


@scalar
def tcs_torque(p, omega, u, ahead, radius, floor, direction, inertia, available, dt):
    """Traction control holding the slip: the drive torque [N m at the wheel] the engine gives up this frame,
    at most ``available``, so that a driven wheel locked to the engine ends the frame at ``tcs_slip``.

    ``omega`` is the wheel's speed at the frame's end with the engine's whole torque and ``inertia``
    what that update moved (wheel and engine, the tyre's slope included). Solved within the frame,
    it does not depend on dt, as an ideal continuous controller would not.
    """
    if p.aids_tcs <= 0 or direction == 0.0:
        return 0.0
    excess = direction * (omega - tcs_hold(p, u, ahead, radius, floor, direction))
    if excess <= 0.0:
        return 0.0
    return min(excess * inertia / dt, available)


@scalar
def launch_allowance(p, omega, u, ahead, radius, floor, direction, inertia, wheel_inertia, road_torque, grip_torque,
                     dt):
    """Launch control: the most drive torque [N m at the wheel, in the drivetrain's direction] a driven wheel turning at
    ``omega`` may take this frame and end it no faster than its slip target ``tcs_slip`` (the speed
    :func:`tcs_torque` holds).

    From I (omega_end - omega) = dt (T - T_road) with omega_end at the hold speed, taken twice: with the tyre's
    force growing along its slope (``inertia``, the wheel's with the slope included; ``road_torque`` R Fx at the
    frame's start, signed as the wheel's speed), and with the tyre at its grip (``wheel_inertia`` alone against
    ``grip_torque``, R times the most force the road takes along the wheel): past its peak the force no longer
    grows, and what the slope promised would spin the wheel up in one frame (at dt = 1/30 s to four times the
    road's speed). The smaller of the two. While the automatic launch clutch slips, the clutch passes no more
    than this (physics.step.grip_frame): the wheel then cannot break loose however fast the launch clutch closes.
    """
    hold = tcs_hold(p, u, ahead, radius, floor, direction)
    along_slope = direction * ((hold - omega) * inertia / dt + road_torque)
    at_grip = direction * (hold - omega) * wheel_inertia / dt + grip_torque
    return max(min(along_slope, at_grip), 0.0)


@scalar
def yaw_reference(p, vx, steer, road_mu):
    """The yaw rate [rad/s] the driver asks for: the linear bicycle's steady response vx tan(delta) / (L + K vx^2)
    (K the understeer gradient of the car's own cornering stiffnesses), no more than the road's mu g / |vx|, with
    ``road_mu`` the friction of the road under the car (the mean of its four corners': a road surface's where the car
    is on one). The cap is what the car can yaw at on that road (Zanten, "Bosch ESP systems", SAE 2000-01-1633: the
    nominal yaw rate limited by the estimated friction); the car's own tyres.mu on an icy patch asked of it the dry
    road's yaw rate, called the car understeering and braked its inside rear into a spin."""
    asked = vx * approx.tan(steer) / (p.body_wheelbase + p.understeer * vx * vx)
    most = road_mu * p.model_gravity / max(abs(vx), 1e-3)
    return min(max(asked, -most), most)


@scalar(inline=True)
def yaw_target(p, previous, vx, steer, road_mu, dt):
    """The yaw rate stability control holds the car to: :func:`yaw_reference`, followed with the lag
    ``esc_lag`` (a car yaws into a turn over its own response time; a steady-state target would call every
    turn-in understeer)."""
    share = 1.0 - approx.exp(-dt / p.aids_esc_lag)
    return previous + share * (yaw_reference(p, vx, steer, road_mu) - previous)


@scalar
def esc_slip_reference(p, vx, target):
    """The body slip angle [rad] of the linear bicycle turning steadily at yaw rate ``target`` (the one stability
    control holds the car to, capped by what the road allows): lr r / vx less the rear tyres' slip angle, the rear
    compliance m lf / (L Cr) times the lateral acceleration vx r (Gillespie, "Fundamentals of Vehicle Dynamics",
    1992, ch. 6). A slow tight turn has the slip angle of its geometry, lr / R (17 deg at the sedan's full lock, which
    counted from 0 was a slide past 11.1 deg, the inner front wheel braked in every frame at 3.5 m/s); a car at its
    limit at speed, its rear tyres at their slip angle, a little the other way (-1.6 deg at 90 km/h on the sedan's
    dry road); that of an understeering car follows the capped yaw rate, not the steer it is given."""
    return target * (p.body_lr / vx - p.rear_compliance * vx)


@scalar
def esc_torques(p, vx, vy, yaw_rate, target):
    """Stability control's brake torques [N m] on fl, fr, rl and rr, and the share of the engine's torque it cuts.

    Oversteer, the car yawing more than ``target`` by more than ``esc_threshold``, or yawing the other way by more
    than the threshold (a spin against a counter-steer): the front wheel on the outside of the car's own yaw is
    braked, a moment against it that costs the rear none of its grip. Understeer, yawing less than asked by more
    than the threshold: the rear wheel on the inside of the turn asked for. ``esc_gain`` per rad/s of the error
    beyond the threshold; off below 3 m/s and in reverse, where the bicycle reference means little.

    A yaw rate the other way within the threshold (a car held straight by a counter-steer, as on split mu, whose
    yaw rate wanders about 0) is understeer, its error counted through 0: the car turns less than asked. Called
    oversteer by its sign alone, the braked wheel changed between the front and the rear at crossings of 0 (where
    the error was past the threshold), and how often depended on dt (a split-mu launch braked the front wheel in 22%
    of all its frames at 1/120 s and 17% at 1/2000 s, and reached 65.0 against 67.5 km/h at 8 s). At a threshold's
    yaw the other way the two measures give the same torque, so only the wheel changes there.

    The body's slip angle: a car whose slip angle is further than ``esc_slip_angle`` from the linear bicycle's at the
    yaw rate held to (:func:`esc_slip_reference`) is oversteering whatever its yaw rate, and its front wheel on the
    side the car slides towards is braked, ``esc_slip_gain`` per rad beyond that angle (the yaw rate's
    oversteer torque where larger and on the same wheel). A yaw rate alone misses the slow drift: with the yaw rate at
    what the road allows (the reference's cap) a rear-driven car at full throttle slid on round the ISO 4138 circle to
    90 deg with stability control braking. The angle is beta_max = atan(0.02 mu g) at mu = 1, 11.1 deg (R. Rajamani,
    "Vehicle Dynamics and Control", 2nd ed., Springer 2012, ch. 8, where it bounds the slip angle the controller's
    target may ask for; as the slide's trigger it is carbench's choice), on every road: a car at its limit on ice
    already slides a few degrees, its rear tyres at their peak slip angle, which the friction does not move, and the
    2.3 deg that formula gives at mu 0.2 braked such a car's front and inner rear wheels in turn.

    FMVSS 126 S4 asks of an ESC system both a side slip estimate and a means to modify the engine torque: against
    oversteer the engine gives up ``esc_cut`` times the share of one wheel's full brake that stability control applies
    (the last value returned, 0..1, 0 for a car without brakes; physics.step.grip_drive cuts the throttle by it, also
    during a launch, but not while the engine turns within its limiter band above idle).
    """
    if p.aids_esc <= 0 or vx < 3.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    threshold = p.aids_esc_threshold
    same_way = yaw_rate * target >= 0.0
    spin = not same_way and abs(yaw_rate) > threshold
    over = abs(yaw_rate - target) - threshold if (spin or same_way and abs(yaw_rate) > abs(target)) else 0.0
    beta = approx.atan2(vy, vx) - esc_slip_reference(p, vx, target)
    beyond = abs(beta) - p.aids_esc_slip_angle
    slide = p.aids_esc_slip_gain * beyond if beyond > 0.0 else 0.0
    yawing = p.aids_esc_gain * over if over > 0.0 else 0.0
    if slide > 0.0 or yawing > 0.0:
        # The front wheel on the outside: of the slide (at a negative slip angle the car moves to the right of where
        # its nose points, its rear swung out to the right, and the right front's brake turns the nose back towards
        # its course), or of the car's own yaw.
        right = beta < 0.0 if slide > 0.0 else yaw_rate > 0.0
        # Beyond the slip bound the slide decides the wheel: a car yawing back towards its course (the way it slides)
        # is recovering, and the yaw rate's own measure, which calls that a spin the other way, adds only where it
        # asks for the same wheel.
        torque = max(slide, yawing) if slide == 0.0 or (yaw_rate > 0.0) == right else slide
        top = 0.5 * p.brakes_force * p.body_wheel_radius  # one wheel's whole brake
        cut = min(p.aids_esc_cut * torque / top, 1.0) if p.aids_esc_cut > 0.0 and top > 0.0 else 0.0
        return (0.0, torque, 0.0, 0.0, cut) if right else (torque, 0.0, 0.0, 0.0, cut)
    # The inner rear's brake against understeer yaws the car into the turn: with the slip angle watched, not while its
    # tail is out the other way by more than half the slip bound (the slide term would brake the front again once the
    # car passed it, and on ice the two took turns, the slide growing back to the bound each time).
    tail_out = p.aids_esc_slip_gain > 0.0 and beta * target < 0.0 and abs(beta) > 0.5 * p.aids_esc_slip_angle
    under = (target - yaw_rate) * (1.0 if target > 0.0 else -1.0) - threshold
    if under > 0.0 and not tail_out:
        torque = p.aids_esc_gain * under
        return (0.0, 0.0, torque, 0.0, 0.0) if target > 0.0 else (0.0, 0.0, 0.0, torque, 0.0)
    return 0.0, 0.0, 0.0, 0.0, 0.0


@scalar
def esc_slip_target(p, target):
    """The slip-ratio target (a magnitude) ABS holds a wheel to while stability control brakes it: at least
    ``esc_slip``; ``target`` is the wheel's ABS target for the pedal's brake.

    The stability control's brake acts through ABS's valves (van Zanten, Bosch ESP, SAE 2000-01-1633: the yaw
    moment is set through the braked wheel's slip), on top of what ABS leaves the pedal's brake
    (physics.four_wheel.aided): the wheel may go well past its tyre's longitudinal peak, where the tyre gives up
    most of its lateral force (which is what turns an oversteering car back), but it does not lock. Cornering
    brake control's lower front target (:func:`front_room`) holds only for the pedal's part: stability control
    brakes an outer front wheel just when the rear nears its limit.
    """
    return max(target, p.aids_esc_slip)
