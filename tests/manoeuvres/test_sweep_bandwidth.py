"""ISO 7401's sine sweep on systems whose frequency response is known: the linear bicycle and a pure delay, driven by
the shipped script's own steer, and the near-linear sedan run through the test.

The Welch-averaged H1 estimate (10 s Hann windows, half overlapping) read the linear bicycle's gain at its lowest
frequency 5.7% high (6.15 for 5.82 1/s) and its -3 dB bandwidth 7% low (1.82 Hz for 1.95), and a pure 80 ms delay of gain 1 as a gain of
1.058 at 0.2 Hz: the sweep passes its lowest frequencies only where the first window rises, and the window weighed
the response, which lags, more than the steer. The coherence there was 1.000 (no noise to blame) and removing each
segment's mean changed nothing at that bin.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from linear_car import bicycle_matrices, bicycle_yaw, linear_sedan, yaw_gain

from workbench.manoeuvres.catalogue import CATALOGUE
from workbench.manoeuvres.kpi import RunData
from workbench.manoeuvres.runner import Car, run_jobs
from workbench.scripts.driving import robot_angle

V = 80.0 / 3.6


def sweep():
    return CATALOGUE["iso7401_sweep"]


def bicycle_response(v: float):
    """f [Hz] -> the linear bicycle's yaw rate / road-wheel angle (complex): [0 1] (j w I - A)^-1 B."""
    a, b = bicycle_matrices(linear_sedan(), v)
    return lambda f: complex(np.linalg.solve(2j * math.pi * f * np.eye(2) - a, b)[1])


def closed_bandwidth(v: float) -> float:
    """The frequency where the bicycle's gain falls to its steady-state gain / sqrt 2 (bisection)."""
    h, target = bicycle_response(v), yaw_gain(linear_sedan(), v) / math.sqrt(2.0)
    lo, hi = 0.01, 3.0
    assert abs(h(lo)) > target > abs(h(hi))
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if abs(h(mid)) > target else (lo, mid)
    return 0.5 * (lo + hi)


def run_of(yaw_of, dt: float, duration: float | None = None) -> RunData:
    """A run of the shipped sweep script whose yaw rate is ``yaw_of(t, steer)`` (the steer: the script's robot)."""
    script = sweep().base_script()
    t = np.arange(0.0, (duration or script.duration) + dt / 2, dt)
    steer = robot_angle(script.robot, t)
    yaw = yaw_of(t, steer)
    return RunData({"t": t, "steer": steer, "yaw_rate": yaw, "accel_lat": V * yaw}, dt, linear_sedan(), script)


@pytest.mark.parametrize("dt", [1 / 120, 0.001])
def test_the_linear_bicycles_gain_bandwidth_and_phase_are_its_closed_forms(dt):
    """The bicycle's exact response to the steer held over each step, read at each step's start as the model's yaw
    rate is, so the only departure from the closed form is that hold: its gain sinc(f dt) (0.1% at 3 Hz and 1/120 s)
    and its delay of half a step (-180 f dt deg), which the test takes out (held_steer). The tolerances: 0.2% on the
    steady-state gain (the bicycle's gain at 0.1 Hz is within 0.01% of it), 0.5% on the bandwidth (the gain between
    the transform's frequencies, 0.02 Hz apart, is interpolated) and on the gain over the band, 0.02 deg on the phase
    at 1 Hz (it read the hold's -1.5 deg at 1/120 s)."""
    h = bicycle_response(V)
    got = {k.key: k for k in sweep().kpis(run_of(lambda t, steer: bicycle_yaw(linear_sedan(), V, t, steer), dt))}
    assert got["low_frequency_gain"].value == pytest.approx(yaw_gain(linear_sedan(), V), rel=0.002)
    assert got["bandwidth"].value == pytest.approx(closed_bandwidth(V), rel=0.005)
    assert got["low_frequency_gain"].label == "yaw-rate gain at 0.1 Hz (road wheel)"  # the sweep's first frequency, per rad of road-wheel angle
    assert got["yaw_phase_1hz"].value == pytest.approx(math.degrees(np.angle(h(1.0))), abs=0.02)
    assert got["peak_gain_ratio"].value == pytest.approx(1.0, abs=0.002)  # the bicycle has no resonant peak here
    assert all(k.unit == u and k.clause == "ISO 7401:2011 continuous sinusoidal input (swept)" for k, u in
               zip(got.values(), ("1/s", "Hz", "", "deg", "deg"), strict=True))
    assert not got["low_frequency_gain"].note


def test_the_gain_over_the_band_is_the_bicycles():
    b = sweep().bode(run_of(lambda t, steer: bicycle_yaw(linear_sedan(), V, t, steer), 1 / 120))
    h = bicycle_response(V)
    assert b["frequency"][0] == pytest.approx(0.1) and b["frequency"][-1] <= 3.0
    exact = np.array([abs(h(f)) for f in b["frequency"]])
    assert np.abs(b["gain"] / exact - 1.0).max() < 0.005


