"""One time cursor: plots, timeline, stepping, status bar, telemetry and car view show the same frame."""

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from workbench.gui.testing import drive, hold


def _click_plot(qtbot, row, x_time):
    """Click the plot at time x (in the plot's own time base)."""
    row.plot.repaint()
    scene_point = row.vb.mapViewToScene(pg_point(x_time, 0.0))
    view_point = row.plot.mapFromScene(scene_point)
    qtbot.mouseClick(row.plot.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(view_point.x(), row.plot.height() // 2))


def pg_point(x, y):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)


def _frame_shown_everywhere(window):
    """The frame each view shows: the status bar, the recorder, the telemetry table and the car."""
    log = window.model.session.log
    k = window.model.shown_frame()
    status = window.status_time.text()
    assert f"frame {k:6d}" in status
    assert window.recorder.position.text().startswith(f"frame {k} ")
    assert window.recorder.timeline.value() == k
    assert window.telemetry.table.values[log.index["x"]] == pytest.approx(log.column("x")[k])
    body = window.car_view._body.polygon()
    cx = np.mean([body.at(i).x() for i in range(4)])
    assert abs(cx - log.column("x")[k]) < 4.0
    return k


def test_a_click_in_a_plot_moves_the_time_cursor_everywhere(carbench_window, qtbot):
    window = carbench_window
    hold(window, {"throttle"}, 1200)
    row = window.plots.rows[0]
    _click_plot(qtbot, row, -4.0)  # four seconds before the newest frame
    assert not window.model.running
    k = _frame_shown_everywhere(window)
    assert k == pytest.approx(1199 - 4.0 / window.model.session.dt, abs=3)
    for other in window.plots.rows:
        assert other.now.isVisible() and other.now.value() == pytest.approx((k - 1199) * window.model.session.dt)


def test_dragging_in_a_plot_scrubs_steadily(carbench_window, qtbot):
    window = carbench_window
    hold(window, {"throttle"}, 1200)
    row = window.plots.rows[1]
    _click_plot(qtbot, row, -6.0)
    first = window.model.shown_frame()
    x_range = row.vb.viewRange()[0]
    _click_plot(qtbot, row, -5.0)  # the range stayed put, so the same screen spot means the same time
    assert row.vb.viewRange()[0] == pytest.approx(x_range)
    assert window.model.shown_frame() - first == pytest.approx(1.0 / window.model.session.dt, abs=3)


def test_the_timeline_jumps_to_the_clicked_place(carbench_window, qtbot):
    window = carbench_window
    hold(window, {"throttle"}, 1000)
    timeline = window.recorder.timeline
    x = int(round(timeline.x_of(300)))
    qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, timeline.height() // 2))
    assert abs(window.model.shown_frame() - 300) <= 1000 / timeline.width() + 2
    _frame_shown_everywhere(window)


def test_stepping_through_the_history_when_paused(carbench_window, qtbot):
    window = carbench_window
    hold(window, {"throttle"}, 600)
    window.model.set_running(False)
    window.recorder.timeline.setValue(200)
    window.car_view.setFocus()
    qtbot.keyClick(window.car_view, Qt.Key.Key_Period)
    assert window.model.shown_frame() == 201
    qtbot.keyClick(window.car_view, Qt.Key.Key_Comma)
    qtbot.keyClick(window.car_view, Qt.Key.Key_Comma)
    assert window.model.shown_frame() == 199
    window.recorder.step.click()
    assert window.model.shown_frame() == 200 and window.model.session.log.frames == 600  # history, no new step
    _frame_shown_everywhere(window)
    window.recorder.timeline.setValue(599)
    window.recorder.step.click()
    assert window.model.session.log.frames == 601 and window.model.shown_frame() == 600  # at the end: a new step


def test_zooming_one_plot_zooms_all_and_a_double_click_resets(carbench_window, qtbot):
    window = carbench_window
    hold(window, {"throttle"}, 1500)
    rows = window.plots.rows
    rows[0].vb.setXRange(-3.0, 0.0, padding=0)
    rows[0].vb.sigRangeChangedManually.emit([True, False])
    for row in rows:
        x0, x1 = row.vb.viewRange()[0]
        assert x1 - x0 == pytest.approx(3.0)
    hold(window, {"throttle"}, 10)  # the zoom stays while it scrolls
    assert rows[2].vb.viewRange()[0][1] - rows[2].vb.viewRange()[0][0] == pytest.approx(3.0)
    rows[1].vb.picked.reset.emit()  # what a double-click does
    for row in rows:
        x0, x1 = row.vb.viewRange()[0]
        assert x1 - x0 == pytest.approx(window.plots.window.value())


def test_absolute_time_and_the_crosshair_in_the_same_base(carbench_window):
    window = carbench_window
    hold(window, {"throttle"}, 1800)
    plots = window.plots
    plots.show_cursor(12.0)
    row = plots.rows[0]
    assert row.readout.toPlainText().startswith("t = -2.992 s")  # relative: from the newest frame (14.992 s)
    plots.absolute.setChecked(True)
    x0, x1 = row.vb.viewRange()[0]
    assert (x0, x1) == pytest.approx((14.992 - 10.0, 14.992), abs=0.01)
    assert row.readout.toPlainText().startswith("t = 12 s")
    assert row.cursor.value() == pytest.approx(12.0)


def test_verdicts_summary_units_worst_time_and_double_click(carbench_window, tmp_path):
    window = carbench_window
    script = tmp_path / "yaw.toml"
    script.write_text("""[script]
name = "yaw"
preset = "sedan"
duration = 4.0

[[hold]]
keys = ["throttle", "left"]
from = 0.0
to = 4.0

[[expect]]
name = "a very long expectation name that would push the numbers of the table out of view otherwise"
from = 2.0
to = 3.0
channel = "yaw_rate"
min = 0.5

[[expect]]
at = 3.5
channel = "speed_kmh"
max = 1.0
""")
    window.resize(1024, 640)
    verdicts = drive(window, script)
    tree = window.recorder.verdicts
    assert window.recorder.summary.full_text() == "1 pass \u00b7 1 fail \u00b7 0 pending" or \
        window.recorder.summary.full_text() == f"{sum(v.passed for v in verdicts)} pass \u00b7 " \
        f"{sum(not v.passed for v in verdicts)} fail \u00b7 0 pending"
    first = tree.topLevelItem(0)
    assert first.text(2) == ">= 28.65 deg/s"  # 0.5 rad/s in the plots' unit
    assert first.text(3).endswith("deg/s")
    assert first.toolTip(1).startswith("a very long")
    header = tree.header()
    worst = verdicts[0]
    # The numbers and "worst at" stay in view; in a narrow recorder the name keeps its share, and the numbers' units
    # may be elided (whole in the tooltips). "worst at" is always whole.
    from workbench.gui.recorder_panel import NAME_SHARE

    assert not header.isSectionHidden(4)
    metrics = tree.fontMetrics()
    narrow = any(header.sectionSize(c) < metrics.horizontalAdvance(first.text(c)) for c in (2, 3))
    for column in (2, 3, 4):
        assert header.sectionViewportPosition(column) + header.sectionSize(column) <= tree.viewport().width() + 1
        text = tree.topLevelItem(0).text(column)
        shown = text.rsplit(" ", 1)[0] + " \u2026" if narrow and column != 4 else text  # the number, its unit maybe elided
        assert header.sectionSize(column) >= metrics.horizontalAdvance(shown), (column, text)
    if narrow:
        assert header.sectionSize(1) >= NAME_SHARE * tree.viewport().width()  # the name is more than "a very l\u2026"
    assert f"{worst.time:.3f} s" in first.text(4) and f"{worst.time:.3f} s" in first.toolTip(3)
    tree.itemDoubleClicked.emit(first, 0)
    assert window.model.shown_frame() == worst.frame
    assert f"frame {worst.frame:6d}" in window.status_time.text()


def test_absolute_time_shows_no_time_before_the_run(carbench_window):
    """3 s into a run with a 10 s window, absolute time showed -7 .. 3 s (the axis below zero empty); it shows
    0 .. 10 s, the curves from the left, and relative time keeps -10 .. 0."""
    window = carbench_window
    hold(window, {"throttle"}, 361)
    plots = window.plots
    row = plots.rows[0]
    plots.absolute.setChecked(True)
    plots.reset_zoom()  # "fit"
    assert row.vb.viewRange()[0] == pytest.approx([0.0, 10.0], abs=1e-9)
    window.model.set_view_frame(60)  # paused at 0.5 s
    plots.refresh()
    assert row.vb.viewRange()[0][0] >= 0.0  # paused: a window round the frame on show, none of it before 0
    window.model.set_view_frame(None)  # live again
    plots.absolute.setChecked(False)
    plots.refresh()
    assert row.vb.viewRange()[0] == pytest.approx([-10.0, 0.0], abs=1e-9)


def test_the_readout_goes_where_it_hides_the_fewest_points_of_the_curves(carbench_window):
    """Full throttle to the limiter: the speed is high over the plot's right half. The readout, on the side away
    from the crosshair, went to the top corner there and hid the newest seconds of the curve (a real X server draws
    its box opaque); it goes to the bottom corner, where the curve is not."""
    from PySide6.QtCore import QRectF

    from workbench.gui.plot_panel import curve_length_in

    window = carbench_window
    window.resize(1400, 900)
    hold(window, {"throttle"}, 1200)
    plots = window.plots
    plots.show_cursor(3.0)  # the crosshair on the left: the readout on the right
    speed = next(row for row in plots.rows if "speed_kmh" in row.curves)
    assert tuple(speed.readout.anchor) == (1.0, 1.0)  # the bottom right
    box = speed.readout.sceneBoundingRect()
    rect = speed.vb.sceneBoundingRect()
    top = QRectF(box.left(), rect.top(), box.width(), box.height())
    assert curve_length_in(speed, box) < curve_length_in(speed, top)
    assert curve_length_in(speed, top) > 0  # the top corner would have hidden some of the curve


def test_the_readout_keeps_clear_of_the_pinned_runs_curves_too(carbench_window):
    """The readout's corner weighed the run on show's curves only: under Xvfb it went over a pinned run's rise. Two
    runs at full throttle pinned, the run on show braked at rest: its speed lies along the bottom, theirs rise into
    the top right. The readout went to the top corner, over both; it goes to the bottom one, over the one flat line."""
    from PySide6.QtCore import QRectF

    from workbench.gui.plot_panel import curve_length_in, readout_at_top

    window = carbench_window
    window.resize(1400, 900)
    for _ in range(2):
        hold(window, {"throttle"}, 1200)
        assert window.comparer.pin_current()
        window.model.reset()
    hold(window, {"brake"}, 1200)
    plots = window.plots
    plots.refresh()
    window.plot_overlay.refresh()  # the pinned runs drawn, and the plots' ranges fitted to them
    plots.show_cursor(3.0)  # the crosshair on the left: the readout on the right
    speed = next(row for row in plots.rows if "speed_kmh" in row.curves)
    references = plots.reference_curves(speed)
    assert len(references) == 2 * len(speed.curves)  # the overlay tells the panel which curves are the pinned runs'
    assert tuple(speed.readout.anchor) == (1.0, 1.0)  # the bottom right
    assert readout_at_top(speed, True) and not readout_at_top(speed, True, references)
    rect, box = speed.vb.sceneBoundingRect(), speed.readout.sceneBoundingRect()
    top = QRectF(box.left(), rect.top(), box.width(), box.height())
    assert curve_length_in(speed, top) == 0.0 < curve_length_in(speed, box) < curve_length_in(speed, top, references)
