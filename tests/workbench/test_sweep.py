"""Sweeps: every combination a car, one row each, the same whatever the chunking or where it ran."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physics.presets import scripts_dir
from workbench.output.sweep_report import csv_text, flip_lines, summary
from workbench.runs import cluster
from workbench.runs.replay import replay
from workbench.runs.sweep import MAX_CARS, SweepError, latin_hypercube, plan_sweep, run_sweep
from workbench.scripts.format import load_script, parse_script
from workbench.scripts.program import compile_script

SHORT = """
[script]
name = "short-launch"
preset = "manual003"
duration = 2.0
dt = 0.02

[[hold]]
keys = ["throttle", "left"]
from = 0.0
to = 2.0

[[expect]]
name = "moving"
channel = "speed_kmh"
at = 2.0
min = 4.0

[[expect]]
name = "revs"
channel = "rpm"
from = 0.5
to = 2.0
min = 1000.0
max = 1200.0

[[measure]]
name = "to 3 km/h"
channel = "speed_kmh"
from = 0.0
to = 2.0
first_time_above = 3.0

[[measure]]
name = "mean yaw rate"
channel = "yaw_rate"
from = 1.0
to = 2.0
reduce = "mean"
"""


@pytest.fixture(scope="module")
def short():
    return compile_script(parse_script(SHORT, "short.toml"))


def test_the_row_count_is_the_product_of_the_axes(short):
    plan = plan_sweep(short, ["body.mass=1000:1400:3", "steering.lock=20,30", "engine.peak_torque=300:400:2:log"])
    assert plan.cars == 3 * 2 * 2 and plan.shape == (3, 2, 2)
    result = run_sweep(plan, chunk=5)
    lines = csv_text(result).splitlines()
    assert len(lines) == 1 + 12
    assert lines[0].split(",")[:4] == ["car", "body.mass [kg]", "steering.lock [deg]", "engine.peak_torque [N m]"]
    # the first axis slowest: product order
    assert [tuple(r) for r in plan.values[:4]] == [(1000.0, 20.0, 300.0), (1000.0, 20.0, 400.0),
                                                   (1000.0, 30.0, 300.0), (1000.0, 30.0, 400.0)]
    assert plan.values[:, 2].tolist().count(400.0) == 6  # the log axis ends exactly where it was typed


def test_a_one_value_sweep_equals_a_plain_replay(short):
    (plain,) = replay([short])
    result = run_sweep(plan_sweep(short, ["steering.lock=40"]))
    assert [v.measured for v in plain.verdicts] == result.expect_value[:, 0].tolist()
    assert [v.passed for v in plain.verdicts] == result.expect_passed[:, 0].tolist()
    assert [m.value for m in plain.measurements] == result.measure_value[:, 0].tolist()
    assert math.isclose(short.params.steering.lock, math.radians(40.0))
    # the sweep's car is the script's car: the value swept is the preset's own
    assert short.params.steering.lock == plan_sweep(short, ["steering.lock=40"]).si_values()[0, 0]


def test_a_set_part_way_takes_a_swept_parameter_to_the_scripts_value_as_a_replay_does():
    """The clutch coast with its mass set to 3,000 kg at 1 s, swept over the mass: every car ran at its own mass to
    the end, where a replay of the script's car with that mass (compare --vs-set, the window's re-run) takes the
    3,000 kg at 1 s. Each car's row is that replay's, to the bit; a parameter the script sets at 0 s is the
    swept one's from the start."""
    base = (scripts_dir() / "clutch_coast.toml").read_text(encoding="utf-8")
    text = base + '\n[[set]]\nat = 1.0\nparams = { "body.mass" = 3000.0, "engine.peak_torque" = 300.0 }\n'
    program = compile_script(parse_script(text, "coast-set.toml"))
    result = run_sweep(plan_sweep(program, ["body.mass=900,1200,1600", "aero.cd=0.3,0.4"]), chunk=4)
    for i, (mass, drag) in enumerate(result.plan.values):
        own = text + f'\n[[set]]\nat = 0.0\nparams = {{ "body.mass" = {float(mass)!r}, "aero.cd" = {float(drag)!r} }}\n'
        (run,) = replay([compile_script(parse_script(own, "own.toml"))])
        assert [v.measured for v in run.verdicts] == result.expect_value[:, i].tolist()
    assert len(set(result.expect_value[0])) > 1  # the mass moves the speed at 2.4 s: the swept values count until 1 s


