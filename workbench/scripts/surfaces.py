"""``[[surface]]`` entries: patches of road under the tyres, each with its friction (and rolling) coefficient.

A rectangle or a polygon, in the world's coordinates (the car starts at the origin heading along +x,
+y to its left)::

    [[surface]]                 # ice under the right-hand wheels from 40 m on
    name = "ice"
    mu = 0.2                    # the road's friction coefficient there (replaces tyres.mu)
    x = [40.0, 200.0]
    y = [-10.0, 0.0]

    [[surface]]
    mu = 0.6
    rolling = 0.02              # optional: the rolling coefficient there (replaces aero.rolling_coefficient)
    polygon = [[0.0, 0.0], [10.0, 0.0], [10.0, 5.0]]

Where patches overlap the later one wins; outside them the car's own values hold. Each wheel of the
four-wheel car reads the patch under its own contact patch, each axle of a single-track combined car
the patch under the axle's centre (physics.surface).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from physics.groups import COMBINED, KINEMATIC
from physics.surface import COLUMNS, NO_ROLLING

SURFACE_KEYS = ("name", "mu", "rolling", "x", "y", "polygon")
MAX_SURFACES = 256
MAX_VERTICES = 64
MAX_COORDINATE = 1e6  # [L] a million metres (or pixels) from the start
MU_RANGE = (0.0, 3.0)  # (exclusive, inclusive): no road grips more than three times its load


@dataclass(frozen=True)
class Surface:
    """One patch of road: its polygon (world x, y) and coefficients; ``rolling`` None keeps the car's."""

    mu: float
    polygon: tuple[tuple[float, float], ...]
    rolling: float | None = None
    name: str = ""
    rectangle: bool = False

    def to_table(self) -> dict[str, Any]:
        table: dict[str, Any] = {"name": self.name} if self.name else {}
        table["mu"] = self.mu
        if self.rolling is not None:
            table["rolling"] = self.rolling
        if self.rectangle:
            xs = [x for x, _ in self.polygon]
            ys = [y for _, y in self.polygon]
            table["x"], table["y"] = [min(xs), max(xs)], [min(ys), max(ys)]
        else:
            table["polygon"] = [list(v) for v in self.polygon]
        return table


def parse_surface(parser, table: dict, i: int) -> Surface:
    """One ``[[surface]]`` table, checked by ``parser`` (the script parser: its ``fail``, ``known_keys`` and
    ``number``)."""
    where = f"[[surface]] #{i}"
    parser.known_keys(table, SURFACE_KEYS, where)
    if "mu" not in table:
        raise parser.fail(where, "`mu` is missing (the road's friction coefficient there)")
    mu = parser.number(table["mu"], f"{where} mu")
    if not MU_RANGE[0] < mu <= MU_RANGE[1]:
        raise parser.fail(where, f"`mu` = {mu:g} must be in ({MU_RANGE[0]:g}, {MU_RANGE[1]:g}]")
    rolling = None
    if "rolling" in table:
        rolling = parser.number(table["rolling"], f"{where} rolling")
        if not 0.0 <= rolling <= 1.0:
            raise parser.fail(where, f"`rolling` = {rolling:g} must be in [0, 1]")
    name = parser.text(table["name"], f"{where} name") if "name" in table else ""
    has_box = "x" in table or "y" in table
    if has_box == ("polygon" in table):
        raise parser.fail(where, "give either `x` and `y` (a rectangle) or `polygon`, one of the two")
    if has_box:
        xs = _pair(parser, table, "x", where)
        ys = _pair(parser, table, "y", where)
        polygon = ((xs[0], ys[0]), (xs[1], ys[0]), (xs[1], ys[1]), (xs[0], ys[1]))
        return Surface(mu, polygon, rolling, name, rectangle=True)
    vertices = table["polygon"]
    if not isinstance(vertices, list) or not 3 <= len(vertices) <= MAX_VERTICES:
        raise parser.fail(where, f"`polygon` must be a list of 3 to {MAX_VERTICES} [x, y] points")
    points = []
    for k, v in enumerate(vertices, 1):
        if not isinstance(v, list) or len(v) != 2:
            raise parser.fail(where, f"`polygon` point {k} must be [x, y]")
        points.append((_coordinate(parser, v[0], f"{where} polygon point {k}"),
                       _coordinate(parser, v[1], f"{where} polygon point {k}")))
    numbers = _outline(points)  # each point of the outline by its number in the entry
    crossing = _crossing_edges([points[k - 1] for k in numbers])
    if crossing is not None:
        a, b = (f"points {numbers[e - 1]} to {numbers[e % len(numbers)]}" for e in crossing)
        raise parser.fail(where, f"`polygon`'s edges from {a} and from {b} cross: give its points in order around its "
                                 "outline")
    if abs(_area(points)) <= 0.0:
        raise parser.fail(where, "`polygon` encloses no area")
    return Surface(mu, tuple(points), rolling, name)


