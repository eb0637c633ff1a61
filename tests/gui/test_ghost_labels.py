"""A ghost's name near the view's top edge, and a long name on a narrow view, stay whole inside the view, clear of
the ghost (its edge marker's label already did, cut to a share of the view: MARKER_LABEL_SHARE)."""

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from physics.presets import scripts_dir
from workbench.gui.testing import hold


def _rect(view, item):
    return view.mapFromScene(item.sceneBoundingRect()).boundingRect()


def _car(view, ghost):
    return view.mapFromScene(ghost.body.mapToScene(ghost.body.polygon())).boundingRect()


def _box(view):
    return view.mapFromScene(view.getPlotItem().getViewBox().sceneBoundingRect()).boundingRect()


def _near_the_top(window, ghost, gap_px=4.0):
    """The view, as wide as it is, moved so that the ghost's top is ``gap_px`` under the view's top edge."""
    view = window.car_view
    view.set_follow(False)
    vb = view.getPlotItem().getViewBox()
    QApplication.processEvents()
    (x0, x1), (y0, y1) = vb.viewRange()
    px = vb.viewPixelSize()[1]
    top = float(np.max(np.array([(p.x(), p.y()) for p in ghost.body.polygon()])[:, 1]))
    view._centre_on(np.array([ghost.com[0], top + gap_px * px - 0.5 * (y1 - y0)]), x1 - x0)
    window.model.refresh()


@pytest.mark.parametrize("ghosts", [1, 2])
def test_a_ghost_near_the_top_edge_has_its_name_under_it(carbench_window, ghosts):
    # Its label sits above its car's corner (driving along +x, the front left one, the car's top right): at the top
    # edge it was cut off there, and kept in it lay over the ghost and the car on show.
    window = carbench_window
    view = window.car_view
    hold(window, {"throttle"}, 300)
    for _ in range(ghosts):
        window.comparer.pin_current()
    hold(window, {"brake"}, 30)
    shown = window.ghost_cars.ghosts
    _near_the_top(window, shown[0])
    box = _box(view)
    labels = []
    for ghost in shown:
        assert ghost.label.isVisible() and not ghost.marker.isVisible()
        car = _car(view, ghost)
        assert box.top() <= car.top() <= box.top() + 8  # the ghost in view, just under the top edge
        label = _rect(view, ghost.label)
        assert box.contains(label), (label, box)
        assert label.top() > car.bottom(), (label, car)  # under the car, not over it
        assert ghost.label.textItem.toPlainText() == ghost.text == f"ref {len(labels) + 1}"
        labels.append(label)
    if ghosts == 2:
        assert not labels[0].intersects(labels[1]), labels  # two ghosts on one spot: both names, one under the other
    # Away from the edge the name is back at its car's corner.
    (x0, x1), (y0, y1) = view.getPlotItem().getViewBox().viewRange()
    view._centre_on(shown[0].com, x1 - x0)
    assert shown[0].label.pos().x() == pytest.approx(shown[0].label_at[0])
    assert shown[0].label.pos().y() == pytest.approx(shown[0].label_at[1])


def test_a_long_ghost_name_is_cut_to_a_narrow_view_and_whole_again_on_a_wide_one(carbench_window, qtbot):
    # At 1024 x 640 "ref 1 (before frame 300) [driven, no script]" is wider than the car view's plot area: it ran off
    # the view's left edge ("efore frame 300) [driven, no script]"), over both cars at the top edge.
    window = carbench_window
    window.resize(1024, 640)
    model = window.model
    hold(window, {"throttle"}, 600)
    model.set_running(False)
    model.set_view_frame(300)
    window.comparer.drive_from_here()
    assert window.load_script(scripts_dir() / "clutch_coast.toml")
    model.replay()
    model.advance(200)
    model.set_running(False)
    view = window.car_view
    (ghost,) = window.ghost_cars.ghosts
    full = "ref 1 (before frame 300) [driven, no script]"
    assert ghost.text == full
    for gap in (4.0, 200.0):  # at the top edge, and lower in the view
        _near_the_top(window, ghost, gap)
        box = _box(view)
        label = _rect(view, ghost.label)
        assert ghost.label.isVisible() and box.contains(label), (gap, label, box)
        shown = ghost.label.textItem.toPlainText()
        # the qualifiers go first, one at a time from the last, as an edge marker's: the frame still fits here
        assert shown == "ref 1 (before frame 300)" and ghost.label.toolTip() == full
        if gap < 10:
            assert label.top() > _car(view, ghost).bottom()  # at the top edge: under the car
    window.resize(1600, 900)
    qtbot.waitUntil(lambda: _box(view).width() > 400, timeout=2000)
    window.model.refresh()
    assert ghost.label.textItem.toPlainText() == full and ghost.label.toolTip() == ""
    assert _box(view).contains(_rect(view, ghost.label))
