"""A recording stopped before any frame was driven: no script to save or replay (it was saved as a script of one frame
nobody drove, without the edit made in it: its replay drove that frame on the car before the edit)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox


def record_a_drive(model) -> None:
    """Start a recording and drive 30 frames at full throttle in it (the recording runs on)."""
    model.start_recording()
    model.press("throttle")
    model.advance(30)
    model.release("throttle")


def test_a_recording_of_no_frame_is_not_saved_nor_loaded(carbench_window, tmp_path):
    w = carbench_window
    model, session = w.model, w.model.session
    model.start_recording()
    model.set_param("body.mass", 1800.0)  # an edit, and no frame driven
    model.stop_recording()
    assert session.log.frames == 0 and session.last_recording is None
    assert session.program is None  # nothing loaded to replay
    assert not w.recorder.save.isEnabled()
    assert not w.save_recording(tmp_path / "empty.toml")
    assert w.shown_errors[-1][0] == "Nothing to save" and not (tmp_path / "empty.toml").exists()
    assert session.params.body.mass == 1800.0  # the edit stays the car's


def test_a_recording_of_no_frame_keeps_the_one_before(carbench_window, tmp_path):
    w = carbench_window
    model, session = w.model, w.model.session
    record_a_drive(model)
    model.stop_recording()
    assert w.save_recording(tmp_path / "drive.toml")
    first = session.last_recording
    assert first is not None and first.frames == 30
    model.start_recording()
    model.stop_recording()
    assert session.last_recording is first and w.recorder.save.isEnabled()
    assert model.recording_to_save().endswith(", saved")
    model.start_recording()
    model.let_go_recording()  # a recording of no frame discarded: the one before it stays saved, not "discarded"
    assert session.last_recording is first and model.recording_to_save().endswith(", saved")


@pytest.mark.parametrize("how", ["let go", "discarded at Record"])
def test_a_recording_of_no_frame_after_one_discarded_leaves_it_discarded(carbench_window, how):
    # (the review) the discarded recording stayed the last one, but was called "saved", and Save offered it
    w = carbench_window
    model, session = w.model, w.model.session
    record_a_drive(model)
    if how == "let go":
        model.let_go_recording()
    else:
        model.stop_recording()
        assert model.recording_to_save().endswith(", not saved")
        w.ask_recording = lambda doing: QMessageBox.StandardButton.Discard
    first = session.last_recording
    assert w.record()
    model.stop_recording()  # no frame
    assert session.last_recording is first
    assert model.recording_to_save().endswith(", discarded"), model.recording_to_save()
    # a recording driven after it replaces it, and the one let go is held no longer
    assert w.record()
    model.advance(5)
    model.stop_recording()
    assert session.last_recording is not first and model.recording_to_save().endswith(", not saved")
    assert model._let_go is None
