"""SIMD lanes across cars (physics.kernel._block): a batch runs groups of single-track neighbours side by side, frame by
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


def test_a_variant_of_the_curves_reaches_every_car_of_a_group():
    def no_force(lanes):  # every curve flat: no tyre force, the slope kept finite
        for j in range(lanes.shape[1]):
            lanes[5, j] = 0.0
            lanes[6, j] = 1.0

    flat = build_kernel({"tyre.magic_lanes": no_force})
    for n in (1, 3, GROUP + 2):
        for kernel, turns in ((default_kernel(), True), (flat, False)):
            sim = Simulation(preset("classic"), n=n, dt=DT, kernel=kernel)
            block = np.zeros((900, n), dtype=records.INPUTS)  # 7.5 s: past the kinematic blend, on the tyres
            block["throttle"] = block["left"] = True
            lateral = np.abs(sim.run(block)["fy_front"]).max(axis=0)
            assert np.all(lateral > 100.0) if turns else np.all(lateral == 0.0), (n, turns)
    assert tyre.magic_lanes.py_func is not no_force


# Plain Python (nothing compiles): each car's frames by physics.step.car_frame, the frame in one piece, as the kernel's
# loop ran it before the two parts. Writes the telemetry of every frame to argv[1].
WHOLE_FRAMES = """
import sys
import numpy as np
from physics import Simulation, driver, load_preset, records
from physics.kernel import ALL, asks_detail
from physics.step import car_frame, detail_channels
from physics.tyre import LANE_ROWS, LANES

names, frames = sys.argv[2].split(","), int(sys.argv[3])
rng = np.random.default_rng(int(sys.argv[4]))
out = np.zeros((frames, len(names)), dtype=records.TELEMETRY)
for i, name in enumerate(names):
    sim = Simulation(load_preset(name).params, dt=float(sys.argv[5]))
    p = sim.car.records.view(np.recarray)[0]
    state = sim.state.view(np.ndarray).copy().view(np.recarray)
    state["vx"] = 12.0  # under way: the tyres' forces count from the first frame (no kinematic blend)
    state["wheel_front"] = state["wheel_rear"] = 12.0 / p.body_wheel_radius
    new = state.copy()
    u = np.zeros(1, dtype=records.INPUTS).view(np.recarray)
    telemetry = np.zeros(1, dtype=records.TELEMETRY).view(np.recarray)
    lanes = np.zeros((LANE_ROWS, LANES))
    road = np.zeros((0, 4))
    held = rng.random((frames // 20 + 1, 5)) < [0.7, 0.1, 0.4, 0.3, 0.05]
    for k in range(frames):
        for j, key in enumerate(("throttle", "brake", "left", "right", "handbrake")):
            u[key] = held[k // 20, j]
        look = driver.idle(state[0])
        car_frame(p, state[0], u[0], new[0], telemetry[0], float(sys.argv[5]), k * float(sys.argv[5]), road, lanes)
        detail_channels(p, state[0], telemetry[0], asks_detail(ALL))
        driver.carry(look, new[0], telemetry[0])
        out[k, i] = telemetry[0]
        state[0] = new[0]
np.save(sys.argv[1], out)
"""


def test_the_two_parts_of_a_frame_are_the_whole_frame(tmp_path):
    """The kernel's single-track frames, in two parts side by side (compiled), give the bits of physics.step.car_frame
    run whole, one car at a time (plain Python): what a car keeps between its parts comes back field by field."""
    import os
    import subprocess
    import sys

    names, frames, seed = ["sedan_single_track", "manual003", "classic"], 180, 5
    path = tmp_path / "whole.npy"
    done = subprocess.run([sys.executable, "-c", WHOLE_FRAMES, str(path), ",".join(names), str(frames), str(seed),
                           repr(DT)], env=dict(os.environ, NUMBA_DISABLE_JIT="1"), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    whole = np.load(path)
    rng = np.random.default_rng(seed)
    inputs = np.zeros((frames, len(names)), dtype=records.INPUTS)
    for i in range(len(names)):
        held = rng.random((frames // 20 + 1, 5)) < [0.7, 0.1, 0.4, 0.3, 0.05]
        for j, key in enumerate(("throttle", "brake", "left", "right", "handbrake")):
            inputs[key][:, i] = np.repeat(held[:, j], 20)[:frames]
    params, state = [], []
    for name in names:
        sim = Simulation(preset(name), dt=DT)
        params.append(sim.car.records)
        start = sim.state.view(np.ndarray).copy()
        start["vx"] = 12.0
        start["wheel_front"] = start["wheel_rear"] = 12.0 / sim.car.records["body_wheel_radius"]
        state.append(start)
    batch, _ = _run(np.concatenate(params), np.concatenate(state), inputs)
    # every car turned on its tyres, and braked or pulled
    assert np.abs(batch["fy_front"]).max(axis=0).min() > 500.0 and np.ptp(batch["speed"], axis=0).min() > 0.2
    assert batch.tobytes() == whole.tobytes()
