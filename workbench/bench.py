"""``carbench bench``: the performance figures of SPEC section 7, measured on the machine at hand."""

from __future__ import annotations

import resource
import statistics
import sys
import time

from physics import Inputs, Simulation, load_preset
from physics.presets import scripts_dir
from workbench.runs.replay import replay
from workbench.scripts.format import load_script
from workbench.scripts.program import compile_script

TARGET_REPLAY_RTF = 50.0
TARGET_BATCH = 1_000_000.0


def step_time(preset: str, n: int, steps: int, repeats: int = 5) -> float:
    """Median wall time of one step of ``n`` cars [s], throttle and steering held."""
    sim = Simulation(load_preset(preset).params, n=n)
    inputs = Inputs.from_keys(n, {"throttle", "left"})
    for _ in range(20):
        sim.step(inputs)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            sim.step(inputs)
        samples.append((time.perf_counter() - start) / steps)
    return statistics.median(samples)


def replay_rtf(script: str, repeats: int = 3) -> tuple[float, float, int]:
    """Real-time factor of a headless replay of one script (one car, telemetry recorded)."""
    program = compile_script(load_script(scripts_dir() / script))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        replay([program])
        samples.append(time.perf_counter() - start)
    wall = statistics.median(samples)
    simulated = program.frames * program.dt
    return simulated / wall, wall, program.frames


def _peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024.0 * 1024.0) if sys.platform == "darwin" else peak / 1024.0


def run_bench(quick: bool = False, gui: bool = True) -> int:
    steps = 300 if quick else 2000
    print("carbench bench (median of repeated runs; dt = 1/120 s)\n")
    print("one interactive car, one step:")
    for preset in ("sedan", "classic", "f1tenth", "teaching", "parking"):
        t = step_time(preset, 1, steps)
        print(f"  {preset:9s} {t * 1e6:8.1f} us/step   {1.0 / 120.0 / t:7.0f}x real time")
    rtf, wall, frames = replay_rtf("launch_shift.toml", 2 if quick else 3)
    mark = "ok" if rtf >= TARGET_REPLAY_RTF else "BELOW TARGET"
    print(f"\nheadless replay, launch_shift.toml ({frames} frames, every channel recorded):")
    print(f"  {wall * 1e3:8.1f} ms wall   {rtf:7.1f}x real time   target >= {TARGET_REPLAY_RTF:g}x: {mark}")
    n = 10_000
    t = step_time("sedan", n, 10 if quick else 40, 3)
    rate = n / t
    mark = "ok" if rate >= TARGET_BATCH else "BELOW TARGET"
    print(f"\nbatch, sedan, N = {n:,}:")
    print(f"  {t * 1e3:8.2f} ms/step   {rate:,.0f} car-steps/s   target >= {TARGET_BATCH:,.0f}: {mark}")
    if gui:
        try:
            from workbench.gui.bench import SIZES, TARGETS_MS, frame_time
        except ImportError as exc:
            print(f"\nGUI frame time: skipped ({exc})")
        else:
            print("\nGUI frame (offscreen: two steps, car view and four live plots of a 600 s window repainted):")
            for size in SIZES:
                median, p95 = frame_time(frames=60 if quick else 240, size=size)
                target = TARGETS_MS.get(size)
                mark = "" if target is None else (f"   target < {target:g} ms: "
                                                  + ("ok" if median < target else "ABOVE TARGET"))
                print(f"  {size[0]}x{size[1]}: median {median:6.2f} ms   95th percentile {p95:6.2f} ms{mark}")
    print(f"\npeak memory (RSS) of this process: {_peak_rss_mb():.0f} MB")
    return 0
