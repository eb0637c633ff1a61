"""Drive force: 002's direct drive force, and 003's grip limit and wheelspin on the driven wheels."""

from __future__ import annotations

from .brakes import sign
from .jit import scalar


@scalar
def direct(throttle, brake, vx, p, pressed):
    """002: drive force [N] set by the throttle, and the share of the brake pedal that brakes.

    ``throttle`` is what reaches the drive (traction control may have cut it), ``pressed`` the pedal itself: the
    brake reverses against the pedal, not against a cut (a cut throttle held with the brake drove the car
    backwards at 14 m/s with the brakes let off).

    Without a gearbox the brake key reverses once the car is at rest or rolling backwards (the
    arcade convention of 001's parking game), when it is pressed harder than the throttle, by its excess:
    with both held alike the brakes hold the car against the drive (physics.brakes.hold). Reversing on any brake,
    throttle and brake held at rest drove it forward one frame and braked it to rest the next, a
    creeping jitter. A power limit caps the force at power / speed. Returns (force, brake share,
    reversing).
    """
    reversing = vx <= 0.0 and brake > pressed
    back = 1.0 if reversing else 0.0
    # Reversing, the brake's excess over the throttle pedal drives backwards (the whole brake with no throttle): it
    # pushed forwards where the throttle outweighed reverse_fraction of the brake.
    command = throttle * (1.0 - back) - (brake - pressed) * p.drive_reverse_fraction * back
    limit = p.drive_force
    if p.drive_power > 0.0:
        limit = min(p.drive_force, p.drive_power / max(abs(vx), 1e-9))
    return command * limit, brake * (1.0 - back), reversing


@scalar
def traction(demand, limit, spinning, still_spinning, spin_fraction, may_spin):
    """003: the driven wheels pass at most ``limit`` [N]; past it they spin and only a fraction reaches the road.

    Wheels that spin keep spinning while ``still_spinning`` holds (the caller knows when they
    have caught up with the road again). A spinning tyre pushes with sliding grip, and never
    with more than the axle delivers. They start to spin only where ``may_spin`` (the caller's: an engine that
    could still turn them ahead of the road); else they pass the demand within ``limit``. (With the road turning the
    engine past its rev limit in 1st, the spin's sliding grip pushed manual003 on to twice 1st gear's top speed,
    41.7 m/s, the engine held at the limiter and the wheels turning at twice its speed.) Returns (force on the road,
    spinning).
    """
    size = abs(demand)
    spinning = (size > limit and may_spin) or (spinning and still_spinning)
    if spinning:
        return sign(demand) * min(spin_fraction * limit, size), True
    if size > limit:  # held from spinning
        return sign(demand) * limit, False
    return demand, False
