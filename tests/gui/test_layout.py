"""Layout from a laptop to 4K, what is restored on reopening, and a status bar that stays readable."""

import pytest
from PySide6.QtCore import Qt

from workbench.gui.main_window import LEFT_SHARE, RIGHT_SHARE
from workbench.gui.testing import hold, make_window


def test_the_window_works_at_1024x640(carbench_window, qtbot):
    window = carbench_window
    window.resize(1024, 640)
    qtbot.wait(20)
    assert window.minimumSizeHint().height() < 640 and window.minimumSizeHint().width() <= 1024
    assert window.size().toTuple() == (1024, 640)
    view = window.car_view
    assert view.width() >= 260 and view.height() >= 400  # the car stays in view
    bar = window.params._scroll.horizontalScrollBar()
    assert not bar.isVisible()  # the parameter rows fit across


def test_large_windows_grow_the_docks_in_proportion(carbench_window, qtbot):
    window = carbench_window
    window.resize(1500, 900)
    qtbot.waitUntil(lambda: window.width() == 1500, timeout=10000)
    window.resize(2560, 1440)

    def shared_out():  # the docks follow the resize on the event loop, however busy the machine is
        assert window.plots_dock.width() / window.width() == pytest.approx(RIGHT_SHARE, abs=0.02)

    qtbot.waitUntil(shared_out, timeout=10000)
    assert window.plots_dock.width() / window.width() == pytest.approx(RIGHT_SHARE, abs=0.02)
    assert window.params_dock.width() / window.width() == pytest.approx(LEFT_SHARE, abs=0.02)
    assert window.plots_dock.width() > 800
    assert window.car_view.width() < 0.5 * window.width()


def test_reset_layout_puts_the_docks_back(carbench_window, qtbot):
    window = carbench_window
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert window.reset_layout_action in view_menu.actions()
    window.plots_dock.hide()
    window.removeDockWidget(window.recorder_dock)
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, window.recorder_dock)
    window.recorder_dock.setFloating(True)
    window.reset_layout_action.trigger()
    qtbot.wait(20)
    assert window.plots_dock.isVisible() and not window.recorder_dock.isFloating()
    assert window.dockWidgetArea(window.recorder_dock) == Qt.DockWidgetArea.RightDockWidgetArea
    assert window.dockWidgetArea(window.params_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert set(window.tabifiedDockWidgets(window.params_dock)) == {window.telemetry_dock, window.watch_dock,
                                                                    window.compare_dock, window.kpi_dock}
    assert not window.sweep_dock.isVisible()  # until asked for, then tabbed behind the recorder
    window.show_sweep_dock()
    assert window.tabifiedDockWidgets(window.recorder_dock) == [window.sweep_dock]


def test_a_sweep_dock_put_elsewhere_and_hidden_is_shown_there_in_the_next_session(qtbot, carbench_settings):
    first = make_window("sedan", carbench_settings)
    qtbot.addWidget(first)
    first.show()
    first.show_sweep_dock()
    first.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, first.sweep_dock)  # the user's place for it
    first.sweep_dock.hide()
    first.close()
    second = make_window("sedan", carbench_settings)
    qtbot.addWidget(second)
    second.show()
    assert not second.sweep_dock.isVisible()
    second.sweep_dock.toggleViewAction().trigger()  # View > Sweep: where it was left, not behind the recorder
    assert second.dockWidgetArea(second.sweep_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert second.sweep_dock not in second.tabifiedDockWidgets(second.recorder_dock)
    second.close()


def test_speed_folded_groups_last_preset_and_script_are_restored(qtbot, carbench_settings):
    first = make_window("sedan", carbench_settings)
    qtbot.addWidget(first)
    first.show()
    first.model.set_speed(4.0)
    first.load_preset("parking")
    first.close()
    second = make_window("sedan", carbench_settings)
    qtbot.addWidget(second)
    assert second.model.speed == 4.0 and second.recorder.speed.currentText() == "x4"
    second.restore_last_session()
    assert second.model.session.preset.name == "parking"
    assert second.load_script("presets/scripts/clutch_coast.toml")
    second.close()
    third = make_window("parking", carbench_settings)
    qtbot.addWidget(third)
    third.restore_last_session()
    assert third.model.session.program is not None and third.model.session.program.name == "clutch-coast"


def test_the_real_time_factor_is_never_negative_after_a_preset_load(carbench_window):
    window = carbench_window
    model = window.model
    for _ in range(5):
        model.tick(0.05)
    hold(window, {"throttle"}, 60)
    window.load_preset("classic")
    for _ in range(3):
        model.tick(0.02)
    assert model.real_time_factor() >= 0.0
    window._update_status()
    assert "-" not in window.status_rtf.text().replace("  --  ", "")


def test_status_messages_never_overlap_the_other_fields(carbench_window, qtbot, tmp_path):
    window = carbench_window
    window.resize(1024, 640)
    window.show_message("saved " + "/a/very/long/folder/name" * 10 + "/preset.toml")
    qtbot.wait(20)
    message = window.status_message.geometry()
    for field in (window.status_time, window.status_rtf, window.status_preset, window.status_state):
        assert not message.intersects(field.geometry()) or not field.isVisible()
    assert window.status_message.toolTip().endswith("preset.toml")


def test_the_car_and_script_on_show_are_remembered_before_any_exit(qtbot, carbench_settings):
    """Written only by a clean exit: a crash's restart opened the sedan, whatever car had been driven (a review under
    Xvfb killed the window while recording on manual003). They are written as they come in."""
    first = make_window("sedan", carbench_settings)
    qtbot.addWidget(first)
    first.show()
    first.load_preset("manual003")
    second = make_window("sedan", carbench_settings)  # the first never closed: as after a kill
    qtbot.addWidget(second)
    second.restore_last_session()
    assert second.model.session.preset.name == "manual003"
    assert first.load_script("presets/scripts/clutch_coast.toml")
    third = make_window("sedan", carbench_settings)
    qtbot.addWidget(third)
    third.restore_last_session()
    assert third.model.session.program is not None and third.model.session.program.name == "clutch-coast"
