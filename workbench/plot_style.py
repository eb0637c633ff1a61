"""One look for every pyqtgraph plot of the workbench."""

from __future__ import annotations

import pyqtgraph as pg

GRID = (228, 228, 228)
TEXT = (70, 70, 70)


def style_plot(item: pg.PlotItem) -> None:
    """Light opaque grid lines (alpha-blended ones cost several times more to paint), dark labels."""
    item.showGrid(x=True, y=True, alpha=1.0)
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setTickPen(pg.mkPen(GRID))
        axis.setTextPen(pg.mkPen(TEXT))
        axis.setPen(pg.mkPen(TEXT))
    item.hideButtons()
    item.setMenuEnabled(False)
