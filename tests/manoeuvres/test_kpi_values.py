"""KPI values against closed forms, where the car makes one exist, and KPIs as a sweep's measures.

Each closed form is written out from its physics here (the road-load equation, constant-friction
braking with drag, the longitudinal equation of motion of a direct-drive car), not taken from the
model's own functions.
"""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from physics import load_preset
from workbench.cli import main
from workbench.manoeuvres.catalogue import CATALOGUE
from workbench.manoeuvres.kpi import KMH, RunData
from workbench.manoeuvres.runner import Car, run_jobs

V100 = 100.0 / KMH


def kpis_and_runs(name, params):
    """The test's KPIs on one car, and the runs they came from."""
    m = CATALOGUE[name]
    runs = []

    def runner(jobs):
        runs.extend(run_jobs(jobs, m.channels + ("speed",)))
        return runs[-len(jobs):]

    (kpis,) = m.run([Car(params, name)], runner)
    return {k.key: k.value for k in kpis}, runs


@pytest.mark.parametrize("change", [{}, {"aero.cd": 0.35, "aero.rolling": 5.0, "aero.rolling_coefficient": 0.015}])
def test_the_coast_down_fit_returns_the_cars_own_road_load(change):
    # F = C_rr m g + c v + 0.5 rho Cd A v^2: rolling resistance, 002's linear term, drag (the sedan's c is 0).
    p = load_preset("sedan").params.with_values(change)
    kpis, _ = kpis_and_runs("coastdown", p)
    a = p.aero
    assert kpis["road_load_a"] == pytest.approx(a.rolling_coefficient * p.body.mass * p.model.gravity, rel=2e-3)
    assert kpis["road_load_b"] == pytest.approx(a.rolling, abs=0.05)  # [N s/m]: 1.8 N at 130 km/h
    assert kpis["road_load_c"] == pytest.approx(0.5 * a.air_density * a.cd * a.frontal_area, rel=2e-3)


def test_straight_braking_with_abs_at_the_tyres_peak_matches_constant_friction_with_drag():
    # ABS holding each wheel at its peak slip, and friction independent of load: every tyre gives mu Fz,
    # so the car slows at a(v) = mu g + C_rr g + k v^2 (k = 0.5 rho Cd A / m) whatever the load transfer.
    p = load_preset("sedan").params.with_values({"brakes.abs_slip": 1.0, "tyres.load_sensitivity": 0.0})
    kpis, _ = kpis_and_runs("iso21994", p)
    g = p.model.gravity
    a0 = p.tyres.mu * g + p.aero.rolling_coefficient * g
    k = 0.5 * p.aero.air_density * p.aero.cd * p.aero.frontal_area / p.body.mass

    def distance(v_from, v_to):  # integral of v dv / a(v)
        return math.log((a0 + k * v_from ** 2) / (a0 + k * v_to ** 2)) / (2.0 * k)

    vb, ve = 0.8 * V100, 0.1 * V100
    mfdd = (vb ** 2 - ve ** 2) / (2.0 * distance(vb, ve))  # UN R13-H's distance-averaged deceleration
    assert mfdd == pytest.approx(p.tyres.mu * g, rel=0.02)  # mu g, drag and rolling adding 1.5%
    # Measured: +0.2% (the model moves the car by its speed at the end of a step) and +0.2%
    # (the first braked frame, while the tyres build their slip): +0.37% here. The driver declutches with the
    # brake (the stop runs with the engine disconnected); in gear, with the engine's drag and inertia on the rear
    # wheels, it was -0.17% when measured. Counting the onset frame's v dt once more would add 0.65%.
    assert kpis["mfdd"] == pytest.approx(mfdd, rel=5e-3)
    assert kpis["stopping_distance"] == pytest.approx(distance(V100, 0.0), rel=8e-3)


