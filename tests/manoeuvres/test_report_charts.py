"""The charts of ``carbench manoeuvre --report``, as data: each is of what its test's KPIs are read from, its legend
clear of the curves, every axis with its quantity and unit, and no non-finite value in it."""

from __future__ import annotations

import re
from functools import cache

import numpy as np
import pytest

from physics import load_preset
from workbench.manoeuvres.catalogue import CATALOGUE
from workbench.manoeuvres.charts import STEP_BEFORE, STEP_SETTLED, charts_of, finite_only
from workbench.manoeuvres.kpi import DEG, KMH
from workbench.manoeuvres.runner import Car, run_jobs
from workbench.output.charts import Chart, Series


def sedan(**values) -> Car:
    params = load_preset("sedan").params
    return Car(params.with_values(values) if values else params, "sedan" if not values else "edited")


def runs_of(name: str, cars):
    """The runs a report draws for ``cars`` (as write_report runs them)."""
    m = CATALOGUE[name]
    return m, run_jobs(m.chart_jobs(cars, lambda jobs: run_jobs(jobs, m.channels)), m.channels)


@cache
def report(name: str):
    """The test, the sedan's runs and the report's charts of them."""
    m, runs = runs_of(name, [sedan()])
    return m, runs, charts_of(m, runs, ["sedan"])


