"""A second look at the window as a person sees it: the verdict table's headers whole at 1024x640 before a replay, the
undo stack's guard on a direct setIndex, the KPI dock's and the Scripts menu's units written as the window writes
them, the Compare and KPIs toggles with the other docks' in the View menu and Scripts before Help."""

from __future__ import annotations

from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QMessageBox

from physics.presets import cars_dir
from workbench.gui.testing import hold

SCRIPT = "presets/scripts/clutch_coast.toml"
Button = QMessageBox.StandardButton


def test_at_1024x640_the_verdict_headers_show_whole_before_a_replay(carbench_window, qtbot):
    """With the script loaded and not yet replayed (its "measured" column empty) the header read "measurec": the
    numbers' columns shared what the names left half each, less than "measured" needs."""
    window = carbench_window
    window.resize(1024, 640)
    assert window.load_script(SCRIPT)
    window.recorder_dock.raise_()
    qtbot.wait(10)
    table = window.recorder.verdicts
    header = table.header()
    assert table.topLevelItemCount() == 6 and table.viewport().width() < 400
    metrics = QFontMetrics(header.font())
    for column in (1, 2, 3, 4):
        text = table.headerItem().text(column)
        assert header.sectionSize(column) >= metrics.horizontalAdvance(text) + 6, (text, header.sectionSize(column))
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
