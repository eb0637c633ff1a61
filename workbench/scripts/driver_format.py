"""A script's ``[driver]`` and ``[robot]`` tables: the closed-loop driver and the open-loop steering robot.

```toml
[driver]                  # the closed-loop driver (physics.driver)
speed_kmh = 80.0          # a speed to hold (or speed = V in the preset's unit per s), or a profile
                          # [[key, speed], ...] by `profile` = "time" [s] or "distance" [along the path];
                          # or throttle = 1.0: a pedal held (shifting still lifts it)
shift = true              # manual cars: shift by the rpm rule
until = 6.0               # a trigger: a time [s] (or until_distance along the path) ...
then = "release"          # ... after which the pedals: continue, hold, release, decelerate (at `decel` m/s^2)
steer_then = "hold"       # ... and the steering: continue (following the path) or hold
hand_over = 12.495        # from this time [s] on the keys drive, not the driver (a recording of driving on
                          # from a frame of a driven script's replay writes it, half a frame before that frame)
preview_time = 0.55       # any gain of physics.driver_params.DriverParams

[driver.path]             # the path to follow; without one the driver only works the pedals
kind = "circle"           # straight (length), circle (radius, turn), lane_change (offset, start, change,
radius = 100.0            # length), iso3888_2 (run_up: the straight before the course), points
                          # (points = [[x, y], ...], closed)
```

A ``points`` path is straight between its points, and each corner is rounded (physics.path.track_rows):
a blend tangent to both segments whose heading turns as the smoothstep 3 x^2 - 2 x^3 along it, so the
curvature rises from zero to 1.5 theta / Lc at the apex and falls back to zero (theta the corner's turn,
Lc the blend's length). Each blend takes all the room its segments give: its ends lie a distance T
from the corner along both, T the lesser of what each offers (half a segment that has a corner at
both ends, the whole first or last segment of an open path). So the path passes inside a corner,
not through it. A closed path starts at the apex of its first point's corner (put the first point on
a straight). A corner tighter than the car turns at full lock is refused; one the car's grip cannot
take at the speed asked is not (its tightest radius is Lc / (1.5 theta)): space the points out.

```toml
[robot]                   # open-loop steering (physics.robot), from `start` [s]
kind = "sine_with_dwell"  # step (amplitude, rate), ramp (rate, limit), sine (amplitude, frequency, cycles),
amplitude = 90.0          # sine_with_dwell (amplitude, frequency, dwell), sweep (amplitude, f_start, f_end,
ratio = 15.0              # duration); angles in degrees of handwheel at `ratio` (1: of the road wheel)
```
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

from physics.driver_params import AFTER_STEER, AFTER_THROTTLE, DriverParams
from physics.schema import ParamError, build_group, group_table
from physics.simulation import MAX_DT

PATH_KINDS = {
    "straight": ("length",),
    "circle": ("radius", "turn"),
    "lane_change": ("offset", "start", "change", "length"),
    "iso3888_2": ("run_up", "run_out"),
    "points": ("points", "closed"),
}
PATH_DEFAULTS = {"length": 1000.0, "turn": "left", "start": 50.0, "change": 25.0, "run_up": 150.0, "run_out": 60.0,
                 "closed": False}
DRIVER_KEYS = ("speed", "speed_kmh", "throttle", "profile", "shift", "until", "until_distance", "then",
               "steer_then", "decel", "hand_over", "path") + tuple(f.name for f in fields(DriverParams))
ROBOT_KINDS = {
    "step": ("amplitude", "rate"),
    "ramp": ("rate", "limit"),
    "sine": ("amplitude", "frequency", "cycles"),
    "sine_with_dwell": ("amplitude", "frequency", "dwell"),
    "sweep": ("amplitude", "f_start", "f_end", "duration"),
}
ROBOT_DEFAULTS = {"rate": 500.0, "frequency": 0.7, "dwell": 0.5, "cycles": 1.0, "limit": 270.0}
MAX_POINTS = 100_000


class FormatError(ValueError):
    """A [driver] or [robot] entry that cannot be used: the message starts with the entry."""


@dataclass(frozen=True)
class PathSpec:
    """The path a driver follows: a generator's name and its values (lengths in the preset's unit)."""

    kind: str
    values: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        return self.values.get(key, PATH_DEFAULTS.get(key))


@dataclass(frozen=True)
class DriverSpec:
    """A script's ``[driver]`` table, checked."""

    speed: float | list[list[float]] | None = None  # in `speed_unit`
    speed_unit: str = "speed"  # "speed" (L/s) or "speed_kmh"
    throttle: float | None = None
    profile: str = "time"
    shift: bool = True
    until: float | None = None
    until_distance: float | None = None
    then: str = "continue"
    steer_then: str = "continue"
    decel: float = 0.0
    path: PathSpec | None = None
    gains: DriverParams = field(default_factory=DriverParams)
    hand_over: float | None = None  # [s] the driver lets go of every control from then on (the keys drive)

    def to_table(self) -> dict[str, Any]:
        table: dict[str, Any] = {}
        if self.speed is not None:
            table[self.speed_unit] = self.speed
            if isinstance(self.speed, list):
                table["profile"] = self.profile
        if self.throttle is not None:
            table["throttle"] = self.throttle
        table["shift"] = self.shift
        for key in ("until", "until_distance"):
            if getattr(self, key) is not None:
                table[key] = getattr(self, key)
        if self.then != "continue":
            table["then"] = self.then
        if self.steer_then != "continue":
            table["steer_then"] = self.steer_then
        if self.then == "decelerate":
            table["decel"] = self.decel
        if self.hand_over is not None:
            table["hand_over"] = self.hand_over
        defaults = group_table(DriverParams())
        table.update({k: v for k, v in group_table(self.gains).items() if v != defaults[k]})
        if self.path is not None:
            table["path"] = {"kind": self.path.kind, **self.path.values}
        return table


