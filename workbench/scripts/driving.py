"""A script's driver and robot compiled against its car: the DRIVER record, its track, the robot's steer.

:func:`compile_drive` turns ``[driver]`` into the kernel's DRIVER record and the rows of its path
and speed profile (physics.path); :func:`robot_steer` turns ``[robot]`` into the steer override
of every frame (a share of full lock). :func:`drivers_of` lays the drives of a batch's programs
out as one DRIVER array and one track.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from physics import CarParams, robot
from physics.driver_params import AFTER_STEER, AFTER_THROTTLE, PEDALS_FIXED, PEDALS_NONE, PEDALS_SPEED, DriverSetup
from physics.path import COLUMNS, profile_rows
from physics.records import DRIVER, driver_record, no_drivers
from workbench.scripts.courses import Course, course_of
from workbench.scripts.driver_format import DriverSpec, RobotSpec

KMH = 3.6


@dataclass(frozen=True, eq=False)
class Drive:
    """One car's driver: its DRIVER record (row offsets relative to ``track``) and the course it drives."""

    record: np.void
    track: np.ndarray  # (rows, len(COLUMNS)): the path's rows, then the profile's
    course: Course | None = None
    spec: DriverSpec | None = field(default=None, compare=False)

    @property
    def cones(self) -> np.ndarray:
        return self.course.cones if self.course is not None else np.zeros((0, 2))


class DriveError(ValueError):
    """A [driver] or [robot] the car refuses: the message names the entry and the reason."""


def compile_drive(spec: DriverSpec, car: CarParams, end: float, name: str) -> Drive:
    """The DRIVER record and track of ``spec`` on ``car``, driving until ``end`` [s] (DriveError when the car
    cannot do it)."""
    if spec.speed_unit == "speed_kmh" and car.model.unit != "m":
        raise DriveError(f"[driver] speed_kmh: the {name} car measures lengths in {car.model.unit}; "
                         f"give speed in {car.model.unit}/s")
    factor = 1.0 / KMH if spec.speed_unit == "speed_kmh" else 1.0
    rows: list[np.ndarray] = []
    course = None
    values: dict = {"on": True, "end_time": end, "shift": bool(spec.shift and car.manual)}
    if spec.path is not None:
        try:
            course = course_of(spec.path, car)
        except ValueError as exc:
            raise DriveError(f"[driver.path]: {exc}") from None
        rows.append(course.rows)
        values.update(lateral=True, path_start=0, path_count=len(course.rows), closed=course.closed)
    if isinstance(spec.speed, list):
        keys = [k for k, _ in spec.speed]
        profile = profile_rows(keys, [v * factor for _, v in spec.speed])
        values.update(profile_start=sum(len(r) for r in rows), profile_count=len(profile),
                      profile_by_distance=spec.profile == "distance")
        rows.append(profile)
    if spec.speed is not None:
        values.update(pedals=PEDALS_SPEED, speed=0.0 if isinstance(spec.speed, list) else spec.speed * factor)
    elif spec.throttle is not None:
        values.update(pedals=PEDALS_FIXED, throttle=spec.throttle)
    else:
        values["pedals"] = PEDALS_NONE
    values.update(until_time=math.inf if spec.until is None else spec.until,
                  until_distance=math.inf if spec.until_distance is None else spec.until_distance,
                  after_throttle=AFTER_THROTTLE[spec.then], after_steer=AFTER_STEER[spec.steer_then],
                  decel=spec.decel)
    if spec.then == "decelerate" and car.brakes is None:
        raise DriveError(f"[driver] then = \"decelerate\": the {name} car has no brakes")
    track = np.concatenate(rows) if rows else np.zeros((2, len(COLUMNS)))
    return Drive(driver_record(DriverSetup(**values), spec.gains), np.ascontiguousarray(track), course, spec)


def robot_angle(spec: RobotSpec, times: np.ndarray) -> np.ndarray:
    """The robot's road-wheel angle [rad] at ``times``."""
    deg = math.radians(1.0) / spec.ratio  # a degree of handwheel, in radians of road wheel
    if spec.kind == "step":
        angle = robot.step(times, spec.start, spec.get("amplitude") * deg, abs(spec.get("rate")) * deg)
    elif spec.kind == "ramp":
        angle = robot.ramp(times, spec.start, spec.get("rate") * deg, spec.get("limit") * deg)
    elif spec.kind == "sine":
        angle = robot.sine(times, spec.start, spec.get("amplitude") * deg, spec.get("frequency"), spec.get("cycles"))
    elif spec.kind == "sine_with_dwell":
        angle = robot.sine_with_dwell(times, spec.start, spec.get("amplitude") * deg, spec.get("frequency"),
                                      spec.get("dwell"))
    else:
        angle = robot.sweep(times, spec.start, spec.get("amplitude") * deg, spec.get("f_start"), spec.get("f_end"),
                            spec.get("duration"))
    return angle


def steer_share(angle: np.ndarray, car: CarParams) -> np.ndarray:
    """A road-wheel angle as the steer override (a share of full lock); DriveError past the lock."""
    lock = car.steering.lock
    peak = float(np.abs(angle).max()) if len(angle) else 0.0
    if peak > lock * (1.0 + 1e-9):
        raise DriveError(f"[robot]: the road wheel would turn {math.degrees(peak):.3g} deg, past the car's lock "
                         f"({math.degrees(lock):.3g} deg); lower the amplitude or raise the ratio")
    return np.clip(angle / lock, -1.0, 1.0)


def drivers_of(drives: Sequence[Drive | None]) -> tuple[np.ndarray, np.ndarray] | tuple[None, None]:
    """One DRIVER record per car and one track for a batch (None, None when nobody drives)."""
    if all(d is None for d in drives):
        return None, None
    records = no_drivers(len(drives))
    parts, offset = [], 0
    placed: dict[int, int] = {}  # one copy of the track of a drive that several cars share
    for i, d in enumerate(drives):
        if d is None:
            continue
        if id(d) not in placed:
            placed[id(d)] = offset
            parts.append(d.track)
            offset += len(d.track)
        rec = d.record.copy()
        for name in ("path", "profile"):
            if rec[f"{name}_count"] > 0:
                rec[f"{name}_start"] += placed[id(d)]
        records[i] = rec
    return np.ascontiguousarray(records, dtype=DRIVER), np.ascontiguousarray(np.concatenate(parts))


def ends_at(drive: Drive, time: float) -> Drive:
    """The same drive handing every control back from ``time`` [s] on (driving on from a past frame)."""
    rec = drive.record.copy()
    rec["end_time"] = time
    return Drive(rec, drive.track, drive.course, drive.spec)
