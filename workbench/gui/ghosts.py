"""Reference runs in the car view: each a ghost car (translucent outline) with its trail, at the frame on show."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QGraphicsPolygonItem

from workbench.gui.car_geometry import car_shape
from workbench.gui.car_view import TRAIL_SECONDS, CarView, _set_polygon
from workbench.gui.plot_overlay import distance_of
from workbench.gui.references import Comparer, Reference


def reference_frame(ref: Reference, t: float, distance: float | None) -> int:
    """The reference's frame to show beside the run on show at time ``t`` (or at ``distance`` travelled)."""
    data = ref.run.data
    n = len(data["t"])
    if distance is not None:
        d = distance_of(data["x"], data["y"])
        return int(min(np.searchsorted(d, distance), n - 1))
    return int(np.clip(round(t / ref.run.dt), 0, n - 1))


class _Ghost:
    def __init__(self, view: CarView):
        self.body = QGraphicsPolygonItem()
        self.nose = pg.PlotCurveItem()
        self.trail = pg.PlotCurveItem()
        for item in (self.trail, self.body, self.nose):
            view.getPlotItem().addItem(item)
            item.setZValue(-10)  # under the car on show

    def style(self, colour: QColor) -> None:
        if getattr(self, "_colour", None) == colour.rgb():
            return
        self._colour = colour.rgb()
        fill = QColor(colour)
        fill.setAlpha(40)
        self.body.setBrush(QBrush(fill))
        self.body.setPen(pg.mkPen(colour, width=1.5, style=Qt.PenStyle.DashLine))
        self.nose.setPen(pg.mkPen(colour, width=2))
        self.trail.setPen(pg.mkPen(colour, width=1, style=Qt.PenStyle.DashLine))

    def remove(self, view: CarView) -> None:
        for item in (self.trail, self.body, self.nose):
            view.getPlotItem().removeItem(item)


class GhostCars:
    """Draws every reference of ``comparer`` as a ghost car in ``view``."""

    def __init__(self, view: CarView, comparer: Comparer):
        self.view = view
        self.comparer = comparer
        self.ghosts: list[_Ghost] = []
        model = comparer.model
        model.stepped.connect(self.redraw)
        model.view_frame_changed.connect(lambda frame: self.redraw())
        comparer.references.changed.connect(self.redraw)

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
        for ghost, ref in zip(self.ghosts, refs, strict=True):
            ghost.style(ref.colour)
            data = ref.run.data
            j = reference_frame(ref, k * session.dt, distance)
            values = {name: float(column[j]) for name, column in data.items()}
            shape = car_shape(values, ref.run.params if ref.run.params is not None else session.params)
            _set_polygon(ghost.body, shape.body)
            ghost.nose.setData(shape.nose[:, 0], shape.nose[:, 1])
            start = max(0, j - int(TRAIL_SECONDS / ref.run.dt))
            ghost.trail.setData(data["x"][start:j + 1:3], data["y"][start:j + 1:3])
