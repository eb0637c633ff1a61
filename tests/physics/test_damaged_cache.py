"""A damaged file in numba's cache of compiled code is a miss: compiled again and rewritten, said in one line.

numba writes its cache files by renaming, without syncing them: after a power loss one can be empty, half written
or zeros. Each case below compiles a few small functions through physics.jit's cache classes (a subsystem called
from Python and from a compiled caller, a ModelCache-backed dispatcher, a quick-loaded one) in a process of its own
with its own NUMBA_CACHE_DIR, damages every index (``.nbi``) or every data file (``.nbc``) of that cache, and runs
them again: the same results, no traceback, at most one ``carbench:`` line saying the cache was damaged; and the run
after that loads every function from the rewritten cache, silently.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from physics import jit

pytestmark = pytest.mark.skipif(jit.DISABLED, reason="NUMBA_DISABLE_JIT=1: nothing is compiled or cached")

ROOT = Path(__file__).resolve().parents[2]

SMALL = '''
import numba

from physics import jit


@jit.scalar
def half(x):
    return 0.5 * x


def _plus_half(x):
    return x + half(x)


plus_half = numba.njit(error_model="numpy")(_plus_half)
plus_half._cache = jit.ModelCache(_plus_half, "carbench-test")


@numba.njit(cache=True)
def squared(x):
    return x * x


jit.quick_load(squared)
print("results", half(3.0), plus_half(3.0), squared(3.0))
'''
EXPECTED = "results 1.5 4.5 9.0"


def _run(folder: Path, cache: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=str(cache), NUMBA_DEBUG_CACHE="1", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(folder / "small.py")], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300)


def _results(run: subprocess.CompletedProcess) -> str:
    return [line for line in run.stdout.splitlines() if line.startswith("results")][-1]


def _damage(path: Path, how: str) -> None:
    size = path.stat().st_size
    data = {"empty": b"", "half": path.read_bytes()[: size // 2], "zeros": bytes(size),
            "random": random.Random(f"{path.name}:{size}").randbytes(size)}[how]
    path.write_bytes(data)


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """The small functions compiled once: their folder and a warm cache (every cache class wrote files)."""
    folder = tmp_path_factory.mktemp("small")
    (folder / "small.py").write_text(SMALL)
    cache = folder / "warm-cache"
    run = _run(folder, cache)
    assert run.returncode == 0, run.stderr
    assert _results(run) == EXPECTED
    names = sorted(p.name for p in cache.rglob("*.nb[ic]"))
    # half: the subsystem as compiled callers use it and as Python calls it; _plus_half: ModelCache; squared: quick
    py = f"py{sys.version_info.major}{sys.version_info.minor}"
    for start, end in (("half-", f".{py}.nbi"), ("half-", "-python.nbi"), ("_plus_half-", ".nbi"), ("squared-", ".nbi")):
        assert any(name.startswith(f"small.{start}") and name.endswith(end) for name in names), names
    assert len(names) == 8, names  # an index and a data file each
    return folder, cache


# Each kind of damage once, each kind of file twice (all eight pairs failed on the code before, and held after; four
# keep the suite's time).
@pytest.mark.parametrize(("suffix", "how"), [(".nbi", "empty"), (".nbi", "half"), (".nbc", "zeros"), (".nbc", "random")])
def test_a_damaged_cache_file_is_compiled_again(warm, tmp_path, suffix, how):
    folder, warm_cache = warm
    cache = tmp_path / "cache"
    shutil.copytree(warm_cache, cache)
    damaged = sorted(cache.rglob(f"*{suffix}"))
    assert len(damaged) >= 4
    for path in damaged:
        _damage(path, how)

    run = _run(folder, cache)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert _results(run) == EXPECTED
    said = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(said) == 1, run.stderr
    assert said[0].startswith("carbench: ") and "cache was damaged" in said[0], said

    again = _run(folder, cache)  # numba rewrote good entries: every function is loaded, nothing compiled or said
    assert again.returncode == 0 and again.stderr.strip() == "", again.stderr
    assert _results(again) == EXPECTED
    assert "data saved" not in again.stdout and again.stdout.count("data loaded") >= 3, again.stdout


def test_a_cache_file_is_synced_before_it_is_renamed_into_place(tmp_path, monkeypatch):
    # numba renamed its cache files unsynced: after a power loss an index could be empty or zeros, and every other
    # entry it listed was compiled again. Each file's bytes are synced first, on the temporary name.
    synced = []
    real_fsync = os.fsync

    def recording(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording)
    cache_file = jit._SoundCacheFile(cache_path=str(tmp_path), filename_base="f-1.py311", source_stamp=("stamp", 1))
    cache_file._save_data("f-1.py311.1.nbc", b"compiled")
    cache_file._save_index({"key": "f-1.py311.1.nbc"})
    names = sorted(os.listdir(tmp_path))
    assert len(synced) == 2 and all(".tmp." in Path(p).name for p in synced), synced
    assert not any(".tmp." in n for n in names) and len(names) == 2
    assert cache_file._load_index() == {"key": "f-1.py311.1.nbc"}
