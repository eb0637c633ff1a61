"""A user cache seeded with the model's compiled subsystem functions, for the tests of a cold start.

Those tests run the first start in a fresh cache; what they check (where the kernel goes, the one notice, a
signal or a full stream during it) needs the kernel itself compiled, not the hundred-odd functions under it.
Copying those functions' cache entries (physics.jit caches each, keyed on every model source) leaves only the
kernel to compile: a few seconds instead of twenty.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from numba.core.caching import _CacheLocator

import physics.kernel
from physics.jit import DISABLED


def seed_subsystems(cache_dir: Path) -> int:
    """Copy every cached subsystem function (not the kernel) into the user cache ``cache_dir`` (as numba lays out
    NUMBA_CACHE_DIR); returns how many files were copied."""
    if DISABLED:
        return 0
    physics.kernel.default_kernel().compile()  # the in-tree cache holds every function once this has run
    tree = Path(physics.kernel.__file__).parent / "__pycache__"
    target = Path(cache_dir) / _CacheLocator.get_suitable_cache_subpath(physics.kernel.__file__)
    target.mkdir(parents=True, exist_ok=True)
    copied = 0
    for path in tree.glob("*.nb[ic]"):
        if not path.name.startswith("kernel."):
            shutil.copy2(path, target / path.name)
            copied += 1
    return copied
