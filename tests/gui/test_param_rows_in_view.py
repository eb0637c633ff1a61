"""The parameter panel builds a group's rows as the group comes into view: a window opens with the rows on show built
and the others waiting, which take the room they will have, so that nothing moves when they are built; scrolling,
unfolding, a search, Tab and ``rows`` build them."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleFactory


@pytest.fixture(autouse=True)
def _rest_waits(monkeypatch):
    """The rows not in view wait for the event loop's turns only: their 2 s timer would build them in a test that took
    longer on a busy machine (the timer is started again with the constant read each time)."""
    monkeypatch.setattr("workbench.gui.param_panel.REST_AFTER_MS", 3_600_000)


def _built(panel) -> list[str]:
    return [group for group in panel.groups if group not in panel._pending]


def _focusable(row) -> list:
    return [w for w in row.focusable() if w.isEnabled()]


def _tab_order(panel) -> list:
    """What Tab reaches in the rows, in order: each group's header, then its rows' editors and reset buttons."""
    return [w for group, (header, _) in panel.groups.items()
            for w in [header, *(w for info in panel._members[group] for w in _focusable(panel._rows[info.path]))]]


def _heights(panel) -> dict[str, int]:
    return {group: body.height() for group, (_, body) in panel.groups.items()}


@pytest.mark.parametrize("preset", ["sedan", "manual003", "parking", "f1tenth"])
def test_a_window_opens_with_the_rows_on_show_built_and_the_rest_takes_its_room(carbench_window, preset):
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


def test_scrolling_builds_the_groups_that_come_into_view_in_order(carbench_window):
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


def test_an_unfolded_group_builds_its_rows_as_it_comes_into_view(carbench_window):
    panel = carbench_window.params
    last = list(panel.groups)[-1]
    panel.set_group_open(last, False)
    assert last in panel._pending
    panel._scroll.verticalScrollBar().setValue(panel._scroll.verticalScrollBar().maximum())
    assert last in panel._pending  # folded: nothing of it is on show
    panel._scroll.verticalScrollBar().setValue(0)
    panel.set_group_open(last, True)  # unfolded where the view is: nothing of it on show yet
    assert last in panel._pending
    panel._scroll.verticalScrollBar().setValue(panel._scroll.verticalScrollBar().maximum())
    assert last not in panel._pending


def test_a_search_builds_every_row(carbench_window, qtbot):
    panel = carbench_window.params
    assert panel._pending
    qtbot.keyClicks(panel.search, "tyres")  # a search looks through every row
    assert not panel._pending
    assert panel._rows["tyres.mu"].label.isVisibleTo(panel) and not panel._rows["body.mass"].label.isVisibleTo(panel)


def test_rows_builds_every_row_and_the_values_are_the_cars(carbench_window):
    window, panel = carbench_window, carbench_window.params
    window.model.set_param("tyres.mu", 0.8)  # in a group not built yet
    assert "tyres" in panel._pending
    row = panel.rows["tyres.mu"]
    assert row.editors[0].spin.value() == 0.8 and row.modified
    assert panel.groups["tyres"][0].text() == "tyres (1 modified)"  # counted before its rows were built


def test_tab_goes_on_from_the_last_row_built_to_the_next_groups_header_and_rows(carbench_window, qtbot):
    panel = carbench_window.params
    built = _built(panel)
    nxt = next(group for group in panel.groups if group in panel._pending)
    last = _focusable(panel._rows[panel._members[built[-1]][-1].path])[-1]
    last.setFocus(Qt.FocusReason.TabFocusReason)
    assert QApplication.focusWidget() is last
    qtbot.keyClick(last, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is panel.groups[nxt][0]  # its rows built as the keyboard went on
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is _focusable(panel._rows[panel._members[nxt][0].path])[0]


def test_tab_keeps_the_rows_order_when_they_were_built_by_scrolling(carbench_window, qtbot):
    """The rows built after the window's other widgets came last in its focus chain: Tab went from the headers, all
    of them first, to the rows built with the window, then out of the panel (the Compare dock) and back."""
    panel = carbench_window.params
    bar = panel._scroll.verticalScrollBar()
    bar.setValue(bar.maximum())  # every group built, the later ones well after the window's other widgets
    assert not panel._pending
    widgets = _tab_order(panel)
    widgets[0].setFocus(Qt.FocusReason.TabFocusReason)
    for expected in widgets[1:]:
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        assert QApplication.focusWidget() is expected


def test_the_rows_not_in_view_are_built_a_while_after_the_window_shows(carbench_window, qtbot):
    """So that Shift+Tab from outside the panel reaches every row, as Tab does."""
    panel = carbench_window.params
    assert panel._pending and panel._rest_timer.isActive()
    panel._rest_timer.stop()
    panel._build_next()  # as the timer does when it fires: a group, then one per turn of the event loop
    qtbot.waitUntil(lambda: not panel._pending, timeout=20_000)
    widgets = _tab_order(panel)
    carbench_window.car_view.setFocus(Qt.FocusReason.OtherFocusReason)
    for _ in range(20):  # back through the docks after the panel (Compare's, the tab bar) into it
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Backtab)
        if panel.isAncestorOf(QApplication.focusWidget()):
            break
    assert QApplication.focusWidget() is widgets[-1]  # the last group's last row


def test_folding_a_group_builds_the_groups_that_come_up_into_view(carbench_window):
    panel = carbench_window.params
    for group in list(panel.groups)[:3]:
        panel.groups[group][0].click()  # folded with its header
    for _ in range(3):
        QApplication.processEvents()  # laid out again
    viewport = panel._scroll.viewport()
    assert any(body.mapTo(viewport, body.rect().topLeft()).y() < viewport.height() for group, (_, body)
               in panel.groups.items() if group not in list(panel.groups)[:4] and body.isVisibleTo(panel))
    for group, (_, body) in panel.groups.items():
        top = body.mapTo(viewport, body.rect().topLeft()).y()
        if body.isVisibleTo(panel) and top < viewport.height():
            assert group not in panel._pending, group


@pytest.mark.carbench_preset("manual003")
def test_a_list_of_another_length_gets_an_editor_per_entry(carbench_window):
    """A script's [[set]] of gearbox.ratios with fewer entries raised an IndexError in the panel's slot (an editor
    for each entry the preset had); with more, the extra entries had none."""
    window, panel = carbench_window, carbench_window.params
    ratios = list(window.model.session.params.gearbox.ratios)
    panel.build_rest()
    window.model.set_param("gearbox.ratios", ratios[:3])
    assert [e.spin.value() for e in panel.rows["gearbox.ratios"].editors] == ratios[:3]
    bar = panel._scroll.verticalScrollBar()
    bar.setValue(bar.maximum())
    window.model.set_param("gearbox.ratios", ratios + [0.7, 0.6])
    assert [e.spin.value() for e in panel.rows["gearbox.ratios"].editors] == ratios + [0.7, 0.6]
    QApplication.processEvents()
    assert all(e.isVisible() for e in panel.rows["gearbox.ratios"].editors)


class _PerControlSpacing(QProxyStyle):
    """A style that spaces each pair of controls its own way, as macOS's does (no one vertical spacing)."""

    def pixelMetric(self, metric, option=None, widget=None):
        if metric == QStyle.PixelMetric.PM_LayoutVerticalSpacing:
            return -1
        return super().pixelMetric(metric, option, widget)

    def layoutSpacing(self, c1, c2, orientation, option=None, widget=None):
        return 8


