"""A batch's cars shared among threads (physics.pool): every car advanced once, on the threads asked for, the
same bits, and a call that returns only when every range it handed out is done."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from helpers import DT, preset

from physics import Inputs, Simulation, max_threads, pool, set_threads, threads
from physics.kernel import default_kernel
from physics.records import INPUTS, inputs_records


@pytest.mark.parametrize("cars, frames, asked", [(1, 4096, 2), (2, 1, 2), (3, 100, 2), (1000, 1, 2), (64, 240, 2),
                                                 (100_000, 4096, 8), (7, 4096, 16)])
def test_shares_cover_every_car_once_in_at_most_the_threads_asked(cars, frames, asked):
    bounds = pool.shares(cars, frames, asked)
    assert bounds[0] == 0 and bounds[-1] == cars
    assert all(a < b for a, b in zip(bounds[:-1], bounds[1:], strict=True))  # no empty range, none backwards
    ranges = len(bounds) - 1
    assert 1 <= ranges <= min(asked, cars)
    if ranges > 1:  # no thread given less work than it costs to hand it over
        assert min(b - a for a, b in zip(bounds[:-1], bounds[1:], strict=True)) * frames >= pool.MIN_CAR_FRAMES // 2
    if cars * frames >= pool.MIN_CAR_FRAMES * asked and cars >= asked:
        assert ranges == asked


def test_a_step_of_a_few_cars_stays_in_the_calling_thread():
    assert pool.shares(2, 1, 2) == [0, 2]
    assert pool.shares(255, 1, 8) == [0, 255]


def _block(n: int, frames: int) -> np.ndarray:
    block = np.zeros((frames, n), dtype=INPUTS)
    inputs_records(Inputs.from_keys(n, {"throttle", "left"}), block[:1])
    block[:] = block[0]
    return block


@pytest.mark.skipif(max_threads() < 2, reason="needs NUMBA_NUM_THREADS >= 2")
def test_a_batch_runs_its_cars_on_the_threads_asked_each_car_once(monkeypatch):
    compiled = default_kernel().entry(parallel=False)
    seen: list[tuple[int, int, str]] = []
    lock = threading.Lock()

    def watched(args, inputs, out, dt, frame0, lo, hi):
        with lock:
            seen.append((lo, hi, threading.current_thread().name))
        compiled(args, inputs, out, dt, frame0, lo, hi)

    kernel = default_kernel()
    monkeypatch.setattr(kernel, "_across", pool.across(watched, threads))
    before = threads()
    try:
        set_threads(2)
        sim = Simulation(preset("sedan"), n=40, dt=DT, parallel=True, kernel=kernel)
        two = sim.run(_block(40, 64))
        set_threads(1)
        seen_two = list(seen)
        seen.clear()
        one = Simulation(preset("sedan"), n=40, dt=DT, parallel=True, kernel=kernel).run(_block(40, 64))
    finally:
        set_threads(before)
    assert sorted((lo, hi) for lo, hi, _ in seen_two) == [(0, 20), (20, 40)]
    assert len({name for _, _, name in seen_two}) == 2  # the caller's thread and one of the pool's
    assert [(lo, hi) for lo, hi, _ in seen] == [(0, 40)]
    assert two.tobytes() == one.tobytes()


def test_an_interrupted_call_returns_only_when_every_range_is_done():
    release, done = threading.Event(), threading.Event()

    def interrupted():
        threading.Timer(0.05, release.set).start()  # the other range is still running when this raises
        raise KeyboardInterrupt

    def slow():
        release.wait()
        done.set()

    with pytest.raises(KeyboardInterrupt):
        pool._POOL.run([interrupted, slow])
    assert done.is_set()


def test_an_error_in_a_pool_thread_reaches_the_caller():
    def fails():
        raise ValueError("a range failed")

    with pytest.raises(ValueError, match="a range failed"):
        pool._POOL.run([lambda: None, fails])


def test_the_pool_threads_do_not_keep_the_process_alive():
    pool._POOL.run([lambda: None, lambda: None])
    workers = [t for t in threading.enumerate() if t.name.startswith("carbench-cars-")]
    assert workers and all(t.daemon for t in workers)


def test_set_threads_holds_in_every_thread():
    before = threads()
    seen = []
    try:
        set_threads(1)
        worker = threading.Thread(target=lambda: seen.append(threads()))
        worker.start()
        worker.join()
    finally:
        set_threads(before)
    assert seen == [1]
