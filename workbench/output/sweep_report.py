"""What a sweep writes: the CSV (one row per car), the summary (text and JSON) and its outcome charts."""

from __future__ import annotations

import csv
import io
import math
import os
import re
from dataclasses import replace
from pathlib import Path

import numpy as np

from physics import channel_infos
from physics.units import display_of
from workbench.output.charts import (
    FAIL_COLOUR,
    PASS_COLOUR,
    SWEEP_SOURCE,
    Band,
    Bars,
    Chart,
    Heatmap,
    Line,
    Renderer,
    Series,
    with_unit,
)
from workbench.output.files import atomic_write_text
from workbench.output.report import how_shown
from workbench.runs.sweep import SweepResult, flips, varied_axis
from workbench.runs.sweep_axes import whole_numbered
from workbench.streams import one_line


def _infos(result: SweepResult) -> dict:
    """The swept car's channels by name."""
    return {c.name: c for c in channel_infos(result.plan.program.params.model.unit)}


def _display(result: SweepResult) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """(display unit, factor from SI) of each expectation's value and each measure's value (physics.units)."""
    program = result.plan.program
    infos = _infos(result)
    expects = [display_of(infos[e.channel]) for e in program.script.expects]
    measures = [display_of(infos[m.channel]) if not m.is_time else ("s", 1.0) for m in program.script.measures]
    return expects, measures


def _units(result: SweepResult) -> tuple[list[str], list[str]]:
    """The display unit of each expectation's value and each measure's value."""
    expects, measures = _display(result)
    return [u for u, _ in expects], [u for u, _ in measures]


def shown(result: SweepResult) -> SweepResult:
    """``result`` with every expectation value, margin and measure in its display unit (deg, not rad)."""
    expects, measures = _display(result)
    e = np.array([f for _, f in expects], dtype=float).reshape(-1, 1)
    m = np.array([f for _, f in measures], dtype=float).reshape(-1, 1)
    if (e == 1.0).all() and (m == 1.0).all():
        return result
    return replace(result, expect_value=result.expect_value * e, expect_margin=result.expect_margin * e,
                   measure_value=result.measure_value * m)


def expect_labels(script) -> list[str]:
    """The script's expectations as the sweep's columns, summary and charts name them, each its own: a label two
    expectations share gets its [[expect]] number (two of one name made two identical columns, and one chart's file
    written over the other's)."""
    labels = [e.label() for e in script.expects]
    return [f"{label} (#{i})" if labels.count(label) > 1 else label for i, label in enumerate(labels, 1)]


def header(result: SweepResult) -> list[str]:
    script = result.plan.program.script
    e_units, m_units = _units(result)
    names = ["car"] + [a.label for a in result.plan.axes]
    for label, unit in zip(expect_labels(script), e_units, strict=True):
        names += [with_unit(label, unit), with_unit(f"{label} margin", unit), f"{label} pass"]
    names += [with_unit(m.name, unit) for m, unit in zip(script.measures, m_units, strict=True)]
    judged, valued = result.judged_kpis, result.valued_kpis
    for k, (label, unit) in enumerate(result.kpi_names):
        names += ([with_unit(label, unit)] if k in valued else []) + ([f"{label} pass"] if k in judged else [])
    return names + ["all pass"]


def _verdict(passed: float) -> str:
    """A KPI's verdict in a CSV cell: true, false, or empty where the car got none (not reached, or its runs did not
    meet the test's conditions)."""
    return "" if math.isnan(passed) else ("true" if passed else "false")


def _number(x: float) -> str:
    return repr(float(x)) if math.isfinite(x) else ""


