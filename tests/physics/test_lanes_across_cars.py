"""SIMD lanes across cars (physics.kernel._block_two): a batch runs groups of single-track neighbours side by side, frame by
frame, their tyres' curves computed in one call. A car gets the bits it gets alone, in any position of any group, on
any number of threads; a car the guard stops leaves its group's other cars running; a variant of the curves reaches
every car of a group."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import DT, preset

from physics import NonFiniteError, Simulation, build_kernel, max_threads, records, set_threads, threads, tyre
from physics.kernel import GROUP, Workspace, default_kernel

# Single-track cars of both two-part kinds (the combined car's four lanes, the 002/003 car's two) with different
# parameters, and cars whose frames run whole (four wheels, the kinematic bicycle) between them: groups of every size
# and mix, cut by the whole-frame cars and by GROUP.
LINEUP = (["sedan_single_track"] * 3 + ["manual003", "sedan", "classic"] + ["sedan_single_track", "manual003"] * 5
          + ["teaching", "f1tenth", "sedan_single_track"])


def _cars(names):
    """Parameter records and start states for ``names``, each car's mass its own (no two alike)."""
    params, states = [], []
    for j, name in enumerate(names):
        car = preset(name)
        car = car.with_value("body.mass", car.body.mass * (1.0 + 0.013 * j))
        sim = Simulation(car, dt=DT)
        params.append(sim.car.records)
        states.append(sim.state.view(np.ndarray))
    return np.concatenate(params), np.concatenate(states)


