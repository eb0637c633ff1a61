"""Charts as data: what a report or a sweep wants drawn, with no drawing library.

Headless code builds :class:`Chart` values; a renderer turns them into PNG files. The renderer lives
with the window (``workbench.gui.charts.render_png``, pyqtgraph on Qt's offscreen platform), and the
command line hands it to headless code as a plain callable, so nothing here imports Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
"""Colours for series in order (colour-blind-safe enough for up to four, distinct up to eight)."""

PASS_COLOUR = "#2ca02c"
FAIL_COLOUR = "#d62728"


def darker(colour: str, share: float = 0.5) -> str:
    """``colour`` ("#rrggbb") with each channel taken ``share`` of the way to black: a line drawn over a curve of
    ``colour`` (a fit through its points) that stays visible and reads as that curve's."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c * (1.0 - share)):02x}" for c in rgb)


def with_unit(label: str, unit: str) -> str:
    """An axis' title: "speed [km/h]", or the label alone for a value without a unit (a gear, a ratio)."""
    return f"{label} [{unit}]" if unit else label


@dataclass(frozen=True)
class Series:
    """A curve: y against x, in the chart's units."""

    x: np.ndarray
    y: np.ndarray
    label: str = ""
    colour: str | None = None  # None: the next colour of PALETTE
    dashed: bool = False
    points: bool = False  # draw a symbol at each point as well
    joined: bool = True  # False: the points alone (the values of an on/off or whole-number parameter have no between)


@dataclass(frozen=True)
class Band:
    """A shaded span: of x (a time window) or of y (a pass band), between lo and hi (inf allowed)."""

    lo: float
    hi: float
    axis: str = "x"  # "x" or "y"
    colour: str = PASS_COLOUR
    label: str = ""


@dataclass(frozen=True)
class Line:
    """A straight reference line: horizontal at ``value`` (axis "y") or vertical (axis "x")."""

    value: float
    axis: str = "y"
    colour: str = "#444444"
    dashed: bool = True
    label: str = ""
    below: bool = False  # a horizontal line's label under it (a lower bound's), not over it
    kept: bool = False  # in view however far from the curves (a KPI's limit), not only when near them
    label_at: float = 0.95  # where along the line its label sits (0 the left or bottom end, 1 the right or top)


@dataclass(frozen=True)
class Marker:
    """One marked point with a label (a worst value, a flip)."""

    x: float
    y: float
    label: str = ""
    colour: str = FAIL_COLOUR


@dataclass(frozen=True)
class Heatmap:
    """Values on a grid: ``values[j, i]`` at ``x[i]``, ``y[j]``; ``level`` draws a boundary contour, the values on
    one side of it passing (above it, or below it with ``passes_below``: a KPI's "<=" limit)."""

    x: np.ndarray
    y: np.ndarray
    values: np.ndarray
    level: float | None = 0.0
    colour_label: str = ""
    passes_below: bool = False


@dataclass(frozen=True)
class Bars:
    """A tornado chart: per label, a bar from ``centre`` to ``lo[i]`` (the value with its parameter at the low end)
    and one to ``hi[i]`` (at its high end), in two shades."""

    labels: Sequence[str]
    lo: np.ndarray
    hi: np.ndarray
    centre: float = 0.0


@dataclass(frozen=True)
class Chart:
    """One chart: a title, labelled axes (with units), and what is drawn on them."""

    title: str
    x_label: str
    y_label: str
    series: Sequence[Series] = ()
    bands: Sequence[Band] = ()
    lines: Sequence[Line] = ()
    markers: Sequence[Marker] = ()
    heatmap: Heatmap | None = None
    bars: Bars | None = None
    width: int = 900
    height: int = 480
    notes: Sequence[str] = field(default_factory=tuple)  # short lines printed under the title
    source: str = ""  # what drew it, kept in the PNG's Source text (a sweep's charts: SWEEP_SOURCE)
    x_range: tuple[float, float] | None = None  # the horizontal extent, where the curves may not show it (no point)
    x_log: bool = False  # a logarithmic horizontal axis (a sweep's LO:HI:N:log axis); every x then above 0
    x_ticks: Sequence[float] | None = None  # ticks at these values alone (a whole-number parameter's: no 0.2 .. 0.8)
    y_whole: bool = False  # the vertical axis is of whole numbers (a gear): ticks at whole numbers, no 1.5


SWEEP_SOURCE = "carbench sweep"
"""The Source text of the charts ``carbench sweep --plot`` writes: how a later sweep into the folder knows them."""

Renderer = Callable[[Chart, Path], Path]
"""Writes one chart as a PNG file and returns its path."""


def finite_or(values: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """``values`` with non-finite entries replaced, so a chart never draws NaN."""
    values = np.asarray(values, dtype=float)
    return np.where(np.isfinite(values), values, fill)
