"""Brakes that pass more than the tyres can: the stop rule (physics.standstill.braked_to_rest) sizes what the brakes take
away in a frame by what the tyres pass."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.runs.monitors import frames_of_result, run_monitors
from workbench.runs.replay import replay
from workbench.scripts.format import parse_script
from workbench.scripts.program import compile_script

SLIDE = """
[script]
name = "a sideways slide on strong brakes"
preset = "PRESET"
duration = 8.0

[[set]]
at = 0.0
params = { PARAMS }

[[hold]]
keys = ["throttle"]
from = 0.0
to = 4.0

[[hold]]
keys = ["left"]
from = 4.0
to = 8.0

[[hold]]
keys = ["handbrake"]
from = 4.0
to = 4.6

[[hold]]
keys = ["brake"]
from = 5.0
to = 8.0
"""


@pytest.mark.parametrize(("preset", "params"), [
    ("tail_happy", '"brakes.force" = 2000000.0'),
    ("sedan_single_track", '"brakes.force" = 10000000.0'),
])
def test_a_car_sliding_on_brakes_stronger_than_its_tyres_is_not_stopped_dead(preset, params):
    """Thrown into a slide and braked: as the car's speed along itself crossed zero, the stop rule took the brakes'
    whole force as what a frame could take away and stopped the car where it slid sideways (carbench 0.3.24:
    tail_happy on 2 MN of brakes from 9.9 m/s in a frame, 1,190 m/s^2; sedan_single_track on 10 MN from 10.6 m/s).
    The brakes act through the tyres: no frame takes more speed away than a few times mu g does (the stop rule's
    twice the grip and the frame's own braking), and no monitor fires."""
    text = SLIDE.replace("PRESET", preset).replace("PARAMS", params)
    (result,) = replay([compile_script(parse_script(text, "slide.toml"))])
    frames = frames_of_result(result)
    assert [v.monitor for v in run_monitors(frames)] == []
    vx, vy, t = result.column("vx"), result.column("vy"), result.column("t")
    change = np.hypot(np.diff(vx), np.diff(vy)) / np.diff(t)  # [m/s^2] the velocity's change in a frame
    mu_g = result.program.params.tyres.mu * result.program.params.model.gravity
    assert change.max() < 5.0 * mu_g  # 1,190 and 1,385 m/s^2 before: 110 and 127 mu g
    assert (np.hypot(vx, vy)[t > 5.0] > 1.0).any()  # the case is there: braked while it still moves
