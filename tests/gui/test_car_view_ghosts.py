"""Ghost cars out of view get a marker on the view's edge; a ghost from another script says so."""

import numpy as np
import pytest
from PySide6.QtGui import QPolygon

from physics.presets import scripts_dir
from workbench.gui.car_geometry import edge_point
from workbench.gui.testing import hold


def _points(item) -> np.ndarray:
    return np.array([(p.x(), p.y()) for p in item.polygon()])


def test_an_off_screen_ghost_is_marked_on_the_edge_pointing_at_it(carbench_window):
    window = carbench_window
    hold(window, {"throttle"}, 1500)  # straight ahead, a long way from the start
    window.comparer.pin_current()
    ghost = window.ghost_cars.ghosts[0]
    assert ghost.text == "ref 1"  # driven live, and the car on show is driven live too: no mark
    assert window.load_script(scripts_dir() / "full_lock_left.toml")
    window.model.replay()
    view = window.car_view
    view.set_follow(True)
    dt = window.model.session.dt
    while window.model.session.frame < int(10.0 / dt):
        window.model.advance(50)
    window.model.refresh()
    # The ghost came from live driving, the car on show from a script: its label says so.
    assert ghost.text == "ref 1 [driven, no script]"
    ref = window.comparer.references.items[0]
    j = min(window.model.session.frame, ref.run.frames - 1)
    far = np.array([ref.run.data["x"][j], ref.run.data["y"][j]])
    (x0, x1), (y0, y1) = view.getPlotItem().getViewBox().viewRange()
    assert not (x0 <= far[0] <= x1 and y0 <= far[1] <= y1)  # the following camera has left the ghost behind
    assert ghost.marker.isVisible() and ghost.marker_label.isVisible()
    assert not ghost.label.isVisible()  # one name on screen, the marker's
    arrow = _points(ghost.marker)
    tip = arrow[0]
    assert x0 < tip[0] < x1 and y0 < tip[1] < y1
    near_edge = min(tip[0] - x0, x1 - tip[0], tip[1] - y0, y1 - tip[1])
    assert near_edge < 0.05 * (x1 - x0)  # on the edge
    centre = np.array([0.5 * (x0 + x1), 0.5 * (y0 + y1)])
    to_ghost = (far - centre) / np.linalg.norm(far - centre)
    pointing = (tip - arrow[2]) / np.linalg.norm(tip - arrow[2])  # from the arrowhead's notch to its tip
    assert pointing @ to_ghost > 0.999
    offset = tip - centre
    assert offset[0] * to_ghost[1] - offset[1] * to_ghost[0] == pytest.approx(0.0, abs=1e-4 * (x1 - x0))  # on the line
    text = ghost.marker_label.toPlainText()
    assert text.startswith("ref 1 [driven, no script]")
    # The distance to the ghost's centre of mass, where its arrow points (the run's x, y are its reference point).
    assert text.endswith(f"{np.linalg.norm(ghost.com - centre):.0f} m")
    assert abs(np.linalg.norm(ghost.com - centre) - np.linalg.norm(far - centre)) < 2.0
    # Pan onto the ghost: the marker goes, the ghost itself is in view.
    view.set_follow(False)
    view._centre_on(far, x1 - x0)
    assert not ghost.marker.isVisible()
    assert ghost.label.isVisible()


def test_a_ghost_pinned_under_another_script_is_marked(carbench_window):
    window = carbench_window
    assert window.load_script(scripts_dir() / "full_lock_left.toml")
    window.model.replay()
    window.model.advance(200)
    window.comparer.pin_current()
    ghost = window.ghost_cars.ghosts[0]
    assert ghost.text == "ref 1"
    assert window.load_script(scripts_dir() / "split_mu_braking.toml")
    assert ghost.text == "ref 1 [other script: full-lock-left]"
    assert ghost.label.textItem.toPlainText() == ghost.text


def test_the_edge_point_lies_on_the_inset_edge_towards_the_target():
    at, bearing = edge_point(np.array([100.0, 5.0]), (-10.0, 10.0, -10.0, 10.0), 1.0)
    assert at[0] == pytest.approx(9.0) and at[1] == pytest.approx(9.0 * 5.0 / 100.0)
    assert bearing == pytest.approx(np.arctan2(5.0, 100.0))
    at, _ = edge_point(np.array([-3.0, -50.0]), (0.0, 20.0, 0.0, 20.0), 2.0)
    assert at[1] == pytest.approx(2.0)


