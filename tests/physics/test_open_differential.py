"""An open differential passes the same torque to both its wheels: where the engine is locked to a driven pair through
one, the wheels' own equations leave their tyres' forces apart by what turns the wheels apart, nothing more.

I_w d(omega_l - omega_r)/dt = -R (Fx_l - Fx_r) - (B_l - B_r), written out from the wheels' equations (the engine's
torque and inertia act on the pair's mean only), checked frame by frame on tail_happy braking in a turn (ISO 7975,
in gear, the clutch engaged), where the light inside rear tyre is deep in its slip and the outside one stiff. Each
wheel taking its own half of the engine's inertia in the body's step and in its follow, the engine passed the two
different torques: the rear forces 70-80 N apart beyond that balance at 1/120 s, a yaw moment inwards that moved the
test's heading deviation with dt (1.95, 1.89 and 1.84 deg at 1/120, 1/480 and 1/2000 s).
"""

from __future__ import annotations

import numpy as np
import pytest

from physics.presets import load_preset
from workbench.manoeuvres import catalogue
from workbench.manoeuvres.runner import Car, run_jobs

DT = 1.0 / 120.0
CHANNELS = ["t", "clutch", "brake", "wheel_speed_rl", "wheel_speed_rr", "fx_rl", "fx_rr", "brake_torque_rl",
            "brake_torque_rr", "abs_rl", "abs_rr", "tcs_rl", "tcs_rr", "esc_rl", "esc_rr", "gear"]


@pytest.fixture(scope="module")
def braking_in_a_turn():
    preset = load_preset("tail_happy")
    test = catalogue.CATALOGUE["iso7975"]
    kept = {}

    def runner(jobs):  # the test's own channels (its KPIs) and these
        kept["runs"] = run_jobs(jobs, sorted(set(test.channels) | set(CHANNELS)), dt=DT)
        return kept["runs"]

    test.run([Car(preset.params, preset.name, preset.path)], runner)
    run = kept["runs"][0]
    return preset.params, {c: np.asarray(run[c], dtype=float) for c in CHANNELS}


def test_an_open_differential_leaves_the_rear_forces_apart_only_by_what_turns_the_wheels_apart(braking_in_a_turn):
    p, f = braking_in_a_turn
    assert p.differential.kind == "open" and p.body.driven_axle == "rear"
    radius, inertia = p.body.wheel_radius, 0.5 * p.body.wheel_inertia_rear
    apart = np.diff(f["wheel_speed_rl"] - f["wheel_speed_rr"]) / DT  # over each frame: the next frame's start
    # The brake torque opposes the wheel's turning (forwards here): it slows it.
    brakes = (f["brake_torque_rl"] - f["brake_torque_rr"])[:-1]
    forces = (f["fx_rl"] - f["fx_rr"])[:-1]
    miss = inertia * apart + radius * forces + brakes
    aided = (f["abs_rl"] + f["abs_rr"] + f["tcs_rl"] + f["tcs_rr"] + f["esc_rl"] + f["esc_rr"])[:-1] > 0.0
    engaged = (f["clutch"][:-1] == 1.0) & (f["gear"][:-1] > 0) & ~aided
    braking = engaged & (f["brake"][:-1] > 0.0)
    assert braking.sum() > 360  # the test brakes in gear, the clutch engaged, for more than 3 s
    assert np.abs(radius * forces[braking]).max() > 20.0  # the rear tyres' forces apart [N m at the rims]
    # Exact but for rounding (1e-11 N m here); up to 26.7 N m (81 N at the tyres) before, as much as the difference.
    assert np.abs(miss[braking]).max() <= 1e-6, np.abs(miss[braking]).max()