def test_the_cars_are_checked_as_they_run_with_the_scripts_values_from_a_set_on():
    """With the wheelbase set to 2 m at 1 s, cars of lr 2.2 m ran on from there (the replay of such a car is refused);
    with the wheelbase and lr set to 3 and 2.8 m at 1 s, a car of 2.5 m's wheelbase was refused for the script's own
    lr, which it never runs with its own wheelbase."""
    base = (scripts_dir() / "clutch_coast.toml").read_text(encoding="utf-8")
    shorter = compile_script(parse_script(base + '\n[[set]]\nat = 1.0\nparams = { "body.wheelbase" = 2.0 }\n',
                                          "wb.toml"))
    with pytest.raises(SweepError, match=r"car 2 \(body.wheelbase = 2.5 m, body.lr = 2.2 m\): body.lr = 2.2 m: must be "
                                         r"less than the wheelbase \(2 m\)"):
        plan_sweep(shorter, ["body.wheelbase=2.5,3.0", "body.lr=1.0,2.2"])
    longer = compile_script(parse_script(base + '\n[[set]]\nat = 1.0\nparams = { "body.wheelbase" = 3.0, '
                                                '"body.lr" = 2.8 }\n', "wb2.toml"))
    result = run_sweep(plan_sweep(longer, ["body.wheelbase=2.5,3.0"]))
    assert result.plan.cars == 2 and np.isfinite(result.expect_value).all()


def test_a_car_that_cannot_turn_as_tightly_as_its_drivers_circle_is_refused_by_name():
    """`sweep iso4138_circle --param steering.lock=1:30:30` ended with the first car's compile, "radius 100 is tighter
    than the car turns at full lock (163)", naming no car and writing nothing; a plain sweep of the same script ran
    such cars at full lock. Both refuse the first such car before running, by its values."""
    from workbench.scripts.format import resolve_script

    program = compile_script(load_script(resolve_script("iso4138_circle")))
    with pytest.raises(SweepError, match=r"^car 1 \(steering.lock = 1 deg\): \[driver.path\] circle: its tightest "
                                         r"radius, 100 m, is tighter than the car turns at full lock \(163 m\)$"):
        plan_sweep(program, ["steering.lock=1:30:30"])
    plan = plan_sweep(program, ["steering.lock=5:30:3"])  # 5 deg: a 33 m circle at full lock, within 100 m
    assert plan.cars == 3


def test_the_margin_is_signed_and_positive_passes(short):
    result = run_sweep(plan_sweep(short, ["engine.peak_torque=60,350"]))
    moving = result.expect_margin[0]
    assert moving[0] < 0 < moving[1]
    assert result.expect_value[0] - 4.0 == pytest.approx(moving)
    assert result.expect_passed[0].tolist() == [False, True]


@pytest.mark.parametrize(("n", "dims", "seed"), [(1, 1, 0), (7, 3, 1), (50, 2, 42)])
def test_the_latin_hypercube_covers_each_stratum_once(n, dims, seed):
    u = latin_hypercube(n, dims, seed)
    assert u.shape == (n, dims) and (u >= 0).all() and (u < 1).all()
    for d in range(dims):
        assert sorted(np.floor(u[:, d] * n).astype(int).tolist()) == list(range(n))
    assert np.array_equal(u, latin_hypercube(n, dims, seed))


def test_a_sample_stays_inside_its_ranges_with_one_car_per_stratum(short):
    plan = plan_sweep(short, ["body.mass=1000:1500", "tyres.mu=0.5:2.0:log"], samples=20, seed=7)
    assert plan.cars == 20 and not plan.grid
    mass, mu = plan.values[:, 0], plan.values[:, 1]
    assert sorted(np.floor((mass - 1000) / 500 * 20).astype(int).tolist()) == list(range(20))
    strata = np.floor((np.log(mu) - np.log(0.5)) / (np.log(2.0) - np.log(0.5)) * 20).astype(int)
    assert sorted(strata.tolist()) == list(range(20))


