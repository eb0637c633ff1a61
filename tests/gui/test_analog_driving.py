"""Analog driving in the window, with a virtual SDL2 gamepad (no physical device, offscreen): plugged in
while the window runs, its axes and buttons drive the car, a recorded drive (half throttle, a steady steer,
a brake modulation) replays headless bit for bit; the keyboard beside it; mouse steering; the window
without SDL2."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from physics import ANALOG
from workbench.cli import main
from workbench.controllers import sdl
from workbench.gui.testing import hold, make_window
from workbench.runs.replay import replay
from workbench.scripts.format import load_script
from workbench.scripts.program import compile_script

HALF = 654  # the raw reading where a trigger (2% dead zone) gives 0.50: (654 + 32768) / 2 / 32767 = 0.51


def plugged(window, device):
    """Let the window see ``device`` (one tick of its timer)."""
    window.analog.pump()
    assert any(d.instance_id == device.instance_id for d in window.analog.controllers.devices)


def overrides(session, name, first=0, last=None):
    """The history's override of analog control ``name`` per frame (NaN where the keys drove it)."""
    j = ANALOG.index(name)
    h = session.history
    last = h.frames if last is None else last
    return np.where(h.analog_on[first:last, j], h.analog_value[first:last, j], np.nan)


def test_a_gamepad_plugged_in_while_the_window_runs_is_named_in_the_status_bar(carbench_window, virtual_gamepad):
    window = carbench_window
    assert "virtual" not in window.analog.status.text()
    plugged(window, virtual_gamepad)
    assert window.analog.status.text() == "controller: carbench virtual gamepad"
    assert window.status_message.toolTip() == "controller plugged in: carbench virtual gamepad (gamepad)"
    virtual_gamepad.detach()
    window.analog.pump()
    assert window.analog.status.text() == ""
    assert window.status_message.toolTip() == "controller unplugged: carbench virtual gamepad (gamepad)"


def test_a_recorded_gamepad_drive_replays_headless_to_bit_identical_telemetry(carbench_window, virtual_gamepad,
                                                                             tmp_path, capsys):
    window, pad = carbench_window, virtual_gamepad
    plugged(window, pad)
    model = window.model
    model.start_recording()
    model.advance(30)  # at rest
    pad.set_axis("righttrigger", HALF)  # half throttle
    pad.set_axis("leftx", -16384)  # a steady steer to the left: half the left side's travel
    model.advance(240)
    pad.set_button("b", True)  # the clutch (a button), then up a gear on the right shoulder
    model.advance(10)
    pad.set_button("rightshoulder", True)
    model.advance(3)
    pad.set_button("rightshoulder", False)
    pad.set_button("b", False)
    pad.set_axis("righttrigger", -32768)
    model.advance(20)
    for k in range(150):  # brake modulation: the left trigger squeezed and eased every frame
        pad.set_axis("lefttrigger", round(-32768 + 65535 * (0.35 + 0.3 * math.sin(k / 8.0))))
        model.advance(1)
    pad.set_axis("lefttrigger", -32768)
    model.advance(30)
    session = model.session
    frames = session.log.frames
    assert frames == 483
    throttle, steer, brake = (overrides(session, name) for name in ("throttle_pedal", "steer", "brake_pedal"))
    assert np.isnan(throttle[:30]).all() and (throttle[30:270] == 0.5).all()
    x = 16384 / 32768  # from the centre (raw 0), to the left (positive steer): half of that side's travel
    assert (steer[30:] == round(((x - 0.08) / 0.92) ** 1.5, 4)).all() and steer[30] == 0.3085
    assert len(set(brake[303:453].tolist())) > 100 and np.nanmax(brake) == pytest.approx((0.65 - 0.02) / 0.98, abs=2e-3)
    assert session.log.column("gear")[-1] == 2 and session.log.column("speed_kmh")[-1] > 5
    model.stop_recording()
    path = tmp_path / "gamepad.toml"
    assert window.save_recording(path)
    recording = load_script(path)
    assert {t.control for t in recording.tracks} == {"brake_pedal"}  # it moved every frame
    assert [len(t.values) for t in recording.tracks] == [151]  # 150 squeezes, then back to 0 on release
    assert {name for s in recording.sets for name in s.analog} == {"throttle_pedal", "steer"}  # steady stretches
    assert len(path.read_text().splitlines()) < 120  # 483 frames of four controls
    (result,) = replay([compile_script(recording)])
    assert np.array_equal(result.log.matrix(0, frames), session.log.matrix())
    csv = tmp_path / "replayed.csv"
    assert main(["replay", str(path), "--csv", str(csv)]) == 0
    capsys.readouterr()
    window.export_telemetry(tmp_path / "window.csv")
    assert csv.read_text().splitlines()[:frames + 1] == (tmp_path / "window.csv").read_text().splitlines()