@pytest.mark.parametrize("frames", [5, 10])
def test_a_pure_delay_reads_gain_one_and_its_phase(frames):
    """What the window got wrong, alone: a response that only lags. Gain 1 at every frequency (the Welch estimate read
    1.058 at 0.2 Hz for 80 ms, 1.029 for 40 ms) and the phase -360 f delay. The delay acts on the steer the car gets,
    held over each frame, and is read at each frame's start as the yaw rate is: delayed by k + 1/2 frames, the held
    steer at t_j is the steer of row j - k - 1 (the same for any delay over k frames and up to k + 1: the record
    reads the middle, and read k + 1 frames before the hold was taken out)."""
    dt = 1 / 120
    delay = (frames + 0.5) * dt
    b = sweep().bode(run_of(lambda t, steer: np.concatenate([np.zeros(frames + 1), steer[:-frames - 1]]), dt))
    assert np.abs(b["gain"] - 1.0).max() < 1e-3
    phase = np.degrees(np.unwrap(np.radians(b["phase"])))
    assert np.abs(phase + 360.0 * b["frequency"] * delay).max() < 0.05


def test_the_hold_is_taken_out_of_a_state_not_out_of_a_frames_mean():
    """A first-order lag tau y' + y = delta driven by the steer held over each frame, integrated exactly: its state
    read at each frame's start (as the yaw rate is) and its mean over each frame (as the lateral acceleration, the
    frame's change of velocity over dt, is). Both have the phase -atan(2 pi f tau) at 1 Hz: the state's record lags
    the held steer by half a frame more (-1.5 deg at 1/120 s), which the test takes out (0.026 deg is left, the hold's
    second order: 0.0016 at 1/480 s); the frame's mean is centred on the frame as the held steer is (0.00001 deg)."""
    tau, dt = 0.08, 1 / 120
    script = sweep().base_script()
    t = np.arange(0.0, script.duration + dt / 2, dt)
    steer = robot_angle(script.robot, t)
    p = math.exp(-dt / tau)
    y = np.zeros(len(t))
    for k in range(len(t) - 1):
        y[k + 1] = p * y[k] + (1.0 - p) * steer[k]
    mean = steer + (y - steer) * tau / dt * (1.0 - p)  # the exact mean of y over [t_k, t_k + dt)
    run = RunData({"t": t, "steer": steer, "yaw_rate": y, "accel_lat": mean}, dt, linear_sedan(), script)
    got = {k.key: k.value for k in sweep().kpis(run)}
    exact = -math.degrees(math.atan(2 * math.pi * 1.0 * tau))
    assert got["yaw_phase_1hz"] == pytest.approx(exact, abs=0.05)  # -0.026 deg left: the hold's second order
    assert got["ay_phase_1hz"] == pytest.approx(exact, abs=0.005)


def test_a_run_cut_at_the_sweeps_end_says_its_gain_is_not_the_cars():
    """The record must hold the response until the car is at rest again: cut at the sweep's end, the bicycle's gain at
    0.1 Hz read 3.5% high."""
    script = sweep().base_script()
    end = script.robot.start + script.robot.get("duration")
    got = {k.key: k for k in sweep().kpis(run_of(lambda t, steer: bicycle_yaw(linear_sedan(), V, t, steer), 1 / 120,
                                                 duration=end))}
    assert "not at rest at the run's end" in got["low_frequency_gain"].note


def test_the_near_linear_sedan_through_the_test_has_the_bicycles_steady_gain_and_bandwidth():
    """The model, run through the manoeuvre. The steady-state gain within 1% of V / (L + K V^2) (it is within 0.1%;
    the Welch estimate read 5.8% high); the bandwidth within 4% of the bicycle's (it is 2.8% below: the model's own
    gain is up to 2.6% below the bicycle's from 1.5 Hz, while the estimator is exact on the bicycle; the Welch estimate
    read 11% low)."""
    m = sweep()
    (run,) = run_jobs([(m.base_script(), Car(linear_sedan(), "near-linear sedan"))], m.channels)
    robot = m.base_script().robot
    during = (run.t >= robot.start) & (run.t < robot.start + robot.get("duration"))
    v = float(np.mean(run["speed"][during]))
    got = {k.key: k.value for k in m.kpis(run)}
    assert got["low_frequency_gain"] == pytest.approx(yaw_gain(linear_sedan(), v), rel=0.01)
    assert got["bandwidth"] == pytest.approx(closed_bandwidth(v), rel=0.04)


