"""A sixth look at the window's drawing: the verdict table's columns share the room by what they hold."""

from __future__ import annotations

from PySide6.QtCore import Qt

from workbench.gui.recorder_panel import share_by_texts

SCRIPT = "presets/scripts/clutch_coast.toml"


def _sized(window, qtbot, width: int, height: int) -> None:
    window.resize(width, height)
    qtbot.waitUntil(lambda: window.width() == width, timeout=10000)


def test_at_1024x640_a_pending_verdicts_bound_is_whole_beside_the_empty_measured_column(carbench_window, qtbot):
    """At 1024x640, the script loaded and not yet replayed, every bound was cut to ">= ..." (49 px of the 91 its texts
    need) while the empty "measured" column kept 71 px for its header. The texts come first: each bound whole, the
    empty column's header elided with an ellipsis (whole in its tooltip)."""
    window = carbench_window
    _sized(window, qtbot, 1024, 640)
    assert window.load_script(SCRIPT)
    window.recorder_dock.raise_()
    table = window.recorder.verdicts
    qtbot.waitUntil(lambda: table.viewport().width() < 400, timeout=10000)
    qtbot.wait(10)
    header = table.header()
    assert table.topLevelItemCount() == 6
    assert all(table.topLevelItem(i).text(3) == "" for i in range(6))  # nothing measured yet
    assert table.columnWidth(2) >= table.sizeHintForColumn(2), (table.columnWidth(2), table.sizeHintForColumn(2))
    assert header.sectionViewportPosition(4) + header.sectionSize(4) <= table.viewport().width()
    if table.columnWidth(3) < header.sectionSizeHint(3):  # its header elided, not cut off ("mea")
        assert header.textElideMode() == Qt.TextElideMode.ElideRight
        assert table.headerItem().toolTip(3) == "measured"


def test_two_columns_share_by_their_texts_then_their_headers():
    assert share_by_texts((91, 6), (47, 71), 120) == (91, 29)  # the empty column's header gives way to the bound
    assert share_by_texts((91, 91), (47, 71), 120) == (60, 60)  # both cut: half each
    assert share_by_texts((40, 91), (47, 71), 120) == (40, 80)  # one needing less than half gives the rest
    assert share_by_texts((40, 30), (47, 71), 100) == (47, 53)  # texts whole, the rest towards the headers