def test_an_edge_marker_label_stays_clear_of_the_hud(carbench_window):
    window = carbench_window
    view = window.car_view
    hold(window, {"throttle"}, 360)
    window.comparer.pin_current()
    hold(window, {"throttle"}, 60)
    ghost = window.ghost_cars.ghosts[0]
    # The view straight above the ghost: its marker sits on the bottom edge's middle, where the HUD reaches.
    (x0, x1), (y0, y1) = view.getPlotItem().getViewBox().viewRange()
    view._centre_on(ghost.com + np.array([0.0, 2.0 * (y1 - y0)]), x1 - x0)
    assert ghost.marker_label.isVisible()
    (x0, x1), (y0, y1) = view.getPlotItem().getViewBox().viewRange()
    tip = _points(ghost.marker)[0]
    assert tip[1] - y0 < 0.05 * (y1 - y0) and abs(tip[0] - 0.5 * (x0 + x1)) < 0.05 * (x1 - x0)
    label = view.mapFromScene(ghost.marker_label.sceneBoundingRect()).boundingRect()
    assert view.rect().contains(label)
    assert not label.intersects(view.hud.geometry()), (label, view.hud.geometry())


def _label_rect(view, label):
    return view.mapFromScene(label.sceneBoundingRect()).boundingRect()


@pytest.mark.parametrize("side", ["right", "left", "top", "bottom"])
def test_a_ghost_at_the_views_edge_keeps_its_name_in_view(carbench_window, side):
    # Its label sits at a corner of the ghost: at the right edge it ran off the view, the name cut off or unseen.
    window = carbench_window
    view = window.car_view
    hold(window, {"throttle"}, 300)
    window.comparer.pin_current()
    hold(window, {"brake"}, 30)
    view.set_follow(False)
    ghost = window.ghost_cars.ghosts[0]
    vb = view.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    # the ghost's centre just inside the edge: in view (no edge marker), its corner and label at the edge
    towards = {"right": (0.46, 0.0), "left": (-0.46, 0.0), "top": (0.0, 0.46), "bottom": (0.0, -0.46)}[side]
    view._centre_on(ghost.com - np.array(towards) * np.array([x1 - x0, y1 - y0]), x1 - x0)
    window.model.refresh()
    assert ghost.label.isVisible() and not ghost.marker.isVisible()
    box = view.mapFromScene(vb.sceneBoundingRect()).boundingRect()
    label = _label_rect(view, ghost.label)
    assert box.contains(label), (side, label, box)
    assert not label.intersects(view.hud.geometry()), (label, view.hud.geometry())


def test_ghosts_in_the_same_place_show_both_names(carbench_window):
    window = carbench_window
    view = window.car_view
    hold(window, {"throttle"}, 240)
    window.comparer.pin_current()
    window.comparer.pin_current()  # the same run twice: two ghosts on the same spot
    hold(window, {"throttle"}, 30)
    first, second = window.ghost_cars.ghosts
    assert first.label_at == second.label_at  # the same corner of the same car
    assert first.label.isVisible() and second.label.isVisible()
    a, b = _label_rect(view, first.label), _label_rect(view, second.label)
    assert not a.intersects(b), (a, b)
    assert b.bottom() < a.top() - 1 or b.top() > a.bottom() + 1  # beside it, a pixel apart; the earlier one stays
    assert first.label.pos().x() == pytest.approx(first.label_at[0])
    assert first.label.pos().y() == pytest.approx(first.label_at[1])
    # The view moves (zoom out): still apart, and the first still at its corner.
    (x0, x1), (y0, y1) = view.getPlotItem().getViewBox().viewRange()
    view._centre_on(np.array([0.5 * (x0 + x1), 0.5 * (y0 + y1)]), 3.0 * (x1 - x0))
    a, b = _label_rect(view, first.label), _label_rect(view, second.label)
    assert not a.intersects(b), (a, b)
    assert first.label.pos().y() == pytest.approx(first.label_at[1])
    # One reference taken away: the other goes back to its car's corner.
    window.comparer.references.unpin(0)
    (ghost,) = window.ghost_cars.ghosts
    assert ghost.label.pos().y() == pytest.approx(ghost.label_at[1])


