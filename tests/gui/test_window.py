"""The workbench window, offscreen: it opens, drives, edits, records, scrubs, remembers and refuses."""

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QDockWidget, QMessageBox

from physics import Inputs, Simulation, load_preset
from workbench.gui.param_panel import unused
from workbench.gui.testing import drive, hold, make_window
from workbench.runs.replay import replay
from workbench.scripts.program import compile_script

PRESETS = ["sedan", "manual003", "parking", "teaching", "f1tenth", "classic"]

# The window tests pin 003's numbers (350 N m, lr = 1.3 m): they drive 003's car.
pytestmark = pytest.mark.carbench_preset("manual003")


@pytest.mark.parametrize("preset", PRESETS)
def test_window_opens_on_each_preset(qtbot, carbench_settings, preset):
    window = make_window(preset, carbench_settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert preset in window.windowTitle()
    names = {d.objectName() for d in window.findChildren(QDockWidget)}
    assert names == {"plots", "parameters", "telemetry", "watch", "recorder", "sweep", "compare", "kpis"}
    hold(window, {"throttle", "left"}, 240)
    log = window.model.session.log
    assert log.frames == 240
    assert log.column("speed")[-1] > 0
    # the parameter panel lists every parameter this car uses, and nothing else
    params = load_preset(preset).params
    assert set(window.params.rows) == {i.path for i in params.infos() if not unused(i, params)}
    # the car is drawn where the model says: the body outline surrounds the reference point
    body = window.car_view._body.polygon()
    xs = [body.at(i).x() for i in range(body.size())]
    assert min(xs) <= log.column("x")[-1] <= max(xs)


def test_arrow_keys_drive_the_car_as_the_model_says(carbench_window, qtbot):
    window = carbench_window
    window.car_view.setFocus()
    qtbot.keyPress(window.car_view, Qt.Key.Key_Up)
    qtbot.keyPress(window.car_view, Qt.Key.Key_Left)
    assert window.model.keys == {"throttle", "left"}
    window.model.advance(300)
    qtbot.keyRelease(window.car_view, Qt.Key.Key_Left)
    QApplication.processEvents()  # (the event loop runs between frames: a release lets go once it has)
    window.model.advance(60)
    qtbot.keyRelease(window.car_view, Qt.Key.Key_Up)
    QApplication.processEvents()
    assert window.model.keys == set()
    # the same keys for the same frames, headless
    sim = Simulation(load_preset("manual003").params)
    speeds = []
    for k in range(360):
        speeds.append(sim.step(Inputs.from_keys(1, {"throttle", "left"} if k < 300 else {"throttle"})).speed[0])
    assert np.array_equal(window.model.session.log.column("speed"), np.array(speeds))
    assert window.model.session.log.column("heading")[-1] > 0.5  # it turned left


def test_keys_go_to_an_editor_that_has_the_focus(carbench_window, qtbot):
    window = carbench_window
    spin = window.params.rows["engine.peak_torque"].editors[0].spin
    spin.setFocus()
    qtbot.keyPress(spin, Qt.Key.Key_Up)
    assert "throttle" not in window.model.keys


def test_parameter_edit_applies_on_the_next_step(carbench_window):
    window = carbench_window
    hold(window, {"throttle"}, 600)
    before = window.model.session.log.column("engine_torque")[-1]
    editor = window.params.rows["engine.peak_torque"].editors[0]
    editor.spin.setValue(450.0)
    assert window.model.session.params.engine.peak_torque == 450.0
    assert window.model.session.modified
    assert "\u25cf" in window.params.rows["engine.peak_torque"].label.text()
    assert "*" in window.windowTitle()
    hold(window, {"throttle"}, 1)
    after = window.model.session.log.column("engine_torque")[-1]
    assert after > before * 1.1
    window.params.rows["engine.peak_torque"].reset.click()
    assert window.model.session.params.engine.peak_torque == 350.0
    assert not window.model.session.modified


def test_out_of_range_edit_is_refused_and_shown(carbench_window):
    window = carbench_window
    assert not window.params.edit("body.lr", 3.0)  # lr must be shorter than the wheelbase
    assert window.model.session.params.body.lr == 1.3
    assert "lr" in window.params.status.text() and not window.params.status.isHidden()


def test_recording_made_in_the_window_replays_headless_identically(carbench_window):
    window = carbench_window
    model = window.model
    model.start_recording()
    hold(window, {"throttle"}, 400)
    window.params.rows["engine.peak_torque"].editors[0].spin.setValue(420.0)
    hold(window, {"throttle", "right"}, 300)
    hold(window, {"clutch"}, 100)
    script = model.stop_recording()
    assert script is not None and script.duration == pytest.approx(800 * model.session.dt)
    [result] = replay([compile_script(script)])
    assert result.log.digest(0, 800) == model.session.log.digest(0, 800)


def test_scrubbing_shows_the_car_at_a_past_frame(carbench_window):
    window = carbench_window
    hold(window, {"throttle", "left"}, 900)
    log = window.model.session.log
    window.recorder.timeline.setValue(300)
    assert window.model.view_frame == 300
    assert not window.model.running
    assert window.telemetry.table.value("x") == pytest.approx(log.column("x")[300])
    body = window.car_view._body.polygon()
    cx = np.mean([body.at(i).x() for i in range(4)])
    cy = np.mean([body.at(i).y() for i in range(4)])
    now_x, now_y = log.column("x")[-1], log.column("y")[-1]
    then_x, then_y = log.column("x")[300], log.column("y")[300]
    assert np.hypot(cx - then_x, cy - then_y) < 3.0 < np.hypot(cx - now_x, cy - now_y)
    row = window.plots.rows[0]
    dt = window.model.session.dt
    shown_x = (300 - (log.frames - 1)) * dt  # time from the newest frame
    assert row.now.isVisible() and row.now.value() == pytest.approx(shown_x)  # the time cursor on the plots
    x, y = row.curves["speed_kmh"].getData()
    at = int(np.argmin(np.abs(x - shown_x)))
    assert x[at] == pytest.approx(shown_x) and y[at] == pytest.approx(log.column("speed_kmh")[300])
    window.recorder.live.click()
    assert window.model.view_frame is None


def test_dock_layout_survives_a_restart(qtbot, tmp_path):
    path = str(tmp_path / "layout.ini")
    first = make_window("sedan", QSettings(path, QSettings.Format.IniFormat))
    qtbot.addWidget(first)
    first.show()
    first.telemetry_dock.hide()
    first.removeDockWidget(first.recorder_dock)
    first.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, first.recorder_dock)
    first.recorder_dock.show()
    first.plots.set_channel_sets([["rpm", "throttle"], ["beta"]])
    first.close()
    second = make_window("sedan", QSettings(path, QSettings.Format.IniFormat))
    qtbot.addWidget(second)
    second.show()
    assert second.telemetry_dock.isHidden()
    assert second.dockWidgetArea(second.recorder_dock) == Qt.DockWidgetArea.BottomDockWidgetArea
    assert second.plots.channel_sets() == [["rpm", "throttle"], ["beta"]]


