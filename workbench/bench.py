"""``carbench bench``: the performance figures of SPEC section 7, measured on the machine at hand.

Every figure is a median of repeated runs. The peer, where one exists, is CommonRoad's
single-track model (``commonroad-vehicle-models``, the ``bench`` extra) stepped with explicit
Euler from Python, measured in the same run; it is skipped with a note when not installed.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from physics import Inputs, Simulation, default_kernel, load_preset, max_threads, set_threads, threads
from physics.presets import scripts_dir
from physics.records import INPUTS, inputs_records
from physics.tyre import narrow
from workbench.runs.replay import _InputTrack, replay
from workbench.scripts.format import load_script
from workbench.scripts.program import compile_script

DT = 1.0 / 120.0
TARGET_REPLAY_US = 2.0  # [us per frame] one sedan, every channel recorded
TARGET_STEP_US = 2.0  # [us] the interactive single step from Python (SPEC 7)
TARGET_WINDOW_STEP_US = 5.0  # [us] the window's step: LiveSession.step with keys held, logged and recorded in its history
TARGET_BATCH = 5_000_000.0  # [car-steps/s] sedan, N = 100,000
BATCH_N = 100_000
TARGET_RERUN_S = 0.3  # [s] a 10-second script re-run after an edit, two references pinned


CPU = {}  # figure name -> median CPU seconds of this process over the same runs (see _median)


def _median(fn, repeats: int, name: str | None = None) -> float:
    """Median wall seconds of ``fn``; with ``name``, the median CPU seconds go to CPU[name].

    On a shared machine the wall time includes waiting for a core; the CPU time does not (for a
    batch on several threads it is the sum over the threads).
    """
    samples, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        samples.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    if name is not None:
        CPU[name] = statistics.median(cpu)
    return statistics.median(samples)


def compile_time() -> dict:
    """Seconds to get the kernel's one compilation (from the cache unless it was empty): one car and batches on
    any number of threads run the same block."""
    return {"kernel_s": default_kernel().compile()}


def replay_figures(script: str, repeats: int) -> dict:
    """One car's replay with every channel recorded: the kernel alone, and `replay` with its verdicts."""
    program = compile_script(load_script(scripts_dir() / script))
    track = _InputTrack([program], program.frames)

    def kernel_only():
        Simulation(program.params, dt=program.dt).run(track.records)

    kernel_wall = _median(kernel_only, repeats, "kernel")
    replay_wall = _median(lambda: replay([program]), repeats, "replay")
    simulated = program.frames * program.dt
    return {"script": script, "frames": program.frames,
            "kernel_us_per_frame": kernel_wall / program.frames * 1e6, "kernel_x_real_time": simulated / kernel_wall,
            "replay_us_per_frame": replay_wall / program.frames * 1e6, "replay_x_real_time": simulated / replay_wall,
            "cpu_kernel_us_per_frame": CPU["kernel"] / program.frames * 1e6,
            "cpu_replay_us_per_frame": CPU["replay"] / program.frames * 1e6}


def step_us(preset: str, steps: int, repeats: int) -> float:
    """Median µs of Simulation.step for one car with a prebuilt Inputs (throttle and steering held)."""
    sim = Simulation(load_preset(preset).params, n=1, dt=DT)
    inputs = Inputs.from_keys(1, {"throttle", "left"})
    for _ in range(20):
        sim.step(inputs)

    def steps_():
        for _ in range(steps):
            sim.step(inputs)

    wall = _median(steps_, repeats, f"step {preset}") / steps * 1e6
    CPU[f"step {preset}"] *= 1e6 / steps
    return wall


def window_step_us(preset: str, steps: int, repeats: int) -> float:
    """Median µs of the window's step, LiveSession.step with throttle and steering held (history and log included)."""
    from workbench.runs.live import LiveSession

    session = LiveSession(preset)
    keys = {"throttle", "left"}
    for _ in range(20):
        session.step(keys)

    walls, cpus = [], []
    for _ in range(repeats):
        session.reset()  # every repeat from rest with an empty history, outside the timing
        start, start_cpu = time.perf_counter(), time.process_time()
        for _ in range(steps):
            session.step(keys)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - start_cpu)
    CPU[f"window step {preset}"] = statistics.median(cpus) / steps * 1e6
    return statistics.median(walls) / steps * 1e6


