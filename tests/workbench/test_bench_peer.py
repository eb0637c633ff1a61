"""The bench's compiled peer and its side-by-side table."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench import bench, bench_peer


def test_the_peer_turns_at_the_neutral_steer_yaw_rate():
    # CommonRoad's vehicle 2 has the same cornering coefficient front and rear (C_Sf = C_Sr): with each
    # axle's stiffness proportional to its static load the understeer gradient
    # m / L (lr / C_f - lf / C_r) is zero, so a steady turn at steering angle delta and speed v has the
    # yaw rate v delta / L (Gillespie, Fundamentals of Vehicle Dynamics, 1992, eq. 6-15).
    delta, v = 0.03, 12.0
    states = bench_peer.start(4)
    states[:, 3] = v
    states[:, 2] = delta
    bench_peer.st_batch(states, np.zeros(4), np.zeros(4), 1.0 / 120.0, 1200)  # 10 s: the transient is gone
    expected = v * delta / (bench_peer.LF + bench_peer.LR)
    assert states[:, 5] == pytest.approx(expected, rel=1e-6)
    assert states[:, 3] == pytest.approx(v)  # no acceleration asked, none taken
    assert np.all(states == states[0])  # every car of the batch the same


def test_the_peer_below_walking_pace_follows_the_kinematic_bicycle():
    states = bench_peer.start(1)
    states[0, 3] = 0.05
    states[0, 2] = 0.2
    bench_peer.st_batch(states, np.zeros(1), np.zeros(1), 1.0 / 120.0, 120)
    # one second at the kinematic model's yaw rate v cos(beta) tan(delta) / L (beta stays 0 while the
    # steering angle holds): the yaw angle is that rate times 1 s
    assert states[0, 4] == pytest.approx(0.05 * math.tan(0.2) / (bench_peer.LF + bench_peer.LR) * 1.0, rel=1e-9)
    assert states[0, 6] == 0.0


def test_the_side_by_side_table_judges_each_figure_against_its_target():
    figures = {
        "kernel_us_per_frame": {"sedan": 1.3, "sedan_single_track": 0.15, "manual003": 0.2},
        "peer": {"kernel_us_per_frame": 0.04, "batch_1_thread": 6e7, "cold_compile_cpu_s": 1.1},
        "batch": {"car_steps_per_s": {"1": 1e6, "2": 1.9e6}, "single_track": {"car_steps_per_s": 2e6},
                  "asked": {"car_steps_per_s": {"sedan": 2.1e6, "sedan_single_track": 4.9e6, "manual003": 3e6}}},
        "step_us": {"sedan": 2.5, "sedan_single_track": 1.5}, "window_step_us": {"sedan": 4.0},
        "commonroad_st": {"step_us": 4.2},
        "sweep": {"in_process": [{"cars": 1000, "seconds": 0.3}, {"cars": 10000, "seconds": 1.9}]},
        "cold_compile": {"kernel_cpu_s": 16.0, "both_cpu_s": 18.0},
    }
    rows = {row["figure"]: row for row in bench.side_by_side(figures)}
    met = {name: row["met"] for name, row in rows.items()}
    assert met["kernel per frame, one car, sedan (four wheels)"] is False
    assert met["kernel per frame, one car, sedan_single_track"] is True
    assert met["kernel per frame, one car, manual003"] is True  # at the target: a ceiling includes it
    assert met["batch N = 100,000, 1 thread, sedan_single_track, asked channels"] is False
    assert met["batch N = 100,000, 1 thread, sedan (four wheels), asked channels"] is True
    assert met["batch, 2 threads over 1 (sedan, every channel)"] is True
    assert rows["batch, 2 threads over 1 (sedan, every channel)"]["carbench"] == pytest.approx(1.9)
    assert met["Simulation.step from Python, sedan (four wheels)"] is False
    assert rows["Simulation.step from Python, sedan (four wheels)"]["peer"] == 4.2
    assert met["Simulation.step from Python, sedan_single_track"] is True
    assert met["the window's step, LiveSession.step, sedan"] is True
    assert met["sweep of 10,000 cars x 10 s in process"] is True
    cold = "cold compile of the kernel (the longer kind, what a first run waits for)"
    assert met[cold] is False
    assert rows[cold]["peer"] == 1.1
    assert rows["cold compile of both kinds, one process"]["carbench"] == 18.0
    assert met["cold compile of both kinds, one process"] is None  # told, not judged
    assert met["batch N = 100,000, 1 thread, manual003, asked channels"] is None  # no target of its own
    # a figure not measured (a quick bench, a stubbed run) is None, not a crash
    assert all(row["carbench"] is None and row["met"] is None for row in bench.side_by_side({}))


def test_the_bench_measures_the_models_maths_against_the_c_library():
    figures = bench.maths_figures(2000, 1)
    assert set(figures) == set(bench.MATHS)
    for name, f in figures.items():
        assert f["lanes_same_bits_as_one_call"], name
        assert 0.0 <= f["largest_difference_ulp"] <= 4.0, name
        assert f["c_library_ns"] > 0.0 and f["approx_lanes_ns"] > 0.0, name
