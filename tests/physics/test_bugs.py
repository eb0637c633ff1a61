"""003's two bugs: absent from the model, and caught by the same checks when put back.

Each bug has a scenario (a run of the sedan) and a check that returns what is wrong with it; the
check passes on the model and fails once the bug is put back through its seam, a variant of the
compiled model with one subsystem function replaced (physics.build_kernel; tests/bugs003.py):
``standstill.stop_mask`` (the clutch stop) and ``blend.tyre_force_weight`` with
``blend.kinematic_motion`` (the full-lock stall).
"""

from __future__ import annotations

import math

import bugs003
import numpy as np
import pytest
from helpers import DT, keys, preset, record, resistance, stack_inputs

from physics import Simulation

# -- the clutch stop --------------------------------------------------------------------------

PRESS_KMH = 11.5  # 003: "A 11,1 km/h, tres quadros depois de apertar a embreagem, a velocidade e zero"
AFTER_PRESS = 1.0  # [s]
STILL_ROLLING_KMH = 9.0
COAST_TOLERANCE = 0.01
STOP_THRESHOLD = 0.05  # [m/s, m/s^2] 003: "abaixo de 0,05 m/s e sem tracao"
BUG_RANGE_MS, BUG_RANGE_KMH = 4.1, 15.0  # 003: drag + rolling decelerate by less than 0.05 m/s^2 up to ~4.1 m/s
BUG_FRAMES = 10  # the buggy rule stops the car "three frames after" the clutch is fully pressed: a few frames


def clutch_stop_run(kernel=None):
    """1st at full throttle to about 11.5 km/h, then the clutch pressed and the throttle released."""
    sim = Simulation(preset("manual003"), dt=DT, kernel=kernel)
    state = {"pressed_at": None}

    def driver(t, sim_):
        if state["pressed_at"] is None and sim_.telemetry is not None and sim_.channel("speed_kmh")[0] >= PRESS_KMH:
            state["pressed_at"] = sim_.frame
        return keys("throttle") if state["pressed_at"] is None else keys("clutch")

    run = record(sim, 5.0, driver).car(0)
    assert state["pressed_at"] is not None
    return run, state["pressed_at"]


def clutch_stop_problems(run, pressed_at: int) -> list[str]:
    """What 003's expectation finds wrong: the car must roll on, slowed only by drag and rolling resistance."""
    p = preset("manual003")
    problems = []
    later = pressed_at + round(AFTER_PRESS / DT)
    if not run.speed_kmh[later] > STILL_ROLLING_KMH:
        problems.append(f"{run.speed_kmh[later]:.2f} km/h {AFTER_PRESS} s after the clutch")
    coasting = np.zeros_like(run.speed, dtype=bool)
    coasting[pressed_at:later] = True
    coasting &= run.clutch == 0.0
    measured = -np.diff(run.speed)[coasting[:-1]] / DT
    expected = resistance(p, run.speed[:-1][coasting[:-1]]) / p.body.mass
    if coasting.sum() < 60 or not np.allclose(measured, expected, rtol=COAST_TOLERANCE, atol=0.0):
        problems.append("the deceleration on the pressed clutch is not drag plus rolling resistance")
    return problems


def test_003s_bug_window_follows_from_the_sedans_resistances():
    # Drag + rolling decelerate the sedan by less than the 0.05 threshold up to about 4.1 m/s (15 km/h).
    p = preset("manual003")
    a, b, c = p.aero.cd * p.aero.frontal_area * p.aero.air_density / 2, p.aero.rolling, STOP_THRESHOLD * p.body.mass
    v = (-b + math.sqrt(b * b + 4 * a * c)) / (2 * a)
    assert v == pytest.approx(BUG_RANGE_MS, abs=0.05)
    assert v * 3.6 == pytest.approx(BUG_RANGE_KMH, abs=0.5)
    assert p.model.stop_speed == STOP_THRESHOLD
    assert PRESS_KMH / 3.6 > p.clutch.auto_speed  # above 3 m/s: the clutch is the driver's


def test_clutch_pressed_at_11_kmh_coasts():
    run, pressed_at = clutch_stop_run()
    assert run.speed_kmh[pressed_at] == pytest.approx(PRESS_KMH, abs=0.5)
    assert clutch_stop_problems(run, pressed_at) == []


def test_clutch_stop_check_fails_with_the_bug_put_back():
    run, pressed_at = clutch_stop_run(bugs003.clutch_stop_kernel())
    assert clutch_stop_problems(run, pressed_at) != []
    # 003's symptom: stopped dead a few frames after the clutch is fully pressed, and it stays stopped.
    opened = pressed_at + int(np.flatnonzero(run.clutch[pressed_at:] == 0.0)[0])
    stopped = opened + int(np.flatnonzero(run.speed[opened:] == 0.0)[0])
    assert stopped - opened <= BUG_FRAMES
    assert np.all(run.speed[stopped:] == 0.0)


# -- the full-lock stall ----------------------------------------------------------------------

STALL_SECONDS = 5.0
PULLS_AWAY_KMH = 10.0
TURNS_DEG = 90.0
STALLED_KMH = 2.0  # 003: "ele fica em 0,7 km/h"
AUTO_CLUTCH_SHARE = 0.05  # 003: "o motor entrega com a embreagem automatica em 5% (uns 1.000 N)"
AUTO_CLUTCH_FORCE = 1000.0


def stall_run(kernel=None):
    """Full lock left (car 0) and right (car 1) from a standstill in 1st at full throttle."""
    sim = Simulation(preset("manual003"), n=2, dt=DT, kernel=kernel)
    return record(sim, STALL_SECONDS, stack_inputs([keys("throttle", "left"), keys("throttle", "right")]))


def stall_problems(run) -> list[str]:
    """003's expectation: the car pulls away and drives its turning circle, both ways."""
    problems = []
    for i, sign in ((0, 1.0), (1, -1.0)):
        car = run.car(i)
        if not car.speed_kmh[-1] > PULLS_AWAY_KMH:
            problems.append(f"car {i}: {car.speed_kmh[-1]:.2f} km/h after {STALL_SECONDS} s")
        if not sign * math.degrees(car.heading[-1]) > TURNS_DEG:
            problems.append(f"car {i}: heading {math.degrees(car.heading[-1]):.1f} deg")
    return problems


def test_auto_clutch_force_in_003s_explanation():
    # 003: at 5% the auto-clutched engine pushes "about 1,000 N": capacity * 5% through 1st and the final drive.
    p = preset("manual003")
    force = p.clutch.capacity * AUTO_CLUTCH_SHARE * p.gearbox.ratios[0] * p.gearbox.final_drive / p.body.wheel_radius
    assert force == pytest.approx(AUTO_CLUTCH_FORCE, rel=0.1)


def test_full_lock_from_standstill_pulls_away_both_ways():
    run = stall_run()
    assert stall_problems(run) == []
    for i in range(2):
        assert np.abs(run.car(i).steer[-1]) == pytest.approx(preset("manual003").steering.lock)


def test_stall_check_fails_with_the_bug_put_back():
    run = stall_run(bugs003.full_lock_kernel())
    assert stall_problems(run) != []
    for i in range(2):
        assert np.abs(run.car(i).speed_kmh).max() < STALLED_KMH
