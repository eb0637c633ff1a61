"""The combined model in motion: power oversteer, a momentum-keeping low-speed blend, 003's bugs at every dt, finiteness."""

from __future__ import annotations

import numpy as np
import pytest
from grip_drivers import G, SpeedHold, drive, first_index, flying_start, sedan

from physics import Inputs, Simulation

DTS = [1.0 / 30.0, 1.0 / 60.0, 1.0 / 120.0, 1.0 / 240.0, 1.0 / 480.0]


def test_power_oversteer():
    """A steady 0.5 g corner in 2nd at 15 m/s; full throttle spins the rear and the yaw rate rises."""
    dt = 1.0 / 120.0
    sim = Simulation(sedan(**{"aids.tcs": 0}), n=1, dt=dt)  # traction control would hold the wheels
    speed = 15.0
    flying_start(sim, speed, 2)
    p = sim.cars[0]
    steer = (p.body.wheelbase * 0.5 * G / speed**2 + np.radians(0.6)) / p.steering.lock
    hold = SpeedHold(speed, dt, steer)

    def driver(t, tel):
        if t < 6.0:
            return hold(t, tel)
        return Inputs.from_keys(1, set(), throttle_pedal=1.0, steer=steer)

    run = drive(sim, 7.5, driver)
    steady = (run.t > 5.0) & (run.t < 6.0)
    ay = run.vx * run.yaw_rate / G
    assert np.all(np.abs(ay[steady] - 0.5) < 0.05)
    before = run.yaw_rate[steady].mean()
    after = run.yaw_rate[run.t > 6.0]
    assert after.max() > 1.5 * before
    assert run.wheelspin[run.t > 6.5].max() == 1.0
    assert run.beta[-1] < np.radians(-5.0)  # the tail is out


@pytest.mark.parametrize("dt", [1.0 / 60.0, 1.0 / 120.0, 1.0 / 240.0])
def test_sideways_slide_decays_through_the_forces(dt):
    """A 2.5 m/s sideways slide at a standstill's forward speed: it decays, no frame beyond 1.5 mu g."""
    p = sedan()
    sim = Simulation(p, n=1, dt=dt)
    sim.state.vy[:] = 2.5
    run = drive(sim, 2.0, lambda t, tel: Inputs.from_keys(1, set()))
    limit = 1.5 * p.tyres.mu * G
    change = np.abs(np.diff(np.concatenate([[2.5], run.vy]))) / dt
    assert change.max() <= limit
    assert np.abs(run.accel_lat).max() <= limit
    assert run.vy[1] > 2.0  # not deleted in a frame
    stop = first_index(np.abs(run.vy) < 0.01)
    assert 0.15 < run.t[stop] < 1.0  # takes the time the tyres need, whatever the dt
    assert np.all(np.abs(run.vy[stop:]) < 0.01)


@pytest.mark.parametrize("dt", DTS)
def test_a_spin_at_a_crawl_decays_through_the_forces(dt):
    """Rolling at 2 m/s and spinning at 2 rad/s: the yaw rate falls at most at the tyres' yaw moment."""
    p = sedan()
    sim = Simulation(p, n=1, dt=dt)
    flying_start(sim, 2.0, 1)
    sim.state.yaw_rate[:] = 2.0
    run = drive(sim, 2.0, lambda t, tel: Inputs.from_keys(1, {"clutch"}))
    b = p.body
    most = p.tyres.mu * p.model.gravity * b.mass * ((b.wheelbase - b.lr) * b.lr + b.lr * (b.wheelbase - b.lr)) \
        / b.wheelbase / b.yaw_inertia  # mu times each axle's static load times its lever, over Iz
    change = np.abs(np.diff(np.concatenate([[2.0], run.yaw_rate]))) / dt
    assert change.max() <= 1.05 * most
    assert run.yaw_rate[int(round(0.1 / dt))] > 1.0
    assert abs(run.yaw_rate[-1]) < 0.05


