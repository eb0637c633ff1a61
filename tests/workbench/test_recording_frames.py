"""A recording of N frames replays as N frames, bit for bit: its script says `[script] frames = N` (a script's run
otherwise ends with the frame at t = duration, one the driver never drove). Scripts without it replay as before."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from physics import load_preset
from workbench.runs.live import LiveSession
from workbench.runs.replay import replay
from workbench.scripts.format import ScriptError, parse_script
from workbench.scripts.program import compile_script
from workbench.scripts.recorder import Recorder

N = 38  # frames recorded


@pytest.fixture(scope="module")
def recorded():
    """A sedan driven N frames at 1/120 s: keys held to the last frame, the steering moved and a parameter edited on it."""
    s = LiveSession("sedan")
    s.start_recording()
    for k in range(N):
        analog = {"steer": 0.01 * k} if k >= N - 5 else None  # a track that ends on the last frame
        if k == N - 1:
            s.set_param("tyres.mu", 0.9)  # an edit on the last frame
        s.step({"throttle", "left"} if k >= 3 else set(), analog)
    script = s.stop_recording("mine")
    return s, script


def test_a_recording_of_n_frames_replays_as_n_frames_with_the_same_bits(recorded):
    session, script = recorded
    text = script.to_toml()
    assert f"frames = {N}\n" in text
    program = compile_script(parse_script(text, "<mine>"))
    assert program.frames == N
    (result,) = replay([program])
    assert result.log.frames == N
    assert np.array_equal(result.log.matrix(result.car), session.log.matrix())
    assert len(result.log.csv_text(result.car).splitlines()) == N + 1  # the header and N frames
    assert program.keys[N - 1].any() and program.param_changes[-1][0] == N - 1  # the last frame's inputs are in it


def test_a_recording_without_frames_replays_as_it_did(recorded):
    # Saved by an earlier carbench: duration N * dt and no `frames`: N + 1 frames, the first N the ones driven.
    session, script = recorded
    old = parse_script(dataclasses.replace(script, frames=None).to_toml(), "<old>")
    assert old.frames is None
    program = compile_script(old)
    assert program.frames == N + 1 and not program.keys[N].any()
    (result,) = replay([program])
    assert np.array_equal(result.log.matrix(result.car, N), session.log.matrix())


def test_a_recording_replayed_at_another_dt_ends_before_its_duration():
    rec = Recorder("sedan", 1 / 120, load_preset("sedan").params)
    for k in range(N):
        rec.record({"throttle"}, gear=2 if k == N - 1 else None, params={"tyres.mu": 0.9} if k == N - 1 else None)
    program = compile_script(rec.script("mine"), dt=1 / 60)  # the last frame's gear and edit round onto frame 19:
    assert program.frames == 19 and program.keys[18].any()  # past the run
    assert not program.gear_on.any() and program.param_changes == ()
    (result,) = replay([program])
    assert result.log.frames == 19


HEAD = '[script]\nname = "r"\npreset = "sedan"\nduration = 0.5\ndt = 0.01\n'


@pytest.mark.parametrize("extra, words", [
    ("frames = 49\n", "do not last the duration"),
    ("frames = 50.0\n", "whole number of frames"),
    ("frames = 0\n", "whole number of frames"),
    ("frames = 50\n[[set]]\nat = 0.5\ngear = 2\n", "which `frames` leaves out"),
    ("frames = 50\n[[expect]]\nchannel = \"speed\"\nat = 0.5\nmin = 0.0\n", "which `frames` leaves out"),
    ("frames = 50\n[[track]]\ncontrol = \"steer\"\nfrom = 0.48\nvalues = [0.1, 0.2, 0.3]\n", "past the last"),
])
def test_frames_is_checked(extra, words):
    with pytest.raises(ScriptError) as info:
        parse_script(HEAD + extra, "r.toml")
    assert words in str(info.value)
    with pytest.raises(ScriptError, match="needs \\[script\\] dt"):
        parse_script(HEAD.replace("dt = 0.01\n", "") + "frames = 50\n", "r.toml")
    fine = parse_script(HEAD + "frames = 50\n[[hold]]\nkeys = [\"throttle\"]\nfrom = 0.0\nto = 0.5\n", "r.toml")
    assert fine.frames == 50 and compile_script(fine).frames == 50 and compile_script(fine).keys[49].any()
