"""What an eighth look at the window found: Record enabled while a recording ran (a second press offered to throw the
take away and start over), a plot's CSV that wrote its channels while the plot showed B\u2212A, and an SVG export
drawn at 72 dpi (its text three quarters of the screen's and the PNG's size, the right axis' title drawn off by
itself)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFont, QFontInfo, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication, QMessageBox

from workbench.gui.testing import hold


def test_record_is_disabled_while_a_recording_runs_in_the_recorder_and_the_file_menu(carbench_window):
    """Record pressed during a recording asked "Save it before you record again?" and, answered Discard, threw the
    drive away and started over from rest (a press meant as Stop lost the take). It is disabled while a recording
    runs, in the Recorder and in File (which has Record and Stop recording beside Save recording now): Stop ends a
    recording, R restarts it."""
    window = carbench_window
    session, recorder = window.model.session, window.recorder
    window.ask_recording = lambda doing: pytest.fail(f"asked about the recording running before you {doing}")
    assert recorder.record.isEnabled() and window.record_action.isEnabled()
    assert not recorder.stop.isEnabled() and not window.stop_recording_action.isEnabled()
    recorder.record.click()
    assert session.recording
    hold(window, {"throttle"}, 30)
    assert not recorder.record.isEnabled() and not window.record_action.isEnabled()
    assert recorder.stop.isEnabled() and window.stop_recording_action.isEnabled()
    assert "Stop ends it" in recorder.record.toolTip()
    recorder.record.click()
    window.record_action.trigger()
    assert not window.record()  # called all the same: nothing asked, nothing lost
    assert session.recording and session.log.frames == 30
    assert "a recording is running" in window.status_message.full_text()

    window.stop_recording_action.trigger()
    assert not session.recording and session.last_recording is not None
    assert recorder.record.isEnabled() and window.record_action.isEnabled()
    assert not recorder.stop.isEnabled() and not window.stop_recording_action.isEnabled()
    file_menu = window.menuBar().actions()[0].menu()
    names = [a.text() for a in file_menu.actions()]
    at = names.index("Record")
    assert names[at + 1] == "Stop recording" and names[at + 2].startswith("Save recording")
    window.ask_recording = lambda doing: QMessageBox.StandardButton.Discard  # (closed with it not saved)


def _two_runs_pinned_then_a_third_driven(window):
    """Ref 1: throttle for 2 s; ref 2: throttle and right for 1.5 s; on show: throttle and left for 2.5 s."""
    for keys, frames in (({"throttle"}, 240), ({"throttle", "right"}, 180)):
        hold(window, keys, frames)
        assert window.comparer.pin_current()
        window.model.reset()
    hold(window, {"throttle", "left"}, 300)


def test_a_b_minus_a_plots_csv_holds_the_differences_it_shows(carbench_window):
    """With B\u2212A on, the plot shows the run on show minus each pinned run, but its CSV wrote the channels' own values
    under their names. It writes what the plot shows: each channel's difference to each pinned run, in the
    channel's display unit, its header saying so ("steer B-A (ref 1) [deg]"), empty past a pinned run's end."""
    window = carbench_window
    _two_runs_pinned_then_a_third_driven(window)
    ref1, ref2 = window.comparer.references.items
    row = window.plots.rows[2]
    assert list(row.curves) == ["yaw_rate", "steer"]
    overlay = window.plot_overlay.row_overlay(row)
    overlay.delta.setChecked(True)
    window.model.refresh()
    lines = window.plots.csv_text(row).splitlines()
    assert lines[0] == ("t [s],yaw_rate B-A (ref 1) [deg/s],yaw_rate B-A (ref 2) [deg/s],"
                        "steer B-A (ref 1) [deg],steer B-A (ref 2) [deg]")
    cells = [line.split(",") for line in lines[1:]]
    log = window.model.session.log
    assert len(cells) == log.frames == 300
    for col, (name, ref) in enumerate([(n, r) for n in ("yaw_rate", "steer") for r in (ref1, ref2)], start=1):
        theirs = ref.run.data[name]
        for k, row_cells in enumerate(cells):
            if k < len(theirs):
                assert float(row_cells[col]) == pytest.approx(math.degrees(log.column(name)[k] - theirs[k]),
                                                              rel=1e-9, abs=1e-9)
            else:
                assert row_cells[col] == ""  # the pinned run had ended
    # what the plot draws: ref 1's steer differences, as many as its frames, the same values
    xs, ys = overlay.curves[(0, "steer")].getData()
    assert len(ys) == 240
    assert np.allclose(ys, [float(c[3]) for c in cells[:240]], rtol=1e-12, atol=1e-12)

    overlay.delta.setChecked(False)  # the channels again, under their own names
    window.model.refresh()
    assert window.plots.csv_text(row).splitlines()[0] == "t [s],yaw_rate [deg/s],steer [deg]"


def _svg_font_sizes(svg: str, text: str) -> set[float]:
    """The font sizes of the SVG's texts that read ``text`` (a regular expression)."""
    return {float(size) for size in re.findall(rf'font-size="([\d.]+)"[^>]*>(?:{text}) ?</text>', svg)}


