"""``carbench manoeuvre NAME|all``: run handling tests on a car (and a second one) and print their KPIs.

Every KPI is printed with its unit, the clause that defines it and, where the standard gives one,
its limit and pass or fail. Against a second car (``--vs-preset`` or ``--vs-set``) both values and
the change B - A (in ``--json``, each test's ``change``: B - A per KPI, and both verdicts where a limit
applies). Exit 0 when every limited KPI of every car passes, 1 when one fails, 2 for bad
input (one line naming the entry and the reason; nothing is run or written).
"""

from __future__ import annotations

import html
import json
import math
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from physics import ParamError, PresetError
from physics.units import shown
from workbench.manoeuvres.catalogue import CATALOGUE, manoeuvre
from workbench.manoeuvres.charts import charts_of
from workbench.manoeuvres.kpi import CONDITIONS, Kpi
from workbench.manoeuvres.runner import Car, run_jobs
from workbench.names import NameRuleError
from workbench.output.files import OutputPathError, atomic_write_text
from workbench.runs.compare import CompareError
from workbench.runs.compare_command import parse_changes, refuse_repeats
from workbench.scripts.format import ScriptError, resolve_script
from workbench.streams import one_line, say, stdout_refusal

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


@dataclass
class Outcome:
    """Every test's KPIs for each car."""

    names: list[str]
    cars: list[Car]
    kpis: dict[str, list[list[Kpi]]] = field(default_factory=dict)  # test -> per car
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(k.passed is not False for per_car in self.kpis.values() for kpis in per_car for k in kpis)


def car_of(preset: str, sets: list[str], option: str, preset_option: str = "--preset",
           first: frozenset[str] = frozenset()) -> Car:
    """The car ``preset_option`` names, with ``sets`` (PATH=VALUE, given with ``option``) applied; its name lists
    its edits, those of the paths in ``first`` (what tells it from the other car) before the others."""
    from workbench.names import load_named_preset

    try:
        loaded = load_named_preset(preset)
    except (PresetError, NameRuleError) as exc:
        raise CompareError(f"{preset_option}: {exc}") from None
    params = loaded.params
    changes: dict = {}
    if sets:
        changes = parse_changes(sets, params, option)
        try:
            params = params.with_values(changes)
        except ParamError as exc:
            from workbench.scripts.program import change_problem

            raise CompareError(f"{option}: {change_problem(exc, changes)}") from None
        from workbench.scripts.program import record_problem

        problem = record_problem(params)
        if problem:
            raise CompareError(f"{option}: {problem}")
    ordered = sorted(changes.items(), key=lambda item: item[0] not in first)  # stable: typed order otherwise
    edits = [f"{path} {shown(value, params.info(path))}" for path, value in ordered  # display units
             if params.get(path) != loaded.params.get(path)]
    if len(edits) > MAX_NAMED_EDITS:
        edits = [*edits[:MAX_NAMED_EDITS - 1], f"+{len(edits) - MAX_NAMED_EDITS + 1} more"]
    return Car(params, loaded.name + (f" ({', '.join(edits)})" if edits else ""), loaded.path)


MAX_NAMED_EDITS = 3  # a car's name lists its edits up to this many (tables and charts are headed by it)


def told_apart(cars: list[Car]) -> list[Car]:
    """``cars`` with names that differ: two cars of one name (two presets of the same name, edits past those a
    name lists) are named A and B, as the text output heads them; their tables, charts and JSON told neither."""
    if len(cars) < 2 or len({c.name for c in cars}) == len(cars):
        return cars
    return [replace(c, name=f"{c.name} [{'AB'[i]}]") for i, c in enumerate(cars)]


NOT_RUN = "not_run"  # the key of the one KPI of a test a car could not run