@pytest.fixture
def per_control_spacing(qapp):
    old = qapp.style().name()
    qapp.setStyle(_PerControlSpacing(QStyleFactory.create("Fusion")))
    yield
    qapp.setStyle(old)


def test_with_a_style_that_spaces_each_pair_of_rows_the_waiting_groups_still_take_their_room(per_control_spacing,
                                                                                           carbench_window):
    """They were measured with no spacing between rows, and grew as they were built (the scroll range 2669 to 3357 px,
    the view jumping as the user scrolled)."""
    panel = carbench_window.params
    QApplication.processEvents()
    bar = panel._scroll.verticalScrollBar()
    extent = bar.maximum()
    panel.build_rest()
    QApplication.processEvents()
    assert bar.maximum() == extent


def test_a_font_change_builds_the_rows_waiting(carbench_window):
    """Measured in the font before, they would have taken the wrong room."""
    panel = carbench_window.params
    font = panel.font()
    font.setPointSize(font.pointSize() + 4)
    panel.setFont(font)
    assert not panel._pending


def test_a_kept_cars_waiting_groups_take_their_room_after_a_car_without_lists(carbench_window):
    """Its waiting list (the gearbox's ratios) was measured with the sizes of the car built last, which had no list:
    too short, and the view jumped when it was built."""
    window, panel = carbench_window, carbench_window.params
    assert window.model.load_preset("manual003")
    QApplication.processEvents()
    assert "gearbox" in panel._pending
    assert window.model.load_preset("parking")  # no list among its parameters
    assert window.model.load_preset("manual003")  # its rows kept, the gearbox's still waiting
    QApplication.processEvents()
    assert "gearbox" in panel._pending
    waiting = _heights(panel)
    panel.build_rest()
    QApplication.processEvents()
    assert _heights(panel) == waiting


@pytest.mark.carbench_preset("manual003")
def test_the_reset_of_a_list_of_another_length_puts_the_presets_back(carbench_window):
    """Its button is one of the widgets the row made again throws away, while it sends its click."""
    window, panel = carbench_window, carbench_window.params
    ratios = list(window.model.session.params.gearbox.ratios)
    window.model.set_param("gearbox.ratios", ratios[:3])
    panel.rows["gearbox.ratios"].reset.click()
    assert list(window.model.session.params.gearbox.ratios) == ratios
    assert [e.spin.value() for e in panel.rows["gearbox.ratios"].editors] == ratios
