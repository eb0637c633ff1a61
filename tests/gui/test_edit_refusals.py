"""Edits the window refuses, and edits it keeps: a value an earlier frame's car cannot take, resets and the Edit
history during a replay, a reset that would leave no car, the edits kept when a script of the car on show loads,
and what the value boxes read (Return with nothing typed, a decimal comma, a text that is no number, tiny values).
Keys and clicks are real events sent to the value boxes."""

import math

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox, QUndoView

LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier


def _type(window, qtbot, path: str, text: str, i: int = 0) -> None:
    """Double-click the value box of ``path`` (entry ``i``), type ``text`` (nothing when empty), press Return."""
    spin = window.params.rows[path].editors[i].spin
    edit = spin.lineEdit()
    QTest.mouseDClick(edit, LEFT, NONE, QPoint(edit.width() // 2, edit.height() // 2))
    qtbot.waitUntil(spin.hasFocus, timeout=1000)
    if text:
        qtbot.keyClicks(spin, text)
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    spin.clearFocus()


def _status(window) -> str:
    panel = window.params
    return panel.status.text() if panel.status.isVisibleTo(panel) else ""


def _drive_with_edits(window, before: int, edits: dict, after: int) -> None:
    """Throttle for ``before`` frames, the parameter edits (each taken), throttle for ``after`` frames; paused."""
    model = window.model
    model.press("throttle")
    model.advance(before)
    for path, value in edits.items():
        assert window.params.edit(path, value), _status(window)
    model.advance(after)
    model.release("throttle")
    model.set_running(False)


def test_an_edit_the_car_of_the_frame_on_show_refuses_is_refused_before_driving_on(carbench_window, qtbot):
    # lr = 3 m fits the newest car (wheelbase 4 m) but not the car of frame 100 (2.85 m), which the edit drives on
    # from: it was checked against the newest car, the drive went on, and then the edit raised in a slot (a
    # traceback), was lost, and left "body.lr = 3 m" in the history.
    window = carbench_window
    model, session = window.model, window.model.session
    _drive_with_edits(window, 120, {"body.length": 6.0, "body.wheelbase": 4.0}, 120)
    frames, steps = session.log.frames, model.undo_stack.count()
    model.set_view_frame(100)

    _type(window, qtbot, "body.lr", "3")

    assert session.params.body.lr == pytest.approx(1.425)
    assert _status(window) == ("body.lr = 3 m: must be less than the wheelbase (2.85 m) (on the car of frame 100, which "
                               "the edit drives on from)")
    assert model.view_frame == 100 and session.log.frames == frames  # no drive on, nothing pinned
    assert model.undo_stack.count() == steps and len(window.comparer.references) == 0
    # a value that car takes drives on from the frame, on that car
    _type(window, qtbot, "body.lr", "1.3")
    assert model.view_frame is None and session.log.frames == 100
    assert session.params.body.lr == 1.3 and session.params.body.wheelbase == 2.85


def _overhang_then_wheelbase(window):
    """Frames 0-119 on the sedan; the overhang 0.1 m and the wheelbase 4 m from frame 120; the wheelbase 2.85 m
    again from 240; paused at 300. The overhang's preset value (0.8 m) fits every car but the one of frames
    120-239."""
    _drive_with_edits(window, 120, {"body.front_overhang": 0.1, "body.wheelbase": 4.0}, 120)
    window.model.press("throttle")
    _drive_with_edits(window, 0, {"body.wheelbase": 2.85}, 60)


def test_a_reset_on_an_earlier_frames_car_that_refuses_it_is_refused_before_driving_on(carbench_window):
    # Only a typed edit was checked on the frame's car: a row's reset went through on the newest car, drove on
    # from the frame, then raised in the slot; the reset was lost and stayed in the history.
    window = carbench_window
    _overhang_then_wheelbase(window)
    model, session = window.model, window.model.session
    steps = model.undo_stack.count()
    model.set_view_frame(200)
    assert window.params.reset_param("body.front_overhang") is False
    assert _status(window) == ("body.front_overhang = 0.8 m: with the wheelbase (4 m) it reaches 4.8 m from the rear axle, "
                               "past the length (4.71 m) (on the car of frame 200, which the edit drives on from)")
    assert session.log.frames == 300 and model.view_frame == 200 and model.undo_stack.count() == steps
    assert session.params.body.front_overhang == 0.1


def test_an_undo_or_redo_on_an_earlier_frames_car_that_refuses_it_is_refused_before_driving_on(carbench_window,
                                                                                              qtbot):
    window = carbench_window
    _overhang_then_wheelbase(window)
    model, session = window.model, window.model.session
    assert window.params.edit("body.front_overhang", 0.9)  # at frame 300, on the 2.85 m car
    model.set_view_frame(200)
    index = model.undo_stack.index()
    window.undo()  # back to 0.1 m: that car (4 m) takes it, the drive goes on from frame 200
    assert session.params.body.front_overhang == 0.1 and session.log.frames == 200
    assert model.undo_stack.index() == index - 1
    model.advance(10)
    model.set_running(False)
    model.set_view_frame(205)  # the car of frame 205 is the 4 m one: 0.9 m does not fit it
    window.redo()
    assert "cannot redo: body.front_overhang = 0.9 m: with the wheelbase (4 m) it reaches 4.9 m" in \
        window.status_message.toolTip()
    assert model.undo_stack.index() == index - 1 and session.params.body.front_overhang == 0.1
    assert model.view_frame == 205 and session.log.frames == 210


def test_keeping_the_last_recording_instead_of_driving_on_changes_nothing(carbench_window):
    # Cancel to "save the last recording before driving on?" set the newest car to the frame's value (the user's
    # earlier edit silently gone, the history saying the new one was made), or raised in the slot where the newest
    # car could not take the frame's value.
    window = carbench_window
    model, session = window.model, window.model.session
    window.record()
    _drive_with_edits(window, 60, {"body.mass": 1300.0}, 60)
    model.stop_recording()
    steps, frames = model.undo_stack.count(), session.log.frames
    window.ask_recording = lambda doing: QMessageBox.StandardButton.Cancel
    model.set_view_frame(30)
    assert window.params.edit("body.mass", 1400.0) is False
    assert _status(window) == "body.mass: not changed (the drive did not go on from frame 30)"
    assert session.params.body.mass == 1300.0 and session.log.frames == frames
    assert model.undo_stack.count() == steps and model.view_frame == 30


def test_an_edit_the_frames_car_takes_and_the_newest_refuses_is_made_there(carbench_window):
    # The change went to the newest car first, which refused 0.9 m of overhang on its 4 m wheelbase; frame 30's car
    # (2.85 m), where the drive goes on, takes it.
    window = carbench_window
    model, session = window.model, window.model.session
    _drive_with_edits(window, 60, {"body.front_overhang": 0.1, "body.wheelbase": 4.0}, 60)
    model.set_view_frame(30)
    assert window.params.edit("body.front_overhang", 0.9), _status(window)
    assert session.log.frames == 30 and model.view_frame is None
    assert session.params.body.front_overhang == 0.9 and session.params.body.wheelbase == 2.85
    model.advance(5)
    assert session.log.frames == 35


def test_the_edit_history_is_only_shown_while_an_earlier_frame_is(carbench_window):
    # A click in the list stepped the stack past the check on the frame's car (the stack moved, the car did not).
    window = carbench_window
    model = window.model
    _drive_with_edits(window, 60, {"body.mass": 1300.0}, 30)
    window.show_history()
    view = window._history.findChild(QUndoView)
    assert view.isEnabled()
    model.set_view_frame(30)
    assert not view.isEnabled()
    window.undo()  # Ctrl+Z: goes on from frame 30, where the mass was the preset's already
    assert model.view_frame is None and view.isEnabled()


SET_AT_ZERO = """
[script]
name = "sets-at-zero"
preset = "sedan"
duration = 2.0

[[set]]
at = 0.0
params = { "body.mass" = 1000.0, "tyres.mu" = 0.5 }

[[hold]]
keys = ["throttle"]
from = 0.0
to = 2.0
"""


@pytest.fixture
def replaying(carbench_window, tmp_path):
    """The sedan, its mass edited to 1300 kg, then a script that sets the mass itself replaying."""
    window = carbench_window
    assert window.params.edit("body.mass", 1300.0)
    path = tmp_path / "sets_at_zero.toml"
    path.write_text(SET_AT_ZERO, encoding="utf-8")
    assert window.load_script(path)  # the question of the mass edit it sets itself: Discard (the test window's)
    window.model.replay()
    window.model.advance(30)
    assert window.model.session.replaying and window.model.session.params.body.mass == 1000.0
    return window


def test_a_script_that_sets_an_edited_parameter_itself_asks_before_it_replaces_the_edit(carbench_window, tmp_path):
    # On the car on show the edits were kept without asking; one the script sets itself was then dropped silently,
    # and the history still offered it.
    window = carbench_window
    model = window.model
    assert window.params.edit("body.mass", 1300.0) and window.params.edit("body.cg_height", 0.6)
    path = tmp_path / "sets_at_zero.toml"
    path.write_text(SET_AT_ZERO, encoding="utf-8")
    asked = []
    window.ask_unsaved = lambda doing: asked.append(doing) or QMessageBox.StandardButton.Cancel
    assert not window.load_script(path)
    assert asked == ["load a script that sets body.mass itself"]
    assert model.session.params.body.mass == 1300.0 and model.session.program is None and model.undo_stack.count()
    window.ask_unsaved = lambda doing: QMessageBox.StandardButton.Discard
    assert window.load_script(path)
    assert model.session.params.body.cg_height == 0.6  # the edit the script does not set stays
    assert model.undo_stack.count() == 0  # undone, the mass edit would come back over the script's
    tip = window.status_message.toolTip()
    assert "replays with your edits: body.cg_height = 0.6 m" in tip and "the script sets body.mass itself" in tip


def test_saving_the_edits_first_keeps_those_the_script_does_not_set_as_discarding_does(carbench_window, tmp_path,
                                                                                       monkeypatch):
    # Saved as a preset file, the car on show was another file's: the script's car kept none of the edits, where
    # Discard kept the one it does not set.
    from PySide6.QtWidgets import QFileDialog

    window = carbench_window
    model = window.model
    assert window.params.edit("body.mass", 1300.0) and window.params.edit("body.cg_height", 0.6)
    path = tmp_path / "sets_at_zero.toml"
    path.write_text(SET_AT_ZERO, encoding="utf-8")
    window.ask_unsaved = lambda doing: QMessageBox.StandardButton.Save
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a: (str(tmp_path / "tuned.toml"), ""))
    assert window.load_script(path)
    assert (tmp_path / "tuned.toml").is_file()
    assert model.session.params.body.cg_height == 0.6 and model.session.params.body.mass == 1600.0  # (1000 on replay)
    assert "replays with your edits: body.cg_height = 0.6 m" in window.status_message.toolTip()


def test_a_script_that_sets_a_parameter_to_the_presets_own_value_sets_it_too(carbench_window, tmp_path):
    # The parameters a script sets were found by comparing values: a [[set]] of the preset's own 1600 kg counted as
    # none, and the user's 1300 kg replaced it without a question.
    window = carbench_window
    assert window.params.edit("body.mass", 1300.0)
    path = tmp_path / "preset_mass.toml"
    path.write_text(SET_AT_ZERO.replace("1000.0", "1600.0"), encoding="utf-8")
    asked = []
    window.ask_unsaved = lambda doing: asked.append(doing) or QMessageBox.StandardButton.Cancel
    assert not window.load_script(path)
    assert asked == ["load a script that sets body.mass itself"]


def test_a_previous_scripts_own_settings_are_not_kept_as_edits(carbench_window, tmp_path):
    # After a replay of a script that set the mass and grip, the next script of the car took them for the user's
    # edits: "replays with your edits: body.mass = 1000 kg, tyres.mu = 0.5", and drove otherwise than its file.
    from physics.presets import scripts_dir

    window = carbench_window
    path = tmp_path / "sets_at_zero.toml"
    path.write_text(SET_AT_ZERO, encoding="utf-8")
    assert window.load_script(path)
    window.model.replay()
    window.model.advance(window.model.session.program.frames)
    assert not window.model.modified and window.model.session.params.body.mass == 1000.0
    assert window.load_script(scripts_dir() / "split_mu_braking.toml")  # another sedan script
    assert "your edits" not in window.status_message.toolTip()
    assert window.model.session.params == window.model.session.program.params


def test_resets_are_refused_while_a_script_replays(replaying):
    # A typed edit was refused during a replay, a reset went through: the panel showed the preset's values while
    # the replay drove on with the script's.
    window = replaying
    session, steps = window.model.session, window.model.undo_stack.count()
    for reset in (lambda: window.params.reset(None), lambda: window.params.reset_param("tyres.mu")):
        assert reset() is False
        assert _status(window) == "the script sets the parameters while it replays; edit them when it is over"
        assert session.params.body.mass == 1000.0 and session.params.tyres.mu == 0.5
        assert window.params.rows["body.mass"].editors[0].spin.value() == 1000.0  # the panel shows the car driven
        assert window.model.undo_stack.count() == steps
    window.model.advance(30)
    assert session.params.body.mass == 1000.0  # nothing was waiting to be applied either


def test_the_edit_history_is_only_shown_while_a_script_replays(carbench_window, tmp_path):
    # A click on an entry of Edit > Edit history undid through the stack itself, past the window's guard: the
    # session refused inside QUndoCommand.undo (a traceback from Qt's call) and the list marked a step it never made.
    window = carbench_window
    assert window.params.edit("body.cg_height", 0.6)  # an edit the script keeps, and its history with it
    path = tmp_path / "sets_at_zero.toml"
    path.write_text(SET_AT_ZERO, encoding="utf-8")
    assert window.load_script(path)
    window.model.replay()
    window.model.advance(30)
    assert window.model.undo_stack.count() == 1
    window.show_history()
    view = window._history.findChild(QUndoView)
    assert not view.isEnabled()
    said = []
    window.model.edit_refused.connect(said.append)
    window.model.undo_stack.setIndex(0)  # what a click does, whatever the view's state
    assert window.model.session.params.body.cg_height == 0.6
    assert said and all("the script sets the parameters while it replays" in s for s in said)
    window.model.advance(window.model.session.program.frames)  # the replay ends
    assert not window.model.session.replaying and view.isEnabled()


def test_a_reset_that_would_leave_no_car_says_why(carbench_window):
    window = carbench_window
    session = window.model.session
    for path, value in (("body.length", 6.0), ("body.wheelbase", 4.0), ("body.lr", 3.5)):
        assert window.params.edit(path, value)
    assert window.params.reset(["body.wheelbase"]) is False  # the preset's 2.85 m, with lr 3.5 m: no car
    assert _status(window) == "body.lr = 3.5 m: must be less than the wheelbase (2.85 m)"
    assert session.params.body.wheelbase == 4.0
    assert window.params.reset(None)  # all of them together make the preset's car
    assert session.params == session.preset.params


LATER_SET = """
[script]
name = "later-set"
preset = "sedan"
duration = 3.0

[[set]]
at = 1.0
params = { "tyres.mu" = 0.8 }

[[hold]]
keys = ["throttle"]
from = 0.0
to = 3.0
"""


def test_edits_kept_for_a_script_of_the_car_on_show_last_past_its_own_settings(carbench_window, tmp_path):
    # The edits were put into the replay's frame-0 parameters only: at the script's first [[set]] (of another
    # parameter) the car went back to the preset's mass. And the window did not say it kept them.
    window = carbench_window
    assert window.params.edit("body.mass", 1300.0)
    path = tmp_path / "later_set.toml"
    path.write_text(LATER_SET, encoding="utf-8")
    assert window.load_script(path)
    assert "replays with your edits: body.mass = 1300 kg" in window.status_message.toolTip()
    window.model.replay()
    window.model.advance(200)  # past the [[set]] at 1 s (frame 120)
    session = window.model.session
    assert session.params.tyres.mu == 0.8 and session.params.body.mass == 1300.0


def test_a_saved_recording_loaded_again_replays_what_was_driven(carbench_window, tmp_path):
    # An edit made while recording is the recording's own [[set]]; the car on show still had it at the end, and
    # loading the saved recording kept it as a user's edit from frame 0: the replay differed from the first frame.
    window = carbench_window
    model, session = window.model, window.model.session
    window.record()
    model.press("throttle")
    model.advance(200)
    assert window.params.edit("tyres.mu", 0.5)
    model.press("left")
    model.advance(200)
    model.release("left")
    model.release("throttle")
    model.stop_recording()
    driven = session.whole_run("driven").data["speed"].copy()
    assert window.save_recording(tmp_path / "drive.toml")
    assert session.params.tyres.mu == 0.5  # the car on show ends with the recording's edit

    assert window.load_script(tmp_path / "drive.toml")
    assert "the script sets tyres.mu itself" in window.status_message.toolTip()
    model.replay()
    model.advance(len(driven))
    replayed = session.whole_run("replayed").data["speed"]
    assert replayed[:len(driven)].tobytes() == driven.tobytes()


def test_return_in_a_box_with_nothing_typed_changes_nothing(carbench_window, qtbot):
    # The text on show (five significant digits) was read back as the value: the steering lock 0.55 rad
    # (31.513 deg shown) became 0.5500056 rad, marked modified, with a step in the history.
    window = carbench_window
    session = window.model.session
    assert window.params.edit("steering.lock", 0.55) and window.params.edit("clutch.sync_time", 1.0 / 60.0)
    steps = window.model.undo_stack.count()
    for path in ("steering.lock", "clutch.sync_time", "body.mass", "aids.esc_threshold"):
        before = session.params.get(path)
        _type(window, qtbot, path, "")
        assert session.params.get(path) == before, path
    assert window.model.undo_stack.count() == steps


def test_a_decimal_comma_is_read_as_the_point_where_the_locale_writes_one(carbench_window, qtbot):
    # The comma was dropped as an invalid key: "2,7" m read 27 m, and "1,500" kg read 1500 kg by chance.
    from PySide6.QtCore import QLocale

    window = carbench_window
    before = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.German, QLocale.Country.Germany))
    try:
        _type(window, qtbot, "body.wheelbase", "2,7")
    finally:
        QLocale.setDefault(before)
    assert window.model.session.params.body.wheelbase == 2.7
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
    try:  # where the point is the decimal point a comma separates whole thousands, or is a slip: not guessed
        _type(window, qtbot, "body.mass", "1,500")
        assert window.model.session.params.body.mass == 1500.0
        _type(window, qtbot, "body.wheelbase", "2,8")
    finally:
        QLocale.setDefault(before)
    assert window.model.session.params.body.wheelbase == 2.7
    assert _status(window) == ("body.wheelbase: '2,8' is not a finite number (the decimal point is a point, and "
                               "commas only separate whole thousands); not changed")


