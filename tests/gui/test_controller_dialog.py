"""The mapping dialog (Controls > Controllers and wheels) on a virtual SDL2 gamepad: raw and mapped values
live, edits saved per controller GUID and read back, calibration by moving a control through its travel."""

from __future__ import annotations

import json

import pytest

from workbench.controllers.mapping import ControllerMapping
from workbench.gui.controller_input import ControllerInput


@pytest.fixture
def dialog(carbench_window, virtual_gamepad):
    carbench_window.analog.pump()
    dialog = carbench_window.analog.show_dialog()
    yield dialog
    dialog.close()


def row(dialog, axis):
    return next(r for r in dialog.rows if r.axis == axis)


def saved(window, dialog) -> dict:
    guid = dialog.device().info.guid
    return json.loads(window.settings.value(f"controllers/{guid}", "{}", type=str))


def test_every_axis_and_button_is_shown_with_its_raw_and_mapped_value(dialog, virtual_gamepad):
    assert [r.axis for r in dialog.rows] == ["leftx", "lefty", "rightx", "righty", "lefttrigger", "righttrigger"]
    assert len(dialog.buttons) == 15 and dialog.buttons["rightshoulder"][1].currentText() == "gear_up"
    virtual_gamepad.set_axis("leftx", 32767)
    virtual_gamepad.set_axis("righttrigger", 0)
    virtual_gamepad.set_button("a", True)
    dialog.update_values()
    assert row(dialog, "leftx").raw.value() == 32767 and row(dialog, "leftx").value.text() == "-1.000"
    assert row(dialog, "righttrigger").raw.value() == 16383
    assert row(dialog, "righttrigger").value.text() == f"{(16383 / 32767 - 0.02) / 0.98:.3f}"
    assert row(dialog, "lefty").value.text() == "\u2014"  # drives nothing
    assert dialog.buttons["a"][0].text() == "\u25cf" and dialog.buttons["b"][0].text() == "\u25cb"


def test_the_steer_bar_fills_the_way_the_stick_went(dialog, virtual_gamepad):
    """A stick pushed left reads a positive steer (left is positive, as the model and the HUD have it) and its bar
    filled to the right of centre, beside the raw reading's bar filled to the left."""
    leftx = row(dialog, "leftx")
    for raw, side in ((-32768, "left"), (32767, "right")):
        virtual_gamepad.set_axis("leftx", raw)
        dialog.update_values()
        left, width = leftx.value.filled(200)
        raw_left, raw_width = leftx.raw.filled(200)
        assert width > 90 and raw_width > 90
        assert (left < 100) == (side == "left") and (raw_left < 100) == (side == "left"), (raw, left, raw_left)
    assert leftx.value.text() == "-1.000"  # right: negative


def test_edits_apply_at_once_and_are_saved_for_the_controllers_guid(carbench_window, dialog, virtual_gamepad):
    window = carbench_window
    leftx = row(dialog, "leftx")
    leftx.curve.setCurrentText("linear")
    leftx.dead_zone.setValue(20.0)
    leftx.invert.setChecked(True)
    virtual_gamepad.set_axis("leftx", 32767)
    dialog.update_values()
    assert leftx.value.text() == "+1.000"  # inverted: the right end now steers left
    row(dialog, "rightx").control.setCurrentText("steer")  # takes steering from leftx
    assert leftx.control.currentText() == "\u2014" and not leftx.dead_zone.isEnabled()
    dialog.buttons["a"][1].setCurrentText("start")
    document = saved(window, dialog)
    assert {a["axis"]: a["control"] for a in document["axes"]} == {
        "rightx": "steer", "righttrigger": "throttle_pedal", "lefttrigger": "brake_pedal"}
    assert document["buttons"]["a"] == "start"
    again = ControllerInput(window.settings)  # as the next start of the window reads it
    try:
        again.pump()
        (device,) = again.devices
        assert again.mapping(device) == ControllerMapping.from_dict(document)
    finally:
        again.close()
    dialog.restore_defaults()
    assert not window.settings.contains(f"controllers/{dialog.device().info.guid}")
    assert row(dialog, "leftx").control.currentText() == "steer"


