"""002/003: weight transfer, Ackermann geometry, slip angles and the Pacejka force, the handbrake."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import DT, keys, preset, record, shifting_driver, stack_inputs, static_loads

import physics.tyre as tyre
from physics import Simulation

# 003's tyre: "B = 1.5 (rigidez), C = 1.9 (forma da curva), E = 0.97 (curvatura depois do pico)".
B, C, E = 1.5, 1.9, 0.97
CG_HEIGHT = 0.55  # [m] 003
MIN_AXLE_SHARE = 0.2  # 003: "cada eixo fica com pelo menos 20% do peso"
# 003, the full-lock stall: a slip angle near the 40 degree steering angle "gives about 5,700 N of
# lateral force, and the part of it that points against the motion (about 3,600 N)".
STALL_SLIP = math.radians(40.0)
STALL_FORCE, STALL_FORCE_TOL = 5700.0, 100.0
STALL_AGAINST, STALL_AGAINST_TOL = 3600.0, 100.0


def magic_formula(alpha, load, mu=1.0, b=B, c=C, e=E):
    """003's Pacejka formula, D = mu * load: F = D sin(C atan(B a - E (B a - atan(B a))))."""
    ba = b * alpha
    return mu * load * np.sin(c * np.arctan(ba - e * (ba - np.arctan(ba))))


# -- weight transfer ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def launch_and_brake():
    """The sedan and a copy with an absurd CG height: 3 s at full throttle, then 2 s of brake."""
    p = preset("manual003")
    tall = p.with_value("body.cg_height", 10.0)
    sim = Simulation([p, tall], dt=DT)
    launch = record(sim, 3.0, keys("throttle", n=2))
    braking = record(sim, 2.0, keys("brake", n=2))
    return (p, tall), launch, braking


def test_sedan_cg_height_is_003s():
    assert preset("manual003").body.cg_height == CG_HEIGHT


def test_weight_moves_rearwards_accelerating_and_forwards_braking(launch_and_brake):
    (p, _), launch, braking = launch_and_brake
    front0, rear0 = static_loads(p)
    up = launch.car(0)
    assert up.load_rear[0] == pytest.approx(rear0) and up.load_front[0] == pytest.approx(front0)
    pulling = np.flatnonzero(up.accel_long[:-1] > 0.5) + 1  # rows whose previous step accelerated
    assert pulling.size > 100
    assert np.all(up.load_rear[pulling] > rear0)
    assert np.all(up.load_front[pulling] < front0)
    down = braking.car(0)
    slowing = np.flatnonzero((down.accel_long[:-1] < -0.5) & (down.speed[1:] > 0)) + 1
    assert slowing.size > 30
    assert np.all(down.load_front[slowing] > front0)
    assert np.all(down.load_rear[slowing] < rear0)
    for run in (up, down):
        assert run.load_front + run.load_rear == pytest.approx(np.full_like(run.load_front, front0 + rear0))


def test_weight_transfer_follows_the_previous_steps_acceleration(launch_and_brake):
    # 003: the transfer uses the previous frame's acceleration (the current one would be circular):
    # load_front = m (g lr - a h) / L.
    (p, _), launch, braking = launch_and_brake
    run = launch.concat(braking).car(0)
    b = p.body
    expected = b.mass * (p.model.gravity * b.lr - run.accel_long[:-1] * b.cg_height) / b.wheelbase
    weight = b.mass * p.model.gravity
    inside = (expected > MIN_AXLE_SHARE * weight) & (expected < (1 - MIN_AXLE_SHARE) * weight)
    assert inside.all()
    assert run.load_front[1:] == pytest.approx(expected, rel=1e-9)


def test_each_axle_keeps_at_least_20_percent(launch_and_brake):
    (_, tall), launch, braking = launch_and_brake
    weight = tall.body.mass * tall.model.gravity
    floor = MIN_AXLE_SHARE * weight
    up, down = launch.car(1), braking.car(1)
    for run in (up, down):
        assert run.load_front.min() >= floor * (1 - 1e-12)
        assert run.load_rear.min() >= floor * (1 - 1e-12)
    # The floor is reached: the front axle on the launch, the rear one under braking.
    assert up.load_front.min() == pytest.approx(floor, rel=1e-9)
    assert down.load_rear.min() == pytest.approx(floor, rel=1e-9)