@pytest.mark.parametrize("text", ["-", ".", "1.5e", "e5", "1e309", "2x0y0", "abc!!", "nan", "inf"])
def test_a_text_that_is_no_number_says_so(carbench_window, qtbot, text):
    # The box put its value back without a word; letters were dropped as they were typed ("2x0y0" taken as 200).
    window = carbench_window
    _type(window, qtbot, "body.mass", text)
    assert window.model.session.params.body.mass == 1600.0
    assert _status(window) == f"body.mass: {text!r} is not a finite number; not changed"


def test_a_tiny_value_is_kept_as_typed_and_a_refused_one_in_the_digits_that_tell_it_from_the_limit(
        carbench_window, qtbot):
    # Typed values were rounded to 10 decimals (1e-11 m/s became 0), and a refused one written as :g ("mass =
    # 1e+06 kg: ... allowed: ... <= 1e+06 kg").
    window = carbench_window
    session = window.model.session
    _type(window, qtbot, "model.stop_speed", "1e-11")
    assert session.params.model.stop_speed == 1e-11
    _type(window, qtbot, "body.mass", "1000000.0000001")
    assert session.params.body.mass == 1600.0
    assert _status(window).startswith("body.mass = 1000000.0000001 kg: is out of range; allowed:")
    # a value the model takes but the box keeps out (an open bound, by a hair) says the box's range
    _type(window, qtbot, "steering.lock", "1e-300")
    assert _status(window) == "steering.lock = 1e-300 deg: the box takes 5.7296e-08 to 80 deg; not changed"
    _type(window, qtbot, "model.stop_speed", "-0")
    assert math.copysign(1.0, session.params.model.stop_speed) == 1.0  # 0, not a negative zero


