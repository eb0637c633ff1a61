"""The kernel's two blocks (physics.kernel.KINDS): single-track cars run through one, four-wheel cars and the kinematic
bicycle through the other, each compiled when a batch first needs it. A first run of one kind does not wait for the
other's compile; a batch of both kinds runs each run of neighbours through its own block, with each car's bits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import DT, preset
from numba_cache import seed_subsystems

from physics import Simulation, records
from physics.jit import DISABLED
from physics.kernel import KINDS, Workspace, default_kernel, kinds_of, two_part

REPO = Path(__file__).resolve().parents[2]


def _records(names):
    return np.concatenate([Simulation(preset(name), dt=DT).car.records for name in names])


def test_each_kind_of_car_names_its_block():
    assert kinds_of(_records(["sedan_single_track", "manual003", "classic"])) == ("two",)
    assert kinds_of(_records(["sedan", "teaching"])) == ("whole",)  # four wheels, and the kinematic bicycle
    mixed = _records(["sedan", "sedan_single_track", "teaching", "manual003"])
    assert kinds_of(mixed) == KINDS
    assert two_part(mixed).tolist() == [False, True, False, True]


def _replay(script: Path, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
    env.pop("DISPLAY", None)
    return subprocess.run([sys.executable, "-m", "workbench", "replay", str(script)], cwd=script.parent, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def _blocks(cache: Path) -> set[str]:
    return {kind for kind in KINDS if list(cache.rglob(f"kernel._block_{kind}*.nbi"))}


@pytest.mark.skipif(DISABLED, reason="plain Python compiles nothing")
def test_a_first_run_compiles_the_block_its_car_needs_and_no_other(tmp_path):
    cache = tmp_path / "cache"
    seed_subsystems(cache)  # only the kernel's blocks left to compile
    script = tmp_path / "S.toml"
    script.write_text('[script]\nname = "s"\npreset = "sedan_single_track"\nduration = 1.0\n'
                      '[[hold]]\nkeys = ["throttle"]\nfrom = 0.0\nto = 1.0\n'
                      '[[expect]]\nchannel = "speed"\nat = 0.9\nmin = 0.1\n', encoding="utf-8")
    done = _replay(script, cache)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
    assert "compiling the car model" in done.stderr
    assert _blocks(cache) == {"two"}  # the four-wheel car's block waits until a four-wheel car runs
    script.write_text(script.read_text(encoding="utf-8").replace("sedan_single_track", "sedan"), encoding="utf-8")
    done = _replay(script, cache)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
    assert _blocks(cache) == {"two", "whole"}
    done = _replay(script, cache)  # both from the cache now: nothing compiled, nothing said
    assert done.returncode == 0 and "compiling" not in done.stderr, done.stderr


def test_a_batch_of_both_kinds_gives_each_car_its_bits_alone():
    names = ["sedan", "sedan", "sedan_single_track", "teaching", "manual003", "manual003", "sedan"]
    params = _records(names)
    rng = np.random.default_rng(60)
    inputs = np.zeros((240, len(names)), dtype=records.INPUTS)
    for key, share in (("throttle", 0.7), ("brake", 0.1), ("left", 0.4), ("right", 0.3)):
        inputs[key] = np.repeat(rng.random((12, len(names))) < share, 20, axis=0)
    state = np.concatenate([Simulation(preset(name), dt=DT).state.view(np.ndarray) for name in names])
    together = np.empty(inputs.shape, dtype=records.TELEMETRY)
    default_kernel().run(params, state.copy(), inputs, together, DT, 0, work=Workspace(len(names)))
    for i in range(len(names)):
        alone = np.empty((240, 1), dtype=records.TELEMETRY)
        default_kernel().run(params[i:i + 1].copy(), state[i:i + 1].copy(), np.ascontiguousarray(inputs[:, i:i + 1]),
                             alone, DT, 0, work=Workspace(1))
        assert together[:, i].tobytes() == alone[:, 0].tobytes(), names[i]
    assert np.ptp(together["speed"], axis=0).min() > 0.5  # every car moved


def test_a_batch_of_no_cars_runs_nothing():
    """An empty batch (the kernel's own callers may hand one over) raised IndexError choosing its block."""
    telemetry = np.empty((5, 0), dtype=records.TELEMETRY)
    default_kernel().run(np.zeros(0, dtype=records.PARAMS), np.zeros(0, dtype=records.STATE),
                         np.zeros((5, 0), dtype=records.INPUTS), telemetry, DT, 0, work=Workspace(0))
    assert telemetry.shape == (5, 0)


@pytest.mark.skipif(DISABLED, reason="plain Python runs one thread")
def test_a_batch_of_both_kinds_on_two_threads_tells_each_range_once_with_each_cars_bits():
    """physics.pool cuts a batch of both kinds where its threads' shares fall, across the runs of one kind: every car
    is stepped once, each range's ``then`` told once, and the bits are those of one thread."""
    import threading

    from physics import max_threads, set_threads, threads

    if max_threads() < 2:
        pytest.skip("needs two threads")
    names = ["sedan", "sedan_single_track"] * 6 + ["teaching", "manual003"] * 3
    params = _records(names)
    state = np.concatenate([Simulation(preset(name), dt=DT).state.view(np.ndarray) for name in names])
    inputs = np.zeros((120, len(names)), dtype=records.INPUTS)
    inputs["throttle"] = True
    inputs["left"][60:] = True
    runs = {}
    told, lock = [], threading.Lock()
    before = threads()
    try:
        for count in (1, 2):
            set_threads(count)
            out = np.empty(inputs.shape, dtype=records.TELEMETRY)
            told.clear()

            def then(lo, hi):
                with lock:
                    told.append((lo, hi))

            default_kernel().run(params, state.copy(), inputs, out, DT, 0, parallel=True, work=Workspace(len(names)),
                                 then=then)
            runs[count] = out
            covered = sorted(told)
            assert covered[0][0] == 0 and covered[-1][1] == len(names)
            assert all(a[1] == b[0] for a, b in zip(covered, covered[1:], strict=False))  # each car in one range
            if count == 2:
                assert len(covered) == 2  # two threads' ranges, each cutting across runs of both kinds
    finally:
        set_threads(before)
    assert runs[1].tobytes() == runs[2].tobytes()
    assert np.ptp(runs[2]["speed"], axis=0).min() > 0.5
