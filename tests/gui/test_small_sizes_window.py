"""The window at 1024x640 after a replay, as a person sees it: every verdict column on show, the car view's key drawn
inside the view, the HUD a small part of the view, the left docks' tabs named whole."""

import pytest
from PySide6.QtGui import QFontMetrics

from workbench.gui.testing import drive

SCRIPT = "presets/scripts/clutch_coast.toml"


@pytest.fixture
def small_after_a_replay(carbench_window, qtbot):
    window = carbench_window
    window.resize(1024, 640)
    drive(window, SCRIPT, chunk=240)
    window.recorder_dock.raise_()
    window.resize(1024, 640)
    qtbot.wait(10)
    assert (window.width(), window.height()) == (1024, 640)
    return window


@pytest.mark.carbench_preset("manual003")
def test_the_verdicts_show_worst_at_whole_beside_the_names_and_numbers(small_after_a_replay):
    """Below 480 px the table hid "worst at", header and all: it read as cut off at "measured" (at 1024x640 the
    table is 338 px wide)."""
    table = small_after_a_replay.recorder.verdicts
    header = table.header()
    width = table.viewport().width()
    assert width < 400 and table.topLevelItemCount() == 6
    assert not header.isSectionHidden(4)
    texts = [table.topLevelItem(i).text(4) for i in range(6)]
    assert all(t.endswith(" s") for t in texts)
    widest = max([QFontMetrics(header.font()).horizontalAdvance("worst at")]
                 + [table.fontMetrics().horizontalAdvance(t) for t in texts])
    assert header.sectionSize(4) >= widest + 6, (header.sectionSize(4), widest)
    assert header.sectionViewportPosition(4) + header.sectionSize(4) <= width  # inside the table, no scrolling
    assert table.horizontalScrollBar().maximum() == 0
    from workbench.gui.recorder_panel import NAME_SHARE

    assert header.sectionSize(1) >= NAME_SHARE * width
    for column in (2, 3):  # the numbers: at least a number and the ellipsis
        assert header.sectionSize(column) >= table.fontMetrics().horizontalAdvance("-0.038 \u2026")
