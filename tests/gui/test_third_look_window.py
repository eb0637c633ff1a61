"""A third look at the window as a person uses it (under Xvfb): a click on a read-only table (KPIs, Compare, the
verdicts) keeps the arrow keys with the car, a modified row's right-click menu is not orange, the Sweep dock's line
says again after a load whether its chart's cars can be driven, its chart's left title stays centred as it is elided
and its heatmap's marks show only where a cell holds one (and a car chosen there during a recording says the recording
stopped), a ghost's edge marker is not hidden under the HUD, and a window opened on a driver's script keys its path."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtWidgets import QApplication

from workbench.gui.testing import hold

SCRIPT = """
[script]
name = "dock-launch"
preset = "manual003"
duration = 1.0
dt = 0.05

[[hold]]
keys = ["throttle", "left"]
from = 0.0
to = 1.0

[[expect]]
name = "moving"
channel = "speed_kmh"
at = 1.0
min = 1.8
"""


def test_a_click_on_a_read_only_table_leaves_the_arrow_keys_with_the_car(carbench_window, qtbot):
    """Clicking a row of the KPI table (to read it) kept the focus there: Up then moved the table's selection and
    the car did not answer (an item view with the focus keeps the keys). The Compare dock's tree and the recorder's
    verdicts did the same; the Telemetry and Watch tables never took the focus."""
    window = carbench_window
    window.kpi_dock.show()
    window.compare_dock.show()
    window.recorder_dock.show()
    for tree in (window.kpis.tree, window.compare_dock_widget.tree, window.recorder.verdicts):
        tree.show()
        tree.raise_()
        window.car_view.setFocus(Qt.FocusReason.MouseFocusReason)
        qtbot.waitUntil(window.car_view.hasFocus, timeout=1000)
        qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(20, 10))
        assert tree.focusPolicy() == Qt.FocusPolicy.NoFocus and not tree.hasFocus(), tree
        target = QApplication.focusWidget() or window.car_view
        qtbot.keyPress(target, Qt.Key.Key_Up)
        assert "throttle" in window.model.keys, tree
        qtbot.keyRelease(target, Qt.Key.Key_Up)
        QApplication.processEvents()  # a release lets go once the events queued with it are handled
        assert window.model.keys == set()


def _orange_pixels(image) -> int:
    count = 0
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            c = image.pixelColor(x, y)
            count += c.red() > 140 and c.red() - c.green() > 50 and c.green() - c.blue() > 30
    return count


def test_a_modified_rows_menu_is_written_as_any_menu(carbench_window, qtbot):
    """The menu was the row label's child and took its style sheet: on a modified row ('mass' in orange) every entry
    ('Reset to preset', 'Copy path', 'Sweep this', 'Compare with reference') was orange too."""
    window = carbench_window
    window.model.set_param("body.mass", 2000.0)
    row = window.params.rows["body.mass"]
    assert row.modified
    menu = window.params.row_menu("body.mass", row.label, QPoint(2, 2))
    qtbot.waitExposed(menu)
    assert _orange_pixels(menu.grab().toImage()) == 0
    menu.close()


def test_the_sweep_docks_line_follows_the_script_loaded_after_the_sweep(carbench_window, qtbot, tmp_path):
    """After a sweep, loading another script left 'click a point or cell to drive that car' under a chart whose
    clicks were then refused; a sweep that ended stale and then a third script named the second as 'loaded now'."""
    window = carbench_window
    path = tmp_path / "dock.toml"
    path.write_text(SCRIPT)
    assert window.load_script(path)
    window.show_sweep_dock()
    dock = window.sweep
    assert dock.add_axis("body.mass")
    dock.axes["body.mass"].count.setValue(2)
    assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=60_000)
    assert dock.status.text().endswith("click a point or cell to drive that car.")
    for name in ("another", "third"):
        other = tmp_path / f"{name}.toml"
        other.write_text(SCRIPT.replace('name = "dock-launch"', f'name = "{name}"'))
        assert window.load_script(other)
        assert dock.status.text().endswith(f"this chart is of the sweep of dock-launch, and {name} is loaded now: "
                                           "run the sweep again."), dock.status.text()
    assert window.load_script(path)  # the script swept, loaded again: its cars drive
    assert dock.status.text().endswith("click a point or cell to drive that car.")


def _screen_rect(view, points: np.ndarray) -> QRect:
    vb = view.getPlotItem().getViewBox()
    shown = [view.mapFromScene(vb.mapViewToScene(QPointF(float(x), float(y)))) for x, y in points]
    xs, ys = [p.x() for p in shown], [p.y() for p in shown]
    return QRect(min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)


def test_a_ghost_behind_down_and_left_is_marked_clear_of_the_hud(carbench_window):
    """Driving up and to the right with a run pinned behind: the ghost's edge marker was on the bottom edge under the
    HUD (drawn over it: hidden), and its label, moved out from under the HUD, stood at the HUD's right pointing at
    nothing. The arrowhead now moves along its edge clear of the HUD, beside its label."""
    window = carbench_window
    hold(window, {"throttle"}, 5)
    window.comparer.pin_current()
    view = window.car_view
    view.set_follow(False)
    ghost = window.ghost_cars.ghosts[0]
    vb = view.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    width, height = x1 - x0, y1 - y0
    # the ghost out of the bottom edge near the left corner, then out of the left edge near the bottom: the HUD's
    for along, side in ((0.33, "bottom"), (0.5, "left")):
        if side == "bottom":
            direction = np.array([-along * width, -0.5 * height])
        else:
            direction = np.array([-0.5 * width, -0.35 * height])
        centre = ghost.com - 3.0 * direction
        vb.setRange(xRange=(centre[0] - width / 2, centre[0] + width / 2),
                    yRange=(centre[1] - height / 2, centre[1] + height / 2), padding=0)
        window.ghost_cars._place_markers()
        assert ghost.marker.isVisible()
        hud = view.hud.geometry()
        arrow = _screen_rect(view, ghost.marker_points)
        assert view.hud.isVisible() and not arrow.intersects(hud), (side, arrow, hud)
        label = view.mapFromScene(ghost.marker_label.sceneBoundingRect()).boundingRect()
        gap = max(label.left() - arrow.right(), arrow.left() - label.right(), label.top() - arrow.bottom(),
                  arrow.top() - label.bottom())
        assert gap < 12, (side, arrow, label)  # the label beside its arrowhead


def test_the_sweep_charts_left_title_stays_centred_as_it_is_elided(qtbot):
    """pyqtgraph centres an axis' title when the axis is resized, for the text it has then; the chart elides its left
    title when its view box is resized, after the axis. So the title stood where the text before it would have been
    centred: at 1500x950 the heatmap's '\u2026 [m]' ran off the chart's top, and grown again 'body.wheelbase [m]' sat
    low."""
    from workbench.gui.sweep_dock import SweepChart

    chart = SweepChart(background="w")
    qtbot.addWidget(chart)
    chart.resize(400, 300)
    chart.show()
    qtbot.waitExposed(chart)
    chart.set_left_label("body.wheelbase [m]")
    texts = set()
    for height in (150, 100, 130, 80, 300):
        chart.resize(400, height)
        QApplication.processEvents()
        axis = chart.getPlotItem().getAxis("left")
        label = axis.label.mapRectToScene(axis.label.boundingRect())
        box = axis.sceneBoundingRect()
        texts.add(axis.label.toPlainText())
        assert abs(label.center().y() - box.center().y()) <= 2, (height, axis.label.toPlainText(), label, box)
        assert label.top() >= 0 and label.bottom() <= height, (height, label)
    assert len(texts) >= 3  # elided differently at different heights


def _marks(dock) -> list:
    return [i for i in dock.plot.getPlotItem().items
            if type(i).__name__ == "TextItem" and i.toPlainText() in ("\u2713", "\u2717")]


def _overlapping(marks) -> int:
    shown = [m.mapRectToScene(m.boundingRect()) for m in marks if m.isVisible()]
    return sum(a.intersects(b) for i, a in enumerate(shown) for b in shown[i + 1:])


def test_a_heatmaps_marks_show_only_where_a_cell_holds_one(carbench_window, qtbot, tmp_path):
    """Docked at 1500x950 the chart gives a 12 x 12 sweep's row about 5 px: each column's pass and fail marks ran
    together into a hatched bar over the colours. They show where a cell holds one (the dock floated large)."""
    window = carbench_window
    window.resize(1500, 950)
    path = tmp_path / "dock.toml"
    path.write_text(SCRIPT)
    assert window.load_script(path)
    window.show_sweep_dock()
    dock = window.sweep
    for axis in ("body.mass", "body.wheelbase"):
        assert dock.add_axis(axis)
    for axis in dock.axes.values():
        axis.count.setValue(12)
    assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=60_000)
    QApplication.processEvents()
    assert len(_marks(dock)) == 144
    assert dock.plot.getPlotItem().getViewBox().height() < 12 * 16  # docked: a row shorter than a mark
    assert _overlapping(_marks(dock)) == 0
    window.sweep_dock.setFloating(True)
    window.sweep_dock.resize(900, 950)
    qtbot.waitUntil(lambda: dock.plot.getPlotItem().getViewBox().height() > 12 * 30, timeout=5000)
    QApplication.processEvents()
    assert all(m.isVisible() for m in _marks(dock))  # room for them: every cell marked
    assert _overlapping(_marks(dock)) == 0


def test_a_window_opened_on_a_driver_script_keys_the_drivers_path(qtbot, carbench_settings):
    """carbench --script (and a start that reopens the last session's script) loads the script before the window is
    shown. Painting the key then resized the view, whose placing of the keys laid out the text kept before: the key
    was six lines painted in the room of seven, without '- - the driver's path' while the path was drawn."""
    from PySide6.QtWidgets import QLabel

    from physics.presets import scripts_dir
    from workbench.gui.car_view import KEY_STYLE, CarView
    from workbench.gui.testing import make_window

    window = make_window("sedan", carbench_settings)
    qtbot.addWidget(window)
    window.model.load_script(str(scripts_dir() / "split_mu_braking.toml"))  # as run_app does, before show()
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    view = window.car_view
    lines = view.legend_lines
    assert "the driver's path" in lines[-1]
    fresh = QLabel()
    fresh.setStyleSheet(KEY_STYLE)
    CarView._lay_out_key(fresh, "<br>".join(lines), None)
    assert view._legend.pixmap().size() == fresh.pixmap().size()  # painted whole: seven lines


def test_a_car_chosen_on_the_sweep_chart_while_recording_says_the_recording_stopped(carbench_window, tmp_path):
    """Clicking a cell while driving on from the script (recording) replayed the chosen car and ended the recording
    without a word; Replay, and loading a script, say 'the recording stopped (... not saved yet: File > Save
    recording)'."""
    window = carbench_window
    path = tmp_path / "dock.toml"
    path.write_text(SCRIPT)
    assert window.load_script(path)
    window.model.start_recording()
    hold(window, {"throttle"}, 10)
    assert window.model.session.recording
    window._on_sweep_car_chosen({"body.mass": 900.0})
    assert not window.model.session.recording and window.model.session.recording_unsaved
    assert window.status_message.text().startswith("the recording stopped"), window.status_message.text()