def test_a_bad_preset_shows_the_error_and_keeps_the_car(carbench_window, tmp_path):
    window = carbench_window
    hold(window, {"throttle"}, 120)
    bad = tmp_path / "bad.toml"
    bad.write_text(load_preset("manual003").path.read_text().replace("mass = 1200.0", "mass = -5.0"))
    assert not window.load_preset(bad)
    title, message = window.shown_errors[-1]
    assert "bad.toml" in message and "body.mass" in message
    assert window.model.session.preset.name == "manual003"
    assert window.model.session.log.frames == 120  # what was driven is still there


def test_a_bad_script_shows_the_error_and_keeps_the_state(carbench_window, tmp_path):
    window = carbench_window
    hold(window, {"throttle"}, 60)
    bad = tmp_path / "bad_script.toml"
    bad.write_text('[script]\nname = "x"\npreset = "sedan"\nduration = 2.0\n[[expect]]\nchannel = "warp"\nat = 1.0\nmin = 0\n')
    assert not window.load_script(bad)
    assert "warp" in window.shown_errors[-1][1]
    assert window.model.session.program is None
    assert window.model.session.log.frames == 60


def test_closing_with_unsaved_edits_asks_first(carbench_window):
    window = carbench_window
    window.model.set_param("body.mass", 1300.0)
    asked = []
    window.ask_unsaved = lambda doing: asked.append(doing) or QMessageBox.StandardButton.Cancel
    window.close()
    assert asked == ["close"] and window.isVisible()
    window.ask_unsaved = lambda doing: QMessageBox.StandardButton.Discard
    window.close()
    assert not window.isVisible()


def test_closing_during_a_recording_asks_first_and_can_save_it(carbench_window, tmp_path, monkeypatch):
    window = carbench_window
    window.model.start_recording()
    hold(window, {"throttle"}, 60)
    asked = []
    window.ask_recording = lambda doing: asked.append(doing) or QMessageBox.StandardButton.Cancel
    window.close()
    assert asked == ["close"] and window.isVisible() and window.model.session.recording  # nothing lost
    path = tmp_path / "drive.toml"
    window.ask_recording = lambda doing: QMessageBox.StandardButton.Save
    monkeypatch.setattr("workbench.gui.main_window.QFileDialog.getSaveFileName",
                        lambda *args, **kwargs: (str(path), "Scripts (*.toml)"))
    window.close()
    assert not window.isVisible() and path.exists() and "throttle" in path.read_text()


