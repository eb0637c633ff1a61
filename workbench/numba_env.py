"""The numba settings carbench is started with, checked before numba is imported (numba reads them once,
and a bad one ends in a traceback, or a crash, far from where it was set)."""

from __future__ import annotations

import os
from collections.abc import Mapping

THREADING_LAYERS = ("default", "safe", "forksafe", "threadsafe", "omp", "tbb", "workqueue")


def max_threads() -> int:
    """The most threads NUMBA_NUM_THREADS may ask for: 256, or the machine's CPUs where it has more."""
    return max(256, os.cpu_count() or 1)


def numba_env_problem(env: Mapping[str, str] | None = None) -> str | None:
    """One line saying what is wrong with NUMBA_NUM_THREADS or NUMBA_THREADING_LAYER and what is allowed, or None."""
    env = os.environ if env is None else env
    threads = env.get("NUMBA_NUM_THREADS")
    if threads is not None and threads.strip():
        text = threads.strip()
        top = max_threads()
        if not (text.isascii() and text.isdigit()) or len(text) > 6 or not 1 <= int(text) <= top:
            return (f"NUMBA_NUM_THREADS={threads!r}: must be a whole number of threads from 1 to {top} "
                    "(or unset: one per CPU)")
    layer = env.get("NUMBA_THREADING_LAYER")
    if layer is not None and layer.strip() and layer.strip().lower() not in THREADING_LAYERS:
        return (f"NUMBA_THREADING_LAYER={layer!r}: must be one of {', '.join(THREADING_LAYERS)} "
                "(or unset: carbench uses omp)")
    return None
