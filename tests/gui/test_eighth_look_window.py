"""What an eighth look at the window found: Record enabled while a recording ran (a second press offered to throw the
take away and start over)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from workbench.gui.testing import hold


def test_record_is_disabled_while_a_recording_runs_in_the_recorder_and_the_file_menu(carbench_window):
    """Record pressed during a recording asked "Save it before you record again?" and, answered Discard, threw the
    drive away and started over from rest (a press meant as Stop lost the take). It is disabled while a recording
    runs, in the Recorder and in File (which has Record and Stop recording beside Save recording now): Stop ends a
    recording, R restarts it."""
    window = carbench_window
    session, recorder = window.model.session, window.recorder
    window.ask_recording = lambda doing: pytest.fail(f"asked about the recording running before you {doing}")
    assert recorder.record.isEnabled() and window.record_action.isEnabled()
    assert not recorder.stop.isEnabled() and not window.stop_recording_action.isEnabled()
    recorder.record.click()
    assert session.recording
    hold(window, {"throttle"}, 30)
    assert not recorder.record.isEnabled() and not window.record_action.isEnabled()
    assert recorder.stop.isEnabled() and window.stop_recording_action.isEnabled()
    assert "Stop ends it" in recorder.record.toolTip()
    recorder.record.click()
    window.record_action.trigger()
    assert not window.record()  # called all the same: nothing asked, nothing lost
    assert session.recording and session.log.frames == 30
    assert "a recording is running" in window.status_message.full_text()

    window.stop_recording_action.trigger()
    assert not session.recording and session.last_recording is not None
    assert recorder.record.isEnabled() and window.record_action.isEnabled()
    assert not recorder.stop.isEnabled() and not window.stop_recording_action.isEnabled()
    file_menu = window.menuBar().actions()[0].menu()
    names = [a.text() for a in file_menu.actions()]
    at = names.index("Record")
    assert names[at + 1] == "Stop recording" and names[at + 2].startswith("Save recording")
    window.ask_recording = lambda doing: QMessageBox.StandardButton.Discard  # (closed with it not saved)
