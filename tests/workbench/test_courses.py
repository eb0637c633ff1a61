"""The ISO 3888-2 course's line: the search checks only the (pose, cone) pairs close enough to matter."""

from __future__ import annotations

import numpy as np

from physics import load_preset
from workbench.scripts.courses import (
    LINE_MARGIN,
    PAIR_SPARE,
    SECTIONS,
    _body_reach,
    _line,
    body_clearance,
    iso3888_cones,
    iso3888_line,
    pair_reach,
)


def _sedan():
    car = load_preset("sedan").params
    front, back = _body_reach(car)
    return round(car.body.width, 6), round(front, 6), round(back, 6)


def test_a_pose_and_cone_further_apart_than_the_reach_always_clear():
    # What lets the search skip the pairs far apart in x: at any heading the body stays within its reach of the pose.
    width, front, back = _sedan()
    reach = pair_reach(front, back, width)  # the search's own
    rng = np.random.default_rng(5)
    heading = rng.uniform(-np.pi, np.pi, 20_000)
    gap = rng.choice([-1.0, 1.0], heading.size) * (reach + rng.uniform(0.0, 0.5, heading.size))
    cones = np.array([[0.0, 0.0]])
    clear = body_clearance(-gap, rng.uniform(-3.0, 3.0, heading.size), heading, cones, front, back, width)
    assert clear.min() >= LINE_MARGIN + PAIR_SPARE - 1e-9
    closer = body_clearance(np.full(4, 0.5 * reach), np.zeros(4), np.zeros(4), cones, front, back, width)
    assert closer.min() < LINE_MARGIN + PAIR_SPARE  # within the reach a pair can fail, so it is checked


def test_the_line_clears_every_cone_along_its_whole_length():
    width, front, back = _sedan()
    levels = iso3888_line(width, front, back)
    x = np.arange(-front - 1.0, sum(SECTIONS) + back + 1.0, 0.01)  # twenty times finer than the search's poses
    y, dy, _ = _line(x, levels)
    clear = body_clearance(x, y, np.arctan(dy), iso3888_cones(width), front, back, width)
    assert clear.min() >= LINE_MARGIN - 1e-3  # between the search's poses the body comes no closer than a millimetre
    assert clear.min() < 0.5  # the line goes close to the cones: the least curvature, not the most room
