"""Pedal positions: keys move a pedal at its ramp rates, an analog override sets it directly."""

from __future__ import annotations

from .jit import scalar


@scalar
def ramp(value, target, rise, fall, dt):
    """Move ``value`` toward ``target`` at most ``rise``/``fall`` [1/s] per second (003: pedals are ramps)."""
    return value + min(max(target - value, -fall * dt), rise * dt)


@scalar
def pedal(value, key, override_on, override_value, rise, fall, dt):
    """The pedal after one frame: ramped toward 1 while the key is held, or the override's value."""
    if override_on:
        return min(max(override_value, 0.0), 1.0)
    return ramp(value, 1.0 if key else 0.0, rise, fall, dt)