def direct_drive_time(p, v_from, v_to):
    """Time from v_from to v_to at full throttle of a direct-drive car: the integral of m dv / F(v), with
    F = min(force, power / v) - 0.5 rho Cd A v^2 - c v - C_rr m g."""
    v = np.linspace(v_from, v_to, 200_001)
    a = p.aero
    force = (np.minimum(p.drive.force, p.drive.power / np.maximum(v, 1e-9)) - 0.5 * a.air_density * a.cd
             * a.frontal_area * v * v - a.rolling * v - a.rolling_coefficient * p.body.mass * p.model.gravity)
    return float(np.trapezoid(p.body.mass / force, v))


def test_0_100_of_a_direct_drive_car_is_its_equation_of_motion_integrated():
    p = load_preset("teaching").params
    kpis, _ = kpis_and_runs("acceleration", p)
    # The driver's throttle rises at the pedal rate: a linear ramp over tau, below the force limit, costs tau / 2.
    tau = 1.0 / p.pedals.throttle_rise
    assert kpis["time_0_100"] == pytest.approx(tau / 2.0 + direct_drive_time(p, 0.0, V100), rel=2e-3)


def test_80_120_of_a_direct_drive_car_is_its_equation_of_motion_integrated():
    p = load_preset("teaching").params.with_values({"drive.power": 80_000.0})  # 40 kW takes longer than the script
    kpis, (run,) = kpis_and_runs("elasticity", p)
    full = next(s.at for s in run.script.sets if s.analog.get("throttle_pedal") == 1.0)
    start = float(np.interp(full, run.t, run["speed"]))  # the driver held 80 km/h within a few tenths
    assert abs(start * KMH - 80.0) < 0.5
    assert kpis["time_80_120"] == pytest.approx(direct_drive_time(p, start, 120.0 / KMH), rel=2e-3)


def test_80_120_of_a_car_that_never_reaches_120_says_so():
    """The teaching car as shipped (40 kW) tops out under 120 km/h: no figure, and the note says how fast it got,
    as the acceleration test's does (it gave only the speed the run started from)."""
    p = load_preset("teaching").params
    m = CATALOGUE["elasticity"]
    _, (run,) = kpis_and_runs("elasticity", p)
    (kpi,) = m.kpis(run)
    top = float(run["speed"].max() * KMH)
    assert kpi.value is None and top < 120.0
    assert kpi.note.startswith("from ") and f"top speed {top:.4g} km/h in the run, not 120" in kpi.note


def test_80_120_of_a_run_past_120_at_full_throttle_or_ending_before_it_says_so():
    """A speed trace already past 120 km/h at full throttle, and one that ends before it: no figure, and the note
    says which (the first read 0 s; the second said only the speed it ended at, as where it started)."""
    from dataclasses import replace

    from workbench.manoeuvres.kpi import RunData

    _, (run,) = kpis_and_runs("elasticity", load_preset("teaching").params.with_values({"drive.power": 80_000.0}))
    m = CATALOGUE["elasticity"]
    full = next(s.at for s in run.script.sets if s.analog.get("throttle_pedal") == 1.0)
    fast = RunData({**run.data, "speed": np.full_like(run.t, 130.0 / KMH)}, run.dt, run.params, run.script)
    (kpi,) = m.kpis(fast)
    assert kpi.value is None and kpi.note == "from 130 km/h; past 120 km/h at full throttle"
    short = run.t < full - 1.0
    ended = replace(fast, data={name: values[short] for name, values in run.data.items()})
    (kpi,) = m.kpis(ended)
    assert kpi.value is None and kpi.note.endswith("; the run ends before full throttle")


def test_a_direct_drive_car_is_named_as_one_and_a_car_with_no_road_load_says_why_it_has_no_fit():
    m = CATALOGUE["elasticity"]
    for preset, held in (("teaching", "direct drive"), ("sedan", "in gear 4")):
        (kpis,) = m.run([Car(load_preset(preset).params, preset)], lambda jobs: run_jobs(jobs, m.channels))
        assert kpis[0].clause == held  # a car with no gearbox has no gear (its gear channel reads 1)
    m = CATALOGUE["coastdown"]
    p = load_preset("sedan").params.with_values({"aero.cd": 0.0, "aero.rolling_coefficient": 0.0})
    (kpis,) = m.run([Car(p, "sedan")], lambda jobs: run_jobs(jobs, m.channels))
    assert [k.key for k in kpis] == ["road_load_a"] and kpis[0].value is None
    assert kpis[0].note.startswith("not fitted: 0 frames between 20 km/h and 95% of the speed at the release (")
    assert "the car coasted down to" in kpis[0].note


