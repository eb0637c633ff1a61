"""Renders :mod:`workbench.output.charts` values to PNG with pyqtgraph, on Qt's offscreen platform
when there is no window system (a CI job, a terminal over ssh)."""

from __future__ import annotations

import html
import itertools
import math
import os
import textwrap
from pathlib import Path

import numpy as np

from workbench.gui.clip import segments_in_box
from workbench.output.charts import Chart, finite_or


def load_qt() -> None:
    """Load the modules :func:`render_png` draws with, now: ImportError (or OSError) where they cannot load here (a
    PySide6 whose Qt libraries need a system library that is missing, libEGL), before a command runs."""
    from PySide6 import QtGui, QtWidgets  # noqa: F401, I001  (Qt's own error first: pyqtgraph's names no library)
    import pyqtgraph  # noqa: F401


def _application():
    """The running QApplication, or a new one (offscreen unless a display is known to work)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        if not os.environ.get("QT_QPA_PLATFORM"):
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        app = QApplication([])
    return app


def _pen(colour: str, width: float = 2.0, dashed: bool = False):
    import pyqtgraph as pg
    from PySide6.QtCore import Qt

    return pg.mkPen(colour, width=width, style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)


def _span(lo: float, hi: float, data_lo: float, data_hi: float) -> tuple[float, float]:
    """A band's ends with infinite sides clipped well beyond the data, past any range the chart is drawn over (the
    data widened to a bound's line, or a flat curve's +-1): cut at half the data's height, a flat curve's band was
    a line of no height, and a pass band stopped short of a bound drawn above the curves."""
    pad = 10.0 * max(data_hi - data_lo, abs(data_lo), abs(data_hi), 1.0)
    return (lo if math.isfinite(lo) else data_lo - pad, hi if math.isfinite(hi) else data_hi + pad)


LEGEND_OFFSETS = {"top right": (-10, 10), "top left": (10, 10), "bottom right": (-10, -10), "bottom left": (10, -10),
                  "middle right": (-10, 0), "middle left": (10, 0)}
"""Where the legend goes (pyqtgraph's offset: negative from the right or the bottom), by corner; the middles are
anchored half-way up (:func:`place_legend`)."""


def place_legend(legend, where: str) -> None:
    """Put ``legend`` at ``where`` (a name of LEGEND_OFFSETS)."""
    dx, dy = LEGEND_OFFSETS[where]
    if where.startswith("middle"):
        side = 1.0 if "right" in where else 0.0
        legend.anchor((side, 0.5), (side, 0.5), offset=(dx, dy))
    else:
        legend.setOffset((dx, dy))


LEGEND_ROW = 21  # [px] a legend entry's height, about
MARK_LINE_WEIGHT = 0.3  # a reference line's length under a legend, against a curve's (the sine with dwell's three
# instants and two limits sent the legend over the trough of a curve)


def inside_length(x: np.ndarray, y: np.ndarray, box: tuple[float, float, float, float]) -> float:
    """How much of the line through (x, y) lies inside ``box`` (x0, x1, y0, y1), in the units of x and y (shares of
    the plot for a chart's legend, scene pixels for a live plot's readout): each
    segment clipped to the box (Liang-Barsky), in one pass over the segments. Counting frames alone, a fast
    segment crossed a corner with no frame in it and the legend went over it."""
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 2:
        return 0.0
    _, _, dx, dy, enter, leave, outside = segments_in_box(x, y, *box)
    inside = np.where(outside, 0.0, np.clip(leave - enter, 0.0, None))
    return float(np.sum(inside * np.hypot(dx, dy)))


def drawn_x(chart: Chart, x):
    """Horizontal values where the plot draws them: log10 of them on a logarithmic axis (pyqtgraph's log mode maps
    its curves so, but not the bands, lines, markers and ranges set by hand); as they are otherwise."""
    if not chart.x_log:
        return x
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log10(x)


def log_ticks(lo: float, hi: float) -> list[list[tuple[float, str]]] | None:
    """A logarithmic axis' ticks over log10 values ``lo`` .. ``hi``: 1, 2 and 5 times each power of ten labelled, as
    plain numbers ("200", "0.05"), the other multiples unlabelled. pyqtgraph's own labelled every multiple over a range
    of a few decades, and "4·10²5·10²6·10²" ran together. Over a range too short to hold two of those (5.5 .. 9.5),
    every multiple is labelled; over one that holds two of no multiple (5.5 .. 5.9), None: pyqtgraph's own ticks."""
    multiples = []
    for power in range(math.floor(lo) - 1, math.ceil(hi) + 1):
        for m in range(1, 10):
            at = math.log10(m) + power
            if lo - 1e-9 <= at <= hi + 1e-9:
                multiples.append((at, m, f"{m * 10.0 ** power:.12g}"))
    major = [(at, text) for at, m, text in multiples if m in (1, 2, 5)]
    if len(major) >= 2:
        return [major, [(at, "") for at, m, _ in multiples if m not in (1, 2, 5)]]
    if len(multiples) >= 2:
        return [[(at, text) for at, _, text in multiples], []]
    return None


def _x_values(chart: Chart, x) -> np.ndarray:
    """A series' horizontal values as drawn: non-finite ones at 0 (at 1 on a log axis, where 0 is not drawn)."""
    return finite_or(x, 1.0 if chart.x_log else 0.0)


MARKER_WEIGHT = 0.05  # a marker (or a point of a points-only series) counts as this much line [share of the plot]


def emptiest_corner(chart: Chart, x_range: tuple[float, float], y_range_: tuple[float, float]) -> str:
    """The corner of the plot (LEGEND_OFFSETS' names) whose third across and quarter up holds the least of the
    chart's curves (the length of their lines inside it), markers and reference lines, the top right first among
    equals: the legend goes there, over as little of the data as may be (it hid the end of a step response's
    curves in the top right, and a fast segment or the dashed zero line it covered had no frame there)."""
    (x0, x1), (y0, y1) = x_range, y_range_  # as drawn: a log axis' range in log10
    width, height = max(x1 - x0, 1e-12), max(y1 - y0, 1e-12)
    lines, points = [], []
    for series in chart.series:
        sx = (drawn_x(chart, _x_values(chart, series.x)) - x0) / width
        sy = (finite_or(series.y) - y0) / height
        if series.joined:  # its line, and its points too where they are drawn (a joined series with points was
            lines.append((sx, sy))  # counted by its points alone, and the legend went over its segments)
        if series.points or not series.joined:
            points.append((sx, sy))
    points.append(((drawn_x(chart, np.array([m.x for m in chart.markers], dtype=float)) - x0) / width,
                   (np.array([m.y for m in chart.markers], dtype=float) - y0) / height))
    marks = []  # the reference lines across the plot: a legend over one hides less than over a curve
    for line in chart.lines:
        at = ((line.value - y0) / height if line.axis == "y" else (float(drawn_x(chart, line.value)) - x0) / width)
        marks.append((np.array([0.0, 1.0]), np.array([at, at])) if line.axis == "y"
                     else (np.array([at, at]), np.array([0.0, 1.0])))
    count = {}
    # The box the legend takes, as a share of the plot's height: its entries' (it was taken as a quarter, and a legend
    # of five entries covered a third, over a curve the count had not looked at).
    entries = sum(1 for s in chart.series if s.label) + sum(1 for b in chart.bands if b.label)
    tall = min(max((LEGEND_ROW * entries + 14) / max(chart.height - 130, 100), 0.25), 0.6)
    for name in LEGEND_OFFSETS:
        rows = (1.0 - tall, 1.0) if "top" in name else (0.0, tall) if "bottom" in name else (0.5 - tall / 2,
                                                                                              0.5 + tall / 2)
        box = ((2 / 3, 1.0) if "right" in name else (0.0, 1 / 3)) + rows
        total = sum(inside_length(lx, ly, box) for lx, ly in lines)
        total += MARK_LINE_WEIGHT * sum(inside_length(lx, ly, box) for lx, ly in marks)
        for px, py in points:
            total += MARKER_WEIGHT * int(np.count_nonzero((px >= box[0]) & (px <= box[1]) & (py >= box[2])
                                                          & (py <= box[3])))
        count[name] = total
    return min(LEGEND_OFFSETS, key=lambda name: count[name])  # min keeps the first of equals


PLAIN_AXIS = 70  # [px] a chart's left axis with its label and ticks of numbers, about


def bar_axis_width(labels) -> int:
    """[px] A bar chart's left axis, wide enough for its longest label."""
    return int(8 + 7 * max((len(label) for label in labels), default=4))


def fit_title(plot) -> int:
    """Make a plot's title row as tall as its text [px, returned]: pyqtgraph gives it one row of 30 px, and a title
    with two or three lines of notes ran into the plot, its first line off the image's top."""
    height = max(int(math.ceil(plot.titleLabel.item.boundingRect().height())) + 4, 30)
    plot.titleLabel.setMaximumHeight(height)
    plot.layout.setRowFixedHeight(0, height)
    return height


def render_png(chart: Chart, path: str | os.PathLike) -> Path:
    """Draw ``chart`` and write it to ``path`` as a PNG (the folder must exist)."""
    app = _application()
    import pyqtgraph as pg
    from PySide6.QtCore import QBuffer, QEvent, QIODevice, Qt
    from PySide6.QtGui import QColor

    from workbench.gui.plot_style import no_si_prefix
    from workbench.output.charts import PALETTE

    widget = pg.GraphicsLayoutWidget()
    try:
        widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        widget.setBackground("w")
        widget.resize(chart.width, chart.height)
        # The title is rich text: escaped, so that a note such as "speed <= 3" is not read as a tag. A note is wrapped to
        # the chart's width: one line wider than that widened the plot past the image, which cut off its right side (the
        # ISO 4138 chart's 150-character note cut the axis at 3 of its 5 m/s^2 and the legend in half).
        # The title spans the plot's own width, right of its left axis: a tornado's axis of parameter names took 170 of
        # 900 px, and its note's first line ran past the image's edge, the plot after it (its bars cut at 0).
        axis = bar_axis_width(chart.bars.labels) if chart.bars is not None else PLAIN_AXIS
        chars = max(40, int((chart.width - axis - 20) / 7.2))  # 9 pt characters average 6 to 7 px
        title = html.escape(chart.title) + "".join(f"<br><span style='font-size:9pt'>{html.escape(line)}</span>"
                                                   for n in chart.notes
                                                   for line in textwrap.wrap(n, chars, break_on_hyphens=False) or [""])
        plot = widget.addPlot(title=f"<span style='color:#222'>{title}</span>")
        fit_title(plot)
        plot.showGrid(x=True, y=True, alpha=0.25)
        for side in ("left", "bottom"):
            plot.getAxis(side).setPen("#444")
            plot.getAxis(side).setTextPen("#222")
            # The ticks in the axis' own unit: pyqtgraph's SI prefix read a 5 ms hunt's time as 0 .. 5 with "(x0.001)"
            # after "time [s]"
            no_si_prefix(plot.getAxis(side))
        plot.setLabel("bottom", chart.x_label)
        plot.setLabel("left", chart.y_label)
        legend = plot.addLegend(offset=(-10, 10), labelTextColor="#222", brush=pg.mkBrush(255, 255, 255, 200))

        if chart.x_log:
            plot.setLogMode(x=True, y=False)
        # A series may have no point (a measure no car reached): it takes no part in the ranges.
        xs = [_x_values(chart, s.x) for s in chart.series if len(s.x)]
        ys = [finite_or(s.y) for s in chart.series if len(s.y)] or [np.zeros(1)]
        if chart.x_range is not None:
            xs.append(np.asarray(chart.x_range, dtype=float))
        xs = xs or [np.ones(1) if chart.x_log else np.zeros(1)]
        x_lo, x_hi = (float(drawn_x(chart, min(float(x.min()) for x in xs))),
                      float(drawn_x(chart, max(float(x.max()) for x in xs))))
        if chart.x_range is not None:
            plot.setXRange(x_lo, x_hi, padding=0.02)
        if chart.x_log:
            ticks = log_ticks(x_lo - 0.02 * (x_hi - x_lo), x_hi + 0.02 * (x_hi - x_lo))
            if ticks is not None:
                plot.getAxis("bottom").setTicks(ticks)
        elif chart.x_ticks is not None:
            plot.getAxis("bottom").setTicks([[(float(v), _value_text(float(v))) for v in chart.x_ticks], []])
            if len(chart.x_ticks) == 1:  # one value: room either side, not a range of nothing
                plot.setXRange(x_lo - 1.0, x_hi + 1.0, padding=0)
        y_lo, y_hi = min(float(y.min()) for y in ys), max(float(y.max()) for y in ys)

        if chart.heatmap is not None:
            _heatmap(plot, chart.heatmap, widget)
        if chart.bars is not None:
            _bars(plot, chart.bars)
        for band in chart.bands:
            colour = QColor(band.colour)
            colour.setAlpha(40)
            if band.axis == "x":
                region = pg.LinearRegionItem(_span(drawn_x(chart, band.lo), drawn_x(chart, band.hi), x_lo, x_hi),
                                             orientation="vertical",
                                             brush=pg.mkBrush(colour), movable=False)
            else:
                region = pg.LinearRegionItem(_span(band.lo, band.hi, y_lo, y_hi), orientation="horizontal",
                                             brush=pg.mkBrush(colour), movable=False)
            for line in region.lines:
                line.setPen(pg.mkPen(None))
            region.setZValue(-10)
            plot.addItem(region, ignoreBounds=True)
            if band.label:
                legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=0, brush=pg.mkBrush(colour)), band.label)
        colours = itertools.cycle(PALETTE)
        for s in chart.series:
            colour = s.colour or next(colours)
            item = plot.plot(_x_values(chart, s.x), finite_or(s.y), pen=_pen(colour, dashed=s.dashed) if s.joined else None,
                             name=s.label or None, symbol="o" if s.points or not s.joined else None,
                             symbolSize=5 if s.joined else 9, symbolBrush=colour, symbolPen=None, antialias=True)
            item.setZValue(5)
        for line in chart.lines:
            angle = 0 if line.axis == "y" else 90
            side = 0 if line.label_at < 0.5 else 1  # a label at the left end runs right from it, at the right end left
            inf = pg.InfiniteLine(line.value if line.axis == "y" else float(drawn_x(chart, line.value)), angle=angle, pen=_pen(line.colour, 1.5, line.dashed),
                                  label=line.label or None,
                                  labelOpts={"color": line.colour, "position": line.label_at,
                                             "anchors": [(side, 0), (side, 0)] if line.below else [(side, 1), (side, 1)]})
            plot.addItem(inf, ignoreBounds=True)
        for m in chart.markers:
            if not (math.isfinite(m.x) and math.isfinite(m.y)):
                continue
            plot.plot([m.x], [m.y], pen=None, symbol="x", symbolSize=14, symbolPen=_pen(m.colour, 2.5))
            if m.label:
                # Right of the point, or left of it in the right half (so the label stays inside the plot).
                at = float(drawn_x(chart, m.x))
                text = pg.TextItem(m.label, color=m.colour, anchor=(1, 1) if at > (x_lo + x_hi) / 2 else (0, 1))
                text.setPos(at, m.y)
                plot.addItem(text, ignoreBounds=True)
        fitted = y_range(chart, y_lo, y_hi)  # the curves and the bounds near them
        if fitted is not None:
            plot.setYRange(*fitted, padding=0.05)
        elif y_hi - y_lo < 1e-12 and chart.heatmap is None and chart.bars is None:
            plot.setYRange(y_lo - 1.0, y_hi + 1.0)
        if chart.bars is not None:
            plot.setXRange(*bars_x_range(chart), padding=0.05)
        shown_lo, shown_hi = fitted if fitted is not None else (y_lo, y_hi)
        if chart.y_whole and shown_hi - shown_lo <= 20:
            plot.getAxis("left").setTickSpacing(1.0, 1.0)  # a gear of 1.5 is none
        shown_y = fitted if fitted is not None else (y_lo, y_hi)
        place_legend(legend, emptiest_corner(chart, (x_lo, x_hi), shown_y))
        legend.setVisible(bool(legend.items))  # an empty legend drew a small white box over a heatmap's corner

        app.processEvents()
        widget.grab()  # the first paint measures the tick labels; an axis whose labels are wider than its room widens
        app.processEvents()  # then (pyqtgraph's autoExpandTextSpace), and the labels are drawn at the second: drawn once,
        # a margin of -123,400 N over 30 N had no labels at all
        target = Path(path)
        image = widget.grab().toImage()
        from workbench.runs.stamp import carbench_version

        image.setText("Software", f"carbench {carbench_version()}")  # PNG text chunks (workbench.output.png_text)
        if chart.source:
            image.setText("Source", chart.source)
        # Encoded in memory and written by Python: Qt re-encodes a path as UTF-8, and a folder whose name is not (a Latin-1
        # locale's "rä", a byte that is no UTF-8) was refused only after the whole run; and a full disk now says so.
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buffer, "PNG"):
            raise OSError(f"could not write {target}: the image could not be encoded")
        from workbench.output.files import atomic_write_bytes

        try:
            atomic_write_bytes(target, bytes(buffer.data()))
        except OSError as exc:
            raise OSError(f"could not write {target}: {exc.strerror or exc}") from None
        return target
    finally:
        widget.deleteLater()
        # Deleted now, drawn or not: processEvents() leaves deferred deletions to the event loop, which a command never
        # runs, and every chart's widget stayed (2.7 MB each: `carbench replay --report` of a script with 2,000
        # expectations passed 2.9 GB).
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        app.processEvents()


