"""The tick labels a pyqtgraph axis draws, for the tests of what covers or clips them."""

from __future__ import annotations


def tick_labels(axis) -> list:
    """The tick labels ``axis`` draws, as (scene rectangle, text)."""
    from PySide6.QtGui import QImage, QPainter

    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _, _, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(axis.mapRectToScene(rect), text) for rect, _, text in texts]
