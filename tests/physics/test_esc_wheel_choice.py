"""Which wheel stability control brakes, and how hard, for a yaw rate against its target (physics.aids.esc_torques),
checked against the closed forms of its docstring: understeer brakes the inner rear wheel of the turn asked for by
esc_gain times the error past esc_threshold, oversteer the outer front wheel of the car's own yaw."""

from __future__ import annotations

import numpy as np
import pytest

from physics import aids, load_preset
from physics.records import param_records

P = param_records([load_preset("sedan").params]).view(np.recarray)[0]  # stability control on, as shipped
GAIN, THRESHOLD = float(P.aids_esc_gain), float(P.aids_esc_threshold)
FL, FR, RL, RR = range(4)
SPEED = 20.0


def torques(yaw_rate: float, target: float) -> tuple[float, float, float, float]:
    return tuple(float(t) for t in aids.esc_torques(P, SPEED, yaw_rate, target))


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