# -- Ackermann ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["sedan", "teaching", "f1tenth"])
def test_ackermann_inner_wheel_turns_more_and_both_point_at_the_turn_centre(name):
    p = preset(name)
    sim = Simulation(p, n=3, dt=DT)
    run = record(sim, 1.5, stack_inputs([keys("left"), keys("right"), keys(steer=0.4)]))
    wheelbase, half_track = p.body.wheelbase, p.body.track / 2
    left, right, partial = run.car(0), run.car(1), run.car(2)
    turning = left.steer > 0
    assert turning.sum() > 10
    assert np.all(left.wheel_left[turning] > left.steer[turning])
    assert np.all(left.steer[turning] > left.wheel_right[turning])
    assert np.all(left.wheel_right[turning] > 0)
    turning_r = right.steer < 0
    assert np.all(right.wheel_right[turning_r] < right.steer[turning_r])
    assert np.all(right.steer[turning_r] < right.wheel_left[turning_r])
    assert np.all(right.wheel_left[turning_r] < 0)
    for run_ in (left, right, partial):
        k = np.abs(run_.steer) > 0.01
        steer, wl, wr = run_.steer[k], run_.wheel_left[k], run_.wheel_right[k]
        # The turn centre on the rear axle line, R = L / tan(delta) to the left of the centre line.
        centre = wheelbase / np.tan(steer)
        # The line through each front wheel, perpendicular to it, meets the rear axle line at:
        assert half_track + wheelbase / np.tan(wl) == pytest.approx(centre, rel=1e-9)
        assert -half_track + wheelbase / np.tan(wr) == pytest.approx(centre, rel=1e-9)


# -- slip angles and the Pacejka force ---------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1, 0.2, 0.4, STALL_SLIP, 1.0, -0.1, -0.4])
def test_pacejka_is_003s_magic_formula(alpha):
    load = 5000.0
    force, _ = tyre.pacejka(alpha, load, B, C, E, 1.0)
    # The model returns the force on the car, opposing the slip.
    assert -force == pytest.approx(magic_formula(alpha, load), rel=1e-12)
    assert np.sign(force) == -np.sign(alpha)


def test_pacejka_at_the_stall_slip_angle_gives_003s_force():
    front_load, _ = static_loads(preset("manual003"))
    force, _ = tyre.pacejka(STALL_SLIP, front_load, B, C, E, 1.0)
    assert abs(force) == pytest.approx(STALL_FORCE, abs=STALL_FORCE_TOL)
    assert abs(force) * math.sin(STALL_SLIP) == pytest.approx(STALL_AGAINST, abs=STALL_AGAINST_TOL)


def test_pacejka_force_grows_then_saturates():
    alpha = np.linspace(0.0, 1.5, 301)
    magnitude = -np.array([tyre.pacejka(a, 1000.0, B, C, E, 1.0)[0] for a in alpha])
    assert magnitude.max() <= 1000.0 * (1 + 1e-12)  # D = mu * load is the peak
    assert np.all(np.diff(magnitude[alpha < 0.3]) > 0)


@pytest.fixture(scope="module")
def cornering():
    """The sedan at about 50 km/h in 2nd (shifted at 3 s), then a steady left turn off the throttle."""
    sim = Simulation(preset("manual003"), dt=DT)
    driver = shifting_driver([3.0])

    def drive(t, sim_):
        return driver(t, sim_) if t < 6.0 else keys(steer=0.1)

    return record(sim, 8.0, drive).car(0)


def test_slip_angles_are_travel_minus_pointing_direction(cornering):
    p = preset("manual003")
    run = cornering
    lf, lr = p.body.wheelbase - p.body.lr, p.body.lr
    turning = (run.t > 6.2) & (run.kinematic_weight == 0.0)
    assert turning.sum() > 100
    vx, vy, r, steer = run.vx[turning], run.vy[turning], run.yaw_rate[turning], run.steer[turning]
    # At the car-frame velocity after the frame's turn by r dt, where the body's implicit step starts (0.3.12)
    vx, vy = vx * np.cos(r * DT) + vy * np.sin(r * DT), vy * np.cos(r * DT) - vx * np.sin(r * DT)
    assert np.abs(run.slip_front[turning]).max() > math.radians(2)
    assert run.slip_front[turning] == pytest.approx(np.arctan2(vy + lf * r, vx) - steer, rel=1e-9, abs=1e-12)
    assert run.slip_rear[turning] == pytest.approx(np.arctan2(vy - lr * r, vx), rel=1e-9, abs=1e-12)


