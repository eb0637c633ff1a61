"""The handling tests' benchmark figures: the whole catalogue on the sedan, and a sweep of the
understeer gradient (ISO 4138) over a thousand cars, with wall and CPU time (a shared machine's
wall time includes waiting for a core)."""

from __future__ import annotations

import time

import numpy as np

from physics import load_preset
from workbench.manoeuvres.manoeuvre_command import run_tests
from workbench.manoeuvres.runner import Car
from workbench.manoeuvres.sweep_kpis import run_test_sweep
from workbench.runs.sweep import plan_sweep
from workbench.scripts.format import load_script, resolve_script
from workbench.scripts.program import compile_script

TARGET_CATALOGUE_S = 10.0
TARGET_SWEEP_S = 15.0
SWEEP_CARS = 1000


def _timed(fn) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def figures(quick: bool = False) -> dict:
    sedan = load_preset("sedan")
    from workbench.manoeuvres.catalogue import CATALOGUE

    wall, cpu, _ = _timed(lambda: run_tests(list(CATALOGUE), [Car(sedan.params, sedan.name, sedan.path)]))
    cars = 200 if quick else SWEEP_CARS
    program = compile_script(load_script(resolve_script("iso4138_circle")))
    plan = plan_sweep(program, [f"tyres.b_rear=8:16:{cars}"])
    s_wall, s_cpu, result = _timed(lambda: run_test_sweep(plan))
    gradient = result.kpi_value[[label for label, _ in result.kpi_names].index("understeer gradient")]
    return {"catalogue": {"wall_s": wall, "cpu_s": cpu},
            "understeer_sweep": {"cars": cars, "wall_s": s_wall, "cpu_s": s_cpu, "car_steps": result.car_steps,
                                 "gradient_deg_per_g": [float(np.nanmin(gradient)), float(np.nanmax(gradient))]}}


def print_figures(f: dict) -> None:
    c, s = f["catalogue"], f["understeer_sweep"]
    print(f"\nhandling tests: carbench manoeuvre all on the sedan  {c['wall_s']:6.2f} s wall ({c['cpu_s']:.2f} s CPU)"
          f"   target <= {TARGET_CATALOGUE_S:g} s: {'ok' if c['wall_s'] <= TARGET_CATALOGUE_S else 'MISSES TARGET'}")
    mark = "" if s["cars"] != SWEEP_CARS else (
        f"   target <= {TARGET_SWEEP_S:g} s: {'ok' if s['wall_s'] <= TARGET_SWEEP_S else 'MISSES TARGET'}")
    print(f"  ISO 4138 understeer gradient over {s['cars']:,} cars: {s['wall_s']:6.2f} s wall ({s['cpu_s']:.2f} s CPU, "
          f"{s['car_steps']:,} car-steps){mark}")
