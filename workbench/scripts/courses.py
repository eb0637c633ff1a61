"""The paths a script's driver can follow, and the ISO 3888-2 obstacle-avoidance course with its cones.

Every generator returns a :class:`Course`: the rows of its path (physics.path, at a spacing of a
tenth of the wheelbase), the cones (none but for ISO 3888-2) and the lanes to draw. Lengths are
in the preset's unit; the car starts at the origin heading along +x, so every path starts there.

ISO 3888-2:2011, clause 4.1, table 1: five sections of 12, 13.5, 11, 12.5 and 12 m; lane 1 is
1.1 W + 0.25 m wide, lane 3 W + 1 m, lane 5 1.3 W + 0.25 m but at least 3 m, with W the car's
width; lane 3 is offset by 1 m (from lane 1's left limit to lane 3's right limit). Lane 5 shares
lane 1's right limit. Cones (clause 4.2) stand outside the limits, their base circles tangent to
them: here five a side per lane, evenly from its start to its end, of base radius CONE_RADIUS.

The line the driver follows through the course is a driver's choice, not the standard's: two
half-cosine lane changes, from lane 1 to 3 and from 3 to 5, whose levels and extents are searched
(once per car size) for the smallest peak curvature that keeps the car's body, moving along the
line with its heading on the tangent, at least LINE_MARGIN clear of every cone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from physics import CarParams
from physics.path import CURVATURE, rows_of, track_rows
from workbench.scripts.driver_format import PathSpec

SECTIONS = (12.0, 13.5, 11.0, 12.5, 12.0)  # [m] ISO 3888-2 table 1
CONE_RADIUS = 0.15  # [m] base radius of a 500 mm traffic cone
CONES_PER_SIDE = 5
LINE_MARGIN = 0.05  # [m] the line's body clearance to the cones
PAIR_SPARE = 0.25  # [m] spare beyond the body's reach (pair_reach): a pose and a cone further apart are not checked


@dataclass(frozen=True, eq=False)
class Course:
    """A path's rows, whether it is closed, and what stands beside it."""

    rows: np.ndarray  # (n, len(physics.path.COLUMNS))
    closed: bool = False
    cones: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))  # (n, 2) cone centres
    lanes: tuple[tuple[float, float, float, float], ...] = ()  # (x0, x1, y right, y left) per lane
    start: float = 0.0  # where the course proper begins, along the path (ISO 3888-2: after the run-up)
    length: float = 0.0  # of the course proper

    @property
    def path_length(self) -> float:
        step = self.rows[1, 4] - self.rows[0, 4]
        return step * (len(self.rows) if self.closed else len(self.rows) - 1)


def spacing(car: CarParams) -> float:
    return car.body.wheelbase / 10.0


def course_of(spec: PathSpec, car: CarParams) -> Course:
    """The course a [driver.path] table describes, for this car."""
    step = spacing(car)
    kind = spec.kind
    if kind == "straight":
        n = max(int(math.floor(spec.get("length") / step)) + 1, 2)  # a path is two rows at least: one step long
        s = np.arange(n) * step
        return Course(rows_of(s, 0 * s, step, False, 0 * s, 0 * s))
    if kind == "circle":
        radius = spec.get("radius")
        lock = math.tan(car.steering.lock) / car.body.wheelbase  # [1/L] the curvature of a car at full lock
        if 1.0 / radius > lock:  # as a corner of a points path is: the driver would only go round at full lock
            unit = car.model.unit
            raise ValueError(f"circle: radius {radius:.3g} {unit} is tighter than the car turns at full lock "
                             f"({1.0 / lock:.3g} {unit})")
        sign = 1.0 if spec.get("turn") == "left" else -1.0
        n = max(int(math.floor(2.0 * math.pi * radius / step)), 8)
        step = 2.0 * math.pi * radius / n
        a = np.arange(n) * step / radius
        heading = sign * a
        return Course(rows_of(radius * np.sin(a), sign * radius * (1.0 - np.cos(a)), step, True, heading,
                              np.full(n, sign / radius)), closed=True)
    if kind == "lane_change":
        start, change, offset = spec.get("start"), spec.get("change"), spec.get("offset")
        levels = ((0.0, start, start + change, offset),)
        return Course(_smooth_line(levels, spec.get("length"), step))
    if kind == "iso3888_2":
        return iso3888_2(car.body.width, car.body.length, *_body_reach(car), spec.get("run_up"), spec.get("run_out"),
                         step)
    points = np.asarray(spec.get("points"), dtype=float)
    rows = track_rows(points[:, 0], points[:, 1], step, spec.get("closed"))
    tightest = float(np.abs(rows[:, CURVATURE]).max())
    lock = math.tan(car.steering.lock) / car.body.wheelbase
    if tightest > lock:
        unit = car.model.unit
        raise ValueError(f"points: a corner rounded over the room its segments give has a radius of "
                         f"{1.0 / tightest:.3g} {unit}, tighter than the car turns at full lock ({1.0 / lock:.3g} "
                         f"{unit}); "
                         "space the points further apart or turn less at each")
    return Course(rows, closed=spec.get("closed"))