def test_the_overhang_message_names_the_wheelbase_typed(carbench_window, qtbot):
    window = carbench_window
    _type(window, qtbot, "body.wheelbase", "4")
    assert _status(window) == ("body.front_overhang = 0.8 m: with the wheelbase (4 m) it reaches 4.8 m from the rear axle, "
                               "past the length (4.71 m)")


def test_a_recording_of_a_preset_whose_file_name_is_not_utf8_is_refused_in_a_line(carbench_window, tmp_path,
                                                                                 monkeypatch):
    # The preset's path, named in the script, could not be encoded: UnicodeEncodeError out of Save recording (a
    # traceback in the slot). A script cannot hold such a name so that the file is found again: refused, kept.
    import os

    from physics.presets import cars_dir

    window = carbench_window
    preset = tmp_path / os.fsdecode(b"car\xe9.toml")
    preset.write_text((cars_dir() / "sedan.toml").read_text(encoding="utf-8"), encoding="utf-8")
    assert window.load_preset(preset)
    said = []
    monkeypatch.setattr(window, "show_error", lambda title, text: said.append(text))
    window.record()
    window.model.press("throttle")
    window.model.advance(30)
    window.model.stop_recording()
    assert not window.save_recording(tmp_path / "drive.toml")
    assert said == [f"{tmp_path / 'drive.toml'}: not written: a name in it is not UTF-8 (`preset = "
                    f"\"{tmp_path}/car\\xe9.toml\"`): a file name's bytes, which a script cannot hold; rename that "
                    "file"]
    assert not (tmp_path / "drive.toml").exists() and window.model.session.recording_unsaved


