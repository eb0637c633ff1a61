"""The tyres' magic-formula curves in SIMD lanes (physics.tyre.magic_lanes): vectorised, and each lane the bits of the
scalar curve, so the frames that use them give the bits of physics.tyre.combined."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from helpers import DT, keys, preset

from physics import Simulation, approx, blend, build_kernel, four_wheel, records, tyre
from physics.jit import remembered, vector_doubles
from physics.kernel import KEPT, Workspace, default_kernel
from physics.records import param_records
from physics.step import DYNAMIC_KEPT, GRIP_KEPT, KEPT_CONTROLS

rng = np.random.default_rng(20261203)


def _record(car):
    """A car's parameter record, its fields read as attributes (as compiled code reads them)."""
    return param_records([car]).view(np.recarray)[0]


def _random_lanes() -> np.ndarray:
    lanes = np.zeros((tyre.LANE_ROWS, tyre.LANES))
    lanes[0] = rng.uniform(-2.0, 2.0, tyre.LANES) * rng.choice([1e-6, 1e-2, 1.0], tyre.LANES)
    lanes[1] = rng.uniform(4.0, 16.0, tyre.LANES)
    lanes[2] = rng.uniform(1.1, 2.0, tyre.LANES)
    lanes[3] = rng.uniform(-2.0, 1.0, tyre.LANES)
    lanes[4] = rng.uniform(0.0, 8000.0, tyre.LANES)
    return lanes


def test_every_lane_gets_the_bits_of_the_scalar_curve():
    for _ in range(300):
        lanes = _random_lanes()
        tyre.magic_lanes(lanes)
        one = np.array([tyre.magic(*lanes[:5, j]) for j in range(tyre.LANES)]).T
        assert np.array_equal(one.view(np.int64), lanes[5:].view(np.int64))


def test_the_lanes_loop_is_compiled_to_vector_instructions():
    """An uncached copy of the same source (numba shows no machine code of a function loaded from its cache)."""
    import numba

    copy = numba.njit(error_model="numpy")(tyre.magic_lanes.py_func)
    copy(_random_lanes())
    asm = copy.inspect_asm(copy.signatures[0])
    assert len(re.findall(r"\b[yz]mm\d+", asm)) > 50, "magic_lanes was not vectorised"


def test_a_four_wheel_corner_from_the_lanes_is_physics_tyre_combined():
    p = _record(preset("sedan"))
    lanes = np.zeros((tyre.LANE_ROWS, tyre.LANES))
    road = 1.0
    for _ in range(200):
        vx, vy, r = rng.uniform(-5.0, 40.0), rng.uniform(-3.0, 3.0), rng.uniform(-1.0, 1.0)
        corners = []
        for j, (x, y, front) in enumerate(((1.2, 0.8, True), (1.2, -0.8, True), (-1.5, 0.8, False),
                                           (-1.5, -0.8, False))):
            angle = rng.uniform(-0.5, 0.5) if front else 0.0
            load, mu = rng.uniform(1000.0, 6000.0), rng.uniform(0.3, 1.1)
            q = four_wheel.contact_slips(p, vx, vy, r, x, y, np.cos(angle), np.sin(angle), rng.uniform(-10, 130),
                                         load, mu, road, front)
            four_wheel.put_lanes(p, lanes, j, q)
            corners.append((q, load, mu))
        tyre.magic_lanes(lanes)
        for j, (q, load, mu) in enumerate(corners):
            k = four_wheel.lane_contact(p, lanes, j, q, load, mu)
            fx, fy, sx, _sy, sec, grip = tyre.combined(q.kappa, q.alpha, load, mu, p.tyres_lateral_share,
                                                       p.tyres_b_long, p.tyres_c_long, p.tyres_e_long, p.peak_long,
                                                       q.b_y, p.tyres_c, p.tyres_e, q.peak_y)
            assert (k.fx, k.fy, k.sx, k.sec, k.grip) == (fx, fy, sx, sec, grip)


