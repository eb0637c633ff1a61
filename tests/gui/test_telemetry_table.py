"""The Telemetry table lists what the car on show computes, each in its display unit."""

import math

import pytest

from workbench.gui.testing import hold


@pytest.mark.carbench_preset("parking")
def test_a_kinematic_car_lists_no_engine_or_tyre_channels(carbench_window):
    names = carbench_window.telemetry.table.names()
    assert {"speed", "steer", "curvature"} <= set(names)
    assert {"rpm", "slip_front", "fy_rear", "grip_rear", "roll", "load_fl"}.isdisjoint(names)


def test_loading_another_car_lists_its_channels_and_shows_live_values(carbench_window):
    window = carbench_window
    table = window.telemetry.table
    assert {"rpm", "roll", "slip_angle_fl"} <= set(table.names())  # the four-wheel sedan
    window.model.load_preset("parking")
    assert "rpm" not in table.names() and "roll" not in table.names()
    window.model.set_running(True)
    hold(window, {"throttle", "left"}, 120)
    log = window.model.session.log
    assert table.value("steer") == pytest.approx(math.degrees(log.column("steer")[-1]))  # degrees, as plotted
    assert table.value("speed") == pytest.approx(log.column("speed")[-1])


def test_a_value_that_rounds_to_zero_shows_no_minus_sign(carbench_window):
    table = carbench_window.telemetry.table
    row = table.names().index("fy_front")
    index = table.index(row, 1)
    for value, shown in ((-1e-9, "0.0000"), (-0.0, "0.0000"), (-4e-5, "0.0000"), (-6e-5, "-0.0001"),
                         (-12.5, "-12.5000")):
        table.values[row] = value
        assert table.data(index).strip() == shown, value


def test_a_recording_restarted_while_paused_leaves_no_values_of_the_last_run(carbench_window):
    """Paused after 4 s, R: the status said frame 0, t = 0, and the table still said t = 4.0167 (a review under Xvfb).
    With no frame to show its values are empty; the first frame fills them."""
    window = carbench_window
    table = window.telemetry.table
    hold(window, {"throttle"}, 480)
    assert table.value("t") > 3.9
    window.model.set_running(False)
    window.model.start_recording()
    window.model.set_running(False)
    assert window.model.session.log.frames == 0
    assert table.value("t") is None and table.data(table.index(table.names().index("t"), 1)) == ""
    hold(window, set(), 1)
    assert table.value("t") == 0.0
