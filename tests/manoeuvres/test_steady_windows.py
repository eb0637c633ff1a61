"""ISO 4138's steady seconds from running maxima and minima in O(frames) (workbench.manoeuvres.steady_state): the values
numpy's sliding windows gave, and the same KPIs, at a third of a sweep's time."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from workbench.manoeuvres.steady_state import window_max, window_min


@pytest.mark.parametrize(("length", "n"), [(length, n) for length in (1, 5, 119, 120, 121, 241, 8401)
                                            for n in (1, 2, 7, 120) if n <= length])
def test_running_maxima_and_minima_are_the_windows_own(length, n):
    rng = np.random.default_rng(length * 1000 + n)
    x = rng.normal(size=length) * 10.0
    x[rng.random(length) < 0.2] = 3.0  # ties
    x[rng.random(length) < 0.05] = np.inf * rng.choice([-1.0, 1.0])
    windows = sliding_window_view(x, n)
    assert np.array_equal(window_max(x, n), windows.max(axis=1))
    assert np.array_equal(window_min(x, n), windows.min(axis=1))
    assert len(window_max(x, n)) == length - n + 1


def test_a_monotone_run_gives_each_windows_end():
    x = np.arange(10.0)
    assert window_max(x, 3).tolist() == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    assert window_min(x, 3).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
