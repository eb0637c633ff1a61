"""001: the kinematic bicycle, checked against the figures of the parking-game article.

The radius table, the Precision Parking car in pixels (with its handbrake), the centre-of-mass
form, reverse without a special case and a stopped car that cannot rotate.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import DT, fit_circle, keys, preset, record, stack_inputs

import physics.kinematic as kinematic
from physics import Simulation

# 001's table: steering angle [deg] -> (tan(delta), R for L = 2.6 m, R for L = 0.3302 m), as printed.
TABLE = {
    10: (0.176, 14.7, 1.87),
    20: (0.364, 7.1, 0.91),
    30: (0.577, 4.5, 0.57),
    40: (0.839, 3.1, 0.39),
}
L_TEACHING = 2.6  # [m] 001: "a wheelbase I picked"
L_F1TENTH = 0.3302  # [m] 001: the F1TENTH platform's wheelbase
COLUMN_RATIO = 7.87  # 001: "the two columns differ by a constant factor of 7.87"
PATH_TOLERANCE = 0.01  # the simulated path's radius within 1% of L / tan(delta)

# 001's pixel table for the Precision Parking car: wheel angle [rad], wheelbase [px] -> radius [px], car lengths.
PARKING_TABLE = [
    (0.10, 46.0, 458.5, 6.6),
    (0.25, 46.0, 180.2, 2.6),
    (0.40, 46.0, 108.8, 1.6),
    (0.53, 46.0, 78.5, 1.1),
    (0.53, 30.0, 51.2, 0.7),
]
PARKING_LENGTH = 70.0  # [px] 001
PARKING_LAP = 2.9  # [s] 001: a full circle at full throttle and full lock
PARKING_HANDBRAKE_LAP = 3.8  # [s] 001: a full circle with the handbrake
PARKING_TOP_SPEED = 170.0  # [px/s] 001 (via the preset's notes): "top speed about 170 px/s"
PARKING_HANDBRAKE_CAP = 85.0  # [px/s] 001
LAP_TOLERANCE = 0.05  # 5%

# 001's centre-of-mass form: lr = L/2, L = 2.6 m, 30 degrees of lock.
COM_BETA_DEG = 16.1
COM_RADIUS = 4.69
REAR_RADIUS = 4.50
COM_YAW_GAP = 0.04  # "disagree about the yaw rate by 4%"


def _printed_tolerance(printed: float) -> float:
    """Half a unit in the last printed digit: 14.7 -> 0.05, 1.87 -> 0.005."""
    text = repr(printed)
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0 ** -decimals + 1e-12


# -- the radius table ----------------------------------------------------------------------------


@pytest.mark.parametrize("deg", sorted(TABLE))
def test_rear_axle_radius_reproduces_the_printed_table(deg):
    tan_printed, r_teaching, r_f1tenth = TABLE[deg]
    delta = math.radians(deg)
    assert math.tan(delta) == pytest.approx(tan_printed, abs=_printed_tolerance(tan_printed))
    assert kinematic.rear_axle_radius(delta, L_TEACHING) == pytest.approx(
        r_teaching, abs=_printed_tolerance(r_teaching))
    assert kinematic.rear_axle_radius(delta, L_F1TENTH) == pytest.approx(
        r_f1tenth, abs=_printed_tolerance(r_f1tenth))


@pytest.mark.parametrize("deg", sorted(TABLE))
def test_rear_axle_radius_is_wheelbase_over_tangent(deg):
    delta = math.radians(deg)
    for wheelbase in (L_TEACHING, L_F1TENTH):
        assert kinematic.rear_axle_radius(delta, wheelbase) == pytest.approx(wheelbase / math.tan(delta), rel=1e-12)
    ratio = kinematic.rear_axle_radius(delta, L_TEACHING) / kinematic.rear_axle_radius(delta, L_F1TENTH)
    assert ratio == pytest.approx(COLUMN_RATIO, abs=0.005)


@pytest.fixture(scope="module")
def table_paths():
    """The teaching car at both wheelbases and the four angles of the table, as one batch of eight."""
    teaching = preset("teaching")
    cases = [(wheelbase, deg) for wheelbase in (L_TEACHING, L_F1TENTH) for deg in sorted(TABLE)]
    cars = [teaching.with_values({"body.wheelbase": wheelbase, "body.lr": wheelbase / 2}) for wheelbase, _ in cases]
    lock_deg = math.degrees(teaching.steering.lock)
    inputs = stack_inputs([keys(steer=deg / lock_deg, throttle_pedal=0.3) for _, deg in cases])
    sim = Simulation(cars, dt=DT)
    run = record(sim, 6.0, inputs)
    return {case: run.car(i) for i, case in enumerate(cases)}


@pytest.mark.parametrize("wheelbase", [L_TEACHING, L_F1TENTH])
@pytest.mark.parametrize("deg", sorted(TABLE))
def test_simulated_path_radius_matches_the_table(table_paths, wheelbase, deg):
    run = table_paths[(wheelbase, deg)]
    half = len(run.x) // 2
    assert run.speed[half:].min() > 0.5, "the car must be rolling to draw its circle"
    _, _, radius = fit_circle(run.x[half:], run.y[half:])
    expected = wheelbase / math.tan(math.radians(deg))
    assert radius == pytest.approx(expected, rel=PATH_TOLERANCE)
    printed = TABLE[deg][1 if wheelbase == L_TEACHING else 2]
    assert radius == pytest.approx(printed, rel=PATH_TOLERANCE, abs=_printed_tolerance(printed))


# -- Precision Parking, in pixels -------------------------------------------------------------


def test_parking_preset_is_001s_car():
    p = preset("parking")
    assert p.model.unit == "px"
    assert p.body.length == PARKING_LENGTH
    assert p.body.wheelbase == 46.0
    assert p.steering.lock == 0.53
    assert p.steering.handbrake_wheelbase == 30.0
    assert p.brakes.handbrake_speed == PARKING_HANDBRAKE_CAP


@pytest.mark.parametrize("angle, wheelbase, radius, lengths", PARKING_TABLE)
def test_parking_radius_table(angle, wheelbase, radius, lengths):
    r = kinematic.rear_axle_radius(angle, wheelbase)
    assert r == pytest.approx(radius, abs=0.05)
    # The lengths column was rounded from the rounded radius (458.5 / 70 = 6.55 -> 6.6): both roundings count.
    assert r / PARKING_LENGTH == pytest.approx(lengths, abs=0.05 + 0.05 / PARKING_LENGTH)


@pytest.fixture(scope="module")
def parking_table_paths():
    """The parking car driven at each angle of 001's pixel table (the handbrake row with the handbrake)."""
    p = preset("parking")
    rows = [(angle, wheelbase) for angle, wheelbase, _, _ in PARKING_TABLE]
    inputs = stack_inputs([keys("handbrake", steer=angle / p.steering.lock, throttle_pedal=0.5)
                           if wheelbase != p.body.wheelbase else keys(steer=angle / p.steering.lock, throttle_pedal=0.5)
                           for angle, wheelbase in rows])
    run = record(Simulation([p] * len(rows), dt=DT), 8.0, inputs)
    return {row: run.car(i) for i, row in enumerate(rows)}


