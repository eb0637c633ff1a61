"""The crosshair's readout reads the time under the mouse, also after a wheel zoom moved the plot under it."""

import re

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QApplication

from workbench.gui.testing import hold


def _readout_time(row) -> float:
    return float(re.match(r"t = (-?[\d.]+) s", row.readout.toPlainText()).group(1))


def _time_under(row, point: QPoint) -> float:
    return row.vb.mapSceneToView(row.plot.mapToScene(point)).x()


def test_after_a_wheel_zoom_the_readout_is_the_time_under_the_mouse(carbench_window, qtbot):
    window = carbench_window
    hold(window, {"throttle"}, 2400)  # 20 s of driving, live: the newest frame at the right edge
    row = window.plots.rows[0]
    view = row.plot
    box = row.vb.sceneBoundingRect()
    point = view.mapFromScene(QPointF(box.left() + 0.75 * box.width(), box.center().y()))
    move = QMouseEvent(QEvent.Type.MouseMove, QPointF(point), QPointF(view.viewport().mapToGlobal(point)),
                       Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view.viewport(), move)
    qtbot.waitUntil(row.readout.isVisible)
    before, span = _readout_time(row), window.plots.span()
    assert before == pytest.approx(_time_under(row, point), abs=0.02)

    wheel = QWheelEvent(QPointF(point), QPointF(view.viewport().mapToGlobal(point)), QPoint(0, 0), QPoint(0, 240),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), wheel)  # zoom in: live, the span shrinks towards the newest frame
    assert window.plots.span() < 0.8 * span
    after = _time_under(row, point)
    assert abs(after - before) > 0.2  # the plot moved under the still mouse
    assert _readout_time(row) == pytest.approx(after, abs=0.02)
