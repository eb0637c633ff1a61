"""The headless LiveSession the window drives: a recording made while driving (with parameter edits)
replays bit for bit through ``carbench replay``'s path, and the session's own replay of a script
is the headless replay."""

from __future__ import annotations

import numpy as np
import pytest

from physics import KEYS, ParamError
from physics.presets import scripts_dir
from workbench.runs.live import LiveSession
from workbench.runs.replay import replay
from workbench.scripts.format import parse_script
from workbench.scripts.program import compile_script


def drive(session: LiveSession, frames: int, seed: int, edits: dict[int, dict]) -> None:
    rng = np.random.default_rng(seed)
    held: frozenset[str] = frozenset()
    for k in range(frames):
        if k % 25 == 0:
            held = frozenset({"throttle"} | {key for key in KEYS if rng.random() < 0.2})
        for path, value in edits.get(k, {}).items():
            session.set_param(path, value)
        session.step(held)


@pytest.fixture(scope="module")
def recorded():
    session = LiveSession("manual003")
    session.set_param("engine.peak_torque", 390.0)  # an edit made before recording starts
    session.start_recording()
    drive(session, 600, seed=5, edits={120: {"tyres.mu": 0.9}, 300: {"engine.peak_torque": 330.0,
                                                                       "steering.rate": 1.7}})
    session.reset_params(["tyres.mu"])
    drive(session, 120, seed=6, edits={})
    script = session.stop_recording("live drive")
    return session, script


def test_live_recording_replays_bit_for_bit(recorded):
    session, script = recorded
    assert session.log.frames == 720 and not session.recording
    program = compile_script(parse_script(script.to_toml(), "<live>"))
    (result,) = replay([program])
    for name in session.log.names:
        assert np.array_equal(result.column(name)[:720], session.log.column(name)), name
    assert result.log.digest(0, 720) == session.log.digest()
    assert program.params.engine.peak_torque == 390.0
    assert [k for k, _ in program.param_changes] == [120, 300, 600]
    assert program.param_changes[-1][1].tyres.mu == 1.0  # the reset is recorded too


def test_session_replays_its_last_recording(recorded):
    session, script = recorded
    live_digest = session.log.digest()
    session.use_script(script)
    session.start_replay()
    while session.replaying:
        session.step()
    assert session.log.digest(0, 720) == live_digest


def test_session_replay_of_a_shipped_script_is_the_headless_replay(shipped_alone):
    session = LiveSession("parking")
    session.load_script(scripts_dir() / "clutch_coast.toml")
    assert session.params.engine is not None  # the script's car is loaded
    session.start_replay()
    while session.replaying:
        session.step({"brake"})  # keys are ignored while a script replays
    expected = next(r for r in shipped_alone if r.program.name == "clutch-coast")
    assert session.log.frames == expected.program.frames
    assert session.log.digest() == expected.digest()
    verdicts = session.verdicts()
    assert [(v.measured, v.frame, v.passed) for v in verdicts] == [(v.measured, v.frame, v.passed)
                                                                    for v in expected.verdicts]


def test_refused_edit_changes_nothing():
    session = LiveSession("manual003")
    before = session.params
    with pytest.raises(ParamError):
        session.set_param("engine.peak_torque", -1.0)
    with pytest.raises((ValueError, ParamError)):
        session.set_param("model.kind", "kinematic")
    assert session.params is before and not session.modified
