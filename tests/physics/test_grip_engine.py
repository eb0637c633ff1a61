"""The engine with inertia (combined model): free revving, bogging down, stalling, the start key, the automatic clutch."""

from __future__ import annotations

import numpy as np
import pytest
from grip_drivers import RPM_PER_RAD_S, drive, first_index, flying_start, sedan

from physics import KEYS, Inputs, Simulation

DT = 1.0 / 120.0
BARE_MANUAL = {"clutch.auto_speed": 0.0}  # no automatic clutch: the pedal alone


def test_start_is_a_key():
    assert "start" in KEYS


def test_free_revving_follows_the_inertia():
    """Clutch pressed, full throttle from idle: the first frame's rise is (torque - friction) / inertia."""
    p = sedan()
    sim = Simulation(p, n=1, dt=DT)
    run = drive(sim, 1.0, lambda t, tel: Inputs.from_keys(1, {"clutch"}, throttle_pedal=1.0))
    e = p.engine
    z = (e.idle_rpm - e.peak_rpm) / e.width_below
    net = e.peak_torque * np.exp(-z * z) - e.friction_idle  # at idle, full throttle
    assert (run.rpm[1] - run.rpm[0]) == pytest.approx(net / e.inertia * DT * RPM_PER_RAD_S, rel=0.02)
    assert run.rpm.max() <= e.rev_limit + 100.0


@pytest.mark.parametrize("name", ["sedan", "sedan_single_track"])
@pytest.mark.parametrize("dt", [1.0 / 120.0, 1.0 / 30.0, 0.05])
def test_a_free_revving_engine_stops_at_its_rev_limit_at_any_dt(name, dt):
    """Clutch pressed, full throttle: the limiter cuts the fuel where the engine reaches the limit within a frame,
    not at the next frame's start (the hunt at dt = 1/30 s found 7,345 rpm on a 7,000 rpm limit). The wheels may
    still turn it past (a downshift at speed): that is not the fuel's doing."""
    p = sedan(name)
    run = drive(Simulation(p, n=1, dt=dt), 3.0, lambda t, tel: Inputs.from_keys(1, {"clutch"}, throttle_pedal=1.0))
    limit = p.engine.rev_limit
    assert run.rpm.max() <= limit * (1.0 + 1e-12)
    assert run.rpm[-1] > limit - p.engine.limiter_band - 50.0  # and it gets there: the limiter, not a lid below it


def test_dropping_the_clutch_bogs_the_engine_down_over_time():
    """Revved to about 4,800 rpm in 1st, clutch dropped: the engine takes tenths of a second to come down."""
    sim = Simulation(sedan(**BARE_MANUAL), n=1, dt=DT)
    dropped = []

    def driver(t, tel):
        if not dropped and (tel is None or tel.rpm[0] < 4760.0):
            return Inputs.from_keys(1, set(), clutch_pedal=1.0, throttle_pedal=0.5)
        dropped.append(t)  # once dropped, the clutch stays out
        return Inputs.from_keys(1, set(), clutch_pedal=0.0, throttle_pedal=0.5)

    run = drive(sim, 3.0, driver)
    drop = first_index(run.clutch > 0.99)
    assert run.rpm[drop] > 4500.0
    tenth = drop + int(round(0.1 / DT))
    assert run.rpm[tenth] > 2500.0  # 003's inertia-free engine fell to 1,085 rpm in 0.1 s
    assert run.stalled.max() == 0.0
    assert run.speed_kmh[-1] > 15.0


def test_a_dropped_clutch_in_third_stalls_and_the_start_key_restarts():
    p = sedan(**BARE_MANUAL)
    sim = Simulation(p, n=1, dt=DT)

    def driver(t, tel):
        if t < 1.0:
            return Inputs.from_keys(1, set(), clutch_pedal=1.0, gear=3)
        if t < 2.5:
            return Inputs.from_keys(1, set(), clutch_pedal=0.0)
        return Inputs.from_keys(1, {"start"} if 3.0 <= t < 3.5 else set(), clutch_pedal=1.0)

    run = drive(sim, 4.5, driver)
    dropped = run.t >= 1.0
    stall = first_index(dropped & (run.stalled > 0.0))
    assert run.t[stall] < 1.2
    assert run.rpm[stall] < p.engine.stall_rpm
    assert np.all(run.stalled[(run.t > 1.2) & (run.t < 3.0)] == 1.0)
    assert np.all(run.rpm[(run.t > 2.0) & (run.t < 3.0)] < 10.0)  # a stalled engine stops
    assert np.all(run.engine_torque[(run.t > 1.2) & (run.t < 3.0)] <= 0.0)  # and gives nothing
    assert np.all(run.stalled[run.t > 3.5] == 0.0)
    assert run.rpm[-1] == pytest.approx(p.engine.idle_rpm, abs=20.0)


def test_a_stalled_engine_ignores_the_throttle():
    sim = Simulation(sedan(**BARE_MANUAL), n=1, dt=DT)

    def driver(t, tel):
        if t < 0.5:
            return Inputs.from_keys(1, set(), clutch_pedal=1.0, gear=2)
        if t < 1.5:
            return Inputs.from_keys(1, set(), clutch_pedal=0.0)
        return Inputs.from_keys(1, set(), clutch_pedal=1.0, throttle_pedal=1.0)

    run = drive(sim, 2.5, driver)
    assert run.stalled[-1] == 1.0 and run.rpm[-1] < 10.0


@pytest.mark.parametrize("gear", [1, 2])
def test_the_automatic_clutch_prevents_stalls(gear):
    """With the automatic clutch a pull-away in 2nd and a stop in gear without the clutch do not stall."""
    sim = Simulation(sedan(), n=1, dt=DT)

    def driver(t, tel):
        if t < 4.0:
            return Inputs.from_keys(1, set(), throttle_pedal=0.3, gear=gear)
        return Inputs.from_keys(1, set(), brake_pedal=1.0)

    run = drive(sim, 8.0, driver)
    # (In 2nd at 0.3 throttle the engine bogs near 600 rpm once the launch clutch has handed over: the
    # idle control adds only its authority, so it pulls away slowly but does not stall.)
    assert run.speed_kmh[run.t < 4.0].max() > 10.0
    assert run.speed[-1] == 0.0
    assert run.stalled.max() == 0.0
    assert run.rpm[-1] == pytest.approx(sim.cars[0].engine.idle_rpm, abs=20.0)


def test_braking_in_gear_with_the_clutch_engaged_can_stall_a_bare_manual():
    sim = Simulation(sedan(**BARE_MANUAL), n=1, dt=DT)
    flying_start(sim, 8.0, 2)
    run = drive(sim, 4.0, lambda t, tel: Inputs.from_keys(1, set(), brake_pedal=1.0))
    assert run.stalled[-1] == 1.0