def y_range(chart: Chart, y_lo: float, y_hi: float) -> tuple[float, float] | None:
    """The vertical range of a chart whose curves span ``y_lo``..``y_hi``, widened to its horizontal lines (an
    expectation's bounds) that lie within twice the curves' height of them, and to those kept in view wherever they
    are (a KPI's limit); None when no line is that near (the
    range is the curves' own). Drawn outside the range, a bound just past the curve was not seen at all."""
    if chart.heatmap is not None or chart.bars is not None:
        return None
    reach = 2.0 * max(y_hi - y_lo, 1.0)
    near = [line.value for line in chart.lines if line.axis == "y" and math.isfinite(line.value)
            and (line.kept or y_lo - reach <= line.value <= y_hi + reach)]
    return (min(y_lo, *near), max(y_hi, *near)) if near else None


def _heatmap(plot, heat, widget) -> None:
    """The grid as cells of one size each, whatever the spacing of its values (a log axis, a list), each axis's
    ticks the values the cars ran at. A margin (``level`` set) in red below the boundary and green above (the other
    way round for a value that passes below it, ``passes_below``: a KPI's "<=" limit), on a
    scale centred on it, so that a car's colour says whether it passes whatever the other cars did; a measure on a
    sequential scale (viridis), where no colour means pass or fail. A cell whose value never came (a crossing not
    reached) is grey, not the lowest colour."""
    import pyqtgraph as pg
    from PySide6.QtCore import QRectF

    values = np.asarray(heat.values, dtype=float)
    lo, hi = heat_levels(values, heat.level)
    if heat.level is not None:  # each side of the boundary its own colours: red fails, green passes
        stops = [FAIL_DARK, FAIL_PALE, PASS_PALE, PASS_DARK]
        colours = pg.ColorMap([0.0, 0.5, 0.5, 1.0], stops[::-1] if heat.passes_below else stops)
    else:
        colours = pg.colormap.get("viridis")
    image = pg.ImageItem(np.where(np.isfinite(values), values, lo).T)
    image.setColorMap(colours)
    image.setLevels((lo, hi if hi > lo else lo + 1.0))
    x, y = np.asarray(heat.x, dtype=float), np.asarray(heat.y, dtype=float)
    cells = QRectF(-0.5, -0.5, len(x), len(y))  # cell i, j centred on (i, j)
    image.setRect(cells)
    plot.addItem(image)
    left_ticks = _cell_ticks(y)
    plot.getAxis("bottom").setTicks([_cell_ticks(x), []])
    plot.getAxis("left").setTicks([left_ticks, []])
    # Room for the longest value beside the axis's title: a label that did not fit was left out (the top row's
    # "15000"), or ran into the title.
    longest = max((len(text) for _, text in left_ticks), default=4)
    plot.getAxis("left").setWidth(int(30 + 7 * longest))
    if heat.level is not None:
        # Every cell coloured by its own side of the boundary, to the bit: through the colour map's table a margin of
        # exactly 0 (a car that passes) came out the table's middle, the yellow of neither side, and the boundary was
        # interpolated between the cells' centres, through a passing or a failing car's cell.
        shown = pg.ImageItem(heat_colours(values, heat.level, lo, hi, heat.passes_below).transpose(1, 0, 2),
                             levels=(0, 255))
        shown.setRect(cells)
        plot.addItem(shown)
        edges = pass_boundary(values, heat.level, heat.passes_below)
        if len(edges):
            plot.addItem(pg.PlotCurveItem(edges[:, 0], edges[:, 1], connect="pairs", pen=pg.mkPen("#111", width=2.5)))
    else:
        missing = ~np.isfinite(values)
        if missing.any():
            grey = np.zeros(values.shape + (4,), dtype=np.uint8)
            grey[missing] = MISSING_GREY
            # Levels given: left to find them, an all-grey grid (no car's value came) was drawn black.
            mask = pg.ImageItem(grey.transpose(1, 0, 2), levels=(0, 255))
            mask.setRect(cells)
            plot.addItem(mask)
    plot.setXRange(-0.5, len(x) - 0.5, padding=0.02)
    plot.setYRange(-0.5, len(y) - 0.5, padding=0.02)
    bar = pg.ColorBarItem(values=(lo, hi), colorMap=colours, label=heat.colour_label, interactive=False)
    bar.setImageItem(image, insert_in=plot)