def test_the_keyboard_beside_a_gamepad_the_last_input_to_move_wins(carbench_window, virtual_gamepad):
    window, pad = carbench_window, virtual_gamepad
    plugged(window, pad)
    model, session = window.model, window.model.session
    model.advance(5)
    pad.set_axis("righttrigger", HALF)
    model.advance(10)  # the trigger drives the throttle
    hold(window, ["throttle"], 10)  # Up pressed: the keys drive it, the trigger still half way
    model.advance(10)  # Up released: still the keys (the trigger has not moved)
    pad.set_axis("righttrigger", 32767)
    model.advance(10)  # the trigger moved: its again
    throttle = overrides(session, "throttle_pedal")
    assert np.isnan(throttle[:5]).all() and (throttle[5:15] == 0.5).all()
    assert np.isnan(throttle[15:35]).all() and (throttle[35:45] == 1.0).all()
    assert session.log.column("throttle")[34] < session.log.column("throttle")[24]  # the key's ramp let go
    assert np.isnan(overrides(session, "steer")).all()  # the resting stick took nothing


def test_command_buttons_pause_pin_and_reset(carbench_window, virtual_gamepad):
    window, pad = carbench_window, virtual_gamepad
    plugged(window, pad)
    window.model.advance(20)
    pad.set_button("start", True)
    window.analog.pump()
    assert not window.model.running
    window.analog.pump()  # held, not pressed again
    assert not window.model.running
    pad.set_button("start", False)
    window.analog.pump()
    pad.set_button("start", True)
    window.analog.pump()
    assert window.model.running
    pad.set_button("x", True)
    window.analog.pump()
    assert len(window.comparer.references.items) == 1
    pad.set_button("back", True)
    window.analog.pump()
    assert window.model.session.frame == 0


def test_driving_buttons_hold_their_keys_handbrake_starter_clutch_and_the_shifts(carbench_window, virtual_gamepad):
    """A gamepad's A is the handbrake, Y the starter, B the clutch, the shoulders shift: each held as a key for the
    frames its button is down, and recorded as that key (physics.KEYS)."""
    from physics import KEYS

    window, pad = carbench_window, virtual_gamepad
    plugged(window, pad)
    session = window.model.session
    for button, key in (("a", "handbrake"), ("y", "start"), ("b", "clutch"), ("rightshoulder", "gear_up"),
                        ("leftshoulder", "gear_down")):
        first = session.history.frames
        pad.set_button(button, True)
        window.model.advance(6)
        pad.set_button(button, False)
        window.model.advance(3)
        held = session.history.keys[first:first + 9, KEYS.index(key)]
        assert held[:6].all() and not held[6:].any(), (button, key, held)


def mouse(view, kind, x, button=Qt.MouseButton.NoButton):
    viewport = view.viewport()
    point = QPointF(x, viewport.height() / 2)
    buttons = button if kind == QEvent.Type.MouseButtonPress else Qt.MouseButton.NoButton
    event = QMouseEvent(kind, point, viewport.mapToGlobal(point), button, buttons, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, event)


def test_mouse_steering_position_is_the_steer_and_the_buttons_are_throttle_and_brake(carbench_window):
    window = carbench_window
    view, session = window.car_view, window.model.session
    window.analog.mouse_action.setChecked(True)
    assert window.settings.value("mouse_steering", type=bool)
    assert "mouse steers" in window.analog.status.text()
    width = view.viewport().width()
    mouse(view, QEvent.Type.MouseMove, width / 2)
    window.model.advance(5)
    mouse(view, QEvent.Type.MouseMove, width / 4)  # a quarter across: half lock to the left
    mouse(view, QEvent.Type.MouseButtonPress, width / 4, Qt.MouseButton.LeftButton)
    window.model.advance(60)
    mouse(view, QEvent.Type.MouseButtonRelease, width / 4, Qt.MouseButton.LeftButton)
    mouse(view, QEvent.Type.MouseMove, width)  # the right edge: full lock right
    window.model.advance(5)
    steer = overrides(session, "steer")
    assert np.isnan(steer[:5]).all() and (steer[5:65] == 0.5).all() and (steer[65:] == -1.0).all()
    throttle_key = session.history.keys[:, 0]
    assert not throttle_key[:5].any() and throttle_key[5:65].all() and not throttle_key[65:70].any()
    assert session.log.column("steer")[64] > 0 and session.log.column("speed_kmh")[64] > 1
    first = session.history.frames
    mouse(view, QEvent.Type.MouseButtonPress, width, Qt.MouseButton.RightButton)  # the right button brakes
    window.model.advance(5)
    mouse(view, QEvent.Type.MouseButtonRelease, width, Qt.MouseButton.RightButton)
    window.model.advance(2)
    brake_key = session.history.keys[first:first + 7, 1]
    assert brake_key[:5].all() and not brake_key[5:].any()
    hold(window, ["left"], 3)  # the keyboard takes the steering back
    assert np.isnan(overrides(session, "steer", 77)).all()
    window.analog.mouse_action.setChecked(False)
    assert view.getPlotItem().getViewBox().state["mouseEnabled"] == [True, True]


