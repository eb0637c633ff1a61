"""The sweep benchmark's memory figure is the measured process's own, not the benchmark's that started it."""

from __future__ import annotations

import subprocess
import sys

from workbench.runs.sweep_bench import peak_rss_mb


def test_peak_memory_is_the_subprocess_own():
    ballast = bytearray(300 * 1024 * 1024)
    for i in range(0, len(ballast), 4096):  # touch every page: resident, not only reserved
        ballast[i] = 1
    here = peak_rss_mb()
    assert here > 300.0
    code = "from workbench.runs.sweep_bench import peak_rss_mb; print(peak_rss_mb())"
    child = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert 0.0 < child < here - 250.0, (child, here)
    del ballast
