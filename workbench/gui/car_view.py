"""The car from above: body, wheels at their Ackermann angles, trail, arrows and the turn circle; on a
four-wheel car each wheel's force, load bar and driver aids; under the car the loaded script's road
surfaces, shaded by their friction."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QApplication, QGraphicsItem, QGraphicsPathItem, QGraphicsPolygonItem, QLabel

from physics import channel_names
from physics.corners import CORNERS
from workbench.gui.car_geometry import UNLOADED, CarShape, car_shape, circle, label_point
from workbench.gui.hud import Hud
from workbench.gui.keymap import help_html
from workbench.gui.plot_rows import KnownBoundsCurve
from workbench.gui.plot_style import style_plot
from workbench.gui.scene import bay_lines, bays_for
from workbench.gui.session_model import SessionModel

TRAIL_SECONDS = 12.0
TRAIL_SEGMENTS = 8

BODY = QColor(52, 101, 164)
WHEEL = QColor(30, 30, 30)
FRONT_FORCE = QColor(204, 0, 0)
REAR_FORCE = QColor(245, 121, 0)
VELOCITY = QColor(78, 154, 6)
CIRCLE = QColor(117, 80, 123)
ICR = QColor(196, 160, 0)  # the body's actual centre of rotation
LIFTED_WHEEL = QColor(136, 138, 133)
LOAD = QColor(0, 128, 128)
LOAD_LOW = QColor(245, 121, 0)
LOAD_FRAME = QColor(160, 160, 160)
AIDS_PARTING_STEPS = 12  # half a line each: how far the names of two wheels' aids are moved apart at most
AID_COLOURS = {"ABS": QColor(196, 160, 0), "TCS": QColor(78, 154, 6), "ESC": QColor(173, 127, 168)}
CORNER_ORDER = {"rl": 0, "rr": 1, "fl": 2, "fr": 3}  # each corner's index in CarShape.wheels
ICE = QColor(205, 228, 255)  # a road of (nearly) no grip: light blue
ASPHALT = QColor(170, 170, 170)  # a road of mu DRY_MU or more: mid grey
DRY_MU = 1.0
SURFACE_Z = -20  # under the ghosts (-10) and the car
HUD_WIDTH_SHARE = 0.6  # of the plot area's width at most for the full HUD, else it is compact
HUD_HEIGHT_SHARE = 0.15  # ... and of its height
KEY_STYLE = "background: rgba(255,255,255,200); padding: 3px; font-size: 11px;"
KEY_MARGIN = 8  # [px] between a key (the drawing's, the road's) and the plot area's edges
KEY_MIN_WIDTH = 120  # [px] a key is wrapped to the plot area's width, but never narrower than this (then hidden)
KEY_HEIGHT_SHARE = 0.4  # of the plot area's height at most for the keys together (more is hidden: the road's first)
KEY_CAR_GAP = 4  # [px] between the car on show and the keys
KEY_RETURN_PX = 24  # [px] the car clear of the top right corner by this, keys moved off it go back there


def surface_colour(mu: float) -> QColor:
    """A road surface's shade: from light blue at mu 0 to grey at DRY_MU and above (less grip, lighter and bluer)."""
    t = min(max(mu / DRY_MU, 0.0), 1.0)
    return QColor(*(round(a + t * (b - a)) for a, b in ((ICE.red(), ASPHALT.red()), (ICE.green(), ASPHALT.green()),
                                                      (ICE.blue(), ASPHALT.blue()))))


def surface_label(surface) -> str:
    return f"{surface.name}  \u03bc {surface.mu:.2f}" if surface.name else f"\u03bc {surface.mu:.2f}"


def _polygon_item(fill: QColor, edge: QColor) -> QGraphicsPolygonItem:
    item = QGraphicsPolygonItem()
    item.setBrush(QBrush(fill))
    item.setPen(pg.mkPen(edge, width=1.5))
    return item


def _set_polygon(item: QGraphicsPolygonItem, points: np.ndarray) -> None:
    item.setPolygon(QPolygonF([QPointF(float(x), float(y)) for x, y in points]))


def _dot(size: float) -> QPainterPath:
    path = QPainterPath()
    path.addEllipse(QPointF(0.0, 0.0), size / 2, size / 2)
    return path


def _plus(size: float) -> QPainterPath:
    path = QPainterPath()
    for a, b in ((QPointF(-size / 2, 0.0), QPointF(size / 2, 0.0)), (QPointF(0.0, -size / 2), QPointF(0.0, size / 2))):
        path.moveTo(a)
        path.lineTo(b)
    return path


