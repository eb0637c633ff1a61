"""One look for every pyqtgraph plot of the workbench, and a grid that is cheap to repaint."""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
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
LABEL_HEIGHT = 0.8  # [line heights] of a tick label, as pyqtgraph measures it (it leaves out a label sticking out)


_SUPERSCRIPTS = str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b")


def pretty_unit(unit: str) -> str:
    """A unit as the window shows it: powers as superscripts ("m/s^2" -> "m/s\u00b2", "kg m^2" -> "kg m\u00b2"). Files and
    the command line keep the plain form."""
    return re.sub(r"\^(-?\d+)", lambda m: m.group(1).translate(_SUPERSCRIPTS), unit)


def _nicer(spacing: float) -> float:
    """The next spacing of the 1, 2, 5 series above ``spacing``."""
    power = 10.0 ** np.floor(np.log10(spacing))
    for step in (2.0, 5.0, 10.0, 20.0):
        if step * power > spacing * (1 + 1e-9):
            return step * power
    return 20.0 * power


MIN_LABEL_SCALE = 0.75  # an axis title too long for its axis is written down to this fraction of its font size...
MIN_LABEL_POINTS = 7.0  # ... but no smaller than this [pt]; then it is elided (its unit kept whole)
_UNIT = re.compile(r"^(?P<name>.*?)\s*(?P<unit>[\[(][^\[\]()]*[\])])\s*$")  # "time [s]", "gain (1/s)"


def elide_title(text: str, room: float, metrics: QFontMetricsF) -> str:
    """``text`` (an axis title: "name [unit]", or a unit alone) in at most ``room`` px of ``metrics``' font: as it is
    when it fits; else the name elided and the unit kept whole ("time from the ne\u2026 [s]"); else the unit alone;
    else the whole text elided at its end ("kg px/\u2026", a tooltip gives it whole)."""
    if metrics.horizontalAdvance(text) <= room:
        return text
    match = _UNIT.match(text)
    if match and match["name"]:
        unit = " " + match["unit"]
        name = metrics.elidedText(match["name"], Qt.TextElideMode.ElideRight, room - metrics.horizontalAdvance(unit))
        if name and name != "\u2026":
            return name + unit
        if metrics.horizontalAdvance(match["unit"]) <= room:
            return match["unit"]
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(room, 0.0))


class LabelFit:
    """For a pyqtgraph axis: its title (``setLabel``) stays inside the axis' length.

    pyqtgraph centres the title on the axis whatever its length: on a short plot a rotated unit ran past both ends of
    the axis and the plot cut it ("kg px/s\u00b2" of a parking car's force plot, 45 px tall at a window of 1024x640,
    read "kg px/"). A title too long is written smaller (down to MIN_LABEL_SCALE of its size, not below
    MIN_LABEL_POINTS), then elided by :func:`elide_title`; its tooltip then gives it whole.
    """

    def _updateLabel(self):  # noqa: N802 - pyqtgraph's
        super()._updateLabel()
        label = getattr(self, "label", None)
        if label is None:
            return
        if getattr(self, "_title_font", None) is None:
            self._title_font = QFont(label.font())
        self._title = label.toPlainText().strip()
        self._fitted = None
        self._fit_title()

    def resizeEvent(self, ev=None):  # noqa: N802 - pyqtgraph's
        if getattr(self, "label", None) is not None and getattr(self, "_title_font", None) is not None:
            self._fit_title()
        super().resizeEvent(ev)

    def title_room(self) -> float:
        """The length [px] the title may take: the axis' length (its document's blank margins may stick out)."""
        size = self.size()
        return float(size.height() if self.orientation in ("left", "right") else size.width()) - 2.0

    def _fit_title(self) -> None:
        label, text = self.label, self._title
        room = self.title_room()
        font = QFont(self._title_font)
        if room <= 0 or not text:  # not laid out yet: the full title, fitted at the first resize
            fitted = (text, font)
        else:
            size = font.pointSizeF()  # -1 for a font sized in pixels: elided, never made smaller
            smallest = max(min(MIN_LABEL_POINTS, size), size * MIN_LABEL_SCALE)
            while size > smallest and QFontMetricsF(font).horizontalAdvance(text) > room:
                size = max(size - 0.25, smallest)
                font.setPointSizeF(size)
            fitted = (elide_title(text, room, QFontMetricsF(font)), font)
        if fitted == getattr(self, "_fitted", None):
            return
        self._fitted = fitted
        shown, font = fitted
        label.setFont(font)
        if shown != text or font != self._title_font:
            style = ";".join(f"{k}: {v}" for k, v in self.labelStyle.items())
            label.setHtml(f"<span style='{style}'>{html.escape(shown)}</span>")
            label.setToolTip(text)
        else:
            label.setHtml(self.labelString())
            label.setToolTip("")
        self._adjustSize()
        self.picture = None
        self.update()

    def shown_title(self) -> str:
        """The title as drawn (fitted to the axis)."""
        return self.label.toPlainText().strip()

    def whole_title_length(self) -> float:
        """The least length [px] of the axis on which its title shows whole (written as small as it may be); 0 without
        a title."""
        text = getattr(self, "_title", None)
        if text is None:
            text = self.labelText if self.label.isVisible() else ""
        if not text or not self.label.isVisible():
            return 0.0
        font = QFont(getattr(self, "_title_font", None) or self.label.font())
        size = font.pointSizeF()
        if size > 0:
            font.setPointSizeF(max(min(MIN_LABEL_POINTS, size), size * MIN_LABEL_SCALE))
        return QFontMetricsF(font).horizontalAdvance(text) + 2.0  # title_room(): the length less 2 px


