"""Scripts in the window: loading one behaves one way, driving on from a past frame keeps the script."""

import pytest
from PySide6.QtWidgets import QMessageBox

from workbench.gui.main_window import MainWindow
from workbench.gui.testing import drive, hold
from workbench.runs.live import LiveSession

SCRIPT = "presets/scripts/clutch_coast.toml"


def _refuse(doing):
    raise AssertionError(f"asked to save before: {doing}")


def _loaded_paused_at_rest(window):
    model = window.model
    assert not model.running
    assert model.shown_frame() <= 0
    assert "(live)" not in window.recorder.position.text()
    assert "paused" in window.recorder.position.text()
    assert all(v is None for v in model.session.verdicts())


@pytest.mark.carbench_preset("manual003")
def test_a_script_loads_the_same_way_the_first_and_second_time_and_from_the_command_line(
        carbench_window, carbench_settings, qtbot):
    window = carbench_window
    assert window.load_script(SCRIPT)
    _loaded_paused_at_rest(window)
    window.model.set_running(True)
    hold(window, {"throttle"}, 30)
    assert window.load_script(SCRIPT)
    _loaded_paused_at_rest(window)
    # carbench --script: the window is made, then the script loaded (workbench.gui.app.run_app)
    other = MainWindow(LiveSession("sedan"), settings=carbench_settings, start_timer=False)
    qtbot.addWidget(other)
    other.model.load_script(SCRIPT)
    _loaded_paused_at_rest(other)


@pytest.mark.carbench_preset("manual003")
def test_drive_on_from_a_past_frame_goes_live_judges_the_script_and_stop_keeps_it(carbench_window, tmp_path):
    window = carbench_window
    model = window.model
    drive(window, SCRIPT)
    session = model.session
    name, expects = session.program.name, len(session.program.script.expects)
    model.set_running(False)
    model.set_view_frame(100)
    assert "(live)" not in window.recorder.position.text()
    window.drive_on_action.trigger()
    assert model.running  # live at once: the keys drive
    assert session.recording and session.log.frames == 100
    frames = session.program.frames
    hold(window, {"throttle"}, frames - 100 + 30)  # past the script's end
    verdicts = session.verdicts()
    assert len(verdicts) == expects and all(v is not None for v in verdicts)  # judged on this run
    assert window.recorder.summary.full_text().endswith("0 pending")
    model.stop_recording()
    assert session.program.name == name  # the script stays loaded, not "recording"
    assert len(session.program.script.expects) == expects
    assert session.last_recording is not None  # and the drive is kept, to save
    # the drive saved as my_drive is called so
    assert window.save_recording(tmp_path / "my_drive.toml")
    assert session.last_recording.name == "my_drive"


@pytest.mark.carbench_preset("manual003")
def test_reloading_the_script_of_the_car_on_show_keeps_the_edits_without_asking(carbench_window):
    window = carbench_window
    assert window.load_script(SCRIPT)
    assert window.params.edit("engine.peak_torque", 400.0)
    window.ask_unsaved = _refuse
    assert window.load_script(SCRIPT)
    session = window.model.session
    assert session.params.engine.peak_torque == pytest.approx(400.0)
    assert window.model.modified
    window.ask_unsaved = lambda doing: QMessageBox.StandardButton.Discard
    window.replay()
    window.model.advance(5)
    assert session.params.engine.peak_torque == pytest.approx(400.0)  # the replay drives the edited car


def test_a_scripts_expectations_say_they_are_not_judged_while_the_keys_drive(carbench_window):
    """After a reset with a script loaded, driving with the keys left its expectations "pending" at 30 s as at 0."""
    from physics.presets import scripts_dir

    window = carbench_window
    assert window.load_script(scripts_dir() / "braking_stop.toml")
    assert window.recorder.summary.full_text().endswith("pending")  # at rest, for Replay
    window.hold(["throttle"], 1.0)
    assert window.recorder.summary.full_text() == "not judged: the keys drive, not the script (Replay runs and judges it)"
    # and the line fits a 1024 px screen: as a plain label it held the window at 1,058 px at the least
    assert window.minimumSizeHint().width() <= 1024, window.minimumSizeHint()
    statuses = {window.recorder.verdicts.topLevelItem(i).text(0)
                for i in range(window.recorder.verdicts.topLevelItemCount())}
    assert statuses == {"not judged"}