def _body_reach(car: CarParams) -> tuple[float, float]:
    """How far the body reaches ahead of and behind the state's reference point."""
    b = car.body
    to_rear_axle = 0.0 if car.kind == "kinematic" and car.model.reference == "rear_axle" else b.lr
    front = b.wheelbase - to_rear_axle + b.front_overhang
    return front, b.length - front


def _cosine(xi):
    xi = np.clip(xi, 0.0, 1.0)
    return 0.5 - 0.5 * np.cos(math.pi * xi), 0.5 * math.pi * np.sin(math.pi * xi), 0.5 * math.pi ** 2 * np.cos(
        math.pi * xi) * ((xi > 0) & (xi < 1))


def _line(x, levels):
    """y, dy/dx and d2y/dx2 of a line of half-cosine changes: (from y, x0, x1, to y) each."""
    y = np.full_like(x, levels[0][0])
    dy = np.zeros_like(x)
    ddy = np.zeros_like(x)
    for y0, x0, x1, y1 in levels:
        f, df, ddf = _cosine((x - x0) / (x1 - x0))
        y = y + (y1 - y0) * f
        dy = dy + (y1 - y0) * df / (x1 - x0)
        ddy = ddy + (y1 - y0) * ddf / (x1 - x0) ** 2
    return y, dy, ddy


def _smooth_line(levels, length: float, step: float, x0: float = 0.0) -> np.ndarray:
    """Rows along the line at equal arc length: arc length by a fine quadrature, then x(s) interpolated."""
    fine = np.linspace(x0, x0 + length, max(int(length / step) * 20, 200) + 1)
    _, dy, _ = _line(fine, levels)
    ds = np.sqrt(1.0 + dy * dy)
    s = np.concatenate([[0.0], np.cumsum(0.5 * (ds[1:] + ds[:-1]) * np.diff(fine))])
    n = max(int(math.floor(s[-1] / step)) + 1, 2)  # two rows at least (past its end the line goes on straight)
    x = np.interp(np.arange(n) * step, s, fine)
    y, dy, ddy = _line(x, levels)
    return rows_of(x, y, step, False, np.arctan(dy), ddy / (1.0 + dy * dy) ** 1.5)


def iso3888_lanes(width: float) -> tuple[tuple[float, float, float, float], ...]:
    """(x0, x1, right limit y, left limit y) of lanes 1, 3 and 5, lane 1 centred on y = 0 from x = 0."""
    w1, w3, w5 = 1.1 * width + 0.25, width + 1.0, max(1.3 * width + 0.25, 3.0)
    starts = np.concatenate([[0.0], np.cumsum(SECTIONS)])
    right3 = w1 / 2 + 1.0
    return ((starts[0], starts[1], -w1 / 2, w1 / 2), (starts[2], starts[3], right3, right3 + w3),
            (starts[4], starts[5], -w1 / 2, -w1 / 2 + w5))


def iso3888_cones(width: float) -> np.ndarray:
    cones = []
    for x0, x1, right, left in iso3888_lanes(width):
        for x in np.linspace(x0, x1, CONES_PER_SIDE):
            cones += [(x, right - CONE_RADIUS), (x, left + CONE_RADIUS)]
    return np.array(cones)


def body_clearance(x, y, heading, cones, front: float, back: float, width: float, per_cone: bool = False) -> np.ndarray:
    """Per pose (..., P), the least distance from the body's outline to any cone's base circle
    (negative: the body overlaps a cone); with ``per_cone``, to each cone (..., P, cones). The body is
    the rectangle from ``back`` behind to ``front`` ahead of the point (x, y), ``width`` wide, turned
    to ``heading``."""
    c, s = np.cos(heading)[..., None], np.sin(heading)[..., None]
    dx, dy = cones[:, 0] - np.asarray(x)[..., None], cones[:, 1] - np.asarray(y)[..., None]
    u, w = dx * c + dy * s, -dx * s + dy * c
    ox = np.maximum(np.maximum(-back - u, u - front), 0.0)
    oy = np.maximum(np.abs(w) - width / 2, 0.0)
    inside = np.minimum(np.maximum(-back - u, u - front), np.abs(w) - width / 2)  # < 0 inside
    distance = np.where((ox > 0) | (oy > 0), np.hypot(ox, oy), inside)
    return distance - CONE_RADIUS if per_cone else (distance - CONE_RADIUS).min(axis=-1)


def pair_reach(front: float, back: float, width: float) -> float:
    """How far apart in x a pose and a cone may be for the line search to check them: the body's reach from the pose
    at any heading, the cone's base radius, the margin and PAIR_SPARE (further apart, they clear by more than that)."""
    return math.hypot(max(front, back), width / 2) + CONE_RADIUS + LINE_MARGIN + PAIR_SPARE