ASKED = ("speed_kmh", "yaw_rate")  # what the bench's sweep script asks for: one expectation and one measure


def _held_keys(frames: int, n: int) -> np.ndarray:
    """(frames, n) INPUTS with throttle and left held by every car on every frame."""
    block = np.zeros((frames, n), dtype=INPUTS)
    inputs_records(Inputs.from_keys(n, {"throttle", "left"}), block[:1])
    block[:] = block[0]
    return block


def _batch_key(n_threads: int, preset: str, channels: tuple[str, ...] | None) -> str:
    """The name of a batch figure in CPU."""
    return f"batch {n_threads}" + ("" if preset == "sedan" else f" {preset}") + ("" if channels is None else " asked")


def batch_rate(n: int, n_threads: int, frames: int, repeats: int, preset: str = "sedan",
               channels: tuple[str, ...] | None = None) -> float:
    """Car-steps per second of ``preset`` at batch size ``n`` on ``n_threads`` threads, storing every channel
    or only ``channels``."""
    before = threads()
    set_threads(n_threads)
    try:
        sim = Simulation(load_preset(preset).params, n=n, dt=DT, parallel=True)
        block = _held_keys(frames, n)
        if channels is None:
            telemetry = np.empty(block.shape, dtype=sim.run(block[:1]).dtype)
        else:
            telemetry = np.empty((frames, n, len(channels)))
        sim.run(block, telemetry, channels=channels)  # pull away first
        key = _batch_key(n_threads, preset, channels)
        wall = _median(lambda: sim.run(block, telemetry, channels=channels), repeats, key)
    finally:
        set_threads(before)
    CPU[key] = n * frames / CPU[key]  # car-steps per CPU second
    return n * frames / wall


def one_car_kernel_us(preset: str, frames: int, repeats: int) -> float:
    """Median µs per frame of one car's kernel over a block of frames (throttle and steering held), every
    channel stored: the kernel alone, as a replay runs it."""
    block = _held_keys(frames, 1)
    sim = Simulation(load_preset(preset).params, dt=DT)
    start = sim.state.copy()
    telemetry = sim.run(block)

    def once():
        sim.restore(start, 0)  # from rest each time, without building a Simulation inside the timing
        sim.run(block, telemetry)

    wall = _median(once, repeats, f"kernel {preset}")
    CPU[f"kernel {preset}"] *= 1e6 / frames
    return wall / frames * 1e6


# The model's transcendentals (physics.approx) against the C library's, each over values in the range a car sees.
MATHS = {"atan": (-4.0, 4.0), "atan2": (-3.0, 3.0), "sincos": (-math.pi, math.pi), "tan": (-1.5, 1.5),
         "exp": (-5.0, 5.0), "log": (0.01, 100.0), "hypot": (-100.0, 100.0)}


def _maths_loop(fn, arity: int, pair: bool):
    """A compiled loop writing ``fn`` of each element (of each pair of elements) into ``o1`` (and ``o2``)."""
    import numba

    if pair:
        def loop(x, y, o1, o2):
            for i in range(x.size):
                o1[i], o2[i] = fn(x[i])
    elif arity == 2:
        def loop(x, y, o1, o2):
            for i in range(x.size):
                o1[i] = fn(x[i], y[i])
    else:
        def loop(x, y, o1, o2):
            for i in range(x.size):
                o1[i] = fn(x[i])
    return numba.njit(error_model="numpy")(loop)


def _c_library(name: str):
    import numba

    c = {"atan": lambda x: math.atan(x), "atan2": lambda y, x: math.atan2(y, x),
         "sincos": lambda x: (math.sin(x), math.cos(x)), "tan": lambda x: math.tan(x), "exp": lambda x: math.exp(x),
         "log": lambda x: math.log(x), "hypot": lambda x, y: math.hypot(x, y)}[name]
    return numba.njit(error_model="numpy")(c)