def run_tests(names: list[str], cars: list[Car]) -> Outcome:
    """Run the tests on the cars; each test's runs for all cars as batches.

    Of several tests, one that a car cannot drive (a car in pixels has no km/h) is reported as not
    run, with the reason; a single test on a single car that cannot run it raises its ScriptError (of two cars, the
    other's KPIs are shown beside the one's "not run"). A handling test is not run on a
    kinematic car. A car whose runs do not meet the test's conditions (its script's first expectations: the speed
    it is held at before the test's input) gets no verdict on its KPIs, and a failed row that says why.
    """
    out = Outcome(names, cars)
    for name in names:
        m = CATALOGUE[name]
        began = time.perf_counter()
        unmet: dict[int, list[str]] = {}  # id(car) -> what its runs did not meet of the test's conditions
        lags: dict[int, list[RobotLag]] = {}  # id(car) -> its runs' steer behind their steering robot's profile
        runner = lambda jobs, m=m, unmet=unmet, lags=lags: _checked_runs(m, jobs, unmet, lags)  # noqa: E731
        able = [car for car in cars if not inapplicable(m, car)]
        try:
            done = m.run(able, runner) if able else []
        except ScriptError:
            if len(names) == 1 and len(cars) == 1 and able:
                raise  # one test on one car: nothing else to show (of two cars, the one that can still runs)
            unmet.clear()  # the runs of the batch that failed are run again, each car alone
            lags.clear()
            done = [_run_alone(m, car, runner) for car in able]  # the car that can still does
        by_car = dict(zip(map(id, able), done, strict=True))
        per_car = []
        for car in cars:
            kpis = by_car.get(id(car))
            if kpis is None:  # the test does not apply to it
                per_car.append([Kpi(NOT_RUN, "not run", None, "", "", note=inapplicable(m, car))])
            elif _not_run(kpis):
                per_car.append(kpis)
            else:
                per_car.append(judged(m, kpis, unmet.get(id(car), [])) + lag_kpis(m, car, lags.get(id(car), [])))
        out.kpis[name] = per_car
        out.seconds[name] = time.perf_counter() - began
    notes = [k.note for per_car in out.kpis.values() for kpis in per_car for k in kpis if k.key == NOT_RUN]
    if notes and len(notes) == len(names) * len(cars):
        raise ScriptError(f"no test runs on {' or '.join(c.name for c in cars)}: {notes[0]}")
    return out


def inapplicable(m, car: Car) -> str:
    """Why test ``m`` does not apply to ``car``, or "": any test to a car in pixels, a handling test to a kinematic
    car."""
    if car.params.model.unit != "m":
        return (f"the {car.name} car measures lengths in {car.params.model.unit}; the handling tests' speeds, radii "
                "and cones are in metres")
    if m.lateral and car.params.kind == "kinematic":
        return (f"{m.name} judges handling, which the {car.name} car (kinematic: no tyres, no slip, no yaw "
                "dynamics) does not have")
    return ""


def _checked_runs(m, jobs, unmet: dict[int, list[str]], lags: dict[int, list[RobotLag]] | None = None) -> list:
    """The jobs' runs, with the channels of the test's conditions too; what a car's run does not meet of them
    goes into ``unmet`` under id(car), and how far the steer of a run with a steering robot fell behind the robot's
    profile into ``lags`` (:func:`robot_lag`)."""
    runs = run_jobs(jobs, checked_channels(m, jobs))
    for (_, car), run in zip(jobs, runs, strict=True):
        lag = robot_lag(run)
        problem = "; ".join(p for p in (unmet_condition(run, m.conditions), lag_condition(m, lag)) if p)
        if problem:
            unmet.setdefault(id(car), []).append(problem)
        if lags is not None and lag is not None:
            lags.setdefault(id(car), []).append(lag)
    return runs


def checked_channels(m, jobs) -> list[str]:
    """The channels test ``m``'s runs of ``jobs`` are kept with: its KPIs', its scripts' conditions', and the steer of
    a run with a steering robot (:func:`robot_lag`)."""
    conditions = [e.channel for script, _ in jobs for e in script.expects[:m.conditions]]
    robots = ["steer"] if any(script.robot is not None for script, _ in jobs) else []
    return list(dict.fromkeys([*m.channels, *conditions, *robots]))