@pytest.mark.parametrize("dt", DTS)
def test_clutch_coast_at_every_dt(dt):
    """003's clutch stop stays absent: pressing the clutch at 11 km/h the car coasts on."""
    p = sedan()
    sim = Simulation(p, n=1, dt=dt)
    v0 = 11.0 / 3.6
    flying_start(sim, v0, 1)
    run = drive(sim, 5.0, lambda t, tel: Inputs.from_keys(1, {"clutch"}))
    # Once the pedal is down, drag and rolling resistance only: at most (C_d v0^2 + C_rr m g) over the
    # mass with the wheels' inertia.
    c_drag = 0.5 * p.aero.cd * p.aero.frontal_area * p.aero.air_density
    m_eff = p.body.mass + (p.body.wheel_inertia_front + p.body.wheel_inertia_rear) / p.body.wheel_radius**2
    decel = (c_drag * v0**2 + p.aero.rolling_coefficient * p.body.mass * p.model.gravity) / m_eff
    assert run.speed.min() > v0 - 5.0 * decel - 0.02
    assert np.all(run.accel_long[run.t > 0.1] > -1.02 * decel)


@pytest.mark.parametrize("dt", DTS)
def test_full_lock_pull_away_at_every_dt(dt):
    """003's full-lock stall stays absent: from rest at full lock the car pulls away round its circle.

    (With full throttle this car's 500 N m spin it round instead: power oversteer, as on a road.)
    """
    p = sedan()
    sim = Simulation(p, n=1, dt=dt)
    run = drive(sim, 10.0, lambda t, tel: Inputs.from_keys(1, {"left"}, throttle_pedal=0.2))
    assert run.speed_kmh[run.t >= 2.0].min() > 2.5
    crawl = (run.t >= 2.0) & (run.speed_kmh < 10.0)
    assert crawl.any()
    curvature = run.yaw_rate[crawl] / run.vx[crawl]
    assert curvature == pytest.approx(np.tan(run.steer[crawl]) / p.body.wheelbase, rel=0.05)  # 001's circle
    assert run.heading[-1] > np.pi


def test_wheel_dynamics_are_stable_at_large_dt():
    """A full-throttle launch, wheels spinning: stable at dt 1/30, converged by 1/60 (against 1/480)."""
    speeds = {}
    for dt in (1.0 / 30.0, 1.0 / 60.0, 1.0 / 480.0):
        sim = Simulation(sedan(**{"aids.tcs": 0}), n=1, dt=dt)  # no traction control: the wheels spin
        run = drive(sim, 3.0, lambda t, tel: Inputs.from_keys(1, {"throttle"}))
        speeds[dt] = run.speed[-1]
        assert np.abs(run.slip_ratio_rear).max() < 20.0 and run.wheel_rear.min() >= 0.0
    assert speeds[1.0 / 60.0] == pytest.approx(speeds[1.0 / 480.0], rel=0.03)
    assert speeds[1.0 / 30.0] == pytest.approx(speeds[1.0 / 480.0], rel=0.25)  # coarse, but stable


@pytest.mark.parametrize("keys", [{"brake"}, {"handbrake"}, {"left", "brake"}])
def test_finite_at_a_standstill_and_in_reverse(keys):
    """Braking at rest, the handbrake at rest, and reversing at full lock: every channel stays finite."""
    sim = Simulation(sedan(), n=1, dt=1.0 / 120.0)
    run = drive(sim, 1.0, lambda t, tel: Inputs.from_keys(1, keys))
    assert run.speed.max() == 0.0
    sim.reset()
    reverse = drive(sim, 4.0, lambda t, tel: Inputs.from_keys(1, {"left"}, throttle_pedal=0.3, gear=-1))
    assert reverse.speed.min() < -1.0
    for name in reverse.dtype.names:
        assert np.isfinite(reverse[name]).all(), name


def test_handbrake_locks_the_rear_and_the_tail_steps_out():
    sim = Simulation(sedan(), n=1, dt=1.0 / 120.0)
    flying_start(sim, 15.0, 2)

    def driver(t, tel):
        return Inputs.from_keys(1, {"clutch", "handbrake"} if t > 0.5 else {"clutch"}, steer=0.3)

    run = drive(sim, 1.5, driver)
    late = (run.t > 0.7) & (run.vx > 3.0)
    assert late.sum() > 20
    assert np.all(run.slip_ratio_rear[late] < -0.99)
    assert np.all(run.slip_ratio_front[late] > -0.2)
    assert run.beta[-1] < np.radians(-5.0)
