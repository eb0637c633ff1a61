"""`carbench replay --report` and the hunt's report: a self-contained page with a PNG per expectation."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

from physics.presets import scripts_dir
from workbench.output.charts import Chart, Line
from workbench.output.html_report import expectation_chart, param_diff, stamp, write_report
from workbench.runs.replay import replay
from workbench.scripts.format import load_script
from workbench.scripts.program import compile_script

REPO = Path(__file__).resolve().parents[2]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          cwd=REPO, timeout=300, env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})


def test_replay_report_has_a_png_per_expectation_that_opens(tmp_path):
    scripts = [scripts_dir() / "clutch_coast.toml", scripts_dir() / "parking_reverse_bay.toml"]
    out = tmp_path / "report"
    done = _cli("replay", *scripts, "--report", out)
    assert done.returncode == 0, done.stderr
    page = (out / "index.html").read_text()
    expected = sum(len(load_script(s).expects) for s in scripts)
    images = re.findall(r'<img src="([^"]+)"', page)
    assert len(images) == expected == len(list(out.glob("*.png")))
    for name in images:
        image = QImage(str(out / name))
        assert not image.isNull() and image.width() == 900 and image.height() == 480
    assert "clutch-coast" in page and "parking-reverse-bay" in page and page.count('class="pass">PASS') >= expected
    assert "deg" in page  # the heading's bounds are shown in degrees
    assert "http" not in page  # self-contained: nothing fetched from elsewhere


def test_a_report_says_whether_the_monitors_were_checked(tmp_path, qapp):
    """`replay skidpad --report` said "0 monitor violations" where no monitor had run."""
    from workbench.gui.charts import render_png
    from workbench.runs.monitors import check_results

    program = compile_script(load_script(scripts_dir() / "skidpad.toml"))
    results = replay([program])
    page = write_report(results, tmp_path / "plain", render_png, every_monitor=False).read_text()
    assert "monitors not checked" in page and "monitor violation" not in page
    page = write_report(results, tmp_path / "all", render_png, check_results(results, everything=True)).read_text()
    assert "0 monitor violations" in page and "not checked" not in page
    own = compile_script(load_script(scripts_dir() / "ice_brakes.toml"))  # a script with a [[monitor]] of its own
    assert own.script.monitors
    results = replay([own])
    page = write_report(results, tmp_path / "own", render_png, check_results(results), every_monitor=False).read_text()
    assert "0 monitor violations (the scripts&#x27; own [[monitor]] entries, in 1 of them" in page


def test_a_report_written_again_into_its_folder_leaves_no_chart_of_the_earlier_one(tmp_path, qapp, capsys):
    """A second report into the same folder, of fewer scripts: the first's charts of the script no longer in it are
    gone (they looked like a current report's), and what carbench did not write there stays."""
    from workbench.cli import main
    from workbench.output.html_report import charts_shown

    out = tmp_path / "report"
    coast, bay = scripts_dir() / "clutch_coast.toml", scripts_dir() / "parking_reverse_bay.toml"
    assert main(["replay", str(coast), str(bay), "--report", str(out)]) == 0
    first = set(re.findall(r'<img src="([^"]+)"', (out / "index.html").read_text()))
    assert charts_shown(out) == first and any(n.startswith("parking") for n in first)
    (out / "mine.png").write_bytes(b"a picture of the user's")  # not a chart of the page
    (out / "notes.txt").write_text("kept")
    assert main(["replay", str(coast), "--report", str(out)]) == 0
    second = set(re.findall(r'<img src="([^"]+)"', (out / "index.html").read_text()))
    assert second and second < first
    assert {p.name for p in out.iterdir()} == second | {"index.html", "mine.png", "notes.txt"}
    capsys.readouterr()


def test_only_a_carbench_pages_own_charts_in_its_folder_count_as_an_earlier_reports(tmp_path):
    from workbench.output.html_report import charts_shown

    page = tmp_path / "index.html"
    images = '<img src="a.png"><img src="sub/b.png"><img src="../c.png"><img src="d.svg"><img src="e&amp;f.png">'
    for title in ("my photos", "carbench notes"):
        page.write_text(f"<html><head><title>{title}</title></head><body>" + images + "</body></html>")
        assert charts_shown(tmp_path) == set()  # another page: its pictures are not carbench's to remove
    page.write_text("<html><head><title>carbench replay</title></head><body>" + images + "</body></html>")
    assert charts_shown(tmp_path) == {"a.png", "e&f.png"}  # an earlier carbench's page (no generator mark yet)
    assert charts_shown(tmp_path / "none") == set()


def test_report_parts(tmp_path):
    path = tmp_path / "edited.toml"
    path.write_text((scripts_dir() / "clutch_coast.toml").read_text()
                    + '\n[[set]]\nat = 1.0\nparams = { "tyres.mu" = 0.5 }\n')
    (result,) = replay([compile_script(load_script(path))])
    s = stamp(result.program)
    assert s["preset"] == "manual003" and len(s["params_sha256"]) == 64 and s["dt"] == result.program.dt
    assert param_diff(result.program) == [("tyres.mu", "1", "0.5", "from 1 s")]
    chart = expectation_chart(result, result.verdicts[3])  # a window: shaded, bound drawn, worst point marked
    assert isinstance(chart, Chart) and len(chart.bands) == 1 and chart.lines[0].value == 10.0
    assert chart.markers[0].x == result.verdicts[3].time
    drawn = []
    page = write_report([result], tmp_path / "r", lambda c, p: drawn.append(p) or p)
    assert len(drawn) == len(result.verdicts) and page.name == "index.html"
    assert "tyres.mu" in page.read_text()
    # A bound and its measured value in one unit, the display unit (the bound was in rad/s beside deg/s).
    (turn,) = replay([compile_script(load_script(scripts_dir() / "full_lock_left.toml"))])
    text = write_report([turn], tmp_path / "t", lambda c, p: p).read_text()
    (row,) = [r.split("</tr>")[0] for r in text.split("<tr>") if "<td>turns left</td>" in r]
    assert row.count(" deg/s</td>") == 2 and "rad" not in row, row
    assert "&gt;= 28.6479 deg/s" in row  # the script's 0.5 rad/s


def test_an_expectations_chart_shows_its_bounds_in_the_display_unit_and_in_view():
    """The split-mu stop's heading chart said "heading >= -0.0873 and <= 0.0873 ...; script bounds in rad, shown in
    deg" over a curve in degrees, and its +-5 deg bound lines lay outside the curve's range, unseen."""
    from workbench.gui.charts import y_range

    (result,) = replay([compile_script(load_script(scripts_dir() / "split_mu_braking.toml"))])
    (verdict,) = [v for v in result.verdicts if v.expect.channel == "heading"]
    chart = expectation_chart(result, verdict)
    assert "heading >= -5.00192 and <= 5.00192 deg" in chart.notes[0] and "rad" not in chart.notes[0], chart.notes
    y = chart.series[0].y
    assert max(abs(y)) < 5.0  # the curve alone would not show the bounds
    lo, hi = y_range(chart, float(y.min()), float(y.max()))
    assert lo <= -5.00192 and hi >= 5.00192
    assert [line.below for line in chart.lines if line.axis == "y"] == [True, False]  # the min's label under it
    far = Chart(title="", x_label="", y_label="", series=chart.series, lines=[Line(1000.0)])
    assert y_range(far, float(y.min()), float(y.max())) is None  # a far bound does not squash the curve


def test_an_expectations_labels_keep_apart():
    """launch_shift's "in 4th after the shift" (gear >= 4 and <= 4 at 19.3 s): "PASS 4", "max 4", "min 4" and
    "at 19.3 s" were drawn one over another at the right, under ticks of 1.5 gears. A bound that is both ends is one
    line, "= 4", labelled at the end of the plot away from the value decided; the instant is in the note; a gear's
    axis is of whole numbers."""
    (result,) = replay([compile_script(load_script(scripts_dir() / "launch_shift.toml"))])
    (verdict,) = [v for v in result.verdicts if v.expect.channel == "gear"][-1:]
    chart = expectation_chart(result, verdict)
    (bound,) = [line for line in chart.lines if line.axis == "y"]
    (at,) = [line for line in chart.lines if line.axis == "x"]
    assert bound.label == "= 4" and bound.value == 4.0 and at.label == ""
    assert verdict.time > result.column("t")[-1] / 2 and bound.label_at < 0.5  # the value on the right: label left
    assert chart.y_whole and "at 19.3 s" in chart.notes[0]
    for v in result.verdicts:  # the bounds' labels at the other end of the view from the value decided
        shown = expectation_chart(result, v)
        middle = (shown.series[0].x[0] + shown.series[0].x[-1]) / 2
        assert all((line.label_at < 0.5) == (v.time > middle) for line in shown.lines if line.axis == "y")
    # the engine held at 1030 .. 1100 rpm over 1 .. 1.5 s of 20: shown with a second either side, not on the whole
    # run's 0 .. 7,400 rpm
    idle = next(v for v in result.verdicts if v.expect.channel == "rpm" and v.expect.start == 1.0)
    chart = expectation_chart(result, idle)
    t = chart.series[0].x
    assert t[0] == 0.0 and t[-1] == pytest.approx(2.5, abs=result.program.dt) and chart.series[0].y.max() < 1200
    assert "shown: 0 .. 2.492 s of the run's 20 s" in chart.notes[0]  # (the window's last frame is at 1.492 s)
    # a view of (nearly) the whole run is the run: no note, no frame cut (a 1.2 s run "shown: 0 .. 1.192 s")
    from workbench.scripts.format import parse_script

    short = ('[script]\nname = "short"\npreset = "sedan"\nduration = 1.2\n[[hold]]\nkeys = ["throttle"]\nfrom = 0.0\n'
             'to = 1.2\n[[expect]]\nname = "moving"\nchannel = "speed_kmh"\nat = 0.5\nmin = 0.1\n[[expect]]\n'
             'name = "gear held"\nchannel = "gear"\nfrom = 0.0\nto = 0.2\nmin = 1\nmax = 1\n')
    (run,) = replay([compile_script(parse_script(short, "short.toml"))])
    for v in run.verdicts:
        chart = expectation_chart(run, v)
        assert "shown" not in chart.notes[0] and len(chart.series[0].x) == run.program.frames


def test_replay_report_refuses_a_bad_folder(tmp_path):
    done = _cli("replay", scripts_dir() / "clutch_coast.toml", "--report", tmp_path / "no" / "such")
    assert done.returncode == 2 and "--report" in done.stderr and done.stdout == ""


def test_hunt_writes_a_report_of_its_minimal_scripts(tmp_path, capsys, qapp):
    sys.path.insert(0, str(REPO / "tests" / "workbench"))
    import faults

    from workbench.cli import main

    # An earlier hunt's report in the folder: its chart of a finding this hunt does not make goes with it.
    earlier = tmp_path / "found" / "report"
    earlier.mkdir(parents=True)
    (earlier / "index.html").write_text('<html><head><title>carbench replay</title></head><body>'
                                        '<img src="energy_gain-9-monitor-1.png"></body></html>')
    (earlier / "energy_gain-9-monitor-1.png").write_bytes(b"an earlier chart")
    with faults.pushing_drag():
        code = main(["hunt", "--preset", "manual003", "--cars", "3", "--seconds", "12", "--seed", "11", "--out",
                     str(tmp_path / "found")])
    assert code == 1
    assert not (earlier / "energy_gain-9-monitor-1.png").exists()
    page = (tmp_path / "found" / "report" / "index.html").read_text()
    scripts = sorted((tmp_path / "found").glob("*.toml"))
    assert scripts and all(load_script(p).name in page for p in scripts)
    images = re.findall(r'<img src="([^"]+)"', page)
    assert len(images) >= len(scripts)
    assert all(not QImage(str(tmp_path / "found" / "report" / name)).isNull() for name in images)
    assert "energy_gain" in page and "VIOLATED" in page


def test_an_earlier_reports_chart_that_cannot_be_removed_is_said_on_stderr(tmp_path, qapp, capsys, monkeypatch):
    # The sweep said so; a report's leftover chart was left without a word (and looked like one of the new report's).
    import os

    from workbench.cli import main

    out = tmp_path / "report"
    coast, bay = scripts_dir() / "clutch_coast.toml", scripts_dir() / "parking_reverse_bay.toml"
    assert main(["replay", str(coast), str(bay), "--report", str(out)]) == 0
    parking = sorted(p.name for p in out.iterdir() if p.name.startswith("parking"))
    assert parking
    real_unlink = os.unlink

    def refuse(path, *args, **kwargs):
        if os.path.basename(str(path)) in parking:
            raise PermissionError(1, "Operation not permitted", str(path))
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", refuse)
    capsys.readouterr()
    assert main(["replay", str(coast), "--report", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    said = [line for line in err if "could not remove" in line]
    assert said == [f"carbench: --report {out}: could not remove an earlier report's chart {name}: Operation not "
                    "permitted" for name in parking]


def test_a_hunt_whose_outputs_cannot_move_into_place_says_so_in_one_line(tmp_path, capsys, qapp, monkeypatch):
    # It ended in a traceback (the other commands said it in a line).
    sys.path.insert(0, str(REPO / "tests" / "workbench"))
    import faults

    from workbench.cli import main
    from workbench.output.files import StagedOutputs

    def full(self):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(StagedOutputs, "commit", full)
    with faults.pushing_drag():
        code = main(["hunt", "--preset", "manual003", "--cars", "3", "--seconds", "12", "--seed", "11", "--out",
                     str(tmp_path / "found")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1] == (f"carbench: --out {tmp_path / 'found'}: cannot move the outputs into place: "
                                     "No space left on device")
    assert "Traceback" not in "\n".join(err)


def test_the_report_lists_the_scripts_measures_in_their_display_units(tmp_path, qapp):
    """abs_in_a_bend's five [[measure]] entries: the text table gave them, the page did not."""
    (result,) = replay([compile_script(load_script(scripts_dir() / "abs_in_a_bend.toml"))])
    page = write_report([result], tmp_path / "report", lambda chart, path: Path(path).write_bytes(b"")).read_text()
    assert "<h3>Measures</h3>" in page
    rows = re.findall(r"<tr><td>([^<]+)</td><td>([^<]+)</td><td>([^<]+)</td><td class=\"num\">([^<]+)</td></tr>", page)
    assert [row[0] for row in rows] == [m.measure.name for m in result.measurements] and len(rows) == 5
    slip = next(row for row in rows if row[0] == "largest body slip while braking")
    value = next(m for m in result.measurements if m.measure.name == slip[0]).value
    assert slip[1:3] == ("beta", "max over 11..16 s") and slip[3] == f"{value * 180 / 3.141592653589793:.6g} deg"
    assert next(row for row in rows if row[0] == "stopped at")[3].endswith(" s")  # a crossing time, in seconds


def test_a_lateral_balance_violation_is_charted_as_the_two_sides_the_monitor_weighs():
    """Its chart was of the yaw rate alone, which showed nothing wrong: it draws the lateral acceleration the forces
    made and vx r, and marks the first at the frame the monitor names, as the monitor read it."""
    from workbench.output.html_report import violation_chart
    from workbench.runs.monitors import check_results
    from workbench.scripts.format import parse_script

    text = (scripts_dir() / "power_oversteer.toml").read_text(encoding="utf-8")
    program = compile_script(parse_script(text + '\n[[monitor]]\nname = "lateral_balance"\ntolerance = 0.0\n', "p.toml"))
    results = replay([program])
    (found, *_) = check_results(results)
    chart = violation_chart(results[0], found.violation)
    a_y, vx_r = chart.series
    assert "vx r" in vx_r.label and chart.y_label == "lateral acceleration [m/s^2]"
    values = dict((name, value) for name, value, _ in found.violation.values)
    (marker,) = chart.markers
    assert marker.x == found.violation.time and marker.y == pytest.approx(values["tyre and air lateral accel"],
                                                                         rel=1e-6, abs=1e-9)
    k = int(np.argmin(np.abs(a_y.x - found.violation.time)))
    assert vx_r.y[k] == pytest.approx(values["vx r"], rel=1e-9, abs=1e-12)


def test_a_hunt_whose_qt_cannot_load_says_why_it_wrote_no_report(tmp_path, capsys, monkeypatch):
    """Its line said only "it needs PySide6 and pyqtgraph", where both were installed but Qt could not load its
    libraries: the reason, as replay --report gives it, was left out."""
    sys.path.insert(0, str(REPO / "tests" / "workbench"))
    import faults

    import workbench.gui.charts
    from workbench.cli import main

    def cannot_load():
        raise ImportError("libEGL.so.1: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(workbench.gui.charts, "load_qt", cannot_load)
    with faults.pushing_drag():
        code = main(["hunt", "--preset", "manual003", "--cars", "3", "--seconds", "12", "--seed", "11", "--out",
                     str(tmp_path / "found")])
    assert code == 1 and sorted((tmp_path / "found").glob("*.toml"))  # the findings' scripts, no report
    assert not (tmp_path / "found" / "report").exists()
    assert capsys.readouterr().err.splitlines()[-1] == (
        "carbench: no HTML report of the minimal scripts: it needs PySide6 and pyqtgraph, which are installed but do "
        "not load here: libEGL.so.1: cannot open shared object file: No such file or directory")
