"""The wheels as rotating bodies: slip per axle, brakes and clutch as friction, and each axle's spin.

Combined model only. Each axle is one wheel of the single-track car with a rotational speed
[rad/s] and an inertia; the road acts on it through the tyre's longitudinal force, the brakes
and (on the driven axle) the clutch through friction torques. Friction is set-valued at a
standstill of the sliding surfaces, so :func:`hold` and :func:`clutch_torque` solve for the
torque that stops the relative motion within the frame, up to the capacity, as physics.brakes
does for the body.
"""

from __future__ import annotations

from . import approx
from .jit import scalar


@scalar
def slip_speed(u, floor):
    """The speed slips are measured against [L/s]: |u|, but at least ``floor``.

    Below ``floor`` the slip ratio and slip angle are the slip velocities divided by ``floor``:
    the tyre becomes a damper on the contact patch's sliding (finite at a standstill and in
    reverse), which is what makes the crawl kinematic through forces.
    """
    return max(abs(u), floor)


@scalar
def slip_ratio(omega, radius, u, floor):
    """Longitudinal slip ratio (omega R - u) / max(|u|, floor): positive when the wheel outruns the road."""
    return (omega * radius - u) / slip_speed(u, floor)


@scalar
def slip_angle(u, w, floor):
    """Slip angle [rad], atan2(w, max(|u|, floor)): the contact patch's sideways over its forward speed."""
    return approx.atan2(w, slip_speed(u, floor))


@scalar
def hold(omega, capacity, inertia, dt):
    """Wheel speed after a friction torque of up to ``capacity`` [N m] opposes it for dt.

    The brake opposes the rotation and at most stops the wheel within the frame: it never spins
    it the other way. Returns (speed, stopped): stopped when the capacity was enough to stop it. A
    wheel with no brake on it is never held, even at rest: it turns with the road.
    """
    change = dt * capacity / inertia
    if omega > change:
        return omega - change, False
    if omega < -change:
        return omega + change, False
    return 0.0, capacity > 0.0


@scalar
def anti_lock(omega, omega_free, u, ahead, radius, floor, target):
    """ABS: the braked wheel kept from turning slower than the slip ratio ``target`` allows.

    A continuous ABS: it lets off the brake just enough that the slip ratio does not pass -target
    (braking forwards; +target backwards), where physics.aids puts it (near the longitudinal
    curve's peak, lowered when the tyre also corners), but never spins the wheel up beyond what it
    would do with the brake released (``omega_free``). The slip is held against the road's speed at
    the frame's end, u + ``ahead`` (the car's last deceleration over dt): at a crawl the frame's own
    deceleration is a large share of the road's speed, and a wheel held against the start's would
    end the frame far below the target. Where the road would stop within the frame the wheel may
    lock to stop the car.
    """
    road = u + ahead
    if road * u <= 0.0:
        return omega
    d = slip_speed(road, floor)
    if road > 0.0:
        return max(omega, min((road - target * d) / radius, omega_free))
    return min(omega, max((road + target * d) / radius, omega_free))


@scalar
def spin_limit(road, radius, floor, target):
    """The wheel's speed [rad/s] at the slip ratio ``target`` over a road moving at ``road`` [L/s] (the slip taken
    against at least ``floor``): where traction control's brake holds a driven wheel (:func:`anti_spin`)."""
    return (road + target * slip_speed(road, floor)) / radius


@scalar
def anti_spin(omega, u, ahead, radius, floor, target, most):
    """Traction control by brake: the driven wheel kept from turning faster than the slip ratio ``target``
    allows (signed: positive for a drive forwards), braking it by at most ``most`` [rad/s] this frame.

    The mirror of :func:`anti_lock`, against the road's speed at the frame's end, u + ``ahead``; the
    brake only takes speed away, so the wheel is never turned back past the road.
    """
    road = u + ahead
    # A brake turns a wheel towards standstill only: a wheel turning the other way, or a road that runs
    # backwards under a wheel slower than it, is nothing for it to correct.
    if target > 0.0:
        limit = spin_limit(road, radius, floor, target)
        return max(limit, 0.0, omega - most) if omega > limit and omega > 0.0 else omega
    if target < 0.0:
        limit = spin_limit(road, radius, floor, target)
        return min(limit, 0.0, omega + most) if omega < limit and omega < 0.0 else omega
    return omega


@scalar
def clutch_torque(omega_engine, omega_wheel, engine_torque, road_torque, ratio, capacity, engine_inertia,
                  wheel_inertia, dt):
    """Torque through the clutch [N m, at the engine] and whether it sticks this frame.

    I_e d(omega_e)/dt = T_e - T_c and I_w d(omega_w)/dt = G T_c - T_road. The torque that brings
    both sides to omega_e = G omega_w at the end of the frame,

        T_lock = ((omega_e - G omega_w) / dt + T_e / I_e + G T_road / I_w) / (1 / I_e + G^2 / I_w),

    passes when the clutch can carry it (|T_lock| <= capacity); otherwise it slips at the
    capacity in the direction of T_lock. Neutral (G = 0) or an open clutch pass nothing.
    """
    if ratio == 0.0 or capacity <= 0.0:
        return 0.0, False
    lock = (((omega_engine - ratio * omega_wheel) / dt + engine_torque / engine_inertia
             + ratio * road_torque / wheel_inertia) / (1.0 / engine_inertia + ratio * ratio / wheel_inertia))
    if abs(lock) <= capacity:
        return lock, True
    return (capacity if lock > 0.0 else -capacity), False


