"""Random driving on every preset: every channel finite on every frame, and bit-identical reruns.

Plus the F1TENTH car crawling at 0.2-1.5 m/s, where an explicit-Euler single-track model diverges.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import frames, keys, preset, record, shifting_driver, stack_inputs

from physics import Inputs, Simulation, build_kernel

PRESETS = ["parking", "teaching", "f1tenth", "sedan", "classic"]
DTS = [1 / 120, 1 / 60]
DURATION = 60.0  # [s] of random driving per preset and dt
DRIVERS = 3  # random drivers per batch
SEGMENT = (0.1, 1.0)  # [s] keys change every 0.1-1 s
KEY_CHANCE = {"throttle": 0.55, "brake": 0.25, "left": 0.3, "right": 0.3, "clutch": 0.3, "handbrake": 0.15,
              "gear_up": 0.2, "gear_down": 0.2}


def random_schedule(rng: np.random.Generator, manual: bool, dt: float) -> list[tuple[int, Inputs]]:
    """Segments (first frame, inputs) of random keys; reverse gear and the handbrake included."""
    out, t = [], 0.0
    while t < DURATION:
        held = {key for key, chance in KEY_CHANCE.items() if rng.random() < chance}
        analog = {}
        if manual and rng.random() < 0.2:
            analog["gear"] = int(rng.choice([-1, -1, 0, 1, 2, 3, 5]))
        if rng.random() < 0.15:
            analog["steer"] = float(rng.uniform(-1.0, 1.0))
        if rng.random() < 0.1:
            analog["throttle_pedal"] = float(rng.uniform(0.0, 1.0))
        out.append((frames(t, dt), Inputs.from_keys(1, held, **analog)))
        t += rng.uniform(*SEGMENT)
    # Make sure every driver drives off for a while (1st gear, full throttle, nothing else) ...
    ahead = {"gear": 1} if manual else {}
    start, end = frames(DURATION / 4, dt), frames(DURATION / 4 + 6.0, dt)
    out = [(frame, inputs) for frame, inputs in out if not start <= frame < end]
    out.append((start, Inputs.from_keys(1, {"throttle"}, **ahead)))
    out.append((end, Inputs.from_keys(1, set())))
    # ... and backs up for a while: reverse gear (or the brake key of a car without one).
    back = {"gear": -1} if manual else {}
    start = frames(DURATION / 2, dt)
    out.append((start, Inputs.from_keys(1, {"clutch"}, **back)))
    out.append((start + frames(0.3, dt), Inputs.from_keys(1, {"throttle"} if manual else {"brake"}, **back)))
    out.append((start + frames(3.0, dt), Inputs.from_keys(1, {"handbrake", "left"})))
    out.append((start + frames(4.0, dt), Inputs.from_keys(1, set())))
    return sorted(out, key=lambda item: item[0])


def schedule_driver(schedules: list[list[tuple[int, Inputs]]]):
    """A driver for a batch: car i follows schedules[i]; inputs are rebuilt only when one changes."""
    change = sorted({frame for schedule in schedules for frame, _ in schedule})
    current = [schedule[0][1] for schedule in schedules]
    cursor = [0] * len(schedules)
    state = {"inputs": stack_inputs(current), "next": 0}

    def drive(t: float, sim: Simulation) -> Inputs:
        frame = sim.frame
        while state["next"] < len(change) and change[state["next"]] <= frame:
            for i, schedule in enumerate(schedules):
                while cursor[i] + 1 < len(schedule) and schedule[cursor[i] + 1][0] <= frame:
                    cursor[i] += 1
                current[i] = schedule[cursor[i]][1]
            state["inputs"] = stack_inputs(current)
            state["next"] += 1
        return state["inputs"]

    return drive


def random_run(name: str, dt: float, seed: int):
    p = preset(name)
    rng = np.random.default_rng(seed)
    schedules = [random_schedule(rng, p.manual, dt) for _ in range(DRIVERS)]
    sim = Simulation(p, n=DRIVERS, dt=dt)
    return record(sim, DURATION, schedule_driver(schedules))



def _random_cases():
    for name in PRESETS:
        for dt, dt_id in zip(DTS, ["dt120", "dt60"], strict=True):
            yield pytest.param(name, dt, id=f"{name}-{dt_id}")


@pytest.mark.parametrize("name, dt", list(_random_cases()))
def test_random_driving_is_finite_and_deterministic(name, dt):
    seed = 20240 + PRESETS.index(name) * 10 + DTS.index(dt)
    with np.errstate(all="ignore"):  # a diverging run is reported by the assertion, not by warnings
        first = random_run(name, dt, seed)
        second = random_run(name, dt, seed)
    bad = [channel for channel, values in first.items() if not np.isfinite(values).all()]
    assert not bad, f"channels with non-finite values: {bad}"
    differ = [channel for channel, values in first.items() if not np.array_equal(values, second[channel])]
    assert not differ, f"channels that differ between two identical runs: {differ}"
    # The run did what it claims: the cars moved, backed up and used the handbrake.
    assert first.speed.max() > 1.0
    assert first.speed.min() < -0.1
    assert first.handbrake.max() == 1.0
    if preset(name).manual:
        assert first.gear.min() == -1


# -- the F1TENTH car at a crawl ----------------------------------------------------------------

CRAWL = (0.2, 1.5)  # [m/s] target speeds
CRAWL_SECONDS = 20.0
MAX_REAR_SLIP = 0.2  # [rad] a crawling car's rear tyre barely slips (the kinematic bicycle: 0)


def crawl_driver(seed: int):
    """Hold a random target speed in 0.2-1.5 m/s (P control on the pedals), steering changing every 0.5 s."""
    rng = np.random.default_rng(seed)
    plan = {"steer": 0.0, "target": 0.8}

    def drive(t: float, sim: Simulation) -> Inputs:
        if sim.frame % frames(0.5, sim.dt) == 0:
            plan["steer"] = float(rng.uniform(-1.0, 1.0))
            plan["target"] = float(rng.uniform(*CRAWL))
        speed = 0.0 if sim.telemetry is None else float(sim.channel("speed")[0])
        error = plan["target"] - speed
        return keys(steer=plan["steer"], throttle_pedal=min(max(2.0 * error, 0.0), 1.0),
                    brake_pedal=min(max(-2.0 * error, 0.0), 1.0))

    return drive


def crawl_problems(run, p) -> list[str]:
    """What is wrong with a crawl: non-finite values, or motion no crawling car can have."""
    problems = [f"{channel} not finite" for channel, values in run.items() if not np.isfinite(values).all()]
    if problems:
        return problems
    kinematic_yaw = CRAWL[1] * 1.3 * math.tan(p.steering.lock) / p.body.wheelbase
    if run.speed.max() > 2.0 * CRAWL[1]:
        problems.append(f"speed {run.speed.max():.3g} m/s")
    if np.abs(run.vy).max() > 0.5:
        problems.append(f"lateral speed {np.abs(run.vy).max():.3g} m/s")
    if np.abs(run.yaw_rate).max() > 1.5 * kinematic_yaw:
        problems.append(f"yaw rate {np.abs(run.yaw_rate).max():.3g} rad/s")
    if np.abs(run.slip_rear).max() > MAX_REAR_SLIP:
        problems.append(f"rear slip {np.abs(run.slip_rear).max():.3g} rad")
    return problems


@pytest.mark.parametrize("dt", DTS, ids=["dt120", "dt60"])
@pytest.mark.parametrize("blend", ["preset", "dynamic_down_to_0.1"])
def test_f1tenth_crawl_stays_finite_and_bounded(dt, blend):
    p = preset("f1tenth")
    if blend != "preset":
        # The tyre model itself, not the kinematic blend, has to be stable at a crawl.
        p = p.with_values({"model.blend_low": 0.05, "model.blend_high": 0.1})
    run = record(Simulation(p, dt=dt), CRAWL_SECONDS, crawl_driver(7)).car(0)
    moving = run.t > 1.0
    assert np.mean((run.speed[moving] > 0.15) & (run.speed[moving] < 1.6)) > 0.9, "the driver holds a crawl"
    assert crawl_problems(run, p) == []


def _explicit_euler(mass, inertia, x_force, y_force, moment, kx_front, kx_rear, ky_front, ky_rear, cos_d, sin_d, lf,
                    lr, dt):
    """The textbook explicit step of m dv/dt = F, Iz dr/dt = Mz: the changes of vx, vy and r, no tyre slope."""
    return dt * x_force / mass, dt * y_force / mass, dt * moment / inertia


@pytest.mark.parametrize("dt", DTS, ids=["dt120", "dt60"])
def test_the_crawl_check_catches_an_explicit_euler_step(dt):
    p = preset("f1tenth").with_values({"model.blend_low": 0.05, "model.blend_high": 0.1})
    kernel = build_kernel({"body.planar_step": _explicit_euler}, cache=True)
    run = record(Simulation(p, dt=dt, kernel=kernel), CRAWL_SECONDS, crawl_driver(7)).car(0)
    assert crawl_problems(run, p) != []


# -- energy: without drive, a car only loses kinetic energy -------------------------------------

SPIN_ENTRY = {"f1tenth": 2.0, "classic": 20.0}  # [s] of full throttle before the manoeuvre
ENERGY_SLACK = 1e-3  # relative growth allowed frame to frame (none is physical)


def _energy_cases():
    for name in ("f1tenth", "sedan", "classic"):
        for dt, dt_id in zip(DTS, ["dt120", "dt60"], strict=True):
            yield pytest.param(name, dt, id=f"{name}-{dt_id}")


@pytest.mark.parametrize("name, dt", list(_energy_cases()))
def test_without_drive_a_spinning_car_never_gains_kinetic_energy(name, dt):
    """At speed, throttle released, full lock coasting (car 0) or with the handbrake (car 1).

    Tyres, brakes, drag and rolling resistance only take energy out: once nothing drives the car,
    its kinetic energy (translation plus yaw) can only fall.
    """
    p = preset(name)
    sim = Simulation(p, n=2, dt=dt)
    with np.errstate(all="ignore"):
        if p.manual:
            entry = record(sim, 8.0, lambda t, s: stack_inputs([shifting_driver([3.0])(t, s)] * 2))
        else:
            entry = record(sim, SPIN_ENTRY[name], keys("throttle", n=2))
        # A manual car coasts on a pressed clutch: this is about the body and tyres, not the drivetrain.
        free = ("clutch",) if p.manual else ()
        spin = record(sim, 3.0, stack_inputs([keys("left", *free), keys("left", "handbrake", *free)]))
    assert entry.speed[-1].min() > 10.0
    for i in range(2):
        run = spin.car(i)
        with np.errstate(all="ignore"):
            energy = 0.5 * p.body.mass * (run.vx ** 2 + run.vy ** 2) + 0.5 * p.body.yaw_inertia * run.yaw_rate ** 2
        start = int(np.flatnonzero(run.throttle == 0.0)[0])
        assert start < 60
        later = energy[start:]
        assert np.all(np.isfinite(later)), f"car {i}: the motion diverged"
        # Nothing drives the car from here on.
        assert np.all(run.drive_force[start:] * run.vx[start:] <= 0.0)
        worst = int(np.argmax(later / later[0]))
        assert later[worst] <= later[0] * (1 + ENERGY_SLACK), (
            f"car {i}: kinetic energy {later[0]:.0f} J -> {later[worst]:.0f} J after {worst * dt:.2f} s "
            f"(yaw rate up to {np.abs(run.yaw_rate).max():.1f} rad/s)")


REVERSE_CIRCLE = """
[script]
name = "reverse circle, coasting"
preset = "f1tenth"
duration = 16.0

