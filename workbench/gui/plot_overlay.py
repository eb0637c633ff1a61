"""Reference runs drawn over the live plots: dashed curves in each reference's colour, or B − A per plot.

The overlay adds its own curves to each plot of a PlotPanel and redraws them after the panel
has drawn the run on show, on the same time axis (seconds from the frame on show). Aligned by
distance, a reference's sample is drawn at the time when the run on show had travelled as far.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QImage, QPaintEngine, QPainter, QPainterPath, QPen, QTransform
from PySide6.QtWidgets import QLabel, QSizePolicy, QToolButton
from shiboken6 import isValid

from workbench.gui.clip import segments_in_box
from workbench.gui.decimate import BlockRange
from workbench.gui.plot_panel import PlotPanel, PlotRow, display_unit, peak_decimate
from workbench.gui.plot_rows import DELTA_STYLES, DELTA_TEXT, align_zeros, delta_pen
from workbench.gui.references import Comparer, Reference


def distance_of(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Distance travelled up to each frame."""
    if len(x) == 0:
        return np.zeros(0)
    return np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(x), np.diff(y)))])


def reference_times(ref_t: np.ndarray, ref_d: np.ndarray, cur_t: np.ndarray, cur_d: np.ndarray, align: str):
    """Where each reference sample goes on the run on show's time axis, and which samples can be placed."""
    if align != "distance" or len(cur_t) < 2:
        return ref_t, np.ones(len(ref_t), dtype=bool)
    keep = ref_d <= cur_d[-1]
    return np.interp(ref_d, cur_d, cur_t), keep


_PAD_PX = 2.0  # [px] around the curves' data: a stroke is not cut at the layer's edge
MAX_IMAGE_PIXELS = 8_000_000  # a layer larger than this on screen draws its paths each frame instead (32 MB)


class ReferenceCurve:
    """One reference channel on a plot: its data and pen, drawn by the :class:`ReferenceLayer` of its y-axis.

    Reads like a pg.PlotCurveItem (``getData``, ``pos``, ``opts["pen"]``, ``isVisible``); the data
    is in the layer's coordinates, so a point is drawn at x + pos().x().
    """

    def __init__(self, layer: ReferenceLayer):
        self.layer = layer
        self.x = self.y = np.zeros(0)
        self.path: QPainterPath | None = None
        self.bounds: tuple[float, float, float, float] | None = None
        self.opts: dict = {"pen": None}
        self.look = None  # (colour, dash style) of the pen set
        self.chunk = None  # aligned by time: (key, first, last time) of the stretch whose data is set

    def setPen(self, pen: QPen) -> None:  # noqa: N802 - as pg.PlotCurveItem's
        self.opts["pen"] = pen
        self.layer.restyled()

    def setData(self, x: np.ndarray, y: np.ndarray) -> None:  # noqa: N802 - as pg.PlotCurveItem's
        self.x, self.y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        finite = np.isfinite(self.x) & np.isfinite(self.y)
        if not finite.all():  # channels are finite; a reference read from elsewhere might not be
            self.x, self.y = self.x[finite], self.y[finite]
        self.path = pg.arrayToQPath(self.x, self.y, connect="all", finiteCheck=False) if len(self.x) else None
        self.bounds = (float(self.x.min()), float(self.x.max()), float(self.y.min()), float(self.y.max())) \
            if len(self.x) else None
        self.layer.changed()

    def getData(self) -> tuple[np.ndarray, np.ndarray]:  # noqa: N802 - as pg.PlotCurveItem's
        return self.x, self.y

    def pos(self):
        return self.layer.pos()

    def isVisible(self) -> bool:  # noqa: N802 - as a QGraphicsItem's
        return isValid(self.layer) and self.layer.isVisible() and self in self.layer.curves

    def getViewBox(self):  # noqa: N802 - as a QGraphicsItem's
        return self.layer.getViewBox() if isValid(self.layer) else None


