"""What a seventh look at the window found, using it as a hurried engineer would: a Replay with a frame on show past
the script's length (driven on, then stepped back) raised in the car view's slot."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolBar

from workbench.gui.testing import hold


def test_replay_with_a_frame_on_show_past_the_scripts_length_starts_at_frame_0(carbench_window):
    """Driven on past the script's length, stepped back a frame (the , key) and Replay clicked: the views were told of
    the script's parameters while the frame scrubbed to was still the one on show, and the car view read it from the
    replay's new log, sized to the script (IndexError in its slot). The replay now starts on its frame 0."""
    window = carbench_window
    assert window.load_script("presets/scripts/braking_stop.toml")
    frames = window.model.session.program.frames
    hold(window, {"throttle"}, frames + 40)
    window.car_view.setFocus()
    QTest.keyClick(window.car_view, Qt.Key.Key_Comma)  # step back: the frame on show is past the script's end
    assert window.model.view_frame is not None and window.model.view_frame >= frames
    QTest.mouseClick(window.recorder.replay, Qt.MouseButton.LeftButton)
    assert window.model.session.replaying and window.model.view_frame is None
    assert window.model.shown_frame() == window.model.session.log.frames - 1
    window.model.advance(10)
    assert window.model.session.log.frames == 10 and not window.shown_errors


def test_a_run_pinned_before_the_replay_ends_is_said_cut_short_not_judged(carbench_window, qtbot):
    """Scripts > Run manoeuvre, Pin run clicked twice during the replay: the KPI table read "no KPIs for this run
    (IndexError: index 83 is out of bounds for axis 0 with size 83)" three times, naming no run, and a run pinned
    later was judged as if whole (the steady-state circle's maximum lateral acceleration of a run pinned at 60%: 4.9
    m/s\u00b2, the whole run's 8.7). A run that stops before its script's end says so, with its name, and has no
    KPIs; the run on show gets its own when the replay ends."""
    window = carbench_window
    runs = next(a.menu() for a in window.scripts_menu.actions() if a.text() == "Run manoeuvre")
    (swd,) = [a for a in runs.actions() if a.text().startswith("Sine with dwell")]
    swd.trigger()
    session = window.model.session
    assert session.replaying
    frames = session.program.frames
    window.model.advance(83)
    pin = window.findChild(QToolBar, "compare_toolbar").widgetForAction(window.pin_action)
    QTest.mouseClick(pin, Qt.MouseButton.LeftButton)
    window.model.advance(frames // 2)
    QTest.mouseClick(pin, Qt.MouseButton.LeftButton)
    dock = window.kpis
    cut = [dock.tree.topLevelItem(i).text(0) for i in range(dock.tree.topLevelItemCount())]
    assert not [text for text in cut if "Error" in text], cut
    duration = f"of the script's {session.program.script.duration:g} s"
    assert [t for t in cut if t.startswith("on show: replaying, at ") and duration in t], cut
    assert [t for t in cut if t.startswith("ref 1: no KPIs, the run stops at 0.68 s " + duration)], cut
    assert [t for t in cut if t.startswith("ref 2: no KPIs, the run stops at ") and duration in t], cut
    assert all(cells == ["-", "-", "-"] for _, cells in dock.rows), dock.rows  # no value of a run cut short
    while session.replaying:
        window.model.advance(frames)
    assert session.log.frames == frames
    rows = [dock.tree.topLevelItem(i).text(0) for i in range(dock.tree.topLevelItemCount())]
    assert not [t for t in rows if t.startswith("on show")], rows  # whole now: judged
    assert dock.rows and all(cells[0] != "-" for _, cells in dock.rows[:1]), dock.rows


def test_a_key_held_in_a_parameter_box_is_refused_in_a_line_that_fits_the_window(carbench_window, qtbot):
    """A 9 held down in the mass box (400 of them) and Return: the refusal quoted the whole text, a word no wrap could
    break, and the window grew to 3,700 px wide to show it. The text is quoted by its start and its length."""
    window = carbench_window
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024)
    spin = window.params.rows["body.mass"].editors[0].spin
    spin.start_typing()
    QTest.keyClicks(spin.lineEdit(), "9" * 400)
    QTest.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    said = window.params.status.text()
    assert said == "body.mass: '99999999999999999999'\u2026 (400 characters) is not a finite number; not changed", said
    assert window.model.session.params.get("body.mass") == 1600.0
    QApplication.processEvents()
    assert window.minimumSizeHint().width() <= 1024 and window.width() == 1024