def csv_text(result: SweepResult) -> str:
    """One row per car in plan order; numbers written so they read back exactly; a crossing never reached is empty."""
    result = shown(result)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header(result))
    values, passed, everything = result.plan.values, result.expect_passed, result.all_passed
    judged, valued = result.judged_kpis, result.valued_kpis
    for i in range(result.plan.cars):
        row = [str(i + 1)] + [_number(v) for v in values[i]]
        for e in range(len(result.expect_margin)):
            row += [_number(result.expect_value[e, i]), _number(result.expect_margin[e, i]),
                    "true" if passed[e, i] else "false"]
        row += [_number(result.measure_value[m, i]) for m in range(len(result.measure_value))]
        for k in range(len(result.kpi_names)):
            if k in valued:
                row.append(_number(result.kpi_value[k, i]))
            if k in judged:
                row.append(_verdict(result.kpi_passed[k, i]))
        row.append("true" if everything[i] else "false")
        writer.writerow(row)
    return out.getvalue()


def write_csv(result: SweepResult, path: str | Path) -> Path:
    return atomic_write_text(path, csv_text(result))


def _shown(value: float, unit: str) -> str:
    return f"{value:g} {unit}".rstrip()


def flip_lines(result: SweepResult) -> dict[int, str]:
    """Per expectation with flips along the one varied axis: where its verdict changes, in words."""
    axis = varied_axis(result.plan)
    if axis is None:
        return {}
    a = result.plan.axes[axis]
    by_expect: dict[int, list[tuple[float, float, bool]]] = {}
    for e, before, after, passes in flips(result):
        by_expect.setdefault(e, []).append((before, after, passes))
    out = {}
    for e, changes in by_expect.items():
        if len(changes) == 1:
            before, after, passes = changes[0]
            verb, other = ("passes", "fails") if passes else ("fails", "passes")
            out[e] = (f"{verb} from {a.path} = {_shown(after, a.unit)} upwards "
                      f"({other} at {_shown(before, a.unit)})")
        else:
            out[e] = "; ".join(f"{'fails' if p else 'passes'} at {_shown(b, a.unit)}, "
                               f"{'passes' if p else 'fails'} at {_shown(af, a.unit)}" for b, af, p in changes)
    return out


MAX_LISTED = 8  # values of a list axis the summary lists one by one; a longer one by its range


def _axes_text(result: SweepResult) -> str:
    parts = []
    for a in result.plan.axes:
        v = a.values
        if len(v) == 1:
            parts.append(f"{a.path} = {_shown(v[0], a.unit)}")
        elif result.plan.grid and not (np.all(np.diff(v) > 0) or np.all(np.diff(v) < 0)):
            # A list in the order typed: its first and last said nothing of its range (1300 .. 1200 kg for 1100 to 1300)
            parts.append(f"{a.path} " + (", ".join(_shown(x, a.unit) for x in v) if len(v) <= MAX_LISTED else
                                         f"{_shown(min(v), a.unit)} .. {_shown(max(v), a.unit)} ({len(v)} values in the "
                                         "order given)"))
        elif result.plan.grid:
            parts.append(f"{a.path} {_shown(v[0], a.unit)} .. {_shown(v[-1], a.unit)} ({len(v)} values"
                         f"{', log' if a.log else ''})")
        else:
            parts.append(f"{a.path} in {_shown(v[0], a.unit)} .. {_shown(v[1], a.unit)}{' (log)' if a.log else ''}")
    how = "grid" if result.plan.grid else f"Latin hypercube, seed {result.plan.seed}"
    return f"{how}: " + ", ".join(parts)


