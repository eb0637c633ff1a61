"""The road car at its limits: ABS in a bend, every tyre force within grip, the idle control, the starter,
a road tyre's rolling resistance, traction control and a speed channel that does not jump in a spin.

Expected values come from closed forms written out here (v^2 / (2 mu g), the coast-down's force balance,
the starter's torque line), never from the model's own functions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from grip_drivers import RPM_PER_RAD_S, G, SpeedHold, drive, first_index, flying_start, sedan

from physics import Inputs, Simulation
from physics.aids import launch_allowance
from physics.clutch import launch
from physics.engine import governed_torque, governed_torques
from physics.records import STATE, param_records
from physics.step import launch_control

DT = 1.0 / 120.0
BARE_MANUAL = {"clutch.auto_speed": 0.0}


def steady_bend(car, speed: float, lateral_g: float, dt: float = DT):
    """A Simulation in a steady turn at ``lateral_g`` and ``speed`` (the steer found by iteration), and that steer."""
    share = 0.06 * lateral_g / 0.5
    for _ in range(6):
        sim = Simulation(car, n=1, dt=dt)
        flying_start(sim, speed, 3)
        run = drive(sim, 6.0, SpeedHold(speed, dt, share))
        share *= lateral_g * G / np.mean(run.accel_lat[-60:])
    return sim, share


def brake_in_the_bend(lateral_g: float, pedal: float = 1.0, preset: str = "sedan_single_track",
                      **changes) -> np.recarray:
    sim, share = steady_bend(sedan(preset, **changes), 25.0, lateral_g)
    return drive(sim, 8.0, lambda t, tel: Inputs.from_keys(1, {"clutch"}, brake_pedal=pedal, steer=share))


@pytest.mark.parametrize("preset", ["sedan_single_track", "sedan"])
@pytest.mark.parametrize("pedal", [0.2, 0.4, 1.0])
@pytest.mark.parametrize("lateral_g", [0.5, 0.7])
def test_abs_keeps_the_car_on_its_line_braking_in_a_bend(lateral_g, pedal, preset):
    """At 25 m/s in a 0.5 or 0.7 g bend, any brake pedal: the body slip stays under 5 deg, the car turns and
    stops (the single-track car once spun at 0.4 pedal in the 0.7 g bend, its rear brake already released)."""
    run = brake_in_the_bend(lateral_g, pedal, preset)
    assert np.degrees(np.abs(run.beta)).max() < 5.0
    if pedal >= 0.4:
        assert abs(run.speed[-1]) < 1e-3
    assert np.degrees(run.heading[-1] - run.heading[0]) > 10.0  # it still turns: steerable


def test_each_abs_choice_is_what_keeps_it_straight():
    """Without the rear's reserve and select-low, the same full stop at 0.7 g spins the car; without cornering
    brake control, 0.4 pedal in the 0.7 g bend does."""
    run = brake_in_the_bend(0.7, **{"brakes.abs_rear_margin": 1.0, "brakes.abs_select_low": 0})
    assert np.degrees(np.abs(run.beta)).max() > 45.0
    run = brake_in_the_bend(0.7, 0.4, **{"brakes.abs_cornering": 0})
    assert np.degrees(np.abs(run.beta)).max() > 45.0


@pytest.mark.parametrize("mu", [1.0, 0.5, 0.2])
def test_straight_stops_with_abs_within_8_percent_of_the_tyres_limit(mu):
    """From 100 km/h, drag and rolling resistance off: 1.00-1.08 times v^2 / (2 mu g)."""
    car = sedan(**{"tyres.mu": mu, "aero.cd": 0.0, "aero.rolling_coefficient": 0.0})
    sim = Simulation(car, n=1, dt=DT)
    v = 100.0 / 3.6
    flying_start(sim, v, 4)
    run = drive(sim, 2.5 * v / (mu * G), lambda t, tel: Inputs.from_keys(1, {"clutch"}, brake_pedal=1.0))
    stop = first_index(np.abs(run.vx) < 1e-3)
    ratio = (run.x[stop] - run.x[0]) / (v * v / (2.0 * mu * G))
    assert 1.0 <= ratio <= 1.08


def kinetic_energy(car, run: np.recarray) -> np.ndarray:
    """Body (translation and yaw), wheels and engine [J] at each frame's start (a closed form of the channels)."""
    energy = 0.5 * car.body.mass * (run.vx ** 2 + run.vy ** 2) + 0.5 * car.body.yaw_inertia * run.yaw_rate ** 2
    if car.model.layout == "four_wheel":
        for corner, axle in (("fl", "front"), ("fr", "front"), ("rl", "rear"), ("rr", "rear")):
            inertia = 0.5 * getattr(car.body, f"wheel_inertia_{axle}")
            energy = energy + 0.5 * inertia * run[f"wheel_speed_{corner}"] ** 2
    else:
        energy = energy + 0.5 * (car.body.wheel_inertia_front * run.wheel_front ** 2
                                 + car.body.wheel_inertia_rear * run.wheel_rear ** 2)
    return energy + 0.5 * car.engine.inertia * (run.rpm / RPM_PER_RAD_S) ** 2


