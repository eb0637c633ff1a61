"""Keys and editing in the window: real key events, with the focus moved between widgets."""

import math

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QKeyEvent, QWheelEvent
from PySide6.QtWidgets import QApplication

from workbench.gui.testing import hold


def _spin(window, path="body.mass", i=0):
    return window.params.rows[path].editors[i].spin


def _focus(qtbot, widget):
    widget.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(widget.hasFocus, timeout=1000)


@pytest.mark.carbench_preset("manual003")  # the values below are 003's car's
def test_throttle_held_in_the_car_view_lets_go_after_typing_in_a_spin_box(carbench_window, qtbot):
    window = carbench_window
    _focus(qtbot, window.car_view)
    qtbot.keyPress(window.car_view, Qt.Key.Key_Up)
    assert window.model.keys == {"throttle"}
    spin = _spin(window)
    qtbot.mouseClick(spin, Qt.MouseButton.LeftButton)
    _focus(qtbot, spin)
    # the key is still physically down: its auto-repeats land on the spin box and must not step it
    QApplication.sendEvent(spin, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Up, Qt.KeyboardModifier.NoModifier,
                                           "", True))
    assert spin.value() == pytest.approx(1200.0)
    spin.selectAll()
    qtbot.keyClicks(spin, "1300")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    qtbot.keyRelease(spin, Qt.Key.Key_Up)
    assert window.model.session.params.body.mass == pytest.approx(1300.0)
    assert window.model.keys == set()
    window.model.advance(120)
    assert window.model.session.log.column("throttle")[-1] == 0.0


def test_a_release_with_the_focus_elsewhere_still_releases(carbench_window, qtbot):
    window = carbench_window
    _focus(qtbot, window.car_view)
    qtbot.keyPress(window.car_view, Qt.Key.Key_Left)
    assert "left" in window.model.keys
    qtbot.keyRelease(window.plots.window, Qt.Key.Key_Left)
    QApplication.processEvents()  # the events queued with the release handled (a repeat's press would be among them)
    assert window.model.keys == set()


def test_keys_let_go_when_the_focus_moves_or_the_window_deactivates(carbench_window, qtbot):
    window = carbench_window
    _focus(qtbot, window.car_view)
    qtbot.keyPress(window.car_view, Qt.Key.Key_Up)
    _focus(qtbot, _spin(window))
    assert window.model.keys == set()
    _focus(qtbot, window.car_view)
    qtbot.keyPress(window.car_view, Qt.Key.Key_Down)
    assert window.model.keys == {"brake"}
    QApplication.sendEvent(window, QEvent(QEvent.Type.WindowDeactivate))
    assert window.model.keys == set()