def test_calibration_takes_the_travel_the_control_went_through(carbench_window, dialog, virtual_gamepad):
    trigger = row(dialog, "lefttrigger")
    trigger.calibrate.click()
    assert trigger.calibrate.text() == "Done"
    for raw in (-32768, -20000, 0, 20000, 27232, 10000, -32768):  # most of the way down and back
        virtual_gamepad.set_axis("lefttrigger", raw)
        dialog.update_values()
        if raw == 27232:
            deepest = dialog.device().axes()["lefttrigger"]
    assert 29990 <= deepest <= 30000  # a trigger reads 0 .. 32767 for -32768 .. 32767
    trigger.calibrate.click()
    assert trigger.range.text() == f"0 .. {deepest}" and dialog.problem.text() == ""
    axis = dialog.controllers.mapping(dialog.device()).axis_for("lefttrigger")
    assert (axis.low, axis.high) == (0, deepest)
    virtual_gamepad.set_axis("lefttrigger", 27232)
    dialog.update_values()
    assert trigger.value.text() == "1.000"  # the end of its travel is full brake now
    virtual_gamepad.set_axis("lefttrigger", -2000)
    dialog.update_values()
    half = dialog.device().axes()["lefttrigger"] / deepest
    assert trigger.value.text() == f"{(half - 0.02) / 0.98:.3f}"
    assert saved(carbench_window, dialog)["axes"][2]["high"] == deepest


def test_a_calibration_that_barely_moved_is_refused_and_changes_nothing(dialog, virtual_gamepad):
    stick = row(dialog, "leftx")
    stick.calibrate.click()
    for raw in (0, 500, 1500):
        virtual_gamepad.set_axis("leftx", raw)
        dialog.update_values()
    stick.calibrate.click()
    assert "move it through its whole travel" in dialog.problem.text()
    axis = dialog.controllers.mapping(dialog.device()).axis_for("leftx")
    assert (axis.low, axis.high) == (-32768, 32767) and stick.range.text() == "-32768 .. 32767"


def test_a_saved_mapping_that_is_not_usable_falls_back_to_the_default_and_says_so(carbench_window, virtual_gamepad):
    window = carbench_window
    guid = "ff005efa63617262656e636820007601"  # the virtual gamepad's
    window.settings.setValue(f"controllers/{guid}", '{"axes": [{"axis": "leftx", "control": "steer", "exponent": 99}]}')
    said = []
    window.analog.controllers.message.connect(said.append)
    window.analog.pump()
    (device,) = window.analog.controllers.devices
    assert device.info.guid == guid
    assert window.analog.controllers.mapping(device).axis_for("righttrigger").control == "throttle_pedal"
    assert said[0] == "controller plugged in: carbench virtual gamepad (gamepad)"
    assert said[1].startswith(f"carbench virtual gamepad: the saved mapping ({window.settings.fileName()}, key "
                              f"controllers/{guid}) is not usable (axis 'leftx': exponent 99"), said


def test_a_saved_mapping_nested_thousands_deep_falls_back_to_the_default(carbench_window, virtual_gamepad):
    """json.loads raises RecursionError, not ValueError, on "[[[[..." deep enough: the window's pump ended in it."""
    window = carbench_window
    window.settings.setValue("controllers/ff005efa63617262656e636820007601", "[" * 100_000)
    said = []
    window.analog.controllers.message.connect(said.append)
    window.analog.pump()
    (device,) = window.analog.controllers.devices
    assert window.analog.controllers.mapping(device).axis_for("righttrigger").control == "throttle_pedal"
    assert said[-1].endswith("is not usable (nested too deeply); using the default"), said


def test_a_controller_pulled_out_gives_no_reading_before_the_next_pump(carbench_window, virtual_wheel):
    """SDL reads a pulled-out wheel's axes as 0, which an inverted pedal reads as half down: the frames between the
    unplugging and the pump that notices it had about half throttle, brake and clutch."""
    controllers = carbench_window.analog.controllers
    controllers.pump()
    (device,) = controllers.devices
    keys, sources = controllers.sample()
    assert sources  # plugged in: read
    virtual_wheel.detach()
    assert controllers.sample() == (set(), {})


