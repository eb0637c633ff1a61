"""The watch list: channels pinned from the dock, a plot's channel menu or a right-click, each a live row of
its value and its minimum and maximum over the plots' visible window, in display units; kept in the settings."""

import math

import numpy as np
from PySide6.QtWidgets import QApplication

from physics.units import display_of
from workbench.gui.testing import hold, make_window
from workbench.gui.watch_dock import REMOVE, watch_text


def _expected(window, name):
    log, dt = window.model.session.log, window.model.session.dt
    info = {i.name: i for i in log.infos}[name]
    unit, factor = display_of(info)
    a, b = window.plots.view
    start, end = max(0, math.floor(a / dt)), min(log.frames, math.ceil(b / dt) + 1)
    column = log.column(name)
    k = window.model.shown_frame()
    return [watch_text(v) for v in (column[k] * factor, column[start:end].min() * factor,
                                     column[start:end].max() * factor)] + [unit], unit


def _shown(window, name):
    return [window.watch.cell(name, c) for c in ("value", "min", "max", "unit")]


def test_a_pinned_channel_shows_its_value_and_the_plot_window_min_max_in_display_units(carbench_window):
    window = carbench_window
    watch = window.watch
    window.watch_dock.raise_()
    watch.picker.setCurrentIndex(watch.picker.findData("yaw_rate"))
    watch.add.click()
    assert watch.names == ["yaw_rate"]
    window.watch_channel("speed_kmh")
    window.plots.window.setValue(3.0)  # the window scrolls: the minimum is not the run's first frame
    hold(window, {"throttle", "left"}, 600)
    model = window.model
    model.press("throttle")
    for _ in range(5):  # a few frames, each drawn
        model.advance(2)
        QApplication.processEvents()
        for name in ("yaw_rate", "speed_kmh"):
            expected, unit = _expected(window, name)
            assert _shown(window, name) == expected
    model.release("throttle")
    assert _expected(window, "yaw_rate")[1] == "deg/s" and _expected(window, "speed_kmh")[1] == "km/h"
    assert watch.cell("yaw_rate", "unit") == "deg/s" and watch.cell("speed_kmh", "unit") == "km/h"
    shown_min = float(watch.cell("speed_kmh", "min"))
    assert shown_min > 1.0  # over the last 3 s of accelerating, not from standstill
    assert np.isclose(shown_min, window.model.session.log.column("speed_kmh")[-360:].min(), rtol=1e-3)
    # scrubbed back, the value is the frame on show's
    model.set_running(False)
    model.set_view_frame(100)
    expected, _ = _expected(window, "yaw_rate")
    assert _shown(window, "yaw_rate") == expected
    assert watch.cell("yaw_rate", "value") == watch_text(np.degrees(model.session.log.column("yaw_rate")[100]))
    # removed with its row's button
    watch.table.cellWidget(0, REMOVE).click()
    assert watch.names == ["speed_kmh"] and watch.table.rowCount() == 1


def test_pinned_from_a_plot_menu_and_a_right_click(carbench_window):
    window = carbench_window
    row = window.plots.rows[2]  # yaw_rate and steer
    row.menu.aboutToShow.emit()
    row.watch_menu.aboutToShow.emit()
    actions = {a.text(): a for a in row.watch_menu.actions()}
    assert set(actions) == {"watch yaw_rate", "watch steer"}
    actions["watch steer"].trigger()
    menu = row.context_menu()
    [a for a in menu.actions() if a.text() == "watch yaw_rate"][0].trigger()
    assert window.watch.names == ["steer", "yaw_rate"]
    assert window.watch_dock.isVisible()


def test_the_list_is_restored_from_the_settings(carbench_window, carbench_settings, qtbot):
    window = carbench_window
    window.watch.pin("rpm")
    window.watch.pin("beta")
    window.watch.pin("rpm")  # once only
    window.close()
    again = make_window(settings=carbench_settings)
    qtbot.addWidget(again)
    assert again.watch.names == ["rpm", "beta"]
    assert again.watch.table.rowCount() == 2