def maths_figures(n: int, repeats: int) -> dict:
    """Per function: ns per value of the C library's in a compiled loop, and of physics.approx's in the same loop,
    which the compiler vectorises (lanes of values); the largest difference between the two [ulp]; and whether each
    lane gave the bits of a call with one value."""
    from physics import approx

    rng = np.random.default_rng(7)
    out = {}
    for name, (lo, hi) in MATHS.items():
        arity, pair = (2 if name in ("atan2", "hypot") else 1), name == "sincos"
        x, y = rng.uniform(lo, hi, n), rng.uniform(lo, hi, n)
        ours, theirs = np.empty((2, n)), np.empty((2, n))
        lanes = _maths_loop(getattr(approx, name), arity, pair)
        scalar_c = _maths_loop(_c_library(name), arity, pair)
        figures = {}
        for label, loop, into in (("c_library", scalar_c, theirs), ("approx_lanes", lanes, ours)):
            loop(x, y, into[0], into[1])
            figures[f"{label}_ns"] = _median(lambda loop=loop, into=into, x=x, y=y: loop(x, y, into[0], into[1]), repeats,
                                             f"maths {label} {name}") / n * 1e9
            CPU[f"maths {label} {name}"] *= 1e9 / n
        rows = 2 if pair else 1
        scale = np.array([[math.ulp(abs(v)) for v in theirs[r]] for r in range(rows)])
        figures["largest_difference_ulp"] = float(np.max(np.abs(ours[:rows] - theirs[:rows]) / scale))
        one = getattr(approx, name)
        k = min(n, 2000)
        single = np.array([one(x[i], y[i]) if arity == 2 else one(x[i]) for i in range(k)], dtype=float)
        single = single.T if pair else single[None, :]
        figures["lanes_same_bits_as_one_call"] = bool(np.array_equal(single.view(np.int64),
                                                                     ours[:rows, :k].view(np.int64)))
        figures["speedup"] = figures["c_library_ns"] / figures["approx_lanes_ns"]
        out[name] = figures
    return out


COLD_COMPILE = """
import sys, time
from physics import default_kernel, load_preset, prepare
cars = prepare(load_preset(sys.argv[1]).params).records if len(sys.argv) > 1 else None  # None: every kind of car
start = time.process_time()
default_kernel().compile(cars)
print(time.process_time() - start)
"""
COLD_KINDS = {"single_track_cpu_s": "sedan_single_track", "four_wheel_cpu_s": "sedan", "both_cpu_s": None}
"""The cold compiles measured: the block a single-track preset needs, the one the four-wheel sedan (and the kinematic
bicycle) needs, each in a fresh process, and both in one."""

PEER_COLD = """
from workbench import bench_peer
print(bench_peer.compile_cpu_s())
"""


