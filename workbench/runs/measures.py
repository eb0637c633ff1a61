"""Measures and verdicts reduced from channels: over a whole recorded column (a replay), or frame by
frame for a batch of cars (a sweep), with the same arithmetic so the two agree to the bit.

A mean is the running sum of the window's values in frame order divided by their count (what
``np.cumsum`` computes), a crossing time is ``k * dt`` of the first frame k that reaches the
threshold, and a verdict's decisive value is the first frame of least margin to the bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.runs.margins import least_margins
from workbench.scripts.format import Expect, Measure
from workbench.scripts.program import Program


@dataclass(frozen=True)
class Measurement:
    """One [[measure]] taken: its value (None when a crossing never happens) in ``unit``."""

    measure: Measure
    first: int
    last: int
    value: float | None
    unit: str  # the channel's unit, or "s" for a crossing time


def script_channels(script) -> tuple[str, ...]:
    """The channels a script's [[expect]] and [[measure]] entries read, each once, in the order first named."""
    return tuple(dict.fromkeys([x.channel for x in script.expects] + [m.channel for m in script.measures]))


def measure_unit(measure: Measure, channel_unit: str) -> str:
    return "s" if measure.is_time else channel_unit


def bounds(expect: Expect) -> tuple[float, float]:
    return (-math.inf if expect.min is None else expect.min, math.inf if expect.max is None else expect.max)


def measure_column(measure: Measure, values: np.ndarray, first: int, last: int, dt: float) -> float:
    """``measure`` over ``values[first..last]``; NaN when a crossing never happens."""
    window = np.asarray(values[first:last + 1], dtype=float)
    reduce = measure.reduce
    if reduce == "final":
        return float(window[-1])
    if reduce == "min":
        return float(window.min())
    if reduce == "max":
        return float(window.max())
    if reduce == "mean":
        return float(np.cumsum(window)[-1] / len(window))
    hit = window >= measure.threshold if reduce == "first_time_above" else window <= measure.threshold
    if not hit.any():
        return math.nan
    return (first + int(np.argmax(hit))) * dt


