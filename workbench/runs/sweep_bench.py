"""Sweep throughput and peak memory for ``carbench bench``: each measured in a fresh subprocess, so the
peak resident memory (``ru_maxrss``) is the sweep's own and not the benchmark's."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

SCRIPT = "full_lock_left.toml"  # 10 s at dt 1/120: 1,201 frames
TARGET_SECONDS = 10.0  # SPEC 7: 10,000 cars of a 10-second script in under 10 s in-process
TARGET_CARS = 10_000
DEFAULT_CHUNK = 8192


def _axes(cars: int, lock_max: float = 80.0) -> list[str]:
    side = max(int(round(cars ** 0.5)), 1)
    return [f"steering.lock=10:{lock_max:g}:{max(side, 2)}", f"body.mass=900:1800:{max(cars // max(side, 2), 2)}"]


ONE_SECOND = """
[script]
name = "full-lock-left, first second"
preset = "sedan"
duration = 1.0

[[hold]]
keys = ["throttle", "left"]
from = 0.0
to = 1.0

[[expect]]
channel = "speed_kmh"
at = 1.0
min = 1.0

[[measure]]
name = "peak yaw rate"
channel = "yaw_rate"
from = 0.0
to = 1.0
reduce = "max"
"""


def peak_rss_mb() -> float:
    """This process's peak resident memory [MB].

    On Linux from /proc (VmHWM, the high-water mark of this process's own memory): ``ru_maxrss`` keeps
    the peak of the process a subprocess was forked from across the exec, so every sweep measured in a
    subprocess of a large benchmark reported the benchmark's own peak.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024.0 ** 2 if sys.platform == "darwin" else peak / 1024.0


def measure(cars: int, workers: int | None = None, chunk: int = DEFAULT_CHUNK, short: bool = False) -> dict:
    """Run a sweep of about ``cars`` cars over the full-lock script (``short``: its first second) here;
    wall time, car-steps and peak RSS."""
    from physics.presets import scripts_dir
    from workbench.runs import cluster
    from workbench.runs.sweep import plan_sweep, run_sweep
    from workbench.scripts.format import load_script, parse_script
    from workbench.scripts.program import compile_script

    script = parse_script(ONE_SECOND, "<bench>") if short else load_script(scripts_dir() / SCRIPT)
    program = compile_script(script)
    # The one-second script's sedan is a four-wheel car: its inner front wheel reaches 80 deg at 65.6 deg of lock.
    plan = plan_sweep(program, _axes(cars, 60.0 if short else 80.0))
    if workers:
        chunk = max(1, min(chunk, -(-plan.cars // (2 * workers))))
    with cluster.mapper(workers) as mapper:
        began = time.perf_counter()
        result = run_sweep(plan, mapper, chunk, per_round=2 * (workers or 1))
        seconds = time.perf_counter() - began
    return {"cars": plan.cars, "workers": workers, "seconds": seconds, "car_steps": result.car_steps,
            "peak_rss_mb": peak_rss_mb()}


def measure_in_subprocess(cars: int, workers: int | None = None, short: bool = False, timeout: float = 1800.0) -> dict:
    code = (f"import json; from workbench.runs.sweep_bench import measure; "
            f"print(json.dumps(measure({cars}, {workers!r}, short={short!r})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "sweep bench failed")
    return json.loads(done.stdout.strip().splitlines()[-1])


def figures(quick: bool = False) -> dict:
    """Sweep throughput in process and on 2 Dask workers, and the peak memory, each run in a fresh process."""
    small, big = (500, 2_000) if quick else (1_000, TARGET_CARS)
    out: dict = {"script": SCRIPT, "in_process": [measure_in_subprocess(small), measure_in_subprocess(big)]}
    if not quick:
        out["first_second_100k"] = measure_in_subprocess(100_000, short=True)
    try:
        out["dask_2_workers"] = measure_in_subprocess(big if quick else small * 4, workers=2)
    except RuntimeError as exc:
        out["dask_2_workers"] = {"skipped": str(exc)}
    return out


def print_figures(f: dict) -> None:
    print(f"\nsweep, {f['script']} (1,201 frames at dt 1/120), chunks of up to 8,192 cars, each run in a fresh process:")
    for r in f["in_process"]:
        rate = r["car_steps"] / r["seconds"]
        print(f"  in process  {r['cars']:7,} cars  {r['seconds']:7.2f} s  {rate:12,.0f} car-steps/s  "
              f"peak RSS {r['peak_rss_mb']:6.0f} MB")
    last = f["in_process"][-1]
    if last["cars"] >= TARGET_CARS:
        mark = "ok" if last["seconds"] < TARGET_SECONDS else "MISSES TARGET"
        print(f"  target: {TARGET_CARS:,} cars in < {TARGET_SECONDS:g} s: {mark}")
    r = f.get("first_second_100k")
    if r is not None:
        print(f"  in process {r['cars']:8,} cars of the script's first second (121 frames)  {r['seconds']:7.2f} s  "
              f"peak RSS {r['peak_rss_mb']:6.0f} MB")
    r = f["dask_2_workers"]
    if "skipped" in r:
        print(f"  2 Dask workers: skipped ({r['skipped']})")
    else:
        print(f"  2 Dask workers {r['cars']:7,} cars  {r['seconds']:7.2f} s  {r['car_steps'] / r['seconds']:12,.0f} "
              "car-steps/s  (cluster start-up excluded)")
