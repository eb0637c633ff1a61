"""ISO 3888-2 obstacle avoidance: the highest entry speed at which the car passes without touching a cone.

The course and its cones are ISO 3888-2:2011 clause 4 (see workbench.scripts.courses), sized from
the car's width. The driver holds the entry speed on the run-up and releases the throttle at the
course's start (gate of lane 1; the standard's method, its annex A), steering along its line. A
run passes when the body (its outline from the preset: length, width, front overhang) touches no
cone's base circle on any frame. The KPI is the highest entry speed of the series SPEEDS that
passes with every slower one passing too, all the speeds of all cars as one batch.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from workbench.manoeuvres.base import Manoeuvre, Runner
from workbench.manoeuvres.kpi import KMH, Kpi, RunData, at_time, crossing
from workbench.scripts.courses import _body_reach, body_clearance, course_of
from workbench.scripts.format import Script

SPEEDS = tuple(float(v) for v in range(40, 102, 2))  # [km/h] the series of entry speeds
CLAUSE = "ISO 3888-2:2011 cl. 4"


def cone_touches(run: RunData) -> tuple[int, float, float | None]:
    """(cones touched, least clearance [m], entry speed [m/s]) of one run through the course."""
    spec = run.script.driver.path
    course = course_of(spec, run.params)
    front, back = _body_reach(run.params)
    x, y, heading = run["x"], run["y"], run["heading"]
    near = (x > course.cones[:, 0].min() - front - back) & (x < course.cones[:, 0].max() + front + back)
    entry_t = crossing(run.t, run["path_distance"], course.start)
    entry = None if entry_t is None else at_time(run.t, run["speed"], entry_t)
    if not near.any():
        return 0, float("inf"), entry
    clear = body_clearance(x[near], y[near], heading[near], course.cones, front, back, run.params.body.width,
                           per_cone=True).min(axis=0)
    touched = int((clear < 0).sum())
    return touched, float(clear.min()), entry


class ObstacleAvoidance(Manoeuvre):
    name = "iso3888_2"
    title = "Obstacle avoidance double lane change"
    standard = "ISO 3888-2:2011"
    script = "iso3888_2"
    channels = ("x", "y", "heading", "speed", "path_distance", "lateral_error")

    def run(self, cars, runner: Runner, script: Script | None = None):
        script = script or self.base_script()
        jobs = [(at_speed(script, v), car) for car in cars for v in SPEEDS]
        runs = runner(jobs)
        out = []
        for i in range(len(cars)):
            mine = runs[i * len(SPEEDS):(i + 1) * len(SPEEDS)]
            passed = [cone_touches(run)[0] == 0 for run in mine]
            best = None
            for v, ok in zip(SPEEDS, passed, strict=True):
                if not ok:
                    break
                best = v
            any_pass = max((v for v, ok in zip(SPEEDS, passed, strict=True) if ok), default=None)
            note = (f"series {SPEEDS[0]:g}..{SPEEDS[-1]:g} km/h in steps of {SPEEDS[1] - SPEEDS[0]:g}"
                    + (f"; passes again at {any_pass:g} km/h" if any_pass is not None and any_pass != best else ""))
            out.append([Kpi("max_entry_speed", "highest entry speed without touching a cone", best, "km/h", CLAUSE,
                            note=note if best is not None else f"fails at {SPEEDS[0]:g} km/h already")])
        return out

    def kpis(self, run: RunData) -> list[Kpi]:
        touched, clear, entry = cone_touches(run)
        return [Kpi("entry_speed", "entry speed", None if entry is None else entry * KMH, "km/h", CLAUSE),
                Kpi("cones_touched", "cones touched", float(touched), "", CLAUSE, "0", touched == 0),
                Kpi("cone_clearance", "least body clearance to a cone", clear if np.isfinite(clear) else None, "m",
                    CLAUSE)]


def at_speed(script: Script, kmh: float) -> Script:
    """The script with the driver's entry speed set to ``kmh`` (and time enough to reach and drive it)."""
    driver = script.driver
    speed = kmh if driver.speed_unit == "speed_kmh" else kmh / KMH
    run_up = driver.path.get("run_up")
    duration = max(script.duration, 8.0 + (run_up + 100.0) / (kmh / KMH))
    return replace(script, duration=duration, driver=replace(driver, speed=speed))
