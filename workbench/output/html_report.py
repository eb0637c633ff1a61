"""A self-contained HTML report of replayed scripts: verdict tables, one chart per expectation, the
parameter diff against the shipped preset, monitor violations, and the run's stamp.

Headless: charts are :mod:`workbench.output.charts` values drawn by a ``render`` callable handed in
by the caller (the command line passes ``workbench.gui.charts.render_png``). The page links its PNGs
by relative name, so the folder can be copied or uploaded as it is.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import numpy as np

from physics import CarParams, PresetError, channel_infos, load_preset, preset_names
from physics.presets import cars_dir, presets_root
from physics.units import display_unit, shown
from workbench.names import printable, unique_names
from workbench.output.charts import FAIL_COLOUR, PASS_COLOUR, Band, Chart, Line, Marker, Renderer, Series, with_unit
from workbench.output.files import OutputPathError, atomic_write_text, check_output_dir
from workbench.output.report import how_shown, measured_text
from workbench.runs.stamp import params_sha256, preset_label, program_stamp

# Which channel shows each monitor's violation best.
MONITOR_CHANNEL = {"finite": "speed", "impossible_jerk": "vy", "energy_gain": "speed", "lateral_balance": "yaw_rate",
                   "clutch_flip": "speed", "rest_stays_rest": "speed", "rpm_range": "rpm"}


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def params_digest(params: CarParams) -> str:
    """SHA-256 of a car's parameters: the stamp's own (workbench.runs.stamp.params_sha256)."""
    return params_sha256(params)


def stamp(program) -> dict:
    """The run's stamp (workbench.runs.stamp): the same fields and hashes as --json, recordings and MCAP."""
    return program_stamp(program).to_table()


def display_scale(unit: str, display: str | None) -> tuple[float, str]:
    """Factor and unit that turn a channel's SI value into its display unit (physics.units)."""
    unit_shown, factor = display_unit(unit, display)
    return factor, unit_shown


def _unit(info_unit: str) -> str:
    return f" {info_unit}" if info_unit else ""


def is_shipped(program) -> bool:
    """Whether the program's car is a shipped preset's file (a file of the user's named sedan.toml is not): the
    stamp names it by its shipped name (workbench.runs.stamp.preset_label), not by its path."""
    return program.preset in preset_names() and preset_label(program.preset, program.preset_path) == program.preset


def param_diff(program) -> list[tuple[str, str, str, str]]:
    """(parameter, value before, value used, when) for every parameter that differs from the shipped preset (before: its
    value there) and every change part-way through the run (before: the value before that change),
    each value in its display unit with the unit (physics.units: degrees for angles), as compare shows them."""
    shipped = None
    if is_shipped(program):
        try:
            shipped = load_preset(cars_dir() / f"{program.preset}.toml").params
        except PresetError:
            shipped = None
    rows = []
    if shipped is not None and shipped.swap_problem(program.params) is None:
        for info in program.params.infos():
            a, b = shipped.get(info.path), program.params.get(info.path)
            if a != b:
                rows.append((info.path, shown(a, info), shown(b, info), "from the start"))
    previous = program.params
    for k, params in program.param_changes:
        for info in params.infos():
            a, b = previous.get(info.path), params.get(info.path)
            if a != b:
                rows.append((info.path, shown(a, info), shown(b, info), f"from {k * program.dt:.4g} s"))
        previous = params
    return rows