FAIL_DARK, FAIL_PALE = (215, 48, 39), (253, 204, 178)
PASS_PALE, PASS_DARK = (199, 233, 192), (26, 152, 80)
MISSING_GREY = (190, 190, 190, 255)


def passing(values: np.ndarray, level: float, below: bool) -> np.ndarray:
    """Which cells pass a boundary at ``level``: at or above it, or at or below it (``below``); False for no value."""
    with np.errstate(invalid="ignore"):
        return (values <= level) if below else (values >= level)


def heat_colours(values: np.ndarray, level: float, lo: float, hi: float, below: bool = False) -> np.ndarray:
    """RGBA (rows, columns, 4) of a heatmap about a boundary: a passing cell from pale to dark green, a failing one
    from pale to dark red, as far from ``level`` as the scale ``lo``..``hi`` reaches; grey where there is no value."""
    half = max(hi - level, level - lo, 1e-300)
    share = np.clip(np.nan_to_num(np.abs(values - level) / half), 0.0, 1.0)[..., None]
    ok = passing(values, level, below)[..., None]
    pale = np.where(ok, PASS_PALE, FAIL_PALE)
    dark = np.where(ok, PASS_DARK, FAIL_DARK)
    rgb = np.rint(pale + (dark - pale) * share)
    out = np.concatenate([rgb, np.full(values.shape + (1,), 255.0)], axis=-1).astype(np.uint8)
    out[~np.isfinite(values)] = MISSING_GREY
    return out