[[hold]]
keys = ["throttle"]
from = 0.0
to = 3.191667

[[hold]]
keys = ["handbrake", "left"]
from = 3.191667
to = 3.45

[[hold]]
keys = ["throttle", "brake"]
from = 3.45
to = 6.383333

[[hold]]
keys = ["throttle"]
from = 6.383333
to = 11.233333

[[hold]]
keys = ["handbrake", "left"]
from = 11.233333
to = 12.675

[[hold]]
keys = ["right"]
from = 12.675
to = 16.0
"""


def test_a_car_circling_in_reverse_at_full_lock_coasts_down():
    """Found by `carbench hunt --seed 8080` on the F1TENTH car, shrunk: spun round by the handbrake, it rolls backwards
    at 1 m/s on a full-lock circle with no pedal. With the slips taken after the frame's turn and the body's vx solved
    apart from vy and r (the front tyre's slope coupling them left out), its kinetic energy rose by 0.01 W from 14 s on;
    solved together (physics.body.planar_step) it only falls."""
    from workbench.runs.replay import replay
    from workbench.scripts.format import parse_script
    from workbench.scripts.program import compile_script

    p = preset("f1tenth")
    result = replay([compile_script(parse_script(REVERSE_CIRCLE))])[0]
    t, vx, vy, r = (result.column(name) for name in ("t", "vx", "vy", "yaw_rate"))
    coasting = t >= 14.0
    assert np.all(result.column("throttle")[coasting] == 0.0) and np.all(result.column("brake")[coasting] == 0.0)
    assert np.all(vx[coasting] < -0.5) and np.all(np.abs(r[coasting]) > 0.9)  # backwards, turning hard
    energy = 0.5 * p.body.mass * (vx ** 2 + vy ** 2) + 0.5 * p.body.yaw_inertia * r ** 2
    assert np.all(np.diff(energy[coasting]) <= 1e-12 * energy[coasting][1:])
