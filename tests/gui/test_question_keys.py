"""A question that comes up while the user drives does not take the driving keys for an answer."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from workbench.gui.main_window import keys_safe_question

BUTTONS = QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel


def shown(qtbot) -> tuple[QMessageBox, list]:
    """The unsaved-recording question, shown, and the list its answer goes into."""
    box = keys_safe_question(None, "Recording not saved", "Save it?", BUTTONS, QMessageBox.StandardButton.Save)
    qtbot.addWidget(box)
    finished: list = []
    box.finished.connect(finished.append)
    box.show()
    qtbot.waitExposed(box)
    return box, finished


def test_space_and_the_arrows_answer_nothing_enter_saves_escape_cancels(qtbot):
    # Record over an unsaved recording, then the handbrake at once: Space pressed the focused Save (a file dialog), or,
    # focus moved on by an arrow key, Discard.
    box, finished = shown(qtbot)
    for key in (Qt.Key.Key_Space, Qt.Key.Key_Right, Qt.Key.Key_Space, Qt.Key.Key_Left, Qt.Key.Key_Up,
                Qt.Key.Key_Space, Qt.Key.Key_Down, Qt.Key.Key_Space):
        QTest.keyClick(box.focusWidget() or box, key)  # as a key goes: to what has the focus in the box
    assert finished == [] and box.isVisible()
    assert all(b.focusPolicy() == Qt.FocusPolicy.NoFocus for b in box.buttons())
    QTest.keyClick(box, Qt.Key.Key_Escape)
    assert finished == [QMessageBox.StandardButton.Cancel]


def test_enter_answers_the_default(qtbot):
    box, finished = shown(qtbot)
    QTest.keyClick(box.focusWidget() or box, Qt.Key.Key_Return)
    assert finished == [QMessageBox.StandardButton.Save]


def test_no_letter_answers_either(qtbot):
    # A question's mnemonics answered it without Alt: N (a frame forward) answered No, which removed a crash file.
    box, finished = shown(qtbot)
    for key in (Qt.Key.Key_S, Qt.Key.Key_D, Qt.Key.Key_C, Qt.Key.Key_N, Qt.Key.Key_Y):
        QTest.keyClick(box.focusWidget() or box, key)
    assert finished == [] and all("&" not in b.text() for b in box.buttons())
