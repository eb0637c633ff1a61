"""A fifth look at the window as a person uses it under Xvfb: a click at a small size leaves the docks' shares as
they were, a dock tabbed away takes its column's share after a drag, Escape closes the Edit history with no window
manager, and the File menu ends with Quit."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from workbench.gui.main_window import LEFT_SHARE, RIGHT_SHARE


def _sized(window, qtbot, width: int, height: int) -> None:
    window.resize(width, height)
    qtbot.waitUntil(lambda: window.width() == width, timeout=10000)
    qtbot.wait(100)  # the shares applied on the event loop after the resize


def _at_shares(window) -> bool:
    """The parameters' and the plots' columns both at their first shares of the window's width."""
    width = window.width()
    return (abs(window.params_dock.width() / width - LEFT_SHARE) < 0.01
            and abs(window.plots_dock.width() / width - RIGHT_SHARE) < 0.01)


def _drag_separator(window, qtbot, dx: int) -> None:
    """Drag the separator between the parameters and the car view by ``dx`` px, as a person does."""
    dock = window.params_dock
    x, y = dock.geometry().right() + 3, dock.geometry().center().y()
    assert window.childAt(x, y) is None  # the separator: the window's own
    QTest.mousePress(window, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(x, y))
    for step in range(1, 11):
        QTest.mouseMove(window, QPoint(x + dx * step // 10, y))
        qtbot.wait(5)
    QTest.mouseRelease(window, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(x + dx, y))
    qtbot.wait(50)


def test_a_click_at_a_small_size_keeps_the_docks_shares(carbench_window, qtbot):
    """Under Xvfb: at 1024 x 640 the docks stand at their least widths (the parameters 37% of the window, not their
    26%); a click on the status bar (its mouse events go on to the window, as a label's do) was taken for the end of
    a separator drag and those widths became the shares, so the window grown again to 1500 x 900 kept the parameters
    at 37% and the car view squeezed from 573 to about 400 px. Only a press and release that moved a separator
    take the widths."""
    window = carbench_window
    _sized(window, qtbot, 1500, 900)
    # the shares laid out, both columns, before the car view's width is read (on a busy machine the two docks come to
    # their widths one after the other, a while after the resize)
    qtbot.waitUntil(lambda: _at_shares(window), timeout=10000)
    shares = dict(window._shares)
    view = window.car_view.width()
    assert shares["parameters"] == pytest.approx(LEFT_SHARE) and shares["plots"] == pytest.approx(RIGHT_SHARE)
    _sized(window, qtbot, 1024, 640)
    assert window.params_dock.width() / window.width() > LEFT_SHARE + 0.05  # held at its least width
    QTest.mouseClick(window.statusBar(), Qt.MouseButton.LeftButton)
    QTest.mouseClick(window.recorder.summary, Qt.MouseButton.LeftButton)  # a label of a dock
    qtbot.wait(50)
    assert window._shares == shares
    _sized(window, qtbot, 1500, 900)
    # the parameters back at their share (the car view at its width), not the 37% the click had kept
    qtbot.waitUntil(lambda: _at_shares(window), timeout=10000)
    assert abs(window.car_view.width() - view) <= 0.02 * window.width()
    _drag_separator(window, qtbot, 100)  # a real drag still takes the widths
    assert window._shares["parameters"] == pytest.approx(window.params_dock.width() / window.width())
    assert window._shares["parameters"] > LEFT_SHARE + 0.03


def test_a_drag_gives_the_docks_tabbed_away_their_columns_share(carbench_window, qtbot):
    """The widths taken after a drag included the tabbed-away docks' own, the ones they had when last on show (the
    Watch dock's 12% after the parameters were dragged to 33%): the Watch tab brought up and the window resized, the
    left column went to that stale width."""
    window = carbench_window
    _sized(window, qtbot, 1500, 900)
    window.params_dock.raise_()
    qtbot.wait(20)
    _drag_separator(window, qtbot, 100)
    share = window._shares["parameters"]
    assert share == pytest.approx(window.params_dock.width() / window.width())
    assert window._shares["telemetry"] == pytest.approx(share)
    assert window._shares["watch"] == pytest.approx(share)


def test_escape_closes_the_edit_history(carbench_window, qtbot):
    """Edit > Edit history opened a list with no button that nothing activated with no window manager: the main
    window kept the keyboard, Escape went to the car view, and the list stayed over the window."""
    window = carbench_window
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=1000)
    window.history_action.trigger()
    history = window._history
    qtbot.waitExposed(history)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is history, timeout=1000)
    QTest.keyClick(QApplication.focusWidget() or QApplication.activeWindow(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not history.isVisible(), timeout=1000)
    # Asked for again while open behind the window: it takes the keyboard again.
    window.history_action.trigger()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is history, timeout=1000)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=1000)
    window.history_action.trigger()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is history, timeout=1000)
    history.close()