def test_closing_with_a_stopped_recording_not_saved_asks_and_once_saved_does_not(carbench_window, tmp_path):
    window = carbench_window
    window.model.start_recording()
    hold(window, {"throttle"}, 30)
    window.model.stop_recording()
    asked = []
    window.ask_recording = lambda doing: asked.append(doing) or QMessageBox.StandardButton.Cancel
    window.close()
    assert asked == ["close"] and window.isVisible()  # stayed: the recording is still there to save
    assert window.save_recording(tmp_path / "drive.toml")
    window.ask_recording = lambda doing: pytest.fail("asked about a recording already saved")
    window.close()
    assert not window.isVisible() and "throttle" in (tmp_path / "drive.toml").read_text()


def test_recording_again_over_a_recording_never_saved_asks_first(carbench_window):
    window = carbench_window
    window.model.start_recording()
    hold(window, {"throttle"}, 30)
    window.model.stop_recording()
    first = window.model.session.last_recording
    asked = []
    window.ask_recording = lambda doing: asked.append(doing) or QMessageBox.StandardButton.Cancel
    window.recorder.record.click()
    assert asked == ["record again"] and not window.model.session.recording
    assert window.model.session.last_recording is first  # kept
    window.ask_recording = lambda doing: QMessageBox.StandardButton.Discard
    window.recorder.record.click()
    assert window.model.session.recording


def test_a_script_loaded_during_a_recording_stops_it_keeps_it_and_says_so(carbench_window):
    # It stopped silently; the recording is kept (asked about before it could be lost), and now the status says so.
    window = carbench_window
    window.model.start_recording()
    hold(window, {"throttle"}, 60)
    assert window.load_script("presets/scripts/clutch_coast.toml")
    session = window.model.session
    assert not session.recording and session.recording_unsaved and session.last_recording is not None
    said = window.status_message.toolTip()
    assert said.startswith("the recording stopped (") and "not saved yet" in said
    assert f"({session.last_recording.duration:.1f} s," in said


def test_the_question_about_a_stopped_recording_names_its_length(carbench_window, monkeypatch):
    window = carbench_window
    window.model.start_recording()
    hold(window, set(), 60)
    window.model.stop_recording()
    shown = []

    class Box:  # the question, answered Cancel without showing it (a modal box would wait for a click)
        def __init__(self, parent, title, text, buttons, default):
            shown.append((title, text))

        def exec(self):
            return int(QMessageBox.StandardButton.Cancel.value)

    monkeypatch.setattr("workbench.gui.main_window.keys_safe_question", Box)
    assert type(window).ask_recording(window, "close") == QMessageBox.StandardButton.Cancel
    ((title, text),) = shown
    assert title == "Recording not saved" and "has not been saved" in text and "before you close" in text
    assert f"({window.model.session.last_recording.duration:.1f} s on manual003)" in text  # and the car it was driven on


def test_a_saved_recording_whose_file_is_gone_is_asked_about_again(carbench_window, tmp_path, monkeypatch):
    """A recording saved, then its file deleted by another program: Ctrl+Q closed without a word, and the drive was
    lost. It is asked about as an unsaved one, saying where it had gone; Save writes it again."""
    window = carbench_window
    window.model.start_recording()
    hold(window, {"throttle"}, 60)
    window.model.stop_recording()
    target = tmp_path / "drive.toml"
    assert window.save_recording(target)
    calls = []
    window.ask_recording = lambda doing: calls.append(doing) or QMessageBox.StandardButton.Cancel
    assert window._confirm_recording("close") and not calls  # saved and there: nothing asked
    target.unlink()
    assert not window._confirm_recording("close") and calls == ["close"]  # asked (and Cancel keeps the window)
    shown = []

    class Box:  # the question, answered Cancel without showing it
        def __init__(self, parent, title, text, buttons, default):
            shown.append((title, text))

        def exec(self):
            return int(QMessageBox.StandardButton.Cancel.value)

    monkeypatch.setattr("workbench.gui.main_window.keys_safe_question", Box)
    type(window).ask_recording(window, "close")
    ((title, text),) = shown
    assert title == "Recording file gone" and str(target) in text and "Save it again before you close?" in text
    window.file_answer = str(tmp_path / "again.toml")
    window.ask_recording = lambda doing: QMessageBox.StandardButton.Save
    assert window._confirm_recording("close") and (tmp_path / "again.toml").exists()
    window.ask_recording = lambda doing: calls.append(doing) or QMessageBox.StandardButton.Cancel
    assert window._confirm_recording("close") and calls == ["close"]  # saved again: nothing asked
    # A new recording let go since: the old file is not what is at stake
    (tmp_path / "again.toml").unlink()
    window.model.start_recording()
    hold(window, set(), 10)
    window.model.let_go_recording()
    assert window._confirm_recording("close") and calls == ["close"]


