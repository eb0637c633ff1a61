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
        return _recorded(n)

    @classmethod
    def from_row(cls, keys, analog_on, analog_value, gear_on: bool, gear_value: int, n: int = 1) -> Inputs:
        """One frame of a compiled script (keys in KEYS order, overrides in ANALOG order), the same for N cars."""
        u = _recorded(n)
        row = u._record[0]
        for j, key in enumerate(KEYS):
            row[key] = keys[j]
        for j, name in enumerate(ANALOG):
            field = ANALOG_FIELDS[name]
            row[f"{field}_on"] = analog_on[j]
            row[f"{field}_value"] = analog_value[j]
        row["gear_on"] = gear_on
        row["gear_value"] = gear_value
        return u

    @classmethod
    def from_keys(cls, n: int = 1, keys: frozenset[str] | set[str] | tuple[str, ...] = (), **analog: float) -> Inputs:
        """The same keys (and analog overrides, by SPEC 4 name) for all N cars.

        ``Inputs.from_keys(1, {"throttle", "left"}, steer=0.5)``; ``gear=2`` selects a gear.
        """
        u = _recorded(n)
        row = u._record[0]
        for key in keys:
            if key not in KEYS:
                raise ValueError(f"unknown key {key!r}; the keys are: {', '.join(KEYS)}")
            row[key] = True
        for name, value in analog.items():
            field = ANALOG_FIELDS.get(name)
            if field is None:
                raise ValueError(f"unknown override {name!r}; the overrides are: {', '.join(ANALOG)}, gear")
            row[f"{field}_on"] = True
            row[f"{field}_value"] = value
        return u


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


RECORD = np.dtype([(f.name, element_type(f.name)) for f in fields(Inputs)])
"""One car's frame of Inputs as one record (physics.records.INPUTS, what the kernel reads)."""


class RecordedInputs(Inputs):
    """Inputs whose arrays are the fields of one (1, N) record array of RECORD, so that a step reads the
    record as it is (no conversion). The arrays may be changed in place; assigning a field cuts the tie
    (the record is then ignored and the arrays are read one by one, as for any Inputs)."""

    __slots__ = ("_record",)

    def __setattr__(self, name: str, value) -> None:
        object.__setattr__(self, "_record", None)
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        if not isinstance(other, Inputs):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in fields(Inputs))

    __hash__ = None

    def __reduce__(self):  # a copy or a pickle is plain Inputs: its arrays are its own
        return Inputs, tuple(getattr(self, f.name) for f in fields(Inputs))

    def __repr__(self) -> str:
        return Inputs.__repr__(self).replace(type(self).__qualname__, "Inputs", 1)


def _same(a, b) -> bool:
    return bool(np.array_equal(a, b))


def _recorded(n: int) -> Inputs:
    """Idle Inputs for N cars backed by one zeroed record array."""
    u = object.__new__(RecordedInputs)
    record = np.zeros((1, n), dtype=RECORD)
    row = record[0]
    for f in fields(Inputs):
        object.__setattr__(u, f.name, row[f.name])
    object.__setattr__(u, "_record", record)
    return u


def input_record(u: Inputs) -> np.ndarray | None:
    """The (1, N) record array behind ``u`` when its arrays are still that record's fields, else None."""
    return u._record if type(u) is RecordedInputs else None