def test_a_cars_row_does_not_depend_on_the_chunk_or_its_position(short):
    plan = plan_sweep(short, ["steering.lock=15,30,45,60,75"])
    rows = csv_text(run_sweep(plan, chunk=5)).splitlines()
    assert csv_text(run_sweep(plan, chunk=2)).splitlines() == rows
    reversed_plan = plan_sweep(short, ["steering.lock=75,60,45,30,15"])
    flipped = csv_text(run_sweep(reversed_plan, chunk=3)).splitlines()
    body = lambda line: line.split(",", 1)[1]  # noqa: E731 - without the car number
    assert [body(r) for r in flipped[1:]] == [body(r) for r in rows[1:]][::-1]


@pytest.mark.parametrize(("spec", "reason"), [
    ("steering.lock", "expected PATH=LO:HI:N"),
    ("steering.lok=1:2:3", "unknown parameter"),
    ("model.kind=1,2", "not a number and cannot be swept"),
    ("steering.lock=10:90:9", "steering.lock = 90 deg is out of range; allowed: 0 < value <= 80 deg"),
    ("steering.lock=a:b:3", "'a' is not a number"),
    ("steering.lock=10:80:1", "N = 1 must be between 2"),
    ("steering.lock=10:80:x", "must be a whole number"),
    ("steering.lock=80:10:3", "must be above LO"),
    ("body.mass=0:1000:3", "body.mass = 0 kg is out of range; allowed: 0.01 <= value <= 1e+06 kg"),
    ("body.mass=-5:1000:3:log", "a log axis needs LO > 0"),
    ("body.mass=1,nan", "not a finite number"),
    ("body.mass=1:2:3:4:5", "expected PATH=LO:HI:N"),
])
def test_bad_axes_are_refused_naming_the_option(short, spec, reason):
    with pytest.raises(SweepError) as info:
        plan_sweep(short, [spec])
    assert str(info.value).startswith(f"--param {spec}: "), info.value
    assert reason in str(info.value)


def test_a_car_breaking_its_constraints_is_refused_naming_the_combination(short):
    with pytest.raises(SweepError, match=r"car 2 \(body.wheelbase = 2 m, body.lr = 2.1 m\): body.lr = 2.1 m: "
                                         r"must be less than the wheelbase \(2 m\)"):
        plan_sweep(short, ["body.wheelbase=2,3", "body.lr=1.3,2.1"])


def test_too_many_cars_and_bad_sample_options_are_refused(short):
    with pytest.raises(SweepError, match=f"1,030,301 cars; a sweep has at most {MAX_CARS:,}"):
        plan_sweep(short, ["body.mass=900:1000:101", "tyres.mu=1:2:101", "steering.lock=20:40:101"])
    with pytest.raises(SweepError, match="--samples 0: must be between 1"):
        plan_sweep(short, ["body.mass=900:1000"], samples=0)
    with pytest.raises(SweepError, match="with --samples give a range"):
        plan_sweep(short, ["body.mass=900:1000:3"], samples=5)
    with pytest.raises(SweepError, match="--seed: only with --samples"):
        plan_sweep(short, ["body.mass=900:1000:3"], seed=1)
    with pytest.raises(SweepError, match="given twice"):
        plan_sweep(short, ["body.mass=900,1000", "body.mass=1100"])
    with pytest.raises(SweepError, match="at least one --param"):
        plan_sweep(short, [])


# -- the full-lock stall, put back -------------------------------------------------------------------


@pytest.fixture
def full_lock_stall():
    """003's full-lock stall put back into the model: full tyre forces at a crawl and a yaw-only bicycle
    (a model variant built through physics.build_kernel, tests/bugs003.py)."""
    from bugs003 import full_lock_kernel

    return full_lock_kernel()


# Road-car locks, 10 to 60 degrees: past that the kinematic path at lock is so tight (a turning
# radius under a wheelbase) that the yaw takes most of the drive's work and the car creeps off.
LOCKS = ["steering.lock=10:60:6"]


def full_lock_sweep(kernel=None):
    program = compile_script(load_script(scripts_dir() / "full_lock_left.toml"))
    return run_sweep(plan_sweep(program, LOCKS), kernel=kernel)


def pulls_away(result) -> int:
    return [e.name for e in result.plan.program.script.expects].index("pulls away")