def pass_boundary(values: np.ndarray, level: float, below: bool = False) -> np.ndarray:
    """The edges between neighbouring cells of which one passes and the other fails, as pairs of points (2 k, 2) in
    cell coordinates (cell i, j centred on (i, j)); none beside a cell without a value."""
    finite = np.isfinite(values)
    ok = passing(values, level, below)
    points = []
    # across a column's neighbours (values[j, i] against values[j, i + 1]): a vertical edge at x = i + 0.5
    differ = finite[:, :-1] & finite[:, 1:] & (ok[:, :-1] != ok[:, 1:])
    for j, i in zip(*np.nonzero(differ), strict=True):
        points += [(i + 0.5, j - 0.5), (i + 0.5, j + 0.5)]
    differ = finite[:-1, :] & finite[1:, :] & (ok[:-1, :] != ok[1:, :])
    for j, i in zip(*np.nonzero(differ), strict=True):
        points += [(i - 0.5, j + 0.5), (i + 0.5, j + 0.5)]
    return np.array(points, dtype=float).reshape(-1, 2)


def heat_levels(values: np.ndarray, level: float | None) -> tuple[float, float]:
    """The values a heatmap's colour scale spans: its finite values', or with a ``level`` (a margin's boundary)
    as far to either side of it as the farther one reaches, so that the boundary is the scale's middle colour and
    every car above it shows green, every one below red (stretched over min..max, a sweep where every car passed
    showed its lowest margins red)."""
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if level is not None:
        half = max(abs(lo - level), abs(hi - level)) or 1.0
        lo, hi = level - half, level + half
    return lo, hi


