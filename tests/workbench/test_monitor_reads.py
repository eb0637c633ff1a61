"""Each monitor declares the channels it reads, so that a hunt's batch stores only those: a check that reads
an undeclared channel fails here, on every kind of car, in its verdict and in the values it reports."""

from __future__ import annotations

import numpy as np
import pytest

from physics import Simulation, load_preset, records
from workbench.runs import monitors
from workbench.runs.hunt import Case, to_script
from workbench.runs.replay import run_batch
from workbench.scripts.program import compile_script

DT = 1.0 / 120.0


class _Only(dict):
    """A Frames' channels that refuse any channel a monitor did not declare."""

    def __missing__(self, name):
        raise AssertionError(f"read {name!r}, which it does not declare")


def _random_drive(params, n=3, frames=600, seed=9) -> np.ndarray:
    rng = np.random.default_rng(seed)
    inputs = np.zeros((frames, n), dtype=records.INPUTS)
    for key in ("throttle", "brake", "left", "right", "clutch", "handbrake", "gear_up"):
        holds = rng.random((frames // 40 + 1, n)) < (0.5 if key in ("throttle", "left", "right") else 0.15)
        inputs[key] = np.repeat(holds, 40, axis=0)[:frames]
    inputs["gear_up"] &= rng.random((frames, n)) < 0.03
    return Simulation(params, n=n, dt=DT).run(inputs)


@pytest.mark.parametrize("preset", ["sedan", "sedan_single_track", "manual003", "classic", "parking"])
def test_every_monitor_reads_only_what_it_declares(preset):
    params = load_preset(preset).params
    telemetry = _random_drive(params)
    for monitor in monitors.MONITORS:
        if monitor.reads is None:
            continue
        allowed = ("t",) + monitor.reads
        columns = _Only({name: telemetry[name] for name in allowed})
        frames = monitors.Frames(columns, [[(0, params)]] * telemetry.shape[1], DT,
                                 np.full(telemetry.shape[1], telemetry.shape[0]))
        mask, values = monitor.check(frames, monitor.tolerance)
        assert mask.shape == telemetry.shape, monitor.name
        for k in (1, 200, len(telemetry) - 2):  # the values a violation at frame k would report
            values(k, 0)


def test_a_selection_of_monitors_reads_the_union_and_finite_reads_everything():
    read = monitors.channels_read(["rpm_range", "rest_stays_rest"])
    wheels = {"wheel_front", "wheel_rear", "wheel_speed_fl", "wheel_speed_fr", "wheel_speed_rl", "wheel_speed_rr"}
    assert read[0] == "t" and set(read) == {"t", "rpm", "gear", "speed", "vx", "engine_torque", *wheels, "yaw_rate",
                                            "throttle", "brake", "clutch", "x", "y", "heading"}
    assert len(read) == len(set(read))
    assert monitors.channels_read(None) is None  # every monitor: finite among them
    assert monitors.channels_read(["finite", "rpm_range"]) is None


def test_a_batch_of_the_monitors_channels_finds_what_a_batch_of_every_channel_finds():
    # Tolerances below zero make the monitors fire, so that the comparison has violations (and their values).
    cases = [Case("manual003", ((("throttle",), 0, 600), (("throttle", "left"), 300, 500)), 601, DT),
             Case("manual003", ((("brake",), 0, 100), (("throttle", "right"), 50, 400)), 601, DT)]
    programs = [compile_script(to_script(c, f"case-{i}")) for i, c in enumerate(cases)]
    chosen = ["rpm_range", "rest_stays_rest", "grip_limit", "impossible_jerk"]
    tight = {"rpm_range": -6500.0, "grip_limit": -0.9, "impossible_jerk": -0.99}
    found = []
    for channels in (monitors.channels_read(chosen), None):
        results = run_batch(programs, channels=channels)
        assert (channels is None) == (results[0].log.asked is None)
        frames = monitors.frames_of_batch(results[0].log, programs)
        found.append(monitors.run_monitors(frames, chosen, tight))
    assert found[0] == found[1]
    assert {v.monitor for v in found[0]} >= {"rpm_range", "grip_limit"}
