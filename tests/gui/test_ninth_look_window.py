"""The window's ninth look: the installed window driven under Xvfb (Reset all, value boxes, the refusal line)."""
from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QApplication

from workbench.gui.testing import drive


def _rerun(window, qtbot, change) -> None:
    """Make ``change`` (a callable) and wait for the loaded script's re-run to be on show."""
    with qtbot.waitSignal(window.comparer.rerun_adopted, timeout=60_000):
        change()
    QApplication.processEvents()


def test_reset_all_re_runs_the_script_as_it_is_and_replay_keeps_it(carbench_window, qtbot):
    """The clutch coast replayed, body.mass edited (the script re-run at 1,400 kg), then Reset all: the panel showed
    the preset's mass, but the plots and verdicts stayed the 1,400 kg run (Reset all changes many parameters at once,
    and the re-run took that for the script's own change), and Replay put the edit back (the edits were kept)."""
    window = carbench_window
    drive(window, "clutch_coast", chunk=240)
    session = window.model.session
    mass = session.params.get("body.mass")
    before = np.array(session.log.column("vx", 0))
    _rerun(window, qtbot, lambda: window.model.set_param("body.mass", 0.5 * mass))
    assert session.program.params.get("body.mass") == 0.5 * mass
    edited = np.array(session.log.column("vx", 0))
    assert not np.array_equal(edited, before)  # the lighter car coasts otherwise
    _rerun(window, qtbot, lambda: window.model.reset_params(None))
    assert session.params.get("body.mass") == mass and session.program.params.get("body.mass") == mass
    assert np.array_equal(np.array(session.log.column("vx", 0)), before)  # the script's own run, bit for bit
    assert window.replay()
    assert session.params.get("body.mass") == mass  # Replay does not bring the edit back
    assert session.program.params.get("body.mass") == mass


def test_an_undo_of_reset_all_re_runs_with_the_edits_back(carbench_window, qtbot):
    """Reset all is undoable; its undo changes several parameters at once, an edit the script is re-run with."""
    window = carbench_window
    drive(window, "clutch_coast", chunk=240)
    session = window.model.session
    mass, wheelbase = session.params.get("body.mass"), session.params.get("body.wheelbase")
    _rerun(window, qtbot, lambda: window.model.set_param("body.mass", 0.5 * mass))
    _rerun(window, qtbot, lambda: window.model.set_param("body.wheelbase", wheelbase + 0.2))
    _rerun(window, qtbot, lambda: window.model.reset_params(None))
    assert session.program.params.get("body.mass") == mass
    _rerun(window, qtbot, window.model.undo_stack.undo)
    assert session.program.params.get("body.mass") == 0.5 * mass
    assert session.program.params.get("body.wheelbase") == wheelbase + 0.2


def _status(window) -> str:
    panel = window.params
    return panel.status.text() if panel.status.isVisibleTo(panel) else ""


def test_a_value_typed_after_a_single_click_is_refused_with_its_reason(carbench_window, qtbot):
    """Single-click the wheelbase's box, select all, type -3, Return: the box put 2.85 back without a word (a value
    in range typed so was taken; the refusal was said only where typing began with a double-click)."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    window = carbench_window
    window.show()
    spin = window.params.rows["body.wheelbase"].editors[0].spin
    edit = spin.lineEdit()
    QTest.mouseClick(edit, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(edit.width() // 2, edit.height() // 2))
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus, timeout=1000)
    assert not spin.typing  # a single click: no typing mode
    edit.selectAll()
    qtbot.keyClicks(spin, "-3")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert window.model.session.params.body.wheelbase == 2.85
    said = _status(window)
    assert said.startswith("body.wheelbase = -3 m") and said.endswith("not changed"), said


def test_the_refusal_line_moves_no_row(carbench_window, qtbot):
    """The line saying why an edit was refused came and went above the rows, moving each by 18-35 px: a click aimed
    at the wheelbase as it went landed on lr."""
    window = carbench_window
    window.show()
    panel = window.params
    row = panel.rows["body.wheelbase"].editors[0].spin
    QApplication.processEvents()
    before = row.mapTo(window, row.rect().topLeft()).y()
    panel.show_problem("body.lr = 5 m: must be less than the wheelbase (2.85 m); not changed " * 2)
    QApplication.processEvents()
    assert panel.status.isVisible()
    assert row.mapTo(window, row.rect().topLeft()).y() == before


def test_return_on_a_value_shown_rounded_past_its_range_refuses_nothing(qtbot):
    """tyres.c's box holds at most 1.999999998 and shows it as "2": Return on it, unchanged, said "tyres.c = 2: out
    of range; not changed" (after a double-click, and after a single click once Return checked the text then too)."""
    from PySide6.QtCore import Qt

    from workbench.gui.param_panel import DragSpin

    spin = DragSpin(0.01)
    qtbot.addWidget(spin)
    spin.setDecimals(10)
    spin.setRange(0.0, 1.999999998)
    spin.setValue(1.999999998)
    assert spin.lineEdit().text() == "2"
    said = []
    spin.typed_out_of_range.connect(said.append)
    spin.typed_not_a_number.connect(said.append)
    spin.start_typing()  # (a double-click; a single click's focus does the same now)
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert said == []
    spin.start_typing()
    spin.lineEdit().setText("3")  # typed past the range: still said
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert said == [3.0]