def tyre_usage(car, run: np.recarray) -> np.ndarray:
    """Each frame's largest tyre force over mu Fz: per axle on a single-track car, per wheel on a four-wheel one."""
    if car.model.layout == "four_wheel":
        return np.max([np.hypot(run[f"fx_{c}"], run[f"fy_{c}"]) / (run[f"mu_{c}"] * run[f"load_{c}"])
                       for c in ("fl", "fr", "rl", "rr")], axis=0)
    return np.hypot(run.fx_rear, run.fy_rear) / (car.tyres.mu * run.load_rear)


LAYOUTS = {"sedan_single_track": {}, "sedan": {}, "front-driven": {"body.driven_axle": "front"},
           "all-wheel-driven": {"body.driven_axle": "all"},
           "locked centre": {"body.driven_axle": "all", "differential.centre_kind": "locked"}}


def driven_grip(car, run: np.recarray) -> np.ndarray:
    """The driven wheels' grip mu Fz [N] in each frame (each wheel's own mu on a four-wheel car)."""
    axle = car.body.driven_axle
    if car.model.layout != "four_wheel":
        return car.tyres.mu * run.load_rear
    wheels = {"rear": ("rl", "rr"), "front": ("fl", "fr"), "all": ("fl", "fr", "rl", "rr")}[axle]
    return sum(run[f"mu_{c}"] * run[f"load_{c}"] for c in wheels)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dt", [1 / 30, 1 / 60, 1 / 120, 1 / 240, 1 / 480])
def test_a_dropped_clutch_at_120_brakes_within_the_rear_tyres_grip(dt, layout):
    """4th to 1st at 120 km/h, the clutch dropped in one frame: no frame's tyre force beyond 1.02 mu Fz, and the
    lock-up only takes energy (the four-wheel car once gained 30 kJ in the frame it locked at dt = 1/60 s), on the
    single-track car and the four-wheel car driven at the rear, the front and all four wheels."""
    car = sedan("sedan_single_track" if layout == "sedan_single_track" else "sedan", **LAYOUTS[layout])
    sim = Simulation(car, n=1, dt=dt)
    flying_start(sim, 120.0 / 3.6, 4)

    def driver(t, tel):
        if t < 0.3:
            return Inputs.from_keys(1, {"clutch"}, gear=1)
        return Inputs.from_keys(1, set(), clutch_pedal=0.0)

    run = drive(sim, 1.0, driver)
    usage = tyre_usage(car, run)
    assert np.all(usage <= 1.02)
    assert usage.max() > 0.9  # the tyres do brake at their limit
    # The engine brakes the car through the driven wheels only: at most their grip, with drag and rolling resistance.
    resist = np.abs(run.drag_force) + np.abs(run.rolling_force)
    limit = (1.02 * driven_grip(car, run) + resist)[:-1] / car.body.mass
    assert np.all(-np.diff(run.vx) / dt <= limit)
    gained = np.diff(kinetic_energy(car, run))
    assert gained.max() <= 0.0, f"{gained.max():.1f} J gained in a frame"


def test_the_closed_throttle_torque_given_with_the_governed_one_is_the_same_bits_as_its_own_call():
    # grip_drive hands traction control the running engine's closed-throttle torque from the same evaluation of the
    # friction and the curve: it must be governed_torque(0.0, rpm, p, False, False), whatever the engine is doing.
    car = sedan()
    rec = param_records([car])[0]
    e = car.engine
    for rpm in np.concatenate([np.linspace(0.0, e.rev_limit + 500.0, 157), [e.idle_rpm, e.peak_rpm, -30.0]]):
        for throttle in (0.0, 0.37, 1.0):
            for stalled, cranking in ((False, False), (True, False), (True, True)):
                torque, closed = governed_torques(throttle, rpm, rec, stalled, cranking)
                assert torque == governed_torque(throttle, rpm, rec, stalled, cranking)
                assert closed == governed_torque(0.0, rpm, rec, False, False), (rpm, throttle, stalled, cranking)
    assert governed_torques(1.0, e.peak_rpm, rec, False, False)[1] < 0.0  # engine braking at speed, throttle shut