@lru_cache(maxsize=32)
def iso3888_line(width: float, front: float, back: float) -> tuple[tuple[float, float, float, float], ...]:
    """The line's two lane changes (from y, x0, x1, to y), lane 1 starting at x = 0 (see the module's note)."""
    cones = iso3888_cones(width)
    lanes = iso3888_lanes(width)
    room = [(r + width / 2 + LINE_MARGIN, l - width / 2 - LINE_MARGIN) for _, _, r, l in lanes]
    poses = np.arange(-front - 1.0, sum(SECTIONS) + back + 1.0, 0.2)
    # Only the (pose, cone) pairs close enough in x for the body to come within the margin of the cone are checked
    # (pair_reach): further apart they clear whatever the candidate's y, so the same candidates pass as when every
    # pair is checked (the bound is tested in tests/workbench/test_courses.py), in about a fifth of the time (0.4 s
    # against 1.8 s a line).
    pose_of, cone_of = np.nonzero(np.abs(poses[:, None] - cones[None, :, 0]) <= pair_reach(front, back, width))
    pair_x, pair_cones = poses[pose_of], cones[cone_of][:, :, None]  # (pairs, 2, 1): cones[:, 0] is (pairs, 1)

    def best(fixed, grid):
        """The candidate of ``grid`` (rows of level tuples) with the least peak curvature that clears."""
        winner, peak = None, math.inf
        for chunk in range(0, len(grid), 400):
            cands = grid[chunk:chunk + 400]
            y = np.zeros((len(cands), len(poses)))
            dy, ddy = np.zeros_like(y), np.zeros_like(y)
            for i, levels in enumerate(cands):
                y[i], dy[i], ddy[i] = _line(poses, fixed + levels)
            heading = np.arctan(dy)
            # body_clearance with one cone per pose: (pairs, 1 cone) for each candidate, then the least of all
            clear = body_clearance(np.broadcast_to(pair_x, (len(cands), len(pair_x))), y[:, pose_of],
                                   heading[:, pose_of], pair_cones, front, back, width, per_cone=True)
            ok = clear[..., 0].min(axis=1) >= LINE_MARGIN
            curv = (np.abs(ddy) / (1.0 + dy * dy) ** 1.5).max(axis=1)
            curv[~ok] = math.inf
            j = int(np.argmin(curv))
            if curv[j] < peak:
                winner, peak = cands[j], curv[j]
        return winner, peak

    (lo1, hi1), (lo3, hi3), (lo5, hi5) = room
    x_end1, x_start3, x_end3, x_start5 = SECTIONS[0], sum(SECTIONS[:2]), sum(SECTIONS[:3]), sum(SECTIONS[:4])
    first = [((y1, a0, a1, y3),) for y1 in np.linspace(lo1, hi1, 3) for y3 in np.linspace(lo3, hi3, 5)
             for a0 in np.arange(x_end1 - 8.0, x_end1 + 3.0, 1.0) for a1 in np.arange(x_start3 - 4.0, x_end3 + 1.0, 1.0)]
    change1, _ = best((), first)
    if change1 is None:
        raise ValueError(f"no line through the ISO 3888-2 course clears the cones for a car {width:g} m wide")
    y3 = change1[0][3]
    second = [((y3, b0, b1, y5),) for y5 in np.linspace(lo5, hi5, 5)
              for b0 in np.arange(x_end3 - 10.0, x_end3 + 2.0, 1.0)
              for b1 in np.arange(x_start5 - 4.0, x_start5 + 8.0, 1.0) if b0 > change1[0][1]]
    change2, _ = best(change1, second)
    if change2 is None:
        raise ValueError(f"no line back into lane 5 of ISO 3888-2 clears the cones for a car {width:g} m wide")
    return tuple(change1) + tuple(change2)


def iso3888_2(width: float, length: float, front: float, back: float, run_up: float, run_out: float,
              step: float) -> Course:
    """The ISO 3888-2 course after a straight run-up of ``run_up``, with ``run_out`` of straight after it."""
    levels = iso3888_line(round(width, 6), round(front, 6), round(back, 6))
    first_y = levels[0][0]
    shifted = tuple((a, x0 + run_up, x1 + run_up, b) for a, x0, x1, b in levels)
    # The run-up joins the line's first level smoothly over its first half (from the car's start at y = 0).
    join = ((0.0, 0.25 * run_up, 0.75 * run_up, first_y),) if first_y != 0.0 else ()
    total = run_up + sum(SECTIONS) + run_out
    rows = _smooth_line(join + shifted, total, step)
    cones = iso3888_cones(width) + np.array([run_up, 0.0])
    lanes = tuple((x0 + run_up, x1 + run_up, r, lft) for x0, x1, r, lft in iso3888_lanes(width))
    return Course(rows, False, cones, lanes, run_up, sum(SECTIONS))
