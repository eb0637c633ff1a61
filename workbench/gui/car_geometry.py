"""Where the parts of the car are in the world, for drawing: body, wheels, arrows, turn centre.

Pure numpy from one frame's channels and the car's parameters, so the drawing can be checked
against the model without a screen.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from physics import CarParams

ARROW_SECONDS = 0.3  # the velocity arrow shows where the car would be this much later
STRAIGHT = 1e-6  # |curvature| * wheelbase below this counts as driving straight


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


def _rot(heading: float) -> np.ndarray:
    c, s = np.cos(heading), np.sin(heading)
    return np.array([[c, -s], [s, c]])


def _box(centre: np.ndarray, heading: float, front: float, back: float, half_width: float) -> np.ndarray:
    local = np.array([[front, half_width], [-back, half_width], [-back, -half_width], [front, -half_width],
                      [front, half_width]])
    return centre + local @ _rot(heading).T


def car_shape(v: dict[str, float], p: CarParams, dt: float = 0.0) -> CarShape:
    """The car at the frame whose channel values are ``v`` (see :class:`physics.Telemetry`); ``dt`` is the
    step of the run (it places the centre of rotation of a kinematic car exactly on its trail)."""
    b = p.body
    heading = v["heading"]
    ahead = np.array([np.cos(heading), np.sin(heading)])
    left = np.array([-ahead[1], ahead[0]])
    point = np.array([v["x"], v["y"]])
    if p.kind == "kinematic" and p.model.reference == "rear_axle":
        rear = point
    else:
        rear = point - b.lr * ahead
    com = rear + b.lr * ahead
    front = rear + b.wheelbase * ahead
    rear_overhang = b.length - b.wheelbase - b.front_overhang
    body = _box(rear, heading, b.wheelbase + b.front_overhang, rear_overhang, b.width / 2)
    nose_at = rear + (b.wheelbase + b.front_overhang) * 0.92 * ahead
    nose = np.array([nose_at + 0.4 * b.width * left, nose_at - 0.4 * b.width * left])
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
    scale = b.wheelbase / (b.mass * p.model.gravity)
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
    return CarShape(body, nose, wheels, com, rear, front, np.array([point, point + ARROW_SECONDS * world_v]),
                    force_front, force_rear, turn_centre, turn_radius, icr)


def circle(centre: np.ndarray, radius: float, points: int = 181) -> tuple[np.ndarray, np.ndarray]:
    a = np.linspace(0.0, 2.0 * np.pi, points)
    return centre[0] + radius * np.cos(a), centre[1] + radius * np.sin(a)
