"""A sweep of a handling test runs its cars in pieces: the same figures whatever the piece size, and never more than
one piece's runs held at once."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.manoeuvres import sweep_kpis
from workbench.runs.sweep import plan_sweep
from workbench.scripts.format import load_script, resolve_script
from workbench.scripts.program import compile_script


def _plan(script: str, axis: str):
    return plan_sweep(compile_script(load_script(resolve_script(script))), [axis])


def _count_cars_per_call(monkeypatch) -> list[int]:
    """The number of jobs each call of the runner gets from now on (the calls still run)."""
    sizes: list[int] = []
    real = sweep_kpis.run_jobs

    def counting(jobs, channels, chunk=512, kernel=None, dt=None):
        sizes.append(len(jobs))
        return real(jobs, channels, chunk, kernel, dt)

    monkeypatch.setattr(sweep_kpis, "run_jobs", counting)
    return sizes


@pytest.mark.parametrize("script, axis", [("iso4138_circle", "tyres.b_rear=9:15:5"),  # the KPIs from its own run
                                          ("accel_80_120", "engine.peak_torque=250:400:5")])  # runs of its own
def test_a_handling_sweep_in_pieces_gives_every_car_the_figures_of_one_piece(monkeypatch, script, axis):
    plan = _plan(script, axis)
    whole = sweep_kpis.run_test_sweep(plan, chunk=512)
    sizes = _count_cars_per_call(monkeypatch)
    pieces = sweep_kpis.run_test_sweep(plan, chunk=2)
    assert max(sizes) <= 2 and sum(sizes) >= plan.cars  # two cars at a time, every car run
    assert pieces.car_steps == whole.car_steps
    assert pieces.kpi_names == whole.kpi_names and len(whole.kpi_names) > 0
    for name in ("expect_value", "expect_margin", "measure_value", "kpi_value"):
        a, b = getattr(whole, name), getattr(pieces, name)
        assert a.shape == b.shape and a.tobytes() == b.tobytes(), name
    assert np.isfinite(whole.kpi_value).any()


def test_a_long_script_runs_in_smaller_pieces(monkeypatch):
    # A piece holds every frame of its cars' runs: the cars per piece shrink as the script's frames grow.
    assert sweep_kpis.piece_cars(8401, 5, 512) == 512  # the ISO 4138 circle: a whole chunk
    assert sweep_kpis.piece_cars(432_001, 5, 512) == 256 * 2**20 // (8 * 432_001 * 6) == 12  # an hour at 1/120 s
    assert sweep_kpis.piece_cars(10_368_001, 5, 512) == 1  # a day: one car at a time
    plan = _plan("iso4138_circle", "tyres.b_rear=9:15:5")
    monkeypatch.setattr(sweep_kpis, "PIECE_BYTES", 3 * 8 * plan.program.frames * 7)
    sizes = _count_cars_per_call(monkeypatch)
    sweep_kpis.run_test_sweep(plan)
    channels = len(set(sweep_kpis.fitting(plan.program.script).channels) | {e.channel for e in plan.program.script.expects}
                   | {m.channel for m in plan.program.script.measures})
    piece = sweep_kpis.piece_cars(plan.program.frames, channels, 512)
    assert 1 < piece < 5
    assert sizes[:-1] == [piece] * (len(sizes) - 1) and 0 < sizes[-1] <= piece and sum(sizes) == 5


def test_a_handling_sweep_tells_its_progress_after_every_piece():
    plan = _plan("accel_80_120", "engine.peak_torque=250:400:5")  # a test with runs of its own
    told: list[tuple] = []
    result = sweep_kpis.run_test_sweep(plan, chunk=2, progress=lambda *args: told.append(args))
    assert [t[0] for t in told] == [2, 4, 5] and all(t[1] == 5 for t in told)
    assert told[-1][2] == told[-1][3] == result.car_steps  # the last piece: every step done, none to come
    assert all(0 < t[2] <= t[3] for t in told) and [t[2] for t in told] == sorted(t[2] for t in told)


def test_a_handling_sweep_runs_its_cars_at_the_sweeps_dt():
    """--dt was taken for the expectations' windows but not for the runs: at 0.02 s the step steer's "holds 80 km/h"
    read a frame of the run at 1/120 s (75.8 km/h, every car failing), and at 0.001 s the window lay past the run's
    end (a traceback)."""
    from workbench.runs.replay import replay

    program = compile_script(load_script(resolve_script("iso7401_step")), dt=0.02)
    plan = plan_sweep(program, ["body.mass=1500,1600"])
    result = sweep_kpis.run_test_sweep(plan)
    (alone,) = replay([compile_script(program.script, dt=0.02)])
    assert result.expect_value.shape[0] == len(program.script.expects)
    assert (result.expect_margin[0] >= 0).all()  # every car holds 80 km/h before the step, as replay at 0.02 s does
    assert alone.verdicts[0].passed
    assert result.car_steps % program.frames == 0  # every run (its own and the test's) of 0.02 s frames


def test_a_handling_sweep_of_a_kinematic_car_is_refused_as_manoeuvre_refuses_it(capsys, tmp_path, monkeypatch):
    """It gave the teaching car an understeer gradient and a characteristic speed of 17,663 km/h."""
    from workbench.cli import main

    monkeypatch.chdir(tmp_path)
    code = main(["sweep", "iso4138_circle", "--preset", "teaching", "--param", "body.mass=1000,1200", "--json",
                 "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and not (tmp_path / "out").exists()
    assert err.strip().startswith("carbench: iso4138_circle: iso4138 judges handling, which the teaching car"), err


def swd_program():
    """The sine with dwell's script on the sedan with its steering quick enough for the robot (1.4 rad/s: 1,203 deg/s
    of handwheel against the 270 deg run's 1,187; the keys' 1.2 holds it back, and the runs are no runs of the test)."""
    from dataclasses import replace

    program = compile_script(load_script(resolve_script("r140_sine_dwell")))
    return replace(program, params=program.params.with_values({"steering.rate": 1.4}))


def test_a_car_past_a_kpi_limit_does_not_pass_the_sweep():
    """FMVSS 126's yaw-rate ratios (S5.2.1, S5.2.2) swept over stability control off and on: the car without it fails
    both limits and so fails the sweep, though it meets the script's one expectation (80 km/h at the start of the
    steer). It counted as passing: the sweep judged the expectations alone. A car that did not meet the test's
    conditions (60 N m: never 80 km/h) gets no KPI verdicts, as `carbench manoeuvre` gives none, and the conditions'
    row says it."""
    from workbench.output.sweep_report import as_json, charts, csv_text, summary

    plan = plan_sweep(swd_program(),
                      ["aids.esc=0,1", "engine.peak_torque=60,500"])  # 500 N m: the sedan's own
    result = sweep_kpis.run_test_sweep(plan)
    esc, torque = plan.values[:, 0], plan.values[:, 1]
    labels = [label for label, _ in result.kpi_names]
    ratio = labels.index("worst yaw-rate ratio 1.00 s after COS")
    fast = torque == 500
    assert result.expect_passed[0].tolist() == fast.tolist()  # the conditions: 80 km/h reached
    assert result.kpi_limits[ratio] == "<= 35 %" and ratio in result.judged_kpis
    assert (result.kpi_value[ratio][fast & (esc == 0)] > 35).all() and (result.kpi_value[ratio][fast & (esc == 1)] < 35).all()
    assert result.kpi_passed[ratio][fast].tolist() == [0.0 if e == 0 else 1.0 for e in esc[fast]]
    met = result.kpi_keys.index("conditions")
    assert result.kpi_passed[met].tolist() == fast.astype(float).tolist() and met not in result.valued_kpis
    assert np.isnan(np.delete(result.kpi_passed, met, axis=0)[:, ~fast]).all()  # conditions not met: no verdicts
    assert result.all_passed.tolist() == (fast & (esc == 1)).tolist()
    text = summary(result)
    assert text.endswith("1 of 4 cars pass every expectation and KPI limit")
    assert "limit <= 35 %: 1 of 2 judged pass" in text and "the test's conditions: met by 2 of 4 cars" in text
    header, *rows = [line.split(",") for line in csv_text(result).splitlines()]
    column = header.index("worst yaw-rate ratio 1.00 s after COS pass")
    cars = list(zip(esc, torque, strict=True))
    assert [row[column] for row in rows] == ["" if t == 60 else ("true" if e else "false") for e, t in cars]
    assert "the test's conditions" not in header  # a verdict without a value: its pass column alone
    assert [row[header.index("the test's conditions pass")] for row in rows] == ["true" if f else "false" for f in fast]
    assert [row[-1] for row in rows] == ["true" if ok else "false" for ok in result.all_passed]
    assert all(len(row) == len(header) for row in rows)
    kpi = as_json(result)["kpis"][ratio]
    assert kpi["limit"] == "<= 35 %" and kpi["passed"] == [None if t == 60 else bool(e) for e, t in cars]
    assert as_json(result)["passed_all"] == 1
    assert not any("conditions" in name for name, _ in charts(result))  # no chart of a value that is never there
    # The heatmap of a judged KPI: its value about the limit, passing below it on green, the cars without a verdict
    # grey (it drew the value alone on viridis, the limit in its note)
    heat = dict(charts(result))["heatmap-kpi-worst-yaw-rate-ratio-1-00-s-after-cos.png"].heatmap
    assert heat.level == 35.0 and heat.passes_below
    judged = np.isfinite(heat.values)
    assert judged.sum() == 2 and (heat.values[judged] <= 35.0).sum() == 1
    assert result.kpi_bounds[ratio] == ("<=", 35.0) and result.kpi_bounds[met] is None


def test_a_limit_that_depends_on_the_car_is_given_as_each_car_was_judged(monkeypatch):
    """FMVSS 126's least lateral displacement: 1.83 m, or 1.52 m above 3,500 kg. Swept over the mass, the summary and
    the chart gave the first car's 1.83 m for all, and the chart drew it as the line a 4,000 kg car was held to. (The
    4,000 kg sedan misses the slowly increasing steer's 80 km/h, 84 km/h: its series is let pass here, so that it is
    judged at all; a car that is not judged adds no limit.)"""
    from workbench.output.sweep_report import charts, summary

    monkeypatch.setattr(sweep_kpis, "unmet_condition", lambda run, count: None)
    plan = plan_sweep(swd_program(), ["body.mass=1500,4000"])
    result = sweep_kpis.run_test_sweep(plan)
    k = [label for label, _ in result.kpi_names].index("least lateral displacement 1.07 s after BOS (5 A and up)")
    assert result.kpi_limits[k] == ">= 1.83 m or >= 1.52 m"
    assert "limit >= 1.83 m or >= 1.52 m:" in summary(result)
    chart = dict(charts(result))["kpi-least-lateral-displacement-1-07-s-after-bos-5-a-and-up.png"]
    assert not chart.lines  # no one line is the limit of every car
    ratio = dict(charts(result))["kpi-worst-yaw-rate-ratio-1-00-s-after-cos.png"]
    assert [line.value for line in ratio.lines] == [35.0] and ratio.lines[0].kept  # in view however low the ratios


def test_a_kpis_limit_as_a_number_writes_its_text():
    """The limit line was parsed back out of the limit's text ("<= 35 %"); a KPI carries the number itself."""
    from workbench.manoeuvres.kpi import Kpi

    assert Kpi("r", "ratio", 20.0, "%", "S5.2.1", bound=("<=", 35.0)).limit == "<= 35 %"
    assert Kpi("d", "displacement", 2.0, "m", "S5.2.3", bound=(">=", 1.83)).limit == ">= 1.83 m"
    assert Kpi("n", "count", 2.0, "", "", bound=("<=", 0.0)).limit == "<= 0"
    assert Kpi("c", "cones", 0.0, "", "", "0", True).bound is None
    with pytest.raises(ValueError, match="<= or >="):
        Kpi("x", "x", 1.0, "", "", bound=("<", 1.0))