def _cold(code: str, *argv: str) -> dict:
    """Run ``code`` with ``argv`` (it prints its compile's CPU seconds last) in a fresh interpreter with an empty numba cache and
    this carbench on its path: ``cpu_s``, and the process's wall and CPU seconds; or ``skipped`` and why."""
    import resource
    import tempfile

    root = str(Path(__file__).resolve().parents[1])
    with tempfile.TemporaryDirectory(prefix="carbench-cold-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache,
                   PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        try:
            done = subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            return {"skipped": "the compile took more than 600 s"}
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        return {"skipped": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "the compile failed"}
    return {"cpu_s": float(done.stdout.split()[-1]), "process_wall_s": wall,
            "process_cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)}


def cold_compile() -> dict:
    """The model's first compile in a fresh interpreter with an empty cache, in CPU seconds: of the block a
    single-track car needs, of the one a four-wheel car needs (physics.kernel.KINDS), and of both in one process;
    ``kernel_cpu_s`` is the larger of the first two, what a first run waits for. With each the whole process's CPU
    and wall seconds."""
    out: dict = {}
    for name, preset in COLD_KINDS.items():
        figures = _cold(COLD_COMPILE, *([preset] if preset else []))
        if "cpu_s" not in figures:
            return figures  # skipped, and why
        out[name] = figures.pop("cpu_s")
        out[name.replace("cpu_s", "process")] = figures
    out["kernel_cpu_s"] = max(out["single_track_cpu_s"], out["four_wheel_cpu_s"])
    return out


def peer_figures(frames: int, repeats: int, cold: bool = True) -> dict:
    """The compiled single-track peer (workbench.bench_peer) in the same run: one car per frame, N = 100,000 on
    one thread, and (``cold``) its compile in a fresh process with an empty cache."""
    from workbench import bench_peer

    cold_s = None
    if cold:
        figures = _cold(PEER_COLD)
        if "skipped" in figures:
            raise RuntimeError(f"the compiled peer did not compile: {figures['skipped']}")
        cold_s = figures["cpu_s"]
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)  # the peer is numba's prange: its own thread count, not physics.set_threads'
    try:
        wall_one, cpu_one = bench_peer.batch_rate(1, 2400, repeats, DT)
        wall_n, cpu_n = bench_peer.batch_rate(BATCH_N, frames, repeats, DT)
    finally:
        numba.set_num_threads(before)
    return {"model": "CommonRoad single-track (vehicle 2), numba, explicit Euler, no telemetry",
            "kernel_us_per_frame": 1e6 / wall_one, "cpu_kernel_us_per_frame": 1e6 / cpu_one,
            "batch_1_thread": wall_n, "batch_1_thread_per_cpu_s": cpu_n, "cold_compile_cpu_s": cold_s}


def commonroad_step_us(steps: int, repeats: int) -> float | None:
    """Median µs of one explicit-Euler step of CommonRoad's ST model from Python (None when not installed)."""
    try:
        from vehiclemodels.init_st import init_st
        from vehiclemodels.parameters_vehicle2 import parameters_vehicle2
        from vehiclemodels.vehicle_dynamics_st import vehicle_dynamics_st
    except ImportError:
        return None
    p = parameters_vehicle2()
    u = [0.05, 2.0]  # steering velocity [rad/s], longitudinal acceleration [m/s^2]
    state = {"x": np.array(init_st([0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0]), dtype=float)}

    def steps_():
        x = state["x"]
        for _ in range(steps):
            x = x + DT * np.asarray(vehicle_dynamics_st(x, u, p))
        state["x"] = x

    steps_()
    wall = _median(steps_, repeats, "commonroad") / steps * 1e6
    CPU["commonroad"] *= 1e6 / steps
    return wall


def replay_all_wall(repeats: int) -> float:
    """Wall time of ``carbench replay presets/scripts/*.toml`` in a fresh interpreter (cached compile)."""
    paths = [str(p) for p in sorted(scripts_dir().glob("*.toml"))]
    root = Path(__file__).resolve().parents[1]

    def once():
        done = subprocess.run([sys.executable, "-m", "workbench", "replay", *paths], cwd=root, capture_output=True)
        if done.returncode not in (0, 1):
            raise RuntimeError(done.stderr.decode())

    return _median(once, repeats)


def hunt_throughput(preset: str, cars: int, seconds: float) -> dict:
    """Car-seconds simulated per wall second by the hunt's batch (random scripts, every monitor judged)."""
    from workbench.runs.hunt import Chunk, run_chunk

    chunk = Chunk(preset, 0, 0, 0, cars, seconds, DT)
    start = time.perf_counter()
    run_chunk(chunk)
    wall = time.perf_counter() - start
    return {"cars": cars, "seconds_each": seconds, "wall_s": wall, "car_seconds_per_s": cars * seconds / wall}


def rerun_after_edit(script: str = "full_lock_left.toml", repeats: int = 3) -> tuple[float, int]:
    """Wall time of what follows a parameter edit with a script loaded and two references pinned [s].

    The edited script is compiled and replayed from frame 0 (the work the window's background
    thread does), the result becomes the session's history, and it is compared with both
    references (what the Compare dock and the overlays show).
    """
    from workbench.runs.compare import compare, edited_program
    from workbench.runs.live import LiveSession

    session = LiveSession("sedan")
    base = session.load_script(scripts_dir() / script)
    references = []
    for torque in (None, 330.0):
        (result,) = replay([edited_program(base, {} if torque is None else {"engine.peak_torque": torque})])
        session.adopt_replay(result)
        references.append(session.whole_run(f"ref {len(references) + 1}"))
    samples = []
    for i in range(repeats):
        start = time.perf_counter()
        (result,) = replay([edited_program(base, {"engine.peak_torque": 300.0 + i})])
        session.adopt_replay(result)
        current = session.whole_run("edited")
        for ref in references:
            compare(ref, current)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), base.frames


def _peak_rss_mb() -> float:
    from workbench.runs.sweep_bench import peak_rss_mb

    return peak_rss_mb()


