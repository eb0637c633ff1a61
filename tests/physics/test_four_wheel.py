"""The four-wheel car: lateral load transfer and its split by roll stiffness, the balance the anti-roll bars
set, the linear range against the single-track car, the differentials, a lifting wheel, stability control.

Expected values come from closed forms written out here (the load transfer's moment balance, the linear
bicycle), never from the model's own functions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from grip_drivers import G, SpeedHold, drive, flying_start, sedan

from physics import Inputs, Simulation

DT = 1.0 / 120.0
CORNERS = ("fl", "fr", "rl", "rr")
NO_AIDS = {"aids.esc": 0, "aids.tcs": 0}


def four(**changes):
    return sedan("sedan", **changes)


def steady_turn(car, speed: float, share: float, seconds: float = 8.0) -> np.recarray:
    sim = Simulation(car, n=1, dt=DT)
    flying_start(sim, speed, 3)
    return drive(sim, seconds, SpeedHold(speed, DT, share))


@pytest.mark.parametrize("share", [0.05, 0.1])
def test_steady_lateral_load_transfer_is_m_ay_h_over_t_split_by_roll_stiffness(share):
    car = four(**NO_AIDS)
    run = steady_turn(car, 20.0, share)
    b, s = car.body, car.suspension
    ay = run.accel_lat[-1]
    front = 0.5 * (run.load_fr[-1] - run.load_fl[-1])
    rear = 0.5 * (run.load_rr[-1] - run.load_rl[-1])
    assert front + rear == pytest.approx(b.mass * ay * b.cg_height / b.track, rel=0.02)
    # The split: each axle's roll centre carries its share of the weight's transfer at once, the springs and
    # bars the rest in proportion to their roll stiffnesses (k t^2 / 2 + the bar's).
    lf = b.wheelbase - b.lr
    k_front = 0.5 * s.spring_front * b.track**2 + s.arb_front
    k_rear = 0.5 * s.spring_rear * b.track**2 + s.arb_rear
    axis = s.roll_centre_front + (s.roll_centre_rear - s.roll_centre_front) * lf / b.wheelbase
    elastic = b.mass * ay * (b.cg_height - axis) / b.track
    expected_front = b.mass * ay * b.lr / b.wheelbase * s.roll_centre_front / b.track + elastic * k_front / (
        k_front + k_rear)
    assert front == pytest.approx(expected_front, rel=0.02)
    # and the roll angle is the roll moment over the roll stiffness
    assert run.roll[-1] == pytest.approx(b.mass * ay * (b.cg_height - axis) / (k_front + k_rear), rel=0.02)


def understeer_at_04_g(car, speed: float = 20.0) -> float:
    """The local understeer gradient at 0.4 g [deg/g]: d(delta - L r / v) / d(a_y / g) fitted over 0.3-0.5 g on a
    slow steer ramp at constant speed (ISO 4138's constant-speed method), before any loss of control."""
    sim = Simulation(car, n=1, dt=DT)
    flying_start(sim, speed, 3)
    run = drive(sim, 20.0, SpeedHold(speed, DT, lambda t: 0.25 * min(t / 20.0, 1.0)))
    ay = run.vx * run.yaw_rate / G
    excess = np.degrees(run.steer - car.body.wheelbase * run.yaw_rate / run.vx)
    fit = (ay > 0.3) & (ay < 0.5) & (np.arange(len(ay)) < np.argmax(ay))
    return float(np.polyfit(ay[fit], excess[fit], 1)[0])


def test_moving_roll_stiffness_to_the_front_raises_the_understeer_gradient():
    total = 60000.0
    gradients = [understeer_at_04_g(four(**NO_AIDS, **{"suspension.arb_front": front,
                                                          "suspension.arb_rear": total - front}))
                 for front in (0.0, 15000.0, 30000.0, 45000.0, 60000.0)]
    assert np.all(np.diff(gradients) > 0.0), gradients
    assert gradients[-1] - gradients[0] >= 1.0, gradients


def test_linear_range_yaw_gain_matches_the_single_track_car():
    """Below 0.1 g the roll barely moves the loads: the same axle cornering stiffnesses give the same yaw gain."""
    gains = {}
    for preset in ("sedan", "sedan_single_track"):
        run = steady_turn(sedan(preset, **({} if preset == "sedan_single_track" else NO_AIDS)), 20.0, 0.012)
        gains[preset] = run.yaw_rate[-1] / run.steer[-1]
        assert run.accel_lat[-1] < 0.1 * G
    assert gains["sedan"] == pytest.approx(gains["sedan_single_track"], rel=0.03)


@pytest.mark.parametrize(("kind", "spins"), [("open", True), ("limited_slip", False)])
def test_an_open_differential_spins_the_inside_wheel_out_of_a_tight_corner(kind, spins):
    """A 15 m circle at 9 m/s (0.5 g) in 3rd, then full throttle: the unloaded inner rear wheel spins on an open
    differential; a limited-slip one sends the torque to the outer wheel."""
    extra = {"differential.kind": kind, **NO_AIDS}
    if kind == "limited_slip":
        extra.update({"differential.preload": 100.0, "differential.ramp": 0.4})
    car = four(**extra)
    sim = Simulation(car, n=1, dt=DT)
    flying_start(sim, 9.0, 3)
    share = math.atan(car.body.wheelbase / 15.0) / car.steering.lock
    hold = SpeedHold(9.0, DT, share)

    def driver(t, tel):
        return hold(t, tel) if t < 4.0 else Inputs.from_keys(1, set(), throttle_pedal=1.0, steer=share)

    run = drive(sim, 6.0, driver)
    late = run.t > 4.0
    assert (run.slip_ratio_rl[late].max() > 1.0) == spins  # the left wheel is inside a left turn
    assert run.slip_ratio_rr[late].max() < 0.5


def test_the_locked_differential_holds_one_speed():
    car = four(**{"differential.kind": "locked", **NO_AIDS})
    run = steady_turn(car, 9.0, math.atan(car.body.wheelbase / 15.0) / car.steering.lock, seconds=4.0)
    assert np.allclose(run.wheel_speed_rl[10:], run.wheel_speed_rr[10:], rtol=1e-6)


def test_a_wheel_unloads_to_zero_and_lifts_with_nothing_negative():
    """A high centre of mass and a very stiff front bar in a hard turn lift the inner front wheel: its load and
    forces are zero, and the axle's load is all on the outer wheel."""
    car = four(**NO_AIDS, **{"suspension.arb_front": 4e5, "suspension.roll_centre_front": 0.3, "body.cg_height": 0.8})
    run = steady_turn(car, 20.0, 0.2)
    for c in CORNERS:
        assert run[f"load_{c}"].min() >= 0.0
    lifted = run.load_fl == 0.0
    assert lifted.any()
    assert np.all(run.fx_fl[lifted] == 0.0) and np.all(run.fy_fl[lifted] == 0.0)
    total = sum(run[f"load_{c}"] for c in CORNERS)
    assert np.allclose(total, car.body.mass * car.model.gravity)


@pytest.mark.parametrize("esc", [1, 0])
def test_stability_control_keeps_a_tail_happy_car_from_spinning(esc):
    """A rear-biased car (all the bar's stiffness at the rear) braking in a 0.8 g turn spins; with ESC the
    outer front wheel is braked and it does not."""
    car = four(**{"aids.tcs": 0, "aids.esc": esc, "suspension.arb_rear": 60000.0, "suspension.arb_front": 0.0})
    sim = Simulation(car, n=1, dt=DT)
    flying_start(sim, 22.0, 3)
    hold = SpeedHold(22.0, DT, 0.11)

    def driver(t, tel):
        return hold(t, tel) if t < 5.0 else Inputs.from_keys(1, {"clutch"}, brake_pedal=0.6, steer=0.11)

    run = drive(sim, 7.0, driver)
    spun = np.abs(run.beta).max() > math.radians(30.0)
    assert spun == (esc == 0)
    if esc:
        assert run.esc_fr.max() == 1.0 and run.esc_fl.max() == 0.0  # the outer front wheel of a left turn
