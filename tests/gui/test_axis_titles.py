"""Axis titles (the units of the plots, the time axis) fit their axes at small window sizes.

At 1024x640 the parking car's force plot is 45 px tall and its unit "kg px/s\u00b2" ran past both ends of its axis: the
plot cut it to "kg px/". A title too long is now written smaller, then elided (the unit kept whole, the tooltip
giving it in full).
"""

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QFont, QFontMetricsF

from workbench.gui.plot_style import LabelAxis, elide_title

SIZES = [(1024, 640), (2560, 1440)]
PRESETS = ["sedan", "parking", "manual003"]


def _titles(window):
    """(axis, its view) of every axis title the window draws."""
    for view in window.findChildren(pg.GraphicsView):
        if not view.isVisible():
            continue
        for item in view.scene().items():
            if isinstance(item, pg.AxisItem) and item.isVisible() and item.label.isVisible():
                yield item, view


def _text_rect(label):
    """The scene rectangle of a title's text (its document's blank margins left out)."""
    m = label.document().documentMargin()
    return label.mapRectToScene(label.boundingRect().adjusted(m, m, -m, -m))


def _assert_inside(axis, view):
    label = axis.label
    text = _text_rect(label)
    shown = view.mapFromScene(text).boundingRect()
    title = label.toPlainText().strip()
    assert view.viewport().rect().adjusted(-1, -1, 1, 1).contains(shown), \
        f"{title!r} of a {axis.orientation} axis drawn at {shown}, outside its view {view.viewport().rect()}"
    ends = axis.sceneBoundingRect()
    if axis.orientation in ("left", "right"):
        assert ends.top() - 1 <= text.top() and text.bottom() <= ends.bottom() + 1, \
            f"{title!r} runs {text.top():.1f}..{text.bottom():.1f} on an axis {ends.top():.1f}..{ends.bottom():.1f}"
    else:
        assert ends.left() - 1 <= text.left() and text.right() <= ends.right() + 1, \
            f"{title!r} runs {text.left():.1f}..{text.right():.1f} on an axis {ends.left():.1f}..{ends.right():.1f}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("preset", PRESETS)
def test_every_axis_title_stays_inside_its_axis_and_the_plot_units_show_whole(carbench_window, qtbot, preset, size,
                                                                              request):
    window = carbench_window
    if preset != "sedan":
        window.load_preset(preset)
    window.resize(*size)
    window.hold({"throttle", "left"}, 1.0)
    qtbot.wait(20)
    titles = list(_titles(window))
    units = {row.plot.getPlotItem().getAxis("left") for row in window.plots.rows}
    assert units <= {axis for axis, _ in titles}  # every plot's unit is drawn
    for axis, view in titles:
        _assert_inside(axis, view)
        if axis in units or axis.orientation == "bottom":
            assert axis.label.toPlainText().strip() == axis.labelText  # the default plots' units, and the time axis: whole


@pytest.mark.carbench_preset("parking")
def test_the_parking_cars_force_unit_at_1024x640(carbench_window, qtbot):
    window = carbench_window
    window.resize(1024, 640)
    qtbot.wait(20)
    row = next(r for r in window.plots.rows if "drive_force" in r.channels())
    axis = row.plot.getPlotItem().getAxis("left")
    assert axis.labelText == "kg px/s\u00b2"
    assert axis.height() < QFontMetricsF(QFont()).horizontalAdvance("kg px/s\u00b2") + 8  # too short for it as it was
    assert axis.label.toPlainText().strip() == "kg px/s\u00b2"
    _assert_inside(axis, row.plot)


@pytest.mark.carbench_preset("parking")
def test_with_more_plots_than_fit_every_unit_shows_whole_inside_its_axis(carbench_window, qtbot):
    """With five plots or more (they scroll) each was 36 px tall: the force unit, too long even written smaller, read
    "kg p\u2026" (whole in its tooltip only). Past four plots each is now as tall as its longest unit needs, and the
    bottom plot's area as tall as the others' (it was 28 px beside 34)."""
    from workbench.gui.plot_panel import ROWS_BEFORE_SCROLLING

    window = carbench_window
    window.resize(1024, 640)
    least = window.minimumSizeHint().height()
    for _ in range(4):
        window.plots.add_plot(["drive_force", "brake_force"])
    qtbot.wait(20)
    rows = window.plots.rows
    assert len(rows) > ROWS_BEFORE_SCROLLING and window.plots.scroll.verticalScrollBar().maximum() > 0
    forces = 0
    for row in rows:
        axis = row.plot.getPlotItem().getAxis("left")
        _assert_inside(axis, row.plot)
        assert axis.label.toPlainText().strip() == axis.labelText, axis.labelText  # (maybe written smaller)
        forces += axis.labelText == "kg px/s\u00b2"
    assert forces == 5
    areas = [row.vb.sceneBoundingRect().height() for row in rows]
    assert min(areas) >= 0.95 * max(areas), areas
    assert window.minimumSizeHint().height() == least  # the window's least height is still that of four plots


def test_a_time_axis_too_narrow_for_its_title_elides_the_words_and_keeps_the_unit(qtbot):
    plot = pg.PlotWidget(background="w", axisItems={"bottom": LabelAxis("bottom"), "left": LabelAxis("left")})
    qtbot.addWidget(plot)
    item = plot.getPlotItem()
    item.setLabel("bottom", "time from the newest frame [s]")
    item.setLabel("left", "yaw rate / road-wheel angle [1/s]")
    plot.resize(170, 110)
    plot.show()
    qtbot.waitExposed(plot)
    for name in ("bottom", "left"):
        axis = item.getAxis(name)
        shown = axis.shown_title()
        assert shown != axis.labelText and shown.endswith("\u2026 [" + axis.labelText.split(" [")[1])
        assert axis.label.toolTip() == axis.labelText
        _assert_inside(axis, plot)
    plot.resize(600, 400)  # room again: the title whole, in its own size
    qtbot.wait(10)
    for name in ("bottom", "left"):
        axis = item.getAxis(name)
        assert axis.shown_title() == axis.labelText and axis.label.toolTip() == ""
        assert axis.label.font() == QFont()
        _assert_inside(axis, plot)


def test_a_long_title_keeps_its_unit_whole():
    metrics = QFontMetricsF(QFont())
    text = "time from the newest frame [s]"
    assert elide_title(text, metrics.horizontalAdvance(text), metrics) == text
    short = elide_title(text, metrics.horizontalAdvance("time from [s]"), metrics)
    assert short.endswith("\u2026 [s]") and metrics.horizontalAdvance(short) <= metrics.horizontalAdvance("time from [s]")
    assert elide_title(text, metrics.horizontalAdvance("[s]") + 1, metrics) == "[s]"
    unit = elide_title("kg px/s\u00b2", metrics.horizontalAdvance("kg px"), metrics)
    assert unit.endswith("\u2026") and metrics.horizontalAdvance(unit) <= metrics.horizontalAdvance("kg px")
