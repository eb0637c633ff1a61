"""A sweep's expectations over a block of frames, compiled: each car's least margin to the bounds, and where.

:meth:`workbench.runs.measures.Tally.update_cars` calls it for a range of a chunk's cars on the thread that has
just stepped them (physics.Simulation.run's ``then``), so the reduction runs beside the stepping on every thread
instead of after it on one. It computes the bits of :meth:`Tally.update_block`'s numpy arithmetic: a margin is
``v - lo``, ``hi - v`` or the smaller of the two (NaN where v is), a frame whose margin is NaN is passed over,
and a car's value is that of the first frame of least margin, frames taken in order.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from physics.jit import DISABLED


@numba.njit(nogil=True, cache=True, error_model="numpy")
def least_margins(block, k0, columns, lows, highs, windows, margin, value, frame, lo, hi):  # pragma: no cover - compiled
    """Frames ``k0`` .. ``k0 + len(block) - 1`` of cars ``lo`` .. ``hi - 1``: ``block`` (frames, cars, channels),
    expectation e reads column ``columns[e]`` between the bounds ``lows[e]``, ``highs[e]`` over the frames
    ``windows[e]`` (first, last), and keeps its least margin, the value there and its frame in ``margin``, ``value``
    and ``frame`` (E, cars), updated where a frame's margin is less (strictly) than the one kept."""
    k1 = k0 + block.shape[0] - 1
    for e in range(columns.shape[0]):
        a, b = max(windows[e, 0], k0), min(windows[e, 1], k1)
        column, low, high = columns[e], lows[e], highs[e]
        upper_open, lower_open = math.isinf(high), math.isinf(low)
        for k in range(a, b + 1):
            for c in range(lo, hi):
                v = block[k - k0, c, column]
                if upper_open:
                    m = v - low
                elif lower_open:
                    m = high - v
                else:  # both sides NaN only where v is, and then m is: numpy's minimum of the two
                    below, above = v - low, high - v
                    m = below if below < above else above
                if m < margin[e, c]:  # False for NaN: passed over
                    margin[e, c] = m
                    value[e, c] = v
                    frame[e, c] = k


if not DISABLED:
    from physics.jit import quick_load

    quick_load(least_margins)  # its cache read as the model's is: a damaged file is a miss


def columns_of(expects, index: dict[str, int]) -> np.ndarray:
    """Each expectation's column of a block whose channels ``index`` numbers."""
    return np.array([index[x.channel] for x in expects], dtype=np.int64)
