"""SPEC 8: a near-linear car matches the linear bicycle's closed forms.

ISO 4138's understeer gradient against K = m/L (l_r/C_f - l_f/C_r), and its body slip angle gradient against
-m l_f / (L C_r), within 2% and 0.5%; ISO 7401's steady
yaw-rate gain against V / (L + K V^2), within 2%; the step response's 90% time and its fitted yaw
damping within 5% of the 2-DOF model's (simulated with the run's own steer, and from the
characteristic equation).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from linear_car import bicycle_matrices, bicycle_yaw, damping, linear_sedan, stiffness, understeer_gradient, yaw_gain

from workbench.manoeuvres.catalogue import CATALOGUE
from workbench.manoeuvres.kpi import G
from workbench.manoeuvres.runner import Car, run_jobs
from workbench.manoeuvres.transient import step_response


def kpis(name: str, car: Car) -> dict[str, float]:
    m = CATALOGUE[name]
    (result,) = m.run([car], lambda jobs: run_jobs(jobs, m.channels))
    return {k.key: k.value for k in result}


@pytest.fixture(scope="module")
def car() -> Car:
    return Car(linear_sedan(), "near-linear sedan")


@pytest.fixture(scope="module")
def step_run(car):
    m = CATALOGUE["iso7401_step"]
    (run,) = run_jobs([(m.base_script(), car)], m.channels)
    return run


def test_understeer_gradient_matches_the_bicycle(car):
    expected = understeer_gradient(car.params) * 180.0 / math.pi * G  # deg/g
    measured = kpis("iso4138", car)["understeer_gradient"]
    assert measured == pytest.approx(expected, rel=0.02)
    assert expected > 0.5  # the sedan's tyres understeer: a gradient that could be told from zero


def test_body_slip_gradient_matches_the_bicycle(car):
    """On a circle of constant radius the linear bicycle's body slip angle is beta = l_r / R - m l_f a_y / (L C_r)
    (Gillespie, Fundamentals of Vehicle Dynamics, 1992, ch. 6: the rear tyres' slip angle, which grows with a_y, less
    the geometric l_r / R), so its gradient is -m l_f / (L C_r), negative: the body's nose points further in."""
    b = car.params.body
    _, cr = stiffness(car.params)
    expected = -b.mass * (b.wheelbase - b.lr) / (b.wheelbase * cr) * 180.0 / math.pi * G  # deg/g
    measured = kpis("iso4138", car)["body_slip_gradient"]
    assert measured == pytest.approx(expected, rel=0.005)  # within 0.1% when measured
    assert expected < -1.0  # a gradient that could be told from zero


def test_characteristic_speed_follows_from_the_gradient(car):
    k = understeer_gradient(car.params)
    assert kpis("iso4138", car)["characteristic_speed"] == pytest.approx(
        math.sqrt(car.params.body.wheelbase / k) * 3.6, rel=0.02)


def test_steady_yaw_gain_matches_the_bicycle(car, step_run):
    m = CATALOGUE["iso7401_step"]
    measured = {k.key: k.value for k in m.kpis(step_run)}["steady_yaw_gain"]
    v = float(np.mean(step_run["speed"][-240:]))
    assert measured == pytest.approx(yaw_gain(car.params, v), rel=0.02)
    assert measured < 0.95 * v / car.params.body.wheelbase  # understeer shows: below the kinematic V / L


def test_step_response_time_and_damping_match_the_2dof_model(car, step_run):
    m = CATALOGUE["iso7401_step"]
    got = {k.key: k.value for k in m.kpis(step_run)}
    t, steer = step_run.t, step_run["steer"]
    v = float(np.mean(step_run["speed"][-240:]))
    model = step_response(t, steer, bicycle_yaw(car.params, v, t, steer), float(t[-1]))
    assert got["yaw_response_time"] == pytest.approx(model["t90"], rel=0.05)
    assert got["yaw_peak_time"] == pytest.approx(model["peak_time"], rel=0.05)
    assert got["yaw_damping"] == pytest.approx(damping(car.params, v), rel=0.05)


