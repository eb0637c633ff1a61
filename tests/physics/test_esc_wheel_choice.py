"""Which wheel stability control brakes, and how hard, for a yaw rate against its target (physics.aids.esc_torques),
checked against the closed forms of its docstring: understeer brakes the inner rear wheel of the turn asked for by
esc_gain times the error past esc_threshold, oversteer the outer front wheel of the car's own yaw; a body slip angle
past esc_slip_angle the outer front wheel of the slide, esc_slip_gain per rad beyond it; and against oversteer the
engine gives up esc_cut times the share of one wheel's full brake applied (physics.step.grip_drive)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physics import aids, load_preset, step
from physics.records import STATE, param_records
from physics.step import Controls


def record(preset: str = "sedan", **changes):
    """A preset's parameter record (physics.records.PARAMS) with ``changes`` (path=value, dots as double underscores)."""
    params = load_preset(preset).params.with_values({k.replace("__", "."): v for k, v in changes.items()})
    return param_records([params]).view(np.recarray)[0]


P = record()  # stability control on, as shipped
GAIN, THRESHOLD = float(P.aids_esc_gain), float(P.aids_esc_threshold)
FL, FR, RL, RR = range(4)
SPEED = 20.0


SLIP, SLIP_GAIN = float(P.aids_esc_slip_angle), float(P.aids_esc_slip_gain)
TOP = 0.5 * float(P.brakes_force) * float(P.body_wheel_radius)  # one wheel's whole brake [N m]


def torques(yaw_rate: float, target: float, beta: float = 0.0) -> tuple[float, float, float, float]:
    return answer(yaw_rate, target, beta)[:4]


def answer(yaw_rate: float, target: float, beta: float = 0.0, car=P) -> tuple[float, ...]:
    """The four torques and the engine's cut, for a car at SPEED with body slip angle ``beta``."""
    vx, vy = SPEED * math.cos(beta), SPEED * math.sin(beta)
    return tuple(float(t) for t in aids.esc_torques(car, vx, vy, yaw_rate, target))


def only(wheel: int, torque: float) -> tuple[float, ...]:
    return tuple(torque if i == wheel else 0.0 for i in range(4))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_yaw_rate_the_other_way_within_the_threshold_is_understeer_counted_through_zero(sign):
    """A car held straight by a counter-steer (split mu) has a yaw rate that wanders about 0: each side of 0 the inner
    rear wheel of the turn asked for is braked by gain (target - yaw rate - threshold), continuous through 0. It was
    called oversteer by its sign alone, and the braked wheel changed between the front and the rear at each
    crossing."""
    target = sign * 0.2
    inner_rear = RL if sign > 0 else RR
    for yaw in np.linspace(-THRESHOLD, THRESHOLD, 41) * sign:
        expected = GAIN * (abs(target) - sign * yaw - THRESHOLD)
        got = torques(float(yaw), target)
        assert got == pytest.approx(only(inner_rear, expected), rel=1e-12, abs=1e-9), yaw


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_past_the_threshold_the_other_way_it_is_oversteer_and_only_the_wheel_changes(sign):
    """A spin against a counter-steer: the front wheel on the outside of the car's own yaw, by gain (|yaw - target| -
    threshold). At the threshold the two measures are the same torque, gain |target|."""
    target = sign * 0.2
    outer_front = FL if sign > 0 else FR  # the car yaws the other way: its outside is the asked turn's inside
    inner_rear = RL if sign > 0 else RR
    within, beyond = -sign * THRESHOLD * (1 - 1e-9), -sign * THRESHOLD * (1 + 1e-9)
    rear, front = torques(within, target), torques(beyond, target)
    assert rear[inner_rear] > 0.0 and sum(rear) == rear[inner_rear]
    assert front[outer_front] > 0.0 and sum(front) == front[outer_front]
    assert rear[inner_rear] == pytest.approx(GAIN * abs(target), rel=1e-6)
    assert front[outer_front] == pytest.approx(GAIN * abs(target), rel=1e-6)
    far = -sign * 0.5
    assert torques(far, target) == pytest.approx(only(outer_front, GAIN * (abs(far - target) - THRESHOLD)), rel=1e-12)