def lag_condition(m, lag: RobotLag | None) -> str | None:
    """The test's condition on its steering input, unmet by a run whose steer fell more than LAG_SHOWN behind its
    robot's profile (of a test whose standard allows a range of rates, only where the car's steering is slower than
    the range), in words; None otherwise. Such a run is no run of the test: the car's KPIs get no verdict."""
    if lag is None or not lag.lag > LAG_SHOWN or (m.input_rate_floor is not None and lag.rate >= m.input_rate_floor):
        return None
    size = "" if lag.amplitude is None else f" in the {lag.amplitude:.4g} deg run"
    return (f"the steering robot's input: the steer fell {lag.lag:.3g} deg of handwheel behind its profile{size} (the "
            f"car's steering turns the handwheel at {lag.rate:.4g} deg/s at most, the profile at up to "
            f"{lag.asked:.4g})")


@dataclass(frozen=True)
class RobotLag:
    """How far a run's steer fell behind its steering robot's profile, in degrees of handwheel (the robot's ratio)."""

    lag: float  # [deg] the largest difference between the profile and the steer the car got
    at: float  # [s] when
    amplitude: float | None  # [deg] the robot's amplitude (None for a ramp)
    asked: float  # [deg/s] the fastest the profile turns the handwheel
    rate: float  # [deg/s] the fastest the car's steering follows (steering.rate times the robot's ratio)
    ratio: float  # the robot's steering ratio (handwheel over road-wheel angle)


LAG_SHOWN = 0.1
"""[deg of handwheel] A run whose steer falls further behind its steering robot's profile than this is not the
standard's input: the test says so (a row of its own with the lag) and its KPIs get no verdict, as for any other of
its conditions (:func:`lag_condition`). The robot's steer reaches the car through its steering rate (physics.robot):
where the car follows, the steer is the profile to its rounding (below 1e-13 deg on every run of the shipped cars but
their fastest sine-with-dwell runs), so a lag is the rate's."""


def robot_lag(run) -> RobotLag | None:
    """The steer of a run with a steering robot against the robot's profile (the steer the car got each frame is the
    profile's value at that frame where the steering rate lets it follow); None for a run with no robot."""
    if run.script.robot is None or "steer" not in run.data:
        return None
    return steer_lag(run.script.robot, run.t, np.asarray(run["steer"]), run.dt, run.params.steering.rate)


def steer_lag(robot, t: np.ndarray, steer: np.ndarray, dt: float, rate: float) -> RobotLag:
    """:func:`robot_lag` of a run's times ``t`` [s] and steer [rad] at ``dt``, of a car whose steering turns the road
    wheels at ``rate`` [rad/s] at most (steering.rate): the window's KPI dock judges its run so."""
    from workbench.scripts.driving import robot_angle

    profile = robot_angle(robot, t)
    to_handwheel = np.degrees(robot.ratio)
    gap = np.abs(steer - profile) * to_handwheel
    k = int(np.argmax(gap)) if len(gap) else 0
    asked = float(np.max(np.abs(np.diff(profile))) / dt * to_handwheel) if len(profile) > 1 else 0.0
    amplitude = robot.values.get("amplitude")
    return RobotLag(float(gap[k]) if len(gap) else 0.0, float(t[k]) if len(t) else 0.0,
                    None if amplitude is None else float(amplitude), asked, float(rate * to_handwheel), robot.ratio)


