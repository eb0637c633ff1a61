"""Peak decimation of a growing history, done once per bin: a live plot redoes only its newest bins.

A 600 s window at 120 Hz is 72,000 points per curve; decimating all of them on every repaint
costs milliseconds per curve. Bins here are aligned to absolute frame numbers, so a bin once
complete never changes: each refresh appends the bins completed since the last one, drops the
bins that scrolled out, and joins the raw frames at both ends.
"""

from __future__ import annotations

import numpy as np


def peak_decimate(t: np.ndarray, y: np.ndarray, columns: int) -> tuple[np.ndarray, np.ndarray]:
    """About one point per pixel column that keeps every peak: the min and max of each 2-column bin.

    Also keeps segments longer than a pixel: an aliased 1-px polyline of sub-pixel segments
    drops pixels where it is steep.
    """
    n = len(t)
    per = n // max(columns // 2, 1)
    if per < 2:
        return t, y
    bins = n // per
    head = bins * per
    out_t, out_y, _, _ = _bins(t[:head], y[:head], per)
    return np.concatenate([out_t, t[head:]]), np.concatenate([out_y, y[head:]])


def _bins(t: np.ndarray, y: np.ndarray, per: int):
    """(t, y) pairs of each bin's min and max in the order they came, and each bin's min and max."""
    bins = len(t) // per
    yb = y[:bins * per].reshape(bins, per)
    tb = t[:bins * per].reshape(bins, per)
    lo, hi = yb.min(axis=1), yb.max(axis=1)
    rising = yb.argmin(axis=1) <= yb.argmax(axis=1)  # keep the order in which min and max came
    out_t = np.column_stack([tb[:, 0], tb[:, -1]]).ravel()
    out_y = np.column_stack([np.where(rising, lo, hi), np.where(rising, hi, lo)]).ravel()
    return out_t, out_y, lo, hi


class Decimator:
    """The decimated form of frames [start, end) of one channel's history, kept between calls."""

    def __init__(self):
        self._key = None
        self._first = 0  # the first cached bin
        self._t = np.zeros(0)
        self._y = np.zeros(0)
        self._lo = np.zeros(0)
        self._hi = np.zeros(0)

    def clear(self) -> None:
        self._key = None

    def window(self, t: np.ndarray, y: np.ndarray, start: int, end: int, per: int, source=None
               ) -> tuple[np.ndarray, np.ndarray, float, float]:
        """Frames [start, end) of the whole history ``t``, ``y``, decimated ``per`` frames a bin.

        Returns x, y and the range of y. ``source`` identifies the history (another history, or
        another bin size, starts the cache afresh); a history only ever grows at its end.
        """
        if end <= start:
            return np.zeros(0), np.zeros(0), np.inf, -np.inf
        if per < 2:
            ys = y[start:end]
            return t[start:end], ys, float(ys.min()), float(ys.max())
        b0 = -(-start // per)  # the first bin wholly inside the window
        b1 = end // per  # one past the last
        if b1 <= b0:
            ys = y[start:end]
            return t[start:end], ys, float(ys.min()), float(ys.max())
        key = (source, per)
        c0, c1 = self._first, self._first + len(self._lo)
        if key != self._key or b0 < c0 or b0 > c1 or b1 < c1:
            self._fill(t, y, b0, b1, per)
            self._key = key
        else:
            if b1 > c1:  # the bins completed since the last call
                nt, ny, nlo, nhi = _bins(t[c1 * per:b1 * per], y[c1 * per:b1 * per], per)
                self._t = np.concatenate([self._t, nt])
                self._y = np.concatenate([self._y, ny])
                self._lo = np.concatenate([self._lo, nlo])
                self._hi = np.concatenate([self._hi, nhi])
            if b0 > c0:  # the bins that scrolled out
                drop = b0 - c0
                self._t, self._y = self._t[2 * drop:], self._y[2 * drop:]
                self._lo, self._hi = self._lo[drop:], self._hi[drop:]
                self._first = b0
        head_t, head_y = t[start:b0 * per], y[start:b0 * per]
        tail_t, tail_y = t[b1 * per:end], y[b1 * per:end]
        lo, hi = float(self._lo.min()), float(self._hi.max())
        for part in (head_y, tail_y):
            if len(part):
                lo, hi = min(lo, float(part.min())), max(hi, float(part.max()))
        return (np.concatenate([head_t, self._t, tail_t]), np.concatenate([head_y, self._y, tail_y]), lo, hi)

    def _fill(self, t, y, b0, b1, per) -> None:
        self._t, self._y, self._lo, self._hi = _bins(t[b0 * per:b1 * per], y[b0 * per:b1 * per], per)
        self._first = b0


class BlockRange:
    """The min and max of any stretch of a fixed series, found without scanning it: the series' min and
    max per block of ``block`` samples are taken once, so a query reads the whole blocks' two small
    arrays and scans at most two part blocks at its ends."""

    def __init__(self, y: np.ndarray, block: int = 256):
        self.y = y
        self.block = block
        bins = len(y) // block
        yb = y[:bins * block].reshape(bins, block)
        self._lo, self._hi = yb.min(axis=1), yb.max(axis=1)

    def range(self, a: int, b: int) -> tuple[float, float]:
        """(min, max) of y[a:b]; (inf, -inf) for an empty stretch."""
        a, b = max(a, 0), min(b, len(self.y))
        if b <= a:
            return np.inf, -np.inf
        n = self.block
        b0, b1 = -(-a // n), b // n  # the whole blocks inside [a, b)
        if b1 <= b0:
            part = self.y[a:b]
            return float(part.min()), float(part.max())
        lo, hi = float(self._lo[b0:b1].min()), float(self._hi[b0:b1].max())
        for part in (self.y[a:b0 * n], self.y[b1 * n:b]):
            if len(part):
                lo, hi = min(lo, float(part.min())), max(hi, float(part.max()))
        return lo, hi
