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


def _typed(qtbot, box, text: str) -> None:
    """Click into the box, select what it shows and type ``text`` over it, then Return, as a user does."""
    _type_over(qtbot, box, text)
    QTest.keyClick(box.lineEdit(), Qt.Key.Key_Return)


def _type_over(qtbot, box, text: str) -> None:
    box.window().activateWindow()
    qtbot.waitUntil(box.window().isActiveWindow)
    qtbot.waitUntil(box.isVisible)
    QTest.mouseClick(box.lineEdit(), Qt.MouseButton.LeftButton)
    assert box.hasFocus()
    box.lineEdit().selectAll()
    QTest.keyClicks(box.lineEdit(), text)


def test_a_value_the_sweep_docks_boxes_cannot_take_is_refused_with_why_and_changes_nothing(carbench_window, qtbot):
    """The from and to boxes took each prefix in range as it was typed and went back to it without a word: "1e309"
    left from at 1000 kg (its "1e3"), 20 nines at 999999 kg, "1,5" at 1 kg; "-5" went back to the value before, also
    without a word, and Run then swept values nobody typed. The values box dropped the key that took it past 100
    ("500" read 50). A box now takes a value at Return (or on leaving it), and a text it cannot take puts its value
    back with the reason in the dock's line; Run, clicked while a box held such a text, says so and runs nothing."""
    window = carbench_window
    assert window.load_script("presets/scripts/braking_stop.toml")
    window.show_sweep_dock()
    dock = window.sweep
    assert dock.add_axis("body.mass")
    row = dock.axes["body.mass"]
    for text, why in (("1e309", "'1e309' is not a finite number"),
                      ("9" * 400, "'99999999999999999999'\u2026 (400 characters) is not a finite number"),
                      ("9" * 20, "1e+20 kg is outside the 0.1 to 1000000 kg the box takes"),
                      ("1,5", "'1,5' is not a finite number (the decimal point is a point, and commas only separate "
                              "whole thousands)"),
                      ("-5", "-5 kg is outside the 0.1 to 1000000 kg the box takes")):
        _typed(qtbot, row.start, text)
        assert (row.start.value(), row.start.text()) == (840.0, "840 kg"), text
        assert dock.status.text() == f"body.mass from: {why}; kept 840 kg", dock.status.text()
    _typed(qtbot, row.count, "500")
    assert row.count.value() == 7
    assert dock.status.text() == ("body.mass values: 500 values: the dock takes 2 to 100 a parameter (more: carbench "
                                  "sweep on the command line); kept 7")
    # The keys QSpinBox drops as they come: "2.5" read 25, "1e2" 12, "1_0" 10 and "0x10" 010, swept without a word
    for text in ("2.5", "1e2", "1_0", "0x10", "\u00b2" * 10):  # (superscript twos: digits to isdigit, raised)
        _typed(qtbot, row.count, text)
        assert row.count.value() == 7, text
        assert dock.status.text() == f"body.mass values: '{text}' is not a whole number; kept 7", dock.status.text()
    # Typed, then Run clicked straight away: leaving the box refuses the text, and Run runs nothing on the value kept.
    _type_over(qtbot, row.start, "-5")
    QTest.mouseClick(dock.run_button, Qt.MouseButton.LeftButton)
    assert not dock.running
    assert dock.status.text().endswith("kept 840 kg; not run: Run again sweeps the values the boxes show")
    _typed(qtbot, row.start, "1200")  # a value the box takes: at Return, whole
    assert row.start.value() == 1200.0 and dock.status.text() == ""
    row.stop.setValue(1500.0)
    QTest.mouseClick(dock.run_button, Qt.MouseButton.LeftButton)
    assert dock.running
    qtbot.waitUntil(lambda: not dock.running, timeout=120_000)
    assert dock.result is not None and list(dock.result.plan.values[:, 0] * row.factor)[:1] == [1200.0]


def test_a_long_search_in_the_parameter_panel_keeps_the_window_at_1024(carbench_window, qtbot):
    """A line of a preset file pasted into the parameter search ("mass = 1600.0   # kerb weight of the class, ...")
    matches nothing, and the line saying so was the panel's least width: the window grew to 1280 px (2,900 with 300
    characters typed). The line is elided to the panel, whole in its tooltip."""
    window = carbench_window
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024)
    pasted = "mass = 1600.0              # kerb weight of the class, 1,550-1,700 kg, plus a driver"
    for text in (pasted, "x" * 300):
        QTest.mouseClick(window.params.search, Qt.MouseButton.LeftButton)
        window.params.search.selectAll()
        QTest.keyClicks(window.params.search, text)
        QApplication.processEvents()
        assert window.minimumSizeHint().width() <= 1024 and window.width() == 1024, text[:10]
        line = window.params.no_match
        assert line.isVisible() and line.full_text() == f"no parameter matches \u201c{text}\u201d"
        assert line.toolTip() == line.full_text() and line.text().endswith("\u2026")
    window.params.modified_only.setChecked(True)  # what the line adds is never cut
    assert window.params.no_match.text().endswith("\u2026 among the modified ones")


def test_modified_only_with_nothing_modified_says_so_without_quoting_an_empty_search(carbench_window):
    window = carbench_window
    window.params.search.clear()
    window.params.modified_only.setChecked(True)
    QApplication.processEvents()
    line = window.params.no_match
    assert line.isVisible() and line.full_text() == "no parameter is modified"  # it read: matches “” among the ...
    window.model.set_param("body.mass", window.model.session.params.body.mass + 100.0)
    QApplication.processEvents()
    assert not line.isVisible()
