"""003: the stop rule that ends a crawl instead of letting the car creep at 0.001 m/s forever."""

from __future__ import annotations

from .jit import scalar


@scalar
def stop_mask(speed, accel, drive_force, stop_speed, weight):
    """Whether the stop rule brings the car to rest: crawling below ``stop_speed`` with no drive force.

    The rule compares the *speed*. Comparing the acceleration instead (003's refactoring bug)
    stops a car coasting on a pressed clutch at 11 km/h, whose drag and rolling resistance
    decelerate it by less than the threshold; ``accel`` is passed so that bug can be put back
    (physics.build_kernel(variants={"standstill.stop_mask": ...})).
    """
    no_drive = abs(drive_force) <= 1e-3 * weight
    return abs(speed) < stop_speed and no_drive


@scalar
def braked_to_rest(vx_before, vx_after, speed_after, brake_force, drive_force, mass, dt, grip):
    """Whether the brakes brought the car to rest within the frame.

    Friction never turns a motion back: where the car's motion along itself reversed within the frame
    while its brakes (``brake_force`` [N], what they could pass) held more than the drive pushes, and
    what is left of its speed is no more than the brakes take away in one frame, the car stopped within
    the frame and the brakes hold it. At a coarse dt a tyre braking at its limit would otherwise carry
    the car through zero and back (0.15 m/s forwards to 0.1 m/s backwards at dt = 1/30 s).

    What the brakes take away goes through the tyres: no more than twice ``grip`` (the tyres' mu Fz together),
    which leaves room for the air's and the road's resistance and the loads moving between the axles. Sized on the
    brakes alone, a car whose brakes pass far more than its tyres could (2 MN on tail_happy, 10 MN on
    sedan_single_track) was stopped dead from a sideways slide as its speed along itself crossed zero (9.9 m/s in a
    frame, 1,190 m/s^2; 10.6 m/s).
    """
    return (vx_before * vx_after < 0.0 and brake_force > abs(drive_force)
            and speed_after <= dt * min(brake_force, 2.0 * grip) / mass)
