"""The numba settings carbench is started with, checked before numba is imported (numba reads them once,
and a bad one ends in a traceback, or a crash, far from where it was set)."""

from __future__ import annotations

import importlib
import os
import re
import sys
import warnings
from collections.abc import Mapping, MutableMapping

# As physics.jit does: numba reads this once, when it is imported, and the threading layer's check below may import
# it before physics (the first compile colours thousands of error messages it throws away otherwise).
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

THREADING_LAYERS = ("default", "safe", "forksafe", "threadsafe", "omp", "tbb", "workqueue")
SETTINGS = ("NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER")

# numba's own choice among its three layers for each value (numba.np.ufunc.parallel._launch_threads).
_CANDIDATES = {
    "tbb": ("tbb",), "omp": ("omp",), "workqueue": ("workqueue",),
    "safe": ("tbb",),  # fork- and thread-safe: TBB only
    "threadsafe": ("tbb", "omp"),
    "forksafe": ("tbb", "workqueue") if sys.platform.startswith("linux") else ("tbb", "omp", "workqueue"),
    "default": ("tbb", "omp", "workqueue"),
}
_MODULES = {"tbb": "numba.np.ufunc.tbbpool", "omp": "numba.np.ufunc.omppool", "workqueue": "numba.np.ufunc.workqueue"}
_MISSING = {"tbb": "Intel TBB (2021.6 or later) is not installed: pip install tbb",
            "omp": "no OpenMP runtime here", "workqueue": "numba's workqueue is missing"}


def max_threads() -> int:
    """The most threads NUMBA_NUM_THREADS may ask for: 256, or the machine's CPUs where it has more."""
    return max(256, os.cpu_count() or 1)


def tidy_numba_env(env: MutableMapping[str, str] | None = None) -> None:
    """An empty setting (``NUMBA_NUM_THREADS=``) is taken as unset, and spaces around a value are dropped:
    numba would print a nine-line warning for the empty one, or refuse ``' omp'`` at the first batch."""
    env = os.environ if env is None else env
    for name in SETTINGS:
        value = env.get(name)
        if value is None:
            continue
        if not value.strip():
            del env[name]
        elif value != value.strip():
            env[name] = value.strip()


def numba_env_problem(env: Mapping[str, str] | None = None) -> str | None:
    """One line saying what is wrong with NUMBA_NUM_THREADS or NUMBA_THREADING_LAYER and what is allowed, or, for
    this process's own environment, with any other NUMBA_ setting (:func:`other_setting_problem`); None when nothing.

    The values are checked without numba; a threading layer that is spelt right is then tried the way
    numba will try it (its library loaded), since a missing TBB would otherwise fail the first batch
    with a traceback.
    """
    env = os.environ if env is None else env
    return _threads_problem(env) or (other_setting_problem() if env is os.environ else None)


def _threads_problem(env: Mapping[str, str]) -> str | None:
    """:func:`numba_env_problem` of NUMBA_NUM_THREADS and NUMBA_THREADING_LAYER."""
    threads = env.get("NUMBA_NUM_THREADS")
    if threads is not None and threads.strip():
        text = threads.strip()
        top = max_threads()
        if not (text.isascii() and text.isdigit()) or len(text) > 6 or not 1 <= int(text) <= top:
            return (f"NUMBA_NUM_THREADS={threads!r}: must be a whole number of threads from 1 to {top} "
                    "(or unset: one per CPU)")
    layer = env.get("NUMBA_THREADING_LAYER")
    if layer is None or not layer.strip():
        return None
    name = layer.strip().lower()
    if name not in THREADING_LAYERS:
        return (f"NUMBA_THREADING_LAYER={layer!r}: must be one of {', '.join(THREADING_LAYERS)} "
                "(or unset: carbench uses omp)")
    if name == "default":
        return None
    loads = {candidate: layer_loads(candidate) for candidate in _CANDIDATES[name]}
    if any(loads.values()):
        return None
    usable = [value for value in THREADING_LAYERS
              if value == "default" or any(layer_loads(c) for c in _CANDIDATES[value])]
    why = "; ".join(_MISSING[c] for c in _CANDIDATES[name])
    return (f"NUMBA_THREADING_LAYER={layer!r}: cannot be loaded here ({why}); "
            f"the layers that load here: {', '.join(usable)} (or unset: carbench uses omp)")


def layer_loads(layer: str) -> bool:
    """Whether numba can load its threading layer ``layer`` (tbb, omp or workqueue) in this process.

    numba's own test: TBB's runtime must be recent enough, then the layer's extension module must
    import (it links the layer's library). Importing numba here is safe: the settings it reads at
    import were checked first.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if layer == "tbb":
                from numba.np.ufunc import parallel

                check = getattr(parallel, "_check_tbb_version_compatible", None)
                if check is not None:
                    check()
            importlib.import_module(_MODULES[layer])
    except ImportError:
        return False
    except Exception:  # noqa: BLE001 - a layer that fails to load in any other way does not load either
        return False
    return True


_READ_HERE = (*SETTINGS, "NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "NUMBA_CACHE_DIR")
"""numba settings checked above, or set by carbench, or a folder (which numba takes as any text)."""

_UNPARSED = re.compile(r"Environment variable '(NUMBA_\w+)' is defined but its associated value '(.*)' could not be "
                       r"parsed", re.DOTALL)


def other_setting_problem() -> str | None:
    """One line for the first NUMBA_ setting of this process's environment that numba cannot read (NUMBA_OPT=7,
    NUMBA_BOUNDSCHECK=x), or None. numba reads them all when it is imported (safe once the two above are checked)
    and warns of a bad one with its own 12-line traceback, then goes on with its default."""
    if "numba.core.config" in sys.modules:  # read already (and warned); reading again would undo physics.jit's setup
        return None
    if not any(name.startswith("NUMBA_") and name not in _READ_HERE for name in os.environ):
        return None  # nothing for numba to refuse: not imported for it (`carbench --help` loads no numba)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        try:
            importlib.import_module("numba.core.config")
        except Exception:  # noqa: BLE001 - numba's own reading failing otherwise is numba's to say, later
            return None
    for warning in caught:
        text = str(warning.message)
        found = _UNPARSED.match(text)
        if found:
            lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
            why = lines[-1].split(": ", 1)[-1] if lines else "numba cannot read it"
            return f"{found[1]}={found[2]!r}: numba cannot read it ({why}); unset it or give a value numba takes"
    for warning in caught:  # any other warning of numba's import is numba's to say, as it would have
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return None