def test_a_series_run_that_misses_the_conditions_takes_the_cars_verdicts():
    """170 N m: the sine-with-dwell script's own run reaches 80 km/h by the steer at 14 s, but the series' slowly
    increasing steer has not reached it when its window opens (70.5 km/h at 10 s, not 78..81): `carbench manoeuvre`
    says the conditions were not met and gives no verdicts, and so does the sweep now (it judged the script's own run
    alone)."""
    plan = plan_sweep(swd_program(), ["engine.peak_torque=170,500"])
    result = sweep_kpis.run_test_sweep(plan)
    assert result.expect_passed[0].tolist() == [True, True]  # the script's own condition, met by both
    met = result.kpi_keys.index("conditions")
    assert result.kpi_passed[met].tolist() == [0.0, 1.0]
    ratio = [label for label, _ in result.kpi_names].index("worst yaw-rate ratio 1.00 s after COS")
    assert np.isnan(result.kpi_passed[ratio, 0]) and result.kpi_passed[ratio, 1] == 1.0
    assert result.all_passed.tolist() == [False, True]


def test_a_cars_verdicts_do_not_depend_on_the_piece_it_runs_in():
    """The cars that missed a series run's conditions were kept by id(): a car of a later piece given the id of a freed
    one lost its verdicts (cars 28, 29, 35, 41, 49 and 56 of 60 in pieces of one)."""
    plan = plan_sweep(compile_script(load_script(resolve_script("iso7401_step"))), ["engine.peak_torque=60:500:30"])
    whole = sweep_kpis.run_test_sweep(plan, chunk=512)
    ones = sweep_kpis.run_test_sweep(plan, chunk=1)
    assert not whole.expect_passed[0].all() and whole.expect_passed[0].any()  # some cars miss the conditions
    assert ones.kpi_keys == whole.kpi_keys
    assert ones.kpi_passed.tobytes() == whole.kpi_passed.tobytes()
    assert ones.all_passed.tolist() == whole.all_passed.tolist()
    assert whole.passing_what == "every expectation and the test's conditions"  # no KPI of the step has a limit