def lag_kpis(m, car: Car, lags: list[RobotLag]) -> list[Kpi]:
    """A row for a car with a run that :func:`lag_condition` holds to be no run of the test: the largest lag, and in
    its note which runs, the rates and the steering rate that follows (the row itself has no verdict; the test's
    conditions fail)."""
    floor = m.input_rate_floor
    behind = [lag for lag in lags if lag_condition(m, lag)]
    if not behind:
        return []
    worst = max(behind, key=lambda lag: lag.lag)
    amplitudes = [lag.amplitude for lag in behind if lag.amplitude is not None]
    runs = (f"{len(behind)} of its {len(lags)} runs" + (f", from {min(amplitudes):.4g} deg" if amplitudes else "")
            if len(lags) > 1 else "its run")
    return [Kpi("robot_lag", "steer behind the steering robot's profile", worst.lag, "deg",
                f"{m.standard}: the steering input",
                note=f"{runs}: the car's steering (steering.rate) turns the handwheel at {worst.rate:.4g} deg/s at "
                     f"most, the profile at up to {worst.asked:.4g} deg/s"
                     + ("" if floor is None else f" and the standard at least {floor:g}")
                     + f"; largest at {worst.at:.3g} s"
                     + ("" if worst.amplitude is None else f" of the {worst.amplitude:.4g} deg run")
                     + f"; those runs are not the standard's input, and the test's KPIs get no verdict (--set "
                       f"steering.rate="
                       f"{math.ceil((worst.asked if floor is None else floor) / worst.ratio)} deg/s of road wheel "
                       + ("lets the car follow)" if floor is None else "reaches it)"))]


def unmet_condition(run, count: int) -> str | None:
    """What the run does not meet of the first ``count`` expectations of its script, in words (each, joined by "; ");
    None when it meets them all."""
    from physics import channel_infos
    from workbench.runs.measures import bounds

    program = run.extra["program"]
    units = {i.name: i.unit for i in channel_infos(run.params.model.unit)}
    said = []
    for expect, (first, last) in list(zip(run.script.expects, program.windows, strict=True))[:count]:
        window = np.asarray(run[expect.channel][first:last + 1])
        lo, hi = bounds(expect)
        bad = ~((window >= lo) & (window <= hi))
        if bad.any():
            j = int(np.argmax(bad))
            unit = units.get(expect.channel, "")
            within = (f"{lo:g}..{hi:g}" if np.isfinite(lo) and np.isfinite(hi) else
                      f"at least {lo:g}" if np.isfinite(lo) else f"at most {hi:g}")
            said.append(f"{expect.label()}: {expect.channel} {float(window[j]):.4g} {unit} at {(first + j) * run.dt:.3g} "
                        f"s, not {within}".replace("  ", " "))
    return "; ".join(said) or None


def unmet_verdicts(m, script, verdicts) -> list[str]:
    """What a replayed run did not meet of test ``m``'s conditions (its script's first expectations), from the run's
    verdicts (workbench.runs.replay.Verdict), in words: the window's KPI dock judges a run it did not drive itself."""
    conditions = script.expects[:m.conditions]
    said = [f"{v.expect.label()}: {v.expect.channel} {v.measured:.4g} {v.unit} at {v.time:.3g} s, not met".replace(
        "  ", " ") for v in verdicts or () if any(v.expect is c for c in conditions) and not v.passed]
    return ["; ".join(said)] if said else []  # one run: judged() counts runs, not conditions


def judged(m, kpis: list[Kpi], unmet: list[str]) -> list[Kpi]:
    """A car's KPIs, without verdicts and with a failed row saying why when its runs did not meet the test's
    conditions."""
    if not unmet:
        return kpis
    note = unmet[0] + (f" (and in {len(unmet) - 1} more of its runs)" if len(unmet) > 1 else "")
    own = next((k for k in kpis if k.key == CONDITIONS), None)  # a test's own (the sine with dwell's 0.3 g)
    kpis = [k if k.key == CONDITIONS else replace(k, passed=None) for k in kpis]
    if own is not None:
        return [replace(k, note=f"{k.note}; {note}") if k is own else k for k in kpis]
    return kpis + [Kpi(CONDITIONS, "the test's conditions", None, "", f"{m.standard}: test conditions, as its script "
                       f"{m.script} states them", "met", False, note=note)]


def _not_run(kpis: list[Kpi]) -> bool:
    return any(k.key == NOT_RUN for k in kpis)