@pytest.mark.parametrize("side", [1.0, -1.0], ids=["bottom-edge", "top-edge"])
def test_edge_markers_pointing_the_same_way_show_both_names(carbench_window, side):
    window = carbench_window
    view = window.car_view
    hold(window, {"throttle"}, 360)
    for _ in range(3):
        window.comparer.pin_current()
    hold(window, {"throttle"}, 60)
    ghosts = window.ghost_cars.ghosts
    (x0, x1), (y0, y1) = view.getPlotItem().getViewBox().viewRange()
    view._centre_on(ghosts[0].com + np.array([0.0, side * 2.0 * (y1 - y0)]), x1 - x0)
    rects = [_label_rect(view, g.marker_label) for g in ghosts]
    assert all(g.marker_label.isVisible() for g in ghosts)
    for i in range(3):
        for j in range(i):
            assert not rects[i].intersects(rects[j]), (rects[i], rects[j])
        assert view.viewport().rect().contains(rects[i]), rects[i]  # stacked into the view, not off its edge


def test_edge_markers_at_a_corner_keep_their_names_in_view_each_beside_its_own_arrowhead(carbench_window):
    # Four ghosts on one spot, off the view's right edge near its bottom corner, named with a note: their names ran
    # off the view, and their arrowheads lay on one another (one seen, beside another ghost's name).
    window = carbench_window
    view = window.car_view
    hold(window, {"throttle"}, 300)
    for _ in range(4):
        window.comparer.pin_current()
    assert window.load_script(scripts_dir() / "clutch_coast.toml")  # the names say "[driven, no script]"
    view.set_follow(False)
    ghosts = window.ghost_cars.ghosts
    vb = view.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    view._centre_on(ghosts[0].com - np.array([0.9 * (x1 - x0), -0.42 * (y1 - y0)]), x1 - x0)
    window.model.refresh()
    assert all(g.marker.isVisible() and g.marker_on_side for g in ghosts)
    assert all(g.text.endswith("[driven, no script]") for g in ghosts)
    box = view.mapFromScene(vb.sceneBoundingRect()).boundingRect()
    labels = [_label_rect(view, g.marker_label) for g in ghosts]
    shapes = [view.mapFromScene(g.marker.mapToScene(g.marker.polygon())) for g in ghosts]  # the arrowheads drawn
    arrows = [shape.boundingRect() for shape in shapes]
    for i, (label, arrow, shape) in enumerate(zip(labels, arrows, shapes, strict=True)):
        assert box.contains(label) and box.contains(arrow), (i, label, arrow, box)
        assert arrow.top() <= label.bottom() and arrow.bottom() >= label.top()  # beside its own name
        assert not shape.intersects(QPolygon(label))
        for j in range(i):
            assert not label.intersects(labels[j]) and not shape.intersects(shapes[j]), (i, j)


def test_an_edge_markers_long_name_is_cut_to_a_share_of_a_narrow_view(carbench_window):
    """At 1024 x 640, "ref 4 (before frame 578)  18" reached from the view's edge across the car."""
    from workbench.gui.ghosts import MARKER_LABEL_MIN_PX, MARKER_LABEL_SHARE

    window = carbench_window
    window.resize(1024, 640)
    hold(window, {"throttle"}, 600)
    window.model.set_running(False)
    window.model.set_view_frame(300)
    window.comparer.drive_from_here()  # "ref 1 (before frame 300)"
    window.model.load_preset("teaching")  # back at the start
    hold(window, {"throttle", "left"}, 600)  # circling near it while the ghost drives on straight ahead
    view = window.car_view
    ghost = window.ghost_cars.ghosts[0]
    assert ghost.marker_label.isVisible()
    full = ghost.text
    text = ghost.marker_label.toPlainText()
    room = max(MARKER_LABEL_SHARE * view.viewport().width(), MARKER_LABEL_MIN_PX)
    width = view.mapFromScene(ghost.marker_label.sceneBoundingRect()).boundingRect().width()
    assert width <= room + 12  # the text item's own margins
    assert full == "ref 1 (before frame 300)" and view.viewport().width() < 400
    assert text.split("  ")[0] == "ref 1" and text.split()[-1] == "m"  # the qualifier gone first, the name whole
