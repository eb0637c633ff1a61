"""A plot's axes that show zero put it at one height: two signed channels are read against each other by their signs."""

import pytest
from PySide6.QtCore import QPointF

from workbench.gui.plot_rows import zero_heights
from workbench.gui.testing import hold


def _zero_y(axis) -> float:
    """Where the axis' zero is drawn, in scene pixels."""
    return axis.vb.mapViewToScene(QPointF(0.0, 0.0)).y()


def _share(y0: float, y1: float) -> float:
    return -y0 / (y1 - y0)


def test_the_closed_form_widens_the_extremes_alike_and_no_range_past_twice():
    # The yaw rate about zero, the steer only to the right (negative): zero at one height, each range widened on one
    # side by 1 + (the shares' spread), the one that does not hold zero left alone.
    ranges = [(-6.0, 6.0), (-4.9, 0.36), (800.0, 6000.0)]
    out = zero_heights(ranges)
    assert out is not None and out[2] == ranges[2]
    (a0, a1), (b0, b1) = out[0], out[1]
    assert _share(a0, a1) == pytest.approx(_share(b0, b1), abs=1e-12)
    assert a1 == 6.0 and b0 == -4.9  # widened on one side only
    spread = _share(-4.9, 0.36) - 0.5
    assert (a1 - a0) / 12.0 == pytest.approx(1.0 + spread) and (b1 - b0) / 5.26 == pytest.approx(1.0 + spread)
    # One range all above zero and one all below: zero halfway, each twice as high, no more.
    out = zero_heights([(0.0, 10.0), (-5.0, 0.0)])
    assert out == [(-10.0, 10.0), (-5.0, 5.0)]
    # Nothing to do: one range holding zero, or zeros already level.
    assert zero_heights([(-6.0, 6.0), (800.0, 6000.0)]) is None
    assert zero_heights([(-1.0, 1.0), (-3.0, 3.0)]) is None


def test_the_yaw_rate_and_the_steer_put_zero_at_one_height(carbench_window):
    window = carbench_window
    window.plots.set_channel_sets([["yaw_rate", "steer"]])
    hold(window, {"throttle"}, 240)
    hold(window, {"throttle", "right"}, 120)  # steer only one way: its range stops at zero, the yaw rate's too
    hold(window, {"throttle", "left"}, 90)  # the yaw rate crosses zero, the steer back to zero and past it a little
    window.plots.refresh()
    row = window.plots.rows[0]
    assert [a.unit for a in row.axes] == ["deg/s", "deg"]
    shown = [tuple(a.vb.viewRange()[1]) for a in row.axes]
    assert all(y0 < 0.0 < y1 for y0, y1 in shown)
    assert abs(_zero_y(row.axes[0]) - _zero_y(row.axes[1])) < 0.5
    # Each axis still holds its own data: the widening only adds room.
    for axis, (y0, y1) in zip(row.axes, shown, strict=True):
        assert axis.own is not None and y0 <= axis.own[0] and axis.own[1] <= y1
    # The same data drawn again sets no axis again (no redraw of the axes every frame).
    changes = []
    for axis in row.axes:
        axis.vb.sigYRangeChanged.connect(lambda *a: changes.append(a))
    window.plots.refresh()
    assert changes == []


def test_new_channels_on_an_aligned_plot_are_fitted_afresh_and_not_widened_again(carbench_window):
    """A new main axis (the channels changed) took the range align_zeros had widened for the last one as fitted, and
    each redraw widened it again: 24 to 37.5 deg/s over five redraws of the same data, 2.25 times its own height (a
    review)."""
    window = carbench_window
    window.plots.set_channel_sets([["yaw_rate", "steer"]])
    hold(window, {"throttle"}, 240)
    hold(window, {"throttle", "right"}, 120)
    hold(window, {"throttle", "left"}, 90)
    window.model.set_running(False)
    window.plots.refresh()
    window.plots.set_channel_sets([["yaw_rate", "steer", "beta"]])
    shown = []
    for _ in range(5):
        window.plots.refresh()
        shown.append([tuple(a.vb.viewRange()[1]) for a in window.plots.rows[0].axes])
    assert all(s == shown[0] for s in shown), shown
    for axis, (y0, y1) in zip(window.plots.rows[0].axes, shown[-1], strict=True):
        o0, o1 = axis.own
        assert (y1 - y0) <= 2.0 * (o1 - o0) + 1e-9  # no axis more than twice its own range
