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


def _measured(m: Measurement, infos: dict | None = None) -> str:
    if m.value is None:
        return "never"
    info = (infos or {}).get(m.measure.channel)
    if info is not None and m.unit == info.unit:  # a value of the channel itself: in its display unit
        unit, factor = display_of(info)
        return f"{_value(m.value * factor)} {unit}".rstrip()
    return f"{_value(m.value)} {m.unit}".rstrip()


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
        rows = []
        infos = {c.name: c for c in channel_infos(p.params.model.unit)}
        for v in r.verdicts:
            shown, factor = display_of(infos[v.expect.channel]) if v.expect.channel in infos else (v.unit, 1.0)
            unit = f" {shown}" if shown else ""
            where = "" if v.expect.at is not None else f" at {v.time:.4g} s"
            rows.append(("PASS" if v.passed else "FAIL", one_line(v.expect.label()), v.expect.channel, _window(v),
                         v.expect.bound_text(scale=factor) + unit, f"{_value(v.measured * factor)}{unit}{where}"))
        if rows:
            widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
            for row in rows:
                lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        if r.measurements:
            lines.append("  measures:")
            rows = [(one_line(m.measure.name), m.measure.channel, m.measure.how(), _measured(m, infos))
                    for m in r.measurements]
            widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
            for row in rows:
                lines.append("    " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        total += len(r.verdicts)
        failed += sum(not v.passed for v in r.verdicts)
        lines.append("")
    scripts_failed = sum(not r.passed for r in results)
    lines.append(f"{len(results)} script{'s' if len(results) != 1 else ''}, {total} expectation{'s' if total != 1 else ''}: "
                 f"{total - failed} passed, {failed} failed"
                 + (f" ({scripts_failed} script{'s' if scripts_failed != 1 else ''} failing)" if failed else ""))
    return "\n".join(lines)


def as_json(results: Sequence[ReplayResult]) -> dict:
    scripts = []
    for r in results:
        p = r.program
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
                    "min": v.expect.min,
                    "max": v.expect.max,
                    "measured": v.measured,
                    "unit": v.unit,
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
                    "threshold": m.measure.threshold,
                    "at": m.measure.at,
                    "from": m.measure.start,
                    "to": m.measure.end,
                    "frames": [m.first, m.last],
                    "value": m.value,
                    "unit": m.unit,
                }
                for m in r.measurements
            ],
        })
    return {"passed": all(r.passed for r in results), "scripts": scripts}