def test_a_step_through_the_history_the_car_refuses_leaves_the_history_where_it_was(carbench_window, qtbot):
    # An undo or redo the car refused (said in the status bar) still moved the stack's index at the newest frame, by
    # Ctrl+Z or by a click in the Edit history list: the list then showed an edit undone that the car still had.
    from workbench.gui.undo import ParamsCommand

    window = carbench_window
    model = window.model
    assert window.params.edit("body.mass", 1300.0)
    lr = model.session.params.body.lr
    # an entry whose undo asks for what the car cannot take (lr past its 2.85 m wheelbase)
    model.undo_stack.push(ParamsCommand(model, "body.lr = odd", {"body.lr": 3.0}, {"body.lr": lr}))
    assert model.undo_stack.index() == 2

    window.undo()
    assert model.undo_stack.index() == 2 and model.session.params.body.lr == lr
    said = window.status_message.toolTip()
    assert said.startswith("cannot undo body.lr = odd: ") and "wheelbase" in said

    window.show_history()
    view = window._history.findChild(QUndoView)
    qtbot.waitExposed(window._history)
    first = view.visualRect(view.model().index(0, 0)).center()  # "(the preset as loaded)": two steps back
    QTest.mouseClick(view.viewport(), LEFT, NONE, first)
    assert model.undo_stack.index() == 2 and model.session.params.body.mass == 1300.0

    model.undo_stack.command(1).before = {"body.lr": lr}  # the entry made harmless: the click goes through
    QTest.mouseClick(view.viewport(), LEFT, NONE, first)
    assert model.undo_stack.index() == 0 and model.session.params.body.mass == 1600.0
    second = view.visualRect(view.model().index(2, 0)).center()
    QTest.mouseClick(view.viewport(), LEFT, NONE, second)
    assert model.undo_stack.index() == 2 and model.session.params.body.mass == 1300.0


