
"""The Sweep dock: "Sweep this" from the parameter panel, a sweep off the GUI thread, its chart, and a click
that loads the car clicked into the session and replays it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QMenu

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

[[expect]]
name = "turning"
channel = "yaw_rate"
at = 1.0
min = 0.05
"""


@pytest.fixture
def loaded(carbench_window, tmp_path):
    path = tmp_path / "dock.toml"
    path.write_text(SCRIPT)
    assert carbench_window.load_script(path)
    return carbench_window


def sweep_this(window, path: str) -> None:
    """Right-click the parameter's row and choose "Sweep this"."""
    label = window.params.rows[path].label
    menu = window.params.row_menu(path, label, QPoint(2, 2))
    assert isinstance(menu, QMenu)
    (action,) = [a for a in menu.actions() if a.text() == "Sweep this"]
    action.trigger()
    menu.close()


def settle(dock):
    """The chart as a user sees it before clicking a point: the pending layout (the status line may have grown a
    line) and a paint, where pyqtgraph applies its auto-range. On a busy machine a click computed before them
    missed the point."""
    QApplication.processEvents()
    dock.plot.grab()


def run_dock(qtbot, window):
    dock = window.sweep
    assert dock.run()
    assert dock.running and not dock.run_button.isEnabled() and dock.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: not dock.running, timeout=120_000)
    assert dock.result is not None, dock.status.text()
    return dock


def test_a_heatmap_sweep_and_a_clicked_cell_become_the_sessions_parameters(qtbot, loaded, tmp_path):
    window = loaded
    sweep_this(window, "engine.peak_torque")
    sweep_this(window, "steering.lock")
    dock = window.sweep
    assert window.sweep_dock.isVisible() and list(dock.axes) == ["engine.peak_torque", "steering.lock"]
    torque, lock = dock.axes["engine.peak_torque"], dock.axes["steering.lock"]
    torque.start.setValue(30.0)
    torque.stop.lineEdit().selectAll()
    qtbot.keyClicks(torque.stop.lineEdit(), "3.3e2")  # typed, exponent and all
    qtbot.keyClick(torque.stop.lineEdit(), Qt.Key.Key_Return)
    assert torque.stop.value() == 330.0
    torque.count.setValue(3)
    lock.start.setValue(20.0)
    lock.stop.setValue(40.0)
    lock.count.setValue(2)
    run_dock(qtbot, window)
    assert dock.progress.value() == 6
    assert "cars pass every expectation" in dock.status.text()
    images = [i for i in dock.plot.getPlotItem().items if type(i).__name__ == "ImageItem"]
    assert len(images) == 1 and images[0].image.shape == (3, 2, 4)  # each cell coloured by its side
    window.sweep.grab().save(str(tmp_path / "sweep_dock.png"))
    # the pass boundary of "moving" runs on the cells' edge between the failing and the passing torques
    passed = dock.result.expect_passed[0].reshape(3, 2)
    assert not passed[1].any() and passed[2].all(), dock.result.expect_margin[0]
    (boundary,) = [i for i in dock.plot.getPlotItem().items if type(i).__name__ == "PlotCurveItem"]
    xs, _ = boundary.getData()
    assert set(np.round(xs, 9)) == {255.0}  # half-way between 180 and 330 N m: the cells' edge
    green = images[0].image[2, 0, :3]
    assert green[1] > green[0] and images[0].image[1, 0, 0] > images[0].image[1, 0, 1]  # passing green, failing red
    vb = dock.plot.getPlotItem().vb

    # click the cell of torque 180 N m, lock 40 deg (car 4 in product order)
    chosen = []
    dock.car_chosen.connect(chosen.append)
    settle(dock)
    scene_point = vb.mapViewToScene(dock.cell_position(3))
    widget_point = dock.plot.mapFromScene(scene_point)
    qtbot.mouseClick(dock.plot.viewport(), Qt.MouseButton.LeftButton, pos=widget_point)
    assert chosen == [{"engine.peak_torque": 180.0, "steering.lock": math.radians(40.0)}]
    params = window.model.session.params
    assert params.engine.peak_torque == 180.0 and params.steering.lock == math.radians(40.0)
    assert window.model.session.replaying  # the script replays on the chosen car
    # The car's values are edits not saved: closing asks (replay() took them for the script's own, and Ctrl+Q
    # quit without asking, the edits lost).
    assert window.model.modified
    window.model.advance(30)
    assert window.model.modified


