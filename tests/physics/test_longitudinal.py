"""002: drag, rolling resistance, the top speed that emerges from them, coasting and braking."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import DT, c_drag, keys, preset, record, resistance, shifting_driver, stack_inputs, top_speed

from physics import Simulation

RHO = 1.29  # [kg/m^3] 002: density of air
CROSSOVER = 30.0  # [m/s] 002: drag equals rolling resistance at about 30 m/s, C_rr ~ 30 C_drag
CROSSOVER_TOLERANCE = 1.5
TOP_SPEED_002 = 37.0  # [m/s] 002's diagram: the resistances cross the traction line at 37 m/s (133 km/h)
TOP_SPEED_TOLERANCE = 0.01  # 1%
COAST_TOLERANCE = 0.01  # 1%

# The classic car's top speed is approached with a time constant of about half a minute: the
# run is long. The equilibrium of an explicit Euler step does not depend on dt, so this one run
# uses 1/60 s to stay cheap.
TOP_SPEED_DT = 1.0 / 60.0
TOP_SPEED_RUN = 240.0  # [s]
SECOND_FORCE = 2000.0  # [N] a second drive force: no top speed is coded anywhere


def test_classic_preset_has_002s_constants():
    p = preset("classic")
    assert p.aero.air_density == RHO
    assert c_drag(p) == pytest.approx(0.5 * 0.3 * 2.2 * 1.29)
    assert p.aero.rolling / c_drag(p) == pytest.approx(CROSSOVER, abs=CROSSOVER_TOLERANCE)
    assert top_speed(p, p.drive.force) == pytest.approx(TOP_SPEED_002, rel=TOP_SPEED_TOLERANCE)


@pytest.fixture(scope="module")
def classic_runs():
    """Classic car at full throttle in a straight line for 240 s, then 5 s coasting; two drive forces."""
    p = preset("classic")
    cars = [p, p.with_value("drive.force", SECOND_FORCE)]
    sim = Simulation(cars, dt=TOP_SPEED_DT)
    full = record(sim, TOP_SPEED_RUN, keys("throttle", n=2))
    coast = record(sim, 5.0, keys(n=2))
    return cars, full, coast


def test_top_speed_emerges_where_traction_meets_the_resistances(classic_runs):
    cars, full, _ = classic_runs
    for i, p in enumerate(cars):
        run = full.car(i)
        assert run.speed[-1] == pytest.approx(top_speed(p, p.drive.force), rel=TOP_SPEED_TOLERANCE)
        assert np.all(np.diff(run.speed) >= 0), "speed approaches its top from below, without overshoot"
    assert full.car(0).speed[-1] == pytest.approx(TOP_SPEED_002, rel=TOP_SPEED_TOLERANCE)


def test_drag_equals_rolling_resistance_near_30_m_s(classic_runs):
    _, full, _ = classic_runs
    run = full.car(0)
    drag, rolling = np.abs(run.drag_force), np.abs(run.rolling_force)
    moving = run.speed > 1.0
    assert np.all(rolling[moving & (run.speed < CROSSOVER - CROSSOVER_TOLERANCE)]
                  > drag[moving & (run.speed < CROSSOVER - CROSSOVER_TOLERANCE)])
    assert np.all(drag[run.speed > CROSSOVER + CROSSOVER_TOLERANCE] > rolling[run.speed > CROSSOVER + CROSSOVER_TOLERANCE])
    crossing = np.flatnonzero(moving & (drag >= rolling))[0]
    assert run.speed[crossing] == pytest.approx(CROSSOVER, abs=CROSSOVER_TOLERANCE)


def test_resistance_channels_follow_002(classic_runs):
    cars, full, _ = classic_runs
    p, run = cars[0], full.car(0)
    assert -run.drag_force == pytest.approx(c_drag(p) * run.speed * np.abs(run.speed), rel=1e-9, abs=1e-12)
    assert -run.rolling_force == pytest.approx(p.aero.rolling * run.speed, rel=1e-9, abs=1e-12)


def test_coast_down_decelerates_by_drag_and_rolling_only(classic_runs):
    cars, _, coast = classic_runs
    for i, p in enumerate(cars):
        run = coast.car(i)
        off = (run.throttle == 0.0) & (run.drive_force == 0.0) & (run.brake == 0.0)
        assert off.sum() > 200
        measured = -np.diff(run.speed) / TOP_SPEED_DT
        expected = resistance(p, run.speed[:-1]) / p.body.mass
        assert measured[off[:-1]] == pytest.approx(expected[off[:-1]], rel=COAST_TOLERANCE)
        assert run.speed[-1] < run.speed[0]


def test_coast_down_on_the_sedan_on_a_pressed_clutch_matches_002():
    """The sedan coasting on a pressed clutch from about 60 km/h: only drag and rolling resistance.

    It gets there in 1st and 2nd without wheelspin (shifting at 3 s, before the wheels spin).
    """
    p = preset("manual003")
    sim = Simulation(p, dt=DT)
    run = record(sim, 8.5, shifting_driver([3.0], until=7.0)).car(0)
    assert np.all(run.wheelspin == 0.0)
    coasting = (run.clutch == 0.0) & (run.t > 7.0)
    assert coasting.sum() > 120
    assert run.speed_kmh[coasting][0] > 50.0
    measured = -np.diff(run.speed) / DT
    expected = resistance(p, run.speed[:-1]) / p.body.mass
    assert measured[coasting[:-1]] == pytest.approx(expected[coasting[:-1]], rel=COAST_TOLERANCE)


# -- braking ----------------------------------------------------------------------------------


def test_sedan_brake_opposes_motion_and_stops_without_reversing():
    p = preset("manual003")
    sim = Simulation(p, dt=DT)
    launch = record(sim, 3.0, keys("throttle"))
    run = record(sim, 5.0, keys("brake")).car(0)
    assert launch.speed[-1, 0] > 4.0
    assert np.all(run.speed >= 0.0)
    assert np.all(run.brake_force * run.speed <= 0.0), "the brake force always opposes the motion"
    braking = (run.brake > 0.5) & (run.speed > 0.5)
    assert np.all(run.brake_force[braking] < 0.0)
    stopped = np.flatnonzero(run.speed == 0.0)
    assert stopped.size and stopped[0] < len(run.speed) - 120, "the car stops within the run"
    after = slice(stopped[0], None)
    assert np.all(run.speed[after] == 0.0) and np.all(run.vx[after] == 0.0)
    assert np.all(run.x[after] == run.x[stopped[0]]), "a stopped, braked car stays where it stopped"


def test_sedan_brake_at_rest_never_moves_it():
    sim = Simulation(preset("manual003"), dt=DT)
    run = record(sim, 3.0, keys("brake")).car(0)
    assert run.brake[-1] == 1.0
    assert np.all(run.speed == 0.0) and np.all(run.x == 0.0) and np.all(run.y == 0.0)


@pytest.mark.parametrize("name", ["classic", "teaching", "parking", "f1tenth"])
def test_gearbox_less_brake_at_rest_reverses(name):
    # 001's arcade convention, documented in SPEC 2.2 / physics.drive: the brake key at rest reverses.
    p = preset(name)
    sim = Simulation(p, n=2, dt=DT)
    run = record(sim, 2.0, stack_inputs([keys("brake"), keys("throttle")]))
    backward, forward = run.car(0), run.car(1)
    assert backward.speed[-1] < 0 and backward.x[-1] < 0
    assert np.all(backward.speed <= 0)
    assert forward.speed[-1] > 0
    # Reverse has reverse_fraction of the forward drive (the same for both at these low speeds).
    ratio = -backward.speed[60] / forward.speed[60]
    assert 0.0 < ratio < 1.0


@pytest.mark.parametrize("name", ["classic", "teaching", "parking", "f1tenth"])
def test_gearbox_less_throttle_and_brake_held_together_hold_the_car(name):
    """Held alike, the brake is no reverse: the brakes (as strong as the drive or stronger, on every preset) hold the car at rest,
    and bring a moving car to rest. It reversed at rest on any brake: driven forward one frame and braked to rest
    the next, the car crept forward in a jitter (the speed changed sign every frame, 0.07 m in 10 s)."""
    p = preset(name)
    assert p.brakes.force >= p.drive.force
    pedals = keys(throttle_pedal=1.0, brake_pedal=1.0)  # both pressed fully at once
    run = record(Simulation(p, dt=DT), 10.0, pedals).car(0)
    assert np.all(np.abs(run.speed) < 1e-12) and abs(run.x[-1]) < 1e-12, (np.abs(run.speed).max(), run.x[-1])
    # The keys: while the pedals ramp up at their own rates (the brake faster) the car may move a little; then
    # it is held, with no jitter.
    run = record(Simulation(p, dt=DT), 10.0, keys("throttle", "brake")).car(0)
    assert np.all(np.abs(run.speed[int(2.0 / DT):]) < 1e-12), np.abs(run.speed).max()
    assert abs(run.x[-1] - run.x[int(2.0 / DT)]) < 1e-12  # held where the ramps left it: no creep
    sim = Simulation(p, dt=DT)
    record(sim, 3.0, keys("throttle"))
    run = record(sim, 10.0, pedals).car(0)
    assert run.speed[0] > 0.5 and np.all(run.speed > -1e-12)  # never driven backwards
    if p.brakes.force > p.drive.force:  # (F1TENTH's brakes are only as strong as its drive: they cancel it)
        assert np.all(np.abs(run.speed[-120:]) < 1e-12)  # brought to rest, and kept there


def _direct_drive(name: str, force: float) -> str:
    """A shipped preset's text with its engine, clutch and gearbox swapped for 002's direct drive of ``force`` [N]."""
    from physics.presets import cars_dir

    out, skip = [], False
    for line in (cars_dir() / f"{name}.toml").read_text().splitlines():
        if line.startswith("["):
            skip = line.strip() in ("[engine]", "[clutch]", "[gearbox]")
            if line.strip() == "[tyres]":
                out += ["[drive]", f"force = {force}", "power = 0.0", "reverse_fraction = 0.5", ""]
        if not skip:
            out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("name", ["sedan", "sedan_single_track"])
def test_throttle_and_brake_held_with_traction_control_cutting_never_reverse(name):
    """The brake reverses against the throttle pedal, not against what traction control lets through: compared
    with the cut throttle, a car of 002's direct drive with traction control on reversed with its brakes let off,
    to 14 m/s backwards in 6 s (its drive, stronger than its tyres, spins the wheels)."""
    from physics.presets import parse_preset

    p = parse_preset(_direct_drive(name, 20000.0), f"{name} with direct drive")
    assert not p.manual and p.aids.tcs
    run = record(Simulation(p, dt=DT), 6.0, keys(throttle_pedal=1.0, brake_pedal=1.0)).car(0)
    assert np.any(run.tcs_active > 0.0)  # traction control cut the throttle
    assert run.speed.min() > -1e-9 and run.speed.max() < 1.0, (run.speed.min(), run.speed.max())
    # The keys: while the brake pedal leads the throttle's ramp, the car backs a little, and no more.
    run = record(Simulation(p, dt=DT), 6.0, keys("throttle", "brake")).car(0)
    assert run.speed.min() > -0.5 and run.speed[-1] > -1e-9, (run.speed.min(), run.speed[-1])


@pytest.mark.parametrize("name", ["classic", "teaching"])
def test_gearbox_less_brake_while_rolling_forward_brakes(name):
    p = preset(name)
    sim = Simulation(p, dt=DT)
    record(sim, 3.0, keys("throttle"))
    run = record(sim, 4.0, keys("brake")).car(0)
    first_stop = np.flatnonzero(run.speed <= 0.0)[0]
    off = np.flatnonzero(run.throttle == 0.0)[0]  # the throttle pedal falls at its ramp rate first
    assert 0 < off < first_stop
    assert np.all(np.diff(run.speed[off:first_stop]) < 0)
    assert np.all(run.brake_force[:first_stop][run.brake[:first_stop] > 0] < 0)
