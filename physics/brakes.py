"""Brakes: a force that opposes motion and never pushes a stopped car backwards (002)."""

from __future__ import annotations

from .jit import scalar


@scalar
def sign(x):
    """-1, 0 or 1 (numpy's sign for finite x)."""
    return 1.0 if x > 0.0 else (-1.0 if x < 0.0 else 0.0)


@scalar
def hold(v, other_force, capacity, mass, dt):
    """The brake force [N] given the other forces along ``v`` and the brakes' ``capacity`` [N].

    The brake opposes the speed the car would have without it, and at most stops the car within
    the step: the result lies between that speed and zero, so a stopped car stays stopped against
    up to ``capacity`` of other force, and is never driven the other way.
    """
    v_free = v + dt * other_force / mass
    return min(max(-mass * v_free / dt, -capacity), capacity)


@scalar
def cap_speed(v, other_force, cap, mass, dt):
    """Force [N] that keeps |v| at or below ``cap`` (001: the handbrake caps speed); 0 where cap is 0."""
    v_free = v + dt * other_force / mass
    excess = max(abs(v_free) - cap, 0.0) * (1.0 if cap > 0.0 else 0.0)
    return -sign(v_free) * mass * excess / dt


@scalar
def road_limit(capacity, mu, load):
    """The brakes' capacity [N] as far as the road can take it: at most ``mu`` times the braked ``load``.

    Simple traction has no wheels to lock, so the brakes act as an ideal anti-lock system would: the
    deceleration stops at the tyres' peak friction, mu g on a braked weight, ice included.
    """
    return min(capacity, mu * load)


@scalar
def within_grip(drive_force, brake_force, limit):
    """The brake force [N] trimmed so that drive and brake together stay within the road's ``limit``.

    Drive and brakes act on the same wheels, and the road passes their sum: throttle and brake
    pressed together on a car sliding backwards (both pushing forwards) get the tyres' grip, no more.
    """
    return min(max(drive_force + brake_force, -limit), limit) - drive_force