def test_the_idle_control_adds_its_authority_and_no_more():
    car = sedan()
    rec = param_records([car])[0]
    e = car.engine
    far_below = governed_torque(0.0, e.idle_rpm - 3 * e.limiter_band, rec, False, False)
    assert far_below == pytest.approx(e.idle_authority * e.peak_torque)  # net of the friction it also carries
    assert governed_torque(1.0, e.idle_rpm - 3 * e.limiter_band, rec, False, False) > 4 * far_below  # the foot
    at_idle = governed_torque(0.0, e.idle_rpm, rec, False, False)
    assert at_idle == pytest.approx(0.0, abs=1e-9)  # it carries its friction at idle, no more


def test_a_clutch_let_go_in_second_at_idle_stalls_a_bare_manual_on_the_spot():
    sim = Simulation(sedan(**BARE_MANUAL), n=1, dt=DT)
    sim.state.clutch_pedal[:] = 1.0
    run = drive(sim, 4.0, lambda t, tel: Inputs.from_keys(1, {"clutch"} if t < 1.0 else set(), gear=2))
    after = run.t >= 1.0
    stall = first_index(after & (run.stalled > 0.0))
    assert run.t[stall] - 1.0 <= 0.5
    assert run.x[-1] <= 0.3
    assert run.slip_ratio_rear[after].max() < 0.2


@pytest.mark.parametrize("gear", [1, 2])
def test_a_dead_engine_in_gear_drags_the_car_to_rest(gear):
    """From 5 km/h on the flat, clutch out, the engine stalled: at rest within 3 s (in 2nd the dead engine turns at
    290 rpm, where its friction alone at idle, 24 N m, took 3.4 s)."""
    car = sedan(**BARE_MANUAL)
    sim = Simulation(car, n=1, dt=DT)
    v = 5.0 / 3.6
    flying_start(sim, v, gear)
    sim.state.stalled[:] = True
    run = drive(sim, 4.0, lambda t, tel: Inputs.from_keys(1, set()))
    assert np.all(run.stalled == 1.0)
    assert abs(run.speed[int(round(3.0 / DT))]) < 1e-3


def test_the_starter_cranks_along_its_torque_line_and_fires_the_engine():
    """Clutch pressed, the start key held: the engine speed rises by (starter - friction) / inertia a frame."""
    car = sedan(**BARE_MANUAL)
    e = car.engine
    sim = Simulation(car, n=1, dt=DT)
    sim.state.stalled[:] = True
    sim.state.rpm[:] = 0.0
    sim.state.clutch_pedal[:] = 1.0
    run = drive(sim, 1.5, lambda t, tel: Inputs.from_keys(1, {"clutch", "start"} if t < 0.6 else {"clutch"}))
    omega = run.rpm / RPM_PER_RAD_S
    k = 3
    friction = e.friction_idle + (e.friction_breakaway - e.friction_idle) * (1.0 - run.rpm[k] / e.idle_rpm)
    torque = e.starter_torque * (1.0 - run.rpm[k] / e.starter_rpm) - friction
    assert omega[k + 1] - omega[k] == pytest.approx(DT * torque / e.inertia, rel=1e-6)
    assert np.diff(run.rpm).max() < DT * (e.starter_torque + e.idle_authority * e.peak_torque) / e.inertia \
        * RPM_PER_RAD_S  # no jump to idle
    fired = first_index(run.stalled == 0.0)  # the first frame that starts with the engine running
    assert run.rpm[fired - 1] < e.firing_rpm <= run.rpm[fired]
    assert run.rpm[-1] == pytest.approx(e.idle_rpm, abs=20.0)


def test_the_starter_creeps_the_car_in_gear_with_the_clutch_out():
    car = sedan(**BARE_MANUAL)
    sim = Simulation(car, n=1, dt=DT)
    sim.state.stalled[:] = True
    sim.state.rpm[:] = 0.0
    run = drive(sim, 2.0, lambda t, tel: Inputs.from_keys(1, {"start"}, gear=2))
    assert 0.2 < run.speed.max() < 2.0  # a creep, not a launch
    assert np.diff(run.rpm).max() < 20.0


@pytest.mark.parametrize("kmh", [100.0, 60.0])
def test_coast_down_is_drag_plus_a_road_tyres_rolling_resistance(kmh):
    """a = -(0.5 rho Cd A v^2 + C_rr m g) / (m + (I_f + I_r) / r^2), within 3%."""
    car = sedan()
    sim = Simulation(car, n=1, dt=DT)
    v = kmh / 3.6
    flying_start(sim, v, 4)
    run = drive(sim, 1.0, lambda t, tel: Inputs.from_keys(1, {"clutch"}))
    k = int(round(0.5 / DT))
    a, b = car.aero, car.body
    force = 0.5 * a.air_density * a.cd * a.frontal_area * run.vx[k] ** 2 + a.rolling_coefficient * b.mass * G
    m_eff = b.mass + (b.wheel_inertia_front + b.wheel_inertia_rear) / b.wheel_radius**2
    assert run.accel_long[k] == pytest.approx(-force / m_eff, rel=0.03)
    assert run.rolling_force[k] == pytest.approx(-a.rolling_coefficient * b.mass * G, rel=1e-9)