@pytest.mark.parametrize(("dt", "rel"), [(0.001, 0.01), (1 / 120, 0.05)])
def test_the_second_order_fit_finds_the_linear_bicycles_own_damping_and_frequency(car, dt, rel):
    """The fit of r'' + a1 r' + a0 r = b0 delta + b1 delta' on the linear bicycle's exact step response (a steer
    held over each step): the yaw mode's damping ratio and natural frequency sqrt(det A) / 2 pi. Fitted to the
    run's numerical second derivative, the frequency came out 56% too high at dt = 1/120 s (2.36 Hz for 1.51) and
    9% at 0.001 s; the fit integrates the equation instead, and converges to them with dt."""
    from workbench.manoeuvres.transient import second_order_fit

    v = 22.2
    t = np.arange(0.0, 20.0, dt)
    steer = np.clip((t - 14.0) / 0.054, 0.0, 1.0) * 0.03  # the step at 500 deg/s of handwheel over 15:1
    zeta, omega = second_order_fit(t, steer, bicycle_yaw(car.params, v, t, steer), 14.0)
    a, _ = bicycle_matrices(car.params, v)
    assert zeta == pytest.approx(damping(car.params, v), rel=rel)
    assert omega == pytest.approx(math.sqrt(np.linalg.det(a)), rel=rel)


def test_the_peak_is_the_first_one_above_the_steady_state_and_none_without_overshoot():
    """A response still rising at the run's end had its last frame taken for its peak: a peak response time of the
    whole run and the overshoot it had reached."""
    from workbench.manoeuvres.transient import step_response

    t = np.arange(0.0, 6.0, 0.001)
    steer = np.where(t >= 1.0, 1.0, 0.0)
    rising = np.where(t >= 1.0, 1.0 - np.exp(-(t - 1.0) / 0.8), 0.0)  # first order: no peak
    r = step_response(t, steer, rising, float(t[-1]))
    assert r["peak_time"] is None and r["overshoot"] is None and r["t90"] is not None
    zeta, w = 0.5, 2 * math.pi * 1.2  # second order: the first peak at pi / (w sqrt(1 - zeta^2))
    s = np.clip(t - 1.0, 0.0, None)
    wd = w * math.sqrt(1 - zeta**2)
    under = 1.0 - np.exp(-zeta * w * s) * (np.cos(wd * s) + zeta / math.sqrt(1 - zeta**2) * np.sin(wd * s))
    r = step_response(t, steer, under, float(t[-1]))
    assert r["peak_time"] == pytest.approx(math.pi / wd, abs=2e-3)
    assert r["overshoot"] == pytest.approx(math.exp(-zeta * math.pi / math.sqrt(1 - zeta**2)), rel=1e-3)


def test_a_flat_topped_peak_is_at_its_first_frame():
    from workbench.manoeuvres.transient import first_peak

    t = np.arange(7.0)
    assert first_peak(t, np.array([0.5, 1.0, 1.1, 1.1, 1.1, 1.0, 1.0]), 0.0) == 2
    assert first_peak(t, np.array([0.5, 0.9, 1.0, 1.05, 1.05, 1.06, 1.07]), 0.0) is None  # still rising
    assert first_peak(t, np.array([0.5, 0.9, 0.99, 0.98, 1.0, 1.0, 1.0]), 0.0) is None  # below the steady state