def dense(s: Series, per_segment: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """The points of ``s``'s line, segments included (a steep segment passes through a corner between two frames)."""
    u = np.linspace(0.0, len(s.x) - 1.0, (len(s.x) - 1) * per_segment + 1)
    k = np.arange(len(s.x))
    return np.interp(u, k, s.x), np.interp(u, k, s.y)


def legend_corner_points(chart: Chart) -> tuple[str, int]:
    """The corner the renderer puts the legend in, and how much of the curves' lines passes through it (its third
    across and quarter up, as workbench.gui.charts.emptiest_corner counts)."""
    from workbench.gui.charts import emptiest_corner, y_range

    x = np.concatenate([s.x for s in chart.series])
    y = np.concatenate([s.y for s in chart.series])
    xr = (float(x.min()), float(x.max()))
    yr = y_range(chart, float(y.min()), float(y.max())) or (float(y.min()), float(y.max()))
    corner = emptiest_corner(chart, xr, yr)
    inside = 0
    for s in chart.series:
        px, py = dense(s)
        u, v = (px - xr[0]) / (xr[1] - xr[0]), (py - yr[0]) / (yr[1] - yr[0])
        across = u >= 2 / 3 if "right" in corner else u <= 1 / 3
        up = v >= 3 / 4 if "top" in corner else v <= 1 / 4
        inside += int(np.count_nonzero(across & up))
    return corner, inside


def test_the_braking_in_a_turns_legend_is_clear_of_the_curve_and_the_chart_is_of_the_braking():
    """The whole run (30 s) drew the start from rest through the bottom-left corner, the one with the fewest frames,
    and the legend went over it."""
    m, (run,), (chart,) = report("iso7975")
    corner, inside = legend_corner_points(chart)
    assert inside == 0, f"the curve passes through the legend's corner ({corner})"
    onset = run.script.driver.until
    (curve,) = chart.series
    assert onset - 2.5 <= curve.x[0] < onset - 1.0  # just before the brake onset, not the run-up from rest
    assert curve.y[-1] == pytest.approx(0.0, abs=1e-3)  # to the standstill
    assert curve.x[-1] < run.t[-1]
    assert [line.value for line in chart.lines] == [onset, onset + 1.0]  # where the KPIs are read


def test_the_step_steers_chart_is_a_window_around_the_step():
    """It spanned the run's 20 s, the response of interest the half second after 14 s."""
    from workbench.manoeuvres.transient import step_response

    m, (run,), (chart,) = report("iso7401_step")
    (curve,) = chart.series
    r = step_response(run.t, run["steer"], run["yaw_rate"], float(run.t[-1]))
    t0, steady = r["t0"], r["steady"] * DEG
    assert chart.x_label == "time from t0 [s]"  # ISO 7401's t = 0, as the response times are read
    assert curve.x[0] == pytest.approx(-STEP_BEFORE, abs=2 * run.dt)
    assert np.array_equal(curve.x + t0, run.t[(run.t >= t0 - STEP_BEFORE - 1e-9) & (run.t <= t0 + curve.x[-1] + 1e-9)])
    assert curve.x[-1] - curve.x[0] < 6.0 < run.t[-1]
    assert np.all(np.abs(curve.y[-10:] / steady - 1.0) <= STEP_SETTLED)  # settled by the window's end
    assert curve.y.max() > steady  # the overshoot is in it
    assert abs(curve.y[0]) < 1e-6  # and the straight run before the step


def test_the_coast_downs_chart_draws_the_road_load_fit_beside_the_data():
    """The chart showed the measured speed only, not the A + B v + C v^2 its KPIs are."""
    m, (run,), (chart,) = report("coastdown")
    kpis = {k.key: k for k in m.kpis(run)}
    a, b, c = (kpis[f"road_load_{x}"].value for x in "abc")
    measured = [s for s in chart.series if not s.dashed]
    fits = [s for s in chart.series if s.dashed]
    assert len(measured) == 1 and len(fits) == 1, [s.label for s in chart.series]
    (fit,) = fits
    assert "fit" in fit.label and "A + B v + C v^2" in fit.label
    # The curve is the KPIs' road load: m_eff dv/dt = -(A + B v + C v^2), m_eff as the KPI's note gives it.
    m_eff = float(re.search(r"m_eff ([0-9.]+) kg", kpis["road_load_c"].note).group(1))
    v = fit.y / KMH
    force = -m_eff * np.gradient(v, fit.x)
    assert force[5:-5] == pytest.approx(a + b * v[5:-5] + c * v[5:-5] ** 2, rel=2e-3)
    # over the frames the KPIs are fitted on (the KPI's note names their speeds), shaded, and close to the data
    lo, hi = (float(x) for x in re.search(r"([0-9.]+)\.\.([0-9.]+) km/h", kpis["road_load_c"].note).groups())
    assert fit.y.max() == pytest.approx(hi, rel=5e-3) and fit.y.min() == pytest.approx(lo, rel=0.05)
    (band,) = chart.bands
    assert (band.lo, band.hi) == (fit.x[0], fit.x[-1])
    data = np.interp(fit.x, measured[0].x, measured[0].y)
    assert np.abs(fit.y - data).max() < 1.0  # [km/h]
    assert any(n.startswith(f"sedan: A {a:.4g} N, B {b:.4g} N s/m, C {c:.4g} N s^2/m^2") for n in chart.notes)


def test_the_steady_state_curve_runs_along_the_lateral_acceleration():
    """Drawn in time order, the quasi-steady frames went back over themselves (a_y falls on 43% of the frames): a
    scribble where the driver settles on the circle and loops near the limit."""
    from workbench.manoeuvres.charts import STEADY_BIN
    from workbench.manoeuvres.steady_state import limit_reached, steady_frames

    m, (run,), (chart,) = report("iso4138")
    curves = [s for s in chart.series if not s.dashed]
    for curve in curves:
        assert np.all(np.diff(curve.x) > 0), "the curve goes back along a_y"
    (curve,) = curves
    f = steady_frames(run)
    # the quasi-steady frames of the ramp up to the car's limit, as the chart's note says (the frames after it, the
    # car past its limit on the circle, are not drawn)
    limit = limit_reached(run, f)
    ramp = f.steady & (run.t <= limit) if limit is not None else f.steady
    ay, delta = f.ay[ramp], f.delta[ramp] * DEG
    assert curve.x[0] == pytest.approx(ay.min(), abs=STEADY_BIN) and curve.x[-1] == pytest.approx(ay.max(),
                                                                                                   abs=STEADY_BIN)
    # each point the mean of the quasi-steady frames in its bin of a_y
    for k in (0, len(curve.x) // 2, len(curve.x) - 1):
        here = np.floor(ay / STEADY_BIN) == np.floor(curve.x[k] / STEADY_BIN)
        assert curve.y[k] == pytest.approx(delta[here].mean(), rel=1e-12)
        assert curve.x[k] == pytest.approx(ay[here].mean(), rel=1e-12)


def test_the_lane_changes_chart_is_of_the_run_its_kpi_reports():
    """The chart drew the script's own speed (50 km/h) under a KPI of the 52 km/h run; a second car that passes at
    another speed is drawn at its own."""
    from workbench.manoeuvres.lane_change import at_speed

    cars = [sedan(), sedan(**{"tyres.mu": 0.8})]
    m, runs = runs_of("iso3888_2", cars)
    (chart,) = charts_of(m, runs, [c.name for c in cars])
    kpis = m.run(cars, lambda jobs: run_jobs(jobs, m.channels))
    speeds = [float(re.search(r"run at ([0-9.]+) km/h", k.note).group(1)) for (k,) in kpis]
    assert speeds[0] != speeds[1]  # the cars pass at different speeds
    paths = [s for s in chart.series if s.label != "driver's line"]
    assert len(paths) == 2
    for car, speed, path in zip(cars, speeds, paths, strict=True):
        (run,) = run_jobs([(at_speed(m.base_script(), speed), car)], m.channels)
        keep = (run["x"] >= path.x[0]) & (run["x"] <= path.x[-1])
        np.testing.assert_array_equal(path.y, run["y"][keep])
        assert f"{speed:g} km/h" in path.label


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_every_axis_has_its_quantity_and_unit_and_no_chart_holds_a_non_finite_value(name):
    m, _, charts = report(name)
    assert charts
    for chart in charts:
        for label in (chart.x_label, chart.y_label):
            assert re.fullmatch(r"\S.* \[[^\]]+\]", label), (chart.title, label)
        assert chart.series
        for s in chart.series:
            assert len(s.x) == len(s.y) and len(s.x) > 1
            assert np.isfinite(s.x).all() and np.isfinite(s.y).all(), (chart.title, s.label)


def test_a_non_finite_point_is_left_out_not_drawn_at_zero():
    chart = Chart("c", "t [s]", "v [m/s]", [Series(np.array([0.0, 1.0, 2.0, np.nan]),
                                                     np.array([1.0, np.nan, 3.0, 4.0]), "a")])
    (s,) = finite_only(chart).series
    assert list(s.x) == [0.0, 2.0] and list(s.y) == [1.0, 3.0]


def test_the_sine_with_dwell_chart_is_of_each_cars_worst_run_around_the_instants_judged():
    # It was the script's own 120 deg run over all 19 s of the run-up, under KPIs of a series that had another worst
    # run (tail_happy's worst ratio is at 75.7 deg).
    from workbench.manoeuvres.sine_dwell import swd_criteria

    m = CATALOGUE["r140_swd"]
    cars = [sedan(), Car(load_preset("tail_happy").params, "tail_happy")]
    outcome = m.run(cars, lambda jobs: run_jobs(jobs, m.channels))
    worst_at = [float(next(k for k in kpis if k.key == "yaw_ratio_1.00").note.removeprefix("at ").split()[0])
                for kpis in outcome]
    _, runs = runs_of("r140_swd", cars)
    amplitudes = [run.script.robot.get("amplitude") for run in runs[:2]]
    assert amplitudes == pytest.approx(worst_at, rel=1e-3)  # the KPI note's amplitude, to its 4 digits
    chart, _ = charts_of(m, runs, ["sedan", "tail_happy"])
    robot = runs[0].script.robot
    c = swd_criteria(runs[0].t, runs[0]["steer"], runs[0]["yaw_rate"], runs[0]["accel_lat"], robot.start,
                     robot.get("frequency"), robot.get("dwell"), robot.ratio)
    instants = [line.value for line in chart.lines if line.axis == "x"]
    assert instants == pytest.approx([c["cos"], c["cos"] + 1.0, c["cos"] + 1.75])
    # and the limits as yaw rates of that run: 35% and 20% of its reversed peak (they were in the note alone)
    limits = [line.value for line in chart.lines if line.axis == "y"]
    assert limits == pytest.approx([0.35 * c["psi_peak"] * DEG, 0.20 * c["psi_peak"] * DEG])
    x = np.concatenate([s.x for s in chart.series])
    assert x.min() >= robot.start - 0.5 - 1e-9 and x.max() <= max(instants) + 0.5 + 0.1
    assert x.max() - x.min() < 6.0


def test_the_sine_with_dwells_displacement_chart_is_of_each_cars_least_run_of_5_a_and_up():
    """The second chart: S7.11.9's displacement from BOS of the run S5.2.3's KPI comes from, for each car (its
    amplitude and its value 1.07 s after BOS the KPI's), with the instant and the limit marked."""
    m = CATALOGUE["r140_swd"]
    cars = [sedan(), Car(load_preset("tail_happy").params, "tail_happy")]
    outcome = m.run(cars, lambda jobs: run_jobs(jobs, m.channels))
    least = [next(k for k in kpis if k.key == "lateral_displacement") for kpis in outcome]
    _, runs = runs_of("r140_swd", cars)
    assert len(runs) == 4
    amplitudes = [run.script.robot.get("amplitude") for run in runs[2:]]
    assert amplitudes == pytest.approx([float(k.note.removeprefix("at ").split()[0]) for k in least], rel=1e-3)
    _, chart = charts_of(m, runs, ["sedan", "tail_happy"])
    assert chart.x_label == "time after BOS [s]" and chart.y_label == "lateral displacement [m]"
    for series, kpi in zip(chart.series, least, strict=True):
        assert series.x[0] == 0.0 and series.y[0] == 0.0
        assert float(np.interp(1.07, series.x, series.y)) == pytest.approx(kpi.value, abs=2e-3)
    marks = {(line.axis, line.value) for line in chart.lines}
    assert ("x", 1.07) in marks and ("y", 1.83) in marks


def test_the_speed_charts_mark_what_their_kpis_are_read_at():
    """The acceleration, in-gear and straight-braking charts were the speed alone: no 100 and 200 km/h, no full
    throttle, no brake onset nor the speeds of the MFDD. Each is drawn where its KPI reads it."""
    _, _, (accel,) = report("acceleration")
    assert sorted(line.value for line in accel.lines if line.axis == "y") == [100.0, 200.0]
    m, runs, (gear,) = report("elasticity")
    (full,) = [line for line in gear.lines if line.axis == "x"]
    assert full.label == "full throttle" and sorted(line.value for line in gear.lines if line.axis == "y") == [80, 120]
    kpi = {k.key: k for k in m.kpis(runs[0])}["time_80_120"]
    speed = gear.series[0]
    assert np.interp(full.value + kpi.value, speed.x, speed.y) == pytest.approx(120.0, abs=0.1)  # timed from the line
    m, runs, (brake,) = report("iso21994")
    (onset,) = [line for line in brake.lines if line.axis == "x"]
    k = int(np.flatnonzero(runs[0]["brake"] > 0.0)[0])
    v0 = runs[0]["speed"][k] * KMH
    assert onset.label == "brake onset" and onset.value == runs[0].t[k]
    assert sorted(line.value for line in brake.lines if line.axis == "y") == pytest.approx([0.1 * v0, 0.8 * v0])
    assert brake.series[0].x[0] >= onset.value - 2.0 - 1e-9  # from shortly before the onset, not the run-up


def test_the_step_and_the_bode_charts_mark_what_their_kpis_are_read_at():
    """The step steer's chart had no t0 nor the 90% its response time is read at; the Bode chart no 1 Hz nor the
    -3 dB of the bandwidth."""
    from workbench.manoeuvres.transient import step_response

    m, runs, (step,) = report("iso7401_step")
    r = step_response(runs[0].t, runs[0]["steer"], runs[0]["yaw_rate"], float(runs[0].t[-1]))
    (t0,) = [line for line in step.lines if line.axis == "x"]
    (ninety,) = [line for line in step.lines if line.axis == "y"]
    assert t0.value == 0.0 and ninety.value == pytest.approx(0.9 * r["steady"] * DEG)
    kpi = {k.key: k for k in m.kpis(runs[0])}["yaw_response_time"]
    yaw = step.series[0]
    assert np.interp(kpi.value, yaw.x, yaw.y) == pytest.approx(ninety.value, rel=1e-3)  # read there
    m, runs, (gain, phase) = report("iso7401_sweep")
    assert [line.value for line in phase.lines] == [1.0]
    # both phases the KPIs read at 1 Hz are drawn (the lateral acceleration's was not), each at its KPI's value there
    kpis = {k.key: k.value for k in m.kpis(runs[0])}
    yaw_phase, ay_phase = phase.series
    assert not yaw_phase.dashed and ay_phase.dashed and yaw_phase.colour == ay_phase.colour
    assert np.interp(1.0, yaw_phase.x, yaw_phase.y) == pytest.approx(kpis["yaw_phase_1hz"], abs=1e-6)
    assert np.interp(1.0, ay_phase.x, ay_phase.y) == pytest.approx(kpis["ay_phase_1hz"], abs=1e-6)
    (cut,) = [line for line in gain.lines if line.axis == "y"]
    # at the gain the bandwidth is read at, the lowest frequency's over sqrt 2 (10^(-3/20) drew it 0.12% off)
    assert cut.value == pytest.approx(gain.series[0].y[0] / np.sqrt(2.0), rel=1e-12) and cut.label == "-3 dB"
    assert np.interp(kpis["bandwidth"], gain.series[0].x, gain.series[0].y) == pytest.approx(cut.value, rel=1e-9)


def test_the_steady_state_fit_is_drawn_dark_over_one_cars_curve():
    """In the car's own colour the fit's dashes lay hidden under its curve."""
    from workbench.manoeuvres.charts import FIT_COLOUR

    _, _, (chart,) = report("iso4138")
    (fit,) = [s for s in chart.series if s.dashed]
    (curve,) = [s for s in chart.series if not s.dashed]
    assert fit.colour == FIT_COLOUR != curve.colour


def test_two_cars_step_responses_are_drawn_from_each_ones_t0():
    """The step steer's chart ran on the run's own clock: two runs whose steps came at different instants were drawn
    apart, and their response times could not be compared by eye. (The second run here is the first one half a
    second later: its frames from 60 on are the first's from 0 on, after 60 frames of the straight run-up.)"""
    from dataclasses import replace as with_fields

    from workbench.manoeuvres.transient import step_response

    m, (run,) = runs_of("iso7401_step", [sedan()])
    later = with_fields(run, data={k: v if k == "t" else np.concatenate([np.repeat(v[:1], 60), v[:-60]])
                                   for k, v in run.data.items()})
    runs = [run, later]
    (chart,) = charts_of(m, runs, ["sedan", "half a second later"])
    t0s = [step_response(r.t, r["steer"], r["yaw_rate"], float(r.t[-1]))["t0"] for r in runs]
    assert t0s[1] - t0s[0] == pytest.approx(0.5, abs=1e-9)
    first, second = chart.series
    # one response, drawn as one (to the rounding of t - t0)
    np.testing.assert_allclose(second.x, first.x, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(second.y, first.y)
    assert np.interp(0.0, first.x, first.y) == pytest.approx(np.interp(t0s[0], run.t, run["yaw_rate"] * DEG))


def test_two_cars_steady_state_fits_are_dark_shades_of_their_colours_over_one_shared_range():
    """With two cars each fit was drawn dashed in its car's own colour over that car's curve (hidden under it), and
    the two equal fit ranges were shaded over each other into a third colour named twice in the legend."""
    from workbench.output.charts import darker

    m, runs = runs_of("iso4138", [sedan(), sedan(**{"body.mass": 1800.0})])
    (chart,) = charts_of(m, runs, ["sedan", "heavy"])
    curves = [s for s in chart.series if not s.dashed]
    fits = [s for s in chart.series if s.dashed]
    assert len(curves) == len(fits) == 2
    for curve, fit in zip(curves, fits, strict=True):
        assert fit.colour == darker(curve.colour) != curve.colour
        assert fit.label.startswith(curve.label + ": ")
    (band,) = chart.bands
    assert band.label.startswith("fit range ") and band.colour not in {c.colour for c in curves}


def test_darker_takes_each_channel_towards_black():
    from workbench.output.charts import darker

    assert darker("#ff8000") == "#804000"
    assert darker("#ff8000", 0.0) == "#ff8000" and darker("#ff8000", 1.0) == "#000000"


def test_on_ice_the_phase_kpis_are_angles_and_the_chart_passes_through_them():
    """A car sliding on ice: the phases unwrapped from the sweep's lowest frequency read 296 and 2159 deg at 1 Hz, in
    the KPIs and on the chart; now each KPI is the transfer function's angle at 1 Hz and each curve passes through it."""
    m, runs = runs_of("iso7401_sweep", [Car(load_preset("sedan").params.with_value("tyres.mu", 0.1), "ice")])
    (gain, phase) = charts_of(m, runs, ["ice"])
    kpis = {k.key: k.value for k in m.kpis(runs[0])}
    for series, key in zip(phase.series, ("yaw_phase_1hz", "ay_phase_1hz"), strict=True):
        assert -180.0 <= kpis[key] <= 180.0
        assert np.interp(1.0, series.x, series.y) == pytest.approx(kpis[key], abs=1e-6)


def test_a_lane_change_run_s_kpis_count_the_gates_it_missed():
    """A run's own KPIs (as a report and a sweep measure read them) say how many gates it missed: none on the sedan's
    drawn run, lane 3's five for a car that cannot steer."""
    m, runs = runs_of("iso3888_2", [sedan(), Car(load_preset("sedan").params.with_value("steering.lock", 0.1745e-2),
                                                  "no steer")])
    missed = [{k.key: k for k in m.kpis(run)}["gates_missed"] for run in runs]
    assert [k.value for k in missed] == [0.0, 5.0] and [k.passed for k in missed] == [True, False]
