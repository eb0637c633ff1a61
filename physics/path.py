"""A path for the closed-loop driver: points at equal spacing along it, and where a car is on it.

A path is a block of rows of a float64 "track" array (columns :data:`COLUMNS`): x, y, heading and
curvature of the path at arc length s, with s rising by the same spacing from row to row. A car's
driver record names its first row and row count, so the paths of every car of a batch sit in one
array the kernel takes as an argument. A closed path (a circle) continues from its last row to its
first. A path given as points has its corners rounded (:func:`track_rows`), so its curvature is
continuous, as a generator's is. The driver's speed profile is a block of rows of the same array:
(time or distance, speed).

The functions at the end are compiled into the kernel: :func:`locate` finds the point of the path
nearest a car (searching from the car's last match, so a frame costs a few rows), :func:`point_at`
interpolates the path at an arc length, :func:`profile_at` the speed profile at a key.
"""

from __future__ import annotations

import math

import numpy as np

from . import approx
from .jit import scalar

COLUMNS = ("x", "y", "heading", "curvature", "s")
X, Y, HEADING, CURVATURE, S = range(len(COLUMNS))
MAX_ROWS = 2_000_000
"""Rows a batch's track may hold (every car's path and profile together)."""
SEARCH = 64
"""Rows the nearest-point search may move from the last match in one frame (a car moves far less)."""


_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(16)
_NODES, _WEIGHTS = 0.5 * (_NODES + 1.0), 0.5 * _WEIGHTS  # Gauss-Legendre on [0, 1]
BLEND_PEAK = 1.5
"""The peak of the blend's curvature over its mean: a corner turning theta over a length Lc is at its
tightest, curvature 1.5 theta / Lc, at its apex (the slope of the smoothstep 3 x^2 - 2 x^3 at 1/2)."""


def _smoothstep(x):
    """The heading's share of a corner's turn at the share x of its length, and its slope."""
    return x * x * (3.0 - 2.0 * x), 6.0 * x * (1.0 - x)


def _chord(theta):
    """The chord of a corner of unit length turning ``theta`` (along its bisector): the integral of
    cos(theta (sigma(x) - 1/2)) over [0, 1]."""
    sigma, _ = _smoothstep(_NODES)
    return np.cos(np.multiply.outer(theta, sigma - 0.5)) @ _WEIGHTS


