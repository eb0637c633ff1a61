"""Pedal positions: keys move a pedal at its ramp rates, an analog override sets it directly."""

from __future__ import annotations

import numpy as np


def ramp(value: np.ndarray, target: np.ndarray, rise: np.ndarray, fall: np.ndarray, dt: float) -> np.ndarray:
    """Move ``value`` toward ``target`` at most ``rise``/``fall`` [1/s] per second (003: pedals are ramps)."""
    return value + np.minimum(np.maximum(target - value, -fall * dt), rise * dt)


def pedal(value, key, override_on, override_value, rise, fall, dt):
    """The pedal after one frame: ramped toward 1 while the key is held, or the override's value."""
    ramped = ramp(value, key, rise, fall, dt)  # a held key (True) targets 1
    if not override_on.any():
        return ramped
    return np.where(override_on, np.minimum(np.maximum(override_value, 0.0), 1.0), ramped)
