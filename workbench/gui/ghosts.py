"""Reference runs in the car view: each a ghost car (translucent outline) with its trail and label, at the frame on
show; a ghost out of view gets a marker on the view's edge pointing at it."""

from __future__ import annotations

import math
import re

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics
from PySide6.QtWidgets import QGraphicsPolygonItem

from workbench.gui.car_geometry import chevron, edge_point, in_view, outline
from workbench.gui.car_view import TRAIL_SECONDS, CarView, _set_polygon
from workbench.gui.plot_overlay import distance_of
from workbench.gui.plot_rows import KnownBoundsCurve
from workbench.gui.references import Comparer, Reference

MARKER_PX = 16  # [px] the edge marker's length
MARKER_INSET_PX = 10  # [px] from the view's edge to the marker's tip
HUD_GAP_PX = 6  # [px] between the HUD (or a key) and an edge marker, or a ghost's label moved out from under the HUD
CAR_GAP_PX = 4  # [px] between the car on show and an edge marker
LABEL_GAP_PX = 1  # [px] between two ghosts' labels stacked one over the other
MARKER_GAP_PX = 2  # [px] between two edge markers (each an arrowhead and its label), and between one and an overlay
MARKER_STEP_PX = 2  # [px] an edge marker is tried this much further in from its edge at a time, where none fits on it
MARKER_LABEL_SHARE = 0.45  # an edge marker's label is at most this share of the view's width (its name elided)
MARKER_LABEL_MIN_PX = 90  # [px] ... or this, on a view too narrow for the share to hold a name
MARKER_Z = 50  # over everything the view draws
LABEL_Z = 40  # a ghost's name: over the car on show, under the edge markers


def reference_frame(ref: Reference, t: float, distance: float | None) -> int:
    """The reference's frame to show beside the run on show at time ``t`` (or at ``distance`` travelled)."""
    data = ref.run.data
    n = len(data["t"])
    if distance is not None:
        d = distance_of(data["x"], data["y"])
        return int(min(np.searchsorted(d, distance), n - 1))
    return int(np.clip(round(t / ref.run.dt), 0, n - 1))


def ghost_label(ref: Reference, script: str | None, current: str | None) -> str:
    """The name a ghost shows: the reference's, marked when it was driven under another script than the one
    loaded (``script`` and ``current`` the scripts' names, None for driving without one)."""
    if script == current:
        return ref.name
    return f"{ref.name} [other script: {script}]" if script else f"{ref.name} [driven, no script]"


QUALIFIER = re.compile(r"\s*(\([^)]*\)|\[[^\]]*\])")  # " (before frame 578)", " [driven, no script]"
OTHER_SCRIPT = re.compile(r"\[other script: .*\]$")  # the last qualifier (a script's name may hold a "]")


def shortened(name: str, fits: float, metrics: QFontMetrics) -> str:
    """``name`` in at most ``fits`` px of ``metrics``' font: whole when it fits; else "[other script: NAME]" as "[other
    script]", then without its qualifiers in brackets ("(before frame 578)", "[driven, no script]"), the last one
    first, one at a time until it fits; cut at its end if it still does not fit. (Every qualifier went at once: "ref 1
    (before frame 300) [driven, no script]" read "ref 1" where "ref 1 (before frame 300)" fitted.)"""
    shown = name
    if metrics.horizontalAdvance(shown) > fits:
        # First the other script's name goes, not the word that there is one: "ref 2 (before frame 1170) [other
        # script: iso7401_step]" lost its note whole and read as a reference of the script loaded (a review)
        shown = OTHER_SCRIPT.sub("[other script]", shown)
    while metrics.horizontalAdvance(shown) > fits:
        found = list(QUALIFIER.finditer(shown))
        if not found:
            break
        last = found[-1]
        fewer = (shown[:last.start()] + shown[last.end():]).strip()
        if not fewer:  # a name that is only a qualifier keeps it
            break
        shown = fewer
    if metrics.horizontalAdvance(shown) <= fits:
        return shown
    return metrics.elidedText(shown, Qt.TextElideMode.ElideRight, max(int(fits), 0))