def test_rolling_resistance_passes_a_standstill_smoothly():
    car = sedan()
    sim = Simulation(car, n=1, dt=DT)
    flying_start(sim, 0.5, 1)
    run = drive(sim, 6.0, lambda t, tel: Inputs.from_keys(1, {"clutch"}))
    assert abs(run.speed[-1]) < 1e-9 and abs(run.rolling_force[-1]) < 1e-9  # at rest: no force
    assert np.all(np.diff(run.rolling_force) >= -1e-9)  # it only shrinks toward rest, never flips


def keyboard_launch(tcs: int, seconds: float = 8.0) -> np.recarray:
    """Full throttle from the keyboard; a shift at 6,700 rpm with the clutch key (0.3 s)."""
    sim = Simulation(sedan(**{"aids.tcs": tcs}), n=1, dt=DT)
    shift = []

    def driver(t, tel):
        if tel is not None and not shift and tel.rpm[0] > 6700.0 and tel.clutch[0] > 0.95:
            shift.append(t)
        if shift and t - shift[0] < 0.3:
            return Inputs.from_keys(1, {"clutch", "gear_up"} if 0.1 <= t - shift[0] < 0.2 else {"clutch"})
        return Inputs.from_keys(1, {"throttle"})

    return drive(sim, seconds, driver)


def test_traction_control_launches_the_sedan_like_a_road_car():
    run = keyboard_launch(1)
    hundred = first_index(run.speed_kmh >= 100.0)
    assert 4.5 <= run.t[hundred] <= 5.8
    assert run.slip_ratio_rear[(run.t > 0.3) & (run.t < run.t[hundred])].max() < 0.25
    assert run.tcs_active.max() == 1.0


@pytest.mark.parametrize("preset", ["sedan_single_track", "sedan"])
@pytest.mark.parametrize("dt", [1.0 / 120.0, 1.0 / 240.0])
@pytest.mark.parametrize("gear", [1, -1])
def test_launch_control_holds_a_full_throttle_launch_without_pulsing(preset, dt, gear):
    """While the launch clutch slips, traction control is a launch control: the drive holds at the slip target
    through the clutch's hand-over and lock-up, forwards and in reverse. (A throttle cut there had the drive pulse
    between 10.9 and 3.5 kN and the engine bog to 1,120 rpm; the four-wheel car's lock-up dropped its acceleration
    to 0.5 m/s^2, and a reverse launch's lock-up to 0.1 m/s^2 for a tenth of a second.)"""
    sim = Simulation(sedan(preset), n=1, dt=dt)
    run = drive(sim, 2.0, lambda t, tel: Inputs.from_keys(1, {"throttle"}, gear=gear))
    held = first_index(run.tcs_active > 0.0)
    assert run.t[held] < 0.5  # the wheels reach their target early: what follows is the controlled launch
    during = slice(held, None)
    accel = gear * run.accel_long[during]
    force = gear * run.drive_force[during]
    assert accel.min() > 0.8 * np.median(accel)
    assert force.min() > 0.8 * np.median(force)
    slip = run.slip_ratio_rl if preset == "sedan" else run.slip_ratio_rear
    assert np.abs(slip[during]).max() < 0.13  # tcs_slip 0.1, the tyre's peak 0.14
    assert run.rpm[during].min() > 1300.0  # no bog
    assert run.clutch[-1] == 1.0  # the launch clutch handed over to the pedal within the 2 s


@pytest.mark.parametrize("preset", ["sedan_single_track", "sedan"])
def test_a_shift_after_the_launch_is_the_pedals_alone(preset):
    """Once the launch clutch has closed, an upshift at low revs engages as the clutch pedal comes up: the launch's
    hand-over, which waits for the engine to meet the wheels, is over and does not hold the clutch open."""
    sim = Simulation(sedan(preset), n=1, dt=DT)

    def driver(t, tel):
        if 1.0 <= t < 1.3:  # the clutch key, 2nd gear in the middle of it
            return Inputs.from_keys(1, {"clutch", "gear_up"} if 1.1 <= t < 1.2 else {"clutch"})
        return Inputs.from_keys(1, {"throttle"})

    run = drive(sim, 2.5, driver)
    after = run.t >= 1.0
    assert run.gear[-1] == 2 and run.speed[after].min() > 4.0  # past the hand-over, at low revs in 2nd
    assert run.rpm[after].max() < 0.5 * 7000.0
    assert np.array_equal(run.clutch[after], 1.0 - run.clutch_pedal[after])