def test_a_line_sweep_can_be_cancelled_and_run_again(qtbot, loaded):
    window = loaded
    sweep_this(window, "body.mass")
    dock = window.sweep
    dock.axes["body.mass"].count.setValue(4)
    assert dock.run()
    dock.cancel()
    qtbot.waitUntil(lambda: not dock.running, timeout=120_000)
    assert dock.run_button.isEnabled()
    if dock.result is None:
        assert dock.status.text() == "cancelled"
    run_dock(qtbot, window)
    curves = [i for i in dock.plot.getPlotItem().items if type(i).__name__ == "PlotDataItem"]
    assert [c.name() for c in curves] == ["moving [km/h]"]  # the first unit's margins; deg/s is the other choice
    chosen = []
    dock.car_chosen.connect(chosen.append)
    vb = dock.plot.getPlotItem().vb
    settle(dock)
    point = dock.plot.mapFromScene(vb.mapViewToScene(dock.cell_position(2)))  # the third car's point
    qtbot.mouseClick(dock.plot.viewport(), Qt.MouseButton.LeftButton, pos=point)
    mass = dock.result.plan.si_values()[2, 0]
    assert chosen == [{"body.mass": mass}]
    assert window.model.session.params.body.mass == mass
    assert dock.chosen == 2  # the clicked point is ringed
    # Another script loaded: the chart still shows this sweep, but a car of it no longer drives (its values were
    # swept on another script and car: they drove the manual car's clutch coast with this sweep's mass)
    from physics.presets import scripts_dir

    assert window.load_script(scripts_dir() / "clutch_coast.toml")
    dock.choose_car(1)
    assert len(chosen) == 1 and "run the sweep again" in dock.status.text()
    assert window.model.session.params.body.mass != dock.result.plan.si_values()[1, 0]


@pytest.mark.parametrize("recording", [False, True])
def test_a_car_chosen_with_an_earlier_frame_on_show_replays_from_frame_0_and_drives_on_from_nothing(qtbot, loaded,
                                                                                                   recording):
    """A car picked on the chart with an earlier frame on show was an edit there: the drive went on from that frame
    (a question about the last recording, a second reference "before frame N", a recording stopped), and on the
    question's Cancel the run was pinned and the dock ringed a car not loaded (a review under Xvfb)."""
    from workbench.gui.testing import hold

    window = loaded
    model, session, dock = window.model, window.model.session, window.sweep
    sweep_this(window, "body.mass")
    dock.axes["body.mass"].count.setValue(3)
    run_dock(qtbot, window)
    asked = []
    window._confirm_recording = lambda doing: asked.append(doing) or False  # a question's Cancel
    window.comparer.confirm_recording = window._confirm_recording
    if recording:  # a recording running, paused on an earlier frame of it
        model.start_recording()
    hold(window, {"throttle"}, 60)
    model.set_running(False)
    model.set_view_frame(session.log.frames - 30)
    assert model.view_frame is not None
    names = [r.name for r in window.comparer.references.items]
    dock.choose_car(1)
    mass = dock.result.plan.si_values()[1, 0]
    assert asked == []  # nothing to ask: no drive goes on from the frame
    new = [r.name for r in window.comparer.references.items][len(names):]
    assert len(new) == 1 and "before frame" not in new[0]  # the run on show, pinned once
    assert session.params.body.mass == mass and dock.chosen == 1
    assert session.replaying and model.view_frame is None and not session.recording


