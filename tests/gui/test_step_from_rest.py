"""N (single step) and . / , (one frame forward / back) from the car at rest, before anything was stepped.

A script just loaded (or a reset) leaves the history empty; every view then says frame 0 (the car at rest). The
first N stepped frame 0 only and showed frame 0 again: the press seemed lost and a second one was needed.
"""

import pytest
from PySide6.QtCore import Qt


def _at(window, frame):
    """Frame ``frame`` is on show: in the model (-1, nothing stepped, is shown as frame 0), the status bar and the
    recorder's timeline."""
    model = window.model
    assert max(model.shown_frame(), 0) == frame
    assert window.status_time.text().split()[-1] == str(frame)
    assert window.recorder.timeline.value() == frame


@pytest.mark.carbench_script("braking_stop")
def test_the_first_n_after_loading_a_script_shows_frame_1(carbench_window, qtbot):
    window = carbench_window
    model = window.model
    assert model.session.log.frames == 0 and not model.session.replaying
    _at(window, 0)
    window.car_view.setFocus()
    qtbot.keyClick(window.car_view, Qt.Key.Key_N)
    _at(window, 1)
    assert model.session.log.frames == 2 and not model.running
    assert float(window.model.session.log.column("t")[1]) == pytest.approx(model.session.dt)
    qtbot.keyClick(window.car_view, Qt.Key.Key_N)
    _at(window, 2)
    assert model.session.log.frames == 3


@pytest.mark.carbench_script("braking_stop")
def test_the_first_step_of_a_replay_paused_at_its_start_shows_its_frame_1(carbench_window, qtbot):
    window = carbench_window
    model = window.model
    model.replay()
    model.set_running(False)
    assert model.session.log.frames == 0 and model.session.replaying
    window.recorder.step.click()
    _at(window, 1)
    assert model.session.log.frames == 2 and model.session.replaying


def test_after_a_reset_the_first_forward_step_shows_frame_1_and_a_back_step_stays_at_rest(carbench_window, qtbot):
    window = carbench_window
    model = window.model
    window.hold({"throttle"}, 0.5)
    window.car_view.setFocus()
    qtbot.keyClick(window.car_view, Qt.Key.Key_R)
    assert model.session.log.frames == 0
    qtbot.keyClick(window.car_view, Qt.Key.Key_Comma)  # nothing before frame 0, and nothing recorded to show
    assert model.view_frame is None and model.session.log.frames == 0
    _at(window, 0)
    qtbot.keyClick(window.car_view, Qt.Key.Key_Period)
    _at(window, 1)
    assert model.session.log.frames == 2
    qtbot.keyClick(window.car_view, Qt.Key.Key_Comma)
    _at(window, 0)
    assert model.session.log.frames == 2  # back through the history: no new step