def test_a_centred_reading_fills_from_its_middle_and_a_trigger_from_its_low_end(qtbot):
    """A stick at rest read as a half-full bar (a progress bar fills from its minimum): the level bar grows from 0
    where the range holds 0, to either side, and from the low end otherwise."""
    from workbench.gui.controller_dialog import LevelBar

    bar = LevelBar()
    qtbot.addWidget(bar)
    bar.setRange(-32768, 32767)
    bar.setValue(0)
    assert bar.filled(200)[1] == 0 and bar.text() == "0"  # at rest: nothing filled
    bar.setValue(-16384)
    left, width = bar.filled(200)
    assert (left, width) == (50, 50)  # from the middle towards the left end
    bar.setValue(32767)
    assert bar.filled(200) == (100, 100)
    bar.setRange(0, 32767)
    bar.setValue(0)
    assert bar.filled(200) == (0, 0)
    bar.setValue(32767)
    assert bar.filled(200) == (0, 200)
    bar.setValue(99999)  # held within the range
    assert bar.value() == 32767
    bar.setFormat("+0.500")
    assert bar.text() == "+0.500"
    # a wheel's pedal reads the low end of a range centred on 0 at rest: it grows from there, not from 0
    bar.setRange(-32768, 32767)
    bar.setRest(-32768)
    bar.setValue(-32768)
    assert bar.filled(200) == (0, 0)
    bar.setValue(32767)
    assert bar.filled(200) == (0, 200)
    bar.setRest(None)
    assert bar.filled(200) == (100, 100)
    bar.resize(bar.sizeHint())
    assert not bar.grab().isNull()  # paints


def test_the_controller_on_show_stays_on_show_when_another_is_pulled_out(carbench_window, virtual_gamepad,
                                                                         virtual_wheel):
    """The dialog kept the box's index over a list that had changed: with a gamepad and a wheel plugged in and the
    wheel on show, pulling the gamepad out showed nothing of the wheel's (a third controller would have been shown
    and edited in its place); its rows are kept, so a calibration going on goes on."""
    controllers = carbench_window.analog.controllers
    carbench_window.analog.pump()
    dialog = carbench_window.analog.show_dialog()
    try:
        labels = [dialog.device_box.itemText(i) for i in range(dialog.device_box.count())]
        dialog.device_box.setCurrentIndex(next(i for i, text in enumerate(labels) if "wheel" in text))
        wheel = dialog.device()
        rows = list(dialog.rows)
        assert wheel.info.kind == "wheel" and rows
        virtual_gamepad.detach()
        carbench_window.analog.pump()
        assert len(controllers.devices) == 1 and dialog.device() is wheel and dialog.rows == rows
        assert dialog.device_box.count() == 1 and "wheel" in dialog.device_box.currentText()
    finally:
        dialog.close()


def test_restore_defaults_is_offered_only_with_a_controller_on_show(carbench_window, virtual_gamepad):
    carbench_window.analog.pump()
    dialog = carbench_window.analog.show_dialog()
    try:
        assert dialog.device() is not None and dialog.restore.isEnabled()
        virtual_gamepad.detach()
        carbench_window.analog.pump()
        assert dialog.device() is None and not dialog.restore.isEnabled()
        assert "No controller is plugged in" in dialog.about.text() or "cannot be used" in dialog.about.text()
        dialog.restore.click()  # disabled: nothing happens, nothing raises
    finally:
        dialog.close()


GAMEPAD_GUID = "ff005efa63617262656e636820007601"  # the virtual gamepad's


def test_a_saved_mapping_that_is_not_usable_is_kept_when_an_edit_saves_over_it(carbench_window, virtual_gamepad):
    """One bad entry made the whole saved mapping unusable, said for 6 s in the status bar only; the first edit in the
    dialog then saved the default and the edit over it, and the user's calibrated steer was gone."""
    window = carbench_window
    key = f"controllers/{GAMEPAD_GUID}"
    stored = json.dumps({"axes": [{"axis": "leftx", "control": "steer", "dead_zone": 0.1, "low": -30000, "high": 30000},
                                  {"axis": "righttrigger", "control": "throttle_pedal", "dead_zone": 0.9}],
                         "buttons": {"dpup": "gear_up"}})
    window.settings.setValue(key, stored)
    said = []
    window.analog.controllers.message.connect(said.append)
    window.analog.pump()
    dialog = window.analog.show_dialog()
    try:
        assert "is not usable (axis 'righttrigger': dead zone 0.9" in dialog.problem.text()
        row(dialog, "lefttrigger").invert.setChecked(True)
        assert window.settings.value(key + "-refused") == stored  # kept, under its own key
        assert said[-1].endswith(f"is kept in {window.settings.fileName()}, key {key}-refused")
        assert saved(window, dialog)["axes"] != json.loads(stored)["axes"]  # the edit saved
        row(dialog, "lefttrigger").invert.setChecked(False)  # a second edit keeps nothing more
        assert window.settings.value(key + "-refused") == stored
    finally:
        dialog.close()