@pytest.mark.parametrize("preset", ["sedan_single_track", "sedan"])
def test_launch_control_stays_out_of_a_braked_stop(preset):
    """The launch clutch opens again as a braked car slows; with the throttle closed and the brake on, that is no
    launch, and launch control leaves the clutch and the engine alone."""
    sim = Simulation(sedan(preset, **{"brakes.abs_slip": 1.0}), n=1, dt=DT)  # ABS holds the wheels at the peak
    flying_start(sim, 10.0, 1)
    run = drive(sim, 3.0, lambda t, tel: Inputs.from_keys(1, set(), brake_pedal=1.0))
    assert abs(run.speed[-1]) < 1e-9  # stopped, through the launch clutch's band
    assert run.clutch[-1] < 1.0
    assert run.tcs_active.max() == 0.0


def test_throttle_against_the_handbrake_is_no_launch():
    """At rest with the handbrake on and the throttle open, the rear wheels do not turn: launch control has
    nothing to hold, and neither the traction control lamp nor the engine's torque says otherwise."""
    keys = {"throttle", "handbrake"}
    run = drive(Simulation(sedan("sedan"), n=1, dt=DT), 2.0, lambda t, tel: Inputs.from_keys(1, keys))
    off = drive(Simulation(sedan("sedan", **{"aids.tcs": 0}), n=1, dt=DT), 2.0,
                lambda t, tel: Inputs.from_keys(1, keys))
    assert run.tcs_active.max() == 0.0
    assert np.array_equal(run.engine_torque, off.engine_torque)


def test_a_launch_the_tyres_take_whole_hands_over_as_without_traction_control():
    """In 3rd from rest the engine cannot spin the wheels: traction control never acts, and the launch clutch
    closes as it does with traction control off (the hand-over's wait is for launches launch control holds; it
    had slipped this clutch 1.6 s longer)."""
    runs = [drive(Simulation(sedan(**{"aids.tcs": tcs}), n=1, dt=DT), 4.0,
                  lambda t, tel: Inputs.from_keys(1, {"throttle"}, gear=3)) for tcs in (1, 0)]
    assert runs[0].tcs_active.max() == 0.0
    assert runs[0].clutch[-1] == 1.0
    assert np.array_equal(runs[0].clutch, runs[1].clutch)
    assert np.array_equal(runs[0].speed, runs[1].speed)


@pytest.mark.parametrize("axle", ["all", "front", "rear"])
def test_launch_control_uses_the_grip_of_every_driven_wheel_on_snow(axle):
    """The four-wheel sedan on mu 0.3 at full throttle: launch control lets the better wheel (and, with all-wheel
    drive, the better axle) take its share, as traction control's throttle cut does, and the brakes catch the
    others at tcs_brake_slip; the car pulls near the road's mu g over the driven axles' share of the weight
    (sizing the drive by the worse wheel gave 2.49 m/s^2 with all-wheel drive, 15% under mu g)."""
    mu = 0.3
    car = sedan("sedan", **{"body.driven_axle": axle, "tyres.mu": mu})
    run = drive(Simulation(car, n=1, dt=DT), 3.0, lambda t, tel: Inputs.from_keys(1, {"throttle"}))
    b = car.body
    length, lr, h = b.wheelbase, b.lr, b.cg_height
    # a = mu Fz_driven / m with the load transfer m a h / L, less the rolling resistance C_rr g
    traction = {"all": mu * G, "front": mu * G * lr / (length + mu * h),
                "rear": mu * G * (length - lr) / (length - mu * h)}[axle]
    road = traction - car.aero.rolling_coefficient * G
    later = run.t >= 0.5
    assert np.median(run.accel_long[later]) > 0.93 * road
    slips = [run[f"slip_ratio_{w}"][later] for w in ("fl", "fr", "rl", "rr")]
    assert max(s.max() for s in slips) < 0.2


@pytest.mark.parametrize("preset", ["sedan_single_track", "sedan"])
@pytest.mark.parametrize("gear", [1, -1])
def test_launch_control_holds_the_slip_at_a_coarse_timestep(preset, gear):
    """dt = 1/30 s: what the tyre's slope promised the road could not take, and the wheels spun to several times
    the road's speed in a frame; the allowance is bounded by the road's grip."""
    run = drive(Simulation(sedan(preset), n=1, dt=1.0 / 30.0), 2.0,
                lambda t, tel: Inputs.from_keys(1, {"throttle"}, gear=gear))
    slip = run.slip_ratio_rl if preset == "sedan" else run.slip_ratio_rear
    assert np.abs(slip).max() < 0.2
    assert gear * run.speed[-1] > 6.0


