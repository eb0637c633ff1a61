"""A polyline's segments clipped to a box (Liang-Barsky), in one pass over the segments: what a chart's legend
weighs a corner by (workbench.gui.charts) and what an SVG export draws of a reference (workbench.gui.plot_overlay)."""

from __future__ import annotations

import numpy as np


def segments_in_box(x: np.ndarray, y: np.ndarray, left: float, right: float, bottom: float, top: float):
    """For each segment of the polyline (x, y), ``bottom`` <= ``top``: its start (x0, y0), its step (dx, dy), and
    the parameters ``enter`` <= t <= ``leave`` (of the segment from t = 0 to 1) it runs inside the box, with
    ``outside`` where it never does (parallel to an edge and beyond it). Where enter > leave it misses the box."""
    x0, y0, dx, dy = x[:-1], y[:-1], np.diff(x), np.diff(y)
    enter, leave = np.zeros(len(dx)), np.ones(len(dx))
    outside = np.zeros(len(dx), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - bottom), (dy, top - y0)):
            t = q / p
            outside |= (p == 0) & (q < 0)
            enter = np.where(p < 0, np.maximum(enter, t), enter)
            leave = np.where(p > 0, np.minimum(leave, t), leave)
    return x0, y0, dx, dy, enter, leave, outside
