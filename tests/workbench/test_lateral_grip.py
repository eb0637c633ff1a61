"""A tyre's lateral force stays within its friction ellipse beside its longitudinal force in the frame where the
linearised body step carries it past the curve's peak.

Found by `carbench hunt --seed 2222` (its grip monitor) once the force channels became the forces the step applied,
shrunk: the handbrake and full lock after a launch, then the brake; the step gave a front tyre 2.5% (the single-track
sedan) and 4.9% (the four-wheel sedan) more than its mu Fz in a frame. The ellipse is written out from its definition
(physics.tyre.combined's), never from the model.
"""

from __future__ import annotations

import numpy as np
import pytest

from physics import load_preset
from workbench.runs.monitors import frames_of_result, run_monitors
from workbench.runs.replay import replay
from workbench.scripts.format import parse_script
from workbench.scripts.program import compile_script

SCRIPT = """[script]
name = "handbrake at full lock, then the brake"
preset = "PRESET"
duration = DURATION
dt = 0.008333333333333333

[[hold]]
keys = ["throttle"]
from = 0.0
to = LAUNCH

[[hold]]
keys = ["handbrake", "STEER"]
from = LAUNCH
to = BRAKE

[[hold]]
keys = ["brake"]
from = BRAKE
to = DURATION
"""

CASES = [("sedan_single_track", 2.075, 3.433333, 3.533333, "right", ("front", "rear")),
         ("sedan", 2.241667, 4.058333, 4.133333, "left", ("fl", "fr", "rl", "rr"))]


@pytest.mark.parametrize(("preset", "launch", "brake", "duration", "steer", "tyres"), CASES,
                         ids=[c[0] for c in CASES])
def test_the_lateral_force_the_step_applies_stays_within_the_friction_ellipse(preset, launch, brake, duration, steer,
                                                                               tyres):
    text = (SCRIPT.replace("PRESET", preset).replace("DURATION", str(duration)).replace("LAUNCH", str(launch))
            .replace("BRAKE", str(brake)).replace("STEER", steer))
    result = replay([compile_script(parse_script(text))])[0]
    f = frames_of_result(result)
    share = load_preset(preset).params.tyres.lateral_share
    worst = 0.0
    for tyre in tyres:
        grip = f[f"mu_{tyre}"] * f[f"load_{tyre}"]
        x, y = f[f"fx_{tyre}"] / grip, f[f"fy_{tyre}"] / (share * grip)
        worst = max(worst, float(np.max(x * x + y * y)))
    assert worst <= 1.0 + 1e-9
    assert worst > 0.98  # the run takes the tyres to their grip
    assert not [v for v in run_monitors(f) if v.monitor == "grip_limit"]