def test_full_lock_pulls_away_at_every_lock():
    result = full_lock_sweep()
    e = pulls_away(result)
    assert result.expect_passed[e].all(), result.expect_margin[e]
    assert e not in flip_lines(result)
    assert "pulls away: 6 of 6 pass\n" in summary(result)


def test_with_the_stall_put_back_it_fails_from_some_lock_upwards(full_lock_stall):
    result = full_lock_sweep(full_lock_stall)
    e = pulls_away(result)
    passed = result.expect_passed[e]
    first_fail = int(np.argmin(passed))
    assert not passed.all() and not passed[first_fail:].any() and passed[:first_fail].all()
    locks = result.plan.values[:, 0]
    boundary = f"fails from steering.lock = {locks[first_fail]:g} deg upwards (passes at {locks[first_fail - 1]:g} deg)"
    assert f"pulls away: {first_fail} of 6 pass; {boundary}" in summary(result)


# -- on a cluster ------------------------------------------------------------------------------------


def test_a_two_worker_local_cluster_writes_the_same_csv_bytes(short):
    plan = plan_sweep(short, ["steering.lock=20:60:3", "body.mass=1000,1300"])
    here = csv_text(run_sweep(plan, chunk=2))
    with cluster.mapper(workers=2) as mapper:
        there = csv_text(run_sweep(plan, mapper, chunk=2, per_round=4))
    assert there.encode() == here.encode()


def test_a_one_axis_sample_names_its_flips_in_order_of_the_value(short):
    result = run_sweep(plan_sweep(short, ["engine.peak_torque=20:350"], samples=12, seed=5))
    moving = result.expect_passed[0]
    assert moving.any() and not moving.all()
    (line,) = [text for e, text in flip_lines(result).items() if e == 0]
    torque = result.plan.values[:, 0]
    lowest_pass, highest_fail = torque[moving].min(), torque[~moving].max()
    assert highest_fail < lowest_pass  # the weak engines fail, the strong ones pass
    assert line == (f"passes from engine.peak_torque = {lowest_pass:g} N m upwards "
                    f"(fails at {highest_fail:g} N m)")


def test_degrees_become_radians_as_math_radians_makes_them(short):
    values = [float(v) for v in np.linspace(10.0, 80.0, 141)]
    plan = plan_sweep(short, ["steering.lock=" + ",".join(map(repr, values))])
    assert plan.si_values()[:, 0].tolist() == [math.radians(v) for v in values]
    assert plan.si_values()[-1, 0] == short.params.info("steering.lock").hi  # the 80 deg limit itself is allowed


def test_a_scripts_parameter_changes_still_apply_to_every_car():
    changed = SHORT + '\n[[set]]\nat = 0.5\nparams = { "engine.peak_torque" = 120.0 }\n'
    program = compile_script(parse_script(changed, "changed.toml"))
    assert program.param_changes
    (plain,) = replay([program])
    result = run_sweep(plan_sweep(program, ["body.mass=1200,1500"]))
    assert result.expect_value[:, 0].tolist() == [v.measured for v in plain.verdicts]
    assert result.measure_value[:, 0].tolist() == [m.value for m in plain.measurements]
    heavier = run_sweep(plan_sweep(compile_script(parse_script(SHORT, "short.toml")), ["body.mass=1500"]))
    assert result.expect_value[0, 1] != heavier.expect_value[0, 0]  # the weaker engine from 0.5 s on


def test_the_json_gives_bounds_and_measures_in_the_units_it_names(tmp_path, capsys):
    """It said "unit": "deg" beside the script's radians (6.28 for 360 deg), and a yaw-rate measure in rad/s under
    deg/s; the CSV had them right."""
    import json
    import math

    from workbench.cli import main

    script = tmp_path / "units.toml"
    script.write_text('[script]\nname = "units"\npreset = "sedan"\nduration = 4.0\n'
                      '[[hold]]\nkeys = ["throttle", "left"]\nfrom = 0.0\nto = 4.0\n'
                      '[[expect]]\nchannel = "steer"\nat = 3.0\nmin = 0.1\n'
                      '[[measure]]\nname = "peak yaw"\nchannel = "yaw_rate"\nfrom = 0.0\nto = 4.0\nreduce = "max"\n',
                      encoding="utf-8")
    assert main(["sweep", str(script), "--param", "body.mass=1500,1600", "--json", "--out", str(tmp_path / "o")]) == 0
    doc = json.loads(capsys.readouterr().out)
    (expect,), (measure,) = doc["expectations"], doc["measures"]
    assert expect["unit"] == "deg" and expect["min"] == pytest.approx(math.degrees(0.1))
    rows = (tmp_path / "o" / "sweep.csv").read_text(encoding="utf-8").splitlines()
    column = rows[0].split(",").index("peak yaw [deg/s]")
    peaks = [float(r.split(",")[column]) for r in rows[1:]]
    assert measure["unit"] == "deg/s" and (measure["min"], measure["max"]) == (min(peaks), max(peaks))


