"""The manoeuvre runner: what it keeps of a batch is what a replay of the same scripts makes, bit for bit."""

from __future__ import annotations

import numpy as np

from physics import load_preset
from workbench.manoeuvres.runner import BLOCK, Car, compile_jobs, run_programs
from workbench.runs.replay import input_fields, replay
from workbench.scripts.format import load_script, parse_script, resolve_script

ROBOT = """
[script]
name = "robot"
preset = "sedan"
duration = 3.0

[[hold]]
keys = ["throttle"]
from = 0.5
to = 1.0

[robot]
kind = "sine"
start = 0.5
amplitude = 40.0
ratio = 15.0
frequency = 1.0
cycles = 1.0
"""
CHANNELS = ("speed", "steer", "brake", "throttle", "yaw_rate", "x")


def test_the_runner_keeps_what_a_replay_makes_for_scripts_of_different_lengths_and_inputs():
    sedan = load_preset("sedan").params
    scripts = [load_script(resolve_script("iso21994_braking")),  # a [[set]] at 14 s, 20 s long
               parse_script(ROBOT, "robot.toml"),  # keys and a robot's steer, ending long before the others
               load_script(resolve_script("iso4138_circle"))]  # the driver only: no inputs at all
    programs = compile_jobs([(s, Car(sedan.with_values({"body.mass": 1500.0 + 100 * i}))) for i, s in enumerate(scripts)])
    assert [bool(input_fields(p)) for p in programs] == [True, True, False]
    assert min(p.frames for p in programs) > BLOCK  # the short one ends inside a block
    runs = run_programs(programs, CHANNELS)
    for program, run, replayed in zip(programs, runs, replay(programs), strict=True):
        assert len(run.t) == program.frames
        assert np.array_equal(run.t, replayed.column("t"))
        for name in CHANNELS:
            assert np.array_equal(run[name], replayed.column(name)), name