def measure(quick: bool = False, gui: bool = True, progress=lambda what: None) -> dict:
    """Every figure of ``carbench bench``; ``progress(what)`` is called as each measurement starts."""
    repeats = 3 if quick else 7
    progress("compiling the model")
    # lane_doubles: how wide a single-track car's tyre lanes are on this machine (physics.tyre.narrow)
    out: dict = {"machine": {"threads_available": max_threads(), "lane_doubles": narrow()}, "compile": compile_time()}
    progress("replaying launch_shift")
    out["replay"] = replay_figures("launch_shift.toml", repeats)
    progress("single steps of six cars")
    out["step_us"] = {name: step_us(name, 2000 if quick else 10000, repeats)
                      for name in ("sedan", "sedan_single_track", "classic", "f1tenth", "teaching", "parking")}
    out["cpu_step_us"] = {name: CPU[f"step {name}"] for name in out["step_us"]}
    out["window_step_us"] = {"sedan": window_step_us("sedan", 2000 if quick else 10000, repeats)}
    out["cpu_window_step_us"] = {"sedan": CPU["window step sedan"]}
    progress("batches of cars")
    frames = 5 if quick else 20
    out["batch"] = {"n": BATCH_N, "frames_per_call": frames,
                    "car_steps_per_s": {str(t): batch_rate(BATCH_N, t, frames, repeats)
                                        for t in range(1, min(2, max_threads()) + 1)}}
    out["batch"]["car_steps_per_cpu_s"] = {str(t): CPU[f"batch {t}"] for t in range(1, min(2, max_threads()) + 1)}
    # The four-wheel sedan against the same car on one tyre per axle, one thread, per CPU second (the
    # ratio holds on a busy machine, where the wall figures do not).
    single = batch_rate(BATCH_N, 1, frames, repeats, "sedan_single_track")
    out["batch"]["single_track"] = {"car_steps_per_s": single,
                                    "car_steps_per_cpu_s": CPU["batch 1 sedan_single_track"],
                                    "four_wheel_cost": CPU["batch 1 sedan_single_track"] / CPU["batch 1"]}
    # Only the channels a sweep of the bench's script asks for (telemetry only as asked).
    out["batch"]["asked"] = {"channels": list(ASKED), "car_steps_per_s": {}, "car_steps_per_cpu_s": {}}
    for preset in ("sedan", "sedan_single_track", "manual003"):
        rate = batch_rate(BATCH_N, 1, frames, repeats, preset, ASKED)
        out["batch"]["asked"]["car_steps_per_s"][preset] = rate
        out["batch"]["asked"]["car_steps_per_cpu_s"][preset] = CPU[_batch_key(1, preset, ASKED)]
    progress("one car's kernel, the compiled peer, the maths and a cold compile")
    out["kernel_us_per_frame"] = {name: one_car_kernel_us(name, 2400, repeats)
                                  for name in ("sedan", "sedan_single_track", "manual003")}
    out["cpu_kernel_us_per_frame"] = {name: CPU[f"kernel {name}"] for name in out["kernel_us_per_frame"]}
    out["peer"] = peer_figures(frames, repeats, cold=not quick)
    out["cold_compile"] = {"skipped": "--quick"} if quick else cold_compile()
    out["maths"] = {"values": 20_000 if quick else 100_000,
                    "functions": maths_figures(20_000 if quick else 100_000, repeats)}
    progress("CommonRoad's single-track model")
    cr = commonroad_step_us(2000 if quick else 10000, repeats)
    if cr is not None:
        best = max(out["batch"]["car_steps_per_s"].values())
        out["commonroad_st"] = {"step_us": cr, "cpu_step_us": CPU["commonroad"], "car_steps_per_s": 1e6 / cr,
                                "ratio_single_step": cr / out["step_us"]["sedan"],
                                "ratio_replay_per_frame": cr / out["replay"]["kernel_us_per_frame"],
                                "ratio_batch": best / (1e6 / cr)}
    else:
        out["commonroad_st"] = None
    progress("replaying every shipped script")
    out["replay_all_scripts_s"] = replay_all_wall(2 if quick else 3)
    progress("re-running after an edit")
    wall, frames = rerun_after_edit(repeats=2 if quick else 5)
    out["rerun_after_edit"] = {"script": "full_lock_left.toml", "frames": frames, "references": 2, "wall_s": wall}
    progress("a sweep")
    from workbench.runs import sweep_bench

    out["sweep"] = sweep_bench.figures(quick)
    progress("the handling tests")
    from workbench.manoeuvres import handling_bench

    out["handling"] = handling_bench.figures(quick)
    progress("the hunt")
    cars, seconds = (50, 5.0) if quick else (200, 10.0)
    out["hunt"] = {preset: hunt_throughput(preset, cars, seconds) for preset in ("sedan", "parking")}
    if gui:
        progress("GUI frame times")
        try:
            from workbench.gui import bench as gui_bench
        except ImportError as exc:
            out["gui_frame_ms"] = {"skipped": str(exc)}
        else:
            out.update(gui_bench.figures_apart(quick))
    out["peak_rss_mb"] = _peak_rss_mb()
    out["load_average_1min"] = os.getloadavg()[0]
    out["side_by_side"] = side_by_side(out)
    return out