@pytest.mark.parametrize("angle, wheelbase, radius, lengths", PARKING_TABLE)
def test_parking_table_from_the_simulated_path(parking_table_paths, angle, wheelbase, radius, lengths):
    run = parking_table_paths[(angle, wheelbase)]
    half = len(run.x) // 2
    _, _, measured = fit_circle(run.x[half:], run.y[half:])
    assert measured == pytest.approx(radius, rel=PATH_TOLERANCE)


@pytest.fixture(scope="module")
def parking_laps():
    """Full throttle and full lock left, without and with the handbrake (one batch of two)."""
    sim = Simulation(preset("parking"), n=2, dt=DT)
    inputs = stack_inputs([keys("throttle", "left"), keys("throttle", "left", "handbrake")])
    run = record(sim, 8.0, inputs)
    return run.car(0), run.car(1)


def _lap_time(run, start: float) -> float:
    """Time the heading takes to turn one full circle from ``start`` [s] on (heading rises steadily)."""
    i = int(np.searchsorted(run.t, start))
    assert np.all(np.diff(run.heading[i:]) > 0)
    end = np.interp(run.heading[i] + 2 * math.pi, run.heading[i:], run.t[i:])
    assert end < run.t[-1], "the run is too short for a full circle"
    return float(end - run.t[i])


