"""Tick labels of the plots never run into each other and never stick out past the plot, even on short plots."""

import pytest
from axis_labels import tick_labels

from workbench.gui.testing import hold


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
            labels = tick_labels(y_axis.axis)
            seen += len(labels)
            assert labels, (y_axis.unit, "no label at all")
            for rect, text in labels:
                assert visible.contains(rect), (y_axis.unit, text, rect, visible)
            glyphs = sorted(rect.center().y() for rect, _ in labels)
            height = labels[0][0].height()
            assert all(b - a >= 0.8 * height for a, b in zip(glyphs, glyphs[1:], strict=False)), (y_axis.unit, glyphs)
    assert seen >= 6


# Ranges seen on short plots at 1024x640 that showed one label or none ("4500", "0"): the rpm of the sine
# with dwell, its tyre forces, its yaw rate, and a speed just above zero.
SHORT_PLOT_RANGES = [(4113.3, 4900.8), (-7999.2, 9357.4), (-53.5, 45.4), (3800.0, 5000.0), (-0.4, 12.7), (0.97, 1.03)]


def test_a_short_plot_labels_two_ticks_at_least(carbench_window, qtbot):
    window = carbench_window
    window.resize(1024, 640)
    window.plots.set_channel_sets([["speed_kmh"], ["rpm"], ["yaw_rate", "steer"], ["fy_front", "fy_rear"]])
    hold(window, {"throttle"}, 60)
    qtbot.wait(20)
    checked = 0
    for row in window.plots.rows:
        y_axis = row.axes[0]
        line = y_axis.axis.line_height()
        assert y_axis.vb.height() >= 2 * line  # tall enough for two lines of text: so two labels
        for lo, hi in SHORT_PLOT_RANGES:
            y_axis.vb.setYRange(lo, hi, padding=0)
            y_axis.vb.prepareForPaint()
            labels = tick_labels(y_axis.axis)
            visible = row.plot.mapToScene(row.plot.viewport().rect()).boundingRect()
            assert len(labels) >= 2, (row.channels(), lo, hi, y_axis.vb.height(), [t for _, t in labels])
            for rect, text in labels:
                assert visible.contains(rect), (text, rect, visible)
                assert lo <= float(text) <= hi
            glyphs = sorted(rect.center().y() for rect, _ in labels)
            assert all(b - a >= 0.8 * labels[0][0].height() for a, b in zip(glyphs, glyphs[1:], strict=False))
            checked += 1
    assert checked == 4 * len(SHORT_PLOT_RANGES)


def test_a_plot_too_short_for_two_labels_reads_out_its_range_in_its_title_row(carbench_window, qtbot):
    from PySide6.QtGui import QFont

    window = carbench_window
    window.resize(1024, 640)
    hold(window, {"throttle"}, 120)
    row = window.plots.rows[1]
    assert not row.range_readout.isVisible()
    font = QFont()
    font.setPixelSize(int(row.vb.height() * 0.6))  # two lines of it are taller than the plot
    row.axes[0].axis.setStyle(tickFont=font)
    row.vb.setYRange(3800.0, 5000.0, padding=0)
    qtbot.wait(10)
    assert row.range_readout.isVisible() and row.range_readout.full_text() == f"3800 .. 5000 {row.axes[0].unit}"


def test_two_labels_are_a_line_apart_and_inside_the_axis_for_any_range():
    import numpy as np

    from workbench.gui.plot_style import LABEL_GAP, LABEL_HEIGHT, two_labels

    rng = np.random.default_rng(7)
    line = 14.0
    for _ in range(5000):
        centre = rng.normal() * 10.0 ** rng.integers(-3, 5)
        span = 10.0 ** rng.uniform(-4, 5)
        size = rng.uniform(2 * line, 200.0)
        lo, hi = centre - span * rng.uniform(0, 1), centre + span
        spacing, values = two_labels(lo, hi, size, line)
        per_px = (hi - lo) / size
        assert len(values) >= 2, (lo, hi, size)
        half = 0.5 * LABEL_HEIGHT * line * per_px
        assert all(lo + half <= v <= hi - half for v in values), (lo, hi, size, values)
        gaps = np.diff(values) / per_px
        assert (gaps >= LABEL_GAP * line * (1 - 1e-6)).all(), (lo, hi, size, values)
    assert two_labels(0.0, 1.0, 2 * line - 1, line) is None


@pytest.mark.carbench_preset("parking")
def test_large_ticks_read_in_thousands_and_clear_the_axis_title(carbench_window):
    # The parking car's drive force in kg px/s^2 runs to tens of thousands: "-80000" ran into the rotated unit
    # title beside it. Thousands are written as k, and every label stays right of the title.
    window = carbench_window
    window.resize(1500, 900)
    window.plots.set_channel_sets([["drive_force"], ["speed"]])
    hold(window, {"throttle"}, 240)
    row = window.plots.rows[0]
    axis = row.axes[0].axis
    labels = tick_labels(axis)
    texts = [text for _, text in labels]
    assert any(text.endswith("k") for text in texts), texts
    assert all(len(text) <= 6 for text in texts), texts
    title = axis.mapRectToScene(axis.label.mapRectToParent(axis.label.boundingRect()))
    for rect, text in labels:
        assert rect.left() >= title.right() - 1, (text, rect, title)
    # Below ten thousand nothing changes.
    strings = axis.tickStrings([0.0, 2500.0, 5000.0, 7500.0], 1.0, 2500.0)
    assert strings == ["0", "2500", "5000", "7500"]
    assert axis.tickStrings([10000.0, 12500.0, 15000.0], 1.0, 2500.0) == ["10.0k", "12.5k", "15.0k"]
    assert axis.tickStrings([-1.2e6, 0.0, 1.2e6], 1.0, 1.2e6) == ["-1.2M", "0", "1.2M"]


@pytest.mark.parametrize("size", [(1024, 640), (1500, 900)])
def test_the_time_axis_labels_both_its_ends_inside_the_plot(carbench_window, size):
    """The window ends at the newest frame, 0 s, and starts 10 s before it: both ends are labelled (pyqtgraph hides
    a label reaching past its axis, and "0" at the right edge always does by half its width), and still inside the
    plot widget."""
    window = carbench_window
    window.resize(*size)
    hold(window, {"throttle"}, 60)
    row = window.plots.rows[-1]
    axis = row.plot.getPlotItem().getAxis("bottom")
    labels = tick_labels(axis)
    texts = [text for _, text in labels]
    assert "0" in texts and "-10" in texts, texts
    visible = row.plot.mapToScene(row.plot.viewport().rect()).boundingRect()
    for rect, text in labels:
        assert visible.contains(rect), (text, rect, visible)


def test_an_axis_styled_again_on_a_small_range_keeps_its_values_unscaled(qapp):
    """pyqtgraph's enableAutoSIPrefix(False) works out a prefix once more for the range on show: a plot's right axis
    styled again (its channels changed) while it showed -0.0025 .. 0 deg kept a scale of 1000 and read -9.5k for -9.5
    deg (a review under Xvfb)."""
    import pyqtgraph as pg

    from workbench.gui.plot_style import style_axis

    axis = pg.AxisItem("right")
    axis.setLabel("deg")
    axis.showLabel(True)
    axis.setRange(-0.0025, 0.0)
    style_axis(axis)
    assert axis.autoSIPrefixScale == 1.0 and axis.labelUnitPrefix == ""
    axis.setRange(-11.0, -9.5)
    assert axis.autoSIPrefixScale == 1.0
    assert axis.tickStrings([-10.0], axis.autoSIPrefixScale, 0.5) == ["-10.0"]