def test_a_chosen_cars_values_are_taken_at_once_one_step_of_the_history(loaded):
    """Checked together, then set one at a time: a rule across two of them (lr less than the wheelbase) refused the
    mix of the new lr and the old wheelbase half-way, after the run was pinned (a review)."""
    from workbench.gui.testing import hold

    window = loaded
    model, session = window.model, window.model.session
    hold(window, {"throttle"}, 30)  # a run on show, to pin
    assert session.params.body.wheelbase < 2.9  # the script's car: lr 2.9 alone would pass its wheelbase
    steps = model.undo_stack.count()
    refs = len(window.comparer.references)
    window._on_sweep_car_chosen({"body.lr": 2.9, "body.wheelbase": 3.2})
    assert not window.shown_errors, window.shown_errors
    assert session.params.body.lr == 2.9 and session.params.body.wheelbase == 3.2
    assert model.undo_stack.count() == steps + 1 and len(window.comparer.references) == refs + 1
    assert session.replaying
    window._on_sweep_car_chosen({"body.lr": 3.5, "body.wheelbase": 3.0})  # refused: nothing moves
    assert [t for t, _ in window.shown_errors] == ["Car not loaded"]
    assert session.params.body.lr == 2.9 and len(window.comparer.references) == refs + 1


def _texts(dock) -> list[str]:
    return [i.toPlainText() for i in dock.plot.getPlotItem().items if type(i).__name__ == "TextItem"]


def test_a_line_sweep_shows_its_margins_in_display_units(qtbot, loaded):
    window = loaded
    sweep_this(window, "body.mass")
    dock = window.sweep
    # Before a sweep: no axes (an empty grid of 0.2 .. 0.8 read as an outcome), a line saying what comes there
    item = dock.plot.getPlotItem()
    assert not item.getAxis("left").isVisible() and not item.getAxis("bottom").isVisible()
    assert any("once the sweep has run" in text for text in _texts(dock))
    dock.axes["body.mass"].count.setValue(3)
    run_dock(qtbot, window)
    assert item.getAxis("left").isVisible() and item.getAxis("bottom").isVisible() and not _texts(dock)
    # Never two units on one axis: the margins in km/h and those in deg/s are two choices, each on its own axis.
    choice = dock.expect_choice
    assert not choice.isHidden()
    assert [choice.itemText(i) for i in range(choice.count())] == ["margins in km/h", "margins in deg/s"]
    expects = [x.label() for x in dock.result.plan.program.script.expects]
    for index, (unit, label, to_display) in enumerate((("km/h", "moving", 1.0), ("deg/s", "turning", math.degrees(1.0)))):
        choice.setCurrentIndex(index)
        curves = {i.name(): i for i in dock.plot.getPlotItem().items if type(i).__name__ == "PlotDataItem"}
        assert list(curves) == [f"{label} [{unit}]"]
        left = dock.plot.getPlotItem().getAxis("left")
        assert f"[{unit}]" in left.labelText
        settle(dock)
        assert left.label.boundingRect().width() <= dock.plot.getPlotItem().getViewBox().height()  # whole, unit too
        si = dock.result.expect_margin[expects.index(label)]
        assert np.allclose(curves[f"{label} [{unit}]"].getData()[1], si * to_display)
        points = [i for i in dock.plot.getPlotItem().items if type(i).__name__ == "ScatterPlotItem"]
        assert len(points) == 1 and np.allclose(points[0].getData()[1], si * to_display)
        assert dock.cell_position(1).y() == pytest.approx(si[1] * to_display)  # a chosen car is ringed on this line
        # the key is under the chart, never over its points
        assert dock.plot.getPlotItem().legend is None
        assert dock.legend.isVisible() and dock.legend.y() >= dock.plot.geometry().bottom()
        assert f"{label} [{unit}]" in dock.legend.text() and len(dock.legend.text().split("&#9632;")) == 2


