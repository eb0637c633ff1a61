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
def braked_to_rest(vx_before, vx_after, speed_after, brake_force, drive_force, mass, dt):
    """Whether the brakes brought the car to rest within the frame.

    Friction never turns a motion back: where the car's motion along itself reversed within the frame
    while its brakes (``brake_force`` [N], what they could pass) held more than the drive pushes, and
    what is left of its speed is no more than the brakes take away in one frame, the car stopped within
    the frame and the brakes hold it. At a coarse dt a tyre braking at its limit would otherwise carry
    the car through zero and back (0.15 m/s forwards to 0.1 m/s backwards at dt = 1/30 s).
    """
    return (vx_before * vx_after < 0.0 and brake_force > abs(drive_force)
            and speed_after <= dt * brake_force / mass)
