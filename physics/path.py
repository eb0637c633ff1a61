"""A path for the closed-loop driver: points at equal spacing along it, and where a car is on it.

A path is a block of rows of a float64 "track" array (columns :data:`COLUMNS`): x, y, heading and
curvature of the path at arc length s, with s rising by the same spacing from row to row. A car's
driver record names its first row and row count, so the paths of every car of a batch sit in one
array the kernel takes as an argument. A closed path (a circle) continues from its last row to its
first. The driver's speed profile is a block of rows of the same array: (time or distance, speed).

The functions at the end are compiled into the kernel: :func:`locate` finds the point of the path
nearest a car (searching from the car's last match, so a frame costs a few rows), :func:`point_at`
interpolates the path at an arc length, :func:`profile_at` the speed profile at a key.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import scalar

COLUMNS = ("x", "y", "heading", "curvature", "s")
X, Y, HEADING, CURVATURE, S = range(len(COLUMNS))
MAX_ROWS = 2_000_000
"""Rows a batch's track may hold (every car's path and profile together)."""
SEARCH = 64
"""Rows the nearest-point search may move from the last match in one frame (a car moves far less)."""


def track_rows(x, y, spacing: float, closed: bool = False) -> np.ndarray:
    """The rows of the path through the points (x, y), resampled at ``spacing`` along it.

    Between the given points the path is a straight line; heading and curvature are taken from the
    resampled points by central differences (for a smooth path given densely, its own). A closed
    path joins its last point to its first.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError("a path needs at least two points (x, y)")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("a path's points must be finite")
    if not spacing > 0:
        raise ValueError(f"spacing {spacing!r}: must be positive")
    if closed:
        x, y = np.append(x, x[0]), np.append(y, y[0])
    steps = np.hypot(np.diff(x), np.diff(y))
    keep = np.concatenate([[True], steps > 0])
    x, y = x[keep], y[keep]
    along = np.concatenate([[0.0], np.cumsum(steps[steps > 0])])
    length = along[-1]
    if length <= 0:
        raise ValueError("a path's points must not all be the same")
    count = max(int(math.floor(length / spacing)), 1) + (0 if closed else 1)
    if count > MAX_ROWS:
        raise ValueError(f"the path is {count:,} points at a spacing of {spacing:g}; at most {MAX_ROWS:,}")
    step = length / (count if closed else count - 1)
    s = np.arange(count) * step
    rx, ry = np.interp(s, along, x), np.interp(s, along, y)
    return rows_of(rx, ry, step, closed)


def rows_of(x: np.ndarray, y: np.ndarray, step: float, closed: bool, heading: np.ndarray | None = None,
            curvature: np.ndarray | None = None) -> np.ndarray:
    """Rows from points already at equal spacing ``step``; heading and curvature as given (a generator
    knows them exactly) or by central differences."""
    n = len(x)
    if heading is not None and curvature is not None:
        out = np.empty((n, len(COLUMNS)))
        out[:, X], out[:, Y], out[:, HEADING], out[:, CURVATURE] = x, y, heading, curvature
        out[:, S] = np.arange(n) * step
        return out
    if closed:
        dx = (np.roll(x, -1) - np.roll(x, 1)) / 2.0
        dy = (np.roll(y, -1) - np.roll(y, 1)) / 2.0
    else:
        dx, dy = np.gradient(x), np.gradient(y)
    heading = np.unwrap(np.arctan2(dy, dx))
    if closed:
        turn = np.angle(np.exp(1j * (np.roll(heading, -1) - np.roll(heading, 1))))
        curvature = turn / (2.0 * step)
    else:
        curvature = np.gradient(heading, step) if n > 2 else np.zeros(n)
    out = np.empty((n, len(COLUMNS)))
    out[:, X], out[:, Y], out[:, HEADING], out[:, CURVATURE] = x, y, heading, curvature
    out[:, S] = np.arange(n) * step
    return out


def profile_rows(keys, speeds) -> np.ndarray:
    """A speed profile's rows: (key, speed) in columns 0 and 1, keys rising (times or distances)."""
    keys = np.asarray(keys, dtype=float)
    speeds = np.asarray(speeds, dtype=float)
    if keys.shape != speeds.shape or keys.ndim != 1 or len(keys) < 1:
        raise ValueError("a speed profile needs at least one (key, speed) pair")
    if np.any(np.diff(keys) <= 0):
        raise ValueError("a speed profile's keys must rise")
    out = np.zeros((len(keys), len(COLUMNS)))
    out[:, 0], out[:, 1] = keys, speeds
    return out