class _Ghost:
    def __init__(self, view: CarView):
        self.body = QGraphicsPolygonItem()
        self.nose = KnownBoundsCurve()
        self.trail = KnownBoundsCurve()
        self.label = pg.TextItem("", anchor=(0.0, 1.0), fill=pg.mkBrush(255, 255, 255, 180))  # legible over a car
        self.marker = QGraphicsPolygonItem()
        self.marker_label = pg.TextItem("", fill=pg.mkBrush(255, 255, 255, 210))  # legible over the car
        bold = QFont()
        bold.setBold(True)
        self.marker_label.setFont(bold)
        for item in (self.trail, self.body, self.nose, self.label):
            view.getPlotItem().addItem(item)
            item.setZValue(-10)  # under the car on show
        self.label.setZValue(LABEL_Z)  # its name over it: a ghost where the car is (driven on from) still says whose
        for item in (self.marker, self.marker_label):
            view.getPlotItem().addItem(item)
            item.setZValue(MARKER_Z)
            item.setVisible(False)
        self.com: np.ndarray | None = None
        self.marker_points = np.zeros((0, 2))  # the edge marker's arrowhead where it points from (view coordinates)
        self.marker_on_side = False  # the arrowhead is on the view's left or right edge (else its top or bottom)
        self.text = ""
        self.label_at = (0.0, 0.0)  # where the label goes when no other ghost's label is in the way

    def items(self) -> tuple:
        return self.trail, self.body, self.nose, self.label, self.marker, self.marker_label

    def style(self, colour: QColor) -> None:
        if getattr(self, "_colour", None) == colour.rgb():
            return
        self._colour = colour.rgb()
        fill = QColor(colour)
        fill.setAlpha(40)
        self.body.setBrush(QBrush(fill))
        self.body.setPen(pg.mkPen(colour, width=1.5, style=Qt.PenStyle.DashLine))
        self.nose.setPen(pg.mkPen(colour, width=2))
        # Solid: the colour tells it from the car's own grey trail, and a dashed antialiased path of a few
        # hundred points cost a tenth of a millisecond a frame for each ghost.
        self.trail.setPen(pg.mkPen(colour, width=1))
        self.marker.setBrush(QBrush(colour))
        self.marker.setPen(pg.mkPen(colour.darker(130), width=1))
        self.label.setColor(colour)
        self.marker_label.setColor(colour.darker(120))

    def set_text(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self.label.setText(text)
            self.label.setToolTip("")

    def fit_text(self, width: float) -> None:
        """The label's name cut to ``width`` px (the view's width) by :func:`shortened`, the whole name its tooltip."""
        item = self.label.textItem
        fits = width - 2 * item.document().documentMargin()
        shown = shortened(self.text, fits, QFontMetrics(item.font()))
        if item.toPlainText() != shown:
            self.label.setText(shown)
            self.label.setToolTip(self.text if shown != self.text else "")

    def remove(self, view: CarView) -> None:
        for item in self.items():
            view.getPlotItem().removeItem(item)


class GhostCars:
    """Draws every reference of ``comparer`` as a ghost car in ``view``."""

    def __init__(self, view: CarView, comparer: Comparer):
        self.view = view
        self.comparer = comparer
        self.ghosts: list[_Ghost] = []
        self._scripts: list[tuple[Reference, str | None]] = []  # each reference and the script it was pinned under
        model = comparer.model
        model.stepped.connect(self.redraw)
        model.view_frame_changed.connect(lambda frame: self.redraw())
        model.script_loaded.connect(lambda name: self.redraw())
        comparer.references.changed.connect(self._on_references_changed)
        view.getPlotItem().getViewBox().sigRangeChanged.connect(self._place_markers)

    def _current_script(self) -> str | None:
        program = self.comparer.model.session.program
        return program.name if program is not None else None

    def script_of(self, ref: Reference) -> str | None:
        """The script ``ref`` was driven under (None: driven without one)."""
        return next((s for r, s in self._scripts if r is ref), None)

    def _on_references_changed(self) -> None:
        # A reference is pinned from the run on show, so the script loaded now is the one it was driven under.
        items = self.comparer.references.items
        kept = [(r, s) for r, s in self._scripts if any(r is i for i in items)]
        current = self._current_script()
        self._scripts = kept + [(i, current) for i in items if not any(i is r for r, _ in kept)]
        self.redraw()

    def redraw(self) -> None:
        model = self.comparer.model
        session = model.session
        refs = [r for r in self.comparer.references.items if r.run.unit == session.params.model.unit]
        while len(self.ghosts) > len(refs):
            self.ghosts.pop().remove(self.view)
        while len(self.ghosts) < len(refs):
            self.ghosts.append(_Ghost(self.view))
        k = max(model.shown_frame(), 0)
        distance = None
        if self.comparer.align == "distance" and session.log.frames:
            distance = float(distance_of(session.log.column("x")[:k + 1], session.log.column("y")[:k + 1])[-1])
        current = self._current_script()
        for ghost, ref in zip(self.ghosts, refs, strict=True):
            ghost.style(ref.colour)
            ghost.set_text(ghost_label(ref, self.script_of(ref), current))
            data = ref.run.data
            j = reference_frame(ref, k * session.dt, distance)
            params = ref.run.params if ref.run.params is not None else session.params
            body, nose, _, ghost.com = outline(np.array([data["x"][j], data["y"][j]]), float(data["heading"][j]), params)
            _set_polygon(ghost.body, body)
            ghost.nose.set_points(nose[:, 0], nose[:, 1])
            ghost.label_at = (float(body[0][0]), float(body[0][1]))
            start = max(0, j - int(TRAIL_SECONDS / ref.run.dt))
            ghost.trail.set_points(data["x"][start:j + 1:3], data["y"][start:j + 1:3])
        self._place_markers()

    def _clear_of_hud(self, label) -> float:
        """How far [px] to move ``label``, where it is now, to the right so that the HUD (drawn over the
        view's bottom left corner) does not cover it; 0 when it does not."""
        hud = getattr(self.view, "hud", None)
        if hud is None or not hud.isVisible():
            return 0.0
        rect = self.view.mapFromScene(label.sceneBoundingRect()).boundingRect()
        box = hud.geometry()
        return float(box.right() + HUD_GAP_PX - rect.left()) if rect.intersects(box) else 0.0

    def _place_markers(self, *args) -> None:
        """An arrowhead on the view's edge, with the ghost's label and how far it is, for each ghost out of view."""
        vb = self.view.getPlotItem().getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        view = (x0, x1, y0, y1)
        px = max(vb.viewPixelSize()[0], 1e-12)  # the aspect is locked: a pixel is as wide as it is high
        unit = self.comparer.model.session.params.model.unit
        centre = np.array([0.5 * (x0 + x1), 0.5 * (y0 + y1)])
        edge = []
        for ghost in self.ghosts:
            off = ghost.com is not None and not in_view(ghost.com, view)
            ghost.marker.setVisible(off)
            ghost.marker_label.setVisible(off)
            ghost.label.setVisible(not off)  # the marker's label names it: the ghost's own would stick in from the edge
            if not off:
                # A long name ("ref 1 (before frame 300) [driven, no script]") wider than a narrow view (1024x640) ran
                # off its left edge: cut as an edge marker's is, to the view's width.
                ghost.fit_text(self.view.mapFromScene(vb.sceneBoundingRect()).boundingRect().width() - 2)
                continue
            tip, bearing = edge_point(ghost.com, view, MARKER_INSET_PX * px)
            # on the left or right edge: it moves along that edge (up or down), else along the top or bottom one
            ghost.marker_on_side = min(tip[0] - x0, x1 - tip[0]) <= min(tip[1] - y0, y1 - tip[1])
            away = float(np.linalg.norm(ghost.com - centre))
            # A long name ("ref 4 (before frame 578) [driven, no script]") reached across a narrow view from its
            # edge and over the car: it is cut at the end to a share of the view, the distance kept whole.
            tail = f"  {away:.0f} {unit}"
            metrics = QFontMetrics(ghost.marker_label.textItem.font())
            room = max(MARKER_LABEL_SHARE * self.view.viewport().width(), MARKER_LABEL_MIN_PX)
            fits = max(int(room - metrics.horizontalAdvance(tail)), 0)
            name = shortened(ghost.text, fits, metrics)  # its qualifiers go first ("(before frame 578)"), then its end
            text = f"{name}{tail}"
            if ghost.marker_label.toPlainText() != text:
                ghost.marker_label.setText(text)
            edge.append((ghost, tip, bearing))
        taken = self._place_own_labels()
        car = self._car_rect()
        if car is not None:
            taken.append(QRectF(car))
        overlays = getattr(self.view, "overlay_rects", None)
        for rect in overlays() if overlays is not None else ():
            taken.append(QRectF(rect).adjusted(-HUD_GAP_PX, -HUD_GAP_PX, HUD_GAP_PX, HUD_GAP_PX))
        for ghost, tip, bearing in edge:
            taken.append(self._place_edge_marker(ghost, tip, bearing, px, taken))

    def _place_edge_marker(self, ghost: _Ghost, tip: np.ndarray, bearing: float, px: float, taken: list) -> QRectF:
        """Put ``ghost``'s arrowhead at ``tip`` (on the view's edge, pointing along ``bearing``) with its label right
        behind it, clear of everything in ``taken`` (the car on show, the HUD and the keys, the ghosts' labels and
        the markers placed before, in the view's pixels): the label moved along the edge while it stays beside its
        arrowhead, else the two moved along the edge together, the least distance; only where nothing on the edge
        is clear, in from it, a step at a time. Returns the marker's rectangle, MARKER_GAP_PX wider each side.

        The labels were stacked on their own, up or down: on the top or bottom edge a label moved past the car had
        the car between it and its arrowhead, a second ghost's label stood a label's height from the arrowheads
        (drawn one on the other), and past the HUD or the keys (at 1024x640 the key spans the view's top) a label
        was under them, out of sight."""
        vb = self.view.getPlotItem().getViewBox()

        def pixels(points: np.ndarray) -> np.ndarray:
            return np.array([(p.x(), p.y()) for p in
                             (self.view.mapFromScene(vb.mapViewToScene(QPointF(float(x), float(y)))) for x, y in points)],
                            dtype=float)

        arrow_world = chevron(tip, bearing, MARKER_PX * px)
        corners = pixels(arrow_world)
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        arrow = QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1])
        size = ghost.marker_label.textItem.boundingRect().size()
        box = QRectF(self.view.mapFromScene(vb.sceneBoundingRect()).boundingRect()).adjusted(1, 1, -2, -2)  # (rounding)
        (x0, x1), (y0, y1) = vb.viewRange()
        a, p = (1, 0) if ghost.marker_on_side else (0, 1)  # the coordinates along the edge and across it
        if ghost.marker_on_side:
            inward = 1.0 if tip[0] - x0 < x1 - tip[0] else -1.0
        else:
            inward = 1.0 if y1 - tip[1] < tip[1] - y0 else -1.0  # the view's pixels run down
        extent = (size.width(), size.height())

        def span(rect: QRectF, axis: int) -> tuple[float, float]:
            return (rect.left(), rect.right()) if axis == 0 else (rect.top(), rect.bottom())

        def rect(along: tuple[float, float], across: tuple[float, float]) -> QRectF:
            (a_lo, a_hi), (p_lo, p_hi) = along, across
            return QRectF(a_lo, p_lo, a_hi - a_lo, p_hi - p_lo) if a == 0 else QRectF(p_lo, a_lo, p_hi - p_lo, a_hi - a_lo)

        # The label behind the arrowhead, away from the edge it points at; along the edge it reaches towards the
        # view's middle as the arrowhead points away from it (its share of the label before the arrowhead's middle).
        arrow_a, arrow_p = span(arrow, a), span(arrow, p)
        behind = (arrow_p[1] + 2, arrow_p[1] + 2 + extent[p]) if inward > 0 else (arrow_p[0] - 2 - extent[p], arrow_p[0] - 2)
        share = 0.5 + 0.5 * (np.cos(bearing) if a == 0 else -np.sin(bearing))
        middle = 0.5 * (arrow_a[0] + arrow_a[1])
        label_a = (middle - share * extent[a], middle + (1 - share) * extent[a])
        beside = min(6.0, 0.5 * (arrow_a[1] - arrow_a[0]))  # [px] of the label's span along the edge by the arrowhead's

        def nearest(moving: tuple[float, float], across: tuple[float, float], first: float, last: float,
                    rects: list) -> float | None:
            """The offset along the edge nearest 0, in [first, last], at which the span ``moving`` (across the edge at
            ``across``) meets none of ``rects``."""
            if first > last:
                return None
            blocked = [(span(r, a)[0] - moving[1], span(r, a)[1] - moving[0]) for r in rects
                       if span(r, p)[0] < across[1] and span(r, p)[1] > across[0]]
            tries = [min(max(0.0, first), last)] + [end for b in blocked for end in b if first <= end <= last]
            clear = [d for d in tries if not any(b_lo < d < b_hi for b_lo, b_hi in blocked)]
            return min(clear, key=abs) if clear else None

        box_a, box_p = span(box, a), span(box, p)
        # where the label reaches out past the edge (pointing into a corner), in from it by that much first
        outer = min(arrow_p[0], behind[0]) if inward > 0 else max(arrow_p[1], behind[1])
        out = max(box_p[0] - outer if inward > 0 else outer - box_p[1], 0.0)
        found = None
        for step in range(math.ceil(out), int(0.5 * (box_p[1] - box_p[0])) + 1, MARKER_STEP_PX):
            across_arrow = (arrow_p[0] + inward * step, arrow_p[1] + inward * step)
            across_label = (behind[0] + inward * step, behind[1] + inward * step)
            if min(across_arrow[0], across_label[0]) < box_p[0] or max(across_arrow[1], across_label[1]) > box_p[1]:
                break
            # the arrowhead where it is, its label moved along beside it
            if nearest(arrow_a, across_arrow, 0.0, 0.0, taken) is not None:
                first = max(arrow_a[0] + beside - label_a[1], box_a[0] - label_a[0])
                last = min(arrow_a[1] - beside - label_a[0], box_a[1] - label_a[1])
                slide = nearest(label_a, across_label, first, last, taken)
                if slide is not None:
                    found = (0.0, slide, step)
                    break
            # the two moved along together
            both = (min(arrow_a[0], label_a[0]), max(arrow_a[1], label_a[1]))
            unit = rect(both, (min(across_arrow[0], across_label[0]), max(across_arrow[1], across_label[1])))
            slide = nearest(both, span(unit, p), box_a[0] - both[0], box_a[1] - both[1], taken)
            if slide is not None:
                found = (slide, slide, step)
                break
        if found is None:  # nowhere clear: at its place on the edge, in the view
            both = (min(arrow_a[0], label_a[0]), max(arrow_a[1], label_a[1]))
            slide = min(max(0.0, box_a[0] - both[0]), box_a[1] - both[1])
            found = (slide, slide, out)
        arrow_d, label_d, step = found
        move = np.zeros(2)
        move[a], move[p] = arrow_d, inward * step
        ghost.marker_points = arrow_world + np.array([move[0] * px, -move[1] * px])
        _set_polygon(ghost.marker, ghost.marker_points)
        label = rect((label_a[0] + label_d, label_a[1] + label_d), (behind[0] + inward * step, behind[1] + inward * step))
        ghost.marker_label.setAnchor((0.0, 0.0))
        ghost.marker_label.setPos(vb.mapSceneToView(self.view.mapToScene(round(label.left()), round(label.top()))))
        shown = arrow.translated(move[0], move[1]).united(label)
        return shown.adjusted(-MARKER_GAP_PX, -MARKER_GAP_PX, MARKER_GAP_PX, MARKER_GAP_PX)

    def _car_rect(self):
        """The car on show in the view's pixels, CAR_GAP_PX wider each side (None: a view without one)."""
        rect = getattr(self.view, "car_rect", None)
        return rect().adjusted(-CAR_GAP_PX, -CAR_GAP_PX, CAR_GAP_PX, CAR_GAP_PX) if rect is not None else None

    def _keep_in_view(self, label, inset: int = 0) -> None:
        """Move a ghost's label inside the view where it would run off an edge (at its car's corner near the edge),
        ``inset`` px from the edges, and clear of the HUD. (An edge marker's label is placed by _place_edge_marker.)"""
        vb = self.view.getPlotItem().getViewBox()
        box = self.view.mapFromScene(vb.sceneBoundingRect()).boundingRect().adjusted(inset, inset, -inset, -inset)
        rect = self.view.mapFromScene(label.sceneBoundingRect()).boundingRect()
        # QRect's right() and bottom() are its last column and row, on both rectangles alike
        dx = box.left() - rect.left() if rect.left() < box.left() else min(box.right() - rect.right(), 0)
        dy = box.top() - rect.top() if rect.top() < box.top() else min(box.bottom() - rect.bottom(), 0)
        if dx or dy:
            label.setPos(vb.mapSceneToView(label.scenePos() + QPointF(float(dx), float(dy))))
        shift = self._clear_of_hud(label)
        if shift:
            label.setPos(vb.mapSceneToView(label.scenePos() + QPointF(shift, 0.0)))

    def _under_the_car_at_the_top(self, ghost: _Ghost) -> None:
        """A ghost's label, at its car's corner, that would run off the view's top edge goes under the car instead
        (when there is room for it there): pushed down into the view it lay over the ghost and the car on show."""
        vb = self.view.getPlotItem().getViewBox()
        box = self.view.mapFromScene(vb.sceneBoundingRect()).boundingRect()
        rect = self.view.mapFromScene(ghost.label.sceneBoundingRect()).boundingRect()
        if rect.top() >= box.top():
            return
        car = self.view.mapFromScene(ghost.body.mapToScene(ghost.body.polygon())).boundingRect()
        dy = car.bottom() + 1 + LABEL_GAP_PX - rect.top()  # its top a pixel under the car's lowest point
        if rect.bottom() + dy <= box.bottom():
            ghost.label.setPos(vb.mapSceneToView(ghost.label.scenePos() + QPointF(0.0, float(dy))))

    def _place_own_labels(self) -> list:
        """Each ghost's label at its car's corner, moved up (down in the view's upper half) past any earlier ghost's
        label it would cover: two ghosts in the same place (a run and the run it was driven on from) show both
        names. Returns the labels' rectangles in the view's pixels (the edge markers keep clear of them). (A ghost's
        own label stays over the car on show: a ghost where the car is still says whose.)"""
        vb = self.view.getPlotItem().getViewBox()
        taken: list = []
        for ghost in self.ghosts:
            if ghost.label.isVisible():
                ghost.label.setPos(*ghost.label_at)
                self._under_the_car_at_the_top(ghost)
                self._keep_in_view(ghost.label)
        height = self.view.viewport().height()
        for label in [g.label for g in self.ghosts]:
            if not label.isVisible():
                continue
            rect = self.view.mapFromScene(label.sceneBoundingRect()).boundingRect()
            up = rect.center().y() > height / 2  # moved towards the middle of the view, not off its nearer edge
            lift = 0
            for _ in range(len(taken)):  # each pass clears one label in the way: at most one pass per label
                moved = rect.translated(0, -lift if up else lift)
                over = [r for r in taken if r.intersects(moved)]
                if not over:
                    break
                # QRect's bottom() is its last row: + 1 for the row after it, + LABEL_GAP_PX between the two
                lift += (moved.bottom() - min(r.top() for r in over) if up
                         else max(r.bottom() for r in over) - moved.top()) + 1 + LABEL_GAP_PX
            if lift:
                label.setPos(vb.mapSceneToView(label.scenePos() - QPointF(0.0, lift if up else -lift)))
                rect = rect.translated(0, -lift if up else lift)
            taken.append(rect)
        return [QRectF(r).adjusted(-MARKER_GAP_PX, -MARKER_GAP_PX, MARKER_GAP_PX, MARKER_GAP_PX) for r in taken]