def test_a_handling_sweep_asked_to_stop_returns_nothing_before_its_next_piece():
    plan = plan_sweep(compile_script(load_script(resolve_script("iso7401_step"))), ["body.mass=1500,1600,1700"])
    asked = []

    def cancelled():
        asked.append(True)
        return len(asked) > 1  # after the first piece

    assert sweep_kpis.run_test_sweep(plan, chunk=1, cancelled=cancelled) is None
    assert len(asked) == 2


def test_a_sampled_sweep_of_a_handling_test_charts_each_kpis_sensitivity():
    """A Latin-hypercube sweep of the ISO 4138 circle over the tyres' stiffness factors: a tornado chart per KPI (it
    drew the expectations' alone), its bars the means of the lowest and highest thirds, each marked with the way the
    KPI moves: a stiffer front tyre less understeer, a stiffer rear one more."""
    from workbench.output.sweep_report import charts

    plan = plan_sweep(compile_script(load_script(resolve_script("iso4138_circle"))),
                      ["tyres.b_rear=8:16", "tyres.b_front=8:16", "body.lr=1.3:1.55"], samples=30, seed=3)
    result = sweep_kpis.run_test_sweep(plan)
    drawn = dict(charts(result))
    chart = drawn["tornado-kpi-understeer-gradient.png"]
    labels = chart.bars.labels
    (front_row,) = [i for i, label in enumerate(labels) if label.startswith("tyres.b_front \u2264 ")]
    (rear_row,) = [i for i, label in enumerate(labels) if label.startswith("tyres.b_rear \u2264 ")]
    assert labels[front_row].endswith("(\u2212)") and labels[rear_row].endswith("(+)")
    k = [label for label, _ in result.kpi_names].index("understeer gradient")
    front = plan.values[:, 1]
    third = front <= np.quantile(front, 1 / 3)
    assert chart.bars.lo[front_row] == pytest.approx(np.mean(result.kpi_value[k][third]))  # the soft-front third: more
    assert chart.bars.lo[front_row] > chart.bars.hi[front_row]
    assert {f"tornado-kpi-{name}.png" for name in ("body-slip-angle-gradient", "maximum-lateral-acceleration")} <= set(drawn)