def test_parking_full_lock_circle(parking_laps):
    run, _ = parking_laps
    half = len(run.x) // 2
    _, _, radius = fit_circle(run.x[half:], run.y[half:])
    assert radius == pytest.approx(78.5, rel=PATH_TOLERANCE)
    assert run.speed[half:].max() == pytest.approx(PARKING_TOP_SPEED, rel=0.01)
    assert _lap_time(run, 4.0) == pytest.approx(PARKING_LAP, rel=LAP_TOLERANCE)


def test_parking_handbrake_circle(parking_laps):
    _, run = parking_laps
    half = len(run.x) // 2
    _, _, radius = fit_circle(run.x[half:], run.y[half:])
    assert radius == pytest.approx(51.2, rel=PATH_TOLERANCE)
    assert run.speed.max() <= PARKING_HANDBRAKE_CAP * (1 + 1e-9)
    assert run.speed[half:].min() == pytest.approx(PARKING_HANDBRAKE_CAP, rel=0.01)
    assert _lap_time(run, 4.0) == pytest.approx(PARKING_HANDBRAKE_LAP, rel=LAP_TOLERANCE)


def test_parking_handbrake_circle_is_tighter_and_slower(parking_laps):
    # 001: "The circle shrinks, and the lap gets slower, and there was no way to have both."
    free, hand = parking_laps
    half = len(free.x) // 2
    assert fit_circle(hand.x[half:], hand.y[half:])[2] < 0.7 * fit_circle(free.x[half:], free.y[half:])[2]
    assert _lap_time(hand, 4.0) > 1.2 * _lap_time(free, 4.0)


# -- the centre-of-mass form ------------------------------------------------------------------


def test_com_form_closed_forms():
    delta, wheelbase, lr = math.radians(30), L_TEACHING, L_TEACHING / 2
    beta = kinematic.slip_angle(math.tan(delta), lr, wheelbase)
    assert math.degrees(beta) == pytest.approx(COM_BETA_DEG, abs=0.05)
    assert math.degrees(beta) == pytest.approx(math.degrees(math.atan(lr * math.tan(delta) / wheelbase)), rel=1e-12)
    assert kinematic.com_radius(delta, wheelbase, lr) == pytest.approx(COM_RADIUS, abs=0.005)
    assert kinematic.rear_axle_radius(delta, wheelbase) == pytest.approx(REAR_RADIUS, abs=0.005)
    # The same speed number: 4% apart. The speed of each form's own point: equal.
    v = 3.0
    com = kinematic.yaw_rate(v, math.tan(delta), wheelbase, beta)
    rear = kinematic.yaw_rate(v, math.tan(delta), wheelbase, 0.0)
    assert 1 - com / rear == pytest.approx(COM_YAW_GAP, abs=0.005)
    v_rear = v * math.cos(beta)  # the rear axle's speed when the CoM moves at v
    assert kinematic.yaw_rate(v_rear, math.tan(delta), wheelbase, 0.0) == pytest.approx(com, rel=1e-12)
    assert rear == pytest.approx(v * math.tan(delta) / wheelbase, rel=1e-12)


@pytest.fixture(scope="module")
def com_runs():
    """The teaching car (lr = L/2) at 30 degrees, once per reference point, same inputs."""
    teaching = preset("teaching")
    assert teaching.body.lr == pytest.approx(teaching.body.wheelbase / 2)
    steer = 30.0 / math.degrees(teaching.steering.lock)
    out = {}
    for reference in ("rear_axle", "com"):
        sim = Simulation(teaching.with_values({"model.reference": reference}), dt=DT)
        out[reference] = record(sim, 6.0, keys(steer=steer, throttle_pedal=0.3)).car(0)
    return out


