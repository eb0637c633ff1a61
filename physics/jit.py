"""How the car model is compiled: numba's settings, the subsystem decorator and the thread count.

Importing this module (``physics`` does) fixes numba's setup before anything compiles:

- the threading layer is OpenMP (``omp``) unless ``NUMBA_THREADING_LAYER`` names another: the
  GUI thread and a background batch may launch kernels at the same time, and numba's
  ``workqueue`` layer aborts on concurrent launches;
- compiled kernels are cached beside the sources (``physics/__pycache__``); where the package
  directory is read-only (an installed site-packages) they go to ``~/.cache/carbench/numba``
  (``NUMBA_CACHE_DIR`` set by the user wins);
- ``NUMBA_DISABLE_JIT=1`` leaves every function plain Python, so a breakpoint in ``tyre.py`` works.
"""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def user_cache_dir() -> Path:
    """Where compiled kernels go when the package directory is not writable."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "carbench" / "numba"


if not os.environ.get("NUMBA_CACHE_DIR") and not os.access(_PACKAGE, os.W_OK):
    os.environ["NUMBA_CACHE_DIR"] = str(user_cache_dir())

import numba  # noqa: E402  (after the cache directory is chosen)

if os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
if not os.environ.get("NUMBA_THREADING_LAYER"):
    numba.config.THREADING_LAYER = "omp"

DISABLED = bool(numba.config.DISABLE_JIT)
"""True under NUMBA_DISABLE_JIT=1: the model runs as plain Python."""


def scalar(fn):
    """Compile a subsystem function: scalar floats in and out, no loops, numpy's error model.

    Not cached on its own: the functions are compiled into the kernel, whose cache entry is keyed
    on every source file of the model (see physics.kernel), so a change to any of them is seen.
    numpy's error model: a division by zero gives inf or nan (caught by the kernel's guard)
    instead of raising inside compiled code.
    """
    return numba.njit(error_model="numpy")(fn)


def max_threads() -> int:
    """The most threads a batch may use: NUMBA_NUM_THREADS (the number of cores by default)."""
    return int(numba.config.NUMBA_NUM_THREADS)


def set_threads(n: int) -> int:
    """Use ``n`` threads (1 .. NUMBA_NUM_THREADS) for batch kernels from now on; returns n."""
    top = max_threads()
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= top:
        raise ValueError(f"threads = {n!r}: must be a whole number from 1 to {top} (NUMBA_NUM_THREADS)")
    if not DISABLED:
        numba.set_num_threads(n)
    return n


def threads() -> int:
    """The number of threads batch kernels use now."""
    return 1 if DISABLED else int(numba.get_num_threads())