@scalar
def meet(omega_engine, omega_wheel, ratio, engine_inertia, wheel_inertia):
    """The wheel's speed [rad/s] where a clutch that catches joins it to the engine (the engine then turns at
    ``ratio`` times it): the speed their angular momentum gives, I_w omega_w + G I_e omega_e over I_w + G^2 I_e. A
    catch loses energy, never makes it."""
    return ((wheel_inertia * omega_wheel + ratio * engine_inertia * omega_engine)
            / (wheel_inertia + ratio * ratio * engine_inertia))


@scalar
def spin(omega, drive_torque, road_force, stiffness, brake, radius, inertia, dt):
    """One axle's first, body-frozen update of its speed under drive, road and brake, linearly implicit.

    I d(omega)/dt = T_drive - R Fx - T_brake, where Fx grows with omega at ``stiffness`` =
    dFx/d(omega R) [N per L/s]; taking that slope implicitly adds dt R^2 stiffness to the inertia,
    so the stiff tyre mode (thousands per second at a crawl) is stable at any dt. Returns
    (speed, speed without the brake, effective inertia, held): ``held`` when the brake stopped it.
    """
    inertia_eff = inertia + dt * radius * radius * stiffness
    free = omega + dt * (drive_torque - radius * road_force) / inertia_eff
    braked, stopped = hold(free, brake, inertia_eff, dt)
    return braked, free, inertia_eff, stopped


@scalar
def follow(omega, change, braked):
    """A freely turning wheel's speed after the body's own update moved the road under it by ``change``.

    A braked wheel is not carried through zero: the brake would hold it there.
    """
    moved = omega + change
    if braked and moved * omega < 0.0:
        return 0.0
    return moved


@scalar
def slip_slope(tangent, secant, kappa, net_torque):
    """The tyre slope [N per unit slip] a wheel's implicit update uses.

    Driven away from zero slip (``net_torque`` pushes the slip further from zero) the tangent,
    clipped at zero past the peak: a wheel breaking loose spins up (or locks) as fast as its
    torque says, whatever the dt. Coming back, the larger of tangent and secant F / kappa: the
    secant cannot carry a sliding wheel through zero slip in one step.
    """
    if net_torque * kappa > 0.0:
        return tangent
    return max(tangent, secant)


@scalar
def meeting_force(omega, torque, limit, radius, inertia, u_without, mass, dt):
    """The force [N] that brings rim and road to one speed at the frame's end, the wheel turning under ``torque``
    (drive and brake) and the road moving to ``u_without`` without this force; within the grip ``limit``."""
    meet = (radius * omega + radius * dt * torque / inertia - u_without) / (
        dt * (radius * radius / inertia + 1.0 / mass))
    return min(max(meet, -limit), limit)


@scalar
def at_limit(omega, drive_torque, force, brake, radius, inertia, u_start, u_without, mass, dt):
    """An axle whose tyre reached the road's grip this frame: (speed, speed without the brake, held, force).

    At the limit ``force`` the tyre passes the limit whatever the slip, so the wheel turns under it
    alone (I d(omega)/dt = T_drive - R Fx) and the car gets the same force. Should that carry the rim
    past the road (``u_without`` is the road's speed at the end without this tyre's force, ``mass``
    what the force accelerates), the tyre grips again within the frame: wheel and road end at one
    speed and the force is the one that brings them there, as long as the road can pass it: a wheel
    that the drive or a lock-up tears away from the road faster than the grip could hold it slides
    at the limit (the meeting force is clamped to it). The brake then acts as friction on the wheel.
    """
    free = omega + dt * (drive_torque - radius * force) / inertia
    u_end = u_without + dt * force / mass
    # Whether the rim passes the road is asked of the wheel as its brake leaves it, and the meeting force takes the
    # brake's torque (against the wheel's turning) with the drive's: a braked wheel that the tyre turns towards the
    # road's speed but the brake keeps short of it slides on at the limit. (Without the brake there, a wheel the
    # brake then stopped at zero once took the meeting force, near none, while the road slid under it: energy
    # gained, seen braking at a crawl at dt = 1/30 s.)
    braked, _ = hold(free, brake, inertia, dt)
    if (braked * radius - u_end) * (omega * radius - u_start) < 0.0:
        limit = abs(force)
        side = 1.0 if omega > 0.0 else (-1.0 if omega < 0.0 else 0.0)
        force = meeting_force(omega, drive_torque - side * brake, limit, radius, inertia, u_without, mass, dt)
        free = omega + dt * (drive_torque - radius * force) / inertia
        # A meeting that carries the wheel through zero: from there on the brake opposes the other way. Where the
        # meeting with the brake that way ends on the other side too, it is the one (the brake then stops the wheel
        # at zero no more, and the road slides under it no more); else the wheel stops at zero and stays.
        if brake > 0.0 and (free - side * dt * brake / inertia) * side < 0.0:
            other = meeting_force(omega, drive_torque + side * brake, limit, radius, inertia, u_without, mass, dt)
            turned = omega + dt * (drive_torque - radius * other) / inertia
            if (turned + side * dt * brake / inertia) * side < 0.0:
                force, free = other, turned
    braked, held = hold(free, brake, inertia, dt)
    return braked, free, held, force
