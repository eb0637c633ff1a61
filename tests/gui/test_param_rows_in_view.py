"""The parameter panel builds a group's rows as the group comes into view: a window opens with the rows on show built
and the others waiting, which take the room they will have, so that nothing moves when they are built; scrolling,
unfolding, a search, Tab and ``rows`` build them."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication


def _built(panel) -> list[str]:
    return [group for group in panel.groups if group not in panel._pending]


def _focusable(row) -> list:
    """The row's widgets that Tab reaches, in order."""
    widgets = []
    for editor in row.editors:
        widgets += [editor.slider, editor.spin] if hasattr(editor, "spin") else [editor]
    return [w for w in [*widgets, row.reset] if w.focusPolicy() & Qt.FocusPolicy.TabFocus and w.isEnabled()]


def _heights(panel) -> dict[str, int]:
    return {group: body.height() for group, (_, body) in panel.groups.items()}


@pytest.mark.parametrize("preset", ["sedan", "manual003", "parking", "f1tenth"])
def test_a_window_opens_with_the_rows_on_show_built_and_the_rest_takes_its_room(carbench_window, preset, qtbot):
    window, panel = carbench_window, carbench_window.params
    if preset != "sedan":
        assert window.model.load_preset(preset)
    QApplication.processEvents()
    built = _built(panel)
    assert built and len(built) < len(panel.groups)  # the first groups, not all
    bar = panel._scroll.verticalScrollBar()
    heights, extent, least = _heights(panel), bar.maximum(), panel._scroll.minimumWidth()
    # Every row on show is built: the last group built reaches past the bottom of the view.
    last = panel.groups[built[-1]][1]
    assert last.mapTo(panel._scroll.viewport(), last.rect().bottomLeft()).y() >= panel._scroll.viewport().height()
    panel.build_rest()
    QApplication.processEvents()
    assert not panel._pending and len(panel._rows) == len(panel._shown_infos())
    # The groups built now have the height they had waiting, and the panel the same least width and scroll extent.
    assert _heights(panel) == heights
    assert bar.maximum() == extent and panel._scroll.minimumWidth() == least
    assert qtbot


def test_scrolling_builds_the_groups_that_come_into_view_in_order(carbench_window, qtbot):
    panel = carbench_window.params
    bar = panel._scroll.verticalScrollBar()
    before = _built(panel)
    bar.setValue(bar.value() + panel._scroll.viewport().height())  # a screen further down
    after = _built(panel)
    assert len(after) > len(before) and after == list(panel.groups)[:len(after)]
    bar.setValue(bar.maximum())
    assert not panel._pending
    last_row = panel._rows[panel._members[list(panel.groups)[-1]][-1].path]
    QApplication.processEvents()
    assert last_row.label.isVisible() and last_row.editors[0].isVisible()
    assert qtbot


def test_an_unfolded_group_and_a_search_build_their_rows(carbench_window, qtbot):
    panel = carbench_window.params
    last = list(panel.groups)[-1]
    panel.set_group_open(last, False)
    assert last in panel._pending
    panel._scroll.verticalScrollBar().setValue(panel._scroll.verticalScrollBar().maximum())
    assert last in panel._pending  # folded: nothing of it is on show
    panel._scroll.verticalScrollBar().setValue(0)
    panel.set_group_open(list(panel.groups)[0], False)  # the groups below come up into the view
    panel.set_group_open(list(panel.groups)[0], True)
    qtbot.keyClicks(panel.search, "mass")  # a search looks through every row
    assert not panel._pending
    assert panel._rows["body.mass"].label.isVisibleTo(panel)


def test_rows_builds_every_row_and_the_values_are_the_cars(carbench_window):
    window, panel = carbench_window, carbench_window.params
    window.model.set_param("tyres.mu", 0.8)  # in a group not built yet
    assert "tyres" in panel._pending
    row = panel.rows["tyres.mu"]
    assert row.editors[0].spin.value() == 0.8 and row.modified
    assert panel.groups["tyres"][0].text() == "tyres (1 modified)"  # counted before its rows were built


def test_tab_goes_on_from_the_last_row_built_to_the_next_group(carbench_window, qtbot):
    panel = carbench_window.params
    built = _built(panel)
    nxt = next(group for group in panel.groups if group in panel._pending)
    last = _focusable(panel._rows[panel._members[built[-1]][-1].path])[-1]
    last.setFocus(Qt.FocusReason.TabFocusReason)
    assert QApplication.focusWidget() is last
    qtbot.keyClick(last, Qt.Key.Key_Tab)
    first = _focusable(panel._rows[panel._members[nxt][0].path])[0]
    assert QApplication.focusWidget() is first


def test_tab_keeps_the_rows_order_when_they_were_built_by_scrolling(carbench_window, qtbot):
    panel = carbench_window.params
    built = _built(panel)
    bar = panel._scroll.verticalScrollBar()
    bar.setValue(bar.maximum())  # every group built, the later ones well after the window's other widgets
    assert not panel._pending
    paths = [info.path for group in panel.groups for info in panel._members[group]]
    widgets = [w for path in paths for w in _focusable(panel._rows[path])]
    start = widgets.index(_focusable(panel._rows[panel._members[built[-1]][0].path])[0])
    widgets[start].setFocus(Qt.FocusReason.TabFocusReason)
    for expected in widgets[start + 1:start + 40]:
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        assert QApplication.focusWidget() is expected
