"""A batch's cars shared among threads (physics.pool): every car advanced once, on the threads asked for, the
same bits, and a call that returns only when every range it handed out is done."""

from __future__ import annotations

import os
import subprocess
import sys
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


@pytest.mark.skipif(max_threads() < 2 or os.environ.get("NUMBA_DISABLE_JIT") == "1",
                    reason="needs NUMBA_NUM_THREADS >= 2 and compiled code (plain Python runs one thread)")
def test_a_batch_runs_its_cars_on_the_threads_asked_each_car_once(monkeypatch):
    kernel = default_kernel()
    kernel.compile()
    compiled = kernel._compiled["whole"]  # the four-wheel sedan's block
    seen: list[tuple[int, int, str]] = []
    lock = threading.Lock()

    second = threading.Event()

    def watched(args, inputs, out, dt, frame0, lo, hi):
        with lock:
            seen.append((lo, hi, threading.current_thread().name))
        if lo > 0:
            second.set()
        elif hi < 40:  # the caller's own range waits until a pool thread has taken the other (else it may run both)
            second.wait(timeout=60)
        compiled(args, inputs, out, dt, frame0, lo, hi)

    monkeypatch.setitem(kernel._compiled, "whole", watched)  # what entry() shares among the threads
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


@pytest.mark.skipif(max_threads() < 2 or os.environ.get("NUMBA_DISABLE_JIT") == "1",
                    reason="needs NUMBA_NUM_THREADS >= 2 and compiled code (plain Python runs one thread)")
def test_then_runs_for_each_range_on_the_thread_that_stepped_it_once_its_frames_are_written(monkeypatch):
    """Simulation.run's ``then``: a sweep tallies each range of cars on the thread that stepped it. Every car is in
    one range a block of frames, each range is reported by the thread that ran it, after its frames are in the
    telemetry (they are those of a run without it), and each block of frames (BLOCK_FRAMES) is reported apart. (Which
    thread takes a range depends on how busy the machine is: the caller runs any a pool thread has not started.)"""
    import physics.simulation as simulation

    monkeypatch.setattr(simulation, "BLOCK_FRAMES", 16)
    n, frames = 40, 48  # blocks of 16 frames: 640 car-frames, two threads' worth (pool.MIN_CAR_FRAMES)
    plain = Simulation(preset("sedan"), n=n, dt=DT, parallel=True).run(_block(n, frames), channels=["vx", "yaw_rate"])
    out = np.full((frames, n, 2), np.nan)
    seen: list[tuple[int, int, int, int, str]] = []
    lock = threading.Lock()

    def then(lo, hi, start, end):
        written = out[start:end, lo:hi]
        assert not np.isnan(written).any() and np.isnan(out[end:, lo:hi]).all()
        assert written.tobytes() == np.ascontiguousarray(plain[start:end, lo:hi]).tobytes()
        with lock:
            seen.append((lo, hi, start, end, threading.current_thread().name))

    before = threads()
    try:
        set_threads(2)
        Simulation(preset("sedan"), n=n, dt=DT, parallel=True).run(_block(n, frames), out, ["vx", "yaw_rate"],
                                                                     then=then)
        two = list(seen)
        seen.clear()
        set_threads(1)
        Simulation(preset("sedan"), n=n, dt=DT, parallel=True).run(_block(n, frames), out * np.nan,
                                                                     ["vx", "yaw_rate"], then=lambda *a: seen.append(a))
    finally:
        set_threads(before)
    assert sorted(r[:4] for r in two) == [(0, 20, 0, 16), (0, 20, 16, 32), (0, 20, 32, 48), (20, 40, 0, 16),
                                         (20, 40, 16, 32), (20, 40, 32, 48)]
    assert seen == [(0, n, 0, 16), (0, n, 16, 32), (0, n, 32, 48)]


def test_an_error_in_then_reaches_the_caller():
    def then(lo, hi, start, end):
        raise ZeroDivisionError("in then")

    with pytest.raises(ZeroDivisionError, match="in then"):
        Simulation(preset("sedan"), n=4, dt=DT).run(_block(4, 8), channels=["vx"], then=then)


def test_an_interrupted_call_returns_only_when_every_running_range_is_done():
    started, release, done = threading.Event(), threading.Event(), threading.Event()

    def interrupted():
        started.wait(timeout=60)  # the other range is running on a pool thread
        threading.Timer(0.05, release.set).start()  # and still is when this raises
        raise KeyboardInterrupt

    def slow():
        started.set()
        release.wait()
        done.set()

    with pytest.raises(KeyboardInterrupt):
        pool._Pool().run([interrupted, slow])
    assert done.is_set()


