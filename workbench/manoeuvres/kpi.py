"""What a handling test reports: KPIs with their unit, the clause that defines them, a limit and a verdict.

A :class:`RunData` is one run's telemetry (the channels a manoeuvre asked for, SI per frame) with
the car and the script that made it; manoeuvres compute their KPIs from it with the small helpers
here (a crossing time, a least-squares line, a mean over a window).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from physics import CarParams

G = 9.80665  # [m/s^2] standard gravity: the "g" of deg/g and of 0.3 g (ISO 8855, UN R140)
KMH = 3.6
DEG = 180.0 / math.pi
CONDITIONS = "conditions"
"""The key of the KPI that says whether a car's runs met the test's conditions (a test's own, or the failed row
`carbench manoeuvre` adds for a car whose runs did not meet its script's)."""


@dataclass(frozen=True)
class Kpi:
    """One figure of a test: its value (None when the run did not reach it) in ``unit``, and where a
    standard gives one, the limit and the verdict."""

    key: str
    label: str
    value: float | None
    unit: str
    clause: str
    limit: str | None = None
    passed: bool | None = None
    note: str = ""
    bound: tuple[str, float] | None = None
    """A limit that is a number, as its standard states it: ("<=", 35.0) or (">=", 1.83) in ``unit``; the text
    ``limit`` is then written from it ("<= 35 %"). Charts draw it as a line."""

    def __post_init__(self):
        if self.bound is not None:
            if self.bound[0] not in ("<=", ">="):
                raise ValueError(f"KPI {self.key}: a bound is <= or >= a value, not {self.bound[0]!r}")
            if self.limit is None:
                object.__setattr__(self, "limit", f"{self.bound[0]} {self.bound[1]:g} {self.unit}".rstrip())
        # No nan or infinity reaches a table, a report or the JSON (where it is not valid): a figure the run gives
        # no finite value of is reported as not reached, and says so.
        if self.value is not None and not math.isfinite(self.value):
            object.__setattr__(self, "note", "; ".join(x for x in (f"no finite value ({self.value})", self.note) if x))
            object.__setattr__(self, "value", None)

    def text(self) -> str:
        """The value with its unit ("1.42 deg/g"), or "-" when there is none."""
        if self.value is None:
            return "-"
        return f"{self.value:.4g} {self.unit}".rstrip()

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "value": self.value, "unit": self.unit, "clause": self.clause,
                "limit": self.limit, "passed": self.passed, "note": self.note}


@dataclass
class RunData:
    """One run: channel -> values per frame (SI), the timestep, the car at frame 0 and the script."""

    data: Mapping[str, np.ndarray]
    dt: float
    params: CarParams
    script: Any  # workbench.scripts.format.Script
    extra: dict[str, Any] = field(default_factory=dict)  # what a procedure passes to its KPIs (an amplitude)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.data[name]

    @property
    def t(self) -> np.ndarray:
        return self.data["t"]


def crossing(t: np.ndarray, values: np.ndarray, level: float, after: float = -math.inf) -> float | None:
    """The first time at or after ``after`` that ``values`` reach ``level`` from below, linear between
    frames (None when they never do)."""
    start = int(np.searchsorted(t, after))
    above = np.flatnonzero(values[start:] >= level)
    if not len(above):
        return None
    k = start + int(above[0])
    if k == 0 or k == start:
        return float(t[k])
    v0, v1 = values[k - 1], values[k]
    return float(t[k - 1] + (t[k] - t[k - 1]) * (level - v0) / (v1 - v0)) if v1 != v0 else float(t[k])


def line_fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float] | None:
    """Least-squares slope and intercept of y against x (None for fewer than 3 points or no spread)."""
    if len(x) < 3 or np.ptp(x) <= 0:
        return None
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)


def mean_over(t: np.ndarray, values: np.ndarray, start: float, end: float) -> float:
    """The mean of ``values`` over the frames of [start, end)."""
    window = (t >= start) & (t < end)
    return float(values[window].mean()) if window.any() else math.nan


def at_time(t: np.ndarray, values: np.ndarray, when: float) -> float:
    """``values`` at time ``when``, linear between frames."""
    return float(np.interp(when, t, values))


def moving_mean(values: np.ndarray, frames: int) -> np.ndarray:
    """The mean of the last ``frames`` frames at every frame (fewer at the start)."""
    frames = max(int(frames), 1)
    total = np.cumsum(np.concatenate([[0.0], values]))
    k = np.arange(1, len(values) + 1)
    lo = np.maximum(k - frames, 0)
    return (total[k] - total[lo]) / (k - lo)


def finite_or_none(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def verdict(value: float | None, ok) -> bool | None:
    return None if value is None else bool(ok(value))