def _run_alone(m, car: Car, runner) -> list[Kpi]:
    """The test's KPIs of ``car`` run alone, or its one KPI "not run" with the reason."""
    try:
        return m.run([car], runner)[0]
    except ScriptError as exc:
        return [Kpi(NOT_RUN, "not run", None, "", "", note=str(exc))]


def _verdict(k: Kpi) -> str:
    return "" if k.passed is None else ("PASS" if k.passed else "FAIL")


def rows_of(per_car: list[list[Kpi]]) -> list[tuple[Kpi, list[Kpi | None]]]:
    """Each KPI any car has (the first car's as the row's label), with every car's own (None: not reported)."""
    labels: dict[str, Kpi] = {}
    for kpis in per_car:
        for k in kpis:
            labels.setdefault(k.key, k)  # the first car's (a dict built in one go kept the last's, and its note)
    return [(k, [next((x for x in kpis if x.key == key), None) for kpis in per_car]) for key, k in labels.items()]


def notes_of(k: Kpi, values: list[Kpi | None]) -> list[str]:
    """A KPI's notes, per car: why (not run, conditions), and what a figure is of (the run of a worst value, the range
    fitted, the sign's meaning); of two cars each marked A or B, and said once where both say the same."""
    two = len(values) == 2
    notes = [(i, v.note) for i, v in enumerate(values) if v is not None and v.key == k.key and v.note]
    if two and len(notes) == 2 and notes[0][1] == notes[1][1]:
        notes = [(None, notes[0][1])]
    return [f"{'AB'[i] + ': ' if two and i is not None else ''}{note}" for i, note in notes]


def change_of(a: Kpi | None, b: Kpi | None) -> float | None:
    """B - A of a KPI both cars have a value of."""
    if a is None or b is None or a.value is None or b.value is None:
        return None
    return b.value - a.value


def change_text(a: Kpi | None, b: Kpi | None, unit: str) -> str:
    """B - A as the table and the report show it: "-" where either has no value, and +0 where it is the rounding of
    the arithmetic, a billionth of the values or less (a recomputed fit's "-5.329e-15 1/s" read as a change)."""
    change = change_of(a, b)
    if change is None:
        return "-"
    if abs(change) <= 1e-9 * max(abs(a.value), abs(b.value)):
        change = 0.0
    return f"{change:+.4g} {unit}".rstrip()


def table(outcome: Outcome) -> str:
    lines = []
    two = len(outcome.cars) == 2
    for name in outcome.names:
        m = CATALOGUE[name]
        lines.append(f"{m.name}  {m.title}  ({m.standard}, script {m.script})")
        for k, values in rows_of(outcome.kpis[name]):
            a = values[0]
            row = f"  {k.label:<58s} {a.text() if a else '-':>16s}"
            if two:
                b = values[1]
                row += f" {b.text() if b else '-':>16s}"
                row += f"  {change_text(a, b, k.unit):>16s}"  # in its unit too
            limit = k.limit or ""
            row += f"  {limit:<10s} " + "  ".join(_verdict(v) if v else "" for v in values)
            lines.append(row.rstrip() + (f"   [{k.clause}]" if k.clause else ""))
            lines += [f"    {note}" for note in notes_of(k, values)]
        lines.append("")
    head = "  ".join(f"{'AB'[i]}: {c.name}" for i, c in enumerate(outcome.cars)) if two else f"car: {outcome.cars[0].name}"
    return head + "\n\n" + "\n".join(lines)


def changes(per_car: list[list[Kpi]]) -> list[dict]:
    """Per KPI of two cars: B - A (None where either has no value) and, where a limit applies, both verdicts."""
    return [{"key": k.key, "label": k.label, "unit": k.unit, "change": change_of(*values), "limit": k.limit,
             "passed": [None if v is None else v.passed for v in values] if k.limit else None}
            for k, values in rows_of(per_car)]