def _get(f: dict, *path):
    for key in path:
        if not isinstance(f, dict) or key not in f:
            return None
        f = f[key]
    return f


def side_by_side(f: dict) -> list[dict]:
    """The throughput figures with their targets and the peers measured in the same run, one row each: figure,
    unit, carbench, target (and whether it is a floor or a ceiling), peer and the peer's name."""
    numba_peer = "CommonRoad single-track, numba (workbench.bench_peer)"
    python_peer = "CommonRoad single-track, pure Python (commonroad-vehicle-models)"
    python_step = _get(f, "commonroad_st", "step_us")
    one_thread = _get(f, "batch", "car_steps_per_s", "1")
    two_threads = _get(f, "batch", "car_steps_per_s", "2")
    sweep = _get(f, "sweep", "in_process")
    rows = [
        ("kernel per frame, one car, sedan (four wheels)", "us", _get(f, "kernel_us_per_frame", "sedan"), 0.2,
         "max", _get(f, "peer", "kernel_us_per_frame"), numba_peer),
        ("kernel per frame, one car, sedan_single_track", "us", _get(f, "kernel_us_per_frame", "sedan_single_track"),
         0.2, "max", _get(f, "peer", "kernel_us_per_frame"), numba_peer),
        ("kernel per frame, one car, manual003", "us", _get(f, "kernel_us_per_frame", "manual003"), 0.2, "max",
         _get(f, "peer", "kernel_us_per_frame"), numba_peer),
        ("batch N = 100,000, 1 thread, sedan_single_track, asked channels", "car-steps/s",
         _get(f, "batch", "asked", "car_steps_per_s", "sedan_single_track"), TARGET_BATCH, "min",
         _get(f, "peer", "batch_1_thread"), numba_peer),
        ("batch N = 100,000, 1 thread, sedan_single_track, every channel", "car-steps/s",
         _get(f, "batch", "single_track", "car_steps_per_s"), None, None, _get(f, "peer", "batch_1_thread"),
         numba_peer),
        ("batch N = 100,000, 1 thread, sedan (four wheels), asked channels", "car-steps/s",
         _get(f, "batch", "asked", "car_steps_per_s", "sedan"), 2_000_000.0, "min", None, None),
        ("batch N = 100,000, 1 thread, manual003, asked channels", "car-steps/s",
         _get(f, "batch", "asked", "car_steps_per_s", "manual003"), None, None, _get(f, "peer", "batch_1_thread"),
         numba_peer),
        ("batch, 2 threads over 1 (sedan, every channel)", "x",
         two_threads / one_thread if one_thread and two_threads else None, 1.8, "min", None, None),
        ("Simulation.step from Python, sedan (four wheels)", "us", _get(f, "step_us", "sedan"), TARGET_STEP_US, "max",
         python_step, python_peer),
        ("Simulation.step from Python, sedan_single_track", "us", _get(f, "step_us", "sedan_single_track"),
         TARGET_STEP_US, "max", python_step, python_peer),
        ("the window's step, LiveSession.step, sedan", "us", _get(f, "window_step_us", "sedan"),
         TARGET_WINDOW_STEP_US, "max", None, None),
        ("sweep of 10,000 cars x 10 s in process", "s",
         sweep[-1]["seconds"] if sweep and sweep[-1].get("cars", 0) >= 10_000 else None, 2.0, "max", None, None),
        ("cold compile of the kernel (the longer kind, what a first run waits for)", "CPU s",
         _get(f, "cold_compile", "kernel_cpu_s"), 10.0, "max", _get(f, "peer", "cold_compile_cpu_s"), numba_peer),
        ("cold compile of both kinds, one process", "CPU s", _get(f, "cold_compile", "both_cpu_s"), None, None,
         None, None),
    ]
    out = []
    for figure, unit, value, target, kind, peer, peer_name in rows:
        met = None
        if value is not None and target is not None:
            met = value <= target if kind == "max" else value >= target
        out.append({"figure": figure, "unit": unit, "carbench": value, "target": target, "target_is": kind,
                    "met": met, "peer": peer, "peer_name": peer_name})
    return out


