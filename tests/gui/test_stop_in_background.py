"""Stop does not build the recording's script to replay on the window's thread: it is the last recording (saved whole
in the recovery file, asked about on closing) as the button returns, and the script to replay once compiled on a
thread of its own. Stopping a 30-minute recording froze the window for 0.2 to 0.7 s."""

from __future__ import annotations

import threading

from PySide6.QtWidgets import QMessageBox

from workbench.gui.recovery import RecoveryKeeper
from workbench.gui.testing import hold
from workbench.runs import live
from workbench.runs.recovery import RecoveryStore, from_text
from workbench.runs.replay import replay


def test_stop_returns_before_the_compile_and_the_script_to_replay_comes_after(carbench_window, qtbot, tmp_path,
                                                                               monkeypatch, request):
    window = carbench_window
    session = window.model.session
    keeper = RecoveryKeeper(window, RecoveryStore(tmp_path, pid=999_999_995))
    keeper.timer.stop()
    window.model.start_recording()
    hold(window, {"throttle"}, 40)
    keeper.save_now()  # the last save before the stop: 40 frames
    hold(window, {"throttle", "left"}, 30)
    gate, on_gui_thread = threading.Event(), []
    compile_script = live.compile_script

    def held(*args, **kwargs):  # the compile, held until the test lets it go (off the window's thread only)
        on_gui_thread.append(threading.current_thread() is threading.main_thread())
        if not on_gui_thread[-1]:
            gate.wait(120)  # (a guard against a hang; the test lets it go long before)
        return compile_script(*args, **kwargs)

    monkeypatch.setattr(live, "compile_script", held)
    request.addfinalizer(gate.set)  # before the fixture closes the window, which waits for the compile
    window.recorder.stop.click()
    qtbot.waitUntil(lambda: bool(on_gui_thread))
    assert on_gui_thread == [False] and session.compiling  # compiling elsewhere, held there
    assert not session.recording and session.recording_unsaved and session.program is None
    recording = session.last_recording
    assert recording is not None and recording.frames == 70  # the recording, at once
    assert from_text(keeper.store.path.read_text(), "r").frames == 70  # and kept whole for a crash, at once
    asked = []
    window.ask_recording = lambda doing: asked.append(doing) or QMessageBox.StandardButton.Cancel
    window.close()  # closing asks about it meanwhile, without waiting for the compile
    assert asked == ["close"] and window.isVisible()
    names = []
    window.model.script_loaded.connect(names.append)
    gate.set()
    qtbot.waitUntil(lambda: not session.compiling)
    assert names == [recording.name] and session.program.script is recording and session.program.frames == 70
    assert window.recorder.replay.isEnabled()
    (result,) = replay([session.program])
    assert result.log.digest(result.car, 70) == session.log.digest()

    # What needs the script to replay takes the one being compiled first: Replay straight after Stop replays the new
    # recording, not the one before
    window.model.start_recording()
    hold(window, {"right"}, 20)
    window.recorder.stop.click()
    assert window.replay()
    assert session.replaying and session.program.script is session.last_recording and session.program.frames == 20


def test_an_edit_while_the_compile_runs_re_runs_the_recording_not_the_script_it_replaced(carbench_window, qtbot,
                                                                                         monkeypatch, request):
    """An edit made after Stop, before the recording's compile was taken, re-ran the script loaded before the
    recording, and that re-run was adopted over the recording: the script to replay was the old one again."""
    window = carbench_window
    session = window.model.session
    assert window.load_script("presets/scripts/abs_spin_up_in_gear.toml")  # a script of the sedan before the recording
    window.model.start_recording()
    hold(window, {"throttle"}, 30)
    gate = threading.Event()
    compile_script = live.compile_script

    def held(*args, **kwargs):  # the recording's compile, held until the window's thread waits for it
        if threading.current_thread() is not threading.main_thread():
            gate.wait(120)  # (a guard against a hang)
        return compile_script(*args, **kwargs)

    take = session.take_compiled

    def let_go_when_waited_for(wait: bool = True):
        if wait and session.compiling:
            gate.set()
        return take(wait)

    monkeypatch.setattr(live, "compile_script", held)
    monkeypatch.setattr(session, "take_compiled", let_go_when_waited_for)
    request.addfinalizer(gate.set)
    window.recorder.stop.click()
    recording = session.last_recording
    before = session.program
    assert session.compiling and before.name == "abs-spin-up-in-gear"  # the script before, until taken
    adopted = []
    window.comparer.rerun_adopted.connect(lambda: adopted.append(session.program))
    window.model.set_param("tyres.mu", 0.9)
    qtbot.waitUntil(lambda: bool(adopted) and not window.comparer.rerun.busy)
    (program,) = adopted  # the recording, re-run with the edit: the script before it is gone
    assert program is session.program and program.name == recording.name and program.frames == 30
    assert program.script.sets[:len(recording.sets)] == recording.sets and program.params.tyres.mu == 0.9
    assert not session.compiling and window.sweep.program().name == recording.name