def path_length(track: np.ndarray, start: int, count: int, closed: bool) -> float:
    """The arc length the rows span (a closed path: back round to its first row)."""
    step = track[start + 1, S] - track[start, S] if count > 1 else 0.0
    return step * (count if closed else count - 1)


# -- compiled into the kernel --------------------------------------------------------------------


@scalar
def _wrap_angle(a):
    return math.atan2(math.sin(a), math.cos(a))


@scalar
def _row(start, count, closed, j):
    """Row index of the j-th point (wrapped on a closed path, clamped on an open one)."""
    if closed:
        return start + (j % count)
    return start + min(max(j, 0), count - 1)


@scalar
def locate(track, start, count, closed, hint, px, py):
    """The point of the path nearest (px, py), searched from row ``hint`` (relative to ``start``).

    Returns (row found, relative; arc length s of the foot point; signed distance, positive to the
    left of the path; the path's heading and curvature there). Near the row found the path is taken
    as its tangent line, which is within curvature * spacing^2 / 8 of an arc.
    """
    best = hint
    r = _row(start, count, closed, best)
    best_d2 = (track[r, X] - px) ** 2 + (track[r, Y] - py) ** 2
    for direction in (1, -1):
        j = best
        for _ in range(SEARCH):
            nxt = j + direction
            if not closed and (nxt < 0 or nxt >= count):
                break
            rr = _row(start, count, closed, nxt)
            d2 = (track[rr, X] - px) ** 2 + (track[rr, Y] - py) ** 2
            if d2 >= best_d2:
                break
            best, best_d2, j = nxt, d2, nxt
    if closed:
        best = best % count
    r = _row(start, count, closed, best)
    heading = track[r, HEADING]
    c, s = math.cos(heading), math.sin(heading)
    dx, dy = px - track[r, X], py - track[r, Y]
    step = track[start + 1, S] - track[start, S]
    ahead = dx * c + dy * s
    if not closed:  # the ends of an open path continue straight along their headings
        if best == 0 and ahead < 0.0 or best == count - 1 and ahead > 0.0:
            step = abs(ahead) + step
    ahead = min(max(ahead, -step), step)
    # The foot point's heading, not the row's: a row's heading would step at every row passed.
    curvature = track[r, CURVATURE]
    return best, track[r, S] + ahead, -dx * s + dy * c, heading + curvature * ahead, curvature


@scalar
def point_at(track, start, count, closed, s):
    """x, y, heading and curvature of the path at arc length ``s`` (an open path goes on straight)."""
    step = track[start + 1, S] - track[start, S]
    f = s / step
    j = int(math.floor(f))
    if not closed and j >= count - 1:
        r = start + count - 1
        extra = s - track[r, S]
        h = track[r, HEADING]
        return track[r, X] + extra * math.cos(h), track[r, Y] + extra * math.sin(h), h, 0.0
    if not closed and j < 0:
        h = track[start, HEADING]
        return track[start, X] + s * math.cos(h), track[start, Y] + s * math.sin(h), h, 0.0
    w = f - j
    a, b = _row(start, count, closed, j), _row(start, count, closed, j + 1)
    turn = _wrap_angle(track[b, HEADING] - track[a, HEADING])
    return ((1.0 - w) * track[a, X] + w * track[b, X], (1.0 - w) * track[a, Y] + w * track[b, Y],
            track[a, HEADING] + w * turn, (1.0 - w) * track[a, CURVATURE] + w * track[b, CURVATURE])


@scalar
def profile_at(track, start, count, key):
    """The speed of a profile at ``key``, linear between its points and held beyond its ends."""
    if key <= track[start, 0]:
        return track[start, 1]
    last = start + count - 1
    if key >= track[last, 0]:
        return track[last, 1]
    lo, hi = start, last
    while hi - lo > 1:  # bisection: profiles are short, but a recorded one may not be
        mid = (lo + hi) // 2
        if track[mid, 0] <= key:
            lo = mid
        else:
            hi = mid
    w = (key - track[lo, 0]) / (track[hi, 0] - track[lo, 0])
    return (1.0 - w) * track[lo, 1] + w * track[hi, 1]