def test_launch_control_gives_the_clutch_no_more_than_the_wheels_take():
    """physics.step.launch_control: the capacity at the allowance over the ratio, the engine's torque less what the
    clutch holds back, not below its closed-throttle torque; nothing changes while the clutch could pass more."""
    p = param_records([sedan()]).view(np.recarray)[0]
    s = np.zeros(1, dtype=STATE).view(np.recarray)[0]
    s["rpm"] = 3000.0
    ratio = -3.73 * 3.15
    dt = 1.0 / 120.0
    far_below = 0.0  # the wheels at rest: the engine may come down as far as it would
    capacity, torque, acted = launch_control(p, s, 300.0, 500.0, 2000.0, ratio, far_below, dt)
    assert acted and math.isclose(capacity, 2000.0 / abs(ratio))
    assert math.isclose(torque, max(300.0 - (500.0 - 2000.0 / abs(ratio)), governed_torque(0.0, 3000.0, p, False,
                                                                                            False)))
    assert torque < 300.0
    assert launch_control(p, s, 300.0, 500.0, 500.0 * abs(ratio), ratio, far_below, dt) == (500.0, 300.0, False)
    # a cut larger than the engine's torque leaves it at its closed-throttle torque, no lower
    capacity, torque, acted = launch_control(p, s, 300.0, 700.0, 10.0, ratio, far_below, dt)
    assert acted and math.isclose(torque, governed_torque(0.0, 3000.0, p, False, False))
    # ... and never so low that the engine ends the frame below the wheels' speed through the gears
    omega = 3000.0 / RPM_PER_RAD_S
    imposed = omega - 0.5
    capacity, torque, acted = launch_control(p, s, 300.0, 700.0, 10.0, ratio, imposed, dt)
    most = 10.0 / abs(ratio)
    assert math.isclose(torque, most + p["engine_inertia"] * (imposed - omega) / dt)
    assert math.isclose(omega + dt * (torque - most) / p["engine_inertia"], imposed)


def test_under_launch_control_the_hand_over_waits_for_the_engine():
    """physics.clutch.launch: past auto_speed the hand-over's share is 1, less the engine's speed above the wheels'
    over auto_rpm_band; the engagement the engine's speed asks for is left as it was."""
    p = param_records([sedan()]).view(np.recarray)[0]
    past = p["clutch_auto_speed"] + 1.0
    rpm, band = 1500.0, p["clutch_auto_rpm_band"]
    by_rpm = (rpm - p["engine_idle_rpm"]) / band
    assert launch(0.5, rpm, past, 0.0, p, 1.0) == 1.0  # (a 1 s step: the rate does not bind)
    waits = launch(0.0, rpm, past, 0.75 * band, p, 10.0)
    assert math.isclose(waits, max(by_rpm, 0.25))
    assert launch(0.0, rpm, past, 2.0 * band, p, 10.0) == by_rpm  # far above: the engine's own share only
    assert launch(0.0, rpm, past, -300.0, p, 10.0) == 1.0  # below the wheels: no wait


def test_launch_allowance_is_the_torque_that_ends_the_frame_at_the_slip_target():
    """I (omega_end - omega) = dt (T - R Fx), omega_end = (u + tcs_slip |u|) / R, forwards and in reverse; with the
    tyre's slope in I while the road takes the force, with the bare wheel against the grip where it cannot."""
    p = param_records([sedan()]).view(np.recarray)[0]
    radius, bare, dt = 0.33, 2.2, 1.0 / 120.0
    inertia = bare + dt * radius * radius * 30000.0  # a tyre slope of 30 kN per unit slip at 5 m/s
    u, road_torque, grip_torque = 5.0, 1200.0, 8000.0
    hold = (u + p["aids_tcs_slip"] * u) / radius
    omega = u / radius  # rolling
    along = (hold - omega) * inertia / dt + road_torque
    at_grip = (hold - omega) * bare / dt + grip_torque
    assert along < at_grip  # the road takes it
    assert math.isclose(launch_allowance(p, omega, u, 0.0, radius, 0.5, 1.0, inertia, bare, road_torque,
                                         grip_torque, dt), along)
    assert math.isclose(launch_allowance(p, -omega, -u, 0.0, radius, 0.5, -1.0, inertia, bare, -road_torque,
                                         grip_torque, dt), along)
    # on ice the grip sets it: what the slope promised would spin the wheel up; in reverse alike
    assert math.isclose(launch_allowance(p, omega, u, 0.0, radius, 0.5, 1.0, inertia, bare, road_torque, 300.0, dt),
                        (hold - omega) * bare / dt + 300.0)
    assert math.isclose(launch_allowance(p, -omega, -u, 0.0, radius, 0.5, -1.0, inertia, bare, -road_torque, 300.0,
                                         dt), (hold - omega) * bare / dt + 300.0)
    # a wheel already past its target gets no torque at all
    assert launch_allowance(p, 2.0 * hold, u, 0.0, radius, 0.5, 1.0, inertia, bare, 0.0, grip_torque, dt) == 0.0


