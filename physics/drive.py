"""Drive force: 002's direct drive force, and 003's grip limit and wheelspin on the driven wheels."""

from __future__ import annotations

import numpy as np


def direct(throttle, brake, vx, d):
    """002: drive force [N] set by the throttle, and the share of the brake pedal that brakes.

    Without a gearbox the brake key reverses once the car is at rest or rolling backwards (the
    arcade convention of 001's parking game); a power limit caps the force at power / speed.
    Returns (force, brake share, reversing).
    """
    reversing = (vx <= 0.0) & (brake > 0.0)
    command = throttle - brake * d.reverse_fraction * reversing
    limit = np.where(d.power > 0.0, np.minimum(d.force, d.power / np.maximum(np.abs(vx), 1e-9)), d.force)
    return command * limit, brake * ~reversing, reversing


def traction(demand, limit, spinning, still_spinning, spin_fraction):
    """003: the driven wheels pass at most ``limit`` [N]; past it they spin and only a fraction reaches the road.

    Wheels that spin keep spinning while ``still_spinning`` holds (the caller knows when they
    have caught up with the road again). A spinning tyre pushes with sliding grip, and never
    with more than the axle delivers. Returns (force on the road, spinning).
    """
    size = np.abs(demand)
    spinning = (size > limit) | (spinning & still_spinning)
    return np.where(spinning, np.sign(demand) * np.minimum(spin_fraction * limit, size), demand), spinning