def _figure(value: float, unit: str) -> str:
    if unit == "car-steps/s":
        return f"{value / 1e6:.2f}M car-steps/s"
    if unit == "x":
        return f"{value:.2f}x"
    return f"{value:.3g} {unit}"


def _mark(ok: bool) -> str:
    return "ok" if ok else "MISSES TARGET"


def print_figures(f: dict) -> None:
    c = f["compile"]
    print("carbench bench (medians of repeated runs; dt = 1/120 s)\n")
    print(f"kernel ready in {c['kernel_s']:.2f} s (from the cache unless a compile was announced)\n")
    r = f["replay"]
    print(f"one sedan, {r['script']} ({r['frames']} frames, every channel recorded):")
    print(f"  kernel   {r['kernel_us_per_frame']:8.3f} us/frame  {r['kernel_x_real_time']:9.0f}x real time   "
          f"target <= {TARGET_REPLAY_US:g} us: {_mark(r['kernel_us_per_frame'] <= TARGET_REPLAY_US)}")
    print(f"  replay   {r['replay_us_per_frame']:8.3f} us/frame  {r['replay_x_real_time']:9.0f}x real time   "
          "(with the log and the verdicts)")
    print(f"  CPU time: kernel {r['cpu_kernel_us_per_frame']:.3f} us/frame, replay {r['cpu_replay_us_per_frame']:.3f} us/frame")
    print("\nthe interactive single step, Simulation.step from Python:")
    for name, us in f["step_us"].items():
        judged = name in ("sedan", "sedan_single_track")
        extra = f"   target <= {TARGET_STEP_US:g} us: {_mark(us <= TARGET_STEP_US)}" if judged else ""
        print(f"  {name:18s} {us:8.2f} us/step (CPU {f['cpu_step_us'][name]:6.2f}){extra}")
    for name, us in f["window_step_us"].items():
        print(f"the window's step, LiveSession.step (history and log): {name} {us:8.2f} us/step "
              f"(CPU {f['cpu_window_step_us'][name]:6.2f})   target <= {TARGET_WINDOW_STEP_US:g} us: "
              f"{_mark(us <= TARGET_WINDOW_STEP_US)}")
    b = f["batch"]
    print(f"\nbatch, sedan, N = {b['n']:,} ({b['frames_per_call']} frames per call):")
    for t, rate in b["car_steps_per_s"].items():
        print(f"  {t} thread{'s' if t != '1' else ' '}  {rate:14,.0f} car-steps/s   "
              f"target >= {TARGET_BATCH:,.0f}: {_mark(rate >= TARGET_BATCH)}   "
              f"({b['car_steps_per_cpu_s'][t]:,.0f} per CPU second)")
    st = b["single_track"]
    print(f"  sedan_single_track, 1 thread {st['car_steps_per_s']:14,.0f} car-steps/s "
          f"({st['car_steps_per_cpu_s']:,.0f} per CPU second): a four-wheel car-step costs "
          f"{st['four_wheel_cost']:.2f}x a single-track one   target <= 2.5x: {_mark(st['four_wheel_cost'] <= 2.5)}")
    m = f["maths"]
    print(f"\nthe model's maths (physics.approx) against the C library's, ns per value over {m['values']:,} values:")
    for name, r in m["functions"].items():
        print(f"  {name:6s} C library {r['c_library_ns']:6.2f} ns   approx in a vectorised loop {r['approx_lanes_ns']:6.2f} ns"
              f" ({r['speedup']:4.1f}x)   differ by <= {r['largest_difference_ulp']:.0f} ulp   each lane the bits "
              f"of one call: {'yes' if r['lanes_same_bits_as_one_call'] else 'NO'}")
    cr = f["commonroad_st"]
    if cr is None:
        print("\nCommonRoad ST: skipped (pip install 'carbench[bench]' for commonroad-vehicle-models)")
    else:
        print(f"\nCommonRoad ST model, explicit Euler from Python: {cr['step_us']:.2f} us/step, "
              f"{cr['car_steps_per_s']:,.0f} car-steps/s")
        print(f"  carbench's sedan is {cr['ratio_single_step']:.1f}x faster stepped from Python, "
              f"{cr['ratio_replay_per_frame']:.0f}x in a replay, {cr['ratio_batch']:.0f}x in a batch")
    print(f"\ncarbench replay presets/scripts/*.toml: {f['replay_all_scripts_s']:.2f} s wall (fresh interpreter)")
    r = f["rerun_after_edit"]
    print(f"\nre-run after an edit, {r['script']} (10 s, {r['frames']} frames), two references pinned:")
    print(f"  {r['wall_s'] * 1e3:8.1f} ms wall (replay, adopt, compare with both)   target < {TARGET_RERUN_S:g} s: "
          f"{_mark(r['wall_s'] < TARGET_RERUN_S)}")
    from workbench.runs import sweep_bench

    sweep_bench.print_figures(f["sweep"])
    from workbench.manoeuvres import handling_bench

    handling_bench.print_figures(f["handling"])
    print("\nhunt: random scripts per preset as one batch each, every monitor judged:")
    for preset, h in f["hunt"].items():
        print(f"  {preset:9s} {h['cars']} cars x {h['seconds_each']:g} s  {h['wall_s']:8.2f} s wall   "
              f"{h['car_seconds_per_s']:9,.0f} car-seconds simulated per second")
    g = f.get("gui_frame_ms")
    if g is not None:
        if "skipped" in g:
            print(f"\nGUI frame time: skipped ({g['skipped']})")
        else:
            print("\nGUI frame (offscreen: two steps, car view and four live plots of a 600 s window repainted):")
            for size, m in g.items():
                mark = "" if m["target"] is None else f"   target < {m['target']:g} ms: {_mark(m['median'] < m['target'])}"
                print(f"  {size}: median {m['median']:6.2f} ms   95th percentile {m['p95']:6.2f} ms{mark}")
            print("  with two references pinned (dashed curves, ghost cars):")
            for size, m in f["gui_frame_ms_two_references"].items():
                print(f"  {size}: median {m['median']:6.2f} ms   95th percentile {m['p95']:6.2f} ms   "
                      f"target < {m['target']:g} ms: {_mark(m['median'] < m['target'])}")
    print("\nside by side (targets of this machine; the peers measured in this run):")
    for row in f["side_by_side"]:
        value = "-" if row["carbench"] is None else _figure(row["carbench"], row["unit"])
        target = "" if row["target"] is None else \
            f"target {'<=' if row['target_is'] == 'max' else '>='} {_figure(row['target'], row['unit'])}: " \
            f"{'-' if row['met'] is None else _mark(row['met'])}"
        peer = "" if row["peer"] is None else f"   peer {_figure(row['peer'], row['unit'])}"
        print(f"  {row['figure']:66s} {value:>16s}   {target}{peer}")
    peer = f.get("peer") or {}
    if peer:
        print(f"  peer: {peer['model']}")
    print(f"\npeak memory (RSS) of this process: {f['peak_rss_mb']:.0f} MB; "
          f"load average {f['load_average_1min']:.1f} on {f['machine']['threads_available']} threads; "
          f"single-track tyre lanes {f['machine']['lane_doubles']} wide")


class BenchProgress:
    """One stderr line per measurement as it starts, with the time since the bench began."""

    def __init__(self, stream=None, steps: int = 12):
        import time

        self.stream = stream
        self.began = time.perf_counter()
        self.step = 0
        self.steps = steps

    def __call__(self, what: str) -> None:
        import sys
        import time

        self.step += 1
        stream = self.stream if self.stream is not None else sys.stderr
        print(f"bench [{self.step}/{self.steps}] {what} ({time.perf_counter() - self.began:.0f} s)", file=stream,
              flush=True)


def run_bench(quick: bool = False, gui: bool = True, as_json: bool = False) -> int:
    import contextlib
    import io

    from workbench.streams import check_stdout, emit

    check_stdout()  # a stdout known to take nothing (/dev/full, closed) is said before minutes of measuring
    figures = measure(quick, gui, BenchProgress(steps=12 if gui else 11))
    if as_json:
        text = json.dumps(figures, indent=2)
    else:
        table = io.StringIO()
        with contextlib.redirect_stdout(table):
            print_figures(figures)
        text = table.getvalue().removesuffix("\n")
    emit(text)  # a stdout that fails the write said as every command's (workbench.streams), not as an output file
    return 0
