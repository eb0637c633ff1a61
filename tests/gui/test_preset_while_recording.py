"""Opening another preset during a recording asks first, as closing does (Save, Discard or Cancel): it stopped the
recording without a word (kept unsaved). So does undoing or redoing a preset load (it ended the recording too)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from physics.presets import cars_dir
from workbench.gui.recovery import RecoveryKeeper
from workbench.gui.testing import hold
from workbench.runs.recovery import RecoveryStore
from workbench.scripts.format import load_script

Button = QMessageBox.StandardButton


def test_opening_a_preset_while_recording_asks_save_discard_or_cancel(carbench_window, tmp_path):
    window = carbench_window
    session = window.model.session
    keeper = RecoveryKeeper(window, RecoveryStore(tmp_path, pid=999_999_993))
    keeper.timer.stop()
    tail_happy, sedan = cars_dir() / "tail_happy.toml", cars_dir() / "sedan.toml"
    asked, answers = [], [Button.Cancel, Button.Save, Button.Discard, Button.Save]
    window.ask_recording = lambda doing: asked.append(doing) or answers.pop(0)
    window.ask_save_path = lambda *args: ""  # the file dialog cancelled
    window.model.start_recording()
    hold(window, {"throttle"}, 30)

    assert not window.load_preset(tail_happy)  # Cancel: nothing happens, the recording runs on
    assert asked == ["load another preset"] and session.recording and session.preset.name == "sedan"
    assert not window.load_preset(tail_happy)  # Save, and no file chosen: as Cancel (it stopped the recording)
    assert len(asked) == 2 and session.recording and session.preset.name == "sedan"
    hold(window, {"throttle"}, 10)
    assert session.log.frames == 40

    keeper.save_now()  # the recording, kept for a crash
    assert window.load_preset(tail_happy)  # Discard: the car changes and the recording is let go
    assert session.preset.name == "tail_happy" and not session.recording and not session.recording_unsaved
    assert not keeper.store.path.exists()  # not kept for a crash either (it was, until the next save, 3 s on)
    window.ask_recording = lambda doing: pytest.fail("asked about a recording discarded")
    assert window._confirm_recording("close")

    window.ask_recording = lambda doing: asked.append(doing) or answers.pop(0)
    window.ask_save_path = lambda *args: str(tmp_path / "drive.toml")
    window.model.start_recording()
    hold(window, {"left"}, 25)
    assert window.load_preset(sedan)  # Save: saved first, then the car changes
    assert len(asked) == 4 and session.preset.name == "sedan" and not session.recording_unsaved
    saved = load_script(tmp_path / "drive.toml")
    assert saved.frames == 25 and saved.preset == "tail_happy"  # the drive on the car it was recorded on

    window.ask_recording = lambda doing: pytest.fail("asked with no recording running")
    assert window.load_preset(tail_happy)  # not recording: nothing to ask


def test_undoing_or_redoing_a_preset_load_while_recording_asks_as_opening_one_does(carbench_window, tmp_path):
    window = carbench_window
    session, stack = window.model.session, window.model.undo_stack
    keeper = RecoveryKeeper(window, RecoveryStore(tmp_path, pid=999_999_992))
    keeper.timer.stop()
    assert window.load_preset(cars_dir() / "tail_happy.toml")
    asked, answers = [], [Button.Cancel, Button.Save, Button.Discard, Button.Save]
    window.ask_recording = lambda doing: asked.append(doing) or answers.pop(0)
    window.ask_save_path = lambda *args: ""  # the file dialog cancelled
    window.model.start_recording()
    hold(window, {"throttle"}, 20)
    index = stack.index()

    window.undo()  # Ctrl+Z, Cancel: the undo is not done, the recording runs on
    assert asked == ["load another preset"] and stack.index() == index
    assert session.recording and session.preset.name == "tail_happy"
    window.undo()  # Save, and no file chosen: as Cancel
    assert len(asked) == 2 and stack.index() == index and session.recording and session.log.frames == 20

    keeper.save_now()
    stack.undo()  # the stack's own undo (it ended the recording without a word), Discard: let go
    assert len(asked) == 3 and stack.index() == index - 1 and session.preset.name == "sedan"
    assert not session.recording and not session.recording_unsaved and not keeper.store.path.exists()

    window.model.start_recording()
    hold(window, {"left"}, 15)
    window.ask_save_path = lambda *args: str(tmp_path / "drive.toml")
    window.redo()  # Save: saved, then the car changes
    assert len(asked) == 4 and stack.index() == index and session.preset.name == "tail_happy"
    assert not session.recording and not session.recording_unsaved
    assert load_script(tmp_path / "drive.toml").frames == 15


def test_a_cancel_of_the_parameters_question_leaves_the_recording_running_and_unsaved(carbench_window, tmp_path):
    """Both questions are asked before either is acted on: Save to the recording, then Cancel to the unsaved
    parameters, saved and stopped the recording and loaded no preset (it was saved before the second question)."""
    window = carbench_window
    session = window.model.session
    window.model.set_param("body.mass", 1500.0)  # an unsaved edit
    window.ask_recording = lambda doing: Button.Save
    window.ask_unsaved = lambda doing: Button.Cancel
    window.ask_save_path = lambda *args: pytest.fail("a file asked for before both questions were answered")
    window.model.start_recording()
    hold(window, {"throttle"}, 12)
    assert not window.load_preset(cars_dir() / "tail_happy.toml")
    assert session.recording and session.log.frames == 12 and session.preset.name == "sedan"
    assert session.params.body.mass == 1500.0
    window.ask_unsaved = lambda doing: Button.Discard  # now the recording is saved, then the car changes
    window.ask_save_path = lambda *args: str(tmp_path / "drive.toml")
    assert window.load_preset(cars_dir() / "tail_happy.toml")
    assert session.preset.name == "tail_happy" and not session.recording
    assert load_script(tmp_path / "drive.toml").frames == 12


def test_a_preset_that_cannot_be_loaded_is_refused_before_anything_is_asked(carbench_window, tmp_path):
    """Ctrl+O of a file that is not valid TOML while recording: it asked about the recording first (a Save stopped it
    for a car that never came), then said the file was not valid. The file is refused first, and the recording runs
    on untouched."""
    window = carbench_window
    session = window.model.session
    window.ask_recording = lambda doing: pytest.fail("asked about the recording before the file was read")
    window.ask_unsaved = lambda doing: pytest.fail("asked about the edits before the file was read")
    shown = []
    window.show_error = lambda title, text: shown.append((title, text))
    bad = tmp_path / "bad_syntax.toml"
    bad.write_text("[body\nmass = 1200\n", encoding="utf-8")
    assert window.params.edit("body.mass", 1700.0)
    window.model.start_recording()
    hold(window, {"throttle"}, 30)
    assert not window.load_preset(bad)
    assert shown and shown[0][0] == "Preset not loaded" and str(bad) in shown[0][1]
    assert session.recording and session.preset.name == "sedan" and session.params.body.mass == 1700.0
    hold(window, {"throttle"}, 10)
    assert session.log.frames == 40
    window.ask_recording = window.ask_unsaved = lambda doing: Button.Discard  # the fixture's close


def test_a_save_of_the_recording_cancelled_leaves_it_recording(carbench_window, tmp_path):
    """Save (the Recorder's, or File > Save recording) during a recording stopped it before asking for the file: a
    dialog cancelled left it stopped, and what was driven after went unrecorded without a word."""
    window = carbench_window
    session = window.model.session
    window.model.start_recording()
    hold(window, {"throttle"}, 30)
    window.ask_save_path = lambda *args: ""  # the file dialog cancelled
    assert not window.save_recording_dialog()
    assert session.recording
    hold(window, {"left"}, 20)

    def slow_dialog(*args):  # the window's timer fires while the dialog is up (its own event loop)
        assert not window.model.running  # paused while the file is chosen
        window.model.tick(0.05)
        return str(tmp_path / "drive.toml")

    window.ask_save_path = slow_dialog
    assert window.save_recording_dialog()
    # the drive as it was at the click: the seconds in the dialog were not recorded (30 + 20 frames, not 30 + 20 + 6)
    assert not session.recording and load_script(tmp_path / "drive.toml").frames == 50
    assert window.model.running  # and it drives on as before
    window.ask_recording = window.ask_unsaved = lambda doing: Button.Discard
