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