def summary(result: SweepResult) -> str:
    """How many cars pass every expectation, each expectation's count, and where verdicts flip on one axis."""
    plan = result.plan
    p = plan.program
    rate = result.car_steps / result.seconds if result.seconds > 0 else 0.0
    lines = [f"{one_line(p.name)}  ({one_line(p.script.source)})  preset {p.preset}, dt {p.dt:.6g} s",
             f"  {plan.cars:,} car{'' if plan.cars == 1 else 's'}, {_axes_text(result)}",
             f"  {result.car_steps:,} car-steps in {result.seconds:.2f} s ({rate:,.0f} car-steps/s)"]
    if not p.script.expects:
        lines.append("  (no expectations)")
    passed = result.expect_passed
    flipped = flip_lines(result)
    for e, label in enumerate(expect_labels(p.script)):
        text = f"  {one_line(label)}: {int(passed[e].sum()):,} of {plan.cars:,} pass"
        if e in flipped:
            text += f"; {flipped[e]}"
        lines.append(text)
    for k, (label, unit) in enumerate(result.kpi_names):
        if k not in result.valued_kpis:  # the test's conditions: a verdict, no value
            lines.append(f"  {label}: met by {int((result.kpi_passed[k] == 1.0).sum()):,} of {plan.cars:,} cars")
            continue
        values = result.kpi_value[k]
        finite = values[np.isfinite(values)]
        span = f"{finite.min():.4g} .. {finite.max():.4g} {unit}".rstrip() if len(finite) else "not reached"
        lines.append(f"  KPI {label}: {span} ({len(finite):,} of {plan.cars:,} cars){_judged(result, k, ',')}")
    lines.append(f"{int(result.all_passed.sum()):,} of {plan.cars:,} cars pass {result.passing_what}")
    return "\n".join(lines)


def as_json(result: SweepResult, files: list[Path] | None = None) -> dict:
    plan = result.plan
    p = plan.program
    e_units, m_units = _units(result)
    e_factors = [f for _, f in _display(result)[0]]  # an expectation's bounds are the script's, in SI
    measured = shown(result).measure_value  # in their display units, as the units say

    def bound(value, factor):
        return None if value is None else value * factor

    flipped = {}
    for e, before, after, passes in flips(result):
        flipped.setdefault(e, []).append({"before": before, "after": after, "passes_after": passes})
    return {
        "script": p.name, "file": p.script.source, "preset": p.preset, "dt": p.dt, "frames": p.frames,
        "cars": plan.cars, "grid": plan.grid, "seed": plan.seed,
        "axes": [{"path": a.path, "unit": a.unit, "log": a.log,
                  "values" if plan.grid else "range": [float(v) for v in a.values]} for a in plan.axes],
        "car_steps": result.car_steps, "seconds": result.seconds,
        "passed_all": int(result.all_passed.sum()),
        "expectations": [{"label": label, "channel": e.channel, "unit": unit, "min": bound(e.min, factor),
                          "max": bound(e.max, factor), "passed": int(result.expect_passed[i].sum()),
                          "flips": flipped.get(i, [])}
                         for i, (e, label, unit, factor) in enumerate(zip(p.script.expects, expect_labels(p.script),
                                                                          e_units, e_factors, strict=True))],
        "measures": [{"name": m.name, "channel": m.channel, "reduce": m.reduce, "unit": unit,
                      "min": _finite_or_none(np.nanmin(measured[i]) if np.isfinite(measured[i]).any() else math.nan),
                      "max": _finite_or_none(np.nanmax(measured[i]) if np.isfinite(measured[i]).any() else math.nan)}
                     for i, (m, unit) in enumerate(zip(p.script.measures, m_units, strict=True))],
        "kpis": [{"label": label, "unit": unit,
                  "values": [_finite_or_none(float(v)) for v in result.kpi_value[k]],
                  "limit": result.kpi_limits[k] if k in result.judged_kpis else None,
                  "passed": ([None if math.isnan(v) else bool(v) for v in result.kpi_passed[k]]
                             if k in result.judged_kpis else None)}
                 for k, (label, unit) in enumerate(result.kpi_names)],
        "files": [str(f) for f in files or []],
    }