@pytest.mark.parametrize("size", [(1024, 640), (1500, 900), (2560, 1440)])
def test_the_sweep_chart_fits_the_dock_at_every_window_size(carbench_window, qtbot, size):
    from workbench.gui.sweep_dock import CHART_MIN

    window = carbench_window
    window.resize(*size)
    assert window.load_script("presets/scripts/clutch_coast.toml")  # six expectations: a long key
    window.show_sweep_dock()
    dock = window.sweep
    dock.add_axis("body.mass")
    dock.axes["body.mass"].count.setValue(3)
    run_dock(qtbot, window)
    window.resize(*size)
    qtbot.wait(20)
    scroll = window.sweep_dock.widget()
    viewport = scroll.viewport()
    assert window.width() == size[0] and not scroll.horizontalScrollBar().isVisible(), dock.width()
    assert dock.width() <= viewport.width()
    for widget in (dock.status, dock.run_button, dock.cancel_button, dock.axes["body.mass"].remove):
        right = widget.mapTo(viewport, widget.rect().topRight()).x()
        assert right < viewport.width(), widget
    chart = dock.plot.geometry()
    assert dock.plot.mapTo(viewport, dock.plot.rect().bottomLeft()).y() < viewport.height(), (chart, viewport.size())
    assert chart.height() >= (CHART_MIN if size[0] < 2000 else 3 * CHART_MIN)  # it grows with the dock
    if not scroll.verticalScrollBar().isVisible():  # everything fits: the chart takes the room that is left
        assert dock.legend.geometry().bottom() >= dock.height() - 8
    # every point is inside the chart's view (none cut at its edges), and the key is under the chart
    vb = dock.plot.getPlotItem().vb
    (x0, x1), (y0, y1) = vb.viewRange()
    for item in dock.plot.getPlotItem().items:
        if type(item).__name__ == "ScatterPlotItem":
            xs, ys = item.getData()
            assert (x0 <= xs).all() and (xs <= x1).all() and (y0 <= ys).all() and (ys <= y1).all()
    assert dock.legend.y() >= chart.bottom()


