"""ImGui-style editing in the parameter panel: drag across a value (Shift coarse, Alt fine, Escape puts it
back, one undo step per drag), double-click or Ctrl+click to type, the row's right-click menu, the
modified marks and the group titles' counts. Mouse and keys are real events sent to the value box."""

import math

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from physics import load_preset

LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier
ALT = Qt.KeyboardModifier.AltModifier


def _spin(window, path="body.mass", i=0):
    return window.params.rows[path].editors[i].spin


def _centre(widget) -> QPoint:
    return QPoint(widget.width() // 2, widget.height() // 2)


def _move(widget, pos: QPoint, modifiers=NONE) -> None:
    """A mouse move with the left button down (QTest's mouseMove takes no modifiers)."""
    local = QPointF(pos)
    event = QMouseEvent(QEvent.Type.MouseMove, local, QPointF(widget.mapToGlobal(pos)), Qt.MouseButton.NoButton,
                        LEFT, modifiers)
    QApplication.sendEvent(widget, event)


def drag(spin, moves, modifiers=NONE, release=True) -> None:
    """Press on the value box, move by each ``dx`` in turn (pixels from the press), release."""
    edit = spin.lineEdit()
    start = _centre(edit)
    QTest.mousePress(edit, LEFT, NONE, start)
    for dx in moves:
        if modifiers == NONE:
            QTest.mouseMove(edit, start + QPoint(dx, 0))  # with the button QTest pressed
        else:
            _move(edit, start + QPoint(dx, 0), modifiers)
    if release:
        QTest.mouseRelease(edit, LEFT, NONE, start + QPoint(moves[-1] if moves else 0, 0))


def test_a_drag_changes_the_value_by_the_step_of_its_range(carbench_window):
    window = carbench_window
    params = window.model.session.params
    spin = _spin(window)
    assert spin.pixel_step == 10.0  # the mass's span (0.5 to 3000 kg) over 200 px, a round number
    assert spin.lineEdit().cursor().shape() == Qt.CursorShape.SizeHorCursor
    before = params.body.mass
    drag(spin, [5, 20, 30])
    assert window.model.session.params.body.mass == pytest.approx(before + 300.0)
    assert spin.value() == pytest.approx(before + 300.0)
    drag(spin, [-2])  # under the threshold: a click, no edit
    assert window.model.session.params.body.mass == pytest.approx(before + 300.0)
    lock = _spin(window, "steering.lock")  # shown in degrees, kept in radians
    start = lock.value()
    drag(lock, [10])
    assert lock.pixel_step == 0.2
    # 0.2 deg a pixel, the result rounded to the fine (Alt) step's digits
    assert math.degrees(window.model.session.params.steering.lock) == pytest.approx(round(start + 10 * 0.2, 2))


def test_shift_and_alt_scale_the_drag(carbench_window):
    window = carbench_window
    spin = _spin(window)
    before = window.model.session.params.body.mass
    drag(spin, [10], SHIFT)
    assert window.model.session.params.body.mass == pytest.approx(before + 1000.0)
    drag(spin, [-10], ALT)
    assert window.model.session.params.body.mass == pytest.approx(before + 1000.0 - 10.0)


def test_a_drag_stays_within_the_limits(carbench_window):
    window = carbench_window
    spin = _spin(window, "brakes.front_share")  # 0 <= share <= 1
    drag(spin, [3000], SHIFT)
    assert window.model.session.params.brakes.front_share == 1.0
    drag(spin, [-3000], SHIFT)
    assert window.model.session.params.brakes.front_share == 0.0
    mass = _spin(window)  # mass > 0: kept out of the open bound
    drag(mass, [-5000], SHIFT)
    assert 0.0 < window.model.session.params.body.mass < 0.02


def test_one_drag_is_one_undo_step(carbench_window, qtbot):
    window = carbench_window
    stack = window.model.undo_stack
    before = window.model.session.params.body.mass
    drag(_spin(window), [4, 8, 15, 30, 45, 60])
    assert stack.count() == 1
    assert window.model.session.params.body.mass == pytest.approx(before + 600.0)
    qtbot.keyClick(window.car_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.model.session.params.body.mass == before
    assert _spin(window).value() == pytest.approx(before)


def test_the_value_changes_as_the_drag_goes(carbench_window):
    window = carbench_window
    spin = _spin(window)
    before = window.model.session.params.body.mass
    drag(spin, [10], release=False)
    assert window.model.session.params.body.mass == pytest.approx(before + 100.0)  # before the release
    _move(spin.lineEdit(), _centre(spin.lineEdit()) + QPoint(20, 0))
    assert window.model.session.params.body.mass == pytest.approx(before + 200.0)
    QTest.mouseRelease(spin.lineEdit(), LEFT, NONE, _centre(spin.lineEdit()) + QPoint(20, 0))
    assert window.model.undo_stack.count() == 1


def test_escape_during_a_drag_puts_the_value_back_and_leaves_no_undo_step(carbench_window):
    window = carbench_window
    stack = window.model.undo_stack
    window.model.set_param("engine.peak_torque", 420.0)  # something already in the history
    count, text = stack.count(), stack.undoText()
    spin = _spin(window)
    before = window.model.session.params.body.mass
    drag(spin, [10, 30], release=False)
    assert window.model.session.params.body.mass == pytest.approx(before + 300.0)
    QTest.keyClick(QApplication.focusWidget() or spin, Qt.Key.Key_Escape)
    assert window.model.session.params.body.mass == before
    assert spin.value() == pytest.approx(before)
    _move(spin.lineEdit(), _centre(spin.lineEdit()) + QPoint(80, 0))  # the rest of the gesture does nothing
    QTest.mouseRelease(spin.lineEdit(), LEFT, NONE, _centre(spin.lineEdit()) + QPoint(80, 0))
    assert window.model.session.params.body.mass == before
    assert stack.count() == count and stack.undoText() == text and stack.index() == count
    window.undo_action.trigger()  # the step before the drag is still the one undone
    assert window.model.session.params.engine.peak_torque == 500.0


def test_double_click_or_ctrl_click_types_a_value(carbench_window, qtbot):
    window = carbench_window
    spin = _spin(window)
    edit = spin.lineEdit()
    QTest.mouseDClick(edit, LEFT, NONE, _centre(edit))
    assert spin.typing and edit.cursor().shape() == Qt.CursorShape.IBeamCursor
    qtbot.waitUntil(spin.hasFocus, timeout=1000)
    assert edit.selectedText() == spin.cleanText() == "1600"  # the number selected: typing replaces it
    qtbot.keyClicks(spin, "1450")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert window.model.session.params.body.mass == 1450.0
    assert not spin.typing and edit.cursor().shape() == Qt.CursorShape.SizeHorCursor
    torque = _spin(window, "engine.peak_torque")
    QTest.mouseClick(torque.lineEdit(), LEFT, Qt.KeyboardModifier.ControlModifier, _centre(torque.lineEdit()))
    assert torque.typing
    qtbot.waitUntil(torque.hasFocus, timeout=1000)
    qtbot.keyClicks(torque, "433")
    qtbot.keyClick(torque, Qt.Key.Key_Return)
    assert window.model.session.params.engine.peak_torque == 433.0


def test_a_typed_value_may_have_an_exponent(carbench_window, qtbot):
    """1.45e3 is 1450 kg (the box's own validator dropped the e: 1.453); a text that is no number yet changes
    nothing, nor does one out of range."""
    window = carbench_window
    spin = _spin(window)
    edit = spin.lineEdit()
    for typed, mass in (("1.45e3", 1450.0), ("2E3", 2000.0), ("1e", 2000.0), ("-1e3", 2000.0), ("1e99", 2000.0)):
        QTest.mouseDClick(edit, LEFT, NONE, _centre(edit))
        qtbot.waitUntil(spin.hasFocus, timeout=1000)
        qtbot.keyClicks(spin, typed)
        assert spin.cleanText() == typed  # every key kept
        qtbot.keyClick(spin, Qt.Key.Key_Return)
        assert window.model.session.params.body.mass == mass, typed
        spin.clearFocus()
        spin.setValue(spin.value())  # what leaving the box shows: the value the car has
    QTest.mouseDClick(edit, LEFT, NONE, _centre(edit))
    qtbot.waitUntil(spin.hasFocus, timeout=1000)
    qtbot.keyClicks(spin, "2x0y0")  # kept as typed (dropped, the letters made it 200), and refused with its reason
    assert spin.cleanText() == "2x0y0"
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert window.model.session.params.body.mass == 2000.0
    assert window.params.status.text() == "body.mass: '2x0y0' is not a finite number; not changed"


def test_a_typed_value_out_of_range_says_why_it_was_not_taken(carbench_window, qtbot):
    # The box put its value back without a word, where a value the model refuses (lr past the wheelbase) says why.
    from workbench.gui.param_panel import PROBLEM_SHOWN_MS

    window = carbench_window
    panel = window.params
    spin = _spin(window)
    edit = spin.lineEdit()
    for typed in ("-5", "1e9"):
        QTest.mouseDClick(edit, LEFT, NONE, _centre(edit))
        qtbot.waitUntil(spin.hasFocus, timeout=1000)
        qtbot.keyClicks(spin, typed)
        qtbot.keyClick(spin, Qt.Key.Key_Return)
        assert window.model.session.params.body.mass == 1600.0
        assert panel.status.isVisibleTo(panel)
        assert panel.status.text() == (f"body.mass = {typed.replace('1e9', '1e+09')} kg: is out of range; allowed: "
                                       "0.01 <= value <= 1e+06 kg; not changed"), panel.status.text()
        spin.clearFocus()
    assert panel._status_timer.isActive() and panel._status_timer.interval() == PROBLEM_SHOWN_MS  # then it goes
    panel._status_timer.timeout.emit()
    assert not panel.status.isVisibleTo(panel)
    # a value in range is taken, and says nothing
    QTest.mouseDClick(edit, LEFT, NONE, _centre(edit))
    qtbot.waitUntil(spin.hasFocus, timeout=1000)
    qtbot.keyClicks(spin, "1500")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert window.model.session.params.body.mass == 1500.0 and not panel.status.isVisibleTo(panel)


def _close_a_popup(tries: int = 500) -> None:
    def look(left: int) -> None:
        popup = QApplication.activePopupWidget()
        if popup is not None:
            popup.close()
        elif left:
            QTimer.singleShot(10, lambda: look(left - 1))

    QTimer.singleShot(0, lambda: look(tries))


def _menu_of(window, path, widget=None):
    """The row's menu as a right-click on ``widget`` (its value box by default) opens it."""
    widget = widget if widget is not None else _spin(window, path).lineEdit()
    before = set(window.findChildren(QMenu))
    # A menu shown modally (exec, as a plain spin box's own menu is) would wait forever: close it,
    # looking again until one is open (a modal menu may not be up yet when the event loop first runs).
    _close_a_popup()
    QApplication.sendEvent(widget, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, _centre(widget),
                                                     widget.mapToGlobal(_centre(widget))))
    menus = [m for m in window.findChildren(QMenu) if m not in before and m.isVisible()]
    assert len(menus) == 1, menus
    return menus[0]


def _action(menu, text):
    (action,) = [a for a in menu.actions() if a.text().startswith(text)]
    return action


def test_the_row_menu_resets_copies_the_path_and_sweeps(carbench_window):
    window = carbench_window
    window.model.set_param("body.mass", 1300.0)
    menu = _menu_of(window, "body.mass")
    assert [a.text() for a in menu.actions()] == ["Reset to preset (1600 kg)", "Copy path", "Sweep this",
                                                  "Compare with reference"]
    _action(menu, "Reset to preset").trigger()
    menu.close()
    assert window.model.session.params.body.mass == 1600.0
    QApplication.clipboard().clear()
    menu = _menu_of(window, "tyres.b_front", window.params.rows["tyres.b_front"].label)
    assert not _action(menu, "Reset to preset").isEnabled()  # not modified: nothing to reset
    _action(menu, "Copy path").trigger()
    menu.close()
    assert QApplication.clipboard().text() == "tyres.b_front"
    menu = _menu_of(window, "engine.peak_torque")
    _action(menu, "Sweep this").trigger()
    menu.close()
    assert window.sweep_dock.isVisible() and "engine.peak_torque" in window.sweep.axes
    menu = _menu_of(window, "model.kind", window.params.rows["model.kind"].label)
    assert not _action(menu, "Sweep this").isEnabled()  # not a number
    menu.close()


def test_compare_with_reference_pins_the_run_and_takes_the_reference_value(carbench_window):
    window = carbench_window
    window.hold({"throttle"}, 30)
    window.params.set_reference(load_preset("manual003"))
    reference = window.params.reference_preset.params.body.mass
    assert reference != window.model.session.params.body.mass
    menu = _menu_of(window, "body.mass")
    _action(menu, "Compare with reference").trigger()
    menu.close()
    assert window.model.session.params.body.mass == reference
    assert len(window.comparer.references) == 1
    assert window.compare_dock.isVisible()
    menu = _menu_of(window, "body.mass")
    assert not _action(menu, "Compare with reference").isEnabled()  # the same value now
    menu.close()


def test_group_titles_count_their_modified_values(carbench_window):
    window = carbench_window
    header = window.params.groups["tyres"][0]
    assert header.text() == "tyres"
    window.model.set_param("tyres.mu", 1.3)
    window.model.set_param("tyres.c", 1.6)
    assert header.text() == "tyres (2 modified)"
    assert window.params.groups["body"][0].text() == "body"
    window.model.reset_params(["tyres.mu"])
    assert header.text() == "tyres (1 modified)"


def test_a_modified_value_is_marked_on_its_row_and_its_box(carbench_window):
    window = carbench_window
    row = window.params.rows["body.mass"]
    assert "\u25cf" not in row.label.text() and not _spin(window).font().bold()
    drag(_spin(window), [10])
    assert "\u25cf" in row.label.text() and _spin(window).font().bold()
    assert not _spin(window, "engine.peak_torque").font().bold()
    assert row.label.toolTip().startswith("body.mass [kg]: ")  # the full name, its unit, its description


@pytest.mark.carbench_preset("manual003")
def test_a_dragged_gear_ratio_marks_only_its_own_box(carbench_window):
    window = carbench_window
    before = list(window.model.session.params.gearbox.ratios)
    second = _spin(window, "gearbox.ratios", 1)
    drag(second, [10])
    after = window.model.session.params.gearbox.ratios
    assert after[1] == pytest.approx(before[1] + 10 * second.pixel_step) and after[0] == before[0]
    assert second.font().bold() and not _spin(window, "gearbox.ratios", 0).font().bold()
    assert window.model.undo_stack.count() == 1


def test_a_drag_while_driving_is_one_edit_mark_at_its_start(carbench_window):
    from workbench.gui.testing import hold

    window = carbench_window
    model = window.model
    model.set_running(True)
    hold(window, {"throttle"}, 30)
    spin = _spin(window)
    edit = spin.lineEdit()
    start = _centre(edit)
    began = model.session.frame
    QTest.mousePress(edit, LEFT, NONE, start)
    for dx in (5, 10, 20, 30):
        QTest.mouseMove(edit, start + QPoint(dx, 0))
        hold(window, {"throttle"}, 5)  # the car drives on during the drag
    QTest.mouseRelease(edit, LEFT, NONE, start + QPoint(30, 0))
    assert len(model.edit_marks) == 1
    frame, text = model.edit_marks[0]
    assert began <= frame < began + 5 and "1900" in text
    drag(spin, [10])  # a second drag: a second mark
    assert len(model.edit_marks) == 2
