"""The verdict table and JSON that ``carbench replay`` prints."""

from __future__ import annotations

from collections.abc import Sequence

from physics import channel_infos
from physics.units import display_of
from workbench.runs.measures import Measurement
from workbench.runs.replay import ReplayResult, Verdict
from workbench.runs.stamp import program_stamp
from workbench.streams import one_line


def _window(v: Verdict) -> str:
    if v.expect.at is not None:
        return f"at {v.expect.at:g} s (frame {v.first})"
    return f"{v.expect.start:g}..{v.expect.end:g} s (frames {v.first}-{v.last})"


def _value(x: float) -> str:
    return f"{x:.6g}"


def measured_text(m: Measurement, infos: dict | None = None) -> str:
    """A measure's value as the tables show it: in its channel's display unit, a crossing time in seconds, "never"
    where the crossing never happens."""
    if m.value is None:
        return "never"
    info = (infos or {}).get(m.measure.channel)
    if info is not None and m.unit == info.unit:  # a value of the channel itself: in its display unit
        unit, factor = display_of(info)
        return f"{_value(m.value * factor)} {unit}".rstrip()
    return f"{_value(m.value)} {m.unit}".rstrip()


def how_shown(measure, infos: dict) -> str:
    """A measure's reduction in words (workbench.scripts.format.Measure.how), a threshold in its channel's display
    unit; ``infos`` the car's channels by name."""
    info = infos.get(measure.channel)
    if info is None:
        return measure.how()
    unit, factor = display_of(info)
    return measure.how(factor, unit)


def table(results: Sequence[ReplayResult]) -> str:
    """A table per script of every expectation: channel, frame window, bound, measured value, pass or fail."""
    lines = []
    total = failed = 0
    for r in results:
        p = r.program
        # A script's own words (its name, labels, file) as one line each: a tab or a terminal's escape in a name is
        # shown as \t or \x1b, not acted on (streams.one_line)
        lines.append(f"{one_line(p.name)}  ({one_line(p.script.source)})  preset {p.preset}, dt {p.dt:.6g} s, "
                     f"{p.frames} frames")
        if not r.verdicts:
            lines.append("  (no expectations)")
        infos = {c.name: c for c in channel_infos(p.params.model.unit)}
        lines += aligned([verdict_row(v, infos) for v in r.verdicts], "  ")
        if r.measurements:
            lines.append("  measures:")
            rows = [(one_line(m.measure.name), m.measure.channel, how_shown(m.measure, infos), measured_text(m, infos))
                    for m in r.measurements]
            lines += aligned(rows, "    ")
        total += len(r.verdicts)
        failed += sum(not v.passed for v in r.verdicts)
        lines.append("")
    scripts_failed = sum(not r.passed for r in results)
    lines.append(f"{len(results)} script{'s' if len(results) != 1 else ''}, {total} expectation{'s' if total != 1 else ''}: "
                 f"{total - failed} passed, {failed} failed"
                 + (f" ({scripts_failed} script{'s' if scripts_failed != 1 else ''} failing)" if failed else ""))
    return "\n".join(lines)


def aligned(rows: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    """``rows`` of cells as lines, each column as wide as its widest cell, two spaces between columns."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def verdict_row(v: Verdict, infos: dict) -> tuple[str, str, str, str, str, str]:
    """A verdict as the table shows it: PASS or FAIL, the expectation's label, its channel, its frames, its bound and
    the value measured (both in the channel's display unit; ``infos`` the car's channels by name)."""
    shown, factor = display_of(infos[v.expect.channel]) if v.expect.channel in infos else (v.unit, 1.0)
    unit = f" {shown}" if shown else ""
    where = "" if v.expect.at is not None else f" at {v.time:.4g} s"
    return ("PASS" if v.passed else "FAIL", one_line(v.expect.label()), v.expect.channel, _window(v),
            v.expect.bound_text(scale=factor) + unit, f"{_value(v.measured * factor)}{unit}{where}")


def scaled(x, factor: float):
    """``x`` times ``factor``; None stays None (a bound or a value that is not there)."""
    return None if x is None else x * factor


def measure_display(m: Measurement, infos: dict) -> tuple[str, float, str, float]:
    """(unit and factor of the value, unit and factor of the threshold) of a measure in display units: a value of the
    channel itself and a threshold on it are in the channel's display unit; a crossing time stays in seconds."""
    info = infos.get(m.measure.channel)
    if info is None:
        return m.unit, 1.0, m.unit, 1.0
    unit, factor = display_of(info)
    if m.unit == info.unit:
        return unit, factor, unit, factor
    return m.unit, 1.0, unit, factor


def as_json(results: Sequence[ReplayResult]) -> dict:
    """The verdicts as a document; every value of a channel (a bound, a measured value, a measure and its threshold)
    in the channel's display unit, as the table shows it (degrees for angles), with that unit beside it."""
    scripts = []
    for r in results:
        p = r.program
        infos = {c.name: c for c in channel_infos(p.params.model.unit)}
        shown = {v.expect.channel: display_of(infos[v.expect.channel]) if v.expect.channel in infos
                 else (v.unit, 1.0) for v in r.verdicts}
        measured = [(m, measure_display(m, infos)) for m in r.measurements]
        scripts.append({
            "name": p.name,
            "file": p.script.source,
            "preset": p.preset,
            "dt": p.dt,
            "frames": p.frames,
            "passed": r.passed,
            "digest": r.digest(),
            "stamp": program_stamp(p).to_table(),
            "recorded": p.script.recorded.to_table() if p.script.recorded is not None else None,
            "expectations": [
                {
                    "label": v.expect.label(),
                    "channel": v.expect.channel,
                    "at": v.expect.at,
                    "from": v.expect.start,
                    "to": v.expect.end,
                    "frames": [v.first, v.last],
                    "min": scaled(v.expect.min, shown[v.expect.channel][1]),
                    "max": scaled(v.expect.max, shown[v.expect.channel][1]),
                    "measured": v.measured * shown[v.expect.channel][1],
                    "unit": shown[v.expect.channel][0],
                    "frame": v.frame,
                    "time": v.time,
                    "passed": v.passed,
                }
                for v in r.verdicts
            ],
            "measures": [
                {
                    "name": m.measure.name,
                    "channel": m.measure.channel,
                    "reduce": m.measure.reduce,
                    "threshold": scaled(m.measure.threshold, factors[3]),
                    "threshold_unit": None if m.measure.threshold is None else factors[2],
                    "at": m.measure.at,
                    "from": m.measure.start,
                    "to": m.measure.end,
                    "frames": [m.first, m.last],
                    "value": scaled(m.value, factors[1]),
                    "unit": factors[0],
                }
                for m, factors in measured
            ],
        })
    return {"passed": all(r.passed for r in results), "scripts": scripts}