def expectation_chart(result, verdict) -> Chart:
    """The expectation's channel against time: window shaded, bounds drawn, the deciding value marked."""
    p = result.program
    info = {c.name: c for c in channel_infos(p.params.model.unit)}[verdict.expect.channel]
    scale, unit = display_scale(info.unit, info.display)
    t = result.column("t")
    y = result.column(verdict.expect.channel) * scale
    e = verdict.expect
    colour = PASS_COLOUR if verdict.passed else FAIL_COLOUR
    # A window of less than half the run is shown with as much again either side (at least a second): over the
    # whole run, 1030 .. 1100 rpm at idle lay on a 0 .. 7,400 rpm axis and a 0.5 s window was a sliver.
    view = ""
    if len(t) > 1:
        start, end = verdict.first * p.dt, verdict.last * p.dt
        if end - start < 0.5 * (t[-1] - t[0]):
            pad = max(1.0, end - start)
            shown_from, shown_to = max(t[0], start - pad), min(t[-1], end + pad)
            if shown_to - shown_from < 0.9 * (t[-1] - t[0]):  # (a view of nearly the whole run is the run)
                keep = (t >= shown_from - 1e-9) & (t <= shown_to + 1e-9)
                t, y = t[keep], y[keep]
                view = f"; shown: {shown_from:.4g} .. {shown_to:.4g} s of the run's {result.column('t')[-1]:.4g} s"
    bands, lines = [], []
    if e.at is not None:  # (its time in the note: a label by the line ran into the value's and the bounds')
        lines.append(Line(verdict.first * p.dt, axis="x", colour="#666666"))
    else:
        bands.append(Band(verdict.first * p.dt, verdict.last * p.dt, axis="x", colour="#1f77b4"))
    # The bounds' labels at the end of the plot away from the value decided: "PASS 4", "max 4" and "min 4" were drawn
    # one over the other at the right; a bound that is both (min = max) is one line, "= 4".
    away = 0.05 if len(t) and verdict.time > 0.5 * (t[0] + t[-1]) else 0.95
    if e.min is not None and e.min == e.max:
        lines.append(Line(e.min * scale, axis="y", colour=FAIL_COLOUR, label=f"= {e.min * scale:g} {unit}".rstrip(),
                          label_at=away))
    else:
        for bound, name in ((e.min, "min"), (e.max, "max")):
            if bound is not None:
                lines.append(Line(bound * scale, axis="y", colour=FAIL_COLOUR,
                                  label=f"{name} {bound * scale:g} {unit}".rstrip(), below=name == "min", label_at=away))
    status = "PASS" if verdict.passed else "FAIL"
    marker = Marker(verdict.time, verdict.measured * scale, f"{status} {verdict.measured * scale:.4g} {unit}", colour)
    when = f"at {e.at:g} s" if e.at is not None else f"on every frame of {e.start:g}..{e.end:g} s (shaded)"
    bound = f"{e.bound_text(scale=scale)} {unit}".rstrip()  # in the channel's display unit, as the chart is
    note = f"{e.channel} {bound} {when}{view}"
    return Chart(title=f"{status}: {e.label()}", x_label="time [s]", y_label=with_unit(info.name, unit),
                 series=[Series(t, y, "", "#1f77b4")], bands=bands, lines=lines, markers=[marker],
                 notes=[note], y_whole=info.name == "gear" or "(1) or" in info.doc)


def _violation_channel(violation) -> str:
    """The channel that shows a violation: for a jerk, the component furthest past its limit."""
    if violation.monitor == "impossible_jerk" and len(violation.values) >= 6:
        v = violation.values
        ratios = [abs(v[i][1]) / max(abs(v[i + 1][1]), 1e-12) for i in (0, 2, 4)]
        return ("speed", "vy", "yaw_rate")[ratios.index(max(ratios))]
    return MONITOR_CHANNEL.get(violation.monitor, "speed")


