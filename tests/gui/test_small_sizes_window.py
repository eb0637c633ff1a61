"""The window at 1024x640 after a replay, as a person sees it: every verdict column on show, the car view's key drawn
inside the view, a compact HUD, the left docks' tabs named whole; and the full HUD and the key as written on a large
window. One window for all (the suite's time): each check says what it was."""

import pytest
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QTabBar

from workbench.gui.testing import drive

SCRIPT = "presets/scripts/clutch_coast.toml"


def _plot_area(view):
    """The car view's plot area (inside its axes) in the view's pixels."""
    return view.mapFromScene(view.getPlotItem().getViewBox().sceneBoundingRect()).boundingRect()


def _verdicts_show_worst_at_whole(window):
    """Below 480 px the table hid "worst at", header and all: it read as cut off at "measured" (at 1024x640 the
    table is 338 px wide). Now every column shows, "worst at" whole, the names at least NAME_SHARE of the width."""
    table = window.recorder.verdicts
    header = table.header()
    width = table.viewport().width()
    assert width < 400 and table.topLevelItemCount() == 6
    assert not header.isSectionHidden(4), "worst at hidden"
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


def _key_inside_the_view(window, wrapped: bool):
    """At 1024x640 the key (311 px as written for this car, the plot area 245 px) was not drawn: it is wrapped to the
    plot area, in its top right corner, clear of the HUD; as written on a wide view."""
    view = window.car_view
    legend, area = view._legend, _plot_area(view)
    assert legend.isVisible(), "the key is not drawn"
    assert area.contains(legend.geometry()), (legend.geometry(), area)
    assert legend.pixmap().deviceIndependentSize().width() <= legend.width()  # painted whole inside the label
    assert not legend.geometry().intersects(view.hud.geometry())
    from workbench.gui.car_view import KEY_HEIGHT_SHARE

    assert legend.geometry().bottom() - area.top() <= KEY_HEIGHT_SHARE * area.height()
    lines = legend.height() // legend.fontMetrics().height()
    assert (lines > len(view.legend_lines)) == wrapped, (lines, view.legend_lines)


def _compact_hud(window, full):
    """At 1024x640 the full HUD (214 x 77 px) spanned all of the plot area's width (218 to 245 px): a small view gets
    the compact one, which says the same in less."""
    view, hud = window.car_view, window.car_view.hud
    area, box = _plot_area(view), hud.geometry()
    assert area.width() < 300 and full[0] > 0.8 * area.width()  # the full HUD would span the view
    assert area.contains(box), (box, area)
    assert box.width() <= 0.8 * area.width() and box.height() <= 0.12 * area.height(), (box, area)
    assert box.width() * box.height() <= 0.6 * full[0] * full[1]
    image = hud.grab().toImage()  # the clutch pedal's bar is drawn, its colour in the HUD
    clutch = dict((n, c) for n, c, _ in hud.bars())["clutch_pedal"].rgb()
    assert sum(image.pixel(x, y) == clutch for x in range(image.width()) for y in range(image.height())) > 20


def _left_tabs_whole(window):
    """The docks tabbed on the left took the parameters' least width (363 px on manual003), narrower than their five
    tabs need (367 px): at 1024x640 the tabs read "Paramet\u2026", "Teleme\u2026", "Wat\u2026", "Comp\u2026"."""
    titles = {d.windowTitle() for d in [window.params_dock, *window.tabifiedDockWidgets(window.params_dock)]}
    (bar,) = [b for b in window.findChildren(QTabBar) if b.isVisible() and b.count() == len(titles)
              and {b.tabText(i) for i in range(b.count())} == titles]
    assert len(titles) == 5
    assert bar.width() >= bar.sizeHint().width(), (bar.width(), bar.sizeHint().width())
    for i in range(bar.count()):
        room = bar.tabRect(i).width() - bar.fontMetrics().horizontalAdvance(bar.tabText(i))
        assert room >= 20, (bar.tabText(i), bar.tabRect(i).width())
    assert window.car_view.width() >= 260  # the car view keeps its least width


LONG_MESSAGE = ("engine.peak_torque set to 420 N m at 12.3 s; the recording stopped (12.3 s, not saved yet: "
                "File > Save recording)")


def _message_elided_at_its_end(window, whole: bool):
    """A status message was elided once, in the middle, as it was shown, and never again: at 1024x640 it lost its
    middle ("the recording stopped"), and on a wider window it stayed cut. It is elided at its end to its slot at
    every resize, whole in the tooltip."""
    label = window.status_message
    assert label.toolTip() == LONG_MESSAGE
    if whole:
        assert label.text() == LONG_MESSAGE
    else:
        shown = label.text()
        assert shown.endswith("\u2026") and LONG_MESSAGE.startswith(shown[:-1]) and len(shown) > 20, shown
        assert label.fontMetrics().horizontalAdvance(shown) <= label.width()


@pytest.mark.carbench_preset("manual003")
def test_at_1024x640_after_a_replay_everything_shows_whole(carbench_window, qtbot):
    window = carbench_window
    full = (window.car_view.hud.width(), window.car_view.hud.height())  # as the fixture's 1400x900 window shows it
    window.resize(1024, 640)
    drive(window, SCRIPT, chunk=240)
    window.model.set_view_frame(300)  # the clutch down: its bar drawn in the HUD
    window.recorder_dock.raise_()
    window.resize(1024, 640)
    qtbot.wait(10)
    assert (window.width(), window.height()) == (1024, 640)
    _verdicts_show_worst_at_whole(window)
    _key_inside_the_view(window, wrapped=True)
    _compact_hud(window, full)
    _left_tabs_whole(window)
    window.show_message(LONG_MESSAGE, 60_000)
    _message_elided_at_its_end(window, whole=False)
    window.resize(1920, 1080)  # a large window: the full HUD, the key as written, the message whole
    qtbot.waitUntil(lambda: _plot_area(window.car_view).width() > 500, timeout=5000)
    _message_elided_at_its_end(window, whole=True)
    hud = window.car_view.hud
    assert (hud.width(), hud.height()) == full and _plot_area(window.car_view).contains(hud.geometry())
    _key_inside_the_view(window, wrapped=False)


def test_a_car_without_a_gearbox_has_a_shorter_compact_hud_and_the_road_key_gives_way_first(carbench_window, qtbot):
    """No gear line on a car without a gearbox (a blank line in the full HUD); on a view too short for both keys the
    road's gives way (its surfaces are named where they lie), and it is back on a large window."""
    from physics.presets import scripts_dir

    window = carbench_window
    window.model.load_preset("parking")
    window.resize(1024, 640)
    qtbot.wait(10)
    view = window.car_view
    hud = view.hud
    assert hud.compact and hud.height() < 50 and _plot_area(view).contains(hud.geometry())
    assert 0 < _plot_area(view).bottom() - hud.geometry().bottom() <= 8  # placed again in the corner, shorter
    assert window.load_script(scripts_dir() / "split_mu_braking.toml")  # a four-wheel car, a road key
    qtbot.wait(10)
    assert view._legend.isVisible() and not view._road_legend.isVisible()
    assert hud.height() > 50  # a gearbox again: the gear line
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: _plot_area(view).width() > 500, timeout=5000)
    assert view._road_legend.isVisible() and _plot_area(view).contains(view._road_legend.geometry())
    assert view._legend.geometry().bottom() < view._road_legend.geometry().top()