def _wheel(widget, notches=3):
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(centre, widget.mapToGlobal(centre), QPoint(0, 0), QPoint(0, -120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


@pytest.mark.carbench_preset("manual003")  # the values below are 003's car's
def test_the_wheel_scrolls_the_panel_over_an_unfocused_spin_box_or_slider(carbench_window, qtbot):
    window = carbench_window
    window.resize(1024, 640)
    qtbot.wait(10)
    _focus(qtbot, window.car_view)
    spin = _spin(window)
    slider = window.params.rows["body.wheelbase"].editors[0].slider
    before = slider.value()
    bar = window.params._scroll.verticalScrollBar()
    assert bar.maximum() > 0
    _wheel(spin)
    _wheel(slider)
    assert window.model.session.params.body.mass == 1200.0
    assert slider.value() == before
    assert window.model.session.params.body.wheelbase == pytest.approx(2.6)
    assert bar.value() > 0  # the panel scrolled instead
    _focus(qtbot, spin)
    _wheel(spin, 1)
    assert window.model.session.params.body.mass != 1200.0  # focused: the wheel edits


def test_a_key_with_a_modifier_never_drives(carbench_window, qtbot):
    window = carbench_window
    _focus(qtbot, window.car_view)
    qtbot.keyPress(window.car_view, Qt.Key.Key_C)
    assert window.model.keys == {"clutch"}
    hold(window, {"clutch"}, 60)
    window.model.press("clutch")
    gear = window.model.session.log.column("gear")[-1]
    qtbot.keyPress(window.car_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert "gear_down" not in window.model.keys
    window.model.advance(30)
    assert window.model.session.log.column("gear")[-1] == gear
    qtbot.keyPress(window.car_view, Qt.Key.Key_Up, Qt.KeyboardModifier.ShiftModifier)
    assert "throttle" not in window.model.keys


def test_reset_during_a_recording_asks_first(carbench_window, qtbot):
    window = carbench_window
    asked = []
    window.ask_yes_no = lambda title, text: asked.append(title) or False
    window.model.start_recording()
    hold(window, set(), 121)
    _focus(qtbot, window.car_view)
    qtbot.keyClick(window.car_view, Qt.Key.Key_R)
    assert asked == ["Restart the recording?"]
    assert window.model.session.log.frames == 121  # "No": nothing lost
    window.ask_yes_no = lambda title, text: True
    qtbot.keyClick(window.car_view, Qt.Key.Key_R)
    assert window.model.session.log.frames == 0 and window.model.session.recording
    window.model.stop_recording()
    hold(window, set(), 10)
    window.ask_yes_no = lambda title, text: pytest.fail("asked without a recording")
    qtbot.keyClick(window.car_view, Qt.Key.Key_R)
    assert window.model.session.log.frames == 0


@pytest.mark.parametrize("key", [Qt.Key.Key_Up, Qt.Key.Key_Right])
def test_a_focused_slider_keeps_the_arrows(carbench_window, qtbot, key):
    window = carbench_window
    slider = window.params.rows["engine.peak_torque"].editors[0].slider
    _focus(qtbot, slider)
    before = slider.value()
    qtbot.keyPress(slider, key)
    assert window.model.keys == set()
    assert slider.value() > before
    assert window.model.session.params.engine.peak_torque > 350.0


def test_a_focused_spin_box_keeps_the_arrows(carbench_window, qtbot):
    window = carbench_window
    spin = _spin(window)
    _focus(qtbot, spin)
    qtbot.keyPress(spin, Qt.Key.Key_Up)
    assert window.model.keys == set()
    assert window.model.session.params.body.mass > 1200.0


def test_typing_a_decimal_point_in_a_spin_box_does_not_step_the_car(carbench_window, qtbot):
    window = carbench_window
    hold(window, {"throttle"}, 30)
    window.model.set_running(False)
    frames = window.model.session.log.frames
    spin = _spin(window, "engine.peak_torque")
    _focus(qtbot, spin)
    spin.selectAll()
    qtbot.keyClicks(spin, "412.5")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert window.model.session.params.engine.peak_torque == pytest.approx(412.5)
    assert window.model.session.log.frames == frames and window.model.view_frame in (None, frames - 1)


@pytest.mark.carbench_preset("manual003")  # the values below are 003's car's
def test_undo_and_redo_parameter_edits_resets_and_preset_loads(carbench_window, qtbot):
    window = carbench_window
    model = window.model
    _spin(window).setValue(1300.0)
    _spin(window, "engine.peak_torque").setValue(420.0)
    _focus(qtbot, window.car_view)
    qtbot.keyClick(window.car_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert model.session.params.engine.peak_torque == 350.0 and model.session.params.body.mass == 1300.0
    assert _spin(window, "engine.peak_torque").value() == pytest.approx(350.0)
    assert window.undo_action.text() == "Undo body.mass = 1300 kg"  # in the unit the panel shows
    assert window.redo_action.text() == "Redo engine.peak_torque = 420 N m"
    qtbot.keyClick(window.car_view, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert model.session.params.engine.peak_torque == 420.0
    window.params.rows["body.mass"].reset.click()
    assert model.session.params.body.mass == 1200.0
    window.undo_action.trigger()
    assert model.session.params.body.mass == 1300.0
    window.load_preset("parking")
    assert model.session.preset.name == "parking"
    window.undo_action.trigger()
    assert model.session.preset.name == "manual003"
    assert model.session.params.body.mass == 1300.0 and model.session.params.engine.peak_torque == 420.0
    assert "body.mass" in window.params.rows
    window.redo_action.trigger()
    assert model.session.preset.name == "parking"
    # An angle in degrees, as the panel shows it, not the radians it is kept in.
    model.set_param("steering.lock", math.radians(35.0))
    assert window.undo_action.text() == "Undo steering.lock = 35 deg"
    edit_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    assert window.undo_action in edit_menu.actions() and window.history_action in edit_menu.actions()
    window.history_action.trigger()
    assert window._history.isVisible()


@pytest.mark.carbench_preset("manual003")  # the values below are 003's car's
def test_a_slider_drag_is_one_undo_step(carbench_window, qtbot):
    window = carbench_window
    slider = window.params.rows["engine.peak_torque"].editors[0].slider
    slider.setSliderDown(True)
    slider.sliderPressed.emit()
    for position in (400, 450, 500):
        slider.setValue(position)
    slider.setSliderDown(False)
    slider.sliderReleased.emit()
    assert window.model.undo_stack.count() == 1
    window.undo_action.trigger()
    assert window.model.session.params.engine.peak_torque == 350.0


@pytest.mark.carbench_preset("manual003")  # the values below are 003's car's
def test_edits_are_recorded_and_undone_edits_too(carbench_window):
    window = carbench_window
    window.model.start_recording()
    hold(window, {"throttle"}, 60)
    _spin(window, "engine.peak_torque").setValue(420.0)
    hold(window, {"throttle"}, 60)
    window.undo_action.trigger()
    hold(window, {"throttle"}, 60)
    script = window.model.stop_recording()
    values = [s.params["engine.peak_torque"] for s in script.sets if s.params]
    assert values == [420.0, 350.0]


def _key(kind, code, stamp, repeat=False):
    event = QKeyEvent(kind, code, Qt.KeyboardModifier.NoModifier, "", repeat)
    event.setTimestamp(stamp)
    return event


def _repeat(widget, code, stamp, marked):
    """One auto-repeat as an X server sends it: a release and a press with the same time stamp."""
    QApplication.sendEvent(widget, _key(QEvent.Type.KeyRelease, code, stamp, marked))
    QApplication.sendEvent(widget, _key(QEvent.Type.KeyPress, code, stamp, marked))


@pytest.mark.carbench_preset("manual003")  # the values below are 003's car's
def test_up_held_with_half_its_repeats_unmarked_never_steps_the_spin_box_clicked(carbench_window, qtbot):
    window = carbench_window
    _focus(qtbot, window.car_view)
    up = Qt.Key.Key_Up
    QApplication.sendEvent(window.car_view, _key(QEvent.Type.KeyPress, up, 1000))
    stamp = 1500
    for i in range(6):  # repeats on the car view: the car keeps driving
        _repeat(window.car_view, up, stamp, marked=i % 2 == 0)
        stamp += 33
    assert window.model.keys == {"throttle"}
    spin = _spin(window)
    qtbot.mouseClick(spin, Qt.MouseButton.LeftButton)
    _focus(qtbot, spin)
    assert window.model.keys == set()  # the focus moved: the car lets go
    for i in range(16):
        _repeat(spin, up, stamp, marked=i % 2 == 0)
        stamp += 33
    QApplication.sendEvent(spin, _key(QEvent.Type.KeyRelease, up, stamp))
    assert spin.value() == pytest.approx(1200.0)
    assert window.model.session.params.body.mass == pytest.approx(1200.0)
    assert window.model.undo_stack.count() == 0
    # a new press, well after the release, is the spin box's own
    QApplication.sendEvent(spin, _key(QEvent.Type.KeyPress, up, stamp + 400))
    QApplication.sendEvent(spin, _key(QEvent.Type.KeyRelease, up, stamp + 480))
    assert spin.value() > 1200.0
    assert window.model.keys == set()


def test_a_tap_shorter_than_a_frame_still_drives_one_frame(carbench_window, qtbot):
    window = carbench_window
    _focus(qtbot, window.car_view)
    qtbot.keyPress(window.car_view, Qt.Key.Key_Up)
    qtbot.keyRelease(window.car_view, Qt.Key.Key_Up)
    QApplication.processEvents()
    assert window.model.keys == set()
    window.model.advance(2)
    throttle = window.model.session.log.column("throttle")
    assert throttle[-2] > 0.0  # the frame after the tap saw it
    assert throttle[-1] == 0.0  # and only that one


@pytest.mark.carbench_preset("manual003")  # the values below are 003's car's
def test_ctrl_z_and_ctrl_shift_z_in_a_focused_spin_box_undo_and_redo_the_edit(carbench_window, qtbot):
    window = carbench_window
    window.activateWindow()
    spin = _spin(window)
    _focus(qtbot, spin)
    spin.selectAll()
    qtbot.keyClicks(spin, "1300")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert window.model.session.params.body.mass == pytest.approx(1300.0)
    assert spin.hasFocus()
    qtbot.keyClick(spin, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.model.session.params.body.mass == pytest.approx(1200.0)
    assert spin.value() == pytest.approx(1200.0)
    qtbot.keyClick(spin, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.model.session.params.body.mass == pytest.approx(1300.0)
    assert spin.value() == pytest.approx(1300.0)


def test_a_frame_stepped_between_a_repeats_release_and_press_keeps_the_key_held(carbench_window, qtbot):
    """An X server repeats a held key as a release and a press with one time stamp; a frame stepped between the two
    (the frame timer's event came between them, the machine busy) released the car's brake for a frame or two, and a
    brake held for 8 s reached the car and the recording as two holds. The car lets go of a released key only once
    the events queued with the release are handled, and a repeat's press among them keeps it held."""
    window = carbench_window
    _focus(qtbot, window.car_view)
    down = Qt.Key.Key_Down
    QApplication.sendEvent(window.car_view, _key(QEvent.Type.KeyPress, down, 1000))
    window.model.advance(30)
    for stamp in (1500, 1533, 1566):
        QApplication.sendEvent(window.car_view, _key(QEvent.Type.KeyRelease, down, stamp))
        window.model.advance(2)  # the frame timer between the repeat's release and its press
        QApplication.sendEvent(window.car_view, _key(QEvent.Type.KeyPress, down, stamp))
        QApplication.processEvents()
        window.model.advance(3)
    brake = window.model.session.log.column("brake")
    assert (np.diff(brake[1:]) >= 0.0).all() and brake[-1] == 1.0  # rising to the full pedal, never let off
    QApplication.sendEvent(window.car_view, _key(QEvent.Type.KeyRelease, down, 2000))
    QApplication.processEvents()  # a release with no press after it: the car lets go
    assert window.model.keys == set()


def test_a_key_pressed_again_before_its_release_lets_go_stays_held(carbench_window, qtbot):
    """A release, then a fresh press of the same key (not a repeat: 100 ms later) before the events queued with the
    release were handled: the release's let-go came after the press and the car let go of a key held down."""
    window = carbench_window
    _focus(qtbot, window.car_view)
    up = Qt.Key.Key_Up
    QApplication.sendEvent(window.car_view, _key(QEvent.Type.KeyPress, up, 1000))
    QApplication.sendEvent(window.car_view, _key(QEvent.Type.KeyRelease, up, 1500))
    QApplication.sendEvent(window.car_view, _key(QEvent.Type.KeyPress, up, 1600))
    QApplication.processEvents()
    assert window.model.keys == {"throttle"}
    qtbot.keyRelease(window.car_view, up)
    qtbot.keyPress(window.car_view, up)  # (no time stamps: not a repeat either)
    QApplication.processEvents()
    assert window.model.keys == {"throttle"}
    QApplication.sendEvent(window.car_view, _key(QEvent.Type.KeyRelease, up, 3000))
    QApplication.processEvents()
    assert window.model.keys == set()


def test_the_readme_names_every_shortcut_of_the_menus(carbench_window):
    # The README listed the driving keys but not the menus' Ctrl shortcuts (Ctrl+O opens a preset, not a script): its
    # sentence "The menus' shortcuts: Ctrl+O open a preset, ..." names each with the words of its action.
    import re
    from pathlib import Path

    from PySide6.QtGui import QAction

    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8").split())
    sentence = re.search(r"The menus' shortcuts: (.*?)\. ", readme).group(1)
    said = dict(re.match(r"(Ctrl\+\S+) (.*)", part.strip()).groups() for part in sentence.split(","))
    shortcuts = {a.shortcut().toString(): a.text() for a in carbench_window.findChildren(QAction)
                 if a.shortcut().toString().startswith("Ctrl+") and a.text() not in ("Undo", "Redo")}
    assert {"Ctrl+O", "Ctrl+L", "Ctrl+R", "Ctrl+Q"} <= set(shortcuts)
    assert set(said) == set(shortcuts), (said, shortcuts)
    for key, text in shortcuts.items():
        words = set(re.findall(r"[a-z]+", text.lower()))
        assert words <= set(re.findall(r"[a-z]+", said[key].lower())), (key, text, said[key])
    assert "undone with Ctrl+Z and redone with Ctrl+Shift+Z" in readme