def violation_chart(result, violation) -> Chart:
    """The channel that shows a monitor's violation best, with the violating frame marked."""
    p = result.program
    name = _violation_channel(violation)
    infos = {c.name: c for c in channel_infos(p.params.model.unit)}
    scale, unit = display_scale(infos[name].unit, infos[name].display)
    k = min(violation.frame, p.frames - 1)
    # The three seconds before the violation (and a little after): where it happens, large enough to see.
    first, last = max(0, k - round(3.0 / p.dt)), min(p.frames, k + round(0.5 / p.dt) + 1)
    t = result.column("t")[first:last]
    y = np.nan_to_num(result.column(name)[first:last] * scale)
    k -= first
    texts = violation.value_texts()
    notes = [", ".join(texts[i:i + 2]) for i in range(0, min(len(texts), 4), 2)]
    title = f"VIOLATED: {violation.monitor} at {violation.time:.4g} s"
    if violation.monitor == "lateral_balance":
        # The two sides the monitor weighs, not the yaw rate alone (which showed nothing wrong): the lateral
        # acceleration the forces made (the tyres' and the air's over the mass) and vx r, the dynamic share of it.
        scale, unit = display_scale(infos["accel_lat"].unit, infos["accel_lat"].display)
        a_y = np.nan_to_num(result.column("accel_lat")[first:last] * scale)
        turn = (1.0 - result.column("kinematic_weight")) * result.column("vx") * result.column("yaw_rate")
        vx_r = np.nan_to_num(turn[first:last] * scale)
        return Chart(title=title, x_label="time [s]", y_label=with_unit("lateral acceleration", unit),
                     series=[Series(t, a_y, "a_y: the tyres' and the air's force over the mass", "#1f77b4"),
                             Series(t, vx_r, "vx r (steady motion)", "#ff7f0e", dashed=True)],
                     lines=[Line(violation.time, axis="x", colour=FAIL_COLOUR)],
                     markers=[Marker(float(t[k]), float(a_y[k]), f"{a_y[k]:.4g} {unit}")], notes=notes)
    return Chart(title=title, x_label="time [s]", y_label=with_unit(name, unit), series=[Series(t, y, "", "#1f77b4")],
                 lines=[Line(violation.time, axis="x", colour=FAIL_COLOUR)],
                 markers=[Marker(float(t[k]), float(y[k]), f"{y[k]:.4g} {unit}")], notes=notes)


