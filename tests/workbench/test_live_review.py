"""The interactive session's edge cases: reset during a replay, recordings across a car change, verdicts."""

import pytest

from physics import PresetError, load_preset, parse_preset
from workbench.runs.live import LiveSession
from workbench.runs.replay import replay
from workbench.scripts.format import parse_script
from workbench.scripts.program import compile_script

CHANGING = """[script]
name = "torque-drop"
preset = "manual003"
duration = 4.0

[[hold]]
keys = ["throttle"]
from = 0.0
to = 4.0

[[set]]
at = 2.0
params = { "engine.peak_torque" = 100.0 }

[[expect]]
channel = "speed_kmh"
at = 1.9
min = 0.0
"""


def _replay_to_end(session):
    while session.replaying:
        session.step()


def test_reset_during_a_replay_starts_it_over_with_the_scripts_parameters(tmp_path):
    path = tmp_path / "change.toml"
    path.write_text(CHANGING)
    session = LiveSession("manual003")
    session.load_script(path)
    session.start_replay()
    for _ in range(360):  # past the parameter change at 2 s
        session.step()
    assert session.params.engine.peak_torque == 100.0
    session.reset()
    assert session.replaying and session.frame == 0
    assert session.params.engine.peak_torque == 350.0
    _replay_to_end(session)
    [headless] = replay([compile_script(parse_script(CHANGING, str(path)))])
    assert session.log.digest() == headless.digest()


def test_edits_are_refused_while_a_script_replays():
    session = LiveSession("manual003")
    session.use_script(parse_script(CHANGING))
    session.start_replay()
    session.step()
    with pytest.raises(ValueError, match="replays"):
        session.set_param("engine.peak_torque", 500.0)
    assert session.params.engine.peak_torque == 350.0


def test_a_new_car_ends_the_recording_and_keeps_it():
    session = LiveSession("manual003")
    session.start_recording()
    for _ in range(300):
        session.step({"throttle"})
    session.load_preset("classic")
    assert not session.recording
    assert session.last_recording is not None
    assert session.last_recording.duration == pytest.approx(300 * session.dt)


def test_verdicts_judge_only_a_replay_of_the_script(tmp_path):
    path = tmp_path / "change.toml"
    path.write_text(CHANGING)
    session = LiveSession("manual003")
    session.load_script(path)
    for _ in range(480):
        session.step()  # driving by hand (idle) with the script loaded
    assert session.verdicts() == [None]
    session.start_replay()
    _replay_to_end(session)
    assert [v.passed for v in session.verdicts()] == [True]


def test_a_preset_that_is_not_utf8_is_refused_with_its_name(tmp_path):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(load_preset("manual003").path.read_bytes() + "# caf\xe9\n".encode("latin-1"))
    with pytest.raises(PresetError, match="latin1.toml: not UTF-8"):
        load_preset(bad)
    with pytest.raises(PresetError, match="not UTF-8"):
        parse_preset(b"\xff\xfe", "x.toml")


def test_replaying_while_recording_keeps_the_recording():
    session = LiveSession("manual003")
    session.use_script(parse_script(CHANGING))
    session.start_recording()
    for _ in range(120):
        session.step({"throttle"})
    session.start_replay()
    assert session.replaying and not session.recording
    assert session.last_recording is not None and session.last_recording.duration == pytest.approx(1.0)
