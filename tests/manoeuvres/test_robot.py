"""The open-loop steering robot: the road-wheel angle a car's run shows against each input's closed form.

The robot writes the steer of every frame; within the steering rate (the sedan turns its wheels at
1.2 rad/s, these inputs at most 0.4) the road wheel follows it exactly. Angles are given in degrees of
handwheel at ``ratio``, so the road wheel turns amplitude / ratio.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.runs.replay import replay
from workbench.scripts.format import parse_script
from workbench.scripts.program import compile_script

HEAD = '[script]\nname = "robot"\npreset = "sedan"\nduration = {duration}\n[driver]\nspeed_kmh = 80.0\n[robot]\n'
START, RATIO = 1.0, 15.0


def steer(robot: str, duration: float) -> tuple[np.ndarray, np.ndarray]:
    """Time and road-wheel angle [rad] of the sedan at 80 km/h under the robot."""
    text = HEAD.format(duration=duration) + robot + f"start = {START}\nratio = {RATIO}\n"
    (result,) = replay([compile_script(parse_script(text, "robot.toml"))])
    return result.column("t"), result.column("steer")


def zeros(t, angle, start, end):
    """Times the angle crosses zero within (start, end), linear between frames."""
    k = np.flatnonzero(((angle[:-1] > 0.0) != (angle[1:] > 0.0)) & (t[:-1] > start) & (t[1:] < end))
    return t[k] + (t[k + 1] - t[k]) * -angle[k] / (angle[k + 1] - angle[k])


def test_the_ramp_turns_the_road_wheel_at_rate_over_ratio_up_to_limit_over_ratio():
    t, angle = steer('kind = "ramp"\nrate = 13.5\nlimit = 60.0\n', 8.0)  # FMVSS 126's 13.5 deg/s
    rate, limit = math.radians(13.5 / RATIO), math.radians(60.0 / RATIO)
    assert np.abs(angle - np.clip(rate * (t - START), 0.0, limit)).max() < 1e-12
    ramping = (t > START + 0.5) & (t < START + 60.0 / 13.5 - 0.5)
    assert np.polyfit(t[ramping], angle[ramping], 1)[0] == pytest.approx(rate, rel=1e-9)
    assert angle[-1] == pytest.approx(limit, rel=1e-12)


def test_the_sine_has_amplitude_over_ratio_and_its_frequency_for_its_cycles():
    t, angle = steer('kind = "sine"\namplitude = 30.0\nfrequency = 0.5\ncycles = 2.0\n', 8.0)
    amplitude, f, end = math.radians(30.0 / RATIO), 0.5, START + 2.0 / 0.5
    on = (t >= START) & (t < end)
    assert np.abs(angle - np.where(on, amplitude * np.sin(2 * math.pi * f * (t - START)), 0.0)).max() < 1e-12
    assert np.abs(angle).max() == pytest.approx(amplitude, rel=1e-4)  # the peaks fall within a frame of the crest
    crossings = zeros(t, angle, START + 0.1, end - 0.1)
    assert np.diff(crossings) == pytest.approx([0.5 / f] * 2, rel=1e-6)  # half a period apart
    assert np.all(angle[t >= end] == 0.0)


def test_the_sweep_rises_linearly_in_instantaneous_frequency():
    f0, f1, length = 0.2, 2.0, 20.0
    t, angle = steer(f'kind = "sweep"\namplitude = 30.0\nf_start = {f0}\nf_end = {f1}\nduration = {length}\n', 23.0)
    amplitude = math.radians(30.0 / RATIO)
    tau = t - START
    on = (tau >= 0.0) & (tau < length)
    phase = 2 * math.pi * (f0 * tau + 0.5 * (f1 - f0) * tau * tau / length)
    assert np.abs(angle - np.where(on, amplitude * np.sin(phase), 0.0)).max() < 1e-12
    # Between two zero crossings half a cycle passes: 1 / (2 interval) is the frequency at their middle,
    # to second order in the (linear) change of frequency over the half cycle.
    crossings = zeros(t, angle, START + 0.1, START + length - 0.1)
    middle = 0.5 * (crossings[1:] + crossings[:-1]) - START
    measured = 0.5 / np.diff(crossings)
    assert len(measured) > 30
    assert measured == pytest.approx(f0 + (f1 - f0) * middle / length, rel=2e-3)
    assert np.abs(angle[on & (tau > 1.0)]).max() == pytest.approx(amplitude, rel=2e-3)
