"""Scenery drawn under a car: the parking lot of 001's Precision Parking game."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Bay:
    """A marked bay, open towards -y: its centre, its width along x and its depth along y."""

    x: float
    y: float
    width: float
    depth: float


def bays_for(params) -> list[Bay]:
    """The bays under a car: 001's parking lot (thirteen bays in a row, in canvas pixels) for a kinematic
    car in pixels, whatever its file is called.

    The scene follows from the preset's content rather than a field of its own: the parking lot is
    measured in 001's canvas pixels, so it only makes sense under a car in that unit, and a preset
    saved as ``parking-tuned.toml`` (or any other name) keeps its lot.
    """
    if params.model.unit != "px" or params.kind != "kinematic":
        return []
    width, depth, row_y = 48.0, 92.0, 190.0
    return [Bay(x=(i - 6) * width, y=row_y, width=width, depth=depth) for i in range(13)]


def bay_lines(bays: list[Bay]) -> tuple[np.ndarray, np.ndarray]:
    """Line segments (pairs of points) that mark the bays: the dividers and the back line."""
    xs, ys = [], []
    if not bays:
        return np.zeros(0), np.zeros(0)
    top = bays[0].y + bays[0].depth / 2
    bottom = bays[0].y - bays[0].depth / 2
    for bay in bays:
        left = bay.x - bay.width / 2
        xs += [left, left]
        ys += [bottom, top]
    right = bays[-1].x + bays[-1].width / 2
    xs += [right, right, bays[0].x - bays[0].width / 2, right]
    ys += [bottom, top, top, top]
    return np.array(xs), np.array(ys)