def test_launch_control_is_asked_for_only_with_the_brake_and_the_handbrake_off():
    """physics.step.launch_asked and launching: traction control on, the throttle open, the brake and the handbrake
    off; and launching while the automatic clutch engages, not yet closed, not held open further by the pedal."""
    from physics.step import Controls, launch_asked, launching

    p = param_records([sedan()]).view(np.recarray)[0]
    s = np.zeros(1, dtype=STATE).view(np.recarray)[0]
    go = Controls(1.0, 0.0, 0.0, 0.0, False, 1, False, False)
    assert launch_asked(p, go) and launching(p, s, go, 0.3)
    for stop in (go._replace(brake=0.05), go._replace(handbrake=True), go._replace(throttle=0.0)):
        assert not launch_asked(p, stop) and not launching(p, s, stop, 0.3)
    assert not launch_asked(param_records([sedan(**{"aids.tcs": 0})]).view(np.recarray)[0], go)
    assert not launching(p, s, go, 1.0)  # the launch clutch closed
    assert not launching(p, s, go._replace(clutch_pedal=0.8), 0.3)  # the pedal holds it open further
    s["stalled"] = True
    assert not launching(p, s, go, 0.3)


@pytest.mark.parametrize("kind", ["open", "limited_slip", "locked"])
def test_an_axle_under_launch_control_takes_twice_its_better_wheel_or_both_through_a_locked_differential(kind):
    """physics.four_wheel.axle_allowance: each wheel's allowance (physics.aids.launch_allowance, tested above), then
    twice the larger through a differential that splits the torque evenly, their sum through a locked one."""
    from physics.four_wheel import Contact, axle_allowance

    p = param_records([sedan("sedan", **{"differential.kind": kind})]).view(np.recarray)[0]
    radius, floor, bare, dt, kx = p["body_wheel_radius"], p["model_slip_speed"], 1.1, 1.0 / 120.0, 30000.0
    u = 4.0
    grippy = Contact(u, 0.0, u, 0.0, 0.0, 900.0, 0.0, kx, 0.0, 0.0, 5000.0, 0.2, 1.0, 0.0, 0.0, 0.0)
    icy = grippy._replace(fx=150.0, limit=400.0)
    wheels = []
    for k in (grippy, icy):
        wheels.append(launch_allowance(p, u / radius, u, 0.0, radius, floor, 1.0, bare + dt * radius * radius * kx,
                                       bare, radius * k.fx, radius * k.limit, dt))
    assert wheels[0] > 2.0 * wheels[1] > 0.0  # the two wheels differ
    got = axle_allowance(p, grippy, icy, kx, kx, u / radius, u / radius, bare, 0.0, 1.0, dt)
    assert math.isclose(got, sum(wheels) if kind == "locked" else 2.0 * max(wheels))
    assert math.isclose(axle_allowance(p, icy, grippy, kx, kx, u / radius, u / radius, bare, 0.0, 1.0, dt), got)


def test_without_traction_control_the_burnout_is_still_there():
    sim = Simulation(sedan(**{"aids.tcs": 0}), n=1, dt=DT)
    run = drive(sim, 3.0, lambda t, tel: Inputs.from_keys(1, {"throttle"}))
    assert run.slip_ratio_rear[(run.t > 0.5) & (run.t < 2.0)].min() > 1.0
    assert run.tcs_active.max() == 0.0


def test_speed_does_not_jump_when_a_spinning_car_turns_through_sideways():
    sim = Simulation(sedan(**{"brakes.abs": 0}), n=1, dt=DT)
    flying_start(sim, 20.0, 3)
    run = drive(sim, 4.0, lambda t, tel: Inputs.from_keys(1, {"handbrake"} if t < 1.5 else set(), steer=1.0))
    assert (run.vx[:-1] * run.vx[1:] < 0.0).any()  # the car does turn through sideways
    size = np.hypot(run.vx, run.vy)
    velocity_change = np.hypot(np.diff(run.vx), np.diff(run.vy))
    assert np.all(np.abs(np.diff(run.speed)) <= velocity_change + 1e-9)
    assert np.allclose(np.abs(run.speed), size)


def test_speed_is_negative_reversing_from_rest_and_through_a_stop():
    sim = Simulation(sedan(), n=1, dt=DT)
    run = drive(sim, 3.0, lambda t, tel: Inputs.from_keys(1, set(), throttle_pedal=0.3, gear=-1))
    assert run.speed[-1] < -1.0 and run.vx[-1] < 0.0
    sim.reset()
    flying_start(sim, 2.0, 1)

    def driver(t, tel):  # braked to a stop with the clutch pressed, then reverse and some throttle
        if t < 1.5:
            return Inputs.from_keys(1, {"clutch"}, brake_pedal=0.5)
        return Inputs.from_keys(1, set(), throttle_pedal=0.3, gear=-1)

    run = drive(sim, 4.0, driver)
    assert run.speed[0] > 0.0 and run.speed[-1] < 0.0
    assert math.isclose(abs(run.speed[-1]), math.hypot(run.vx[-1], run.vy[-1]))


