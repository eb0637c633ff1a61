"""What the driver does on one frame: digital keys and analog overrides, per car."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

KEYS = ("throttle", "brake", "left", "right", "clutch", "handbrake", "gear_up", "gear_down", "start")
"""The digital controls (SPEC 4). A key a car has no use for does nothing."""

ANALOG = ("steer", "throttle_pedal", "brake_pedal", "clutch_pedal")
"""Analog overrides: steer in -1..1 of full lock (positive left), pedals in 0..1."""


@dataclass(slots=True)
class Inputs:
    """One frame of driver input for N cars (bool and float arrays of shape (N,)).

    An analog override replaces what the keys would do for that control while its ``*_on`` flag
    is set; ``gear_on``/``gear_value`` select a gear directly (a script's ``gear`` setting).
    """

    throttle: np.ndarray
    brake: np.ndarray
    left: np.ndarray
    right: np.ndarray
    clutch: np.ndarray
    handbrake: np.ndarray
    gear_up: np.ndarray
    gear_down: np.ndarray
    start: np.ndarray  # the starter: restarts a stalled engine
    steer_on: np.ndarray
    steer_value: np.ndarray
    throttle_on: np.ndarray
    throttle_value: np.ndarray
    brake_on: np.ndarray
    brake_value: np.ndarray
    clutch_on: np.ndarray
    clutch_value: np.ndarray
    gear_on: np.ndarray
    gear_value: np.ndarray

    @classmethod
    def idle(cls, n: int) -> Inputs:
        """No key held and no override, for N cars."""
        return cls(**{f.name: np.zeros(n, dtype=element_type(f.name)) for f in fields(cls)})

    @classmethod
    def from_row(cls, keys, analog_on, analog_value, gear_on: bool, gear_value: int, n: int = 1) -> Inputs:
        """One frame of a compiled script (keys in KEYS order, overrides in ANALOG order), the same for N cars."""
        values = {key: np.full(n, keys[j], dtype=np.bool_) for j, key in enumerate(KEYS)}
        for j, name in enumerate(ANALOG):
            field = ANALOG_FIELDS[name]
            values[f"{field}_on"] = np.full(n, analog_on[j], dtype=np.bool_)
            values[f"{field}_value"] = np.full(n, analog_value[j], dtype=np.float64)
        values["gear_on"] = np.full(n, gear_on, dtype=np.bool_)
        values["gear_value"] = np.full(n, gear_value, dtype=np.int64)
        return cls(**values)

    @classmethod
    def from_keys(cls, n: int = 1, keys: frozenset[str] | set[str] | tuple[str, ...] = (), **analog: float) -> Inputs:
        """The same keys (and analog overrides, by SPEC 4 name) for all N cars.

        ``Inputs.from_keys(1, {"throttle", "left"}, steer=0.5)``; ``gear=2`` selects a gear.
        """
        base = cls.idle(n)
        values = {f.name: getattr(base, f.name) for f in fields(cls)}
        for key in keys:
            if key not in KEYS:
                raise ValueError(f"unknown key {key!r}; the keys are: {', '.join(KEYS)}")
            values[key][:] = True
        for name, value in analog.items():
            field = ANALOG_FIELDS.get(name)
            if field is None:
                raise ValueError(f"unknown override {name!r}; the overrides are: {', '.join(ANALOG)}, gear")
            values[f"{field}_on"][:] = True
            values[f"{field}_value"][:] = value
        return cls(**values)


def element_type(name: str) -> type:
    """The element type of field ``name``: keys and ``*_on`` flags are bool, values float, ``gear_value`` int."""
    if name == "gear_value":
        return np.int64
    return np.float64 if name.endswith("_value") else np.bool_


ANALOG_FIELDS = {  # a script's override name -> the Inputs field pair it sets
    "steer": "steer",
    "throttle_pedal": "throttle",
    "brake_pedal": "brake",
    "clutch_pedal": "clutch",
    "gear": "gear",
}