@pytest.mark.parametrize(("error", "reason"), [
    (ModuleNotFoundError("No module named 'sdl2'", name="sdl2"), "pysdl2 is not installed"),
    (ImportError("could not find any library for SDL2"), "the SDL2 library cannot be loaded"),
])
def test_without_sdl2_the_window_starts_and_drives_with_the_keyboard(qtbot, carbench_settings, monkeypatch, error,
                                                                     reason):
    def missing():
        raise error

    monkeypatch.setattr(sdl, "_import_sdl2", missing)
    window = make_window("sedan", carbench_settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert window.analog.controllers.hub is None
    assert window.analog.status.text() == "no controllers (SDL2 missing)"
    assert window.analog.status.toolTip().startswith(reason)
    window.analog.pump()
    hold(window, ["throttle", "left"], 240)
    session = window.model.session
    assert session.log.column("speed_kmh")[-1] > 5 and session.log.column("steer")[-1] > 0
    dialog = window.analog.show_dialog()
    assert dialog.about.text().startswith(f"Controllers cannot be used here: {reason}")
    dialog.close()


def test_a_reset_or_another_car_gives_every_control_back_to_the_keys(carbench_window, virtual_gamepad):
    """InputArbiter.release said it was for a reset and a new car, and nothing called it: the gamepad kept the
    throttle it had taken across R and a preset load."""
    from physics.presets import cars_dir
    from workbench.controllers.arbiter import KEYBOARD

    window, pad = carbench_window, virtual_gamepad
    plugged(window, pad)
    arbiter = window.analog.arbiter
    for undo in (window.reset_car, lambda: window.load_preset(cars_dir() / "tail_happy.toml")):
        pad.set_axis("righttrigger", -32768)
        window.model.advance(2)
        pad.set_axis("righttrigger", HALF)
        window.model.advance(2)
        assert arbiter.owner["throttle_pedal"] != KEYBOARD
        assert undo() is not False
        assert set(arbiter.owner.values()) == {KEYBOARD}


def test_with_mouse_steering_the_wheel_still_zooms_the_car_view_and_a_drag_does_not_pan_it(carbench_window):
    """The view's mouse was switched off for the drag, and the wheel with it: 10 notches zoomed nothing (a review
    under Xvfb; the README says the wheel still zooms)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QWheelEvent

    window = carbench_window
    view = window.car_view
    box = view.getPlotItem().getViewBox()
    window.analog.mouse_action.setChecked(True)
    viewport = view.viewport()
    centre = QPointF(viewport.width() / 2, viewport.height() / 2)
    before = box.viewRange()
    for _ in range(5):
        event = QWheelEvent(centre, viewport.mapToGlobal(centre), QPoint(0, 0), QPoint(0, -120),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
                            False)
        QApplication.sendEvent(viewport, event)
    after = box.viewRange()
    assert after[0][1] - after[0][0] > 1.5 * (before[0][1] - before[0][0])  # zoomed out
    mouse(view, QEvent.Type.MouseButtonPress, 100, Qt.MouseButton.LeftButton)
    for x in (150, 200, 300):
        move = QMouseEvent(QEvent.Type.MouseMove, QPointF(x, viewport.height() / 2),
                           viewport.mapToGlobal(QPointF(x, viewport.height() / 2)), Qt.MouseButton.NoButton,
                           Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(viewport, move)
    mouse(view, QEvent.Type.MouseButtonRelease, 300, Qt.MouseButton.LeftButton)
    assert box.viewRange() == after  # the press drove the car; the drag panned nothing


def test_command_buttons_do_nothing_while_a_modal_dialog_is_up(carbench_window, virtual_gamepad):
    """Save asks for its file with the car paused, and Start resumed it under the file dialog (106 frames recorded
    while a folder was chosen); Back under "Restart the recording?" asked it again over the first. The keyboard
    cannot reach the window under a modal dialog, nor can a controller's buttons now."""
    from PySide6.QtWidgets import QDialog

    window, pad = carbench_window, virtual_gamepad
    plugged(window, pad)
    window.model.set_running(False)
    dialog = QDialog(window)
    dialog.setModal(True)
    dialog.show()
    try:
        assert QApplication.activeModalWidget() is dialog
        window.model.advance(5)
        for button in ("start", "back", "x"):
            pad.set_button(button, True)
            window.analog.pump()
            pad.set_button(button, False)
            window.analog.pump()
        assert not window.model.running and window.model.session.frame == 5  # not resumed, not reset
        assert not window.comparer.references.items  # nothing pinned
    finally:
        dialog.close()
    pad.set_button("start", True)
    window.analog.pump()
    assert window.model.running  # and once it is gone they work again