def test_an_svg_export_draws_the_plot_as_the_png_does_at_the_screens_size(carbench_window, tmp_path):
    """The SVG was drawn at Qt's default 72 dpi: the plot's layout in screen pixels, its text in points taken as
    pixels, so tick labels came out at three quarters of their size on screen and in the PNG, and the right axis'
    title ("deg") stood off by itself at the edge; read at its stated size (in mm) the drawing was a quarter larger
    than the plot. It is drawn at the screen's resolution: its text as large as on screen, and the drawing as the
    PNG's."""
    window = carbench_window
    hold(window, {"throttle", "left"}, 300)
    row = window.plots.rows[2]
    assert list(row.curves) == ["yaw_rate", "steer"]
    window.plots.export(row, "png", str(tmp_path / "plot.png"))
    window.plots.export(row, "svg", str(tmp_path / "plot.svg"))
    svg = (tmp_path / "plot.svg").read_text()
    png = QImage(str(tmp_path / "plot.png"))

    tick = QFontInfo(row.axes[0].axis.style["tickFont"] or QFont()).pixelSize()  # on screen
    assert _svg_font_sizes(svg, r"\d+") == {tick}  # the axes' tick labels
    assert _svg_font_sizes(svg, "deg") == {QFontInfo(row.axes[-1].axis.label.font()).pixelSize()}  # the right axis' title
    assert _svg_font_sizes(svg, r"yaw_rate \[deg/s\]") == {QFontInfo(row.title.font()).pixelSize()}

    renderer = QSvgRenderer(str(tmp_path / "plot.svg"))
    assert renderer.viewBoxF().size().toSize() == png.size()
    width_mm = float(re.search(r'<svg width="([\d.]+)mm"', svg).group(1))
    assert width_mm == pytest.approx(png.width() / row.plot.logicalDpiX() * 25.4, rel=0.01)
    drawn = QImage(png.size(), QImage.Format.Format_ARGB32)
    drawn.fill(QColor("white"))
    painter = QPainter(drawn)
    renderer.render(painter, QRectF(0, 0, png.width(), png.height()))
    painter.end()

    def grey(image: QImage) -> np.ndarray:
        image = image.convertToFormat(QImage.Format.Format_Grayscale8)
        bits = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
        return bits[:, :image.width()].astype(int)

    # The same picture, to the antialiasing: before, 4.5% of the pixels differed by more than a quarter of black.
    assert (np.abs(grey(drawn) - grey(png)) > 64).mean() < 0.02


def test_an_edit_rerun_from_frame_0_leaves_no_mark_at_the_frame_it_was_made_on(carbench_window, qtbot):
    """The clutch coast replayed to its end, then body.mass edited: the script is re-run with the edit from frame 0
    (the Compare dock says the runs differ from frame 0), but the plots and the timeline kept the edit's mark at the
    frame it was made on, the run's end, as if the mass had changed there ("body.mass = 1400 kg" at 8 s)."""
    from workbench.gui.testing import drive

    window = carbench_window
    drive(window, "clutch_coast", chunk=240)
    end = window.model.session.log.frames - 1
    with qtbot.waitSignal(window.comparer.rerun_adopted, timeout=60_000):
        window.model.set_param("body.mass", 1400.0)
        ((made, _),) = window.model.edit_marks
        assert made in window.recorder.timeline.marks  # at the end, until the re-run comes
    QApplication.processEvents()
    session = window.model.session
    assert session.program.params.get("body.mass") == 1400.0 and session.log.frames == end + 1  # from frame 0
    assert window.model.edit_marks == [] and made not in window.recorder.timeline.marks
    assert not [m for row in window.plots.rows for m in row.marks if "body.mass" in m.toolTip()]