def test_view_sweep_shows_the_dock_tabbed_behind_the_recorder_as_sweep_this_does(carbench_window):
    # Shown by the View menu where Qt had put it, it was stacked under the recorder: its chart 20 px tall.
    window = carbench_window
    window.sweep_dock.toggleViewAction().trigger()
    assert window.sweep_dock.isVisible()
    assert window.sweep_dock in window.tabifiedDockWidgets(window.recorder_dock)
    window.sweep_dock.toggleViewAction().trigger()  # hidden, then shown again: still there
    window.sweep_dock.toggleViewAction().trigger()
    assert window.sweep_dock in window.tabifiedDockWidgets(window.recorder_dock)
    window.reset_layout()  # and after View > Reset layout too
    window.sweep_dock.toggleViewAction().trigger()
    assert window.sweep_dock.isVisible() and window.sweep_dock in window.tabifiedDockWidgets(window.recorder_dock)
    # Put elsewhere by the user, it is shown there again, by the menu and by "Sweep this"
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, window.sweep_dock)
    assert window.dockWidgetArea(window.sweep_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    for show in (lambda: window.sweep_dock.toggleViewAction().trigger(), window.show_sweep_dock):
        window.sweep_dock.toggleViewAction().trigger()  # hidden
        assert not window.sweep_dock.isVisible()
        show()
        assert window.sweep_dock.isVisible()
        assert window.dockWidgetArea(window.sweep_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
        assert window.sweep_dock not in window.tabifiedDockWidgets(window.recorder_dock)


def test_without_a_script_or_a_parameter_the_dock_says_what_to_do(carbench_window):
    dock = carbench_window.sweep
    assert not dock.run() and "load a script" in dock.status.text()
    assert not dock.add_axis("model.kind") and "cannot be swept" in dock.status.text()


def test_run_waits_for_a_parameter_to_sweep(qtbot, loaded):
    """With no parameter picked, a click on Run said under the hint what the hint above it already said: Run is off
    (its tooltip says why) until a parameter is picked, and off again once the last one is taken out."""
    window = loaded
    dock = window.sweep
    assert not dock.run_button.isEnabled() and "pick a parameter" in dock.run_button.toolTip()
    assert dock.hint.isVisibleTo(dock)
    sweep_this(window, "body.mass")
    assert dock.run_button.isEnabled() and "pick a parameter" not in dock.run_button.toolTip()
    dock.remove_axis("body.mass")
    assert not dock.run_button.isEnabled() and dock.hint.isVisibleTo(dock)
    sweep_this(window, "body.mass")
    run_dock(qtbot, window)  # off while it runs
    assert dock.run_button.isEnabled()
    dock.remove_axis("body.mass")
    sweep_this(window, "engine.peak_torque")
    assert dock.run_button.isEnabled()
    window.model.load_preset("classic")  # a car with no engine: the parameter goes, and Run with it
    assert not dock.axes and not dock.run_button.isEnabled() and dock.hint.isVisibleTo(dock)


def test_a_refusal_goes_with_the_parameter_whose_box_refused(qtbot, loaded):
    """A value a box refused held the next Run back ("not run: Run again sweeps the values the boxes show"), even
    once that parameter was taken out and another picked: the refusal named a parameter no longer in the dock."""
    window = loaded
    dock = window.sweep
    sweep_this(window, "body.mass")
    dock.refuse_typed("body.mass from: '1,5' is not a finite number; kept 840 kg")
    dock.remove_axis("body.mass")
    assert dock.status.text() == ""
    sweep_this(window, "body.wheelbase")
    run_dock(qtbot, window)


def test_a_script_with_no_expectations_is_not_swept_in_the_dock(carbench_window, tmp_path):
    # It ran, said "25 of 25 cars pass every expectation ... click a point or cell", drew an empty chart, and a click
    # on it raised AttributeError in the slot (no cell size was ever set).
    window = carbench_window
    path = tmp_path / "noexp.toml"
    path.write_text(SCRIPT.split("[[expect]]")[0])
    assert window.load_script(path)
    sweep_this(window, "body.mass")
    sweep_this(window, "body.wheelbase")
    dock = window.sweep
    assert not dock.run() and not dock.running
    assert dock.status.text().startswith("dock-launch has no expectations: the dock charts each car's margin")
    assert dock.result is None


def test_a_sweep_that_ends_after_another_script_came_says_its_cars_cannot_be_driven(qtbot, loaded, tmp_path):
    # It invited a click ("click a point or cell to drive that car") that was then refused.
    window = loaded
    sweep_this(window, "engine.peak_torque")
    sweep_this(window, "steering.lock")
    dock = window.sweep
    for axis in dock.axes.values():
        axis.count.setValue(2)
    assert dock.run()
    other = tmp_path / "other.toml"
    other.write_text(SCRIPT.replace('name = "dock-launch"', 'name = "another"'))
    assert window.load_script(other)
    qtbot.waitUntil(lambda: not dock.running, timeout=120_000)
    assert dock.status.text().endswith("this chart is of the sweep of dock-launch, and another is loaded now: run "
                                       "the sweep again.")
    chosen = []
    dock.car_chosen.connect(chosen.append)
    settle(dock)
    vb = dock.plot.getPlotItem().vb
    point = dock.plot.mapFromScene(vb.mapViewToScene(dock.cell_position(0)))
    qtbot.mouseClick(dock.plot.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert chosen == [] and "run the sweep again" in dock.status.text()


def test_a_sweeps_time_is_said_in_a_unit_that_shows_it():
    from workbench.gui.sweep_dock import _seconds

    assert [_seconds(s) for s in (0.0004, 0.012, 0.9994, 0.9996, 3.44, 125.0)] == \
        ["0 ms", "12 ms", "999 ms", "1.0 s", "3.4 s", "125.0 s"]


def test_a_heatmap_axis_in_small_units_reads_in_its_unit(qtbot, loaded):
    # cg_height from 0.385 to 0.715 m: pyqtgraph's own SI prefix read it as 400 .. 700 with "(x0.001)" on a title
    # too long to show; the ticks are in metres, and a title that does not fit keeps its unit.
    window = loaded
    sweep_this(window, "engine.peak_torque")
    sweep_this(window, "body.cg_height")
    dock = window.sweep
    height = dock.axes["body.cg_height"]
    height.start.setValue(0.385)
    height.stop.setValue(0.715)
    height.count.setValue(2)
    dock.axes["engine.peak_torque"].count.setValue(2)
    run_dock(qtbot, window)
    settle(dock)
    left = dock.plot.getPlotItem().getAxis("left")
    assert left.autoSIPrefixScale == 1.0 and dock.plot.getPlotItem().getAxis("bottom").autoSIPrefixScale == 1.0
    low, high = left.range
    assert 0.0 < low < 0.385 and 0.715 < high < 1.0  # the axis spans the cells, in metres
    assert left.tickStrings([0.4, 0.6], left.autoSIPrefixScale, 0.2) == ["0.4", "0.6"]
    title = left.labelText
    # its unit whole, and what room is left for its own name (the group dropped first): "cg... [m]" or "... [m]"
    assert title.endswith(" [m]"), title
    name = title.removesuffix(" [m]")
    # (whole where a heatmap's least height leaves the room: HEATMAP_MIN)
    assert name in ("body.cg_height", "cg_height") or (name.endswith("\u2026") and "cg_height".startswith(name[:-1])), \
        title
    room = dock.plot.getPlotItem().getViewBox().height()
    assert left.label.boundingRect().width() <= room  # as drawn: its text item's margins too (else cut, "margin [k")


def test_the_boxes_hold_only_values_the_sweep_takes_and_a_refusal_speaks_of_the_boxes(loaded):
    """The mass boxes went down to 0.0 (its least 0.01 kg rounded at one decimal) and the lock's to its open 0: the
    sweep refused them only on Run, in the command line's words (--param ..., HI, LO)."""
    from workbench.runs.sweep_axes import range_problem

    window = loaded
    dock = window.sweep
    params = window.model.session.params
    for path in ("body.mass", "steering.lock"):
        sweep_this(window, path)
        row = dock.axes[path]
        info = params.info(path)
        for end in (row.start.minimum(), row.stop.maximum()):
            si = end / row.factor
            assert range_problem(info, si) is None, (path, end)
    mass = dock.axes["body.mass"]
    mass.start.setValue(1000.0)
    mass.stop.setValue(1000.0)
    assert not dock.run()
    text = dock.status.text()
    assert text.startswith("body.mass: ") and "'to' (1000) must be above 'from' (1000)" in text, text
    assert "--param" not in text


def test_a_removed_axis_leaves_nothing_drawn_where_it_was(carbench_window):
    window = carbench_window
    assert window.load_script("presets/scripts/clutch_coast.toml")
    window.show_sweep_dock()
    dock = window.sweep
    assert dock.add_axis("body.mass") and dock.add_axis("steering.lock")
    QApplication.processEvents()
    widgets = list(dock.axes["body.mass"].widgets)
    dock.remove_axis("body.mass")
    QApplication.processEvents()  # not the event loop: the widgets are not deleted yet
    assert widgets and not any(w.isVisible() for w in widgets)
    assert all(w.isVisible() for w in dock.axes["steering.lock"].widgets)


def test_a_chart_of_one_recording_does_not_drive_another(carbench_window, qtbot):
    """Every recording's script is "<recording ...>" on the car on show: the chart of a sweep of one recording took a
    second recording for the one it swept, and a car clicked on it drove the second on values swept on the first (a
    review). Scripts with no file are told apart by the session's count of its scripts."""
    from workbench.gui.testing import hold
    from workbench.runs.sweep import plan_sweep

    window = carbench_window
    session, dock = window.model.session, window.sweep
    window.model.start_recording()
    hold(window, {"throttle"}, 20)
    window.recorder.stop.click()
    first = session.program_to_replay()
    assert first.script.source.startswith("<recording")
    plan = plan_sweep(first, ["tyres.mu=0.8,0.9"])
    dock._result_serial = session.script_serial  # as a sweep of it that ended now keeps it
    assert dock._stale(plan) == ""
    window.model.start_recording()
    hold(window, {"left"}, 35)
    window.recorder.stop.click()
    second = session.program_to_replay()
    assert second.script.source == first.script.source and second.script is not first.script
    assert dock._stale(plan).endswith("run the sweep again")


def test_a_handling_tests_script_is_swept_on_the_standards_limits_as_the_command_sweeps_it(carbench_window, qtbot):
    """r140_sine_dwell swept over stability control off and on in the dock: "2 of 2 cars pass every expectation", the
    car without it at a yaw-rate ratio of 151% (FMVSS 126 S5.2.1: at most 35%). The dock runs the test as
    `carbench sweep` does, and says 1 of 2 pass every expectation and KPI limit."""
    from physics.presets import scripts_dir

    window = carbench_window
    assert window.load_script(scripts_dir() / "r140_sine_dwell.toml")
    window.model.set_param("steering.rate", 1.4)  # the robot's 270 deg run followed (the keys' 1.2 holds it back)
    dock = window.sweep
    assert dock.add_axis("aids.esc")
    row = dock.axes["aids.esc"]
    row.start.setValue(0)
    row.stop.setValue(1)
    row.count.setValue(2)
    dock = run_dock(qtbot, window)
    result = dock.result
    assert result.plan.values[:, 0].tolist() == [0.0, 1.0]
    assert result.expect_passed.all()  # the script's own expectation: both cars
    assert result.all_passed.tolist() == [False, True]
    assert dock.status.text().startswith("1 of 2 cars pass every expectation and KPI limit")
    # The chart says it too: the car past the limit drawn hollow, as failing (both were filled: its expectation held).
    import pyqtgraph as pg

    (points,) = [i for i in dock.plot.getPlotItem().items if isinstance(i, pg.ScatterPlotItem)]
    fills = [spot.brush().color().name() for spot in points.points()]
    assert fills[0] == "#ffffff" and fills[1] != "#ffffff"


def test_the_hint_to_load_a_script_goes_once_one_is_loaded(carbench_window, tmp_path):
    """Run with no script said "load a script first (File -> Load script)", and it stayed under "script: rec1" once a
    recording or a script came in."""
    window = carbench_window
    dock = window.sweep
    sweep_this(window, "body.mass")
    assert not dock.run() and dock.status.text().startswith("load a script first")
    path = tmp_path / "dock.toml"
    path.write_text(SCRIPT)
    assert window.load_script(path)
    assert dock.script_label.text() == "script: dock-launch" and dock.status.text() == ""


def test_a_chosen_car_replays_as_the_sweep_ran_it_through_the_scripts_sets():
    """The clutch coast with its peak torque set at 1 s (and, in a second sweep, its mass too), swept over the mass: a
    car chosen on the chart started with its mass and went back to the script's whole car at 1 s, its mass with it
    (13.66 km/h where the sweep's row read 20.01). It replays the sweep's row to the bit."""
    from physics.presets import scripts_dir
    from workbench.gui.sweep_dock import program_with
    from workbench.runs.replay import replay
    from workbench.runs.sweep import plan_sweep, run_sweep
    from workbench.scripts.format import parse_script
    from workbench.scripts.program import compile_script

    base = (scripts_dir() / "clutch_coast.toml").read_text(encoding="utf-8")
    for sets in ('"engine.peak_torque" = 300.0', '"engine.peak_torque" = 300.0, "body.mass" = 2500.0'):
        program = compile_script(parse_script(base + f"\n[[set]]\nat = 1.0\nparams = {{ {sets} }}\n", "set.toml"))
        plan = plan_sweep(program, ["body.mass=900,1600"])
        result = run_sweep(plan)
        for i, row in enumerate(plan.si_values()):
            (run,) = replay([program_with(program, {"body.mass": float(row[0])})])
            assert [v.measured for v in run.verdicts] == result.expect_value[:, i].tolist()
        assert result.expect_value[0, 0] != result.expect_value[0, 1]


def test_a_whole_number_parameter_is_charted_as_its_cars_alone(qtbot, carbench_window, tmp_path):
    """ABS off and on swept in the dock: a line from 0 to 1 drew cars that are not there, as `sweep --plot` did."""
    window = carbench_window
    path = tmp_path / "sedan.toml"
    path.write_text(SCRIPT.replace('preset = "manual003"', 'preset = "sedan"'))
    assert window.load_script(path)
    sweep_this(window, "brakes.abs")
    row = window.sweep.axes["brakes.abs"]
    row.start.setValue(0.0)
    row.stop.setValue(1.0)
    row.count.setValue(2)
    dock = run_dock(qtbot, window)
    items = dock.plot.getPlotItem().items
    assert not [i for i in items if type(i).__name__ == "PlotDataItem"]  # no line between the two cars
    points = [i for i in items if type(i).__name__ == "ScatterPlotItem"]
    assert points and sorted(points[0].data["x"].tolist()) == [0.0, 1.0]


def braking_stop_dock(window, size, *paths):
    """The window at ``size`` with braking_stop loaded and its Sweep dock sweeping ``paths``, three values each."""
    window.resize(*size)
    assert window.load_script("presets/scripts/braking_stop.toml")
    window.show_sweep_dock()
    dock = window.sweep
    for path in paths:
        assert dock.add_axis(path)
        dock.axes[path].count.setValue(3)
    return dock


def test_a_heatmap_in_a_short_dock_keeps_a_readable_height_and_is_scrolled_into_view(carbench_window, qtbot):
    """At 1024 x 640 a 12 x 12 heatmap got the 40 px the form left: a strip, its boundary unseen, its ticks over each
    other. A heatmap asks for HEATMAP_MIN, and the dock scrolls to it when the sweep ends."""
    from workbench.gui.sweep_dock import CHART_MIN, HEATMAP_MIN

    window = carbench_window
    dock = braking_stop_dock(window, (1024, 640), "brakes.force", "body.mass")
    run_dock(qtbot, window)
    qtbot.wait(20)
    viewport = window.sweep_dock.widget().viewport()
    assert dock.plot.height() >= HEATMAP_MIN
    top = dock.plot.mapTo(viewport, dock.plot.rect().topLeft()).y()
    assert 0 <= top and top + dock.plot.height() <= viewport.height() + 1  # in view
    dock.remove_axis("body.mass")
    run_dock(qtbot, window)
    assert dock.plot.minimumHeight() == CHART_MIN  # one axis: a line needs less


def test_the_scroll_to_the_chart_happens_at_the_sweeps_end_and_never_later(carbench_window, qtbot):
    """A connection to the scroll range, left armed where the sweep's end changed nothing, scrolled the dock down at a
    resize long after (its Run and Cancel row cut off), one more connection a sweep."""
    from PySide6.QtCore import SIGNAL

    window = carbench_window
    dock = braking_stop_dock(window, (1400, 900), "body.mass")
    bar = window.sweep_dock.widget().verticalScrollBar()
    listening = bar.receivers(SIGNAL("rangeChanged(int,int)"))
    for _ in range(2):
        run_dock(qtbot, window)
        qtbot.wait(50)
    assert bar.receivers(SIGNAL("rangeChanged(int,int)")) == listening
    dock.add_axis("brakes.force")
    dock.add_axis("engine.peak_torque")
    qtbot.wait(50)
    QApplication.processEvents()
    assert bar.value() == 0
    window.resize(1024, 640)
    qtbot.wait(50)
    QApplication.processEvents()
    assert bar.value() == 0
