"""Telemetry only as asked: a run that names its channels stores those and no others, to the bit as a run
that stores every channel, and its guard checks the channels written and the state."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import DT, keys, preset

from physics import NonFiniteError, Simulation, records
from physics.kernel import ALL, Workspace, channel_indices, default_kernel

ASKED = ["yaw_rate", "speed", "rpm", "fx_rear", "speed"]  # any order, a name twice
PLAIN = ["rpm", "fx_rear", "x", "yaw_rate"]  # none of physics.step.DETAIL: the kernel skips their maths


def _random_keys(frames: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    inputs = np.zeros((frames, n), dtype=records.INPUTS)
    for key in ("throttle", "brake", "left", "right", "handbrake", "gear_up"):
        holds = rng.random((frames // 30 + 1, n)) < (0.5 if key in ("throttle", "left", "right") else 0.1)
        inputs[key] = np.repeat(holds, 30, axis=0)[:frames]
    inputs["gear_up"] &= rng.random((frames, n)) < 0.03
    return inputs


@pytest.mark.parametrize("name", ["sedan", "sedan_single_track", "manual003", "teaching", "parking"])
@pytest.mark.parametrize("parallel", [False, True])
def test_the_channels_asked_for_are_the_bits_of_a_full_run(name, parallel):
    inputs = _random_keys(400, 5, seed=11)
    full = Simulation(preset(name), n=5, dt=DT, parallel=parallel).run(inputs)
    sim = Simulation(preset(name), n=5, dt=DT, parallel=parallel)
    asked = sim.run(inputs, channels=ASKED)
    assert asked.shape == (400, 5, len(ASKED)) and asked.dtype == np.float64
    for j, channel in enumerate(ASKED):
        assert full[channel].tobytes() == asked[:, :, j].tobytes(), channel
    plain = Simulation(preset(name), n=5, dt=DT, parallel=parallel).run(inputs, channels=PLAIN)
    for j, channel in enumerate(PLAIN):
        assert full[channel].tobytes() == plain[:, :, j].tobytes(), channel
    assert sim.telemetry is None  # no full frame to show
    again = Simulation(preset(name), n=5, dt=DT, parallel=parallel)
    for k in range(0, 400, 37):  # in blocks, into an array of the caller's: the same bits
        again.run(inputs[k:k + 37], asked[k:k + 37], channels=ASKED)
    assert full["rpm"].tobytes() == np.ascontiguousarray(asked[:, :, 2]).tobytes()
    assert sim.state.tobytes() == again.state.tobytes()


def test_a_run_of_every_channel_in_order_is_the_record_layout():
    inputs = _random_keys(100, 2, seed=3)
    full = Simulation(preset("sedan"), n=2, dt=DT).run(inputs)
    every = Simulation(preset("sedan"), n=2, dt=DT).run(inputs, channels=records.CHANNELS)
    assert every.tobytes() == full.tobytes()
    assert np.array_equal(channel_indices(records.CHANNELS), ALL)


def test_unknown_channels_and_wrong_arrays_are_refused():
    sim = Simulation(preset("sedan"), n=2, dt=DT)
    inputs = np.zeros((3, 2), dtype=records.INPUTS)
    with pytest.raises(ValueError, match="unknown channel 'spede'"):
        sim.run(inputs, channels=["speed", "spede"])
    with pytest.raises(TypeError, match=r"float64 array of shape \(3, 2, 1\)"):
        sim.run(inputs, np.empty((3, 2, 2)), channels=["speed"])
    kernel = default_kernel()
    for bad in (np.array([], dtype=np.int64), np.array([0.0]), np.array([len(records.CHANNELS)])):
        with pytest.raises((TypeError, ValueError), match="channels"):
            kernel.run(sim.car.records, sim.state.view(np.ndarray), inputs, np.empty((3, 2, max(len(bad), 1))), DT,
                       0, channels=bad)
    assert sim.frame == 0


def test_the_guard_checks_the_channels_written_and_the_state():
    def corrupted():
        sim = Simulation(preset("sedan"), n=3, dt=DT)
        for _ in range(20):
            sim.step(keys("throttle", n=3))
        sim.state.x[2] = np.inf
        return sim

    block = np.zeros((10, 3), dtype=records.INPUTS)
    with pytest.raises(NonFiniteError, match=r"^channel 'x' of car 2 became non-finite at frame 20$"):
        corrupted().run(block, channels=["speed", "x"])
    out = np.zeros((10, 3, 1))
    with pytest.raises(NonFiniteError, match=r"^state field 'x' of car 2 became non-finite at frame 20$") as caught:
        corrupted().run(block, out, channels=["speed"])  # the channel x is not written: the state is checked
    assert caught.value.state
    assert np.all(out[:, 2] == 0.0) and np.all(out[:, :2] > 0.0)  # nothing written for the car that stopped


def test_the_detail_channels_are_computed_only_when_asked_for():
    from physics import step
    from physics.kernel import asks_detail, every_channel

    assert set(step.DETAIL) <= set(records.CHANNELS)
    for name in step.DETAIL:
        assert asks_detail(channel_indices(["rpm", name]))
    assert not asks_detail(channel_indices(PLAIN))
    assert asks_detail(ALL) and every_channel(ALL) and every_channel(channel_indices(records.CHANNELS))
    assert not every_channel(channel_indices(list(records.CHANNELS[1:]) + ["t"]))


@pytest.mark.parametrize("name", ["sedan_single_track", "sedan"])
def test_the_detail_maths_runs_only_for_a_run_that_asks_for_one_of_its_channels(name):
    from physics import step

    sim = Simulation(preset(name), n=2, dt=DT)
    inputs = _random_keys(60, 2, seed=2)
    written = {}
    for names in (PLAIN, ["rpm", "beta"]):
        work = Workspace(2)
        work.telemetry.view(np.float64)[...] = -7.0  # what the kernel never wrote stays -7
        state = sim.state.view(np.ndarray).copy()
        out = np.empty((60, 2, len(names)))
        default_kernel().run(sim.car.records, state, inputs, out, DT, 0, work=work, channels=channel_indices(names))
        written[len(names)] = {channel for channel in step.DETAIL if not np.all(work.telemetry[channel] == -7.0)}
        assert not np.all(work.telemetry["rpm"] == -7.0)
    # What only detail_channels computes (the four-wheel car steers with its wheel angles: its frame writes them)
    detail = {"speed", "speed_kmh", "beta"} | ({"wheel_left", "wheel_right"} if name == "sedan_single_track" else set())
    assert written[len(PLAIN)] & detail == set()  # none of them asked: none computed
    assert written[2] & detail == {"beta"}  # the slip angle asked: its part alone


@pytest.mark.parametrize("asked, computed", [(["speed_kmh"], {"speed", "speed_kmh"}), (["beta"], {"beta"}),
                                              (["wheel_right", "rpm"], {"wheel_left", "wheel_right"}),
                                              (["speed", "wheel_left"], {"speed", "speed_kmh", "wheel_left",
                                                                         "wheel_right"})])
def test_each_part_of_the_detail_maths_runs_only_for_its_own_channels(asked, computed):
    # A sweep of the speed does not pay for the wheel angles' tan and atan, nor the slip angle's atan2.
    from physics import step
    from physics.kernel import asks_detail

    assert asks_detail(channel_indices(asked)) == sum(1 << j for j, part in enumerate(step.DETAIL_PARTS)
                                                      if set(part) & set(asked))
    sim = Simulation(preset("sedan_single_track"), n=2, dt=DT)
    inputs = _random_keys(60, 2, seed=3)
    work = Workspace(2)
    work.telemetry.view(np.float64)[...] = -7.0
    out = np.empty((60, 2, len(asked)))
    default_kernel().run(sim.car.records, sim.state.view(np.ndarray).copy(), inputs, out, DT, 0, work=work,
                         channels=channel_indices(asked))
    written = {channel for channel in step.DETAIL if not np.all(work.telemetry[channel] == -7.0)}
    assert written == computed
    every = Simulation(preset("sedan_single_track"), n=2, dt=DT).run(inputs)  # the same bits as a run of all
    for j, name in enumerate(asked):
        assert out[:, :, j].tobytes() == np.ascontiguousarray(every[name]).tobytes()


def test_names_of_channels_are_checked_as_the_cars_know_them():
    sim = Simulation(preset("parking"), n=1, dt=DT)  # a preset in pixels: no km/h channel
    inputs = np.zeros((2, 1), dtype=records.INPUTS)
    with pytest.raises(KeyError, match="speed_kmh"):
        sim.run(inputs, channels=["speed_kmh"])
    with pytest.raises(TypeError, match="not the string"):
        sim.run(inputs, channels="speed")
    with pytest.raises(ValueError, match="at least one channel"):
        sim.run(inputs, channels=[])
    sim.run(inputs, channels=["speed"])
    with pytest.raises(RuntimeError, match="stored only the channels it named"):
        sim.channel("speed")
    sim.step()
    assert sim.channel("speed").shape == (1,)