def test_saving_a_preset_writes_a_loadable_file(carbench_window, tmp_path):
    window = carbench_window
    window.model.set_param("engine.peak_torque", 410.0)
    target = tmp_path / "tuned.toml"
    assert window.save_preset(target)
    assert load_preset(target).params.engine.peak_torque == 410.0
    assert not window.model.session.modified


def test_a_replay_in_the_window_gives_the_headless_verdicts(carbench_window):
    window = carbench_window
    path = "presets/scripts/clutch_coast.toml"
    verdicts = drive(window, path, chunk=24)
    [headless] = replay([compile_script(__import__("workbench.scripts.format", fromlist=["x"]).load_script(path))])
    assert [v.passed for v in verdicts] == [v.passed for v in headless.verdicts] == [True] * len(verdicts)
    assert [v.measured for v in verdicts] == [v.measured for v in headless.verdicts]
    assert window.model.session.log.digest() == headless.digest()
    items = [window.recorder.verdicts.topLevelItem(i).text(0) for i in range(len(verdicts))]
    assert items == ["PASS"] * len(verdicts)


def test_help_overlay_and_follow_camera_toggle(carbench_window):
    window = carbench_window
    window.help_action.trigger()
    assert window.car_view._help.isVisible()
    window.follow_action.trigger()
    assert not window.car_view.follow
    hold(window, {"throttle"}, 600)
    (x0, x1), _ = window.car_view.getPlotItem().getViewBox().viewRange()
    assert not x0 <= window.model.session.log.column("x")[-1] <= x1  # it drove out of the still view
    window.follow_action.trigger()
    (x0, x1), _ = window.car_view.getPlotItem().getViewBox().viewRange()
    assert x0 <= window.model.session.log.column("x")[-1] <= x1


CHANGING_SCRIPT = """[script]
name = "torque-drop"
preset = "sedan"
duration = 3.0

[[hold]]
keys = ["throttle"]
from = 0.0
to = 3.0

[[set]]
at = 1.0
params = { "engine.peak_torque" = 100.0 }
"""


def test_a_replay_shows_the_scripts_parameters_in_the_panel(carbench_window, tmp_path):
    window = carbench_window
    path = tmp_path / "drop.toml"
    path.write_text(CHANGING_SCRIPT)
    drive(window, path, chunk=24)
    row = window.params.rows["engine.peak_torque"]
    assert window.model.session.params.engine.peak_torque == 100.0
    assert row.editors[0].spin.value() == pytest.approx(100.0)
    assert "\u25cf" in row.label.text()  # it differs from the preset...
    assert "*" not in window.windowTitle() and not window.model.modified  # ...but the user did not edit it


def test_replaying_asks_before_unsaved_edits_are_replaced(carbench_window):
    window = carbench_window
    window.load_script("presets/scripts/clutch_coast.toml")
    window.params.rows["engine.peak_torque"].editors[0].spin.setValue(450.0)
    asked = []
    window.ask_unsaved = lambda doing: asked.append(doing) or QMessageBox.StandardButton.Cancel
    window.recorder.replay.click()
    assert asked == ["replay the script"] and not window.model.session.replaying
    assert window.model.session.params.engine.peak_torque == 450.0


def test_replaying_a_script_that_keeps_the_edits_asks_nothing_and_they_stay_unsaved(carbench_window):
    """Mass 2,000 kg, a recording of it, Replay: "Save them before you replay?" - Discard left the 2,000 kg on show and
    driving (the recording carries it), and the close then asked nothing about them. A replay that starts with the
    parameters on show asks nothing, and they stay edits to ask about; one that starts otherwise still asks."""
    from workbench.gui.testing import hold

    window = carbench_window
    asked = []
    window.ask_unsaved = lambda doing: asked.append(doing) or QMessageBox.StandardButton.Cancel
    assert window.params.edit("body.mass", 2000.0)
    window.model.start_recording()
    hold(window, {"throttle"}, 120)
    window.model.stop_recording()
    assert window.replay() and window.model.session.replaying
    assert asked == [] and window.model.session.params.body.mass == 2000.0
    assert window.model.modified and "*" in window.windowTitle()
    assert not window._confirm_discard("close") and asked == ["close"]  # the close asks about them


