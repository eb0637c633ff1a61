"""The sedan is a plausible 250 kW rear-drive road car: each of its targets measured on the model, on four
wheels (`sedan`) and on one tyre per axle (`sedan_single_track`).

Targets: 0-100 km/h in 4.5-6 s, 100-0 km/h in 33-40 m, a skidpad limit of 0.85-1.0 g, an
understeer gradient of +0.5..+4 deg/g at 15 and 25 m/s, body slip within 4 deg at 0.5 g.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from grip_drivers import RPM_PER_RAD_S, G, SpeedHold, drive, first_index, flying_start, sedan

from physics import Inputs, Simulation

DT = 1.0 / 120.0
pytestmark = pytest.mark.parametrize("preset", ["sedan", "sedan_single_track"])


class Launch:
    """A driver's launch: the throttle eased to keep the rear slip ratio near 0.13, shifts at 6,700 rpm."""

    def __init__(self):
        self.shift_at = None

    def __call__(self, t, tel):
        throttle, keys = 1.0, set()
        if tel is not None:
            throttle = min(max(float(tel.throttle[0]) + (0.13 - float(tel.slip_ratio_rear[0])), 0.0), 1.0)
            if self.shift_at is None and tel.rpm[0] > 6700 and tel.clutch[0] > 0.95:
                self.shift_at = t
        if self.shift_at is not None:
            into = t - self.shift_at
            if into < 0.3:
                keys.add("clutch")
                if 0.1 <= into < 0.2:
                    keys.add("gear_up")
            else:
                self.shift_at = None
        return Inputs.from_keys(1, keys, throttle_pedal=throttle)


def test_power_is_250_kw(preset):
    """The engine's net curve (torque curve less friction) peaks at 250 kW +- 5%."""
    e = sedan(preset).engine
    rpm = np.linspace(e.idle_rpm, e.rev_limit, 2000)
    width = np.where(rpm < e.peak_rpm, e.width_below, e.width_above)
    torque = e.peak_torque * np.maximum(np.exp(-((rpm - e.peak_rpm) / width) ** 2), e.torque_floor)
    friction = e.friction_idle + (e.friction_max - e.friction_idle) * (rpm - e.idle_rpm) / (e.rev_limit - e.idle_rpm)
    power = (torque - friction) * rpm / RPM_PER_RAD_S
    assert power.max() == pytest.approx(250e3, rel=0.05)


def test_zero_to_hundred(preset):
    sim = Simulation(sedan(preset), n=1, dt=DT)
    run = drive(sim, 8.0, Launch())
    hundred = first_index(run.speed_kmh >= 100.0)
    assert 4.5 <= run.t[hundred] <= 6.0
    assert run.gear[:hundred].max() == 2  # one shift on the way


def test_hundred_to_zero(preset):
    sim = Simulation(sedan(preset), n=1, dt=DT)
    flying_start(sim, 100.0 / 3.6, 4)
    run = drive(sim, 6.0, lambda t, tel: Inputs.from_keys(1, {"clutch"}, brake_pedal=1.0))
    metres = run.x[first_index(run.speed <= 0.0)] - run.x[0]
    assert 33.0 <= metres <= 40.0


def steer_ramp(preset: str, speed: float, seconds: float = 20.0, share: float = 0.25) -> np.recarray:
    """Constant speed, the wheel turned slowly (quasi steady state) from straight to ``share`` of full lock."""
    sim = Simulation(sedan(preset), n=1, dt=DT)
    flying_start(sim, speed, 3 if speed < 20 else 4)
    return drive(sim, seconds, SpeedHold(speed, DT, lambda t: share * min(t / seconds, 1.0)))


@pytest.mark.parametrize("speed", [15.0, 25.0])
def test_understeer_gradient(preset, speed):
    """K = d(delta - L / R) / d(a_y / g), fitted over 0.1-0.4 g, in deg/g (SAE J266)."""
    run = steer_ramp(preset, speed)
    ay = run.vx * run.yaw_rate / G
    ackermann_excess = run.steer - sedan(preset).body.wheelbase * run.yaw_rate / run.vx
    fit = (ay > 0.1) & (ay < 0.4)
    gradient = np.polyfit(ay[fit], np.degrees(ackermann_excess[fit]), 1)[0]
    assert 0.5 <= gradient <= 4.0


@pytest.mark.parametrize("speed", [15.0, 25.0])
def test_body_slip_at_half_g(preset, speed):
    run = steer_ramp(preset, speed)
    ay = run.vx * run.yaw_rate / G
    near = np.abs(ay - 0.5) < 0.02
    assert near.any()
    assert np.all(np.abs(np.degrees(run.beta[near])) <= 4.0)


def test_skidpad_limit(preset):
    """At 25 m/s the wheel is turned slowly to 60% of lock: the lateral acceleration levels off at the limit."""
    run = steer_ramp(preset, 25.0, seconds=20.0, share=0.6)
    window = int(round(0.5 / DT))
    steady = np.convolve(run.vx * run.yaw_rate, np.ones(window) / window, mode="valid") / G
    assert 0.85 <= steady.max() <= 1.0


def test_preset_values_are_those_of_a_road_car(preset):
    p = sedan(preset)
    assert p.model.traction == "combined" and p.body.driven_axle == "rear"
    assert 1500 <= p.body.mass <= 1750 and 2.7 <= p.body.wheelbase <= 3.0
    assert 0.65 <= p.brakes.front_share <= 0.7 and p.brakes.abs == 1
    for b in (p.tyres.b_front, p.tyres.b_rear):
        assert 14.0 <= b * p.tyres.c <= 22.0  # B C, the tyre's slope per radian of slip, over mu
    assert p.tyres.b_front < p.tyres.b_rear  # softer front: understeer
    assert not math.isclose(p.engine.inertia, 0.0)
