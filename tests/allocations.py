"""Counting the calls of a step that allocate (tracemalloc), shared by the single-step and live-step tests."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

NUMBA_CALL_BYTES = 1024  # numba's wrapper takes about 48 bytes per array argument for the call (12 of them)
WARM_UP = 10  # calls made under tracing before counting (the first call traced in a process allocated 1,344 bytes once)


def steps_that_allocate(step: Callable[[], object], steps: int = 1000, threshold: int = NUMBA_CALL_BYTES,
                        passes: int = 3) -> int:
    """How many of ``steps`` calls of ``step()`` allocated more than ``threshold`` bytes while they ran
    (tracemalloc's peak within each call, arrays included: numpy reports its data to tracemalloc; one
    frame's telemetry record alone is 816 bytes).

    tracemalloc counts the allocations of every thread of the process, and a suite's worker process can
    hold a thread an earlier test left running (one allocating step in 1,000 was seen that way in a full
    run, never in the test alone). So the count is the least of up to ``passes`` passes: an allocation of
    the step itself shows in every pass, another thread's once in a while."""
    counts = []
    for _ in range(passes):
        counts.append(_one_pass(step, steps, threshold))
        if counts[-1] == 0:
            break
    return min(counts)


def _one_pass(step: Callable[[], object], steps: int, threshold: int) -> int:
    tracemalloc.start()
    try:
        for _ in range(WARM_UP):
            step()
        allocating = 0
        for _ in range(steps):
            tracemalloc.reset_peak()
            before, _ = tracemalloc.get_traced_memory()
            step()
            _, peak = tracemalloc.get_traced_memory()
            allocating += peak - before > threshold
        return allocating
    finally:
        tracemalloc.stop()