def test_the_understeer_gradient_is_a_sweep_measure_that_falls_with_the_rear_grip(tmp_path, capsys):
    out = tmp_path / "ug"
    assert main(["sweep", "iso4138_circle", "--param", "tyres.b_rear=10:14:3", "--out", str(out)]) == 0
    capsys.readouterr()
    with open(out / "sweep.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    b_rear = [float(r["tyres.b_rear [1/rad]"]) for r in rows]
    gradient = [float(r["understeer gradient [deg/g]"]) for r in rows]
    assert b_rear == [10.0, 12.0, 14.0]
    assert gradient[0] < gradient[1] < gradient[2]  # less rear cornering stiffness, less understeer
    assert gradient[2] - gradient[0] > 0.5  # [deg/g] measured 1.22


def test_the_steady_state_fit_leaves_out_a_gear_changes_transient():
    """The sedan shifts inside ISO 4138's fit range (at a_y of 3 m/s^2, 31.8 s): delta - L r / v left its line by up
    to 0.14 deg for 1.6 s, and the fit took it as steady (1.362 deg/g; 1.39 without it)."""
    from physics import load_preset
    from workbench.manoeuvres.catalogue import CATALOGUE
    from workbench.manoeuvres.runner import Car, run_jobs
    from workbench.manoeuvres.steady_state import FIT_RANGE, SHIFT_SETTLE, after_shift, steady_frames

    m = CATALOGUE["iso4138"]
    (run,) = run_jobs([(m.base_script(), Car(load_preset("sedan").params, "sedan"))], m.channels)
    f = steady_frames(run)
    shifts = np.flatnonzero(np.diff(run["gear"]) != 0) + 1
    inside = [k for k in shifts if f.on[k] and FIT_RANGE[0] <= f.ay[k] <= FIT_RANGE[1]]
    assert inside  # the sedan shifts inside the fit range: the check below means something
    for k in inside:
        settling = (run.t >= run.t[k]) & (run.t < run.t[k] + SHIFT_SETTLE)
        assert not f.fit[settling].any()

    t = np.arange(0.0, 10.0, 0.01)
    gear = np.where(t < 3.0, 1.0, np.where(t < 7.0, 2.0, 3.0))
    out = after_shift(t, gear)
    assert not out[t < 3.0].any() and out[(t >= 3.0) & (t < 3.0 + SHIFT_SETTLE)].all()
    assert not out[(t >= 3.0 + SHIFT_SETTLE + 0.01) & (t < 7.0)].any() and out[(t >= 7.0) & (t < 9.0)].all()
    assert not after_shift(t, np.ones_like(t)).any()


def test_the_circles_turn_is_the_scripts_not_the_runs_mean_lateral_acceleration():
    """ISO 4138's figures are taken on the circle the driver follows. The turn was the sign of the whole run's mean a_y:
    the classic at dt = 1/240 s spun after its limit and turned the other way long enough to make that mean negative,
    every sign was mirrored and no frame was left to fit (no understeer gradient, a maximum a_y of -0.28 m/s^2). The
    turn is the script's circle's: the gradient is then within 1% of the run at 1/2000 s. Since the driver takes its
    errors a frame on (0.3.12) the classic no longer spins there; the spin is added to the run here, 100 s of turning
    the other way off the circle, and changes no figure."""
    from dataclasses import replace

    from workbench.manoeuvres.steady_state import turn_sign

    m = CATALOGUE["iso4138"]
    car = Car(load_preset("classic").params, "classic")
    got = {}
    for dt in (1 / 240, 1 / 2000):
        (run,) = run_jobs([(m.base_script(), car)], m.channels, dt=dt)
        got[dt] = {k.key: k.value for k in m.kpis(run)}
    n = round(100.0 / run.dt)
    spun = {name: np.concatenate([values, np.full(n, values[-1])]) for name, values in run.data.items()}
    spun["t"] = np.arange(len(spun["t"])) * run.dt
    spun["accel_lat"][-n:], spun["lateral_error"][-n:] = -3.0, 20.0
    spun_run = RunData(spun, run.dt, run.params, run.script)
    assert np.mean(spun["accel_lat"]) < 0  # the spin: the run's mean a_y is the other way than the circle's
    assert {k.key: k.value for k in m.kpis(spun_run)} == got[1 / 2000]
    assert got[1 / 240]["understeer_gradient"] == pytest.approx(got[1 / 2000]["understeer_gradient"], rel=0.01)
    assert got[1 / 240]["max_lateral_acceleration"] == pytest.approx(got[1 / 2000]["max_lateral_acceleration"],
                                                                      rel=0.01)
    script = m.base_script()
    right = replace(script, driver=replace(script.driver, path=replace(script.driver.path,
                                                                        values={"radius": 100.0, "turn": "right"})))
    on = np.ones(3, dtype=bool)
    ay = np.array([2.0, 2.0, 2.0])  # a right-hand circle's turn is its script's, whatever the frames' a_y
    assert turn_sign(RunData({"t": np.arange(3.0), "accel_lat": ay}, 1.0, car.params, right), on) == -1.0
    assert turn_sign(RunData({"t": np.arange(3.0), "accel_lat": ay}, 1.0, car.params, script), on) == 1.0


def test_the_understeer_gradient_is_fitted_in_the_linear_range_below_the_cars_limit():
    """ISO 4138 takes the gradients in the linear range. manual003's limit (3.4 to 3.6 m/s^2) is within the fit's 1..4
    m/s^2: the fit took its bend towards the limit and the frames of its breakaway, steer swinging, that pass back
    through the range, 4.19 deg/g at dt = 1/120 s and 1.59 at 1/2000 s. Fitted on steady seconds up to 80% of the
    maximum lateral acceleration: 1.63 and 1.67, within 3%; the note says where the fit stopped. (0.3.12: 1.640 and
    1.668, its maximum 3.628 and 3.621 m/s^2.)"""
    from workbench.manoeuvres.steady_state import LINEAR_SHARE, fit_note, steady_frames, steady_maximum

    m = CATALOGUE["iso4138"]
    car = Car(load_preset("manual003").params, "manual003")
    got = {}
    for dt in (1 / 120, 1 / 2000):
        (run,) = run_jobs([(m.base_script(), car)], m.channels, dt=dt)
        kpis = {k.key: k for k in m.kpis(run)}
        got[dt] = kpis["understeer_gradient"].value
        f = steady_frames(run)
        ay_max = steady_maximum(run, f)
        assert f.ay[f.fit].max() <= LINEAR_SHARE * ay_max < 4.0
        assert "(the linear range: up to 80% of the maximum" in kpis["understeer_gradient"].note
    assert got[1 / 120] == pytest.approx(got[1 / 2000], rel=0.03)
    assert fit_note(np.array([1.001, 2.5, 3.999]), 8.7) == "fit over a_y 1..4 m/s^2"  # a limit past the range
    assert fit_note(np.array([1.002, 2.7]), 3.38) == ("fit over a_y 1..2.7 m/s^2, short of the 1..4 asked for "
                                                      "(the linear range: up to 80% of the maximum 3.38 m/s^2)")


def test_the_understeer_gradient_is_fitted_on_the_ramp_before_it_leaves_the_linear_range():
    """A car on the ISO 4138 ramp whose delta - L r / v is U0 a_y exactly, up to its limit at 3 m/s^2 at 30 s, breaks
    away and is caught: a second and a half at a_y 2.2 m/s^2 (below 80% of the limit), steady by the test's rules, with
    the steer 1 deg further on. The gradient is the ramp's U0 (ISO 4138 takes it in the linear range of the ramp): the
    caught second is past where the ramp left the range. manual003 at dt = 1/2000 s had such a quarter second 4 s after
    its ramp passed 80% of its limit, and read 1.89 deg/g against 1.67 without it."""
    from workbench.manoeuvres.steady_state import steady_frames

    m = CATALOGUE["iso4138"]
    params = load_preset("sedan").params
    wheelbase = params.body.wheelbase
    dt, u0 = 0.01, math.radians(1.5) / 9.80665  # [rad per m/s^2] 1.5 deg/g, g standard
    t = np.arange(0.0, 40.0, dt)
    ay = np.where(t < 30.0, 0.1 * t, np.where((t >= 33.0) & (t < 34.5), 2.2, 1.5))
    caught = (t >= 33.0) & (t < 34.5)
    v = np.full_like(t, 20.0)
    r = ay / v
    steer = wheelbase * r / v + u0 * ay + np.radians(1.0) * caught
    run = RunData({"t": t, "accel_lat": ay, "yaw_rate": r, "speed": v, "steer": steer, "beta": np.zeros_like(t),
                   "lateral_error": np.zeros_like(t), "target_speed": v, "gear": np.ones_like(t)}, dt, params,
                  m.base_script())
    f = steady_frames(run)
    assert not f.fit[caught].any()  # the caught second is steady and in range, and is not on the ramp
    assert f.steady[caught].all() and (ay[caught] < 0.8 * 3.0).all()
    kpis = {k.key: k.value for k in m.kpis(run)}
    assert kpis["max_lateral_acceleration"] == pytest.approx(2.9495, abs=1e-9)  # the ramp's last second, 29 .. 29.99 s
    assert kpis["understeer_gradient"] == pytest.approx(1.5, rel=1e-9)


def constant_stop(v0_kmh: float, decel: float, dt: float = 1e-3) -> RunData:
    """A straight stop at a constant ``decel`` [m/s^2] from ``v0_kmh``, braked from 1 s, sampled every ``dt``: the
    speed and the position exact at each sample."""
    v0 = v0_kmh / KMH
    t = np.arange(0.0, 1.0 + v0 / decel + 1.0, dt)
    after = np.clip(t - 1.0, 0.0, v0 / decel)
    speed = np.where(t < 1.0, v0, v0 - decel * after)
    x = v0 * np.minimum(t, 1.0) + v0 * after - 0.5 * decel * after * after
    brake = (t >= 1.0).astype(float)
    data = {"t": t, "speed": speed, "brake": brake, "x": x, "y": np.zeros_like(t)}
    return RunData(data, dt, load_preset("sedan").params, CATALOGUE["iso21994"].base_script())


@pytest.mark.parametrize("v0", [100.0, 97.0, 104.5])
def test_the_stopping_distance_is_corrected_to_100_kmh_and_the_mfdd_is_the_deceleration(v0):
    """ISO 21994's stopping distance corrected to 100 km/h as s (100 / v_0)^2, and UN R13-H's mean fully developed
    deceleration (v_b^2 - v_e^2) / (25.92 (s_e - s_b)), 0.8 and 0.1 of v_0 in km/h, on a stop at a constant
    deceleration a, where both have closed forms whatever v_0: (100 / 3.6)^2 / (2 a) and a."""
    decel = 9.0
    kpis = {k.key: k for k in CATALOGUE["iso21994"].kpis(constant_stop(v0, decel))}
    assert kpis["stopping_distance"].value == pytest.approx(V100 ** 2 / (2.0 * decel), rel=1e-4)
    assert kpis["mfdd"].value == pytest.approx(decel, rel=1e-4)
    assert f"from {v0:.4g} km/h" in kpis["stopping_distance"].note


def test_a_stop_from_further_than_the_tolerance_from_100_kmh_is_not_corrected():
    kpis = {k.key: k for k in CATALOGUE["iso21994"].kpis(constant_stop(90.0, 9.0))}
    assert kpis["stopping_distance"].value is None
    assert "not within 5 km/h of 100 km/h, so not corrected" in kpis["stopping_distance"].note
    assert kpis["mfdd"].value == pytest.approx(9.0, rel=1e-4)  # the deceleration needs no correction


def circle_stop(decel: float, turn_rate=None, dt: float = 1e-3) -> RunData:
    """ISO 7975's run driven by an ideal follower: on the script's circle (radius R, left) at the speed of 5 m/s^2,
    braked from its trigger at a constant ``decel`` [m/s^2] to a stop, staying on the circle; or, with ``turn_rate``
    [rad/s], its heading and yaw rate held at that rate after the onset (the positions are the circle's: a heading
    test only)."""
    script = CATALOGUE["iso7975"].base_script()
    radius, tb = script.driver.path.get("radius"), script.driver.until
    v0 = math.sqrt(5.0 * radius)
    t = np.arange(0.0, tb + v0 / decel + 2.0, dt)
    after = np.clip(t - tb, 0.0, v0 / decel)
    speed = np.where(t < tb, v0, v0 - decel * after)
    s = v0 * np.minimum(t, tb) + v0 * after - 0.5 * decel * after * after
    angle = s / radius
    heading, yaw = angle, speed / radius
    if turn_rate is not None:
        heading = np.where(t < tb, angle, v0 * tb / radius + turn_rate * (t - tb))
        yaw = np.where(t < tb, yaw, turn_rate)
    data = {"t": t, "x": radius * np.sin(angle), "y": radius * (1.0 - np.cos(angle)), "heading": heading,
            "speed": speed, "yaw_rate": yaw, "accel_long": np.where((t >= tb) & (speed > 0.0), -decel, 0.0),
            "brake": (t >= tb).astype(float)}
    return RunData(data, dt, load_preset("sedan").params, script)


def test_an_ideal_circle_follower_braking_in_the_turn_has_the_closed_form_kpis():
    """ISO 7975's KPIs 1 s after the onset t0 for a car that stays on the 100 m circle while it slows at a constant a
    from v0 = sqrt(5 R): yaw-rate ratio (v0 - a) / v0 (its yaw rate v / R), no heading or path deviation, a mean
    deceleration of a, a stopping distance of v0^2 / (2 a), the speed at onset v0."""
    decel, radius = 5.0, 100.0
    v0 = math.sqrt(5.0 * radius)
    kpis = {k.key: k.value for k in CATALOGUE["iso7975"].kpis(circle_stop(decel))}
    assert kpis["yaw_ratio_1s"] == pytest.approx((v0 - decel) / v0, rel=1e-6)
    assert kpis["heading_deviation_1s"] == pytest.approx(0.0, abs=1e-6)
    assert kpis["path_deviation_1s"] == pytest.approx(0.0, abs=1e-6)
    assert kpis["mean_deceleration_1s"] == pytest.approx(decel, rel=1e-6)
    assert kpis["stopping_distance"] == pytest.approx(v0 * v0 / (2.0 * decel), rel=1e-4)
    assert kpis["initial_speed"] == pytest.approx(v0 * KMH, rel=1e-9)


def test_a_car_that_keeps_its_yaw_rate_as_it_slows_turns_in_by_the_closed_form():
    """Its yaw rate held at v0 / R while the speed falls at a, the car turns in past the circle's turn at the speed
    driven (integral of v / R) by a t^2 / (2 R): a / (2 R) rad at 1 s, positive (turned further in); its yaw-rate
    ratio 1."""
    decel, radius = 5.0, 100.0
    v0 = math.sqrt(5.0 * radius)
    kpis = {k.key: k.value for k in CATALOGUE["iso7975"].kpis(circle_stop(decel, turn_rate=v0 / radius))}
    assert kpis["heading_deviation_1s"] == pytest.approx(math.degrees(decel / (2.0 * radius)), rel=1e-5)
    assert kpis["yaw_ratio_1s"] == pytest.approx(1.0, abs=1e-12)