def test_a_sampled_whole_number_parameter_runs_and_is_listed_whole():
    """--samples on brakes.abs listed 0.93, 0.64 ... while every car ran with it cut to 0 (ABS off); the grid form
    0:1:3 was refused as out of range instead of not whole."""
    from workbench.scripts.program import compile_script

    program = compile_script(load_script(scripts_dir() / "braking_grip.toml"))
    plan = plan_sweep(program, ["brakes.abs=0:1"], samples=6, seed=3)
    assert set(plan.values[:, 0].tolist()) == {0.0, 1.0}
    result = run_sweep(plan)
    grid = run_sweep(plan_sweep(program, ["brakes.abs=0,1"]))
    for car, value in enumerate(plan.values[:, 0]):  # each car judged as the grid's car of its value
        assert (result.expect_passed[:, car] == grid.expect_passed[:, int(value)]).all()
    with pytest.raises(SweepError, match="brakes.abs = 0.5 is not a whole number"):
        plan_sweep(program, ["brakes.abs=0:1:3"])


def test_a_sweep_counts_only_its_inputs_against_the_memory_budget(run_cli, tmp_path):
    """A sweep reduces its frames a block at a time and holds no telemetry, yet a script of 30 s at 1e-5 s was
    refused for the 2.4 GiB its telemetry would take (naming --max-memory, an option sweep does not have)."""
    from workbench.scripts.format import ScriptError
    from workbench.scripts.program import compile_script

    script = parse_script('[script]\nname = "fine"\npreset = "sedan"\nduration = 30.0\n', str(tmp_path / "fine.toml"))
    with pytest.raises(ScriptError, match="over the memory budget"):
        compile_script(script, dt=1e-5)
    assert compile_script(script, dt=1e-5, telemetry=False).frames == 3_000_001
    day = tmp_path / "day.toml"
    day.write_text('[script]\nname = "day"\npreset = "sedan"\nduration = 86400.0\n', encoding="utf-8")
    done = run_cli("sweep", day, "--dt", "1e-5", "--param", "body.mass=1000,1200")
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert "frames' inputs would take 853 GiB, over the memory budget of 2 GiB" in done.stderr


def test_charts_of_labels_with_one_slug_get_distinct_files():
    """Two measures named "top speed" and "top-speed" wrote measure-top-speed.png twice: one chart was lost."""
    from workbench.output.sweep_report import charts
    from workbench.runs.sweep import SweepResult
    from workbench.scripts.program import compile_script

    text = ('[script]\nname = "m"\npreset = "sedan"\nduration = 2.0\n'
            '[[hold]]\nkeys = ["throttle"]\nfrom = 0.0\nto = 2.0\n'
            '[[measure]]\nname = "top speed"\nchannel = "speed"\nfrom = 0.0\nto = 2.0\nreduce = "max"\n'
            '[[measure]]\nname = "top-speed"\nchannel = "speed_kmh"\nfrom = 0.0\nto = 2.0\nreduce = "max"\n')
    plan = plan_sweep(compile_script(parse_script(text)), ["body.mass=1500,1600"])
    result = run_sweep(plan)
    assert isinstance(result, SweepResult)
    names = [name for name, _ in charts(result)]
    assert len(names) == len(set(names)) and {"measure-top-speed.png", "measure-top-speed-2.png"} <= set(names)