class PointMarker(QGraphicsPathItem):
    """A symbol of a fixed size in pixels at one point of the world, or hidden (no point).

    What a one-point pg.ScatterPlotItem draws, painted by Qt alone: the scatter item's Python paint
    cost a tenth of a millisecond per frame for each marker.
    """

    def __init__(self, path: QPainterPath, pen: QPen | None, brush: QColor | None):
        super().__init__(path)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setPen(pen if pen is not None else QPen(Qt.PenStyle.NoPen))
        self.setBrush(QBrush(brush) if brush is not None else QBrush(Qt.BrushStyle.NoBrush))
        self._points = (np.zeros(0), np.zeros(0))
        self.setVisible(False)
        self.clip_to = None  # the view box it is drawn in

    def paint(self, painter, option, widget=None) -> None:
        """Drawn only while its point is in the view: a cross just past the view's edge showed one arm at the
        edge, a stray yellow dash beside the axis' ticks."""
        if self.clip_to is None or self.clip_to.sceneBoundingRect().contains(self.scenePos()):
            super().paint(painter, option, widget)

    def setData(self, xs, ys) -> None:  # noqa: N802 - as pg.ScatterPlotItem's
        """Put the marker at (xs[0], ys[0]); empty arrays hide it."""
        xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
        self._points = (xs, ys)
        if len(xs):
            self.setPos(float(xs[0]), float(ys[0]))
        self.setVisible(bool(len(xs)))

    def getData(self) -> tuple[np.ndarray, np.ndarray]:  # noqa: N802 - as pg.ScatterPlotItem's
        return self._points


JUMP_FRAMES = 16
"""A redraw of the frame this many frames past the last one drawn, or one not past it, repaints the whole car view
(:meth:`CarView.redraw`); the frames a run steps through repaint only what changed."""

ZOOM_LIMITS = (0.05, 2000.0)
"""The car view's narrowest and widest span, in the car's lengths: a tyre's width (23 cm of the sedan's 4.71 m) and
9.4 km of it, past any course a script sets."""


