"""A stopped recording compiled on a thread of its own (LiveSession.use_script_soon) becomes the script to replay when
the session takes it: anything that needs or changes the script to replay takes it first, in order."""

from __future__ import annotations

import pytest

from workbench.runs import live
from workbench.runs.compare import edited_program
from workbench.runs.live import LiveSession
from workbench.runs.replay import replay
from workbench.scripts.format import ScriptError


def recorded(frames: int = 20) -> tuple[LiveSession, object]:
    s = LiveSession("sedan")
    s.start_recording()
    for _ in range(frames):
        s.step({"throttle"})
    return s, s.stop_recording()


def test_what_changes_the_script_to_replay_takes_the_compiled_recording_first():
    s, script = recorded()
    told = []
    s.on_compiled = told.append
    compiling = s.use_script_soon(script)
    s.start_replay()  # the recording, compiled or not yet
    assert told == [compiling] and compiling.taken and not s.compiling
    assert s.replaying and s.program.script is script and s.program.frames == 20
    s.replaying = False
    s.use_script_soon(script)
    s.load_preset("tail_happy")  # another car, with no script: the recording was the script just before, not after
    assert len(told) == 2 and told[1].taken and s.program is None and s.take_compiled() is None


def test_a_compile_the_car_refuses_is_not_taken_and_is_said(monkeypatch):
    s, script = recorded()

    def refused(*args, **kwargs):
        raise ScriptError("<recording>: refused")

    monkeypatch.setattr(live, "compile_script", refused)
    s.use_script_soon(script)
    with pytest.raises(ScriptError, match="refused"):  # no one to tell: raised where it is taken
        s.take_compiled()
    assert s.program is None and s.last_recording is script and not s.compiling
    told = []
    s.on_compiled = told.append
    s.use_script_soon(script)
    s.start_recording()  # taken first: told, not raised
    assert len(told) == 1 and isinstance(told[0].error, ScriptError) and not told[0].taken and s.recording


def test_a_re_run_of_the_script_before_is_not_adopted_over_a_recording_compiled_since():
    """A re-run after an edit, of the script loaded before a recording's Stop, came back once the Stop's compile was
    under way: adopt_replay took the compile and then put the re-run in its place (the recording was gone)."""
    s, first = recorded()
    s.use_script(first)
    serial = s.script_serial
    (rerun,) = replay([edited_program(s.program, {"tyres.mu": 0.9})])  # made elsewhere, of the script loaded now
    s.start_recording()
    for _ in range(10):
        s.step({"left"})
    second = s.stop_recording()
    s.use_script_soon(second)
    with pytest.raises(ValueError, match="another has taken the place"):
        s.adopt_replay(rerun)  # the compile is taken here: the re-run is of the script it replaced
    assert s.program.script is second and s.program.frames == 10 and s.script_serial > serial
    with pytest.raises(ValueError, match="another has taken the place"):
        s.adopt_replay(rerun, serial)  # and, taken before, the serial says so
    assert s.program_to_replay().script is second