MAX_CELL_TICKS = 12  # tick labels on a heatmap's axis at most (a grid of 50 values labels every fifth)


def _cell_ticks(values: np.ndarray) -> list[tuple[float, str]]:
    """Ticks at cell centres, labelled with the values the cars ran at."""
    step = max(1, -(-len(values) // MAX_CELL_TICKS))
    return [(float(i), _value_text(float(values[i]))) for i in range(0, len(values), step)]


def _value_text(v: float) -> str:
    """A grid value as a tick says it: whole numbers below ten million whole (15000, not 1.5e+04), others to four
    significant digits, written out from 0.001 to ten million (a log axis' 11246.8 read "1.125e+04" beside "6325")."""
    if v == round(v) and abs(v) < 1e7:
        return f"{v:.0f}"
    if 1e-3 <= abs(v) < 1e7:
        digits = max(3 - math.floor(math.log10(abs(v))), 0)
        text = f"{round(v, digits):.{digits}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    return f"{v:.4g}"


def bars_x_range(chart: Chart) -> tuple[float, float]:
    """A bar chart's horizontal range: its bars, its centre and every vertical line (a tornado's bound at margin 0
    was off-screen when every margin was negative, though its note pointed at it)."""
    ends = [*finite_or(chart.bars.lo), *finite_or(chart.bars.hi), chart.bars.centre]
    ends += [line.value for line in chart.lines if line.axis == "x" and math.isfinite(line.value)]
    return min(ends), max(ends)


LOW_END, HIGH_END = "#9ecae1", "#08519c"  # a tornado's bar to the value at the parameter's low end, and at its high


def _bars(plot, bars) -> None:
    import pyqtgraph as pg

    n = len(bars.labels)
    lo, hi = finite_or(bars.lo), finite_or(bars.hi)
    y = np.arange(n, dtype=float)
    # Each end its own shade, from the centre: the farther first and the nearer over it, so that both show where they
    # lie on one side (red and blue had been below and above the centre, and read as the parameter's ends).
    low_far = np.abs(lo - bars.centre) >= np.abs(hi - bars.centre)
    far, near = np.where(low_far, lo, hi), np.where(low_far, hi, lo)
    for ends, low_end in ((far, low_far), (near, ~low_far)):
        plot.addItem(pg.BarGraphItem(x0=np.minimum(ends, bars.centre), x1=np.maximum(ends, bars.centre), y=y,
                                     height=0.6, brushes=[LOW_END if is_low else HIGH_END for is_low in low_end],
                                     pen=None))
    axis = plot.getAxis("left")
    axis.setTicks([[(float(i), label) for i, label in enumerate(bars.labels)], []])
    axis.setWidth(bar_axis_width(bars.labels))
    plot.setYRange(-0.6, n - 0.4, padding=0)
    plot.addItem(pg.InfiniteLine(bars.centre, angle=90, pen=_pen("#222", 1.0)))