class LabelAxis(LabelFit, pg.AxisItem):
    """A pyqtgraph axis whose title fits its length (see :class:`LabelFit`)."""


class FittedAxis(LabelFit, pg.AxisItem):
    """A vertical axis whose labelled ticks stay a line of text apart however short the plot is, and whose title
    fits its length (see :class:`LabelFit`).

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

    def line_height(self) -> float:
        return QFontMetricsF(self.style["tickFont"] or QFont()).height()

    def tickStrings(self, values, scale, spacing):
        """pyqtgraph's labels, but with thousands written as k (and M, G) once a label would reach five digits:
        "-80000" beside a rotated "kg px/s^2" ran into it on an axis AXIS_WIDTH wide. The crosshair's readout
        still gives the value in full."""
        strings = super().tickStrings(values, scale, spacing)
        if self.orientation not in ("left", "right") or not values:
            return strings
        top = max(abs(v * scale) for v in values)
        if top < 1e4:
            return strings
        unit, name = next((u, n) for u, n in ((1e9, "G"), (1e6, "M"), (1e3, "k")) if top >= u)
        step = spacing * scale / unit
        places = next((p for p in range(7) if abs(round(step, p) - step) <= 1e-9 * step), 6)  # 2.5 -> 1, 20 -> 0
        return [f"{v * scale / unit:.{places}f}{name}" if v != 0 else "0" for v in values]

    def tickValues(self, minVal, maxVal, size):
        """pyqtgraph's ticks, unless fewer than two of them would be labelled (on a short plot a round
        spacing a line apart may leave one tick, or none, far enough inside the ends for its label): then
        :func:`two_labels`' values."""
        levels = super().tickValues(minVal, maxVal, size)
        if self.orientation not in ("left", "right") or not levels or self.scale != 1.0:
            return levels
        lo, hi = sorted((minVal, maxVal))
        line = self.line_height()
        if size < 2 * line or not hi > lo:
            return levels
        per_px = (hi - lo) / size
        half = 0.5 * LABEL_HEIGHT * line * per_px + per_px
        if sum(lo + half <= v <= hi - half for v in levels[0][1]) >= 2:
            return levels
        spacing, values = two_labels(lo, hi, size, line)
        return [(spacing, values)]


def _nice_at_most(width: float) -> float:
    """The largest 1, 2 or 5 times a power of ten that is at most ``width`` (> 0)."""
    power = 10.0 ** math.floor(math.log10(width))
    for m in (5.0, 2.0, 1.0):
        if m * power <= width * (1 + 1e-9):
            return m * power
    return power


def _nice_at_least(width: float) -> float:
    """The smallest 1, 2 or 5 times a power of ten that is at least ``width`` (> 0)."""
    nice = _nice_at_most(width)
    return nice if nice >= width * (1 - 1e-9) else _nicer(nice)


def two_labels(lo: float, hi: float, size: float, line: float) -> tuple[float, list[float]] | None:
    """Where to label a vertical axis from ``lo`` to ``hi``, ``size`` px long, in a font ``line`` px high, so
    that two labels or more show a line apart: (the values' resolution, the values). Multiples of the finest
    1-2-5 spacing that fits, else of a spacing of one digit (30, 400), else the ends of the range rounded
    inwards (a min/max readout). None when the axis is shorter than two lines."""
    if size < 2 * line or not hi > lo:
        return None
    per_px = (hi - lo) / size
    half = 0.5 * LABEL_HEIGHT * line * per_px + per_px  # a label's centre this far inside an end: all of it on show
    a, b = lo + half, hi - half
    least = LABEL_GAP * line * per_px
    power = 10.0 ** math.floor(math.log10(least))
    nice = _nice_at_least(least)
    digits = sorted({m * p for p in (power, 10 * power) for m in range(1, 10) if m * p >= least * (1 - 1e-9)})
    for spacing in [nice] + digits[:9]:
        first, last = math.ceil(a / spacing - 1e-9), math.floor(b / spacing + 1e-9)
        if last > first:
            return spacing, [k * spacing for k in range(first, last + 1)]
    step = _nice_at_most(max(b - a, per_px) / 10)
    return step, [math.ceil(a / step - 1e-9) * step, math.floor(b / step + 1e-9) * step]


def style_axis(axis: pg.AxisItem) -> None:
    axis.setTextPen(pg.mkPen(TEXT))
    # Fewer tick labels on a short axis, so that they never run into each other.
    axis.setStyle(textFillLimits=[(0, 0.8), (2, 0.5), (4, 0.3), (6, 0.2)])
    if axis.orientation in ("left", "right"):
        axis.setStyle(hideOverlappingLabels=True)  # a label that would stick out past the plot is left out
    axis.setPen(pg.mkPen(TEXT))
    no_si_prefix(axis)


def no_si_prefix(axis: pg.AxisItem) -> None:
    """The axis' values as they are, in the unit its label names: no SI prefix (which would re-layout the labels per
    frame). pyqtgraph's enableAutoSIPrefix(False) computes a prefix once more for the range on show before it stops:
    an axis styled again while it showed -0.0025 .. 0 deg kept a scale of 1000, and read -9.5k for -9.5 deg."""
    axis.enableAutoSIPrefix(False)
    if axis.autoSIPrefixScale != 1.0 or axis.labelUnitPrefix:
        axis.autoSIPrefixScale = 1.0
        axis.labelUnitPrefix = ""
        axis.picture = None  # the tick labels drawn again at the scale of 1
        axis.update()


def style_plot(item: pg.PlotItem) -> Grid:
    """Grid behind the data, dark axes, no context menu or auto-range button."""
    for name in ("left", "bottom"):
        style_axis(item.getAxis(name))
    item.hideButtons()
    item.setMenuEnabled(False)
    return Grid(item)
