"""Tick labels of the plots never run into each other and never stick out past the plot, even on short plots."""

import pytest
from PySide6.QtGui import QImage, QPainter

from workbench.gui.testing import hold


def _labels(axis):
    """The tick labels the axis draws, as (scene rectangle, text)."""
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _, _, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(axis.mapRectToScene(rect), text) for rect, _, text in texts]


@pytest.mark.parametrize("size", [(1024, 640), (1500, 900)])
def test_vertical_tick_labels_fit_their_plot_and_each_other(carbench_window, size):
    window = carbench_window
    window.resize(*size)
    window.plots.set_channel_sets([["speed_kmh"], ["rpm"], ["yaw_rate", "steer"], ["fy_front", "fy_rear"]])
    hold(window, {"throttle", "left"}, 600)
    hold(window, {"right"}, 240)
    seen = 0
    for row in window.plots.rows:
        visible = row.plot.mapToScene(row.plot.viewport().rect()).boundingRect()
        for y_axis in row.axes:
            labels = _labels(y_axis.axis)
            seen += len(labels)
            assert labels, (y_axis.unit, "no label at all")
            for rect, text in labels:
                assert visible.contains(rect), (y_axis.unit, text, rect, visible)
            glyphs = sorted(rect.center().y() for rect, _ in labels)
            height = labels[0][0].height()
            assert all(b - a >= 0.8 * height for a, b in zip(glyphs, glyphs[1:], strict=False)), (y_axis.unit, glyphs)
    assert seen >= 6