class ReferenceLayer(pg.GraphicsObject):
    """Every reference curve on one y-axis of a plot, painted as one item.

    Aligned by time, the curves only move with the time axis (one ``setPos`` for them all), so the
    layer draws them once into an image at the plot's scale and then only places that image, one
    blit per axis and frame instead of a dashed path of thousands of points per curve. The image is
    drawn again when the data, a pen or the plot's scale changes (a new stretch of a reference, a new
    y-range, a resize); it is placed on whole pixels, at most half a pixel from where the paths
    would be. (Qt's own device-coordinate cache did the same but scrolled a partly exposed pixmap,
    and under a real X server left copies of a curve behind.) A move is not reported to pyqtgraph's
    bounds bookkeeping (9 us each), which serves an auto-range the plots never use.
    """

    def __init__(self):
        super().__init__()
        self.setFlag(self.GraphicsItemFlag.ItemSendsGeometryChanges, False)
        self.curves: list[ReferenceCurve] = []
        self.keep_image = False  # set by the overlay: True while the curves only move
        self._data: tuple[float, float, float, float] | None = None
        self._rect = QRectF()
        self._version = 0  # counts changes of data and pens
        self._image: QImage | None = None
        self._image_key = None
        self.images_drawn = 0  # how many times the image was drawn (for tests)

    def new_curve(self) -> ReferenceCurve:
        curve = ReferenceCurve(self)
        self.curves.append(curve)
        return curve

    def remove(self, curve: ReferenceCurve) -> None:
        self.curves.remove(curve)
        self.changed()

    def restyled(self) -> None:
        """A pen changed: a new drawing."""
        self._version += 1
        self.update()

    def changed(self) -> None:
        """The curves' data changed: new bounds, and a new drawing."""
        bounds = [c.bounds for c in self.curves if c.bounds is not None]
        self._data = (min(b[0] for b in bounds), max(b[1] for b in bounds), min(b[2] for b in bounds),
                      max(b[3] for b in bounds)) if bounds else None
        self._version += 1
        self._fit_rect()
        self.update()

    def viewTransformChanged(self) -> None:  # noqa: N802 - pyqtgraph's hook: a pixel's size changed
        self._fit_rect()

    def _fit_rect(self) -> None:
        rect = QRectF()
        if self._data is not None:
            x0, x1, y0, y1 = self._data
            px, py = self.pixelVectors()
            wx = abs(px.x()) * _PAD_PX if px is not None else 0.0
            wy = abs(py.y()) * _PAD_PX if py is not None else 0.0
            rect = QRectF(x0 - wx, y0 - wy, (x1 - x0) + 2 * wx, (y1 - y0) + 2 * wy)
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect
            self._version += 1

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's
        return self._rect

    def paint(self, painter, *args) -> None:
        if not self.curves or self._rect.isEmpty():
            return
        t = painter.worldTransform()
        engine = painter.paintEngine()
        on_screen = engine is not None and engine.type() in (QPaintEngine.Type.Raster, QPaintEngine.Type.OpenGL2)
        if not on_screen:
            # An SVG export gets the paths, not a picture of them, cut to the plot's area: Qt's SVG generator drops
            # the plot's clipping, and a reference longer than the time on show ran over the axes to the edges.
            self._image = self._image_key = None
            view = self.getViewBox()
            self._draw_paths(painter, self.mapRectFromView(view.viewRect()) if view is not None else None)
            return
        if not self.keep_image or t.m12() != 0.0 or t.m21() != 0.0:
            self._image = self._image_key = None
            self._draw_paths(painter)
            return
        dpr = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        # The scale rounded: a range taken as a difference of times may change in its last bits.
        key = (self._version, float(f"{t.m11():.12g}"), float(f"{t.m22():.12g}"), dpr)
        if key != self._image_key:
            self._image = self._render(t.m11(), t.m22(), dpr)
            self._image_key = key
        if self._image is None:  # too large to keep
            self._draw_paths(painter)
            return
        corner = t.map(self._anchor(t.m11(), t.m22()))
        painter.save()
        painter.resetTransform()
        # on whole device pixels (a fractional scale factor makes logical pixels fractional)
        painter.drawImage(QPointF(round(corner.x() * dpr) / dpr, round(corner.y() * dpr) / dpr), self._image)
        painter.restore()

    def _anchor(self, sx: float, sy: float) -> QPointF:
        """The corner of the layer's rectangle that lands at the image's top left."""
        r = self._rect
        return QPointF(r.left() if sx > 0 else r.right(), r.bottom() if sy < 0 else r.top())

    def _render(self, sx: float, sy: float, dpr: float) -> QImage | None:
        width = math.ceil(self._rect.width() * abs(sx)) + 1
        height = math.ceil(self._rect.height() * abs(sy)) + 1
        if width * height * dpr * dpr > MAX_IMAGE_PIXELS:
            return None
        image = QImage(max(math.ceil(width * dpr), 1), max(math.ceil(height * dpr), 1),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(dpr)
        image.fill(Qt.GlobalColor.transparent)
        anchor = self._anchor(sx, sy)
        painter = QPainter(image)
        painter.setTransform(QTransform(sx, 0.0, 0.0, sy, -anchor.x() * sx, -anchor.y() * sy))
        self._draw_paths(painter)
        painter.end()
        self.images_drawn += 1
        return image

    def _draw_paths(self, painter, within: QRectF | None = None) -> None:
        """The curves' paths; only their parts inside ``within`` (the layer's coordinates) where it is given."""
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for curve in self.curves:
            if curve.path is not None and curve.opts["pen"] is not None:
                painter.setPen(curve.opts["pen"])
                if within is None:
                    painter.drawPath(curve.path)
                    continue
                xs, ys, connect = clip_segments(curve.x, curve.y, within)
                if len(xs):
                    painter.drawPath(pg.arrayToQPath(xs, ys, connect=connect, finiteCheck=False))


def clip_segments(x: np.ndarray, y: np.ndarray, rect: QRectF) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The parts of the polyline (x, y) inside ``rect``: each segment cut to it (Liang-Barsky), as points and
    pyqtgraph's ``connect`` flags (1: joined to the next point) for arrayToQPath; runs of segments inside it stay one
    line."""
    if len(x) < 2:
        return np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int32)
    x0, y0, dx, dy, enter, leave, outside = segments_in_box(x, y, rect.left(), rect.right(),
                                                            min(rect.top(), rect.bottom()), max(rect.top(), rect.bottom()))
    keep = ~outside & (enter <= leave)
    if not keep.any():
        return np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int32)
    index = np.flatnonzero(keep)
    e, lv = enter[keep], leave[keep]
    xs = np.column_stack([x0[keep] + e * dx[keep], x0[keep] + lv * dx[keep]]).ravel()
    ys = np.column_stack([y0[keep] + e * dy[keep], y0[keep] + lv * dy[keep]]).ravel()
    # A segment's end joins the next one's start where the line runs on inside (one subpath: a dashed pen's pattern
    # runs on along it, where a subpath per segment started every dash afresh and drew the line solid).
    on = np.zeros(len(index), dtype=np.int32)
    on[:-1] = (np.diff(index) == 1) & (lv[:-1] >= 1.0) & (e[1:] <= 0.0)
    connect = np.column_stack([np.ones(len(index), dtype=np.int32), on]).ravel()
    return xs, ys, connect


DELTA_TIP = "show the run on show minus each reference instead of the curves"
DELTA_TIP_NO_REFERENCE = "pin a run first (B, or Pin run): then this shows the run on show minus each reference"


class _RowOverlay:
    def __init__(self, row: PlotRow, overlay: PlotOverlay):
        self.row = row
        self.curves: dict[tuple[int, str], ReferenceCurve] = {}
        self.layers: dict[int, ReferenceLayer] = {}  # by the id of the y-axis' ViewBox
        self.delta = QToolButton()
        self.delta.setText(DELTA_TEXT)
        self.delta.setCheckable(True)
        self.delta.setToolTip(DELTA_TIP_NO_REFERENCE)
        self.delta.setEnabled(False)  # until a run is pinned (see follow_references)
        self.delta.toggled.connect(lambda on: overlay.refresh())
        row.head.insertWidget(1, self.delta)
        self.zero = pg.InfiniteLine(pos=0.0, angle=0, movable=False, pen=pg.mkPen((120, 120, 120)))
        row.plot.getPlotItem().addItem(self.zero, ignoreBounds=True)
        self.zero.setVisible(False)

    def follow_references(self, pinned: bool) -> None:
        """B-A takes a click only with a run pinned: with none it toggled and nothing changed, saying nothing (seen
        under Xvfb). Left on when the last reference goes, it stays enabled, so that it can be turned off."""
        enabled = pinned or self.delta.isChecked()
        if self.delta.isEnabled() != enabled:
            self.delta.setEnabled(enabled)
            self.delta.setToolTip(DELTA_TIP if enabled else DELTA_TIP_NO_REFERENCE)

    def layer(self, name: str) -> ReferenceLayer:
        """The layer on the y-axis of ``name``'s unit (a new car rebuilds the row's axes, and their layers with them)."""
        vb = self.row.axis_of(name).vb
        layer = self.layers.get(id(vb))
        if layer is None or not isValid(layer) or layer.getViewBox() is not vb:
            layer = self.layers[id(vb)] = ReferenceLayer()
            vb.addItem(layer, ignoreBounds=True)
        return layer

    def curve(self, i: int, name: str, ref: Reference) -> ReferenceCurve:
        """Reference ``i``'s curve of channel ``name``: dashed in the reference's colour, or while the row shows
        B - A, the differences in the line style of the channel (its place on the row: delta_pen)."""
        key = (i, name)
        layer = self.layer(name)
        curve = self.curves.get(key)
        if curve is None or curve.layer is not layer:  # new, or its channel is on another y-axis now
            if curve is not None and isValid(curve.layer) and curve in curve.layer.curves:
                curve.layer.remove(curve)
            curve = self.curves[key] = layer.new_curve()
        delta = self.delta.isChecked()
        place = list(self.row.curves).index(name) % len(DELTA_STYLES) if delta else -1
        look = (ref.colour.rgb(), place)
        if curve.look != look:  # a new pen only when it changes (it costs a repaint)
            curve.setPen(delta_pen(ref.colour, place) if delta else
                         pg.mkPen(ref.colour, width=1, style=Qt.PenStyle.DashLine))
            curve.look = look
        return curve

    def drop_unused(self, used: set[tuple[int, str]]) -> None:
        for key in [k for k in self.curves if k not in used]:
            curve = self.curves.pop(key)
            if isValid(curve.layer) and curve in curve.layer.curves:
                curve.layer.remove(curve)
        axes = {id(axis.vb) for axis in self.row.axes}
        for key, layer in list(self.layers.items()):
            if not isValid(layer) or not layer.curves or key not in axes:  # empty, or on an axis that went
                if isValid(layer) and layer.getViewBox() is not None:
                    layer.getViewBox().removeItem(layer)
                del self.layers[key]


class ReferenceKey(QLabel):
    """The key to the references' dashed curves: each run's dash in its colour and its name. Two of them: one in the
    plots' bar, on one line, used where the bar has the room for every run whole; and one on a line of its own under
    the bar, its runs wrapped onto more lines (never inside a run's name). In the bar alone, four runs driven on from
    the past ("ref 6 (before frame 12494)") were cut at its edge, the last unnamed, and a small window's bar had no
    room for one (:meth:`PlotOverlay._place_key` picks)."""

    GAP = "\u00a0" * 3  # between two runs on a line

    def __init__(self, wrap: bool):
        super().__init__()
        self.wrap = wrap
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setContentsMargins(6 if wrap else 0, 0, 4 if wrap else 0, 0)
        self.setMinimumWidth(1)  # it fits the dock's width, never widens it
        self.setToolTip("the pinned runs' curves, dashed in their colours (when a plot shows B \u2212 A, its differences "
                        "in their colours, each channel in the line style its title shows)")
        self.entries: list[tuple[str, str]] = []  # (colour, name) of each run drawn

    def set_entries(self, entries: list[tuple[str, str]]) -> None:
        if entries != self.entries:
            self.entries = entries
            self._lay_out()

    def widths(self) -> tuple[list[int], int]:
        """Each run's width on screen [px], and the gap between two."""
        metrics = self.fontMetrics()
        return [metrics.horizontalAdvance(f"- - {name}") for _, name in self.entries], \
            metrics.horizontalAdvance(self.GAP)

    def one_line(self) -> int:
        """The width [px] of every run on one line."""
        widths, gap = self.widths()
        return sum(widths) + gap * max(len(widths) - 1, 0)

    def lines(self) -> list[list[int]]:
        """The runs (their indices) on each line: as many on a line as its width takes, at least one."""
        widths, gap = self.widths()
        if not self.wrap:
            return [list(range(len(widths)))] if widths else []
        room = max(self.contentsRect().width(), 1)
        out: list[list[int]] = []
        used = 0
        for i, width in enumerate(widths):
            if out and used + gap + width <= room:
                out[-1].append(i)
                used += gap + width
            else:
                out.append([i])
                used = width
        return out

    def _lay_out(self) -> None:
        def entry(i: int) -> str:
            colour, name = self.entries[i]
            return f"<span style='color:{colour}'>- -</span>&nbsp;{html.escape(name).replace(' ', '&nbsp;')}"

        text = "<br>".join(self.GAP.join(entry(i) for i in line) for line in self.lines())
        if text != self.text():
            self.setText(text)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.wrap and event.size().width() != event.oldSize().width():
            self._lay_out()


class _Resized(QObject):
    """Calls ``then()`` when the widget it watches changes size."""

    def __init__(self, then):
        super().__init__()
        self._then = then

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._then()
        return False


class PlotOverlay:
    """Draws the comparer's references over every plot of ``panel``."""

    def __init__(self, panel: PlotPanel, comparer: Comparer):
        self.panel = panel
        self.comparer = comparer
        self.rows: dict[int, _RowOverlay] = {}
        self._distances: dict[int, tuple[object, np.ndarray]] = {}  # a reference's distance travelled, once
        self._ranges: dict[tuple[int, str], tuple[object, BlockRange]] = {}  # a reference channel's min/max index
        model = comparer.model
        # Connected after the panel's own handlers: the panel has drawn (and set t_ref) by then.
        model.stepped.connect(self.refresh)
        model.view_frame_changed.connect(lambda frame: self.refresh())
        panel.window.valueChanged.connect(lambda value: self.refresh())
        panel.rows_changed.connect(self.refresh)  # a plot added while paused gets its B-A button at once
        comparer.references.changed.connect(self._on_references_changed)
        # The key to the references' dashed curves, in the panel's bar beside "absolute" where it fits, else under
        # the bar (the car view names its ghosts, the plots had nothing saying which dashed line was which run).
        self._resized = _Resized(lambda: self._place_key())
        self.key_in_bar = ReferenceKey(wrap=False)
        self.key_in_bar.setVisible(False)
        self.key_in_bar.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        panel.bar.insertWidget(panel.bar.count() - 3, self.key_in_bar, 100)  # before the bar's own stretch
        self.key_under_bar = ReferenceKey(wrap=True)
        self.key_under_bar.setVisible(False)
        panel.layout().insertWidget(1, self.key_under_bar)  # under the bar, over the plots
        panel.installEventFilter(self._resized)
        panel.differences_at = self.differences_at  # a row's CSV export while it shows B-A
        panel.reference_curves = self.reference_curves  # where the crosshair's readout hides least
        model.preset_loaded.connect(lambda name: self._show_key())
        model.script_loaded.connect(lambda name: self._show_key())
        self.refresh()

    def _on_references_changed(self) -> None:
        self._show_key()
        pinned = {id(r.run) for r in self.comparer.references.items}
        self._ranges = {k: v for k, v in self._ranges.items() if k[0] in pinned}
        self._distances = {k: v for k, v in self._distances.items() if k in pinned}
        self.refresh()

    def _show_key(self) -> None:
        """The key names the references drawn on the plots (a car in other units has no curve on these axes): set when
        a run is pinned or unpinned and when another car or script comes in, not on every frame."""
        unit = self.comparer.model.session.params.model.unit
        drawn = [r for r in self.comparer.references.items if r.run.unit == unit]
        for key in (self.key_in_bar, self.key_under_bar):
            key.set_entries([(r.colour.name(), r.name) for r in drawn])
        self._place_key()

    @property
    def key(self) -> ReferenceKey:
        """The key on show: in the bar where it fits whole, else under it."""
        return self.key_under_bar if self.key_under_bar.isVisibleTo(self.panel) else self.key_in_bar

    def _bar_room(self) -> int:
        """The width [px] the plots' bar has to spare for the key: the panel's, less the bar's own widgets."""
        bar = self.panel.bar
        margins = bar.contentsMargins()
        used, widgets = margins.left() + margins.right(), 0
        for i in range(bar.count()):
            widget = bar.itemAt(i).widget()
            if widget is not None and widget is not self.key_in_bar and not widget.isHidden():
                used += widget.sizeHint().width()
                widgets += 1
        return self.panel.width() - used - bar.spacing() * (widgets + 1)

    def _place_key(self) -> None:
        """The key in the bar if every run's name fits there whole, else on its own line(s) under the bar."""
        drawn = bool(self.key_in_bar.entries)
        inline = drawn and self.key_in_bar.one_line() <= self._bar_room()
        self.key_in_bar.setVisible(inline)
        self.key_under_bar.setVisible(drawn and not inline)

    def distance(self, run) -> np.ndarray:
        cached = self._distances.get(id(run))
        if cached is None or cached[0] is not run:
            cached = self._distances[id(run)] = (run, distance_of(run.data["x"], run.data["y"]))
        return cached[1]

    def row_overlay(self, row: PlotRow) -> _RowOverlay:
        entry = self.rows.get(id(row))
        if entry is None or entry.row is not row:
            entry = self.rows[id(row)] = _RowOverlay(row, self)
        return entry

    def block_range(self, run, name: str) -> BlockRange:
        """The min/max index of a reference's channel, made once per run."""
        key = (id(run), name)
        cached = self._ranges.get(key)
        if cached is None or cached[0] is not run:
            cached = self._ranges[key] = (run, BlockRange(run.data[name]))
        return cached[1]

    def _draw_shifted(self, curve: ReferenceCurve, run, name: str, factor: float, vis_lo: float, vis_hi: float,
                      span: float, columns: int, shown: tuple[int, int]) -> tuple[float, float]:
        """Draw a reference aligned by time: its data set once for a stretch two windows wide, in
        absolute time (its layer is moved with the frame on show), until the window leaves that
        stretch. Returns the y extent of what is in the window (``shown``: the run's samples in the
        window, as two indices)."""
        data = run.data
        t = data["t"]
        # The span rounded: the window's length, taken as the difference of two times, changes in its last
        # bits from frame to frame, and a changed key would set the data again.
        key = (id(data), name, round(span, 6), columns, factor)
        chunk = curve.chunk
        if chunk is None or chunk[0] != key or vis_lo < chunk[1] or vis_hi > chunk[2]:
            c_lo, c_hi = vis_lo - span / 2, vis_hi + span / 2
            a, b = np.searchsorted(t, [c_lo, c_hi])
            a, b = max(a - 1, 0), min(b + 1, len(t))
            curve.setData(*peak_decimate(t[a:b], data[name][a:b] * factor, 2 * columns))
            curve.chunk = (key, c_lo, c_hi)
        lo, hi = self.block_range(run, name).range(*shown)
        if lo > hi:
            return np.inf, -np.inf
        return (lo * factor, hi * factor) if factor >= 0 else (hi * factor, lo * factor)

    def refresh(self) -> None:
        """Draw every reference on every plot over the time range the panel shows (panel.view, in
        absolute time, drawn at x = t - panel.origin), each curve on its channel's y-axis.

        Aligned by time (the usual case), a frame costs no scan of a whole run: each curve's data is
        set once for a stretch of two windows and moved with the frame on show, the references'
        extents come from their block min/max and the run on show's from the panel's own drawing.
        """
        panel, model = self.panel, self.comparer.model
        refs = self.comparer.references.items
        # A run of a car in other units is pinned but never drawn on these axes: B-A has nothing to take it from.
        drawn = [(ref.colour, ref.name) for ref in refs if ref.run.unit == model.session.params.model.unit]
        drawable = bool(drawn)
        log = model.session.log
        alive = {id(r) for r in panel.rows}
        for key in [k for k in self.rows if k not in alive]:
            del self.rows[key]
        infos = {i.name: i for i in log.infos}
        by_time = self.comparer.align == "time"
        vis_lo, vis_hi = getattr(panel, "view", (0.0, 0.0))
        origin, span = panel.origin, max(vis_hi - vis_lo, 1e-9)
        cur_t = log.column("t")
        placed = None  # aligned by distance or drawn as B - A: each reference's samples on this run's time axis
        shown: dict[int, tuple[int, int]] = {}  # aligned by time: each reference's samples in the window
        for row in panel.rows:
            overlay = self.row_overlay(row)
            overlay.follow_references(drawable)
            delta = overlay.delta.isChecked()
            used: set[tuple[int, str]] = set()
            for main in row.curves.values():
                main.setVisible(not delta or not drawable)
            if row.values_shown != (not delta or not drawable):
                row.show_values(not delta or not drawable)  # an expectation's bound is no difference's
            # What an export of the row says it shows (PlotPanel.export): the differences, from the runs drawn.
            # Its title shows each channel's line style then.
            row.show_differences(drawn if delta else [])
            ranges: dict[int, list[float]] = {}  # per y-axis: what is drawn on it
            columns = int(row.vb.width()) or 500
            if (delta or not by_time) and placed is None:
                placed = self._placed(refs, log, cur_t, vis_lo, vis_hi)
            for i, ref in enumerate(refs):
                if ref.run.unit != model.session.params.model.unit:
                    continue  # a car in other units: its channels do not share these axes
                data = ref.run.data
                for name in row.curves:
                    if name not in data or name not in infos:
                        continue
                    _, factor = display_unit(infos[name])
                    curve = overlay.curve(i, name, ref)
                    used.add((i, name))
                    r = ranges.setdefault(id(row.axis_of(name)), [np.inf, -np.inf])
                    if not delta and by_time:
                        if i not in shown:
                            a, b = np.searchsorted(data["t"], [vis_lo, vis_hi])
                            shown[i] = int(a), int(b)
                        y_lo, y_hi = self._draw_shifted(curve, ref.run, name, factor, vis_lo, vis_hi, span, columns,
                                                        shown[i])
                        r[0], r[1] = min(r[0], y_lo), max(r[1], y_hi)
                        continue
                    times, window = placed[i]
                    y = data[name][window] * factor
                    xs = times[window] - origin
                    if delta:
                        mine = np.interp(times[window], cur_t, log.column(name)) * factor if len(cur_t) else y
                        inside = times[window] <= (cur_t[-1] if len(cur_t) else -1.0)
                        y, xs = (mine - y)[inside], xs[inside]
                    if len(y):
                        r[0], r[1] = min(r[0], float(y.min())), max(r[1], float(y.max()))
                    curve.chunk = None
                    curve.setData(*peak_decimate(xs, y, columns))
            overlay.drop_unused(used)
            shifted = not delta and by_time
            for layer in overlay.layers.values():
                layer.keep_image = shifted  # new data every frame otherwise: an image would be drawn and thrown away
                at = -origin if shifted else 0.0
                if layer.pos().x() != at or layer.pos().y() != 0.0:
                    layer.setPos(at, 0.0)
            overlay.zero.setVisible(delta and bool(refs))
            if not refs:
                continue
            if not delta:
                # The run on show's extent per axis, as the panel found it drawing the same window.
                for key, (lo, hi) in getattr(row, "drawn_ranges", {}).items():
                    r = ranges.setdefault(key, [np.inf, -np.inf])
                    r[0], r[1] = min(r[0], lo), max(r[1], hi)
            for axis in row.axes:
                lo, hi = ranges.get(id(axis), (np.inf, -np.inf))
                if lo <= hi:
                    axis.fit(min(lo, 0.0), max(hi, 0.0)) if delta else axis.fit(lo, hi)
                elif delta:
                    axis.clear()  # no frame in common: no difference drawn, and no earlier range left standing
            align_zeros(row.axes)
            for axis in row.axes:
                axis.vb.prepareForPaint()

    def reference_curves(self, row: PlotRow) -> list[ReferenceCurve]:
        """The pinned runs' curves drawn on ``row`` (their differences while it shows B\u2212A)."""
        entry = self.rows.get(id(row))
        return [] if entry is None else list(entry.curves.values())

    def differences_at(self, row: PlotRow, times: np.ndarray) -> list[tuple[str, str, np.ndarray]]:
        """What the row draws while it shows B\u2212A, at the run on show's frames of ``times`` (absolute [s]): for each
        channel of the row (in its order), then each pinned run drawn, (channel, run's name, the run on show minus
        that run in the channel's display unit). The pinned run is taken where it lies on this run's time axis, as
        drawn (lined up by time or by distance); NaN where it has no sample on either side (it ends sooner, or went
        less far)."""
        model = self.comparer.model
        log = model.session.log
        unit = model.session.params.model.unit
        infos = {i.name: i for i in log.infos}
        cur_t = log.column("t")
        frames = np.searchsorted(cur_t, times - 1e-9)  # the frames of ``times``
        out = []
        refs = [ref for ref in self.comparer.references.items if ref.run.unit == unit]
        # each reference's samples on this run's time axis, as drawn (no window: every sample that has a place)
        placed = [(at[keep], keep) for at, keep in self._placed(refs, log, cur_t, -np.inf, np.inf)]
        for name in row.curves:
            if name not in infos:
                continue
            _, factor = display_unit(infos[name])
            mine = log.column(name)[np.minimum(frames, max(len(cur_t) - 1, 0))] * factor if len(cur_t) else times * 0.0
            for ref, (at, keep) in zip(refs, placed, strict=True):
                if name not in ref.run.data:
                    continue
                theirs = np.asarray(ref.run.data[name], dtype=float)[keep] * factor
                values = np.full(len(times), np.nan)
                if len(at):
                    inside = (times >= at[0] - 1e-9) & (times <= at[-1] + 1e-9)
                    values[inside] = mine[inside] - np.interp(times[inside], at, theirs)
                out.append((name, ref.name, values))
        return out

    def _placed(self, refs, log, cur_t, vis_lo: float, vis_hi: float) -> list:
        """For each reference, its samples' times on the run on show's axis and which fall in the window."""
        by_distance = self.comparer.align == "distance"
        cur_d = distance_of(log.column("x"), log.column("y")) if by_distance else cur_t
        out = []
        for ref in refs:
            data = ref.run.data
            ref_d = self.distance(ref.run) if by_distance else data["t"]
            times, keep = reference_times(data["t"], ref_d, cur_t, cur_d, self.comparer.align)
            out.append((times, keep & (times >= vis_lo - 1e-9) & (times <= vis_hi + 1e-9)))
        return out