def _busy_pool(count: int = 1):
    """A pool of ``count`` threads, each held by another caller's range until the returned event is set."""
    busy, release, all_held = pool._Pool(), threading.Event(), threading.Event()
    started, lock = [], threading.Lock()

    def hold():
        with lock:
            started.append(1)
            if len(started) == count:
                all_held.set()
        release.wait()

    # The other caller's own range waits until its others are running: on the pool's threads, not taken back.
    other = threading.Thread(target=busy.run, args=([lambda: all_held.wait(timeout=60)] + [hold] * count,))
    other.start()
    assert all_held.wait(timeout=60)
    backstop = threading.Timer(60, release.set)  # a pool that made the caller wait fails the test, not the suite
    backstop.daemon = True
    backstop.start()
    return busy, release, other


def test_a_caller_runs_its_own_ranges_when_the_pool_threads_are_busy():
    busy, release, other = _busy_pool()
    ran = []
    try:
        busy.run([lambda: ran.append(threading.current_thread().name), lambda: ran.append(
            threading.current_thread().name)])
    finally:
        release.set()
        other.join()
    assert ran == [threading.current_thread().name] * 2  # both here: nothing waited behind the other caller's range


def test_an_interrupted_call_starts_no_more_ranges():
    busy, release, other = _busy_pool()
    ran = []

    def interrupted():
        raise KeyboardInterrupt

    try:
        with pytest.raises(KeyboardInterrupt):
            busy.run([interrupted, lambda: ran.append("started")])
    finally:
        release.set()
        other.join()
    assert ran == []


def test_an_error_in_a_pool_thread_reaches_the_caller():
    ran = threading.Event()
    where = []

    def mine():
        ran.wait(timeout=60)  # the failing range is under way on a pool thread, not taken back by this one

    def fails():
        where.append(threading.current_thread().name)
        ran.set()
        raise ValueError("a range failed")

    with pytest.raises(ValueError, match="a range failed"):
        pool._Pool().run([mine, fails])
    assert where and where[0].startswith("carbench-cars-")


def test_an_interrupt_in_a_range_taken_back_stops_the_rest():
    busy, release, other = _busy_pool(2)
    ran = []

    def interrupted():
        raise KeyboardInterrupt

    try:
        with pytest.raises(KeyboardInterrupt):  # the caller takes both back: the pool's two threads are held
            busy.run([lambda: ran.append("own"), interrupted, lambda: ran.append("after")])
    finally:
        release.set()
        other.join()
    assert ran == ["own"]


def test_an_interrupt_wins_over_an_error():
    started = threading.Event()

    def fails():
        started.wait(timeout=60)  # the interrupted range is under way on a pool thread
        raise ValueError("a range failed")

    def interrupted():
        started.set()
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        pool._Pool().run([fails, interrupted])


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


FORKED = """
import os, sys
import numpy as np
from physics import Inputs, Simulation, load_preset, set_threads
from physics.records import INPUTS, inputs_records

set_threads(2)
block = np.zeros((64, 40), dtype=INPUTS)
inputs_records(Inputs.from_keys(40, {"throttle", "left"}), block[:1])
block[:] = block[0]
sedan = load_preset("sedan").params
before = Simulation(sedan, n=40, parallel=True).run(block)  # the pool's threads now exist in this process
child = os.fork()
if child == 0:
    import signal
    signal.alarm(240)  # a child that hangs ends, and is not left behind  # the child has none of them: its batch must make its own, not wait for threads that are not there
    again = Simulation(sedan, n=40, parallel=True).run(block)
    os._exit(0 if again.tobytes() == before.tobytes() else 3)
_, status = os.waitpid(child, 0)
print("child", os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork") or max_threads() < 2 or os.environ.get("NUMBA_DISABLE_JIT") == "1",
                    reason="needs fork, NUMBA_NUM_THREADS >= 2 and compiled code")
def test_a_forked_child_runs_its_batches_on_threads_of_its_own():
    done = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["child", "0"]


def test_a_finished_batch_leaves_nothing_of_its_arrays_in_the_pool():
    import gc
    import weakref

    fresh = pool._Pool()
    data = np.ones(1000)
    gone = weakref.ref(data)
    on_pool = threading.Event()

    def mine():
        on_pool.wait(timeout=60)  # the other range runs on the pool's thread, not taken back by this one

    def theirs(d=data):
        on_pool.set()
        d[0] = 2.0

    fresh.run([mine, theirs])
    assert data[0] == 2.0
    del data, theirs, mine
    gc.collect()
    assert gone() is None  # a pool thread waiting for its next job holds none of this one's arrays
