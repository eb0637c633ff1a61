"""Opening another preset during a recording asks first, as closing does (Save, Discard or Cancel): it stopped the
recording without a word (kept unsaved)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from physics.presets import cars_dir
from workbench.gui.testing import hold
from workbench.scripts.format import load_script

Button = QMessageBox.StandardButton


def test_opening_a_preset_while_recording_asks_save_discard_or_cancel(carbench_window, tmp_path):
    window = carbench_window
    session = window.model.session
    tail_happy, sedan = cars_dir() / "tail_happy.toml", cars_dir() / "sedan.toml"
    asked, answers = [], [Button.Cancel, Button.Discard, Button.Save]
    window.ask_recording = lambda doing: asked.append(doing) or answers.pop(0)
    window.ask_save_path = lambda *args: str(tmp_path / "drive.toml")
    window.model.start_recording()
    hold(window, {"throttle"}, 30)

    assert not window.load_preset(tail_happy)  # Cancel: nothing happens, the recording runs on
    assert asked == ["load another preset"] and session.recording and session.preset.name == "sedan"
    hold(window, {"throttle"}, 10)
    assert session.log.frames == 40

    assert window.load_preset(tail_happy)  # Discard: the car changes and the recording is let go
    assert session.preset.name == "tail_happy" and not session.recording and not session.recording_unsaved
    window.ask_recording = lambda doing: pytest.fail("asked about a recording discarded")
    assert window._confirm_recording("close")

    window.ask_recording = lambda doing: asked.append(doing) or answers.pop(0)
    window.model.start_recording()
    hold(window, {"left"}, 25)
    assert window.load_preset(sedan)  # Save: saved first, then the car changes
    assert len(asked) == 3 and session.preset.name == "sedan" and not session.recording_unsaved
    saved = load_script(tmp_path / "drive.toml")
    assert saved.frames == 25 and saved.preset == "tail_happy"  # the drive on the car it was recorded on

    window.ask_recording = lambda doing: pytest.fail("asked with no recording running")
    assert window.load_preset(tail_happy)  # not recording: nothing to ask