def test_a_cancel_is_heard_before_a_tests_series_runs():
    """The lane change runs its series (each speed) for a piece of cars after the script's own runs: a cancel was heard
    only before the next piece, and a dock sweep of 512 cars or fewer was one piece, never cancelled."""
    plan = plan_sweep(compile_script(load_script(resolve_script("iso3888_2"))), ["body.mass=1500,1600"])
    asked = []

    def cancelled():
        asked.append(True)
        return len(asked) > 1  # heard at the series' batch, after the piece's own runs

    assert sweep_kpis.run_test_sweep(plan, cancelled=cancelled) is None
    assert len(asked) == 2


def test_an_on_off_parameter_is_charted_as_its_two_cars_and_a_car_past_the_limit_as_failing():
    """`sweep r140_sine_dwell --param aids.esc=0,1 --plot`: a line from ESC off to on crossed the 35 % limit at
    "esc = 0.77" under ticks of 0.2 .. 0.8, and the car past the limit (151 %) was drawn as the one within it."""
    from workbench.output.sweep_report import charts

    result = sweep_kpis.run_test_sweep(plan_sweep(swd_program(),
                                                  ["aids.esc=0,1"]))
    chart = dict(charts(result))["kpi-worst-yaw-rate-ratio-1-00-s-after-cos.png"]
    cars, past = chart.series
    assert not cars.joined and chart.x_ticks == (0.0, 1.0)
    assert past.label == "past the limit" and past.x.tolist() == [0.0] and past.y[0] > 35.0
    assert all(not s.joined for s in dict(charts(result))["margins.png"].series)
    mass = sweep_kpis.run_test_sweep(plan_sweep(swd_program(),
                                                ["body.mass=1500,1700"]))
    line = dict(charts(mass))["kpi-worst-yaw-rate-ratio-1-00-s-after-cos.png"]
    assert line.series[0].joined and line.x_ticks is None  # a parameter of any value between: a line
    # a count is ticked in whole numbers (the runs' axis read 22.5), a ratio is not
    drawn = dict(charts(mass))
    assert drawn["kpi-sine-with-dwell-runs.png"].y_whole and not line.y_whole
