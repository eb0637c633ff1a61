"""ISO 3888-2 obstacle avoidance: the highest entry speed at which the car passes without touching a cone.

The course and its cones are ISO 3888-2:2011 clause 4 (see workbench.scripts.courses), sized from
the car's width. The driver holds the entry speed on the run-up and releases the throttle at the
course's start (gate of lane 1; the standard's method, its annex A), steering along its line. A
run passes when the car drives through the course's lanes 1, 3 and 5, between each pair of cones across them (its
body's centre between the two as it passes), and the body (its outline from the preset: length, width, front
overhang) touches no cone's base circle on any frame: a car that could not steer drove straight on beside lane 3
and touched nothing. The KPI is the highest entry speed of the series SPEEDS that passes with every slower one
passing too, all the speeds of all cars as one batch.
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


def cone_touches(run: RunData) -> tuple[int, float, float | None, int]:
    """(cones touched, least clearance [m], entry speed [m/s], gates missed: :func:`gates_missed`) of one run through
    the course."""
    spec = run.script.driver.path
    course = course_of(spec, run.params)
    front, back = _body_reach(run.params)
    x, y, heading = run["x"], run["y"], run["heading"]
    near = (x > course.cones[:, 0].min() - front - back) & (x < course.cones[:, 0].max() + front + back)
    entry_t = crossing(run.t, run["path_distance"], course.start)
    entry = None if entry_t is None else at_time(run.t, run["speed"], entry_t)
    missed = gates_missed(x, y, heading, course.cones, 0.5 * (front - back))
    if not near.any():
        return 0, float("inf"), entry, missed
    clear = body_clearance(x[near], y[near], heading[near], course.cones, front, back, run.params.body.width,
                           per_cone=True).min(axis=0)
    touched = int((clear < 0).sum())
    return touched, float(clear.min()), entry, missed


def gates_missed(x, y, heading, cones, ahead: float) -> int:
    """How many of the course's gates (each pair of cones across a lane, ``cones`` as workbench.scripts.courses lays
    them out: the right one, then the left, at one x) the car did not drive through: the body's centre (``ahead`` of
    the reference point (x, y) along the heading) is not between the gate's two cones at some crossing of its x, or
    never crosses it (a run that stops short). ISO 3888-2 cl. 4: the car drives through the lanes the cones mark."""
    cx, cy = x + ahead * np.cos(heading), y + ahead * np.sin(heading)
    missed = 0
    for (gx, right), (_, left) in cones.reshape(-1, 2, 2):
        side = cx >= gx
        (k,) = np.nonzero(side[1:] != side[:-1])  # frames k to k + 1 cross the gate's line
        if not len(k):
            missed += 1
            continue
        share = (gx - cx[k]) / (cx[k + 1] - cx[k])
        at = cy[k] + share * (cy[k + 1] - cy[k])
        missed += int(not ((at > right) & (at < left)).all())
    return missed


def clean(result: tuple[int, float, float | None, int]) -> bool:
    """Whether a run (:func:`cone_touches`) touched no cone and missed no gate."""
    return result[0] == 0 and result[3] == 0


def fault(kmh: float, result: tuple[int, float, float | None, int]) -> str | None:
    """What ends a series at a run set to ``kmh`` (:func:`cone_touches`' ``result``), in this order: "speed" (the car
    does not reach it at the course's entry, within REACHED), "cone", "lanes"; None for a run that passes."""
    touched, _, entry, missed = result
    if entry is None or entry * KMH < kmh - REACHED:
        return "speed"
    return "cone" if touched else "lanes" if missed else None


class ObstacleAvoidance(Manoeuvre):
    name = "iso3888_2"
    title = "Obstacle avoidance double lane change"
    standard = "ISO 3888-2:2011"
    script = "iso3888_2"
    channels = ("x", "y", "heading", "speed", "path_distance", "lateral_error")
    # Its script's expectation (the line kept on the run-up, 2 to 9 s) is of the script's own speed; at the series'
    # other speeds the run-up takes another time. Its condition is the entry speed reached (series_kpis).
    conditions = 0

    def run(self, cars, runner: Runner, script: Script | None = None):
        script = script or self.base_script()
        jobs = [(at_speed(script, v), car) for car in cars for v in SPEEDS]
        runs = runner(jobs)
        return [series_kpis([cone_touches(run) for run in runs[i * len(SPEEDS):(i + 1) * len(SPEEDS)]])
                for i in range(len(cars))]

    def kpis(self, run: RunData) -> list[Kpi]:
        touched, clear, entry, missed = cone_touches(run)
        return [Kpi("entry_speed", "entry speed", None if entry is None else entry * KMH, "km/h", CLAUSE),
                Kpi("cones_touched", "cones touched", float(touched), "", CLAUSE, "0", touched == 0),
                Kpi("gates_missed", "gates not driven through", float(missed), "", CLAUSE, "0", missed == 0),
                Kpi("cone_clearance", "least body clearance to a cone", clear if np.isfinite(clear) else None, "m",
                    CLAUSE)]


REACHED = 2.0
"""[km/h] How far under a run's set speed its measured entry speed may be and still count as a run at that speed
(one step of SPEEDS): a car that cannot reach the speed ends the series there. carbench's choice."""


def series_kpis(results: list[tuple[int, float, float | None, int]]) -> list[Kpi]:
    """The KPI of a car's series of runs at SPEEDS (each run's cone_touches): the measured entry speed of the fastest
    run that drives through the course touching no cone, with every slower one clean too. The series ends at the
    first run that touches a cone, misses a gate or whose car does not reach its speed at the course's entry (within
    REACHED)."""
    best = stop = None
    for v, result in zip(SPEEDS, results, strict=True):
        _, _, entry, missed = result
        kmh = None if entry is None else entry * KMH
        why = fault(v, result)
        if why == "speed":
            stop = f"does not reach {v:g} km/h at the course's entry" + ("" if kmh is None else f" ({kmh:.4g} km/h)")
        elif why == "cone":
            stop = f"touches a cone at {v:g} km/h"
        elif why == "lanes":
            stop = f"drives outside the lanes at {v:g} km/h ({missed} gate{'s' if missed != 1 else ''} missed)"
        if why is not None:
            break
        best = (v, kmh)
    note = f"set speeds {SPEEDS[0]:g}..{SPEEDS[-1]:g} km/h in steps of {SPEEDS[1] - SPEEDS[0]:g}"
    again = max((v for v, result in zip(SPEEDS, results, strict=True) if fault(v, result) is None), default=None)
    if again is not None and (best is None or again > best[0]):
        note += f"; passes again at {again:g} km/h"
    if best is not None:
        note = f"run at {best[0]:g} km/h; " + (f"{stop}; " if stop else "") + note
    else:
        note = f"{stop} already; {note}"
    return [Kpi("max_entry_speed", "highest entry speed through the lanes without touching a cone",
                None if best is None else best[1],
                "km/h", CLAUSE, note=note)]


def at_speed(script: Script, kmh: float) -> Script:
    """The script with the driver's entry speed set to ``kmh`` (and time enough to reach and drive it)."""
    driver = script.driver
    speed = kmh if driver.speed_unit == "speed_kmh" else kmh / KMH
    run_up = driver.path.get("run_up")
    duration = max(script.duration, 8.0 + (run_up + 100.0) / (kmh / KMH))
    return replace(script, duration=duration, driver=replace(driver, speed=speed))
