"""Brakes limited by the road (combined model): stopping distances against v^2 / (2 mu g), ABS, and the friction ellipse."""

from __future__ import annotations

import numpy as np
import pytest
from grip_drivers import G, drive, first_index, flying_start, sedan
from helpers import four_wheel_energy, keys, preset, record

from physics import Inputs, Simulation

V0 = 100.0 / 3.6
# Without drag and rolling resistance the tyres alone stop the car: v^2 / (2 mu g) is then a true bound.
NO_RESISTANCE = {"aero.cd": 0.0, "aero.rolling": 0.0, "aero.rolling_coefficient": 0.0}


def stopping_distance(mu: float, abs_on: int, dt: float = 1.0 / 120.0) -> tuple[float, np.recarray]:
    sim = Simulation(sedan(**NO_RESISTANCE, **{"tyres.mu": mu, "brakes.abs": abs_on}), n=1, dt=dt)
    flying_start(sim, V0, 4)
    run = drive(sim, 40.0, lambda t, tel: Inputs.from_keys(1, {"clutch"}, brake_pedal=1.0))
    stop = first_index(run.speed <= 0.0)
    return float(run.x[stop] - run.x[0]), run


@pytest.mark.parametrize("mu", [1.0, 0.5, 0.2])
@pytest.mark.parametrize("abs_on", [1, 0])
def test_no_stop_beats_the_road(mu, abs_on):
    distance, _ = stopping_distance(mu, abs_on)
    assert distance >= 0.97 * V0 * V0 / (2.0 * mu * G)


@pytest.mark.parametrize("mu", [1.0, 0.5, 0.2])
def test_abs_stops_close_to_the_road_limit(mu):
    distance, run = stopping_distance(mu, 1)
    assert distance <= 1.25 * V0 * V0 / (2.0 * mu * G)
    braking = run.speed > sedan().brakes.abs_min_speed  # below it ABS lets the wheels lock for the last metre
    assert np.all(run.slip_ratio_front[braking][12:] > -0.3)  # the wheels keep turning


@pytest.mark.parametrize("mu", [1.0, 0.2])
def test_without_abs_the_wheels_lock_and_slide_further(mu):
    locked, run = stopping_distance(mu, 0)
    with_abs, _ = stopping_distance(mu, 1)
    assert locked > 1.1 * with_abs
    sliding = (run.speed > 2.0) & (run.t > 0.5)  # the pedal is down and the wheels have stopped turning
    assert np.all(run.slip_ratio_front[sliding] < -0.99)
    assert np.all(run.slip_ratio_rear[sliding] < -0.99)


def test_brake_split_follows_front_share():
    _, run = stopping_distance(1.0, 0)
    k = 3  # the pedal is down, the wheels not yet locked
    share = run.brake_front[k] / (run.brake_front[k] + run.brake_rear[k])
    assert share == pytest.approx(sedan().brakes.front_share, abs=1e-9)


@pytest.mark.parametrize("abs_on", [1, 0])
def test_combined_acceleration_stays_within_mu_g(abs_on):
    """Cornering at about 0.32 g, then full brake: braking and cornering share one friction ellipse."""
    mu = 1.0
    sim = Simulation(sedan(**NO_RESISTANCE, **{"tyres.mu": mu, "brakes.abs": abs_on}), n=1, dt=1.0 / 120.0)
    speed = 20.0
    flying_start(sim, speed, 3)
    steer = (2.85 * 0.32 * G / speed**2) / sim.cars[0].steering.lock

    def driver(t, tel):
        if t < 4.0:
            return Inputs.from_keys(1, set(), throttle_pedal=0.12, steer=steer)
        return Inputs.from_keys(1, {"clutch"}, brake_pedal=1.0, steer=steer)

    run = drive(sim, 10.0, driver)
    cornering = (run.t > 3.0) & (run.t < 4.0)
    assert np.mean(run.accel_lat[cornering]) > 0.25 * G
    moving = run.speed > 1.0
    total = np.hypot(run.accel_long, run.accel_lat)[moving]
    assert total.max() <= 1.03 * mu * G
    assert np.all(run.grip_front <= 1.0) and np.all(run.grip_rear <= 1.0)


def test_braking_at_a_crawl_in_reverse_at_a_coarse_dt_makes_no_energy():
    """Found by the hunt at dt = 1/30 s: reversing at 1.7 m/s, the brake pedal coming down. A front wheel the tyre
    turned towards the road took the force that brings wheel and road together, near none, and the brake then
    stopped it at zero with the road sliding under it: 157 J gained in a frame. The meeting force takes the
    brake's torque, and a wheel the brake keeps short of the road slides on at the limit."""
    dt = 1.0 / 30.0

    def driver(t, sim_):
        k = round(t / dt)
        if k < 18:  # clutch down, and twice gear_down: 1st, neutral, reverse
            return keys("clutch", "gear_down") if k in (5, 11) else keys("clutch")
        if 74 <= k < 86:
            return keys("throttle")
        return keys("brake") if k >= 133 else keys()

    p = preset("sedan")
    run = record(Simulation(p, dt=dt), 4.8, driver)
    energy, engine_work = four_wheel_energy(p, run, dt)
    braking = np.flatnonzero(run.brake[:-1, 0] > 0.0)
    assert braking.size > 5 and np.all(run.gear[braking, 0] == -1.0) and run.vx[braking[0], 0] < -1.0
    gain = (np.diff(energy) - engine_work)[braking]
    worst = int(np.argmax(gain))
    assert gain[worst] <= 1e-3 * energy[braking[worst]], (
        f"{gain[worst]:.1f} J gained at {run.t[braking[worst], 0]:.3f} s of {energy[braking[worst]]:.0f} J")


def test_traction_control_brakes_a_single_track_axle_with_what_its_brake_has_left():
    """Full throttle at full lock with the brake pedal a little down: traction control brakes the spinning rear axle
    on top of the pedal, and together they give no more than the axle's brake (it gave 2,746 N m on 2,112)."""
    p = preset("sedan_single_track")
    run = record(Simulation(p, dt=1.0 / 120.0), 4.0,
                 lambda t, sim_: keys("throttle", "left", brake_pedal=0.3) if t > 0.5 else keys("throttle", "left"))
    rear = (1.0 - p.brakes.front_share) * p.brakes.force * p.body.wheel_radius
    torque = run.brake_rear[:, 0] * p.body.wheel_radius
    assert run.tcs_active[:, 0].sum() > 100
    assert 0.9 * rear < torque.max() <= rear * (1.0 + 1e-9)  # traction control takes what the pedal leaves, no more
