"""Steering: the bicycle wheel angle follows the keys at a rate, and Ackermann splits it per wheel."""

from __future__ import annotations

from . import approx
from .jit import scalar


@scalar
def target(left, right, override_on, override_value, lock):
    """The wheel angle the driver asks for [rad]: full lock per key, or the override's share of it."""
    if override_on:
        share = min(max(override_value, -1.0), 1.0)
    else:
        share = (1.0 if left else 0.0) - (1.0 if right else 0.0)
    return share * lock


@scalar
def follow(steer, goal, rate, dt):
    """Move the wheel angle toward ``goal`` at no more than ``rate`` [rad/s]."""
    return steer + min(max(goal - steer, -rate * dt), rate * dt)


@scalar(inline=True)
def ackermann(tan_d, wheelbase, track):
    """Left and right wheel angles [rad] that point at the bicycle's turn centre, from tan(steer).

    With R = L / tan(delta) to the rear-axle centre, the inner wheel sits at R - track/2 and turns
    more: tan(delta_in) = L / (R - t/2) = L tan(delta) / (L - t/2 tan(delta)).
    """
    half = 0.5 * track * tan_d
    left = approx.atan2(wheelbase * tan_d, wheelbase - half)
    right = approx.atan2(wheelbase * tan_d, wheelbase + half)
    # atan2 keeps the angle continuous: where the turn centre falls between the front wheels
    # (R < track / 2, only at extreme locks) the inner wheel turns past 90 degrees, as the geometry says.
    return left, right