def test_the_file_menu_ends_with_quit(carbench_window):
    """The Shipped presets submenu came after Quit, at the foot of the File menu; it is beside Open preset now."""
    file_menu = next(a.menu() for a in carbench_window.menuBar().actions() if a.text() == "&File")
    actions = [a for a in file_menu.actions() if not a.isSeparator()]
    assert actions[-1] is carbench_window.quit_action
    texts = [a.text() for a in actions]
    assert texts.index("Shipped presets") == texts.index("Open preset\u2026") + 1
    presets = next(a.menu() for a in actions if a.text() == "Shipped presets")
    assert "sedan" in [a.text() for a in presets.actions()]


def test_save_recording_with_nothing_recorded_is_disabled_as_the_recorders_save(carbench_window, tmp_path):
    """File > Save recording (Ctrl+R) with nothing recorded opened the save dialog (recording.toml) and, once a name
    was given, said 'Record something first': the Recorder's Save is disabled then, the menu's asked for a name it
    could not use. It is disabled then, as the Recorder's Save is (the README: enabled as the Recorder's buttons are;
    a review under Xvfb found it enabled); a recording running or stopped is asked for a name as before."""
    window = carbench_window
    assert window.model.session.last_recording is None
    window.file_answer = str(tmp_path / "mine.toml")
    assert not window.save_recording_action.isEnabled() and not window.recorder.save.isEnabled()
    window.save_recording_action.trigger()
    assert not window.shown_errors and not [a for a in window.asked if a[1] == "file"]  # nothing asked, nothing said
    assert not (tmp_path / "mine.toml").exists()
    window.record()
    assert window.save_recording_action.isEnabled() and window.recorder.save.isEnabled()
    window.hold(["throttle"], 0.2)
    window.save_recording_action.trigger()  # stops the recording, then asks where
    assert [a[0] for a in window.asked if a[1] == "file"] == ["Save recording"]
    assert (tmp_path / "mine.toml").exists()


def test_b_minus_a_takes_a_click_only_with_a_run_pinned(carbench_window):
    """Seen under Xvfb: B-A on a plot with no run pinned toggled on and nothing changed, nor did anything say why.
    It is disabled until a run is pinned (its tooltip says to pin one); turned on, it stays enabled when the last
    reference goes, so that it can be turned off."""
    from workbench.gui.testing import hold

    window = carbench_window
    row = window.plots.rows[0]
    overlay = window.plot_overlay.row_overlay(row)
    hold(window, {"throttle"}, 60)
    assert not overlay.delta.isEnabled() and "pin a run" in overlay.delta.toolTip()
    window.comparer.pin_current()
    hold(window, {"throttle"}, 10)
    assert overlay.delta.isEnabled() and "minus each reference" in overlay.delta.toolTip()
    overlay.delta.setChecked(True)
    window.comparer.references.unpin(0)
    hold(window, {"throttle"}, 10)
    assert overlay.delta.isEnabled()  # on: it can be turned off
    overlay.delta.setChecked(False)
    hold(window, {"throttle"}, 10)
    assert not overlay.delta.isEnabled()


def test_b_minus_a_takes_no_click_when_the_only_run_pinned_is_in_other_units(carbench_window):
    """A run of the sedan (metres) pinned, then the parking car (pixels) opened: the run is pinned but never drawn
    on the parking car's axes, and B-A turned on hid the car's own curves and drew nothing (a review of a40f43d)."""
    from workbench.gui.testing import hold

    window = carbench_window
    hold(window, {"throttle"}, 30)
    window.comparer.pin_current()
    assert window.model.load_preset("parking")
    hold(window, {"throttle"}, 10)
    assert window.comparer.references.items  # still pinned
    overlay = window.plot_overlay.row_overlay(window.plots.rows[0])
    assert not overlay.delta.isEnabled()
    assert all(curve.isVisible() for curve in window.plots.rows[0].curves.values())