def test_the_phase_at_1_hz_is_the_transfer_function_s_own_whatever_the_bins_below_it():
    """A lag of 1 / (1 + j w tau) and a pure delay whose phase at 1 Hz is past -180 deg: the phase KPI is the angle
    of the function at 1 Hz, in (-180, 180], also with the bins below it noise (a car sliding on ice, where the phase
    unwrapped from the sweep's lowest bin read 296 and 2159 deg at 1 Hz)."""
    from workbench.manoeuvres.transient import phase_at

    freq = np.arange(1, 31) * 0.1  # 0.1 .. 3 Hz, 1 Hz a bin
    tau = 0.05
    h = 1.0 / (1.0 + 2j * math.pi * freq * tau)
    gain, phase = np.abs(h), np.degrees(np.angle(h))
    assert phase_at(1.0, freq, gain, phase) == pytest.approx(-math.degrees(math.atan(2 * math.pi * tau)), abs=1e-12)
    noisy = phase.copy()
    noisy[:9] = np.random.default_rng(3).uniform(-180.0, 180.0, 9)
    assert phase_at(1.0, freq, gain, noisy) == pytest.approx(phase_at(1.0, freq, gain, phase), abs=1e-12)
    # Between bins: the function's own value, linear between them, then its angle.
    between = phase_at(1.05, freq, gain, phase)
    assert between == pytest.approx(math.degrees(np.angle(0.5 * (h[9] + h[10]))), abs=1e-12)
    delay = np.exp(-2j * math.pi * freq * 0.6)  # -216 deg at 1 Hz: read as +144, its angle
    assert phase_at(1.0, freq, np.abs(delay), np.degrees(np.angle(delay))) == pytest.approx(144.0, abs=1e-9)


def second_order(fn: float, zeta: float):
    """y for the steer held over each step through w^2 / (s^2 + 2 zeta w s + w^2), w = 2 pi fn (exact per step, the
    state transition by the matrix exponential), read at each step's start as the yaw rate is."""
    w = 2.0 * math.pi * fn
    a = np.array([[0.0, 1.0], [-w * w, -2.0 * zeta * w]])
    b = np.array([0.0, w * w])

    def response(t, steer):
        dt = t[1] - t[0]
        vals, vecs = np.linalg.eig(a * dt)
        phi = (vecs @ np.diag(np.exp(vals)) @ np.linalg.inv(vecs)).real
        gamma = np.linalg.solve(a, (phi - np.eye(2)) @ b)
        x, out = np.zeros(2), np.empty(len(t))
        for k in range(len(t)):
            out[k] = x[0]
            x = phi @ x + gamma * steer[k]
        return out

    return response


@pytest.mark.parametrize(("fn", "zeta"), [(1.2, 0.3), (1.5, 0.5), (1.0, 0.25)])
def test_the_peak_gain_ratio_of_a_second_order_system_is_its_closed_form(fn, zeta):
    """ISO 7401's peak gain ratio on a system whose resonance is known: a second-order lag of natural frequency fn and
    damping zeta has its gain's peak 1 / (2 zeta sqrt(1 - zeta^2)) over its steady-state gain of 1, at
    fn sqrt(1 - 2 zeta^2) (zeta below 1 / sqrt 2), within the sweep's band. The gain is read between the transform's
    bins 0.02 Hz apart, whose interpolation misses a sharp peak's top by a little. Its phase at 1 Hz:
    -atan2(2 zeta f / fn, 1 - (f / fn)^2). (The systems nearly settle within the script's rest after the sweep, 0.3%
    of their peak left at the record's end for 0.25 at 1 Hz: lighter damping at a lower frequency, 0.2 at 0.8 Hz,
    rings on at 0.7%, below the level the KPI's note names, and its gain at 0.1 Hz reads 0.5% low.)"""
    dt = 1 / 120
    kpis = {k.key: k for k in sweep().kpis(run_of(second_order(fn, zeta), dt))}
    assert not kpis["low_frequency_gain"].note  # at rest at the run's end
    got = {key: k.value for key, k in kpis.items()}
    peak = 1.0 / (2.0 * zeta * math.sqrt(1.0 - zeta * zeta))
    assert fn * math.sqrt(1.0 - 2.0 * zeta * zeta) < 3.0  # the peak within the sweep's band
    assert got["low_frequency_gain"] == pytest.approx(abs(1.0 / (1.0 - (0.1 / fn) ** 2 + 2j * zeta * 0.1 / fn)),
                                                      rel=0.002)
    assert got["peak_gain_ratio"] * got["low_frequency_gain"] == pytest.approx(peak, rel=0.01)
    r = 1.0 / fn
    assert got["yaw_phase_1hz"] == pytest.approx(-math.degrees(math.atan2(2.0 * zeta * r, 1.0 - r * r)), abs=0.1)