def test_com_form_simulated_beta_and_radii(com_runs):
    com, rear = com_runs["com"], com_runs["rear_axle"]
    half = len(com.x) // 2
    assert np.degrees(com.beta[half:]) == pytest.approx(COM_BETA_DEG, abs=0.05)
    assert np.all(rear.beta == 0.0)
    assert fit_circle(com.x[half:], com.y[half:])[2] == pytest.approx(COM_RADIUS, rel=PATH_TOLERANCE)
    assert fit_circle(rear.x[half:], rear.y[half:])[2] == pytest.approx(REAR_RADIUS, rel=PATH_TOLERANCE)
    # The CoM form's own rear axle (lr behind the CoM along the heading) rides the rear-axle arc.
    lr = preset("teaching").body.lr
    xr, yr = com.x - lr * np.cos(com.heading), com.y - lr * np.sin(com.heading)
    assert fit_circle(xr[half:], yr[half:])[2] == pytest.approx(REAR_RADIUS, rel=PATH_TOLERANCE)


def test_com_form_yaw_rates(com_runs):
    com, rear = com_runs["com"], com_runs["rear_axle"]
    half = len(com.x) // 2
    # Same inputs, same longitudinal forces: both forms hold the same speed number ...
    assert com.speed[half:] == pytest.approx(rear.speed[half:], rel=1e-9)
    # ... and disagree about the yaw rate by 4%.
    gap = 1 - com.yaw_rate[half:] / rear.yaw_rate[half:]
    assert gap == pytest.approx(np.full_like(gap, COM_YAW_GAP), abs=0.005)
    # Given the speed of its own point, the rear-axle formula gives the CoM form's yaw rate exactly:
    # measure the rear axle's speed on the CoM form's path.
    p = preset("teaching")
    lr, wheelbase = p.body.lr, p.body.wheelbase
    xr, yr = com.x - lr * np.cos(com.heading), com.y - lr * np.sin(com.heading)
    v_rear = np.hypot(np.diff(xr), np.diff(yr)) / DT
    yaw_rear_formula = v_rear * math.tan(math.radians(30)) / wheelbase
    assert yaw_rear_formula[half:] == pytest.approx(com.yaw_rate[half + 1:], rel=2e-3)


# -- reverse and standstill -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["teaching", "parking"])
def test_reverse_turns_the_other_way(name):
    p = preset(name)
    sim = Simulation(p, n=2, dt=DT)
    run = record(sim, 3.0, stack_inputs([keys("throttle", steer=1.0), keys("brake", steer=1.0)]))
    forward, backward = run.car(0), run.car(1)
    settled = np.flatnonzero(forward.steer == p.steering.lock)[0] + 1
    assert forward.speed[-1] > 0 and forward.yaw_rate[-1] > 0 and forward.heading[-1] > 0
    # The brake key at rest reverses a gearbox-less car; steering left, the heading now turns right.
    assert backward.speed[-1] < 0 and backward.yaw_rate[-1] < 0 and backward.heading[-1] < 0
    # One formula for both directions (001): yaw rate = v tan(delta) / L, v signed.
    for run_ in (forward, backward):
        expected = run_.speed[settled:] * math.tan(p.steering.lock) / p.body.wheelbase
        assert run_.yaw_rate[settled:] == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", ["parking", "teaching", "f1tenth", "sedan", "classic"])
def test_a_stopped_car_cannot_rotate(name):
    p = preset(name)
    sim = Simulation(p, n=2, dt=DT)
    run = record(sim, 2.0, stack_inputs([keys("left"), keys("right")]))
    assert np.abs(run.steer[-1]) == pytest.approx([p.steering.lock] * 2)
    assert np.all(run.heading == 0.0)
    assert np.all(run.yaw_rate == 0.0)
    assert np.all(run.x == 0.0) and np.all(run.y == 0.0)