def _finite_or_none(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


# -- charts -------------------------------------------------------------------------------------------------


def slug(text: str) -> str:
    """``text`` as a part of a chart's file name: ASCII letters, digits and dashes, 100 characters at most (an
    expectation's name of 220 characters made a name the file system refused, after the sweep had run)."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text)[:100].strip("-").lower() or "chart"


def charts(result: SweepResult) -> list[tuple[str, Chart]]:
    """The outcome charts and their file names: one axis, margins and measures against it; two (a grid),
    a heatmap per expectation and measure; otherwise a tornado chart per expectation."""
    result = shown(result)
    plan = result.plan
    axis = varied_axis(plan)
    if axis is None and len(plan.axes) == 1:
        axis = 0
    several = [d for d, a in enumerate(plan.axes) if len(a.values) > 1]
    if axis is not None:
        out = _line_charts(result, axis)
    elif plan.grid and len(several) == 2:
        out = _heatmaps(result, several[0], several[1])
    else:
        out = _tornados(result)
    return _distinct(out)


def _distinct(charts_: list[tuple[str, Chart]]) -> list[tuple[str, Chart]]:
    """The charts with file names made distinct: two labels with the same slug ("top speed", "Top-speed!") took
    one name, and the second chart overwrote the first; the second is now ``NAME-2.png``."""
    taken: set[str] = set()
    out = []
    for name, chart in charts_:
        stem, n = name.removesuffix(".png"), 1
        while name in taken:
            n += 1
            name = f"{stem}-{n}.png"
        taken.add(name)
        chart = replace(chart, source=SWEEP_SOURCE)  # known to the next sweep into the folder (charts_of_a_sweep)
        out.append((name, chart))
    return out


def _title(result: SweepResult, what: str) -> str:
    return f"{result.plan.program.name}: {what}"


def _line_charts(result: SweepResult, axis: int) -> list[tuple[str, Chart]]:
    plan = result.plan
    script = plan.program.script
    e_units, m_units = _units(result)
    a = plan.axes[axis]
    x = plan.values[:, axis]
    order = np.argsort(x, kind="stable")
    x = x[order]
    points = plan.cars <= 60
    # A whole-number parameter (stability control on or off, a count): its cars' points alone, at ticks of its values;
    # a line between 0 and 1 crossed a KPI's limit at "esc = 0.77", a car that is not there.
    whole = whole_numbered(plan.program.params, a.path)
    distinct = np.unique(x)
    ticks = tuple(distinct) if whole and len(distinct) <= 12 else None
    out = []
    groups: dict[str, list[int]] = {}  # one chart per unit: never two units on one axis
    for e, unit in enumerate(e_units):
        groups.setdefault(unit, []).append(e)
    labels = expect_labels(script)
    for n, (unit, members) in enumerate(groups.items()):
        series = [Series(x, result.expect_margin[e][order], labels[e], points=points, joined=not whole)
                  for e in members]
        passing = int(result.all_passed.sum())
        name = "margins.png" if n == 0 else f"margins-{slug(unit) or 'plain'}.png"
        out.append((name, Chart(
            _title(result, "margin to each expectation's bound" + (f" (in {unit or 'no unit'})" if len(groups) > 1 else "")),
            a.label, with_unit("margin (>= 0 passes)", unit),
            series=series, bands=[Band(0.0, math.inf, "y", PASS_COLOUR, "passes")],
            lines=[Line(0.0, "y", "#444444", True, kept=True)],  # the pass boundary in view, however far the margins
            notes=(f"{passing} of {plan.cars} cars pass {result.passing_what}",), x_log=a.log, x_ticks=ticks)))
    for m, measure in enumerate(script.measures):
        y = result.measure_value[m][order]
        keep = np.isfinite(y)
        never = ("it never happens, for any car",) if not keep.any() else (
            ("no point where it never happens",) if not keep.all() else ())
        notes = (f"{measure.channel}, {how_shown(measure, _infos(result))}",) + never
        out.append((f"measure-{slug(measure.name)}.png", Chart(
            _title(result, measure.name), a.label, with_unit(measure.name, m_units[m]),
            series=[Series(x[keep], y[keep], points=points, joined=not whole)], notes=notes,
            x_range=(float(np.min(x)), float(np.max(x))) if len(x) else None, x_log=a.log, x_ticks=ticks)))
    for k in result.valued_kpis:
        label, unit = result.kpi_names[k]
        y = result.kpi_value[k][order]
        keep = np.isfinite(y)
        limit = _limit_line(result, k)
        series = [Series(x[keep], y[keep], points=points, joined=not whole)]
        failed = keep & (result.kpi_passed[k][order] == 0.0) if k in result.judged_kpis else np.zeros_like(keep)
        if failed.any():  # a car past the limit drawn as one (it was drawn as every other)
            series.append(Series(x[failed], y[failed], "past the limit", FAIL_COLOUR, joined=False))
        out.append((f"kpi-{slug(label)}.png", Chart(
            _title(result, label), a.label, with_unit(label, unit),
            series=series, lines=[limit] if limit else [],
            notes=(_kpi_note(result, k),) + (() if keep.all() else ("no point where no car reached it",)),
            x_range=(float(np.min(x)), float(np.max(x))) if len(x) else None, x_log=a.log, x_ticks=ticks,
            # a count (the sine with dwell's runs): ticks at whole numbers (its axis read 22.5 runs)
            y_whole=unit == "" and bool(keep.any()) and bool(np.all(y[keep] == np.round(y[keep]))))))
    return out


def _bound(result: SweepResult, k: int) -> tuple[str, float] | None:
    """KPI ``k``'s limit as a number ("<=", 35.0) where its cars were judged and all held to the one limit, else None
    (none, or one that depends on the car: FMVSS 126's displacement, 1.83 m, 1.52 m above 3,500 kg)."""
    return result.kpi_bounds[k] if k in result.judged_kpis and k < len(result.kpi_bounds) else None


def _limit_line(result: SweepResult, k: int) -> Line | None:
    """KPI ``k``'s limit as a dashed line at its value, kept in view; None where it has none that is a number
    (:func:`_bound`)."""
    bound = _bound(result, k)
    if bound is None:
        return None
    return Line(bound[1], "y", FAIL_COLOUR, True, f"limit {result.kpi_limits[k]}", below=bound[0] == ">=", kept=True)


def _judged(result: SweepResult, k: int, thousands: str = "") -> str:
    """"; limit <= 35 %: 4 of 6 judged pass" for a KPI with a limit, "" for one without."""
    if k not in result.judged_kpis:
        return ""
    judged = result.kpi_passed[k]
    return (f"; limit {result.kpi_limits[k]}: {int((judged == 1.0).sum()):{thousands}} of "
            f"{int(np.isfinite(judged).sum()):{thousands}} judged pass")


def _kpi_note(result: SweepResult, k: int) -> str:
    """How many cars reached a KPI and, where its standard gives a limit, how many of those judged pass it."""
    finite = int(np.isfinite(result.kpi_value[k]).sum())
    return f"the test's KPI, reached by {finite} of {result.plan.cars} cars{_judged(result, k)}"


def _grid(result: SweepResult, row: np.ndarray, ix: int, iy: int) -> np.ndarray:
    """A car-ordered row reshaped to values[j, i] at x[i] (axis ix), y[j] (axis iy)."""
    shape = result.plan.shape
    grid = row.reshape(shape)
    others = tuple(d for d in range(len(shape)) if d not in (ix, iy))
    grid = grid.transpose((iy, ix) + others)
    return grid.reshape(shape[iy], shape[ix])


def _heatmaps(result: SweepResult, ix: int, iy: int) -> list[tuple[str, Chart]]:
    plan = result.plan
    script = plan.program.script
    e_units, m_units = _units(result)
    ax, ay = plan.axes[ix], plan.axes[iy]
    out = []
    for e, label in enumerate(expect_labels(script)):
        values = _grid(result, result.expect_margin[e], ix, iy)
        passing = int(result.expect_passed[e].sum())
        out.append((f"heatmap-{slug(label)}.png", Chart(
            _title(result, f"margin of \u201c{label}\u201d"), ax.label, ay.label,
            heatmap=Heatmap(ax.values, ay.values, values, 0.0, with_unit("margin", e_units[e])),
            notes=(f"{script.expects[e].bound_text(scale=_display(result)[0][e][1])} {e_units[e]}; passes on green, black line: the pass boundary "
                   f"({passing} of {plan.cars} pass)",))))
    for m, measure in enumerate(script.measures):
        values = _grid(result, result.measure_value[m], ix, iy)
        out.append((f"heatmap-measure-{slug(measure.name)}.png", Chart(
            _title(result, measure.name), ax.label, ay.label,
            heatmap=Heatmap(ax.values, ay.values, values, None, with_unit(measure.name, m_units[m])),
            notes=(f"{measure.channel}, {how_shown(measure, _infos(result))}" + ("; grey: it never happens" if np.isnan(values).any()
                                                           else ""),))))
    for k in result.valued_kpis:
        label, unit = result.kpi_names[k]
        bound = _bound(result, k)
        if bound is None:  # no limit, or one that depends on the car: the value on a sequential scale
            values = _grid(result, result.kpi_value[k], ix, iy)
            out.append((f"heatmap-kpi-{slug(label)}.png", Chart(
                _title(result, label), ax.label, ay.label,
                heatmap=Heatmap(ax.values, ay.values, values, None, with_unit(label, unit)),
                notes=(_kpi_note(result, k) + ("; grey: not reached" if np.isnan(values).any() else ""),))))
            continue
        # A limit every judged car was held to: the value about it, passing on green, the limit the boundary; a car
        # without a verdict (the test's conditions not met) grey, whatever its value.
        judged = np.where(np.isfinite(result.kpi_passed[k]), result.kpi_value[k], np.nan)
        values = _grid(result, judged, ix, iy)
        out.append((f"heatmap-kpi-{slug(label)}.png", Chart(
            _title(result, label), ax.label, ay.label,
            heatmap=Heatmap(ax.values, ay.values, values, bound[1], with_unit(label, unit),
                            passes_below=bound[0] == "<="),
            notes=("passes on green, black line: the limit; " + _kpi_note(result, k)
                   + ("; grey: not judged" if np.isnan(values).any() else ""),))))
    return out


GRID_ENDS = 6
"""An axis of at most this many values is judged at its lowest and highest value; one of more (a sample, a long
grid), by the cars in its lowest and highest third."""


def _tornado_rows(plan, values: np.ndarray) -> tuple[list[tuple[float, str, float, float]], list[str]]:
    """For each axis: (how far apart, its label with its ends and the way it moves ``values``, the mean at its low
    end, the mean at its high end), smallest first; and the axes left out, each with why. An axis's ends are the cars
    at its lowest and its highest value, or of more than GRID_ENDS values its lowest and highest third (of four values
    the "thirds" were the halves). An axis with one value, or an end whose cars have no value (a KPI none of them
    reached), has no row, and is said."""
    rows, left_out = [], []
    finite = np.isfinite(values)
    for d, a in enumerate(plan.axes):
        v = plan.values[:, d]
        distinct = np.unique(v)
        unit = f" {a.unit}" if a.unit else ""
        if len(distinct) < 2:
            left_out.append(f"{a.path} (one value)")
            continue
        if len(distinct) <= GRID_ENDS:
            low_cars, high_cars = v == distinct[0], v == distinct[-1]
            ends = f"{distinct[0]:g} \u2192 {distinct[-1]:g}{unit}"
        else:
            lo_cut, hi_cut = np.quantile(v, [1 / 3, 2 / 3])
            low_cars, high_cars = v <= lo_cut, v >= hi_cut
            ends = f"\u2264 {lo_cut:.4g} \u2192 \u2265 {hi_cut:.4g}{unit}"
        low, high = values[low_cars & finite], values[high_cars & finite]
        if not len(low) or not len(high):
            left_out.append(f"{a.path} (no car at its {'low' if not len(low) else 'high'} end has a value)")
            continue
        m_low, m_high = float(low.mean()), float(high.mean())
        sign = "+" if m_high > m_low else "\u2212" if m_high < m_low else "="  # "=": it moved nothing
        rows.append((abs(m_high - m_low), f"{a.path} {ends} ({sign})", m_low, m_high))
    rows.sort(key=lambda row: row[0])
    return rows, left_out


TORNADO_KEY = "light bar: the mean with the parameter at its low end, dark: at its high end"


def _left_out_note(left_out: list[str]) -> str:
    return f"; left out: {', '.join(left_out)}" if left_out else ""


def _tornados(result: SweepResult) -> list[tuple[str, Chart]]:
    """Per expectation: for each axis, the mean margin of the cars at its low and at its high end; per KPI of a
    handling test, the same of its value (which parameter moves the understeer gradient most). A chart whose every
    parameter moved nothing is not drawn (it was an empty frame of "(=)" rows)."""
    plan = result.plan
    script = plan.program.script
    e_units, _ = _units(result)
    out = []
    for e, label in enumerate(expect_labels(script)):
        margin = result.expect_margin[e]
        rows, left_out = _tornado_rows(plan, margin)
        if not any(row[0] > 0.0 for row in rows):
            continue
        centre = float(np.mean(margin[np.isfinite(margin)]))  # (one NaN hid every bar)
        out.append((f"tornado-{slug(label)}.png", Chart(
            _title(result, f"sensitivity of \u201c{label}\u201d"),
            with_unit("mean margin at each parameter's low and high end", e_units[e]), "",
            bars=Bars([r[1] for r in rows], np.array([r[2] for r in rows]), np.array([r[3] for r in rows]), centre),
            lines=[Line(0.0, "x", PASS_COLOUR, True)],
            notes=(f"{TORNADO_KEY}; centre: the mean margin, {centre:.4g} {e_units[e]}".rstrip()
                   + "; dashed green: the bound (margin 0); (+): the margin grows with the parameter, (\u2212) "
                     "shrinks, (=) stays" + _left_out_note(left_out),),
            height=max(300, 140 + 48 * len(rows)))))
    met = result.kpi_keys.index("conditions") if "conditions" in result.kpi_keys else None
    for k in result.valued_kpis:
        label, unit = result.kpi_names[k]
        values = result.kpi_value[k]
        if met is not None:  # a car that missed the test's conditions: its figures are not the test's
            values = np.where(result.kpi_passed[met] == 1.0, values, np.nan)
        rows, left_out = _tornado_rows(plan, values)
        if not any(row[0] > 0.0 for row in rows):
            continue
        centre = float(np.mean(values[np.isfinite(values)]))
        limit = _limit_line(result, k)
        out.append((f"tornado-kpi-{slug(label)}.png", Chart(
            _title(result, f"sensitivity of the {label}"),
            with_unit(f"mean {label} at each parameter's low and high end", unit), "",
            bars=Bars([r[1] for r in rows], np.array([r[2] for r in rows]), np.array([r[3] for r in rows]), centre),
            lines=[Line(limit.value, "x", FAIL_COLOUR, True)] if limit else [],
            notes=(f"{TORNADO_KEY}; centre: the mean, {centre:.4g} {unit}".rstrip()
                   + (f"; dashed red: the limit {result.kpi_limits[k]}" if limit else "")
                   + "; (+): it grows with the parameter, (\u2212) shrinks, (=) stays; " + _kpi_note(result, k)
                   + _left_out_note(left_out),),
            height=max(300, 140 + 48 * len(rows)))))
    return out


def write_charts(result: SweepResult, folder: Path, render: Renderer) -> list[Path]:
    """Render every chart into ``folder`` (which must exist); returns the files written.

    Each PNG is drawn to a hidden file beside its target and renamed over it, so a chart is whole or absent.
    """
    written = []
    for name, chart in charts(result):
        target = folder / name
        partial = folder / f".{name}.partial.png"
        try:
            render(chart, partial)
            os.replace(partial, target)
        except OSError as exc:
            if exc.strerror:
                raise
            raise OSError(f"could not write the chart {target}") from None  # not its hidden partial name
        finally:
            if partial.exists():
                partial.unlink()
        written.append(target)
    return written