_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1000px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; padding-bottom: .2em; }
table { border-collapse: collapse; margin: .6em 0 1em; width: 100%; }
th, td { border: 1px solid #ddd; padding: .3em .55em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } td.nowrap { white-space: nowrap; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.pass { color: #1a7f37; font-weight: 600; } .fail { color: #c62828; font-weight: 600; }
.charts { display: grid; grid-template-columns: 1fr 1fr; gap: .8em; margin: .4em 0 1.2em; }
.charts img { width: 100%; border: 1px solid #ddd; }
.muted { color: #666; }
"""


def page_writes(name: str) -> bool:
    """Whether a report may write a file of this name into its folder (its page and its charts)."""
    return name == "index.html" or name.lower().endswith(".png")


GENERATOR = '<meta name="generator" content="carbench">'  # in the head of every report page carbench writes


def _carbench_page(text: str) -> bool:
    # An earlier carbench's page had no generator mark: it is known by its exact title (replay, hunt, manoeuvre)
    return GENERATOR in text or re.search(r"<title>carbench (replay|hunt: minimal scripts|manoeuvre)</title>",
                                          text) is not None


def check_report_dir(path: str | os.PathLike | None, option: str, inputs: Sequence[str | os.PathLike] = ()) -> Path:
    """A report's folder (:func:`workbench.output.files.check_output_dir`), also refused where the report would
    write over another program's ``index.html`` (a web page, a notebook's export) or into carbench's own presets.

    A report's page replaces the folder's ``index.html``: when that page is carbench's, it is an earlier report;
    when it is anything else, it is a user's file, and is never overwritten.
    """
    target = check_output_dir(path, option, inputs, writes=page_writes)
    page = target / "index.html"
    if os.path.isfile(page):
        try:
            with open(page, encoding="utf-8", errors="replace") as handle:
                text = handle.read(64 << 20)
        except OSError as exc:
            raise OutputPathError(f"{option} {target}: its index.html cannot be read ({exc.strerror or exc}), so "
                                  "it cannot be told from a page of another program: not overwritten") from None
        if not _carbench_page(text):
            raise OutputPathError(f"{option} {target}: its index.html is not a carbench report (another program's "
                                  "page?); it would be overwritten: choose another folder")
    refuse_inside_presets(target, option)
    return target


def refuse_inside_presets(target: str | os.PathLike, option: str) -> None:
    """OutputPathError where ``target`` (which need not exist yet) is carbench's shipped presets folder or inside it."""
    real, shipped = os.path.realpath(target), os.path.realpath(presets_root())
    if os.path.commonpath([real, shipped]) == shipped:
        raise OutputPathError(f"{option} {target}: is inside carbench's shipped presets ({presets_root()}); "
                              "choose another folder")


def charts_shown(folder: str | os.PathLike) -> set[str]:
    """The chart files the report page in ``folder`` shows (its index.html's images), when carbench wrote that page:
    what a new report written into the folder replaces. Only names of files in the folder itself that a report
    writes (:func:`page_writes`); nothing when there is no page, or another program's."""
    page = Path(folder) / "index.html"
    try:
        with open(page, encoding="utf-8", errors="replace") as handle:
            text = handle.read(64 << 20)
    except OSError:
        return set()
    if not _carbench_page(text):
        return set()
    names = {html.unescape(name) for name in re.findall(r'<img src="([^"]+)"', text)}
    return {name for name in names if page_writes(name) and name != "index.html" and os.path.basename(name) == name
            and name not in (".", "..")}


NAME_CHARS = 100
"""The most characters of a script's name a chart's file takes (ASCII once made safe): with "-expect-N.png" and the
staged name's suffix it stays within a file name's 255 bytes (a name of 220 characters was refused after the run)."""


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:NAME_CHARS].strip("._") or "script"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[int] = (),
           nowrap: Sequence[int] = ()) -> str:
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            if cell in ("PASS", "FAIL", "VIOLATED"):
                cells.append(f'<td class="{"pass" if cell == "PASS" else "fail"}">{cell}</td>')
            else:
                cls = ' class="num"' if i in numeric else ' class="nowrap"' if i in nowrap else ""
                cells.append(f"<td{cls}>{html.escape(cell)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(out) + "</table>"


def write_report(results: Sequence, folder: str | Path, render: Renderer, violations: Sequence = (),
                 title: str = "carbench replay", notes: Sequence[str] = (), every_monitor: bool = True) -> Path:
    """Write ``folder/index.html`` and its PNGs for replayed ``results``; returns the page's path.

    ``violations`` are :class:`workbench.runs.monitors.ScriptViolation` values (index into ``results``), of every
    monitor (``every_monitor``: ``replay --monitors``, a hunt's minimal scripts) or of the scripts' own [[monitor]]
    entries alone. The folder is created if its parent exists; files are written atomically.
    """
    folder = Path(folder)
    folder.mkdir(exist_ok=True)
    flagged = {v.index for v in violations}
    failing = sum(1 for i, r in enumerate(results) if not r.passed or i in flagged)
    own = sum(1 for r in results if r.program.script.monitors)
    # "0 monitor violations" read as a clean bill where no monitor had been run
    checked = (f"{len(violations)} monitor violation{'s' if len(violations) != 1 else ''}" if every_monitor or own
               else "monitors not checked (replay --monitors checks them)")
    if not every_monitor and own:
        checked += f" (the scripts' own [[monitor]] entries, in {own} of them; --monitors checks every monitor)"
    body = [f"<h1>{html.escape(title)}</h1>",
            f'<p>{len(results)} script{"s" if len(results) != 1 else ""}: '
            f'<span class="{"fail" if failing else "pass"}">{failing} failing</span>, {html.escape(checked)}.</p>']
    body.extend(f'<p class="muted">{html.escape(n)}</p>' for n in notes)
    ids = unique_names([_safe(r.program.name) for r in results])
    for i, (r, base) in enumerate(zip(results, ids, strict=True)):
        p = r.program
        status = "PASS" if r.passed and i not in flagged else "FAIL"
        body.append(f'<h2 id="{base}">{html.escape(p.name)} <span class="{status.lower()}">{status}</span></h2>')
        if p.script.description:
            body.append(f"<p>{html.escape(p.script.description)}</p>")
        s = stamp(p)
        body.append(_table(("file", "preset", "dt", "frames", "carbench", "numpy"),
                           [(printable(p.script.source), printable(s["preset"]), f"{s['dt']:.6g} s", str(p.frames), s["carbench"],
                             s["numpy"])]))
        body.append(_table(("stamp", "SHA-256"), [("preset_sha256", s["preset_sha256"]),
                                                  ("params_sha256", s["params_sha256"])]))
        body.append(f'<p class="muted">changed from the preset: {len(s["changed"])} parameter'
                    f'{"s" if len(s["changed"]) != 1 else ""}</p>')
        stamp_json = json.dumps(s, sort_keys=True).replace("</", "<\\/")  # raw text inside <script>
        body.append(f'<script type="application/json" class="stamp">{stamp_json}</script>')
        diff = param_diff(p)
        if is_shipped(p):
            body.append("<h3>Parameters against the shipped preset</h3>")
            # "before": the shipped value for a change from the start, the value before it for one part-way through
            # (a column headed "shipped" gave 0.3 for tyres.mu, the value a [[set]] had made at 4 s, not 1.1)
            body.append('<p class="muted">before: the shipped preset\'s value, or the value before a change made '
                        'part-way through the run</p>' + _table(("parameter", "before", "used", "when"), diff) if diff
                        else '<p class="muted">the shipped preset, unchanged</p>')
        else:  # a preset file of the user's: no shipped values to set it against, only what the run changed
            body.append("<h3>Parameters changed in the run</h3>")
            file = html.escape(printable(str(p.preset_path or p.preset)))
            body.append(_table(("parameter", "before", "used", "when"), diff) if diff
                        else f'<p class="muted">the preset file {file}, not a shipped preset (nothing to set its values '
                             "against), unchanged in the run</p>")
        body.append("<h3>Expectations</h3>")
        if not r.verdicts:
            body.append('<p class="muted">no expectations</p>')
        rows, charts = [], []
        infos = {c.name: c for c in channel_infos(p.params.model.unit)}
        for j, v in enumerate(r.verdicts, 1):
            info = infos[v.expect.channel]
            scale, unit = display_scale(info.unit, info.display)
            when = f"at {v.expect.at:g} s" if v.expect.at is not None else f"{v.expect.start:g}..{v.expect.end:g} s"
            rows.append(("PASS" if v.passed else "FAIL", v.expect.label(), v.expect.channel, when,
                         v.expect.bound_text(scale=scale) + _unit(unit), f"{v.measured * scale:.6g}{_unit(unit)}",
                         f"{v.time:.4g} s"))
            png = f"{base}-expect-{j}.png"
            render(expectation_chart(r, v), folder / png)
            charts.append(f'<img src="{png}" alt="{html.escape(v.expect.label())}">')
        if rows:
            body.append(_table(("", "expectation", "channel", "when", "bound", "measured", "at"), rows, (5, 6), (3,)))
            body.append('<div class="charts">' + "".join(charts) + "</div>")
        if r.measurements:  # what the script's [[measure]] entries took, in display units as the text table gives them
            body.append("<h3>Measures</h3>")
            body.append(_table(("measure", "channel", "how", "value"),
                               [(m.measure.name, m.measure.channel, how_shown(m.measure, infos), measured_text(m, infos))
                                for m in r.measurements], (3,)))
        mine = [v for v in violations if v.index == i]
        if mine:
            body.append("<h3>Monitor violations</h3>")
            body.append(_table(("", "monitor", "car", "frame", "time", "frames", "values"),
                               [("VIOLATED", v.violation.monitor, str(v.violation.car), str(v.violation.frame),
                                 f"{v.violation.time:.4g} s", str(v.violation.count), v.violation.values_text())
                                for v in mine], (2, 3, 4, 5)))
            images = []
            for j, v in enumerate(mine, 1):
                png = f"{base}-monitor-{j}.png"
                render(violation_chart(r, v.violation), folder / png)
                images.append(f'<img src="{png}" alt="{html.escape(v.violation.monitor)}">')
            body.append('<div class="charts">' + "".join(images) + "</div>")
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">" + GENERATOR
            + f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    return atomic_write_text(folder / "index.html", page)