def test_replaying_a_recording_made_before_an_edit_still_asks(carbench_window):
    from workbench.gui.testing import hold

    window = carbench_window
    asked = []
    window.ask_unsaved = lambda doing: asked.append(doing) or QMessageBox.StandardButton.Cancel
    window.model.start_recording()
    hold(window, {"throttle"}, 120)
    window.model.stop_recording()
    assert window.params.edit("body.mass", 1800.0)
    assert not window.replay() and asked == ["replay the script"]
    assert not window.model.session.replaying and window.model.session.params.body.mass == 1800.0


def test_an_edit_during_a_replay_is_refused_with_the_reason(carbench_window):
    window = carbench_window
    window.load_script("presets/scripts/clutch_coast.toml")
    window.replay()
    window.model.advance(10)
    assert not window.params.edit("engine.peak_torque", 500.0)
    assert "replays" in window.params.status.text()
    assert window.params.rows["engine.peak_torque"].editors[0].spin.value() == pytest.approx(350.0)


def test_sliders_cover_a_sensible_span(carbench_window):
    window = carbench_window
    first_gear = window.params.rows["gearbox.ratios"].editors[0]
    first_gear.slider.setValue(first_gear.slider.maximum())
    assert window.model.session.params.gearbox.ratios[0] == pytest.approx(6.0)
    for row in window.params.rows.values():
        for editor in row.editors:
            if hasattr(editor, "span"):
                assert editor.span[1] - editor.span[0] < 1e6, row.info.path


def test_a_recording_too_large_to_be_a_script_is_kept_and_said_not_saved(carbench_window, tmp_path, monkeypatch):
    from workbench.gui.testing import hold
    from workbench.scripts import limits

    window = carbench_window
    shown = []
    window.show_error = lambda title, text: shown.append((title, text))
    window.model.start_recording()
    hold(window, {"throttle"}, 120)
    window.model.stop_recording()
    monkeypatch.setattr(limits, "MAX_SCRIPT_BYTES", 100)
    path = tmp_path / "r.toml"
    assert not window.save_recording(path)
    assert not path.exists() and window.model.session.last_recording is not None
    assert shown and shown[0][0] == "Recording not saved" and "larger than a script may be" in shown[0][1]
    assert window.model.session.recording_unsaved


def test_escape_closes_the_help_overlay_and_is_left_alone_otherwise(carbench_window, qtbot):
    window = carbench_window
    window.activateWindow()
    window.car_view.setFocus()
    assert not window.close_help_action.isEnabled()  # Escape is not taken while the overlay is hidden
    window.help_action.trigger()
    assert window.car_view._help.isVisible() and window.close_help_action.isEnabled()
    qtbot.keyClick(window.car_view, Qt.Key.Key_Escape)
    assert not window.car_view._help.isVisible() and not window.help_action.isChecked()
    assert not window.close_help_action.isEnabled()


def test_opening_another_car_shows_no_window_of_its_own_and_keeps_the_window_active(carbench_window):
    """The parameter panel showed each group's body before it had a parent: a window of its own for an instant, on
    every car opened, which took the activation from the main window (offscreen its shortcut keys went nowhere)."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QWidget

    window = carbench_window
    assert window.isActiveWindow()
    shown = []

    class Windows(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Show and isinstance(watched, QWidget) and watched.isWindow():
                shown.append(watched)
            return False

    spy = Windows()
    QApplication.instance().installEventFilter(spy)
    try:
        before = window.model.session.preset.name
        assert window.load_script("presets/scripts/split_mu_braking.toml")
        assert window.model.session.preset.name != before  # another car: the panel rebuilt
        QApplication.processEvents()
    finally:
        QApplication.instance().removeEventFilter(spy)
    assert shown == [] and window.isActiveWindow()


@pytest.mark.parametrize("key", ["geometry", "window_state"])
@pytest.mark.parametrize("value", ["", "garbage", "12"])
def test_a_window_layout_blanked_or_edited_in_the_settings_is_ignored(qtbot, carbench_settings, key, value):
    """`geometry=` (a line blanked by hand) stopped the window from starting: restoreGeometry(str) raised."""
    from workbench.gui.main_window import SETTINGS_VERSION

    carbench_settings.setValue("version", SETTINGS_VERSION)
    carbench_settings.setValue(key, value)
    carbench_settings.sync()
    window = make_window("sedan", carbench_settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert window.isVisible()