def test_yawing_more_than_asked_the_same_way_and_less_are_as_before():
    # Oversteer the same way: the outer front wheel of the car's own yaw.
    assert torques(0.35, 0.2) == pytest.approx(only(FR, GAIN * (0.15 - THRESHOLD)), rel=1e-12)
    assert torques(-0.35, -0.2) == pytest.approx(only(FL, GAIN * (0.15 - THRESHOLD)), rel=1e-12)
    # Understeer the same way: the inner rear wheel of the turn asked for.
    assert torques(0.05, 0.2) == pytest.approx(only(RL, GAIN * (0.15 - THRESHOLD)), rel=1e-12)
    assert torques(-0.05, -0.2) == pytest.approx(only(RR, GAIN * (0.15 - THRESHOLD)), rel=1e-12)
    # Within the threshold either way, and straight ahead: nothing.
    assert torques(0.17, 0.2) == (0.0, 0.0, 0.0, 0.0)
    assert torques(-0.01, 0.03) == (0.0, 0.0, 0.0, 0.0)
    assert torques(0.04, 0.0) == (0.0, 0.0, 0.0, 0.0)
    assert torques(0.09, 0.0) == pytest.approx(only(FR, GAIN * (0.09 - THRESHOLD)), rel=1e-12)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_slide_past_the_slip_angle_brakes_the_outer_front_wheel_of_the_slide_whatever_the_yaw_rate(sign):
    """A car not yawing, as asked (no yaw error at all, and the slip angle's reference 0), but sliding sideways at
    sign * 16 deg: the front wheel on the side it slides towards (a negative slip angle: the right), esc_slip_gain per
    rad beyond esc_slip_angle; within it, nothing."""
    beta = -sign * math.radians(16.0)
    outer_front = FR if sign > 0 else FL
    expected = SLIP_GAIN * (abs(math.atan2(SPEED * math.sin(beta), SPEED * math.cos(beta))) - SLIP)
    assert torques(0.0, 0.0, beta) == pytest.approx(only(outer_front, expected), rel=1e-9)
    assert torques(0.0, 0.0, -sign * SLIP * (1 - 1e-6)) == (0.0, 0.0, 0.0, 0.0)
    off = record(aids__esc_slip_gain=0.0)
    assert answer(0.0, 0.0, beta, off)[:4] == (0.0, 0.0, 0.0, 0.0)  # the yaw rate alone, as before


def test_a_car_yawing_back_towards_its_course_gets_the_slides_torque_alone():
    """Tail out to the right (slip angle -16 deg), the car yawing right at 0.3 rad/s with the steer straight: the yaw
    rate's measure calls that a spin to the right (its left front wheel), but the car is turning back to its course:
    the slide's wheel and torque alone. Yawing left (into the slide), the larger of the two on the same wheel."""
    beta = -math.radians(16.0)
    slide = SLIP_GAIN * (math.radians(16.0) - SLIP)
    assert torques(-0.3, 0.0, beta) == pytest.approx(only(FR, slide), rel=1e-9)
    yawing = GAIN * (0.6 - THRESHOLD)
    assert torques(0.6, 0.0, beta) == pytest.approx(only(FR, max(slide, yawing)), rel=1e-9)
    assert yawing > slide  # so the yaw rate's torque is the one taken


def test_understeer_is_not_braked_while_the_tail_is_out_past_half_the_slip_angle():
    """Yawing less than a left turn asks with the tail out to the right: the inner rear brake would yaw the car further
    into its slide, so it waits until the slide is within half of esc_slip_angle (the other way it still brakes)."""
    assert torques(0.05, 0.2, -0.6 * SLIP) == (0.0, 0.0, 0.0, 0.0)
    assert torques(0.05, 0.2, -0.4 * SLIP) == pytest.approx(only(RL, GAIN * (0.15 - THRESHOLD)), rel=1e-9)
    assert torques(0.05, 0.2, 0.6 * SLIP) == pytest.approx(only(RL, GAIN * (0.15 - THRESHOLD)), rel=1e-9)


def test_against_oversteer_the_engine_gives_up_the_share_of_a_wheels_brake_applied():
    """The fifth value: esc_cut times the torque over one wheel's whole brake, at most 1; none against understeer."""
    cut = float(P.aids_esc_cut)
    for yaw in (0.2, 0.25, 0.4, 2.0):
        torque = GAIN * (yaw - 0.1 - THRESHOLD)
        assert answer(yaw, 0.1) == pytest.approx((0.0, torque, 0.0, 0.0, min(cut * torque / TOP, 1.0)), rel=1e-9)
    assert answer(0.05, 0.2)[4] == 0.0
    assert answer(2.0, 0.1)[4] == 1.0


