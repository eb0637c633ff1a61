"""Where the parts of the car are in the world, for drawing: body, wheels, arrows, turn centre, and on a
four-wheel car each corner's force, load and driver aids.

Pure numpy from one frame's channels and the car's parameters, so the drawing can be checked
against the model without a screen.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from physics import CarParams
from physics.corners import CORNERS
from physics.groups import FOUR_WHEEL

ARROW_SECONDS = 0.3  # the velocity arrow shows where the car would be this much later
STRAIGHT = 1e-6  # |curvature| * wheelbase below this counts as driving straight
LIFTED = 0.02  # a wheel carrying less than this share of its static load is off the ground
UNLOADED = 0.5  # below this share of its static load a wheel's load bar turns to the warning colour
LOAD_BAR_MAX = 2.5  # the load bar stops growing at this many static loads
AIDS = ("abs", "tcs", "esc")  # the per-wheel aid channels, in the order their marks are written


@dataclass(frozen=True)
class CarShape:
    """World coordinates of everything the car view draws for one frame (arrays of points)."""

    body: np.ndarray  # (5, 2) closed outline
    nose: np.ndarray  # (2, 2) a line across the front, so the heading reads at a glance
    wheels: list[np.ndarray]  # four (5, 2) outlines: rear left, rear right, front left, front right
    com: np.ndarray  # (2,)
    rear_axle: np.ndarray  # (2,)
    front_axle: np.ndarray  # (2,)
    velocity: np.ndarray  # (2, 2) from the reference point (whose velocity the state holds)
    force_front: np.ndarray  # (2, 2) from the front axle
    force_rear: np.ndarray  # (2, 2) from the rear axle
    turn_centre: np.ndarray | None  # the bicycle's centre, R = L / tan(delta) beside the rear axle
    turn_radius: float | None  # |R|
    icr: np.ndarray | None  # the body's actual instantaneous centre of rotation
    corners: list[WheelShape] | None = None  # a four-wheel car's corners (fl, fr, rl, rr); None on a single track


@dataclass(frozen=True)
class WheelShape:
    """One corner of a four-wheel car, in world coordinates: where it is, its force, its load and its aids."""

    corner: str  # fl, fr, rl, rr (physics.corners)
    centre: np.ndarray  # (2,) the contact patch
    outline: np.ndarray  # (5, 2) the wheel, at its own steering angle
    force: np.ndarray  # (2, 2) from the centre: the tyre's (fx, fy) turned into the world
    load_ratio: float  # load / static load
    load_bar: np.ndarray  # (5, 2) beside the wheel, outboard: as long as the wheel at the static load
    load_frame: np.ndarray  # (5, 2) the same bar at the static load (the scale the bar is read against)
    lifted: bool  # load below LIFTED of the static load
    aids: tuple[str, ...]  # the aids acting on the wheel this frame: some of "ABS", "TCS", "ESC"
    aids_at: np.ndarray  # (2,) where their names are written: outboard of the load bar
    aids_away: np.ndarray  # (2,) the way the names run from there, away from the car: forwards (a front wheel) or
    #   backwards (a rear one) and outboard, so that no two wheels' names meet however small the car is drawn


def force_scale(p: CarParams) -> float:
    """World length per newton of the force arrows: the car's weight draws one wheelbase long."""
    return p.body.wheelbase / (p.body.mass * p.model.gravity)


def _rot(heading: float) -> np.ndarray:
    c, s = np.cos(heading), np.sin(heading)
    return np.array([[c, -s], [s, c]])


def _box(centre: np.ndarray, heading: float, front: float, back: float, half_width: float) -> np.ndarray:
    local = np.array([[front, half_width], [-back, half_width], [-back, -half_width], [front, -half_width],
                      [front, half_width]])
    return centre + local @ _rot(heading).T


