"""One look for every pyqtgraph plot of the workbench, and a grid that is cheap to repaint."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetricsF

GRID = (214, 214, 214)
TEXT = (70, 70, 70)


class Grid:
    """Opaque grid lines at the axes' major ticks, drawn as one curve.

    pyqtgraph's own grids (the axes' showGrid, GridItem) draw hundreds of alpha-blended lines and
    cost tens of milliseconds per repaint on a large view; this costs one path of a few dozen
    segments, redrawn whenever the view's range changes.
    """

    def __init__(self, item: pg.PlotItem):
        self._item = item
        self.curve = pg.PlotCurveItem(pen=pg.mkPen(GRID), connect="pairs")
        self.curve.setZValue(-100)
        item.getViewBox().addItem(self.curve, ignoreBounds=True)  # not a data curve of the plot
        item.getViewBox().sigRangeChanged.connect(self._on_range_changed)

    def _on_range_changed(self, *args) -> None:
        self.update()

    def _lines(self, axis: str, lo: float, hi: float, size: float) -> np.ndarray:
        if not np.isfinite(lo) or not np.isfinite(hi) or hi <= lo or size <= 0:
            return np.zeros(0)
        levels = self._item.getAxis(axis).tickSpacing(lo, hi, size)
        if not levels:
            return np.zeros(0)
        # The finest level of ticks that are at least 40 px apart (the labelled ones).
        fine = [lv for lv in levels if lv[0] * size / (hi - lo) >= 40.0]
        spacing, offset = fine[-1] if fine else levels[0]
        first = np.ceil((lo - offset) / spacing) * spacing + offset
        return np.arange(first, hi, spacing)[:200]

    def update(self) -> None:
        vb = self._item.getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        width, height = vb.width(), vb.height()
        xs = self._lines("bottom", x0, x1, width)
        ys = self._lines("left", y0, y1, height)
        px = np.column_stack([xs, xs]).ravel()
        py = np.tile([y0, y1], len(xs))
        qx = np.tile([x0, x1], len(ys))
        qy = np.column_stack([ys, ys]).ravel()
        self.curve.setData(np.concatenate([px, qx]), np.concatenate([py, qy]))


LABEL_GAP = 0.85  # [line heights of the tick font] at least between the labelled ticks of a vertical axis


def _nicer(spacing: float) -> float:
    """The next spacing of the 1, 2, 5 series above ``spacing``."""
    power = 10.0 ** np.floor(np.log10(spacing))
    for step in (2.0, 5.0, 10.0, 20.0):
        if step * power > spacing * (1 + 1e-9):
            return step * power
    return 20.0 * power


class FittedAxis(pg.AxisItem):
    """A vertical axis whose labelled ticks stay a line of text apart however short the plot is.

    pyqtgraph always puts at least two and a quarter major intervals on an axis, so on a plot a few
    tens of pixels tall its labels run into each other; here the major spacing grows (1, 2, 5, 10...)
    until they fit, and the minor ticks follow it.
    """

    def tickSpacing(self, minVal, maxVal, size):
        levels = super().tickSpacing(minVal, maxVal, size)
        span = abs(maxVal - minVal)
        if not levels or self.orientation not in ("left", "right") or span == 0 or size <= 0:
            return levels
        gap = LABEL_GAP * QFontMetricsF(self.style["tickFont"] or QFont()).height()
        major = levels[0][0]
        if major * size / span >= gap:
            return levels
        while major * size / span < gap:
            major = _nicer(major)
        leading = round(major / 10.0 ** np.floor(np.log10(major)))
        return [(major, 0.0), (major / (2.0 if leading == 2 else 5.0), 0.0)]


def style_axis(axis: pg.AxisItem) -> None:
    axis.setTextPen(pg.mkPen(TEXT))
    # Fewer tick labels on a short axis, so that they never run into each other.
    axis.setStyle(textFillLimits=[(0, 0.8), (2, 0.5), (4, 0.3), (6, 0.2)])
    if axis.orientation in ("left", "right"):
        axis.setStyle(hideOverlappingLabels=True)  # a label that would stick out past the plot is left out
    axis.setPen(pg.mkPen(TEXT))
    axis.enableAutoSIPrefix(False)  # units are in the labels; a prefix would re-layout them per frame


def style_plot(item: pg.PlotItem) -> Grid:
    """Grid behind the data, dark axes, no context menu or auto-range button."""
    for name in ("left", "bottom"):
        style_axis(item.getAxis(name))
    item.hideButtons()
    item.setMenuEnabled(False)
    return Grid(item)