def as_json(outcome: Outcome) -> dict:
    """Every test's KPIs per car; against a second car also ``change``, B - A per KPI."""
    doc = {"cars": [c.name for c in outcome.cars], "passed": outcome.passed, "manoeuvres": {}}
    for name in outcome.names:
        m, per_car = CATALOGUE[name], outcome.kpis[name]
        entry = {"title": m.title, "standard": m.standard, "script": m.script, "seconds": round(outcome.seconds[name], 3),
                 "cars": [[k.to_json() for k in kpis] for kpis in per_car]}
        if len(outcome.cars) == 2:
            entry["change"] = changes(per_car)
        doc["manoeuvres"][name] = entry
    return doc


def _stamps(cars: list[Car]) -> list[str]:
    """Each car's stamp, as a replay's report gives it (the versions, its preset and the SHA-256 of its parameters and
    the preset's; the report had none), in a table and as JSON; the dt is each test's script's."""
    from workbench.names import load_named_preset, printable
    from workbench.runs.stamp import make_stamp, preset_label
    from workbench.scripts.program import DEFAULT_DT

    rows, docs = [], []
    for i, car in enumerate(cars):
        try:
            preset = load_named_preset(car.path) if car.path is not None else None
        except NameRuleError:
            preset = None
        base = preset.params if preset is not None else car.params
        label = preset_label(preset.name, preset.path) if preset is not None else car.name
        doc = make_stamp(label, base, car.params, DEFAULT_DT).to_table()
        doc.pop("dt", None)  # each test runs at its own script's dt
        docs.append(doc)
        mark = f"{'AB'[i]}: " if len(cars) == 2 else ""
        rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in (
            mark + car.name, printable(doc["preset"]), doc["carbench"], doc["numpy"], doc["preset_sha256"],
            doc["params_sha256"], str(len(doc["changed"])))) + "</tr>")
    head = ("car", "preset", "carbench", "numpy", "preset SHA-256", "parameters SHA-256", "changed from the preset")
    stamps = json.dumps(docs, sort_keys=True).replace("</", "<\\/")  # raw text inside <script>
    return ['<table class="stamp"><tr>' + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>" + "".join(rows)
            + "</table><p>each test at its own script's dt</p>",
            f'<script type="application/json" class="stamp">{stamps}</script>']


def write_report(outcome: Outcome, folder: Path, render) -> Path:
    """index.html with every test's KPI table and its charts (of its shipped script on each car)."""
    from workbench.output.html_report import GENERATOR

    folder.mkdir(exist_ok=True)
    two = len(outcome.cars) == 2
    body = [f"<h1>carbench manoeuvre</h1><p>{html.escape(', '.join(c.name for c in outcome.cars))}</p>"]
    body += _stamps(outcome.cars)
    for name in outcome.names:
        m = CATALOGUE[name]
        body.append(f"<h2>{html.escape(m.title)}</h2><p>{html.escape(m.standard)}, script {html.escape(m.script)}</p>")
        rows = []
        for k, values in rows_of(outcome.kpis[name]):
            cells = [html.escape(k.label)]
            for x in values:
                cells.append(html.escape(x.text() if x else "-") + (f" <b>{_verdict(x)}</b>" if x and _verdict(x) else ""))
            if two:  # the change, as the text and --json give it
                cells.append(html.escape(change_text(*values, k.unit)))
            cells += [html.escape(k.limit or ""), html.escape(k.clause),
                      "<br>".join(html.escape(note) for note in notes_of(k, values))]
            rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        head = (["KPI"] + [f"{'AB'[i]}: {c.name}" if two else c.name for i, c in enumerate(outcome.cars)]
                + (["B \u2212 A"] if two else []) + ["limit", "clause", "note"])
        body.append("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>" + "".join(rows)
                    + "</table>")
        # The charts of the cars the test ran on, each car's run of the script as the test fits it to the car.
        ran = [car for car, kpis in zip(outcome.cars, outcome.kpis[name], strict=True)
               if not any(k.key == NOT_RUN for k in kpis)]
        if not ran:
            body.append("<p>No chart: the test ran on no car.</p>")
            continue
        try:
            runs = run_jobs(m.chart_jobs(ran, lambda jobs, m=m: run_jobs(jobs, m.channels)), m.channels)
        except ScriptError as exc:
            body.append(f"<p>No chart: {html.escape(str(exc))}</p>")
            continue
        for i, chart in enumerate(charts_of(m, runs, [c.name for c in ran])):
            png = f"{name}-{i + 1}.png"
            render(chart, folder / png)
            body.append(f'<img src="{png}" alt="{html.escape(chart.title)}">')
    css = "body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:left}table{border-collapse:collapse}" \
          "tr:nth-child(even){background:#f4f4f4}img{max-width:100%}"
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">{GENERATOR}<title>carbench manoeuvre</title>"
            f"<style>{css}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
    return atomic_write_text(folder / "index.html", page)


