"""SPEC 2: a car's telemetry is bit-identical whatever the batch around it.

The same car with the same inputs, run alone, at several positions of batches of 7 and 64
different cars, over 1 and 2 threads, and in chunks of frames instead of one call: every channel
of every frame has the same bits. Per-car parameter records mean that a batch of one preset
repeated and a batch of variants treat a car alike.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from helpers import DT, frames, preset
from test_stability import random_schedule

from physics import Simulation, max_threads, set_threads, threads
from physics.records import INPUTS, TELEMETRY, inputs_records

SECONDS = 10.0
TORQUES = np.linspace(250.0, 450.0, 64)  # [N m] engine.peak_torque of the other cars


FROM = 15.0  # [s] where the fuzz driver of test_stability drives off (6 s in 1st, then random keys)


@cache
def script_inputs(seed: int, n_frames: int) -> np.ndarray:
    """(frames,) INPUTS of one random driver: test_stability's fuzz driver from FROM on."""
    schedule = random_schedule(np.random.default_rng(seed), True, DT)
    first = frames(FROM, DT)
    out = np.zeros((n_frames, 1), dtype=INPUTS)
    j = 0
    for k in range(n_frames):
        while j + 1 < len(schedule) and schedule[j + 1][0] <= first + k:
            j += 1
        inputs_records(schedule[j][1], out[k:k + 1])
    return out[:, 0]


N_FRAMES = frames(SECONDS, DT)
OURS = script_inputs(11, N_FRAMES)


def batch(size: int, position: int):
    """Cars and inputs of a batch of ``size`` with our car at ``position``; the others differ in both."""
    sedan = preset("sedan")
    cars = [sedan.with_value("engine.peak_torque", float(TORQUES[i])) for i in range(size)]
    cars[position] = sedan
    inputs = np.zeros((N_FRAMES, size), dtype=INPUTS)
    for i in range(size):
        inputs[:, i] = OURS if i == position else script_inputs(100 + i, N_FRAMES)
    return cars, inputs


def run(cars, inputs, chunks=(None,), parallel=None) -> np.ndarray:
    sim = Simulation(cars, dt=DT, parallel=parallel)
    out = np.empty(inputs.shape, dtype=TELEMETRY)
    bounds = [0] + [c for c in chunks if c is not None] + [inputs.shape[0]]
    for start, end in zip(bounds[:-1], bounds[1:], strict=True):
        sim.run(inputs[start:end], out[start:end])
    return out


@pytest.fixture(scope="module")
def alone() -> np.ndarray:
    return run([preset("sedan")], OURS[:, None])[:, 0]


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.tobytes() == b.tobytes()


def test_the_drive_is_not_trivial(alone):
    # The car pulls away, changes gear and turns: a determinism check on a car at rest would prove nothing.
    assert alone["speed_kmh"].max() > 30.0
    assert len(np.unique(alone["gear"])) >= 2
    assert np.abs(alone["yaw_rate"]).max() > 0.1


@pytest.mark.parametrize("size, position", [(1, 0), (7, 0), (7, 3), (7, 6), (64, 0), (64, 31), (64, 63)])
def test_a_car_is_bit_identical_in_any_batch_at_any_position(alone, size, position):
    cars, inputs = batch(size, position)
    together = run(cars, inputs)
    assert same_bits(together[:, position], alone)
    if size > 1:  # the neighbours really are other cars
        other = (position + 1) % size
        assert not np.array_equal(together[:, other]["x"], alone["x"])


def test_the_serial_and_the_parallel_kernel_agree(alone):
    cars, inputs = batch(7, 2)
    assert same_bits(run(cars, inputs, parallel=False)[:, 2], alone)
    assert same_bits(run([preset("sedan")], OURS[:, None], parallel=True)[:, 0], alone)


@pytest.mark.skipif(max_threads() < 2, reason="needs NUMBA_NUM_THREADS >= 2")
def test_one_thread_or_two_give_the_same_bits(alone):
    cars, inputs = batch(64, 17)
    before = threads()
    try:
        set_threads(1)
        one = run(cars, inputs)
        set_threads(2)
        two = run(cars, inputs)
    finally:
        set_threads(before)
    assert same_bits(one, two)
    assert same_bits(two[:, 17], alone)


@pytest.mark.parametrize("chunks", [(1,), (1, 2, 3), (97, 500, 501), tuple(range(100, N_FRAMES, 100))])
def test_chunked_runs_equal_one_call(alone, chunks):
    cars, inputs = batch(7, 5)
    whole = run(cars, inputs)
    assert same_bits(run(cars, inputs, chunks)[:, 5], alone)
    assert same_bits(run(cars, inputs, chunks), whole)


def test_stepping_frame_by_frame_equals_one_call(alone):
    sim = Simulation(preset("sedan"), dt=DT)
    stepped = np.stack([sim.step(OURS[k:k + 1]).records.copy() for k in range(N_FRAMES)])
    assert same_bits(stepped[:, 0], alone)


def test_set_threads_refuses_what_numba_cannot_do():
    with pytest.raises(ValueError, match="NUMBA_NUM_THREADS"):
        set_threads(0)
    with pytest.raises(ValueError, match="NUMBA_NUM_THREADS"):
        set_threads(max_threads() + 1)