def test_the_single_track_frame_gives_the_forces_of_physics_tyre_combined():
    car = preset("sedan_single_track")
    sim = Simulation(car, dt=DT)
    p = _record(car)
    for frame in range(600):
        t = sim.step(keys("throttle", "left" if frame < 400 else "right"))
        for axle, b, peak in (("front", p.tyres_b_front, p.peak_front), ("rear", p.tyres_b_rear, p.peak_rear)):
            _fx, _fy, _sx, _sy, _sec, grip = tyre.combined(
                float(getattr(t, f"slip_ratio_{axle}")[0]), float(getattr(t, f"slip_{axle}")[0]),
                float(getattr(t, f"load_{axle}")[0]), float(getattr(t, f"mu_{axle}")[0]), p.tyres_lateral_share,
                p.tyres_b_long, p.tyres_c_long, p.tyres_e_long, p.peak_long, b, p.tyres_c, p.tyres_e, peak)
            # The grip is the curves' at the frame's slips, bit for bit (the force channel is the one the body's step
            # applied, the curve's moved along its slope: tests/physics/test_lateral_balance.py).
            assert grip == getattr(t, f"grip_{axle}")[0], (frame, axle)


@pytest.mark.parametrize("name", ["manual003", "classic"])
def test_the_003_frame_gives_the_forces_of_physics_tyre_pacejka(name):
    """The 002/003 single-track model's two axles in lanes: each axle's force is pacejka's, blended as before."""
    car = preset(name)
    sim = Simulation(car, dt=DT)
    p = _record(car)
    for frame in range(900):
        held = {"throttle", "gear_up", "clutch"} if frame < 30 else {"throttle", "left" if frame < 600 else "right"}
        t = sim.step(keys(*held))
        weight = blend.tyre_force_weight(float(t.kinematic_weight[0]))
        curve = {}
        for axle, b in (("front", p.tyres_b_front), ("rear", p.tyres_b_rear)):
            fy, _slope = tyre.pacejka(float(getattr(t, f"slip_{axle}")[0]), float(getattr(t, f"load_{axle}")[0]), b,
                                      p.tyres_c, p.tyres_e, p.tyres_mu)
            curve[axle] = weight * fy
        # The grip channels are the curves' at the frame's slips, bit for bit (physics.step.rolling_wheels; the force
        # channels are the forces the body's step applied: tests/physics/test_lateral_balance.py).
        load_f, load_r = float(t.load_front[0]), float(t.load_rear[0])
        assert t.grip_front[0] == min(abs(curve["front"]) / (p.tyres_mu * load_f), 1.0), frame
        assert t.grip_rear[0] == min(approx.hypot(float(t.drive_force[0]) / (p.tyres_traction_mu * load_r),
                                                  curve["rear"] / (p.tyres_mu * load_r)), 1.0), frame
    assert np.max(np.abs(sim.channel("grip_front"))) > 0.1


@pytest.mark.parametrize("path", ["tyre.combined", "tyre.magic", "tyre.pacejka"])
def test_a_variant_of_a_curve_the_frames_run_in_lanes_is_refused_with_what_to_replace(path):
    with pytest.raises(ValueError, match="replace tyre.magic_lanes for the curve"):
        build_kernel({path: lambda *args: args[0]})


def test_a_variant_no_frame_calls_is_refused():
    with pytest.raises(ValueError, match="do not call it"):
        build_kernel({"kinematic.rear_axle_radius": lambda delta, wheelbase: wheelbase})