@pytest.mark.parametrize(("omega", "road", "target", "expected"), [
    (12.0, 3.3, 0.1, None),    # spinning forwards past the target: braked to it
    (2.0, -3.3, 0.1, 0.0),     # turning forwards on a road running backwards: braked to a stop, no further
    (-7.35, -3.1, 0.12, -7.35),  # turning backwards slower than the road: nothing for a brake to do
    (-12.0, -3.3, -0.1, None),  # reverse gear, spinning backwards past the target: braked to it
    (1.0, -3.3, -0.1, 1.0),    # reverse gear, a wheel turning forwards: left alone
])
def test_traction_controls_brake_only_turns_a_wheel_towards_standstill(omega, road, target, expected):
    from physics.wheel import anti_spin, slip_speed

    radius, floor = 0.33, 1.0
    out = anti_spin(omega, road, 0.0, radius, floor, target, 100.0)
    if expected is None:
        expected = (road + target * slip_speed(road, floor)) / radius
    assert out == pytest.approx(expected)
    assert abs(out) <= abs(omega) and out * omega >= 0.0  # never faster, never turned round


@pytest.mark.parametrize("preset", ["sedan_single_track", "sedan", "tail_happy"])
@pytest.mark.parametrize("dt", [1 / 30, 1 / 60, 1 / 120])
def test_a_braked_stop_ends_at_rest_and_never_rolls_back(preset, dt):
    """Full brake with the clutch pressed, from 30 km/h in a gentle bend: the car comes to rest and stays there,
    its kinetic energy only falls, and below brakes.abs_min_speed the ABS lets the wheels lock. At dt = 1/30 s the
    four-wheel car once rolled back and forth through zero at the stop (0.15 m/s forwards, 0.1 m/s backwards)."""
    car = sedan(preset)
    sim = Simulation(car, n=1, dt=dt)
    flying_start(sim, 30.0 / 3.6, 2)
    run = drive(sim, 4.0, lambda t, tel: Inputs.from_keys(1, {"clutch"}, brake_pedal=1.0, steer=0.05))
    assert np.all(run.vx >= 0.0)  # never backwards
    stop = first_index(run.speed == 0.0)
    assert np.all(run.speed[stop:] == 0.0) and run.t[stop] < 2.0
    assert np.diff(kinetic_energy(car, run)).max() <= 1e-9
    crawl = (run.speed > 0.0) & (run.speed < 0.9 * car.brakes.abs_min_speed)
    fast = run.speed > 1.1 * car.brakes.abs_min_speed
    assert crawl.any() and np.all(run.wheel_front[crawl][1:] == 0.0)  # locked for the last metre
    assert np.all(run.slip_ratio_front[fast][int(0.2 / dt):] > -0.3)  # turning while ABS is on


@pytest.mark.parametrize(("brake", "meets"), [(0.0, True), (134.4, True), (400.0, False)])
def test_a_wheel_at_its_grip_that_meets_the_road_through_zero_ends_at_the_roads_speed(brake, meets):
    """A wheel spinning backwards at 3 rad/s on a road running forwards at 0.94 m/s, its tyre at the grip: the tyre
    turns it through zero towards the road's speed. Past zero the brake opposes the other way; taking it the first
    way all frame, the wheel once stopped at zero with the road sliding under it and the tyre passing less than its
    grip (852 N of 2,180 with 134 N m of brake), which no state of wheel and tyre gives. With a brake of 400 N m the
    wheel turns forwards short of the road and the tyre slides at its grip."""
    from physics import wheel

    radius, inertia, mass, dt, limit = 0.33, 0.5957, 1386.1, 1.0 / 120.0, 2180.3
    omega, u_start, u_without = -2.9924, 0.6057, 0.9361
    w, _, held, force = wheel.at_limit(omega, 0.0, -limit, brake, radius, inertia, u_start, u_without, mass, dt)
    road = u_without + dt * force / mass
    assert not held and w > 0.0
    if meets:
        assert abs(force) < limit and w * radius == pytest.approx(road, rel=1e-9, abs=1e-12)
    else:
        assert force == -limit and w * radius < road  # still slower than the road: braking, at the grip
    # The wheel's equation over the frame with the brake against its final turning, and the car's with the force.
    assert w == pytest.approx(omega + dt * (-radius * force - brake) / inertia, rel=1e-12)
