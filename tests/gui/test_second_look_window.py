"""A second look at the window as a person sees it: the verdict table's headers whole at 1024x640 before a replay, the
undo stack's guard on a direct setIndex, the KPI dock's and the Scripts menu's units written as the window writes
them, the Compare and KPIs toggles with the other docks' in the View menu and Scripts before Help."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QDockWidget, QLabel, QMessageBox

from physics.presets import cars_dir
from workbench.gui.testing import drive, hold

SCRIPT = "presets/scripts/clutch_coast.toml"
Button = QMessageBox.StandardButton


def test_at_1024x640_the_verdict_headers_show_whole_before_a_replay(carbench_window, qtbot):
    """With the script loaded and not yet replayed (its "measured" column empty) the header read "measurec": the
    numbers' columns shared what the names left half each, less than "measured" needs. (Since the sixth look the
    columns share by what they hold, the bounds' texts first: the empty "measured" column's header gives way, elided
    with an ellipsis and whole in its tooltip, never cut off; see test_sixth_look_drawing.)"""
    window = carbench_window
    window.resize(1024, 640)
    assert window.load_script(SCRIPT)
    window.recorder_dock.raise_()
    qtbot.wait(10)
    table = window.recorder.verdicts
    header = table.header()
    assert table.topLevelItemCount() == 6 and table.viewport().width() < 400
    metrics = QFontMetrics(header.font())
    for column in (1, 2, 4):
        text = table.headerItem().text(column)
        assert header.sectionSize(column) >= metrics.horizontalAdvance(text) + 6, (text, header.sectionSize(column))
    text = table.headerItem().text(3)
    if header.sectionSize(3) < metrics.horizontalAdvance(text) + 6:  # elided, not cut: "m\u2026", never "measurec"
        assert header.textElideMode() == Qt.TextElideMode.ElideRight and table.headerItem().toolTip(3) == text
    assert header.sectionViewportPosition(4) + header.sectionSize(4) <= table.viewport().width()


def test_a_direct_set_index_asks_about_the_recording_as_undo_does(carbench_window, tmp_path):
    """QUndoStack.setIndex undid a preset load past the guard: the car changed and the recording ended unasked."""
    window = carbench_window
    session, stack = window.model.session, window.model.undo_stack
    assert window.load_preset(cars_dir() / "tail_happy.toml")
    asked, answers = [], [Button.Cancel, Button.Discard]
    window.ask_recording = lambda doing: asked.append(doing) or answers.pop(0)
    window.model.start_recording()
    hold(window, {"throttle"}, 10)
    index = stack.index()

    stack.setIndex(0)  # Cancel: the stack stays, the recording runs on
    assert asked == ["load another preset"] and stack.index() == index
    assert session.recording and session.preset.name == "tail_happy"
    stack.setIndex(0)  # Discard: the preset load undone, the recording let go
    assert len(asked) == 2 and stack.index() == 0 and session.preset.name == "sedan" and not session.recording
    stack.setIndex(index)  # nothing recording: redone without a question
    assert len(asked) == 2 and stack.index() == index and session.preset.name == "tail_happy"


def test_the_kpis_and_the_scripts_menu_write_units_as_the_window_does(carbench_window, monkeypatch):
    """The KPI dock said "3.828 m/s^2" under plots and panels that say "m/s\u00b2", and the Scripts menu "Step steer at
    80 km/h to 4 m/s^2"."""
    from workbench.gui import kpi_dock
    from workbench.manoeuvres.catalogue import CATALOGUE
    from workbench.manoeuvres.kpi import Kpi

    window = carbench_window
    titles = [a.text() for a in window.scripts_menu.actions()[0].menu().actions()]
    assert len(titles) == len(CATALOGUE) and any("4 m/s\u00b2" in t for t in titles)
    assert not any("^" in t for t in titles), titles
    test = CATALOGUE["iso7401_step"]
    monkeypatch.setattr(kpi_dock, "fitting", lambda script: test)
    monkeypatch.setattr(kpi_dock.KpiDock, "_judged", staticmethod(lambda *args: [
        Kpi("ay", "steady lateral acceleration", 3.828, "m/s^2", "5.1", limit="<= 4 m/s^2", passed=True)]))
    drive(window, SCRIPT, chunk=480)
    window.kpis.update_kpis()
    assert dict(window.kpis.rows) == {"steady lateral acceleration": ["3.828 m/s\u00b2 PASS"]}
    item = window.kpis.tree.topLevelItem(0)
    assert item.text(1) == "3.828 m/s\u00b2 PASS" and item.text(2) == "<= 4 m/s\u00b2"
    assert "^" not in window.kpis.status.text() and "m/s\u00b2" in window.kpis.status.text()


def test_the_view_menu_keeps_the_docks_together_and_help_comes_last(carbench_window):
    """The Compare and KPIs toggles came after Follow camera and the help overlay, away from the other docks', and the
    Scripts menu after Help."""
    window = carbench_window
    actions = window.view_menu.actions()
    docks = [a for a in actions if any(a is d.toggleViewAction() for d in window.findChildren(QDockWidget))]
    first, last = actions.index(docks[0]), actions.index(docks[-1])
    assert len(docks) == 8 and last - first == 7, [a.text() for a in actions]
    assert actions.index(window.reset_layout_action) == last + 1
    assert actions.index(window.follow_action) > last + 1
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus[-1] == "&Help" and "S&cripts" in menus, menus


def test_the_sweep_docks_column_titles_stand_over_rows_only(carbench_window):
    """With no parameter picked the titles "parameter", "from", "to", "values" stood over nothing, spread across the
    dock above the hint that says how to pick one."""
    window = carbench_window
    dock = window.sweep
    heads = [label for label in dock.findChildren(QLabel)
             if label.text() in ("<b>parameter</b>", "<b>from</b>", "<b>to</b>", "<b>values</b>")]
    assert len(heads) == 4
    assert dock.hint.isVisibleTo(dock) and not any(h.isVisibleTo(dock) for h in heads)
    assert dock.add_axis("body.mass")
    assert not dock.hint.isVisibleTo(dock) and all(h.isVisibleTo(dock) for h in heads)
    dock.remove_axis("body.mass")
    assert dock.hint.isVisibleTo(dock) and not any(h.isVisibleTo(dock) for h in heads)
