"""What the handling tests check of a run before its KPIs mean anything, and how they measure from the right
instant: a step's steady state and spin (ISO 7401), on synthetic runs whose answer is known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physics import load_preset
from workbench.manoeuvres.catalogue import CATALOGUE
from workbench.manoeuvres.kpi import RunData
from workbench.manoeuvres.transient import STEADY_TREND, step_conditions

DT = 0.01
V = 80 / 3.6


def _step_run(final_slope: float = 0.0, slip_deg: float = 1.0, ay: float = 4.0) -> RunData:
    """A step at 5 s to a yaw rate of ay / V, first order with 0.2 s, then ``final_slope`` (share of the steady
    yaw rate per second) over the whole run after the step; a body slip angle of ``slip_deg`` at the end."""
    t = np.arange(0.0, 12.0 + DT / 2, DT)
    steer = np.where(t >= 5.0, 0.02, 0.0)
    steady = ay / V
    yaw = np.where(t >= 5.0, steady * (1 - np.exp(-(t - 5.0) / 0.2)) * (1 + final_slope * (t - 5.0)), 0.0)
    beta = np.radians(slip_deg) * np.clip((t - 5.0) / 7.0, 0.0, 1.0)
    script = CATALOGUE["iso7401_step"].base_script()
    return RunData({"t": t, "steer": steer, "yaw_rate": yaw, "accel_lat": V * yaw, "speed": np.full_like(t, V),
                    "beta": beta}, DT, load_preset("sedan").params, script)


def test_a_step_in_its_steady_state_meets_the_conditions():
    run = _step_run()
    assert step_conditions(run, float(np.mean(run["accel_lat"][-200:]))) == []


def test_a_step_whose_yaw_rate_still_changes_has_no_steady_state():
    # the yaw rate times (1 + s (t - 5)): over the last 2 s (t 10 to 12) its line rises by 2 s / (1 + 6 s) of its mean
    for s, word in ((0.03, "rises"), (-0.03, "falls")):
        (problem,) = step_conditions(_step_run(final_slope=s), 4.0)
        expected = 100 * abs(2 * s / (1 + 6 * s))
        assert problem == f"no steady state: the yaw rate still {word} by {expected:.2g}% over the last 2 s (at most 2%)"
    # just under the limit: met
    s = 0.95 * STEADY_TREND / (2 - 6 * STEADY_TREND)
    assert step_conditions(_step_run(final_slope=s), 4.0) == []
    assert step_conditions(_step_run(final_slope=1.1 * s), 4.0) != []


def test_a_step_that_spins_says_so():
    problems = step_conditions(_step_run(slip_deg=55.0), 2.15)
    assert problems[0].startswith("the steady lateral acceleration is 2.15 m/s^2, not 4 +- 0.2 m/s^2")
    assert problems[-1] == "the car spun: its body slip angle reached 55 deg"
    assert step_conditions(_step_run(slip_deg=9.0), 4.0) == []


def test_the_step_test_asks_for_the_body_slip_angle():
    assert "beta" in CATALOGUE["iso7401_step"].channels
    assert math.isclose(STEADY_TREND, 0.02)


def _iso7975(turn: str = "left", until: float | None = None) -> dict:
    from dataclasses import replace

    from workbench.manoeuvres.runner import Car, run_jobs

    m = CATALOGUE["iso7975"]
    base = m.base_script()
    path = replace(base.driver.path, values=dict(base.driver.path.values, turn=turn))
    driver = replace(base.driver, path=path, until=base.driver.until if until is None else until)
    preset = load_preset("sedan")
    (run,) = run_jobs([(replace(base, driver=driver), Car(preset.params, preset.name, preset.path))], m.channels)
    return {k.key: k.value for k in m.kpis(run)}


def test_braking_in_a_right_hand_turn_gives_the_figures_of_the_left_hand_one():
    # ISO 7975's heading deviation is positive where the car turns further in than the circle, either way round: a
    # right-hand circle gave the left-hand one's figure with its sign turned
    left, right = _iso7975("left"), _iso7975("right")
    assert left["heading_deviation_1s"] > 0
    for key, value in left.items():
        assert right[key] == pytest.approx(value, rel=1e-5, abs=1e-9), key  # mirrored to rounding


def test_braking_in_a_turn_measures_from_the_first_braked_frame():
    # t0 is the brake's onset: a trigger between two frames is the next frame's (it gave 1.51 and 1.60 deg of heading
    # deviation within one frame of the trigger, with the same brake onset)
    from workbench.manoeuvres.braking import brake_onset

    t = np.arange(0.0, 1.0, 0.25)
    assert brake_onset(t, np.array([0.0, 0.0, 1.0, 1.0]), 0.3) == 0.5
    assert brake_onset(t, np.array([0.5, 0.0, 1.0, 1.0]), 0.3) == 0.5  # a brake before the trigger is the driver's
    assert brake_onset(t, np.zeros(4), 0.3) == 0.3
    on_a_frame = _iso7975(until=22.0 + 1 / 120)
    between = _iso7975(until=22.0 + 0.5 / 120)
    assert between == on_a_frame


def test_the_maximum_lateral_acceleration_is_a_steady_seconds():
    # ISO 4138 takes its figures in the steady state: the classic's "maximum" was the second it caught a spin (the
    # steer swinging 27 deg, the body slip at 13 deg), 1.6 m/s^2 above anything it held
    from workbench.manoeuvres.steady_state import SteadyFrames, steady_maximum

    dt = 0.01
    t = np.arange(0.0, 10.0, dt)
    ay = np.where(t < 6.0, 0.5 * t, 3.0)  # rises to 3 m/s^2 and holds it from 6 s
    ay = np.where((t >= 8.0) & (t < 9.0), 5.0, ay)  # a second at 5 m/s^2 ...
    delta = np.radians(np.where((t >= 8.0) & (t < 9.0), 10.0 * np.sin(6.0 * t), 2.0))  # ... with the steer swinging
    beta = np.zeros_like(t)
    steady = t > 1.0
    frames = SteadyFrames(ay, delta, beta, delta, steady, steady, steady)
    run = RunData({"t": t}, dt, load_preset("sedan").params, None)
    assert steady_maximum(run, frames) == pytest.approx(3.0)
    calm = SteadyFrames(ay, np.full_like(t, 0.03), beta, delta, steady, steady, steady)
    assert steady_maximum(run, calm) == pytest.approx(5.0)  # the same second held still is steady
    sliding = SteadyFrames(ay, np.full_like(t, 0.03), np.where(ay > 4, 0.3, 0.0), delta, steady, steady, steady)
    assert steady_maximum(run, sliding) == pytest.approx(3.0)  # 17 deg of body slip is not
    assert steady_maximum(run, SteadyFrames(ay, delta, beta, delta, steady, steady & (t < 0.5), steady)) is None
    # A breakaway's wobble: a_y swinging by 1.2 m/s^2 about 4 with the steer still (manual003 at 1/120 s swung by 1.45
    # with its steer within 5 deg, and read 3.96 m/s^2 where it holds 3.62 at 1/2000 s) is not steady either
    wobble = np.where((t >= 8.0) & (t < 9.0), 4.0 + 0.6 * np.sin(2.0 * np.pi * 3.0 * t), np.minimum(ay, 3.0))
    assert steady_maximum(run, SteadyFrames(wobble, np.full_like(t, 0.03), beta, delta, steady, steady,
                                            steady)) == pytest.approx(3.0)


def test_the_gradients_say_the_range_they_were_fitted_over():
    from workbench.manoeuvres.steady_state import fit_note

    assert fit_note(np.array([1.001, 2.5, 3.999])) == "fit over a_y 1..4 m/s^2"
    assert fit_note(np.array([1.002, 2.018])) == "fit over a_y 1..2.02 m/s^2, short of the 1..4 asked for"
    assert fit_note(np.array([])) == "no quasi-steady frame within a_y 1..4 m/s^2"


def test_the_sine_with_dwell_says_why_it_judges_no_displacement_and_holds_heavy_cars_to_their_limit():
    from workbench.manoeuvres import sine_dwell

    sedan = load_preset("sedan").params
    heavy = sedan.with_values({"body.mass": 4000.0, "body.yaw_inertia": 7000.0})
    assert sine_dwell.displacement_min(sedan) == 1.83 and sine_dwell.displacement_min(heavy) == 1.52

    class Run:
        def __init__(self, params):
            self.params = params

    a = 76.95  # 5 A = 384.75 deg: past the series' last run, 300 deg (S7.9.4)
    amplitudes = sine_dwell.series(a, 1.0, math.radians(400.0))
    assert amplitudes[-1] == 300.0
    rows = [(amp, {"ratio_1.00": 0.1, "ratio_1.75": 0.05, "displacement": 2.5}) for amp in amplitudes]
    original = sine_dwell.criteria_rows
    try:
        sine_dwell.criteria_rows = lambda runs: rows
        kpis = {k.key: k for k in sine_dwell.summary(a, [(amp, Run(sedan)) for amp in amplitudes])}
        heavy_kpis = {k.key: k for k in sine_dwell.summary(20.0, [(amp, Run(heavy)) for amp in
                                                                   sine_dwell.series(20.0, 1.0, math.radians(400.0))])}
    finally:
        sine_dwell.criteria_rows = original
    shown = kpis["lateral_displacement"]
    assert shown.value is None and shown.passed is None
    assert shown.note == "not judged: no run reached 5 A (384.8 deg); the series ends at 300 deg (S7.9.4's 300 deg)"
    assert heavy_kpis["lateral_displacement"].limit == ">= 1.52 m"


def test_braking_in_a_turn_in_gear_gives_figures_that_settle_as_dt_shrinks():
    """The sedan brakes in the bend in 2nd, the clutch up: the engine turns with the rear wheels. Its brakes took the
    bare wheels (0.3.10: the heading deviation 1.51 deg at 1/120 s, 1.85 at 1/1000 s, 1.94 at 1/2000 s, not
    settling), then each wheel with its own share of the engine, which an open differential cannot pass where the
    bend loads the wheels unequally (1.69 and 1.98 deg); with one answer of the engine on both they read 2.13 and
    2.08 deg."""
    from workbench.manoeuvres.runner import Car, run_jobs

    m = CATALOGUE["iso7975"]
    preset = load_preset("sedan")
    car = Car(preset.params, preset.name, preset.path)

    def heading(dt):
        (run,) = run_jobs([(m.base_script(), car)], m.channels, dt=dt)
        return {k.key: k.value for k in m.kpis(run)}["heading_deviation_1s"]

    coarse, fine = heading(1.0 / 120.0), heading(1.0 / 1000.0)
    assert fine > 1.5
    assert coarse == pytest.approx(fine, rel=0.04)


def test_the_slowly_increasing_steer_s_a_is_the_handwheel_angle_at_0_3_g_in_closed_form():
    """FMVSS 126 S7.6: A is the handwheel angle at 0.3 g. A car whose lateral acceleration is 0.15 m/s^2 per deg of
    handwheel on the ramp reaches 0.3 g at 0.3 g / 0.15 deg; past the fit's top it loses control and passes back
    through the same accelerations at larger angles, which do not count."""
    from workbench.manoeuvres.kpi import DEG, G
    from workbench.manoeuvres.sine_dwell import SIS_FIT, sis_amplitude

    ratio, dt = 15.0, 1.0 / 120.0
    t = np.arange(0.0, 30.0, dt)
    handwheel = 13.5 * t  # [deg] S7.6's ramp
    ay = 0.15 * handwheel
    lost = np.flatnonzero(ay > SIS_FIT[1] + 1.0)[0]
    ay[lost:] = np.linspace(ay[lost], 0.5, len(t) - lost)  # the car lets go: back down through the fit's range
    run = RunData({"t": t, "steer": handwheel / ratio / DEG, "accel_lat": ay}, dt, load_preset("sedan").params, None)
    assert sis_amplitude(run, ratio) == pytest.approx(0.3 * G / 0.15, rel=1e-12)
    never = RunData({"t": t, "steer": handwheel / ratio / DEG, "accel_lat": np.minimum(ay, 0.29 * G)}, dt,
                    load_preset("sedan").params, None)
    assert sis_amplitude(never, ratio) is None  # never at 0.3 g: no A drawn from the line past its data
