"""Steering: the bicycle wheel angle follows the keys at a rate, and Ackermann splits it per wheel."""

from __future__ import annotations

import numpy as np


def target(left, right, override_on, override_value, lock):
    """The wheel angle the driver asks for [rad]: full lock per key, or the override's share of it."""
    share = np.subtract(left, right, dtype=float)
    if override_on.any():
        share = np.where(override_on, np.minimum(np.maximum(override_value, -1.0), 1.0), share)
    return share * lock


def follow(steer, goal, rate, dt):
    """Move the wheel angle toward ``goal`` at no more than ``rate`` [rad/s]."""
    return steer + np.minimum(np.maximum(goal - steer, -rate * dt), rate * dt)


def ackermann(tan_d, wheelbase, track):
    """Left and right wheel angles [rad] that point at the bicycle's turn centre, from tan(steer).

    With R = L / tan(delta) to the rear-axle centre, the inner wheel sits at R - track/2 and turns
    more: tan(delta_in) = L / (R - t/2) = L tan(delta) / (L - t/2 tan(delta)).
    """
    half = 0.5 * track * tan_d
    left = np.arctan2(wheelbase * tan_d, wheelbase - half)
    right = np.arctan2(wheelbase * tan_d, wheelbase + half)
    # arctan2 keeps the angle continuous: where the turn centre falls between the front wheels
    # (R < track / 2, only at extreme locks) the inner wheel turns past 90 degrees, as the geometry says.
    return left, right