def run(args, render=None, stdout=None, stderr=None) -> int:
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr

    def bad(message: str) -> int:
        say(message, stderr)
        return EXIT_BAD_INPUT

    try:
        names = list(CATALOGUE) if args.name == "all" else [manoeuvre(args.name).name]
    except KeyError as exc:
        return bad(str(exc.args[0]))
    try:
        refuse_repeats(args.sets, "--set")  # a --vs-set of a path --set gives is the second car's own value
        refuse_repeats(args.vs_set, "--vs-set")
        cars = [car_of(args.manoeuvre_preset, args.sets, "--set")]
        if args.vs_preset is not None:
            cars.append(car_of(args.vs_preset, args.sets, "--set (on the --vs-preset car)", "--vs-preset"))
        elif args.vs_set:
            cars.append(car_of(args.manoeuvre_preset, args.sets + args.vs_set, "--vs-set",
                               first=frozenset(item.split("=", 1)[0].strip() for item in args.vs_set)))
        cars = told_apart(cars)
        folder = None
        if args.report is not None:
            from workbench.output.html_report import check_report_dir

            # Never over a file the run reads: a car's preset, or a test's script.
            reads = [car.path for car in cars if car.path is not None]
            tests = [CATALOGUE[name] for name in names]
            reads += [resolve_script(script) for test in tests
                      for script in (test.script, getattr(test, "sis_script", None)) if script]
            folder = check_report_dir(args.report, "--report", reads)
            if render is None:
                return bad("--report needs PySide6 and pyqtgraph")
        refused = stdout_refusal(stdout)  # /dev/full or closed: said before the tests run, not after
        if refused:
            return bad(refused)
        outcome = run_tests(names, cars)
    except (PresetError, NameRuleError, CompareError, ScriptError, OutputPathError) as exc:
        return bad(str(exc))
    from workbench.output.files import StagedOutputs
    from workbench.streams import emit

    with StagedOutputs() as staged:  # the page and its charts move into place together, or not at all
        if folder is not None:
            from workbench.output.html_report import charts_shown
            from workbench.signals import deferring
            from workbench.streams import quiet_stderr

            try:
                staged.replaces(folder, charts_shown(folder))  # an earlier report's charts of tests not run now
                with quiet_stderr():  # libpng's own complaint would come before carbench's line
                    write_report(outcome, staged.folder(folder), deferring(render))
            except OSError as exc:
                return bad(f"--report: cannot write into {folder}: {staged.shown(exc.strerror or str(exc))}")
        from workbench.names import printable_doc
        emit(json.dumps(printable_doc(as_json(outcome)), indent=2, allow_nan=False) if args.json else table(outcome), stdout)
        try:
            staged.commit()
        except OSError as exc:
            return bad(f"--report: cannot move the report into {folder}: {exc.strerror or exc}")
        for line in staged.left_behind("an earlier report's chart"):  # the report is in place: only clutter
            say(f"--report {folder}: {line}", stderr)
    if folder is not None:
        print(f"report: {one_line(folder / 'index.html')}", file=stderr)
    return EXIT_OK if outcome.passed else EXIT_FAILED