def test_a_script_that_cannot_be_read_is_refused_before_the_unsaved_edits_are_asked_about(carbench_window, tmp_path):
    # With edits unsaved, loading a script with a typo asked "Save them before you load a script?" and then said the
    # script could not be loaded: a question about losing the edits for a load that could not happen.
    window = carbench_window
    assert window.params.edit("body.mass", 1300.0)
    path = tmp_path / "typo.toml"
    path.write_text('[script]\nname = "typo"\npreset = "sedan"\nduration = "ten"\n', encoding="utf-8")
    asked = []
    window.ask_unsaved = lambda doing: asked.append(doing) or QMessageBox.StandardButton.Discard
    assert not window.load_script(path)
    assert asked == []
    title, said = window.shown_errors[-1]
    assert title == "Script not loaded" and said.startswith(f"{path}: [script] duration"), said
    assert window.model.modified and window.model.session.params.body.mass == 1300.0


def test_a_refusal_writes_its_units_as_the_panel_does(carbench_window):
    """Gravity typed as 0: "model.gravity = 0 m/s\u00b2: ... <= 10000 m/s^2", the panel's unit and the file's in one
    line."""
    window = carbench_window
    assert not window.params.edit("model.gravity", 0.0)
    text = window.params.status.text()
    assert "m/s\u00b2" in text and "^" not in text, text
    assert not window.params.edit("body.yaw_inertia", 1e12)
    assert "kg m\u00b2" in window.params.status.text() and "^" not in window.params.status.text()