def test_the_engines_cut_is_the_throttle_it_would_have_at_a_lower_pedal_and_never_below_idle():
    """physics.step.grip_drive: the throttle cut by esc_cut gives the engine exactly what the pedal at (1 - cut) gives;
    with the engine at idle nothing is cut (it would stall)."""
    p = record("tail_happy")
    state = np.zeros(1, dtype=STATE)[0]
    state["rpm"], state["vx"], state["gear"], state["auto_clutch"] = 4000.0, 20.0, 2, 1.0
    full, three_quarters = (Controls(pedal, 0.0, 0.0, 0.0, False, 2, False, False) for pedal in (1.0, 0.75))
    cut = step.grip_drive(p, state, full, False, 0.0, 60.0, 1 / 120, 0.25)
    lower = step.grip_drive(p, state, three_quarters, False, 0.0, 60.0, 1 / 120, 0.0)
    whole = step.grip_drive(p, state, full, False, 0.0, 60.0, 1 / 120, 0.0)
    assert cut[0].throttle == 0.75 and cut[1] == lower[1] and cut[1] < whole[1]
    state["rpm"] = float(p.engine_idle_rpm)
    at_idle = step.grip_drive(p, state, full, False, 0.0, 60.0, 1 / 120, 0.25)
    assert at_idle[0].throttle == step.grip_drive(p, state, full, False, 0.0, 60.0, 1 / 120, 0.0)[0].throttle == 1.0


def test_the_slip_angle_is_counted_from_the_linear_bicycles_at_the_yaw_rate_held_to():
    """A slow tight turn has the slip angle of its geometry: lr / R, 17 deg at the sedan's full lock. Counted from 0 it
    was a slide past 11.1 deg, and stability control braked a front wheel and cut the engine in every frame at 3.5
    m/s. The reference is the linear bicycle's at the yaw rate held to: the geometry's at a crawl, a little negative
    at the limit at speed (the rear tyres' slip angle); a slide is counted from it."""
    lock, mu = float(P.steering_lock), float(P.tyres_mu)
    slow = 3.5
    target = float(aids.yaw_reference(P, slow, lock, mu))
    reference = float(aids.esc_slip_reference(P, slow, target))
    geometry = math.atan(float(P.body_lr) * math.tan(lock) / float(P.body_wheelbase))
    assert math.degrees(reference) > 15.0 and reference == pytest.approx(geometry, rel=0.05)
    assert tuple(aids.esc_torques(P, slow, slow * math.tan(reference), target, target)) == (0.0,) * 5
    past = reference - SLIP - math.radians(5.0)  # the tail 5 deg further out than the bound allows
    vx, vy = slow * math.cos(past), slow * math.sin(past)
    got = tuple(float(t) for t in aids.esc_torques(P, vx, vy, target, target))
    beyond = abs(math.atan2(vy, vx) - float(aids.esc_slip_reference(P, vx, target))) - SLIP
    assert got[:4] == pytest.approx(only(FR, SLIP_GAIN * beyond), rel=1e-6) and beyond == pytest.approx(
        math.radians(5.0), abs=math.radians(1.0))
    fast = 25.0  # at the road's limit at 90 km/h: the rear tyres' slip angle, the other way
    at_limit = float(aids.yaw_reference(P, fast, lock, mu))
    assert at_limit == pytest.approx(mu * float(P.model_gravity) / fast)
    assert -math.radians(5.0) < float(aids.esc_slip_reference(P, fast, at_limit)) < 0.0


def test_a_car_without_brakes_has_no_cut_and_no_nan():
    """The cut is the share of one wheel's whole brake: with brakes.force = 0 it was 0 / 0 (esc_cut 0) or inf."""
    bare = record(brakes__force=0.0)
    assert answer(0.6, 0.1, car=bare)[4] == 0.0
    # and with esc_cut 0 too, the 0 / 0 the review found (not a NaN)
    assert answer(0.6, 0.1, car=record(brakes__force=0.0, aids__esc_cut=0.0))[4] == 0.0