@pytest.mark.parametrize(("zeta", "peak"), [(0.85, False), (0.75, True)])
def test_a_peak_is_an_overshoot_of_at_least_half_the_steady_states_allowed_trend(zeta, peak):
    """ISO 7401's peak response time is that of a response that overshoots. The second-order step response overshoots
    by exp(-zeta pi / sqrt(1 - zeta^2)): 0.63% at zeta 0.85, under PEAK_OVERSHOOT (1%, half the 2% trend the steady
    state may keep over the 2 s it is the mean of), so no peak; 2.8% at 0.75, its peak at pi / w_d. Any local maximum
    above the steady state was a peak: the classic's 0.004% gave a peak response time of 5.4 s at 1/480 s."""
    from workbench.manoeuvres.transient import PEAK_OVERSHOOT, STEADY_TREND

    assert PEAK_OVERSHOOT == 0.5 * STEADY_TREND == 0.01
    t = np.arange(0.0, 8.0, 0.001)
    steer = np.where(t >= 1.0, 1.0, 0.0)
    w = 2 * math.pi * 1.2
    s = np.clip(t - 1.0, 0.0, None)
    wd = w * math.sqrt(1 - zeta**2)
    y = 1.0 - np.exp(-zeta * w * s) * (np.cos(wd * s) + zeta / math.sqrt(1 - zeta**2) * np.sin(wd * s))
    r = step_response(t, steer, y, float(t[-1]))
    overshoot = math.exp(-zeta * math.pi / math.sqrt(1 - zeta**2))
    assert (overshoot > PEAK_OVERSHOOT) == peak
    if peak:
        assert r["peak_time"] == pytest.approx(math.pi / wd, abs=2e-3)
        assert r["overshoot"] == pytest.approx(overshoot, rel=1e-3)
    else:
        assert r["peak_time"] is None and r["overshoot"] is None


def test_the_classics_step_that_does_not_overshoot_has_no_peak_response_time():
    """The classic's yaw rate comes within 0.23% over its steady state at 1/120 s (0.004% at 1/480 s, none at 1/1000
    s): the peak response time was 3.1 s, 5.4 s at 1/480 s. Now none, and its note says why."""
    from physics import load_preset

    m = CATALOGUE["iso7401_step"]
    (kpis,) = m.run([Car(load_preset("classic").params, "classic")], lambda jobs: run_jobs(jobs, m.channels))
    got = {k.key: k for k in kpis}
    assert got["yaw_peak_time"].value is None and got["yaw_overshoot"].value is None
    assert "does not overshoot its steady state by 1% or more" in got["yaw_peak_time"].note
    assert got["yaw_response_time"].value is not None


@pytest.mark.parametrize("kind", ["step", "ramp"])
def test_the_step_is_timed_from_the_steer_the_car_gets_held_over_each_frame(kind):
    """ISO 7401's t = 0 is the instant the steer reaches half its final value. The model holds each frame's steer
    over the frame from its start, so the car gets the robot's ramp half a frame late on the mean; t0 interpolated
    between the steer's samples at the frames' starts was half a frame early, and every response time half a frame
    long (the sedan's yaw-rate response time 0.1853 s at 1/120 s, 0.1757 s at 1/2000 s). A first-order lag
    tau y' + y = delta driven by the held steer, integrated exactly: its state read at the frames' starts (as the yaw
    rate) and its mean over each frame (as the lateral acceleration) both give the closed form's 90% time from the
    half-steer instant, tau ln 10 for a step and, for a ramp of T seconds, tau ln(10 tau (e^(T/tau) - 1) / T) - T / 2,
    within 0.5 ms at 1/120 s (the state's read 4.2 ms long, dt / 2)."""
    tau, ramp, dt = 0.1, 0.054, 1 / 120
    t = np.arange(0.0, 4.0, dt)
    if kind == "step":
        steer = np.where(t >= 1.0 - 1e-9, 1.0, 0.0)
        exact = tau * math.log(10.0)
    else:
        steer = np.clip((t - 1.0) / ramp, 0.0, 1.0)
        exact = tau * math.log(10.0 * tau * (math.exp(ramp / tau) - 1.0) / ramp) - ramp / 2
    p = math.exp(-dt / tau)
    y = np.zeros(len(t))
    for k in range(len(t) - 1):
        y[k + 1] = p * y[k] + (1.0 - p) * steer[k]
    mean = steer + (y - steer) * tau / dt * (1.0 - p)  # the exact mean of y over [t_k, t_k + dt)
    state = step_response(t, steer, y, float(t[-1]))
    assert state["t90"] == pytest.approx(exact, abs=5e-4)
    assert step_response(t, steer, mean, float(t[-1]), frame_mean=True)["t90"] == pytest.approx(exact, abs=5e-4)
    if kind == "step":
        assert state["t0"] == pytest.approx(1.0, abs=1e-9)  # the held step begins at its frame's start