class CarView(pg.PlotWidget):
    """Top view in the preset's unit: pan and zoom with the mouse, follow the car with F."""

    def __init__(self, model: SessionModel, parent=None):
        super().__init__(parent, background="w")
        self._model = model
        self.follow = True
        self._drawn = -1  # the frame last drawn
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(260, 220)  # on a small screen the docks give way first, not the car
        self.setAntialiasing(True)  # smooth outlines of the car; the plots stay aliased (cheaper)
        plot = self.getPlotItem()
        plot.setAspectLocked(True)
        self._grid = style_plot(plot)
        self._bays = pg.PlotCurveItem(pen=pg.mkPen((150, 150, 150), width=2), connect="pairs")
        self._circle = KnownBoundsCurve(pen=pg.mkPen(CIRCLE, width=1, style=Qt.PenStyle.DashLine))
        self._trail = [KnownBoundsCurve() for _ in range(TRAIL_SEGMENTS)]
        self._body = _polygon_item(QColor(BODY.red(), BODY.green(), BODY.blue(), 90), BODY)
        self._nose = KnownBoundsCurve(pen=pg.mkPen(BODY, width=3))
        self._wheels = [_polygon_item(WHEEL, WHEEL) for _ in range(4)]
        self._velocity = KnownBoundsCurve(pen=pg.mkPen(VELOCITY, width=2.5))
        # One arrow per axle on a single track, one per wheel on four wheels: point pairs, one curve per axle.
        self._force_front = KnownBoundsCurve(pen=pg.mkPen(FRONT_FORCE, width=2.5), connect="pairs")
        self._force_rear = KnownBoundsCurve(pen=pg.mkPen(REAR_FORCE, width=2.5), connect="pairs")
        self._turn_centre = PointMarker(_dot(9.0), pen=None, brush=CIRCLE)
        self._icr = PointMarker(_plus(14.0), pen=pg.mkPen(ICR, width=2), brush=None)
        self._corners = {name: _CornerItems() for name in CORNER_ORDER}
        corner_items = [item for c in self._corners.values() for item in c.items()]
        for item in [self._bays, self._circle, *self._trail, self._body, self._nose, *self._wheels,
                     self._velocity, self._force_front, self._force_rear, *corner_items]:
            plot.addItem(item)
        for item in (self._turn_centre, self._icr):
            plot.addItem(item, ignoreBounds=True)  # a few pixels wide at any zoom: no extent in the world
            item.clip_to = plot.getViewBox()
        self._wheel_style = [None] * 4
        self._aided: list = []  # the corners whose aids are named, as last drawn
        plot.getViewBox().sigRangeChanged.connect(self._on_range_changed)
        self._surfaces: list[tuple[QGraphicsPolygonItem, pg.TextItem, np.ndarray]] = []
        self._surfaces_of = None  # the script whose surfaces are drawn
        for i, segment in enumerate(self._trail):
            # Fades from light to dark grey; opaque, since alpha-blended lines are slow to paint.
            grey = int(215 - 155 * (i + 1) / TRAIL_SEGMENTS)
            segment.setPen(pg.mkPen(QColor(grey, grey, grey), width=1))
        self._legend = QLabel(self)
        self._legend.setStyleSheet(KEY_STYLE)
        self._legend_key = None
        self._course_key = (False, False)  # a driver's course on show: (its path, its cones)
        self._road_legend = QLabel(self)
        self._road_legend.setStyleSheet(KEY_STYLE)
        self._road_legend.setVisible(False)
        self._keys: dict[QLabel, list] = {}  # each key's [rich text, its width unwrapped, the width it is laid out to]
        self._keys_low = False  # the keys at the plot area's bottom right, out of the car's way (_keys_clear_of_car)
        self._help = QLabel(self)
        self._help.setTextFormat(Qt.TextFormat.RichText)
        self._help.setText("<b>Keyboard</b>" + help_html())
        self._help.setStyleSheet("background: rgba(255,255,255,225); border: 1px solid #888; padding: 6px;")
        self._help.setVisible(False)
        self._help.setWordWrap(True)
        self.hud = Hud(self)
        plot.getViewBox().sigResized.connect(self._place_overlays)  # the axes' labels grew or shrank
        plot.getViewBox().sigRangeChangedManually.connect(self._on_range_changed_manually)
        model.stepped.connect(self._on_stepped)
        model.view_frame_changed.connect(self._on_view_frame_changed)
        model.preset_loaded.connect(self._on_preset_loaded)
        model.params_changed.connect(self._on_params_changed)
        model.script_loaded.connect(self._on_script_loaded)
        plot.getViewBox().sigRangeChanged.connect(self._place_surface_labels)
        self._on_preset_loaded(model.session.preset.name)
        self._on_script_loaded("")

    # -- model events ----------------------------------------------------------------------------

    def _set_legend(self, four_wheel: bool, forces: bool = True) -> None:
        """The key to the drawing, for the car's layout (``forces``: it has tyre forces to draw); painted once
        into a pixmap (laying out rich text on every repaint of the view is costly)."""
        key = (four_wheel, forces, self._course_key)
        if key == self._legend_key:
            return
        self._legend_key = key
        lines = ["<span style='color:#4e9a06'>&#9632;</span> velocity (0.3 s ahead)"]
        if four_wheel:
            lines += ["<span style='color:#cc0000'>&#9632;</span> front / <span style='color:#f57900'>&#9632;</span>"
                      " rear wheel's tyre force (weight = one wheelbase)",
                      "<span style='color:#008080'>&#9646;</span> load (a wheel's length = static;"
                      " <span style='color:#f57900'>&#9646;</span> below half), hollow wheel: lifted",
                      "<span style='color:#c4a000'>ABS</span> <span style='color:#4e9a06'>TCS</span>"
                      " <span style='color:#ad7fa8'>ESC</span> braking the wheel"]
        elif forces:
            lines.append("<span style='color:#cc0000'>&#9632;</span> front / <span style='color:#f57900'>&#9632;"
                         "</span> rear tyre force (weight = one wheelbase)")
        lines += ["<span style='color:#75507b'>- -</span> predicted circle R = L / tan(&delta;),"
                  " <span style='color:#75507b'>&#9679;</span> its centre",
                  "<span style='color:#c4a000'>&#10010;</span> actual centre of rotation"]
        path, cones = self._course_key
        if path:
            from workbench.gui.course_overlay import CONE, PATH, TARGET

            lines.append(f"<span style='color:{PATH.name()}'>- -</span> the driver's path"
                         + (f", <span style='color:{CONE.name()}'>&#9650;</span> cones" if cones else "")
                         + f", <span style='color:{TARGET.name()}'>&#10005;</span> its preview point")
        self.legend_lines = lines
        self._set_key(self._legend, "<br>".join(lines))
        self._place_legend()

    def _set_key(self, label: QLabel, text: str) -> None:
        """A key's rich text, laid out (and painted) when it is placed.

        The text is the key's before it is laid out: before the window is shown, painting the label resizes the view,
        whose placing of the keys laid out the text still kept, the one before. So a window opened on a script with a
        driver (carbench --script, or the last session's) painted the drawing's key of six lines into the space of
        seven, without the driver's path."""
        self._keys[label] = [text, 0, None]  # (a placing meanwhile finds it laid out as written: nothing to do)
        self._keys[label] = [text, self._lay_out_key(label, text, None), None]

    @staticmethod
    def _lay_out_key(label: QLabel, text: str, width: int | None) -> int:
        """Paint ``text`` once into ``label``'s pixmap (laying out rich text on every repaint of the view is costly),
        wrapped to ``width`` px (None: on its own lines as written); returns the width it takes."""
        label.setPixmap(QPixmap())
        label.setMinimumSize(0, 0)
        label.setMaximumSize(16777215, 16777215)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(width is not None)
        label.setText(text)
        if width is None:
            label.adjustSize()
        else:
            label.resize(width, label.heightForWidth(width))
        pixmap = label.grab()
        label.setWordWrap(False)
        label.setPixmap(pixmap)
        label.setFixedSize(label.sizeHint())
        return label.width()

    def _fit_key(self, label: QLabel, room: int) -> None:
        """``label``'s key as written where it fits ``room`` px, else wrapped to it."""
        text, natural, laid_out = self._keys[label]
        width = None if natural <= room else room
        if width != laid_out:
            self._keys[label][2] = width
            taken = self._lay_out_key(label, text, width)
            if width is not None and taken > room:  # the label's padding around the painted text
                self._lay_out_key(label, text, max(2 * width - taken, 1))

    def plot_area(self):
        """The view box's rectangle in the view's pixels (inside the axes)."""
        return self.mapFromScene(self.getPlotItem().getViewBox().sceneBoundingRect()).boundingRect()

    def car_rect(self):
        """The car on show (its body and wheels) in the view's pixels: what a ghost's edge marker keeps clear of."""
        items = [self._body, *self._wheels]
        rect = items[0].sceneBoundingRect()
        for item in items[1:]:
            rect = rect.united(item.sceneBoundingRect())
        return self.mapFromScene(rect).boundingRect()

    def overlay_rects(self) -> list:
        """What is drawn over the plot area, in the view's pixels: the HUD and the keys on show (a ghost's edge marker
        keeps clear of them)."""
        return [w.geometry() for w in (self.hud, self._legend, self._road_legend) if w.isVisible()]

    def set_course_key(self, path: bool, cones: bool) -> None:
        """Name a driver's course in the key (workbench.gui.course_overlay draws it): its path, its cones."""
        self._course_key = (path, cones)
        if self._legend_key is not None:
            self._set_legend(*self._legend_key[:2])

    def _place_legend(self) -> None:
        """The keys in the plot area's top right corner, the road's under the drawing's, each wrapped to the area's
        width where it is wider: at 1024x640 the drawing's key (388 px as written, the plot area 227 px) was hidden.
        Keys taller together than KEY_HEIGHT_SHARE of the area give way, the road's first (small views keep the car).
        Where the car on show is under them they go to the area's bottom right corner, above the HUD, and back when
        the car is clear of the top right (:meth:`_keys_clear_of_car`)."""
        if "_keys" not in self.__dict__:
            return  # called from the base class's __init__, before the keys exist
        area = self.plot_area()
        room = area.width() - 2 * KEY_MARGIN
        top, tall = area.top() + KEY_MARGIN, KEY_HEIGHT_SHARE * area.height()
        shown = []
        for label in (self._legend, self._road_legend):
            wanted = label in self._keys and (label is self._legend or bool(self._surfaces))
            if wanted and room >= KEY_MIN_WIDTH:
                self._fit_key(label, room)
                wanted = top + label.height() - area.top() <= tall
            else:
                wanted = False
            label.setVisible(wanted)
            if wanted:
                shown.append(label)
                top += label.height() + 4
        for label, at in zip(shown, self._key_spots(shown, self._keys_low), strict=True):
            label.move(at)
        self._keys_clear_of_car()

    def _key_spots(self, shown: list[QLabel], low: bool) -> list[QPoint]:
        """Where the keys ``shown`` go, one under the other at the plot area's right: from its top, or (``low``) up
        from its bottom, above the HUD where the HUD reaches under them."""
        area = self.plot_area()
        lefts = [area.right() - KEY_MARGIN - label.width() + 1 for label in shown]
        y = area.top() + KEY_MARGIN
        if low and shown:
            bottom = area.bottom() + 1 - KEY_MARGIN
            hud = self.hud.geometry()
            if not self.hud.isHidden() and hud.right() >= min(lefts):
                bottom = min(bottom, hud.top() - 4)
            y = bottom - sum(label.height() for label in shown) - 4 * (len(shown) - 1)
        spots = []
        for label, left in zip(shown, lefts, strict=True):
            spots.append(QPoint(left, y))
            y += label.height() + 4
        return spots

    def _keys_clear_of_car(self) -> None:
        """The keys moved to the plot area's bottom right corner while the car on show is under them in the top right
        one (and less of it is at the bottom), and back once the car is KEY_RETURN_PX clear of the top right: at
        1024x640 (a plot area 227 px wide, the drawing's key 211 x 129 px) the follow camera let the car drive up
        under the key, out of sight (it re-centres only past 20% of the view from the edge)."""
        if "_keys" not in self.__dict__:
            return  # the view's range set before the keys exist
        shown = [label for label in (self._legend, self._road_legend) if not label.isHidden()]
        if not shown:
            return
        car = self.car_rect()

        def covered(spots, gap: int) -> int:
            near = car.adjusted(-gap, -gap, gap, gap)
            parts = [near.intersected(QRect(at, label.size())) for label, at in zip(shown, spots, strict=True)]
            return sum(part.width() * part.height() for part in parts if not part.isEmpty())

        here = [label.pos() for label in shown]
        there = self._key_spots(shown, not self._keys_low)
        if covered(here, KEY_CAR_GAP):
            move = covered(there, KEY_CAR_GAP) < covered(here, KEY_CAR_GAP)
        else:
            move = self._keys_low and not covered(there, KEY_RETURN_PX)  # home again, the car well clear of it
        if move:
            self._keys_low = not self._keys_low
            for label, at in zip(shown, there, strict=True):
                label.move(at)

    def _place_overlays(self, *args) -> None:
        self._place_legend()
        self._place_hud()

    def _on_preset_loaded(self, name: str) -> None:
        p = self._model.session.params
        unit = p.model.unit
        plot = self.getPlotItem()
        plot.setLabel("bottom", f"x [{unit}]")
        plot.setLabel("left", f"y [{unit}]")
        xs, ys = bay_lines(bays_for(p))
        self._bays.setData(xs, ys)
        span = 10.0 * p.body.length if len(xs) else 6.0 * p.body.length
        # The wheel's zoom within a tyre's width and a few kilometres (in car lengths: the same in a preset in pixels):
        # it went on to spans of 1e-300 and 1e300, where the grid and the car were no longer drawn.
        least, most = ZOOM_LIMITS[0] * p.body.length, ZOOM_LIMITS[1] * p.body.length
        plot.getViewBox().setLimits(minXRange=least, maxXRange=most, minYRange=least, maxYRange=most)
        self._centre_on(np.zeros(2) if not len(xs) else np.array([0.0, 0.35 * ys.max()]), span)
        self.redraw()

    def _on_script_loaded(self, name: str) -> None:
        program = self._model.session.program
        surfaces = program.script.surfaces if program is not None else ()
        if surfaces == self._surfaces_of:
            return
        self._surfaces_of = surfaces
        plot = self.getPlotItem()
        for item, label, _ in self._surfaces:
            plot.removeItem(item)
            plot.removeItem(label)
        self._surfaces = []
        for surface in surfaces:
            polygon = np.array(surface.polygon, dtype=float)
            colour = surface_colour(surface.mu)
            item = _polygon_item(colour, colour.darker(115))
            _set_polygon(item, np.vstack([polygon, polygon[:1]]))
            item.setZValue(SURFACE_Z)
            label = pg.TextItem(surface_label(surface), color=(60, 60, 60), anchor=(0.5, 0.5))
            label.setZValue(SURFACE_Z + 1)
            plot.addItem(item)
            plot.addItem(label)
            self._surfaces.append((item, label, polygon))
        self._set_road_legend(surfaces)
        self._place_surface_labels()

    def _set_road_legend(self, surfaces) -> None:
        """The key to the surfaces' shading: a swatch and the mu of each (one line per distinct mu)."""
        seen = {}
        for s in surfaces:
            seen.setdefault(s.mu, []).append(s.name)
        lines = [f"<span style='color:{surface_colour(mu).name()}'>&#9632;</span> &mu; {mu:.2f}"
                 + (f" ({', '.join(n for n in names if n)})" if any(names) else "")
                 for mu, names in sorted(seen.items())]
        self.road_key = "<b>road</b> (lighter, bluer: less grip)<br>" + "<br>".join(lines)  # as painted
        self._set_key(self._road_legend, self.road_key)
        self._place_legend()

    def _place_surface_labels(self, *args) -> None:
        """Each surface's label at its point nearest the view's centre, so it stays on screen as the camera moves."""
        if not self._surfaces:
            return
        (x0, x1), (y0, y1) = self.getPlotItem().getViewBox().viewRange()
        for _, label, polygon in self._surfaces:
            at = label_point(polygon, (x0, x1, y0, y1))
            label.setPos(float(at[0]), float(at[1]))

    def _on_params_changed(self, path: str) -> None:
        self.redraw()

    def _on_stepped(self) -> None:
        self.redraw()

    def _on_view_frame_changed(self, frame: int) -> None:
        self.redraw()

    def _on_range_changed_manually(self, *args) -> None:
        self.follow = False  # the user panned or zoomed: stop following until asked again

    # -- drawing -----------------------------------------------------------------------------------

    def set_follow(self, follow: bool) -> None:
        self.follow = follow
        self.redraw()

    def zoom_on_car(self, span: float) -> None:
        """Centre the view on the car, ``span`` (in the preset's unit) across its shorter side."""
        self._centre_on(self._com, span)

    def show_help(self, shown: bool) -> None:
        self._help.setVisible(shown)
        self._fit_help()
        self._help.raise_()

    def _fit_help(self) -> None:
        """The key overlay inside the view at any size: the largest font (12 pt down to 6) that fits."""
        room_w, room_h = max(self.width() - 24, 60), max(self.height() - 24, 40)
        font = self._help.font()
        for size in (12, 11, 10, 9, 8, 7, 6):
            font.setPointSize(size)
            self._help.setFont(font)
            self._help.setMaximumWidth(room_w)
            self._help.adjustSize()
            if self._help.width() <= room_w and self._help.heightForWidth(self._help.width()) <= room_h:
                break
        self._help.resize(min(self._help.width(), room_w), min(self._help.heightForWidth(self._help.width()), room_h))
        self._help.move(max((self.width() - self._help.width()) // 2, 12), 12)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if "_help" not in self.__dict__:
            return  # called from the base class's __init__, before the overlays exist
        self._place_overlays()
        if self._help.isVisible():
            self._fit_help()

    def _place_hud(self, *args) -> None:
        """The HUD in the bottom-left corner of the plot area, clear of the axes' labels (over the y labels only
        when the view is narrower than the HUD)."""
        if "hud" not in self.__dict__:
            return
        area = self.plot_area()
        # A small plot area gets the compact HUD: the full one (214 x 77 px) spanned all of a 218 px wide area.
        width, height = self.hud.full_size()
        self.hud.set_compact(area.isValid() and (width > HUD_WIDTH_SHARE * area.width()
                                                 or height > HUD_HEIGHT_SHARE * area.height()))
        x = min(area.left() + 4, self.width() - self.hud.width() - 2)
        self.hud.move(max(x, 0), max(area.bottom() - self.hud.height() - 4, 0))

    def _centre_on(self, centre: np.ndarray, span: float) -> None:
        vb = self.getPlotItem().getViewBox()
        vb.setRange(xRange=(centre[0] - span / 2, centre[0] + span / 2),
                    yRange=(centre[1] - span / 2, centre[1] + span / 2), padding=0)
        vb.prepareForPaint()  # apply the new range now: at paint time it would cost a second repaint

    def redraw(self) -> None:
        """Draw the frame on show (the scrubbed one, or the newest)."""
        session = self._model.session
        log = session.log
        k = self._model.shown_frame()
        values = log.frame(k) if k >= 0 else at_rest(session.params)
        shape = car_shape(values, session.params, session.dt)
        _set_polygon(self._body, shape.body)
        self._nose.set_points(shape.nose[:, 0], shape.nose[:, 1])
        for item, outline in zip(self._wheels, shape.wheels, strict=True):
            _set_polygon(item, outline)
        self._velocity.set_points(shape.velocity[:, 0], shape.velocity[:, 1])
        self._set_legend(shape.corners is not None, session.params.kind != "kinematic")
        self._draw_corners(shape)
        near = 50 * session.params.body.wheelbase
        if shape.turn_centre is not None and shape.turn_radius < near:
            cx, cy = circle(shape.turn_centre, shape.turn_radius)
            self._circle.set_points(cx, cy)
            self._turn_centre.setData([shape.turn_centre[0]], [shape.turn_centre[1]])
        else:
            self._circle.set_points([], [])
            self._turn_centre.setData([], [])
        if shape.icr is not None and np.linalg.norm(shape.icr - shape.com) < near:
            self._icr.setData([shape.icr[0]], [shape.icr[1]])
        else:
            self._icr.setData([], [])
        self._draw_trail(k)
        self._com = shape.com
        # Anything but the next few frames of a run (the same frame run again after an edit or an undo, a scrub, a
        # jump back) repaints the whole view: the old car was left in pieces where the run had drawn it (a tip of
        # the velocity arrow beyond the new one after Ctrl+Z, a part of the body for seconds of driving on).
        if not 0 < k - self._drawn < JUMP_FRAMES:
            self.viewport().update()
        self._drawn = k
        if self._model.text_due:
            height = self.hud.height()
            self.hud.show_frame(values, session.params.model.unit, session.params.manual, session.params.steering.lock)
            if self.hud.height() != height:  # a compact HUD loses its gear line on a car without a gearbox
                self._place_hud()
        if self.follow:
            self._keep_in_view(shape.com)
        self._keys_clear_of_car()

    def _draw_corners(self, shape: CarShape) -> None:
        """The axles' forces on a single-track car; each wheel's force, load and aids on a four-wheel one."""
        if shape.corners is None:
            self._force_front.set_points(shape.force_front[:, 0], shape.force_front[:, 1])
            self._force_rear.set_points(shape.force_rear[:, 0], shape.force_rear[:, 1])
            for items in self._corners.values():
                items.hide()
            self._aided = []
            for i in range(4):
                self._style_wheel(i, ())
            return
        for curve, axle in ((self._force_front, "f"), (self._force_rear, "r")):
            pairs = np.concatenate([w.force for w in shape.corners if w.corner[0] == axle])
            curve.set_points(pairs[:, 0], pairs[:, 1])
        for wheel in shape.corners:
            self._corners[wheel.corner].show(wheel)
            self._style_wheel(CORNER_ORDER[wheel.corner], ("lifted",) if wheel.lifted else wheel.aids)
        self._aided = [w for w in shape.corners if w.aids]
        self._part_aids(self._aided)

    def _on_range_changed(self, *args) -> None:
        """The view zoomed or panned (paused too): the aids' names parted again for the new scale, the keys off the
        car."""
        self._part_aids(self._aided)
        self._keys_clear_of_car()

    def _part_aids(self, wheels: list) -> None:
        """Move the names of the aids apart where two would meet (a car drawn a few pixels long): each later one
        further out from its corner, along the way it already runs, until it is clear of the ones before."""
        if len(wheels) < 2:
            return
        px = self.getPlotItem().getViewBox().viewPixelSize()[0]  # the aspect is locked: as wide as high
        placed: list = []
        for wheel in wheels:
            item = self._corners[wheel.corner].aids
            item.setPos(float(wheel.aids_at[0]), float(wheel.aids_at[1]))  # from its corner, at the scale on show
            rect = self.mapFromScene(item.sceneBoundingRect()).boundingRect()
            away = wheel.aids_away / max(float(np.hypot(*wheel.aids_away)), 1e-12)
            shift = 0.0
            step = 0.5 * rect.height()
            for _ in range(AIDS_PARTING_STEPS):
                if not any(rect.intersects(other) for other in placed):
                    break
                shift += step
                rect = rect.translated(round(step * away[0]), round(-step * away[1]))
            if shift:
                at = wheel.aids_at + shift * px * away
                item.setPos(float(at[0]), float(at[1]))
            placed.append(rect)

    def _style_wheel(self, i: int, style: tuple[str, ...]) -> None:
        """A wheel's fill and outline: solid black; hollow grey when lifted; outlined in its aid's colour."""
        if self._wheel_style[i] == style:
            return
        self._wheel_style[i] = style
        item = self._wheels[i]
        if style == ("lifted",):
            item.setBrush(QBrush(Qt.BrushStyle.NoBrush))
            item.setPen(pg.mkPen(LIFTED_WHEEL, width=1.5, style=Qt.PenStyle.DashLine))
        elif style:
            item.setBrush(QBrush(WHEEL))
            item.setPen(pg.mkPen(AID_COLOURS[style[0]], width=3))
        else:
            item.setBrush(QBrush(WHEEL))
            item.setPen(pg.mkPen(WHEEL, width=1.5))

    def _keep_in_view(self, point: np.ndarray) -> None:
        """Follow camera with a dead zone: re-centre only when the car nears the edge of the view.

        A camera glued to the car would move the grid and both axes every frame (costly to paint,
        and restless to watch); this one moves in jumps of about a third of the view.
        """
        (x0, x1), (y0, y1) = self.getPlotItem().getViewBox().viewRange()
        margin_x, margin_y = 0.2 * (x1 - x0), 0.2 * (y1 - y0)
        if x0 + margin_x <= point[0] <= x1 - margin_x and y0 + margin_y <= point[1] <= y1 - margin_y:
            return
        self._centre_on(point, max(min(x1 - x0, y1 - y0), 1e-6))

    def _draw_trail(self, k: int) -> None:
        log = self._model.session.log
        frames = int(TRAIL_SECONDS / self._model.session.dt)
        start = max(0, k - frames)
        xs = log.column("x")[start:k + 1]
        ys = log.column("y")[start:k + 1]
        # Every third frame is plenty for a line a few pixels apart per point (and a third of the work).
        xs, ys = xs[::-3][::-1], ys[::-3][::-1]
        bounds = np.linspace(0, len(xs), TRAIL_SEGMENTS + 1).astype(int)
        for i, segment in enumerate(self._trail):
            a, b = bounds[i], min(bounds[i + 1] + 1, len(xs))
            segment.set_points(xs[a:b], ys[a:b]) if b - a >= 2 else segment.set_points([], [])


class _CornerItems:
    """What the car view draws at one corner of a four-wheel car besides the wheel and its force: the load bar
    (and the static load's frame around it) and the names of the aids acting on the wheel."""

    def __init__(self):
        self.frame = _polygon_item(QColor(255, 255, 255, 0), LOAD_FRAME)
        self.frame.setPen(pg.mkPen(LOAD_FRAME, width=1))
        self.bar = _polygon_item(LOAD, LOAD)
        # on a light fill: the aids' colours read on any road (ESC's lilac was faint on the ice's light blue)
        self.aids = pg.TextItem("", anchor=(0.5, 0.5), fill=pg.mkBrush(255, 255, 255, 210))
        # The application's font at 8 pt, bold: QFont("") asks the font database for a family named "", which
        # fontconfig answered with a serif (C059) where the URW fonts are installed.
        font = QFont(QApplication.font())
        font.setPointSize(8)
        font.setBold(True)
        self.aids.setFont(font)
        self.aids.setVisible(False)  # shown while an aid acts
        self._low = False
        self._text = ""
        self._shown = True

    def items(self) -> list:
        return [self.frame, self.bar, self.aids]

    def hide(self) -> None:
        if self._shown:
            self._shown = False
            self._text = ""  # set again when shown
            self.aids.setText("")
            for item in self.items():
                item.setVisible(False)

    def show(self, wheel) -> None:
        if not self._shown:
            self._shown = True
            self.frame.setVisible(True)
            self.bar.setVisible(True)
        _set_polygon(self.frame, wheel.load_frame)
        _set_polygon(self.bar, wheel.load_bar)
        low = wheel.load_ratio < UNLOADED
        if low != self._low:
            self._low = low
            colour = LOAD_LOW if low else LOAD
            self.bar.setBrush(QBrush(colour))
            self.bar.setPen(pg.mkPen(colour, width=1))
        text = " ".join(wheel.aids)
        if text != self._text:
            self._text = text
            self.aids.setHtml(" ".join(f"<span style='color:{AID_COLOURS[a].name()}'>{a}</span>" for a in wheel.aids))
            self.aids.setVisible(bool(text))
        if text:
            self.aids.setPos(float(wheel.aids_at[0]), float(wheel.aids_at[1]))
            self.aids.setAnchor(away_anchor(wheel.aids_away))


def away_anchor(away: np.ndarray) -> tuple[float, float]:
    """A text's anchor that makes it run from its point in the world direction ``away`` (y up), on screen (y down):
    (0, 0.5) runs right of the point, (0.5, 1) above it, (1, 0) down and to the left."""
    x, y = float(away[0]), -float(away[1])
    size = max(abs(x), abs(y), 1e-12)
    return 0.5 - 0.5 * x / size, 0.5 - 0.5 * y / size


def at_rest(p) -> dict[str, float]:
    """The frame on show before the first step: the car at rest at the origin, every channel zero but the
    wheels' loads, which are static (a car standing still has its wheels on the ground), and the gear and engine
    speed it starts with (physics.state.initial_state: 1st, idling): the HUD said "gear N  0 rpm" until the first
    frame said "gear 1  800 rpm"."""
    values = dict.fromkeys(channel_names(p.model.unit), 0.0)
    front, rear = p.static_loads()
    for c in CORNERS:
        values[f"load_{c.name}"] = front if c.front else rear
    values["gear"] = 1.0
    if p.engine is not None:
        values["rpm"] = float(p.engine.idle_rpm)
    return values