@dataclass(frozen=True)
class RobotSpec:
    """A script's ``[robot]`` table, checked (angles in degrees, of the handwheel at ``ratio``)."""

    kind: str
    start: float
    ratio: float = 1.0
    values: dict[str, float] = field(default_factory=dict)

    def get(self, key: str) -> float:
        return float(self.values.get(key, ROBOT_DEFAULTS.get(key, 0.0)))

    def to_table(self) -> dict[str, Any]:
        return {"kind": self.kind, "start": self.start, "ratio": self.ratio, **self.values}


def _number(value: Any, where: str, lo: float = -math.inf, hi: float = math.inf, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise FormatError(f"{where}: expected a finite number, got {value!r}")
    value = float(value)
    if positive and value <= 0:
        raise FormatError(f"{where}: {value:g} must be positive")
    if not lo <= value <= hi:
        raise FormatError(f"{where}: {value:g} is out of range {lo:g}..{hi:g}")
    return value


def _choice(value: Any, where: str, choices) -> str:
    if value not in choices:
        raise FormatError(f"{where}: {value!r} is not one of {', '.join(repr(c) for c in choices)}")
    return value


def _known(table: dict, allowed, where: str) -> None:
    for key in table:
        if key not in allowed:
            raise FormatError(f"{where}: unknown key `{key}`; allowed: {', '.join(allowed)}")


def parse_path(table: Any) -> PathSpec:
    where = "[driver.path]"
    if not isinstance(table, dict):
        raise FormatError(f"{where}: must be a table (kind = ...)")
    kind = _choice(table.get("kind"), f"{where} kind", tuple(PATH_KINDS))
    _known(table, ("kind",) + PATH_KINDS[kind], f"{where} ({kind})")
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key == "kind":
            continue
        if key == "turn":
            values[key] = _choice(value, f"{where} turn", ("left", "right"))
        elif key == "closed":
            if not isinstance(value, bool):
                raise FormatError(f"{where} closed: expected true or false")
            values[key] = value
        elif key == "points":
            if not isinstance(value, list) or not 2 <= len(value) <= MAX_POINTS:
                raise FormatError(f"{where} points: a list of 2 to {MAX_POINTS:,} [x, y] pairs")
            pts = []
            for i, pt in enumerate(value, 1):
                if not isinstance(pt, list) or len(pt) != 2:
                    raise FormatError(f"{where} points #{i}: expected [x, y], got {pt!r}")
                pts.append([_number(pt[0], f"{where} points #{i}", -1e7, 1e7),
                            _number(pt[1], f"{where} points #{i}", -1e7, 1e7)])
            values[key] = pts
        elif key in ("offset", "start"):
            values[key] = _number(value, f"{where} {key}", -1e5, 1e5)
        else:
            values[key] = _number(value, f"{where} {key}", 0.0, 1e6, positive=key != "run_out")
    missing = [k for k in PATH_KINDS[kind] if k not in values and k not in PATH_DEFAULTS]
    if missing:
        raise FormatError(f"{where} ({kind}): `{missing[0]}` is missing")
    return PathSpec(kind, values)


def _speed(value: Any, where: str, key: str):
    top = 1000.0 if key == "speed_kmh" else 1e6
    if isinstance(value, list):
        if not 1 <= len(value) <= MAX_POINTS:
            raise FormatError(f"{where}: a profile is a list of 1 to {MAX_POINTS:,} [key, speed] pairs")
        rows = []
        for i, pair in enumerate(value, 1):
            if not isinstance(pair, list) or len(pair) != 2:
                raise FormatError(f"{where} #{i}: expected [key, speed], got {pair!r}")
            rows.append([_number(pair[0], f"{where} #{i}", 0.0, 1e7), _number(pair[1], f"{where} #{i}", 0.0, top)])
        if any(b[0] <= a[0] for a, b in zip(rows, rows[1:], strict=False)):
            raise FormatError(f"{where}: the profile's keys must rise")
        return rows
    return _number(value, where, 0.0, top)


def parse_driver(table: Any, duration: float) -> DriverSpec:
    """The ``[driver]`` table checked (FormatError names the entry and the reason)."""
    where = "[driver]"
    if not isinstance(table, dict):
        raise FormatError(f"{where}: must be one table written [driver]")
    _known(table, DRIVER_KEYS, where)
    given = [k for k in ("speed", "speed_kmh", "throttle") if k in table]
    if len(given) > 1:
        raise FormatError(f"{where}: give one of speed, speed_kmh and throttle, not {' and '.join(given)}")
    spec: dict[str, Any] = {}
    if given and given[0] != "throttle":
        spec["speed"] = _speed(table[given[0]], f"{where} {given[0]}", given[0])
        spec["speed_unit"] = given[0]
    elif given:
        spec["throttle"] = _number(table["throttle"], f"{where} throttle", 0.0, 1.0)
    if "profile" in table:
        spec["profile"] = _choice(table["profile"], f"{where} profile", ("time", "distance"))
    if "shift" in table:
        if not isinstance(table["shift"], bool):
            raise FormatError(f"{where} shift: expected true or false")
        spec["shift"] = table["shift"]
    if "until" in table:
        spec["until"] = _number(table["until"], f"{where} until", 0.0, duration)
    if "until_distance" in table:
        spec["until_distance"] = _number(table["until_distance"], f"{where} until_distance", 0.0, 1e7)
    if "hand_over" in table:
        # Not before the start, but for the half frame a recording of driving on from frame 0 writes (-dt / 2)
        spec["hand_over"] = _number(table["hand_over"], f"{where} hand_over", -0.5 * MAX_DT, duration)
    for key, choices in (("then", AFTER_THROTTLE), ("steer_then", AFTER_STEER)):
        if key in table:
            spec[key] = _choice(table[key], f"{where} {key}", tuple(choices))
    if spec.get("then") == "decelerate":
        if "decel" not in table:
            raise FormatError(f"{where}: then = \"decelerate\" needs decel [m/s^2]")
        spec["decel"] = _number(table["decel"], f"{where} decel", 0.0, 1e4, positive=True)
    elif "decel" in table:
        raise FormatError(f"{where} decel: only with then = \"decelerate\"")
    if "path" in table:
        spec["path"] = parse_path(table["path"])
    if "until_distance" in spec and "path" not in spec:
        raise FormatError(f"{where} until_distance: needs a [driver.path] to measure the distance along")
    if spec.get("profile") == "distance" and "path" not in spec:
        raise FormatError(f"{where} profile = \"distance\": needs a [driver.path]")
    gains = {k: v for k, v in table.items() if k in {f.name for f in fields(DriverParams)}}
    try:
        spec["gains"] = build_group(DriverParams, "driver", gains)
    except ParamError as exc:
        raise FormatError(f"[{exc}".replace("[driver.", "[driver] ", 1)) from None
    if not given and "path" not in spec:
        raise FormatError(f"{where}: drives nothing (give a speed, a throttle or a [driver.path])")
    return DriverSpec(**spec)


def parse_robot(table: Any, duration: float) -> RobotSpec:
    """The ``[robot]`` table checked."""
    where = "[robot]"
    if not isinstance(table, dict):
        raise FormatError(f"{where}: must be one table written [robot]")
    kind = _choice(table.get("kind"), f"{where} kind", tuple(ROBOT_KINDS))
    allowed = ("kind", "start", "ratio") + ROBOT_KINDS[kind]
    _known(table, allowed, f"{where} ({kind})")
    if "start" not in table:
        raise FormatError(f"{where}: `start` [s] is missing")
    start = _number(table["start"], f"{where} start", 0.0, duration)
    ratio = _number(table.get("ratio", 1.0), f"{where} ratio", 0.1, 100.0)
    values = {}
    for key in ROBOT_KINDS[kind]:
        if key not in table:
            if key in ROBOT_DEFAULTS:
                continue
            raise FormatError(f"{where} ({kind}): `{key}` is missing")
        if key in ("amplitude", "rate"):
            values[key] = _number(table[key], f"{where} {key}", -3600.0, 3600.0)
            if values[key] == 0:
                raise FormatError(f"{where} {key}: must not be 0")
        else:
            values[key] = _number(table[key], f"{where} {key}", 0.0, 3600.0, positive=True)
    if kind == "sweep" and values["f_end"] <= values["f_start"]:
        raise FormatError(f"{where}: f_end must be above f_start")
    return RobotSpec(kind, start, ratio, values)