def track_rows(x, y, spacing: float, closed: bool = False) -> np.ndarray:
    """The rows of a path through the points (x, y), its corners rounded, resampled at ``spacing``.

    Between the points the path is straight, and each corner (a point where it turns by theta) is
    rounded by a blend whose heading turns as the smoothstep 3 x^2 - 2 x^3 of its length: the
    curvature rises from zero at the blend's start to 1.5 theta / Lc at its apex and falls back to
    zero, so it is continuous along the whole path (a polyline's corner is a curvature spike no car
    can follow). Each blend is tangent to both straights and takes all the room they give: its ends
    lie the tangent length T from the corner along both, T the lesser of what each segment offers
    (half of one with a corner at both ends, the whole first or last segment of an open path). Its
    length is then Lc = 2 T cos(theta / 2) / chord(theta) (see :func:`_chord`). A path that turns
    straight back on itself (theta = 180 deg) has no such blend and is refused. A closed path joins
    its last point to its first and begins at the apex of the first point's corner. Heading and
    curvature are the blends' own, not differences.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError("a path needs at least two points (x, y)")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("a path's points must be finite")
    if not spacing > 0:
        raise ValueError(f"spacing {spacing!r}: must be positive")
    number = np.arange(1, len(x) + 1)  # the points' numbers as the script counts them
    keep = np.concatenate([[True], np.hypot(np.diff(x), np.diff(y)) > 0])
    x, y, number = x[keep], y[keep], number[keep]
    if closed and len(x) > 1 and x[-1] == x[0] and y[-1] == y[0]:
        x, y, number = x[:-1], y[:-1], number[:-1]
    if len(x) < 2:
        raise ValueError("a path's points must not all be the same")
    ends_x, ends_y = (np.roll(x, -1), np.roll(y, -1)) if closed else (x[1:], y[1:])
    starts_x, starts_y = x[:len(ends_x)], y[:len(ends_y)]
    seg_dx, seg_dy = ends_x - starts_x, ends_y - starts_y
    seg_len = np.hypot(seg_dx, seg_dy)
    seg_dir = np.arctan2(seg_dy, seg_dx)
    segments = len(seg_len)
    # Corner j sits at the end of segment j (the last of an open path has none).
    corners = segments if closed else segments - 1
    theta = np.angle(np.exp(1j * (np.roll(seg_dir, -1) - seg_dir)))[:corners]
    back = np.flatnonzero(np.abs(theta) > math.pi * (1.0 - 1e-9))
    if len(back):
        raise ValueError(f"the path turns straight back on itself at point #{number[(back[0] + 1) % len(x)]}")
    shared = np.full(segments, 0.5)  # the share of a segment each of its corners may round over
    if not closed:
        shared[0] = shared[-1] = 1.0
    nxt = (np.arange(corners) + 1) % segments
    tangent = np.minimum(shared[:corners] * seg_len[:corners], shared[nxt] * seg_len[nxt])
    tangent[theta == 0.0] = 0.0
    blend = 2.0 * tangent * np.cos(theta / 2.0) / _chord(theta)
    # The pieces in order: the straight of segment j, then the blend of its corner.
    t_in = np.zeros(segments)  # tangent length taken from each segment at its start and at its end
    t_out = np.zeros(segments)
    t_out[:corners] = tangent
    t_in[nxt] = tangent
    heading = seg_dir[0] + np.concatenate([[0.0], np.cumsum(theta)])[:segments]  # unwrapped
    kinds, lengths, px, py, ph, turn = [], [], [], [], [], []
    for j in range(segments):
        c, s = math.cos(seg_dir[j]), math.sin(seg_dir[j])
        kinds.append(0)
        lengths.append(max(seg_len[j] - t_in[j] - t_out[j], 0.0))
        px.append(starts_x[j] + t_in[j] * c)
        py.append(starts_y[j] + t_in[j] * s)
        ph.append(heading[j])
        turn.append(0.0)
        if j < corners and blend[j] > 0:
            kinds.append(1)
            lengths.append(blend[j])
            px.append(ends_x[j] - tangent[j] * c)
            py.append(ends_y[j] - tangent[j] * s)
            ph.append(heading[j])
            turn.append(theta[j])
    kinds, lengths, px, py, ph, turn = map(np.asarray, (kinds, lengths, px, py, ph, turn))
    first = np.concatenate([[0.0], np.cumsum(lengths)])
    length = first[-1]
    count = max(int(math.floor(length / spacing)), 1) + (0 if closed else 1)
    if count > MAX_ROWS:
        raise ValueError(f"the path is {count:,} points at a spacing of {spacing:g}; at most {MAX_ROWS:,}")
    step = length / (count if closed else count - 1)
    s = np.arange(count) * step
    if closed and kinds[-1] == 1:  # start at the apex of the first point's corner (the last blend)
        s = np.mod(s + first[-2] + 0.5 * lengths[-1], length)
    piece = np.clip(np.searchsorted(first, s, side="right") - 1, 0, len(kinds) - 1)
    u = s - first[piece]
    is_blend = kinds[piece] == 1
    span = np.where(is_blend, lengths[piece], 1.0)
    sigma, slope = _smoothstep(np.clip(u / span, 0.0, 1.0))
    rh = ph[piece] + np.where(is_blend, turn[piece] * sigma, 0.0)
    curvature = np.where(is_blend, turn[piece] * slope / span, 0.0)
    rx, ry = px[piece] + u * np.cos(rh), py[piece] + u * np.sin(rh)
    # Along a blend the position is the integral of the heading's direction from the blend's start
    # (by Gauss-Legendre, in chunks of rows to bound the memory).
    on_blend = np.flatnonzero(is_blend)
    for lo in range(0, len(on_blend), 65536):
        k = on_blend[lo:lo + 65536]
        inner, _ = _smoothstep(np.multiply.outer(np.clip(u[k] / span[k], 0.0, 1.0), _NODES))
        h_inner = ph[piece[k], None] + turn[piece[k], None] * inner
        rx[k] = px[piece[k]] + u[k] * (np.cos(h_inner) @ _WEIGHTS)
        ry[k] = py[piece[k]] + u[k] * (np.sin(h_inner) @ _WEIGHTS)
    rh = np.unwrap(rh)
    rh -= 2.0 * math.pi * math.floor((rh[0] + math.pi) / (2.0 * math.pi))  # the first row's within +-180 deg
    return rows_of(rx, ry, step, closed, rh, curvature)


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
    return approx.atan2(*approx.sincos(a))


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
    as the arc of the row's curvature: as its tangent line, the distance stepped by up to curvature * spacing^2 / 8
    at every row passed (on the ISO 4138 circle at 20 km/h a tenth of a millimetre every 50 ms, which the driver's
    preview gain made a 20 Hz swing of 0.04 deg of steer and 90 N of the sedan's front tyres' 250 N).
    """
    best = hint
    r = _row(start, count, closed, best)
    dx, dy = track[r, X] - px, track[r, Y] - py
    best_d2 = dx * dx + dy * dy
    for direction in (1, -1):
        j = best
        for _ in range(SEARCH):
            nxt = j + direction
            if not closed and (nxt < 0 or nxt >= count):
                break
            rr = _row(start, count, closed, nxt)
            dx, dy = track[rr, X] - px, track[rr, Y] - py
            d2 = dx * dx + dy * dy
            if d2 >= best_d2:
                break
            best, best_d2, j = nxt, d2, nxt
    if closed:
        best = best % count
    r = _row(start, count, closed, best)
    heading = track[r, HEADING]
    s, c = approx.sincos(heading)
    dx, dy = px - track[r, X], py - track[r, Y]
    step = track[start + 1, S] - track[start, S]
    ahead = dx * c + dy * s
    if not closed:  # the ends of an open path continue straight along their headings
        if best == 0 and ahead < 0.0 or best == count - 1 and ahead > 0.0:
            step = abs(ahead) + step
    ahead = min(max(ahead, -step), step)
    # The foot point's heading, not the row's: a row's heading would step at every row passed.
    curvature = track[r, CURVATURE]
    # The arc of the row's curvature lies curvature * ahead^2 / 2 to the left of the row's tangent.
    return (best, track[r, S] + ahead, -dx * s + dy * c - 0.5 * curvature * ahead * ahead, heading + curvature * ahead,
            curvature)


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
        sin_h, cos_h = approx.sincos(h)
        return track[r, X] + extra * cos_h, track[r, Y] + extra * sin_h, h, 0.0
    if not closed and j < 0:
        h = track[start, HEADING]
        sin_h, cos_h = approx.sincos(h)
        return track[start, X] + s * cos_h, track[start, Y] + s * sin_h, h, 0.0
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
