"""What a seventh look at the window found, using it as a hurried engineer would: a Replay with a frame on show past
the script's length (driven on, then stepped back) raised in the car view's slot."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from workbench.gui.testing import hold


def test_replay_with_a_frame_on_show_past_the_scripts_length_starts_at_frame_0(carbench_window):
    """Driven on past the script's length, stepped back a frame (the , key) and Replay clicked: the views were told of
    the script's parameters while the frame scrubbed to was still the one on show, and the car view read it from the
    replay's new log, sized to the script (IndexError in its slot). The replay now starts on its frame 0."""
    window = carbench_window
    assert window.load_script("presets/scripts/braking_stop.toml")
    frames = window.model.session.program.frames
    hold(window, {"throttle"}, frames + 40)
    window.car_view.setFocus()
    QTest.keyClick(window.car_view, Qt.Key.Key_Comma)  # step back: the frame on show is past the script's end
    assert window.model.view_frame is not None and window.model.view_frame >= frames
    QTest.mouseClick(window.recorder.replay, Qt.MouseButton.LeftButton)
    assert window.model.session.replaying and window.model.view_frame is None
    assert window.model.shown_frame() == window.model.session.log.frames - 1
    window.model.advance(10)
    assert window.model.session.log.frames == 10 and not window.shown_errors