def test_lateral_forces_are_pacejka_of_slip_and_axle_load(cornering):
    # The channels hold the forces the body's implicit step applied: each tyre's curve at the frame's slips moved
    # along its slope to where the step left them, so 003's formula of the slips the frame ends at (the next frame's
    # velocity) and this frame's load, to the linearisation's second order (3.7e-4 and 4.6e-4 measured here; the
    # curve at the slips the frame starts from is 1.7% off).
    p = preset("manual003")
    run = cornering
    lf, lr = p.body.wheelbase - p.body.lr, p.body.lr
    turning = np.flatnonzero((run.t > 6.2) & (run.kinematic_weight == 0.0))[:-1]
    assert turning.size > 100
    ty = p.tyres
    assert (ty.b_front, ty.b_rear, ty.c, ty.e) == (B, B, C, E)
    vx, vy, r = run.vx[turning + 1], run.vy[turning + 1], run.yaw_rate[turning + 1]
    front = magic_formula(np.arctan2(vy + lf * r, vx) - run.steer[turning], run.load_front[turning], ty.mu)
    rear = magic_formula(np.arctan2(vy - lr * r, vx), run.load_rear[turning], ty.mu)
    assert -run.fy_front[turning] == pytest.approx(front, rel=1e-3)
    assert -run.fy_rear[turning] == pytest.approx(rear, rel=1e-3)
    # Turning left the tyres push the car to the left (towards the turn centre).
    assert np.all(run.fy_front[turning][10:] > 0) and np.all(run.fy_rear[turning][10:] > 0)


# -- the handbrake on the dynamic car ----------------------------------------------------------


def test_handbrake_in_a_turn_steps_the_tail_out():
    p = preset("manual003")
    sim = Simulation(p, n=2, dt=DT)
    driver = shifting_driver([3.0])

    def drive(t, sim_):
        if t < 6.0:
            u = driver(t, sim_)
            return stack_inputs([u, u])
        return stack_inputs([keys(steer=0.15), keys("handbrake", steer=0.15)])

    run = record(sim, 7.0, drive)
    plain, hand = run.car(0), run.car(1)
    window = plain.t >= 6.0
    assert np.all(plain.kinematic_weight[window] == 0.0) and np.all(hand.kinematic_weight[window] == 0.0)
    # The tail steps out: a larger rear slip angle and a faster rotation than the same turn without it.
    assert np.abs(hand.slip_rear[window]).max() > 2.0 * np.abs(plain.slip_rear[window]).max()
    assert hand.yaw_rate[window].max() > 1.5 * plain.yaw_rate[window].max()
    # Locked rear wheels: they brake, and their lateral grip is the sliding fraction of the peak.
    ty = p.tyres
    locked = window & (hand.handbrake == 1.0)
    assert np.all(np.abs(hand.fy_rear[locked]) <= ty.slide_fraction * ty.mu * hand.load_rear[locked] * (1 + 1e-9))
    assert np.all(hand.brake_force[locked][1:] < 0.0)
    assert hand.speed[-1] < plain.speed[-1] - 2.0
    assert np.all(hand.wheelspin[locked] == 0.0) and np.all(hand.drive_force[locked] == 0.0)


@pytest.mark.parametrize("name", ["f1tenth", "sedan_single_track", "sedan", "teaching", "classic"])
def test_lateral_acceleration_is_the_change_of_the_velocity_in_the_world(name):
    """accel_lat of a frame is its change of the velocity in the world, over dt, along the car's lateral axis at the
    frame's end (where the heading has turned by yaw_rate dt). Braking into full lock at speed, the yaw rate
    changes by up to 68 rad/s^2 on the small car: dvy/dt + vx r with the frame's new yaw rate ran ahead of that by
    vx times the change (18.7 m/s^2 for the forces' 9.2 on the f1tenth car)."""
    from physics import load_preset, records

    p = load_preset(name).params
    frames = int(10.0 / DT)
    inputs = np.zeros((frames, 1), dtype=records.INPUTS)
    t = np.arange(frames) * DT
    inputs["throttle"][t < 6.0] = True
    inputs["brake"][t >= 6.0] = True
    inputs["right"][t >= 6.0] = True
    run = Simulation(p, dt=DT, parallel=False).run(inputs)[:, 0]
    h, vx, vy = run["heading"], run["vx"], run["vy"]
    world_x, world_y = vx * np.cos(h) - vy * np.sin(h), vx * np.sin(h) + vy * np.cos(h)
    # the telemetry holds each frame's start: frame k's change is k -> k + 1, seen along the lateral axis at k + 1
    across = (-(world_x[1:] - world_x[:-1]) * np.sin(h[1:]) + (world_y[1:] - world_y[:-1]) * np.cos(h[1:])) / DT
    ay = run["accel_lat"][:-1]
    assert np.abs(run["yaw_rate"]).max() > 0.2  # it turned
    # Not the frame where the stop rule sets a crawl to rest: the channel is the forces' change, as accel_long.
    moving = ~((vx[1:] == 0.0) & (vy[1:] == 0.0) & ((vx[:-1] != 0.0) | (vy[:-1] != 0.0)))
    scale = np.abs(vx).max() * 1e-9 / DT  # the rounding of a difference of velocities, over dt
    miss = np.abs(ay - across)[moving]
    assert miss.max() <= scale + 1e-9 * np.abs(across).max(), miss.max()