def test_a_tornado_bar_says_which_way_each_parameter_moves_the_margin_and_when_it_moves_none(short):
    """A parameter that moved no margin was marked (+), 'the margin grows with the parameter'."""
    from workbench.output.sweep_report import charts
    from workbench.runs.sweep import SweepResult

    plan = plan_sweep(short, ["body.mass=1000:1400:3", "steering.lock=20,30", "engine.peak_torque=300:400:3"])
    e, m = len(short.script.expects), len(short.script.measures)
    assert e >= 1
    margin = np.zeros((e, plan.cars))
    margin[:] = plan.values[:, 0] / 1000.0 - plan.values[:, 2] / 100.0  # grows with mass, shrinks with torque
    result = SweepResult(plan, np.zeros((e, plan.cars)), margin, np.zeros((m, plan.cars)), 0, 0.0)
    tornado = next(chart for name, chart in charts(result) if name.startswith("tornado-"))
    labels = set(tornado.bars.labels)
    # each parameter by its ends (a grid's lowest and highest value), and the way it moves the margin
    assert {"body.mass 1000 \u2192 1400 kg (+)", "engine.peak_torque 300 \u2192 400 N m (\u2212)",
            "steering.lock 20 \u2192 30 deg (=)"} <= labels, labels
    assert "(=) stays" in tornado.notes[0] and "light bar: the mean with the parameter at its low end" in tornado.notes[0]
    row = tornado.bars.labels.index("body.mass 1000 \u2192 1400 kg (+)")
    mass = plan.values[:, 0]
    assert tornado.bars.lo[row] == pytest.approx(margin[0][mass == 1000].mean())  # the low end's mean, not a third's
    assert tornado.bars.hi[row] == pytest.approx(margin[0][mass == 1400].mean())


def test_a_tornado_says_which_parameter_it_left_out_and_draws_none_where_nothing_moved(short):
    """A parameter whose cars at one end had no value was left out without a word, and a chart of rows that all moved
    nothing was an empty frame."""
    from workbench.output.sweep_report import charts
    from workbench.runs.sweep import SweepResult

    plan = plan_sweep(short, ["body.mass=1000:1400:3", "steering.lock=20,30", "engine.peak_torque=300:400:3"])
    e, m = len(short.script.expects), len(short.script.measures)
    margin = np.zeros((e, plan.cars))
    margin[:] = plan.values[:, 0] / 1000.0
    margin[:, plan.values[:, 2] == 300.0] = np.nan  # no value where the torque is at its low end
    result = SweepResult(plan, np.zeros((e, plan.cars)), margin, np.zeros((m, plan.cars)), 0, 0.0)
    tornado = next(chart for name, chart in charts(result) if name.startswith("tornado-"))
    assert "left out: engine.peak_torque (no car at its low end has a value)" in tornado.notes[0]
    assert not any(label.startswith("engine.peak_torque") for label in tornado.bars.labels)
    flat = SweepResult(plan, np.zeros((e, plan.cars)), np.ones((e, plan.cars)), np.zeros((m, plan.cars)), 0, 0.0)
    assert not any(name.startswith("tornado-") for name, _ in charts(flat))


def test_a_list_axis_in_the_order_typed_is_said_by_its_values_not_its_ends(short):
    """"body.mass 1300 kg .. 1200 kg (4 values)" for 1300, 1100, 1250, 1200: its ends said nothing of its range (a
    review). A list in order reads as a range as before; a long one out of order by its smallest and largest."""
    text = summary(run_sweep(plan_sweep(short, ["body.mass=1300,1100,1250,1200"])))
    assert "grid: body.mass 1300 kg, 1100 kg, 1250 kg, 1200 kg\n" in text
    text = summary(run_sweep(plan_sweep(short, ["body.mass=1100,1200,1300"])))
    assert "grid: body.mass 1100 kg .. 1300 kg (3 values)\n" in text
    masses = ",".join(str(900 + 50 * ((7 * i) % 10)) for i in range(10))  # ten values, shuffled
    text = summary(run_sweep(plan_sweep(short, [f"body.mass={masses}"])))
    assert "grid: body.mass 900 kg .. 1350 kg (10 values in the order given)\n" in text


def test_a_sweep_of_one_car_says_one_car(run_cli, tmp_path):
    done = run_cli("sweep", scripts_dir() / "braking_stop.toml", "--param", "body.mass=1000", "--out", tmp_path / "o")
    assert done.returncode == 0, done.stderr
    assert "\n  1 car, grid: body.mass = 1000 kg\n" in done.stdout and "  1 cars" not in done.stdout