def ignored_by(params) -> str | None:
    """Why a car with ``params`` (physics.CarParams) would drive over road surfaces as if they were not there, or
    None where its tyres read them: the combined-traction cars (single-track and four-wheel) do; 001's kinematic
    bicycle has no tyres, and 003's simple traction takes its grip from tyres.mu and tyres.traction_mu alone."""
    model = params.model
    if model.kind == KINEMATIC:
        return "road surfaces act on a car's tyres, and a kinematic car (model.kind = 'kinematic') has none"
    if model.traction != COMBINED:
        return (f"road surfaces act on cars with model.traction = 'combined'; with {model.traction!r} the grip is "
                "tyres.mu and tyres.traction_mu everywhere")
    return None


def road_lost(surfaces: Sequence[Surface], before, after, road: str = "the script's [[surface]]") -> str | None:
    """Why parameters ``after`` may not take the place of ``before`` under a road of ``surfaces``: the car felt
    the road and would no longer (:func:`ignored_by`); else None. ``road`` names the road in the words."""
    if surfaces and ignored_by(after) and not ignored_by(before):
        return f"the car would no longer feel {road}: {ignored_by(after)}"
    return None


def check_surfaces(parser, surfaces: Sequence[Surface]) -> None:
    if len(surfaces) > MAX_SURFACES:
        raise parser.fail("[[surface]]", f"{len(surfaces)} surfaces; a script may lay at most {MAX_SURFACES}")


def _pair(parser, table, key, where) -> tuple[float, float]:
    if key not in table:
        raise parser.fail(where, f"`{key}` is missing (a rectangle needs both x and y, as [from, to])")
    value = table[key]
    if not isinstance(value, list) or len(value) != 2:
        raise parser.fail(where, f"`{key}` must be [from, to]")
    lo, hi = (_coordinate(parser, v, f"{where} {key}") for v in value)
    if not lo < hi:
        raise parser.fail(where, f"`{key}` = [{lo:g}, {hi:g}]: `from` must be less than `to`")
    return lo, hi


def _coordinate(parser, value, where) -> float:
    number = parser.number(value, where)
    if not abs(number) <= MAX_COORDINATE:
        raise parser.fail(where, f"{number:g} is further than {MAX_COORDINATE:g} from the start")
    return number


def _outline(points) -> list[int]:
    """The numbers (from 1) of the polygon's points with a point repeated at once, and a closing point that repeats
    the first, left out (a ring written closed is the same outline), for the crossing check; the points are laid as
    given."""
    out = [k + 1 for k, q in enumerate(points) if k == 0 or q != points[k - 1]]
    while len(out) > 1 and points[out[-1] - 1] == points[0]:
        out.pop()
    return out


def _crossing_edges(points) -> tuple[int, int] | None:
    """The first two edges of a polygon (numbered from 1: edge k joins point k to the next) that cross or touch other
    than where neighbours share a point; None for a simple polygon. A figure of eight was refused as enclosing no area
    (its halves' signed areas cancel) and one whose halves differ was laid as a road no one meant."""
    n = len(points)

    def side(o, a, b) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def within(o, a, b) -> bool:  # b on the line through o and a: between them
        return min(o[0], a[0]) <= b[0] <= max(o[0], a[0]) and min(o[1], a[1]) <= b[1] <= max(o[1], a[1])

    for i in range(n):
        p1, p2 = points[i], points[(i + 1) % n]
        for j in range(i + 1, n):
            if j == i + 1 or (i == 0 and j == n - 1):  # neighbours: they share a point
                continue
            q1, q2 = points[j], points[(j + 1) % n]
            d1, d2, d3, d4 = side(q1, q2, p1), side(q1, q2, p2), side(p1, p2, q1), side(p1, p2, q2)
            if ((d1 > 0) != (d2 > 0) and d1 != 0 and d2 != 0 and (d3 > 0) != (d4 > 0) and d3 != 0 and d4 != 0) or (
                    (d1 == 0 and within(q1, q2, p1)) or (d2 == 0 and within(q1, q2, p2))
                    or (d3 == 0 and within(p1, p2, q1)) or (d4 == 0 and within(p1, p2, q2))):
                return i + 1, j + 1
    return None


def _area(points) -> float:
    return 0.5 * sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True))


def ground_rows(surfaces: Sequence[Surface]) -> np.ndarray:
    """The kernel's rows of the surfaces (physics.surface): a header row per polygon, then its vertices."""
    rows = []
    for s in surfaces:
        rows.append((len(s.polygon), s.mu, NO_ROLLING if s.rolling is None else s.rolling, 0.0))
        rows.extend((x, y, 0.0, 0.0) for x, y in s.polygon)
    return np.array(rows, dtype=np.float64).reshape(len(rows), COLUMNS)


def ground_for(programs) -> dict[str, np.ndarray]:
    """The Simulation keywords that lay each program's surfaces under its car (programs of one batch)."""
    ground, index = ground_of([p.script.surfaces for p in programs])
    return {"ground": ground, "ground_index": index}


def ground_of(surface_sets: Sequence[Sequence[Surface]]) -> tuple[np.ndarray, np.ndarray]:
    """One batch's ground rows and each car's (first row, row count) in them."""
    blocks, index, first = [], np.zeros((len(surface_sets), 2), dtype=np.int64), 0
    for i, surfaces in enumerate(surface_sets):
        rows = ground_rows(surfaces)
        index[i] = (first, len(rows))
        blocks.append(rows)
        first += len(rows)
    ground = np.concatenate(blocks) if first else np.zeros((1, COLUMNS))
    return np.ascontiguousarray(ground), index
