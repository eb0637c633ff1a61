"""003: the manual sedan (preset manual003) engine, clutch, gearbox and pedals against the article's figures."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import DT, keys, preset, record, resistance, shifting_driver

from physics import Simulation

# 003's figures.
RATIOS = [3.5, 2.0, 1.4, 1.0, 0.8]
REVERSE = -3.0
FINAL_DRIVE = 3.4
WHEEL_RADIUS = 0.33  # [m]
IDLE = 1000.0  # [rpm]
REV_LIMIT = 7400.0  # [rpm] "about 7,400"
CRAWL_KMH = (2.0, 5.0)  # pulling away: "embreagem 6%, 1.064 rpm e 3,6 km/h"
CRAWL_CLUTCH = (0.03, 0.10)
CRAWL_RPM = (1030.0, 1100.0)
CRAWL_POINT_KMH, CRAWL_POINT_RPM, CRAWL_POINT_CLUTCH = 3.6, 1064.0, 0.06
FIRST_GEAR_TIME = 6.0  # [s] "em cerca de 6 segundos de 1a ele chega a 67,8 km/h"
FIRST_GEAR_KMH = (55.0, 80.0)
FIRST_GEAR_MIN_RPM = 6000.0  # near the rev limit (003's screenshot: 6,808 rpm)
SECOND_GEAR_KMH = 130.0  # "passa de 134,6 km/h na 2a"
THIRD_GEAR_KMH = 150.0  # "e de 155,9 km/h na 3a"
THROTTLE_RISE, THROTTLE_FALL = 2.0, 4.0  # [1/s] "o acelerador sobe a 2 por segundo e desce a 4"
BRAKE_RISE, BRAKE_FALL = 3.0, 5.0  # [1/s] "o freio sobe a 3 e desce a 5"
ENGINE_BRAKING_SPEED = 3.0  # [m/s] above the automatic clutch's range

SHIFT_1_2, SHIFT_2_3, RUN_END = 6.2, 12.0, 17.0  # [s] when the full-throttle run shifts, and its length


def test_manual003_preset_has_003s_drivetrain():
    p = preset("manual003")
    assert p.gearbox.ratios == RATIOS
    assert p.gearbox.reverse == REVERSE
    assert p.gearbox.final_drive == FINAL_DRIVE
    assert p.body.wheel_radius == WHEEL_RADIUS
    assert p.engine.idle_rpm == IDLE
    assert p.engine.rev_limit == REV_LIMIT
    assert p.clutch.capacity == 600.0


@pytest.fixture(scope="module")
def full_throttle():
    """From rest at full throttle: 1st to the limiter, 2nd, 3rd (clutch + gear_up for each shift)."""
    sim = Simulation(preset("manual003"), dt=DT)
    return record(sim, RUN_END, shifting_driver([SHIFT_1_2, SHIFT_2_3])).car(0)


def test_pulling_away_the_auto_clutch_holds_the_engine_near_idle(full_throttle):
    run = full_throttle
    crawl = (run.speed_kmh >= CRAWL_KMH[0]) & (run.speed_kmh <= CRAWL_KMH[1]) & (run.gear == 1)
    assert crawl.sum() > 20
    assert np.all((run.clutch[crawl] >= CRAWL_CLUTCH[0]) & (run.clutch[crawl] <= CRAWL_CLUTCH[1]))
    assert np.all((run.rpm[crawl] >= CRAWL_RPM[0]) & (run.rpm[crawl] <= CRAWL_RPM[1]))
    # 003: below 3 m/s the engagement is (rpm - 1000) / 1000.
    assert run.clutch[crawl] == pytest.approx((run.rpm[crawl] - IDLE) / 1000.0, rel=1e-9)
    # 003's screenshot: 6% at 1,064 rpm and 3.6 km/h.
    index = np.flatnonzero(crawl)
    rpm_at = np.interp(CRAWL_POINT_KMH, run.speed_kmh[index], run.rpm[index])
    clutch_at = np.interp(CRAWL_POINT_KMH, run.speed_kmh[index], run.clutch[index])
    assert rpm_at == pytest.approx(CRAWL_POINT_RPM, abs=30.0)
    assert clutch_at == pytest.approx(CRAWL_POINT_CLUTCH, abs=0.02)


def test_about_six_seconds_in_first_reaches_the_rev_limit(full_throttle):
    run = full_throttle
    k = int(np.searchsorted(run.t, FIRST_GEAR_TIME))
    assert run.gear[k] == 1
    assert FIRST_GEAR_KMH[0] <= run.speed_kmh[k] <= FIRST_GEAR_KMH[1]
    assert run.rpm[k] >= FIRST_GEAR_MIN_RPM
    assert run.rpm.max() <= REV_LIMIT
    assert run.rpm[0] == IDLE


@pytest.mark.parametrize("edit", [{"engine.peak_torque": 600.0}, {"gearbox.final_drive": 6.0}])
def test_no_wheelspin_carries_the_car_past_its_gear_s_top_speed(edit):
    """Full throttle in 1st with more torque than the rear tyres pass (003's simple traction): the wheels spin until
    the road catches the engine at its rev limit; the spin's sliding grip then pushed on, the engine held at the
    limiter, to twice 1st gear's top speed with 600 N m (41.7 m/s at 12 s) and 3.7 times with a final drive of 6
    (44.95 m/s, where 1st tops out at 12.2), and lifting the throttle threw the engine to 14,360 and 27,316 rpm in a
    frame (carbench 0.3.24). Wheels the road turns past the engine's limit cannot spin ahead of it."""
    params = preset("manual003").with_values(edit)
    run = record(Simulation(params, dt=DT), 13.0, lambda t, sim: keys("throttle") if t < 12.0 else keys()).car(0)
    top = params.engine.rev_limit / 60.0 * 2.0 * np.pi / (RATIOS[0] * params.gearbox.final_drive) * WHEEL_RADIUS
    assert (run.gear == 1).all()
    assert (run.wheelspin > 0.0).any()  # the case is there: the tyres let go on the way
    assert run.speed.max() <= top * 1.01
    assert run.rpm.max() <= REV_LIMIT + 300.0


def test_axle_torque_is_engine_torque_times_gear_and_final_drive(full_throttle):
    p = preset("manual003")
    run = full_throttle
    locked = (run.clutch == 1.0) & (np.abs(run.engine_torque) <= p.clutch.capacity) & (run.gear >= 1)
    assert locked.sum() > 500
    ratio = np.array(p.gearbox.ratios)[run.gear[locked].astype(int) - 1] * p.gearbox.final_drive
    assert set(np.unique(run.gear[locked])) == {1.0, 2.0, 3.0}
    assert run.axle_torque[locked] == pytest.approx(run.engine_torque[locked] * ratio, rel=1e-12)


def test_with_the_clutch_pressed_nothing_reaches_the_axle(full_throttle):
    run = full_throttle
    pressed = run.clutch_pedal == 1.0
    assert pressed.sum() >= 10
    assert np.all(run.clutch[pressed] == 0.0)
    assert np.all(run.axle_torque[pressed] == 0.0)
    assert np.all(run.axle_torque[run.clutch == 0.0] == 0.0)


def test_second_and_third_gear_speeds(full_throttle):
    run = full_throttle
    assert list(np.unique(run.gear)) == [1.0, 2.0, 3.0]
    assert np.all(np.diff(run.gear) >= 0)
    assert run.speed_kmh[run.gear == 2].max() > SECOND_GEAR_KMH
    assert run.speed_kmh[run.gear == 3].max() > THIRD_GEAR_KMH
    shifts = np.flatnonzero(np.diff(run.gear) != 0) + 1
    assert np.all(run.clutch_pedal[shifts] >= preset("manual003").gearbox.shift_clutch)


@pytest.fixture(scope="module")
def early_shift():
    """1st at full throttle, shifted to 2nd at 3 s (18 km/h, before any wheelspin), throttle held."""
    sim = Simulation(preset("manual003"), dt=DT)
    return record(sim, 4.0, shifting_driver([3.0])).car(0)


def test_engine_flares_while_the_clutch_is_pressed(early_shift):
    run = early_shift
    open_ = np.flatnonzero(run.clutch_pedal == 1.0)
    assert open_.size >= 5
    assert np.all(run.clutch[open_] == 0.0)
    assert np.all(run.throttle[open_] == 1.0)
    assert np.all(run.axle_torque[open_] == 0.0)
    rpm = run.rpm[open_[0]:open_[-1] + 2]  # each row holds the rpm at the frame's start
    assert np.all(np.diff(rpm) > 0)
    assert rpm[-1] - rpm[0] > 100.0
    # With the clutch engaged again the drivetrain pulls the engine back to road speed.
    assert run.gear[-1] == 2 and run.clutch[-1] == 1.0
    assert run.rpm[-1] < rpm.max()


def test_gear_up_without_the_clutch_does_nothing():
    sim = Simulation(preset("manual003"), dt=DT)

    def driver(t, sim_):
        if t < 1.0:
            return keys("throttle", "gear_up")
        return keys("throttle", "gear_up", "clutch")  # the same press, now with the clutch

    run = record(sim, 1.2, driver).car(0)
    before = run.t < 1.0
    assert np.all(run.gear[before] == 1)
    assert run.gear[-1] == 2


def test_pedals_are_ramps():
    sim = Simulation(preset("manual003"), dt=DT)
    run = record(sim, 1.0, keys("throttle", "brake")).concat(record(sim, 1.0, keys())).car(0)
    for name, rise, fall in (("throttle", THROTTLE_RISE, THROTTLE_FALL), ("brake", BRAKE_RISE, BRAKE_FALL)):
        value = run[name]
        steps = np.diff(value) / DT
        inside = (value[:-1] > 0.0) & (value[:-1] < 1.0) & (value[1:] > 0.0) & (value[1:] < 1.0)
        rising, falling = inside & (steps > 0), inside & (steps < 0)
        assert rising.sum() > 10 and falling.sum() > 10
        assert steps[rising] == pytest.approx(rise, rel=1e-6)
        assert steps[falling] == pytest.approx(-fall, rel=1e-6)
        assert value.max() == 1.0 and value[-1] == 0.0


def test_engine_braking():
    p = preset("manual003")
    sim = Simulation(p, dt=DT)
    launch = record(sim, 3.0, keys("throttle")).car(0)
    run = record(sim, 2.0, keys()).car(0)
    assert launch.wheelspin.max() == 0.0
    off = (run.throttle == 0.0) & (run.speed > ENGINE_BRAKING_SPEED) & (run.gear == 1)
    assert off.sum() > 100
    assert np.all(run.engine_torque[off] < 0.0)
    assert np.all(run.axle_torque[off] < 0.0)
    # It reaches the road: the car slows faster than drag and rolling resistance alone would make it.
    assert np.all(-run.accel_long[off] > resistance(p, run.speed[off]) / p.body.mass)


# -- wheelspin ---------------------------------------------------------------------------------

PHANTOM = ("model bug: once the driven wheels spin they keep pushing spin_fraction * grip limit "
           "(about 5,300 N) for as long as the engine turns faster than the road speed imposes, "
           "whatever the axle torque: with the clutch pressed (axle torque 0) the sedan still "
           "accelerates at about 4 m/s^2 (physics.drive.traction, 'still' rule in physics.step._dynamic)")


def test_the_road_never_gets_more_drive_force_than_the_axle_delivers(full_throttle):
    # 003: axle torque / wheel radius is the drive force; past the grip limit only 70% of the
    # limit reaches the road. Nothing here stores energy (no wheel inertia): never more than the axle gives.
    run = full_throttle
    limit = np.abs(run.axle_torque) / WHEEL_RADIUS
    worst = np.argmax(np.abs(run.drive_force) - limit)
    assert np.abs(run.drive_force[worst]) <= limit[worst] + 1e-6, (
        f"t = {run.t[worst]:.3f} s: drive force {run.drive_force[worst]:.0f} N with axle torque "
        f"{run.axle_torque[worst]:.0f} N m (clutch {run.clutch[worst]:.2f}, wheelspin {run.wheelspin[worst]:.0f})")


def test_clutch_pressed_after_wheelspin_coasts():
    # SPEC 2.5 / 003: a car coasting on a pressed clutch slows only by drag and rolling resistance,
    # also when the wheels were spinning the moment before (1st at full throttle, about 50 km/h).
    p = preset("manual003")
    sim = Simulation(p, dt=DT)
    launch = record(sim, 5.0, keys("throttle")).car(0)
    run = record(sim, 1.0, keys("clutch")).car(0)
    assert launch.wheelspin[-1] == 1.0
    coasting = run.clutch == 0.0
    assert coasting.sum() > 60
    measured = -np.diff(run.speed) / DT
    expected = resistance(p, run.speed[:-1]) / p.body.mass
    assert measured[coasting[:-1]] == pytest.approx(expected[coasting[:-1]], rel=0.01)


# -- a gear against the direction of travel ----------------------------------------------------

AGAINST = ("model bug: rolling against the selected gear (forward in reverse, backward in 1st) the "
           "imposed engine speed is clamped at 0 rpm and the engine's friction torque keeps its sign "
           "(-15 N m), so with no throttle the drivetrain pushes the car along its motion "
           "(+464 N forward in reverse at 39 km/h; -541 N backward in 1st): it accelerates instead of braking")


def _roll_against_the_gear(case: str):
    """The sedan rolling one way, then (clutch pressed) the gear of the other way, clutch released, no throttle."""
    p = preset("manual003")
    sim = Simulation(p, dt=DT)
    if case == "forward_in_reverse":
        record(sim, 5.0, shifting_driver([3.0]))  # 39 km/h in 2nd
        new_gear = -1
    else:
        record(sim, 2.8, keys("throttle", gear=-1))  # about 10 km/h backwards in reverse
        new_gear = 1

    def driver(t, sim_):
        if t < 0.3:
            return keys("clutch")
        if t < 0.4:
            return keys("clutch", gear=new_gear)
        return keys()

    return p, record(sim, 2.0, driver).car(0)


@pytest.mark.parametrize("case", ["forward_in_reverse", "backward_in_first"])
def test_without_throttle_the_drivetrain_never_pushes_along_the_motion(case):
    p, run = _roll_against_the_gear(case)
    engaged = (run.clutch > 0.0) & (run.throttle == 0.0)
    assert engaged.sum() > 30 and np.all(run.wheelspin == 0.0)
    assert abs(run.speed[engaged][0]) > 2.0
    power = run.drive_force[engaged] * run.speed[engaged]
    worst = int(np.argmax(power))
    assert power[worst] <= 0.0, (
        f"speed {run.speed[engaged][worst]:.2f} m/s in gear {run.gear[engaged][worst]:.0f} at "
        f"{run.rpm[engaged][worst]:.0f} rpm: drive force {run.drive_force[engaged][worst]:.0f} N")
    assert abs(run.speed[-1]) < abs(run.speed[engaged][0])


def test_the_clutch_coupling_is_dt_free_and_exact_when_the_clutch_is_open_or_closed():
    """physics.clutch.rpm_coupling: the gap closes at -ln(1 - e) / sync_time, so 1 - (1 - e) ** (dt / sync_time) a
    step and two half steps close what one step does; fully open or closed it returns 0 and 1 without the exp and
    log, which give exactly those values there."""
    import math

    from physics import approx
    from physics.clutch import rpm_coupling

    for sync in (0.001, 0.15, 0.5):
        for dt in (1.0 / 240.0, 1.0 / 120.0, 1.0 / 30.0):
            for e in (0.0, -0.0, 1.0):
                formula = 1.0 - approx.exp(dt / sync * approx.log(1.0 - e))
                assert rpm_coupling(e, dt, sync) == formula and formula in (0.0, 1.0)
                assert not math.copysign(1.0, rpm_coupling(e, dt, sync)) < 0.0
            for e in (0.1, 0.5, 0.99):
                one = rpm_coupling(e, dt, sync)
                assert math.isclose(one, 1.0 - (1.0 - e) ** (dt / sync), rel_tol=1e-12, abs_tol=1e-300)
                half = rpm_coupling(e, dt / 2.0, sync)
                assert math.isclose(1.0 - (1.0 - half) ** 2, one, rel_tol=1e-12)
