"""The driver's course in the car view: the path it follows, the cones beside it and its preview point."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from workbench.gui.session_model import SessionModel

PATH = QColor(120, 120, 120)
CONE = QColor(255, 127, 14)
TARGET = QColor(204, 0, 0)


class CourseOverlay:
    """Draws the loaded script's path and cones under the car, and the preview point of the frame on show."""

    def __init__(self, view: pg.PlotWidget, model: SessionModel):
        self.view = view
        self.model = model
        plot = view.getPlotItem()
        self.path = pg.PlotCurveItem(pen=pg.mkPen(PATH, width=1.5, style=Qt.PenStyle.DashLine))
        self.cones = pg.ScatterPlotItem(size=9, pxMode=True, symbol="t", brush=pg.mkBrush(CONE), pen=None)
        self.target = pg.ScatterPlotItem(size=12, pxMode=True, symbol="x", brush=pg.mkBrush(TARGET),
                                         pen=pg.mkPen(TARGET, width=2))
        for item in (self.path, self.cones, self.target):
            item.setZValue(-20)
            plot.addItem(item)
        model.script_loaded.connect(lambda name: self.update_course())
        model.preset_loaded.connect(lambda name: self.update_course())
        model.stepped.connect(self.update_target)
        model.view_frame_changed.connect(lambda frame: self.update_target())
        self.update_course()

    def drive(self):
        program = self.model.session.program
        return None if program is None else program.drive

    def update_course(self) -> None:
        drive = self.drive()
        if drive is None or drive.course is None:
            self.path.setData([], [])
            self.cones.setData([], [])
        else:
            rows = drive.course.rows
            xs, ys = rows[:, 0], rows[:, 1]
            if drive.course.closed:
                xs, ys = np.append(xs, xs[0]), np.append(ys, ys[0])
            self.path.setData(xs, ys)
            self.cones.setData(drive.cones[:, 0], drive.cones[:, 1])
        course = drive is not None and drive.course is not None
        self.view.set_course_key(course, course and len(drive.cones) > 0)
        self.update_target()

    def update_target(self) -> None:
        drive = self.drive()
        k = self.model.shown_frame()
        log = self.model.session.log
        if drive is None or drive.course is None or k < 0 or k >= log.frames:
            self.target.setData([], [])
            return
        self.target.setData([float(log.column("target_x")[k])], [float(log.column("target_y")[k])])