@pytest.mark.parametrize("stored", [["1", "2"], b"\x00\x01"], ids=["list", "bytes"])
def test_a_saved_mapping_that_is_no_text_is_said_to_be_unusable(carbench_window, virtual_gamepad, stored):
    """`controllers/<GUID>=1, 2` in the file reads as a list: it was read as "" and the default used without a word."""
    window = carbench_window
    window.settings.setValue(f"controllers/{GAMEPAD_GUID}", stored)
    said = []
    window.analog.controllers.message.connect(said.append)
    window.analog.pump()
    assert said[-1].endswith("not a mapping's JSON text); using the default"), said


def test_a_warning_about_a_saved_mapping_is_the_message_left_when_two_controllers_come_at_once(
        carbench_window, virtual_gamepad, virtual_wheel):
    window = carbench_window
    window.settings.setValue(f"controllers/{GAMEPAD_GUID}", '{"axes": 1}')
    window.analog.pump()
    assert "is not usable (`axes` must be a list" in window.status_message.toolTip()


def test_a_refused_edit_leaves_the_row_as_the_mapping_is_and_a_later_edit_clears_the_problem(carbench_window,
                                                                                         virtual_wheel):
    """The row kept showing the refused choice ("steer" on a pedal calibrated to -1000 .. 32767) while the mapping
    still had the pedal on the throttle, and the refusal stayed in red after edits that went through."""
    carbench_window.analog.pump()
    dialog = carbench_window.analog.show_dialog()
    try:
        pedal = row(dialog, "axis 1")
        pedal.calibrate.click()
        for raw in (-1000, 15000, 32767):
            virtual_wheel.set_axis(1, raw)
            dialog.update_values()
        pedal.calibrate.click()
        assert dialog.problem.text() == ""
        pedal.control.setCurrentText("steer")
        assert dialog.problem.text().startswith("axis 1: ") and "to steer" in dialog.problem.text()
        assert pedal.control.currentText() == "throttle_pedal"
        assert dialog.controllers.mapping(dialog.device()).axis_for("axis 1").control == "throttle_pedal"
        row(dialog, "axis 2").invert.setChecked(False)
        assert dialog.problem.text() == ""
    finally:
        dialog.close()


def test_inverting_a_resting_trigger_in_the_dialog_does_not_brake(carbench_window, dialog, virtual_gamepad):
    """An edit is no move of the axis (InputArbiter.rebase, on the controller's mapping_changed): the trigger at rest,
    inverted, reads 1.0, and took the brake from the keys at once; so did one the pad had driven and let go."""
    window = carbench_window
    window.model.advance(5)
    row(dialog, "lefttrigger").invert.setChecked(True)
    window.model.advance(5)
    assert window.analog.arbiter.owner["brake_pedal"] == "keys"
    assert window.model.session.log.column("brake")[-1] == 0.0
    row(dialog, "lefttrigger").invert.setChecked(False)
    virtual_gamepad.set_axis("lefttrigger", 32767)  # pressed: the pad drives the brake
    window.model.advance(5)
    virtual_gamepad.set_axis("lefttrigger", -32768)  # and let go: the pad still has it, at 0
    window.model.advance(5)
    assert window.analog.arbiter.owner["brake_pedal"].startswith("controller")
    row(dialog, "lefttrigger").invert.setChecked(True)
    window.model.advance(5)
    assert window.analog.arbiter.owner["brake_pedal"] == "keys" and window.model.session.log.column("brake")[-1] == 0.0