def _held_keys(frames: int, n: int, seed: int) -> np.ndarray:
    """(frames, n) inputs: throttle, brake, steering and the handbrake held in random spells of 30 frames."""
    keys_rng = np.random.default_rng(seed)
    inputs = np.zeros((frames, n), dtype=records.INPUTS)
    for key in ("throttle", "brake", "left", "right", "handbrake"):
        holds = keys_rng.random((frames // 30 + 1, n)) < (0.6 if key in ("throttle", "left", "right") else 0.1)
        inputs[key] = np.repeat(holds, 30, axis=0)[:frames]
    return inputs


# A four-wheel car first, then single-track cars of each kind: combined slip (four lanes), 002/003 (two lanes), the
# kinematic bicycle (none), and 002 again.
MIXED = ["sedan", "sedan_single_track", "manual003", "teaching", "classic"]
UNUSED = -7.0  # what the lanes a car's frames must not touch start as


def _mixed_run(narrow: int, parallel: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The telemetry of MIXED driven for 4 s in one batch with single-track lanes ``narrow`` wide, the lanes, and what
    the cars kept between the two parts of their frames."""
    # One record array of cars of every layout: a Simulation's batch is of one layout, the kernel takes any.
    sims = [Simulation(preset(name), dt=DT) for name in MIXED]
    params = np.concatenate([sim.car.records for sim in sims])
    state = np.concatenate([sim.state.view(np.ndarray) for sim in sims])
    n = len(MIXED)
    work = Workspace(n)
    work.narrow = narrow
    work.lanes[...] = UNUSED
    inputs = _held_keys(480, n, seed=7)
    telemetry = np.empty(inputs.shape, dtype=records.TELEMETRY)
    work.kept[...] = UNUSED
    default_kernel().run(params, state, inputs, telemetry, DT, 0, parallel=parallel, work=work)
    return telemetry, work.lanes, work.kept


@pytest.mark.parametrize("parallel", [False, True])
def test_a_batch_gives_the_same_bits_however_wide_the_single_track_lanes(parallel):
    """A group of single-track neighbours computes its tyres' curves in one call, over as many lanes as they fill
    rounded up to whole vector registers (physics.tyre.narrow()); a four-wheel car uses eight lanes of its own. The
    width changes the speed, never the bits; and each car's frames use its group's scratch space and nothing past
    it (physics.kernel._block_two)."""
    wide, _, _ = _mixed_run(tyre.LANES, parallel)
    assert np.all(np.isfinite(wide.view(np.float64))) and np.ptp(wide["speed"], axis=0).min() > 0.3
    rows = tyre.LANE_ROWS
    for narrow in (4, 5, tyre.LANES):
        narrow_run, lanes, held = _mixed_run(narrow, parallel)
        assert narrow_run.tobytes() == wide.tobytes(), narrow
        if parallel:  # the threads' ranges cut the groups where they fall: the same bits, other groups
            continue
        # MIXED's groups in one range: the four-wheel car alone (its own row), the combined car and manual003 side by
        # side (four lanes and two), the kinematic bicycle alone (no lanes), classic alone (two lanes).
        assert not np.any(lanes[0, :rows * tyre.LANES] == UNUSED) and np.all(lanes[0, rows * tyre.LANES:] == UNUSED)
        assert np.all(lanes[3] == UNUSED), narrow
        # Each car keeps its controls and what its frame's first part found (29 floats for the combined car, 15 for
        # the 002/003 one: step.GripCurves, step.DynamicCurves), then whether it still runs; the others keep nothing.
        assert (GRIP_KEPT, DYNAMIC_KEPT) == (29, 15)
        for car, fill in ((1, KEPT_CONTROLS + GRIP_KEPT), (2, KEPT_CONTROLS + DYNAMIC_KEPT),
                          (4, KEPT_CONTROLS + DYNAMIC_KEPT)):
            assert not np.any(held[car, :fill] == UNUSED) and np.all(held[car, fill:KEPT] == UNUSED), (narrow, car)
            assert held[car, KEPT] == 1.0  # ran to the end
        assert np.all(held[[0, 3]] == UNUSED)
        for group, used in (([1, 2], 6), ([4], 2)):
            width = -(-used // narrow) * narrow
            space = lanes[group].reshape(-1)
            curves = space[:rows * width].reshape(rows, width)
            assert not np.any(curves[:5, :used] == UNUSED) and not np.any(curves[5:] == UNUSED), (narrow, group)
            assert np.all(space[rows * width:] == UNUSED), (narrow, group)


def test_the_single_track_lanes_are_one_vector_register():
    def never():
        raise AssertionError("only an AVX-512 machine asks whether loops fill zmm registers")

    assert vector_doubles("+avx,+avx2,+fma,-avx512f,+sse4.2", never) == 4
    assert vector_doubles("+sse2,-avx512fp16", never) == 4  # a feature named like it is not AVX-512 itself
    assert vector_doubles("", never) == 4
    # AVX-512, and the compiler fills 512-bit registers (8 doubles) or prefers 256-bit ones (4)
    assert vector_doubles("+avx2,+avx512f,+avx512vl", lambda: True) == 8
    assert vector_doubles("+avx2,+avx512f,+avx512vl", lambda: False) == 4
    assert tyre.narrow() == vector_doubles() and tyre.narrow() in (4, 8)


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python compiles no loop")
def test_the_zmm_probe_reads_what_the_compiler_made():
    from numba.core.codegen import get_host_cpu_features

    from physics.jit import _loops_fill_zmm

    features = get_host_cpu_features().split(",")
    fills = _loops_fill_zmm()
    assert isinstance(fills, bool)
    if "+avx512f" not in features:
        assert not fills  # no zmm register to fill
    if "+avx2" in features:  # the probe reads the registers the compiler used: 256-bit ones, or 512-bit where the
        # machine has AVX-512 and the compiler does not prefer 256 bits (an AMD EPYC with AVX-512 used zmm alone)
        assert _loops_fill_zmm("ymm") or (fills and "+avx512f" in features)


def test_the_probes_answer_is_kept_for_the_next_process(tmp_path):
    asked = []

    def ask(answer):
        def probe():
            asked.append(answer)
            return answer
        return probe

    def never():
        raise AssertionError("asked again: the kept answer was not read")

    features = "+avx2,+avx512f"
    assert remembered(ask(True), features, tmp_path) is True
    (kept,) = tmp_path.iterdir()
    assert kept.read_text() == "1" and asked == [True]
    assert remembered(never, features, tmp_path) is True  # read back, not asked
    # another feature string (NUMBA_CPU_FEATURES, NUMBA_ENABLE_AVX=0) is another question
    assert remembered(ask(False), features + ",-avx512vl", tmp_path) is False
    assert remembered(never, features + ",-avx512vl", tmp_path) is False
    assert len(list(tmp_path.iterdir())) == 2
    # a damaged file is asked again and mended
    kept.write_text("yes")
    assert remembered(ask(True), features, tmp_path) is True and asked == [True, False, True]
    assert kept.read_text() == "1"
    # the file is made with the umask's permissions, and no temporary file is left
    assert kept.stat().st_mode & 0o777 == 0o666 & ~_umask()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("damage", ["huge", "fifo", "device", "folder", "two bytes"])
def test_a_kept_answer_that_is_not_a_small_file_is_asked_again_without_reading_it(tmp_path, damage):
    """A file grown to gigabytes was read whole (every command ran out of memory); a FIFO in its place hung it."""
    features = "+avx512f"
    assert remembered(lambda: True, features, tmp_path) is True
    (kept,) = tmp_path.iterdir()
    kept.unlink()
    if damage == "huge":
        with open(kept, "wb") as handle:
            handle.truncate(1 << 40)  # a sparse terabyte: reading it whole would never end
    elif damage == "fifo":
        os.mkfifo(kept)
    elif damage == "device":
        kept.symlink_to("/dev/zero")
    elif damage == "folder":
        kept.mkdir()
    else:
        kept.write_text("10")
    asked = []
    assert remembered(lambda: asked.append(1) or False, features, tmp_path) is False
    assert asked == [1]
    if damage != "folder":  # put right where it can be: the next process reads it
        assert kept.is_file() and not kept.is_symlink() and kept.read_text() == "0"


def test_a_folder_that_cannot_be_written_asks_each_time(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the folder would be: mkdir fails whatever the user's rights
    asked = []

    def probe():
        asked.append(1)
        return True

    assert remembered(probe, "+avx512f", blocked / "cache") is True
    assert remembered(probe, "+avx512f", blocked / "cache") is True
    assert asked == [1, 1]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("narrow", [3, tyre.LANES + 1])
def test_single_track_lanes_too_few_or_too_many_are_refused(narrow):
    sim = Simulation(preset("sedan_single_track"), dt=DT)
    work = Workspace(1)
    work.narrow = narrow
    inputs = _held_keys(4, 1, seed=1)
    with pytest.raises(ValueError, match="single-track car needs 4 to 8"):
        default_kernel().run(sim.car.records, sim.state.view(np.ndarray).copy(), inputs,
                             np.empty(inputs.shape, dtype=records.TELEMETRY), DT, 0, work=work)
