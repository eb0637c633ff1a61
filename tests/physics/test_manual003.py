"""manual003: 003's car on its simple traction rule, which reproduces the article's figures.

The launch, the 1st-gear run, the flare and the gear speeds are pinned in test_drivetrain.py;
here the preset's choice of model, and 003's traction rule itself: the drive force is limited
to 1.1 times the rear axle's load, and while the wheels spin 70% of that limit reaches the road.
"""

from __future__ import annotations

import numpy as np
import pytest

from physics import Inputs, Simulation, load_preset, records

DT = 1.0 / 120.0


def test_manual003_is_003s_model():
    p = load_preset("manual003").params
    assert p.model.traction == "simple"
    assert (p.engine.peak_torque, p.engine.peak_rpm, p.clutch.capacity) == (350.0, 4500.0, 600.0)
    assert (p.tyres.b_front, p.tyres.c, p.tyres.e, p.tyres.traction_mu, p.tyres.spin_fraction) == (1.5, 1.9, 0.97,
                                                                                                      1.1, 0.7)


@pytest.fixture(scope="module")
def launch():
    sim = Simulation(load_preset("manual003").params, n=1, dt=DT)
    throttle = Inputs.from_keys(1, {"throttle"})
    out = np.empty(int(4.0 / DT), dtype=records.TELEMETRY)
    for k in range(len(out)):
        out[k] = sim.step(throttle).records[0]
    return out


def test_the_drive_force_is_limited_to_1_1_times_the_rear_load(launch):
    gripping = launch["wheelspin"] == 0.0
    assert np.all(launch["drive_force"][gripping] <= 1.1 * launch["load_rear"][gripping] + 1e-6)


def test_spinning_wheels_pass_70_percent_of_the_limit(launch):
    spinning = launch["wheelspin"] == 1.0
    assert spinning.sum() > 10  # 1st gear at full throttle spins the rear wheels
    limit = 1.1 * launch["load_rear"][spinning]
    assert launch["drive_force"][spinning] == pytest.approx(0.7 * limit, rel=1e-9)