def outline(point: np.ndarray, heading: float, p: CarParams) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The body's closed outline (5, 2), the nose line (2, 2), the rear axle (2,) and the centre of mass (2,)
    of a car whose reference point (the state's x, y) is at ``point``, heading ``heading`` [rad]."""
    b = p.body
    ahead = np.array([np.cos(heading), np.sin(heading)])
    left = np.array([-ahead[1], ahead[0]])
    rear = point if p.kind == "kinematic" and p.model.reference == "rear_axle" else point - b.lr * ahead
    rear_overhang = b.length - b.wheelbase - b.front_overhang
    body = _box(rear, heading, b.wheelbase + b.front_overhang, rear_overhang, b.width / 2)
    nose_at = rear + (b.wheelbase + b.front_overhang) * 0.92 * ahead
    nose = np.array([nose_at + 0.4 * b.width * left, nose_at - 0.4 * b.width * left])
    return body, nose, rear, rear + b.lr * ahead


def car_shape(v: dict[str, float], p: CarParams, dt: float = 0.0) -> CarShape:
    """The car at the frame whose channel values are ``v`` (see :class:`physics.Telemetry`); ``dt`` is the
    step of the run (it places the centre of rotation of a kinematic car exactly on its trail). A ghost
    draws only the :func:`outline`."""
    b = p.body
    heading = v["heading"]
    point = np.array([v["x"], v["y"]])
    body, nose, rear, com = outline(point, heading, p)
    ahead = np.array([np.cos(heading), np.sin(heading)])
    left = np.array([-ahead[1], ahead[0]])
    front = rear + b.wheelbase * ahead
    half_track = b.track / 2
    wheel_len = max(b.wheel_radius, 0.06 * b.length)
    wheel_half_w = 0.35 * wheel_len
    wheels = [
        _box(rear + half_track * left, heading, wheel_len, wheel_len, wheel_half_w),
        _box(rear - half_track * left, heading, wheel_len, wheel_len, wheel_half_w),
        _box(front + half_track * left, heading + v["wheel_left"], wheel_len, wheel_len, wheel_half_w),
        _box(front - half_track * left, heading + v["wheel_right"], wheel_len, wheel_len, wheel_half_w),
    ]
    world_v = _rot(heading) @ np.array([v["vx"], v["vy"]])
    # A force equal to the car's weight draws one wheelbase long, perpendicular to its wheel.
    scale = force_scale(p)
    front_dir = _rot(heading + v["steer"]) @ np.array([0.0, 1.0])
    force_front = np.array([front, front + v["fy_front"] * scale * front_dir])
    force_rear = np.array([rear, rear + v["fy_rear"] * scale * left])
    curvature = v["curvature"]
    turn_centre = turn_radius = None
    if abs(curvature) * b.wheelbase > STRAIGHT:
        turn_centre = rear + left / curvature
        turn_radius = abs(1.0 / curvature)
    # The body turns about the point where the velocity of every point is perpendicular to the line
    # from it: from the reference point P (whose velocity vx, vy is), ICR = P + z x v_P / r. On a
    # kinematic car with the rear-axle reference that is the rear axle's velocity, not the CoM's.
    icr = None
    r = v["yaw_rate"]
    speed = np.hypot(*world_v)
    if abs(r) > 1e-6 and speed > 0 and speed / abs(r) < 1e4 * b.wheelbase:
        normal = np.array([-world_v[1], world_v[0]])
        if p.kind == "kinematic" and dt > 0:
            # 001's integrator moves the point along the new heading over the step, so the trail is a
            # polygon whose chords (not its corners) have this velocity: the circle through the
            # corners has its centre square to the middle of the last chord.
            half_turn = 0.5 * dt * r
            icr = point - 0.5 * dt * world_v + normal * (0.5 * dt / np.tan(half_turn))
        else:
            icr = point + normal / r
    wheel_shapes = None
    if p.model.layout == FOUR_WHEEL:
        angles = {"fl": v["wheel_left"], "fr": v["wheel_right"], "rl": 0.0, "rr": 0.0}
        outlines = {"rl": wheels[0], "rr": wheels[1], "fl": wheels[2], "fr": wheels[3]}
        statics = p.static_loads()
        wheel_shapes = [_corner(v, p, c, front if c.front else rear, left, heading, angles[c.name], outlines[c.name],
                                scale, statics[0 if c.front else 1], wheel_len, wheel_half_w) for c in CORNERS]
    return CarShape(body, nose, wheels, com, rear, front, np.array([point, point + ARROW_SECONDS * world_v]),
                    force_front, force_rear, turn_centre, turn_radius, icr, wheel_shapes)


def _corner(v, p: CarParams, c, axle: np.ndarray, left: np.ndarray, heading: float, angle: float,
            outline: np.ndarray, scale: float, static: float, wheel_len: float, wheel_half_w: float) -> WheelShape:
    b = p.body
    centre = axle + c.side * 0.5 * b.track * left
    force = np.array([centre, centre + scale * (_rot(heading + angle) @ np.array([v[f"fx_{c.name}"],
                                                                                  v[f"fy_{c.name}"]]))])
    ratio = max(v[f"load_{c.name}"], 0.0) / static if static > 0 else 0.0
    # The bar lies outboard of the body, from the wheel's back to the front: a wheel's length per static load.
    bar_half_w = 0.5 * wheel_half_w
    offset = max(0.5 * b.width, 0.5 * b.track + wheel_half_w) + 0.5 * wheel_half_w + bar_half_w
    bar_at = axle + c.side * offset * left - wheel_len * np.array([np.cos(heading), np.sin(heading)])
    length = 2.0 * wheel_len
    bar = _box(bar_at, heading, length * min(ratio, LOAD_BAR_MAX), 0.0, bar_half_w)
    frame = _box(bar_at, heading, length, 0.0, bar_half_w)
    aids = tuple(a.upper() for a in AIDS if v[f"{a}_{c.name}"] > 0.5)
    aids_at = axle + c.side * (offset + bar_half_w + 0.5 * b.width) * left
    ahead = np.array([np.cos(heading), np.sin(heading)])
    away = (1.0 if c.front else -1.0) * ahead + c.side * left
    return WheelShape(c.name, centre, outline, force, ratio, bar, frame, ratio < LIFTED, aids, aids_at, away)


def circle(centre: np.ndarray, radius: float, points: int = 181) -> tuple[np.ndarray, np.ndarray]:
    a = np.linspace(0.0, 2.0 * np.pi, points)
    return centre[0] + radius * np.cos(a), centre[1] + radius * np.sin(a)


def inside(polygon: np.ndarray, point: np.ndarray) -> bool:
    """Whether ``point`` lies inside ``polygon`` ((n, 2), not closed), by even-odd crossings as physics.surface."""
    x, y = point
    hit = False
    for (xi, yi), (xj, yj) in zip(polygon, np.roll(polygon, 1, axis=0), strict=True):
        if (yi > y) != (yj > y) and x < xi + (y - yi) * (xj - xi) / (yj - yi):
            hit = not hit
    return hit


def label_point(polygon: np.ndarray, view: tuple[float, float, float, float]) -> np.ndarray:
    """Where a surface's label goes for the view (x0, x1, y0, y1): in the part of the polygon's bounding box
    in view (kept a little inside), halfway across it and as near a quarter from the view's left as it
    goes (the following camera keeps the car near the middle), when that point is on the surface; else
    the mean of its vertices. A road a kilometre long keeps its label on screen, beside the car."""
    x0, x1, y0, y1 = view
    inset = 0.1 * np.array([x1 - x0, y1 - y0])
    lo, hi = polygon.min(axis=0), polygon.max(axis=0)
    off_edge = np.minimum(0.25 * (hi - lo), 0.5 * inset)  # off the edges, where the even-odd test is undecided
    lo, hi = lo + off_edge, hi - off_edge
    near_lo = np.maximum(lo, np.array([x0, y0]) + inset)
    near_hi = np.minimum(hi, np.array([x1, y1]) - inset)
    if np.any(near_lo > near_hi):  # the surface is (nearly) out of view: its bounding box's nearest point
        near_lo, near_hi = lo, hi
    point = np.array([min(max(x0 + 0.25 * (x1 - x0), near_lo[0]), near_hi[0]), 0.5 * (near_lo[1] + near_hi[1])])
    return point if inside(polygon, point) else polygon.mean(axis=0)


def edge_point(target: np.ndarray, view: tuple[float, float, float, float], inset: float) -> tuple[np.ndarray, float]:
    """Where the line from the view's (x0, x1, y0, y1) centre to an off-view ``target`` crosses the view's edge
    drawn ``inset`` inside, and the line's direction [rad]: the place and bearing of an edge-of-view marker."""
    x0, x1, y0, y1 = view
    centre = np.array([0.5 * (x0 + x1), 0.5 * (y0 + y1)])
    half = np.maximum(np.array([0.5 * (x1 - x0), 0.5 * (y1 - y0)]) - inset, 1e-9)
    d = np.asarray(target, dtype=float) - centre
    bearing = float(np.arctan2(d[1], d[0]))
    reach = np.min(np.where(np.abs(d) > 0, half / np.maximum(np.abs(d), 1e-300), np.inf))
    return centre + d * min(reach, 1.0), bearing


def in_view(point: np.ndarray, view: tuple[float, float, float, float]) -> bool:
    x0, x1, y0, y1 = view
    return bool(x0 <= point[0] <= x1 and y0 <= point[1] <= y1)


def chevron(at: np.ndarray, bearing: float, size: float) -> np.ndarray:
    """A closed arrowhead (5, 2) of ``size`` (its length) with its tip at ``at``, pointing along ``bearing``."""
    local = size * np.array([[0.0, 0.0], [-1.0, 0.6], [-0.65, 0.0], [-1.0, -0.6], [0.0, 0.0]])
    return at + local @ _rot(bearing).T