class Tally:
    """Per-car verdicts and measures of one program over a batch of ``n`` cars, updated frame by frame.

    Keeps O(cars) numbers per expectation and measure, never the telemetry: ``update(k, telemetry)`` after each
    step (or ``update_block`` after several), then read ``expect_value``, ``expect_margin`` (E, n) and ``measure_value`` (M, n).
    """

    def __init__(self, program: Program, n: int):
        self.program = program
        self.n = n
        self.expects = program.script.expects
        self.measures = program.script.measures
        e, m = len(self.expects), len(self.measures)
        self.expect_value = np.zeros((e, n))
        self.expect_margin = np.full((e, n), math.inf)
        self.expect_frame = np.zeros((e, n), dtype=np.int64)
        self.measure_value = np.full((m, n), math.nan)
        self._sums = np.zeros((m, n))
        self._bounds = [bounds(x) for x in self.expects]
        self._lows = np.array([lo for lo, _ in self._bounds], dtype=float)
        self._highs = np.array([hi for _, hi in self._bounds], dtype=float)
        self._windows = np.array(program.windows, dtype=np.int64).reshape(e, 2)

    @property
    def channels(self) -> tuple[str, ...]:
        """The channels the expectations and measures read, each once, in the order first named."""
        return script_channels(self.program.script)

    @property
    def last_frame(self) -> int:
        """The last frame any entry looks at (a sweep can stop stepping after it)."""
        return max((last for _, last in (*self.program.windows, *self.program.measure_windows)), default=-1)

    def update(self, k: int, telemetry) -> None:
        """Frame ``k``: ``telemetry`` has each channel the entries read as an attribute (one value a car)."""
        names = self.channels
        row = np.stack([np.asarray(getattr(telemetry, name), dtype=float) for name in names], axis=-1)
        self.update_block(k, row[None], {name: j for j, name in enumerate(names)})

    def update_block(self, k0: int, block: np.ndarray, index: dict[str, int]) -> None:
        """Frames ``k0`` .. ``k0 + len(block) - 1`` at once, with the bits of one frame at a time (:meth:`update`):
        ``block`` is (frames, cars, channels), ``index`` each channel's column. A sweep tallies a block a call: its
        Python per frame cost more than the arithmetic (0.14 s of a 10,000-car sweep's 2 s)."""
        self._expects_block(k0, block, index)
        self.update_measures(k0, block, index)

    def update_cars(self, k0: int, block: np.ndarray, columns: np.ndarray, lo: int, hi: int) -> None:
        """The expectations of cars ``lo`` .. ``hi - 1`` over the frames of ``block`` from ``k0``, compiled
        (workbench.runs.margins), with the bits of :meth:`update_block`; ``columns`` is each expectation's column of
        ``block`` (margins.columns_of). Ranges of cars that do not overlap may be tallied at once, on several threads;
        the measures are :meth:`update_measures`'."""
        least_margins(block, k0, columns, self._lows, self._highs, self._windows, self.expect_margin,
                      self.expect_value, self.expect_frame, lo, hi)

    def _expects_block(self, k0: int, block: np.ndarray, index: dict[str, int]) -> None:
        k1 = k0 + len(block) - 1
        cars = np.arange(self.n)
        for i, (first, last) in enumerate(self.program.windows):
            a, b = max(first, k0), min(last, k1)
            if a > b:
                continue
            values = block[a - k0:b - k0 + 1, :, index[self.expects[i].channel]]
            lo, hi = self._bounds[i]
            # min(v - lo, hi - v), in one pass where a side is open: the same values (v - -inf is inf)
            margin = (values - lo if math.isinf(hi) else hi - values if math.isinf(lo)
                      else np.minimum(values - lo, hi - values))
            # A frame with no margin (NaN) is passed over as frame by frame passes it; argmin would stop at it
            margin = np.where(np.isnan(margin), np.inf, margin)
            j = np.argmin(margin, axis=0)  # the first frame of least margin in the block, as frame by frame
            least = margin[j, cars]
            worse = least < self.expect_margin[i]
            self.expect_margin[i] = np.where(worse, least, self.expect_margin[i])
            self.expect_value[i] = np.where(worse, values[j, cars], self.expect_value[i])
            self.expect_frame[i] = np.where(worse, a + j, self.expect_frame[i])

    def update_measures(self, k0: int, block: np.ndarray, index: dict[str, int]) -> None:
        """The measures over frames ``k0`` .. ``k0 + len(block) - 1`` of every car (see :meth:`update_block`)."""
        k1 = k0 + len(block) - 1
        for i, (first, last) in enumerate(self.program.measure_windows):
            a, b = max(first, k0), min(last, k1)
            if a > b:
                continue
            measure = self.measures[i]
            values = np.asarray(block[a - k0:b - k0 + 1, :, index[measure.channel]], dtype=float)
            out, reduce = self.measure_value, measure.reduce
            if reduce == "final":
                if b == last:
                    out[i] = values[-1]
            elif reduce == "min":
                out[i] = values.min(axis=0) if a == first else np.minimum(out[i], values.min(axis=0))
            elif reduce == "max":
                out[i] = values.max(axis=0) if a == first else np.maximum(out[i], values.max(axis=0))
            elif reduce == "mean":  # the running sum in frame order, as np.cumsum adds
                rows = values if a == first else np.concatenate([self._sums[i][None], values])
                self._sums[i] = np.cumsum(rows, axis=0)[-1]
                if b == last:
                    out[i] = self._sums[i] / (last - first + 1)
            else:
                hit = values >= measure.threshold if reduce == "first_time_above" else values <= measure.threshold
                when = (a + np.argmax(hit, axis=0)) * self.program.dt
                out[i] = np.where(np.isnan(out[i]) & hit.any(axis=0), when, out[i])

    @property
    def expect_passed(self) -> np.ndarray:
        return self.expect_margin >= 0