def _keys(frames: int, n: int, seed: int) -> np.ndarray:
    """Throttle, brake, steering and the handbrake held in random spells of 20 frames, each car its own."""
    rng = np.random.default_rng(seed)
    inputs = np.zeros((frames, n), dtype=records.INPUTS)
    for key, share in (("throttle", 0.7), ("brake", 0.1), ("left", 0.4), ("right", 0.3), ("handbrake", 0.05)):
        inputs[key] = np.repeat(rng.random((frames // 20 + 1, n)) < share, 20, axis=0)[:frames]
    return inputs


def _run(params, state, inputs, parallel=False):
    params, inputs = np.ascontiguousarray(params), np.ascontiguousarray(inputs)
    telemetry = np.empty(inputs.shape, dtype=records.TELEMETRY)
    state = state.copy()
    default_kernel().run(params, state, inputs, telemetry, DT, 0, parallel=parallel, work=Workspace(len(state)))
    return telemetry, state


@pytest.mark.parametrize("parallel", [False, True])
def test_a_car_gets_the_bits_it_gets_alone_in_any_position_of_any_group(parallel):
    if parallel and max_threads() < 2:
        pytest.skip("needs two threads")
    n = len(LINEUP)
    params, state = _cars(LINEUP)
    inputs = _keys(360, n, seed=8117)
    before = threads()
    set_threads(2 if parallel else 1)
    try:
        batch, end = _run(params, state, inputs, parallel)
        order = np.random.default_rng(3).permutation(n)  # the same cars, every one in another place and group
        shuffled, shuffled_end = _run(params[order], state[order], inputs[:, order], parallel)
    finally:
        set_threads(before)
    assert np.ptp(batch["speed"], axis=0).min() > 0.2  # every car moved, and not all alike
    assert len({batch["speed"][-1, i] for i in range(n)}) == n
    for i in range(n):
        alone, alone_end = _run(params[i:i + 1], state[i:i + 1], inputs[:, i:i + 1])
        assert batch[:, i].tobytes() == alone[:, 0].tobytes(), (i, LINEUP[i])
        assert end[i].tobytes() == alone_end[0].tobytes(), (i, LINEUP[i])
        j = int(np.flatnonzero(order == i)[0])
        assert shuffled[:, j].tobytes() == alone[:, 0].tobytes(), (i, j, LINEUP[i])
        assert shuffled_end[j].tobytes() == alone_end[0].tobytes()


@pytest.mark.parametrize("name", ["sedan_single_track", "manual003"])
def test_a_car_the_guard_stops_leaves_the_rest_of_its_group_running(name):
    params, state = _cars([name] * GROUP)
    inputs = _keys(50, GROUP, seed=41)
    clean, _ = _run(params, state, inputs)
    sim_state = state.copy()
    head = np.empty((10, GROUP), dtype=records.TELEMETRY)
    default_kernel().run(params, sim_state, inputs[:10].copy(), head, DT, 0, work=Workspace(GROUP))
    sim_state["rpm"][3] = np.nan
    out = np.zeros((40, GROUP), dtype=records.TELEMETRY)
    with pytest.raises(NonFiniteError, match="channel 'rpm' of car 3 became non-finite at frame 10"):
        default_kernel().run(params, sim_state, inputs[10:].copy(), out, DT, 10, work=Workspace(GROUP))
    for channel in records.TELEMETRY.names:  # nothing written for the stopped car
        assert np.all(out[:, 3][channel] == 0.0), channel
    others = [i for i in range(GROUP) if i != 3]
    assert out[:, others].tobytes() == clean[10:, others].tobytes()  # its neighbours ran every frame, as without it


def _most(kernel, name: str, n: int, channel: str) -> np.ndarray:
    """The largest size of front-tyre ``channel`` of each of ``n`` cars ``name`` pulling away on full lock for 7.5 s
    (past the 002 car's kinematic blend, on the tyres)."""
    sim = Simulation(preset(name), n=n, dt=DT, kernel=kernel)
    block = np.zeros((900, n), dtype=records.INPUTS)
    block["throttle"] = block["left"] = True
    return np.abs(sim.run(block)[channel]).max(axis=0)


def test_a_variant_of_the_curves_reaches_every_car_of_a_group_and_the_four_wheel_car():
    def no_force(lanes):  # every curve flat: no tyre force, the slope kept finite
        for j in range(lanes.shape[1]):
            lanes[5, j] = 0.0
            lanes[6, j] = 1.0

    flat = build_kernel({"tyre.magic_lanes": no_force})
    for name in ("classic", "sedan_single_track", "sedan"):
        for n in (1, 3, GROUP + 2):
            # The share of its grip the tyre uses, the curves' force over mu Fz (not the force channel: that is the
            # force the body's step applied, which a tyre's slope at zero slip moves from zero on a flat curve too).
            assert np.all(_most(default_kernel(), name, n, "grip_front") > 0.1), (name, n)
            assert np.all(_most(flat, name, n, "grip_front") == 0.0), (name, n)
    assert tyre.magic_lanes.py_func is not no_force


def test_a_variant_of_the_road_under_the_tyres_reaches_both_layouts():
    """physics.surface.under_rows, which the single-track frame's first part and the four-wheel frame both call:
    replaced, both see it (the frame that calls the four-wheel frame is compiled again with it)."""
    def slippery(ground, row, rows, x, y, mu, rolling):  # no surface: the car's own grip, a third of it
        return mu / 3.0, rolling

    kernel = build_kernel({"surface.under_rows": slippery})
    for name in ("sedan_single_track", "sedan"):
        before, after = _most(default_kernel(), name, 2, "fy_front"), _most(kernel, name, 2, "fy_front")
        assert np.all(after < 0.6 * before), (name, before, after)


def test_driven_cars_and_cars_on_laid_surfaces_get_their_own_bits_in_a_group():
    """Scripts replayed in one batch on the single-track sedan: closed-loop drivers on some cars and not on others,
    road surfaces under some, in groups cut by GROUP. Each run is the bits of the script replayed alone."""
    from physics.presets import scripts_dir
    from workbench.runs.replay import run_batch
    from workbench.scripts.format import load_script
    from workbench.scripts.program import compile_script

    lineup = ["iso4138_circle", "full_lock_left", "split_mu_braking", "clutch_coast", "iso7401_step",
              "split_mu_braking", "braking_grip", "iso3888_2", "iso4138_circle"]  # a batch is of one layout
    programs = [compile_script(load_script(scripts_dir() / f"{name}.toml"), "sedan_single_track") for name in lineup]
    assert {p.dt for p in programs} == {DT}
    driven = [p.drive is not None and bool(p.drive.record["on"]) for p in programs]
    assert 3 <= sum(driven) < len(programs)  # some driven, some not
    together = run_batch(programs)
    for j, program in enumerate(programs):
        (alone,) = run_batch([program])
        mine = together[j].log.matrix(together[j].car, program.frames)
        assert together[j].car == j and mine.tobytes() == alone.log.matrix(0, program.frames).tobytes(), lineup[j]
        assert [v.passed for v in together[j].verdicts] == [v.passed for v in alone.verdicts]


# Plain Python: one car steered and paced by the closed-loop driver of ``argv[2]`` (a shipped script, on the
# single-track sedan), each frame whole (physics.step.car_frame) as the kernel ran it before the two parts.
DRIVEN_WHOLE = """
import sys
import numpy as np
from physics import Simulation, driver, records
from physics.kernel import ALL, asks_detail
from physics.presets import scripts_dir
from physics.step import car_frame, detail_channels
from physics.tyre import LANE_ROWS, LANES
from workbench.scripts.driving import drivers_of
from workbench.scripts.format import load_script
from workbench.scripts.program import compile_script

program = compile_script(load_script(scripts_dir() / (sys.argv[2] + ".toml")), "sedan_single_track")
frames, dt = int(sys.argv[3]), program.dt
drivers, track = drivers_of([program.drive])
d = drivers.view(np.recarray)[0]
sim = Simulation(program.params, dt=dt)
p = sim.car.records.view(np.recarray)[0]
state = sim.state.view(np.ndarray).copy().view(np.recarray)
new = state.copy()
u = np.zeros(1, dtype=records.INPUTS).view(np.recarray)
v = np.zeros(1, dtype=records.INPUTS).view(np.recarray)
telemetry = np.zeros(1, dtype=records.TELEMETRY).view(np.recarray)
out = np.zeros(frames, dtype=records.TELEMETRY)
lanes, road = np.zeros((LANE_ROWS, LANES)), np.zeros((0, 4))
for k in range(frames):
    look = driver.drive(d, track, p, state[0], u[0], v[0], dt, k * dt)
    car_frame(p, state[0], v[0], new[0], telemetry[0], dt, k * dt, road, lanes)
    detail_channels(p, state[0], telemetry[0], asks_detail(ALL))
    driver.carry(look, new[0], telemetry[0])
    out[k] = telemetry[0]
    state[0] = new[0]
np.save(sys.argv[1], out)
"""


def test_a_driven_car_in_a_group_gets_the_bits_of_its_whole_frames(tmp_path):
    """The closed-loop driver's inputs reach both parts of a grouped car's frame, and its memory and channels are
    those of whole frames (plain Python, physics.step.car_frame): the driven car beside a keyboard script's."""
    import os
    import subprocess
    import sys

    from physics.presets import scripts_dir
    from workbench.runs.replay import run_batch
    from workbench.scripts.format import load_script
    from workbench.scripts.program import compile_script

    frames = 360
    path = tmp_path / "driven.npy"
    done = subprocess.run([sys.executable, "-c", DRIVEN_WHOLE, str(path), "iso4138_circle", str(frames)],
                          env=dict(os.environ, NUMBA_DISABLE_JIT="1"), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    whole = np.load(path)
    programs = [compile_script(load_script(scripts_dir() / f"{name}.toml"), "sedan_single_track")
                for name in ("full_lock_left", "iso4138_circle", "full_lock_left")]
    (_, driven, _) = run_batch(programs)
    assert np.abs(whole["target_speed"]).max() > 5.0 and np.abs(whole["steer"]).max() > 0.01  # it drove, and steered
    for name in records.TELEMETRY.names:
        assert np.array_equal(driven.column(name)[:frames].view(np.int64), whole[name].view(np.int64)), name