def test_the_picker_offers_only_what_the_car_on_show_computes(carbench_window):
    from physics.telemetry import channels_of

    window = carbench_window
    for name in ("teaching", "manual003", "sedan"):
        assert window.load_preset(name)
        watch = window.watch
        offered = [watch.picker.itemData(i) for i in range(watch.picker.count())]
        assert offered == [i.name for i in channels_of(window.model.session.params)]
        if name == "teaching":
            assert "rpm" not in offered and not watch.pin("rpm")
        if name == "manual003":
            assert "slip_angle_fl" not in offered and not watch.pin("slip_angle_fl")
    assert window.watch.pin("load_fl") and window.watch.names == ["load_fl"]


def test_a_pinned_channel_the_car_on_show_does_not_compute_shows_no_value(carbench_window):
    """Pinned on the sedan, rpm and the front tyre's force read "0 rpm" and "0 N" on the kinematic car, which has
    neither (the picker and the Telemetry table leave them out): a made-up measurement."""
    from workbench.gui.watch_dock import NO_VALUE

    window = carbench_window
    assert window.load_preset("sedan")
    for name in ("rpm", "fy_front", "speed"):
        assert window.watch.pin(name)
    hold(window, {"throttle"}, 60)
    assert window.watch.cell("rpm", "value") != NO_VALUE
    assert window.load_preset("teaching")
    hold(window, {"throttle"}, 60)
    window.watch.update_rows()
    for name in ("rpm", "fy_front"):
        assert [window.watch.cell(name, c) for c in ("value", "min", "max")] == [NO_VALUE] * 3
    assert window.watch.cell("speed", "value") != NO_VALUE


def test_in_a_narrow_dock_the_numbers_keep_their_width_and_long_names_give_way(carbench_window):
    """At 1024 x 640 the column of names took the dock's width and "-0.003272" read "-0.0032..."."""
    from PySide6.QtCore import Qt

    window = carbench_window
    window.resize(1024, 640)
    window.watch_dock.show()
    window.watch_dock.raise_()
    many = ("x y vy beta yaw_rate accel_lat slip_front fy_front heading slip_ratio_front slip_ratio_rear slip_angle_fl "
            "slip_angle_fr slip_angle_rl slip_angle_rr wheel_speed_fl wheel_speed_fr brake_torque_fl fx_fl fx_fr fy_fl "
            "fy_fr load_fl load_fr mu_fl").split()  # enough to scroll: the scroll bar narrows the columns
    assert window.load_preset("sedan")
    for name in many:
        assert window.watch.pin(name)
    hold(window, {"throttle"}, 100)
    hold(window, {"right"}, 14)
    QApplication.processEvents()
    table = window.watch.table
    metrics = table.fontMetrics()
    widest = metrics.horizontalAdvance(window.watch.NUMBER_TEXT)
    for c in (1, 2, 3):
        assert table.columnWidth(c) >= widest
    for r in range(table.rowCount()):
        for c in (1, 2, 3):
            assert metrics.horizontalAdvance(table.item(r, c).text()) < table.columnWidth(c)
    assert table.textElideMode() == Qt.TextElideMode.ElideMiddle


def test_an_edit_that_changes_what_the_car_computes_updates_the_rows_and_the_picker_while_paused(carbench_window):
    """On the simple traction rule there is no slip ratio: the row kept its last number until the next frame, and
    the picker went on offering the channel, which pin() then refused."""
    from workbench.gui.watch_dock import NO_VALUE

    window = carbench_window
    assert window.load_preset("sedan_single_track")
    assert window.watch.pin("slip_ratio_front")
    hold(window, {"throttle"}, 60)
    window.model.set_running(False)
    assert window.watch.cell("slip_ratio_front", "value") != NO_VALUE
    window.model.set_param("model.traction", "simple")
    assert window.watch.cell("slip_ratio_front", "value") == NO_VALUE
    offered = [window.watch.picker.itemData(i) for i in range(window.watch.picker.count())]
    assert "slip_ratio_front" not in offered and "speed" in offered


def test_the_column_of_short_names_is_as_wide_as_its_title(carbench_window):
    """One short name watched ("rpm"): the names' column was sized for the names alone, and its title "channel" was cut
    at both ends even in a wide dock."""
    window = carbench_window
    window.resize(1500, 950)
    window.watch_dock.show()
    window.watch_dock.raise_()
    assert window.watch.pin("rpm")
    QApplication.processEvents()
    header = window.watch.table.horizontalHeader()
    title = window.watch.table.horizontalHeaderItem(0).text()
    assert title == "channel"
    assert header.sectionSize(0) >= header.fontMetrics().horizontalAdvance(title) + 8
