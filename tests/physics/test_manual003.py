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


@pytest.mark.parametrize("dt", [1.0 / 120.0, 1.0 / 2000.0])
def test_a_light_throttle_at_rest_in_first_never_pulls_the_car_back_nor_chatters(dt):
    """At rest in 1st with 5% throttle the engine sat just above idle, its net torque a little below nought, and the
    slipping clutch passed it: 13 N pulled the car back, the friction turned round as the wheels rolled back a hair
    (54 N on), and the car crept and chattered forever with a backward drive force most of the time. A clutch that
    slips with the engine the faster side only pushes: the car stays at rest, and more throttle moves it on."""
    sim = Simulation(load_preset("manual003").params, n=1, dt=dt)
    frames = int(3.0 / dt)
    for throttle, moves in ((0.05, False), (0.3, True)):
        sim.reset()
        out = np.empty(frames, dtype=records.TELEMETRY)
        for k in range(frames):
            out[k] = sim.step(Inputs.from_keys(1, set(), throttle_pedal=throttle, gear=1)).records[0]
        assert np.all(out["drive_force"] >= 0.0) and np.all(out["vx"] >= 0.0)  # never back
        assert (out["vx"][-1] > 0.1) == moves, throttle
        if not moves:
            assert np.all(out["vx"] == 0.0) and np.all(out["x"] == 0.0)  # at rest, no creep, no chatter


def test_a_slipping_clutch_with_the_engine_faster_never_brakes_the_car_and_a_closed_one_does():
    """Off the throttle with the engine revved (1,900 rpm) and the clutch half in at 2.8 m/s in 1st, the engine's
    friction braked the car through the slipping clutch (-794 N), which only a clutch with the wheels the faster side
    can do; just above the idle line it still did after the first mending, a step at 10 km/h. The engine's braking
    through a closed clutch, coasting in 2nd, stays."""
    params = load_preset("manual003").params
    radius = params.body.wheel_radius

    def rolling(speed, gear):
        sim = Simulation(params, n=1, dt=DT)
        state = sim.state
        state.vx[:] = speed
        state.wheel_front[:] = state.wheel_rear[:] = speed / radius
        state.gear[:] = gear
        return sim

    sim = rolling(2.8, 1)
    for _ in range(int(0.5 / DT)):  # the engine revved with the clutch down
        sim.step(Inputs.from_keys(1, set(), throttle_pedal=0.6, clutch_pedal=1.0, gear=1))
    drive = [sim.step(Inputs.from_keys(1, set(), clutch_pedal=0.6, gear=1)).records[0]["drive_force"]
             for _ in range(int(0.5 / DT))]
    # (a few N once the engine has come down to the wheels' speed: the wheels are then the faster side)
    assert min(drive) > -100.0 and max(drive) > 1000.0  # the engine, faster, pushes as it slows
    sim = rolling(12.0, 2)
    sim.state.rpm[:] = 12.0 / radius * params.gearbox.ratios[1] * params.gearbox.final_drive * 60.0 / (2.0 * np.pi)
    coast = [sim.step(Inputs.from_keys(1, set(), gear=2)).records[0]["drive_force"] for _ in range(int(1.0 / DT))]
    assert max(coast[10:]) < -100.0  # engine braking through the closed clutch
