"""The car view lays the loaded script's road surfaces under the car, shaded by their friction."""

import numpy as np
import pytest

from physics.presets import scripts_dir
from workbench.gui.car_geometry import label_point
from workbench.gui.car_view import SURFACE_Z, surface_colour


def _points(item) -> np.ndarray:
    return np.array([(p.x(), p.y()) for p in item.polygon()])


def test_split_mu_shows_both_halves_of_the_road_shaded_by_mu(carbench_window):
    window = carbench_window
    view = window.car_view
    assert view._surfaces == []
    assert window.load_script(scripts_dir() / "split_mu_braking.toml")
    surfaces = window.model.session.program.script.surfaces
    assert [s.mu for s in surfaces] == [1.0, 0.2]
    assert len(view._surfaces) == 2
    for (item, label, _), surface in zip(view._surfaces, surfaces, strict=True):
        drawn = _points(item)
        assert drawn[:-1] == pytest.approx(np.array(surface.polygon))
        assert item.zValue() == SURFACE_Z < view._body.zValue()
        assert f"\u03bc {surface.mu:.2f}" in label.textItem.toPlainText()
        assert surface.name in label.textItem.toPlainText()
    dry, ice = (item.brush().color() for item, _, _ in view._surfaces)
    assert ice.lightness() > dry.lightness()  # less grip: lighter
    assert ice.blue() - ice.red() > dry.blue() - dry.red()  # and bluer
    assert view._road_legend.isVisible()
    assert "&mu; 0.20 (ice, right)" in view.road_key and "&mu; 1.00 (dry, left)" in view.road_key


def test_the_surfaces_stay_drawn_and_labelled_as_the_camera_follows(carbench_window):
    window = carbench_window
    view = window.car_view
    assert window.load_script(scripts_dir() / "split_mu_braking.toml")
    window.model.replay()
    window.car_view.set_follow(True)
    dt = window.model.session.dt
    while window.model.session.frame < int(16.0 / dt):  # onto the split road and braking
        window.model.advance(50)
    window.model.refresh()
    (x0, x1), (y0, y1) = view.getPlotItem().getViewBox().viewRange()
    car = window.model.session.log.frame(window.model.session.log.frames - 1)
    assert x0 < car["x"] < x1 and car["x"] > 300.0  # the camera moved along with the car, onto the surfaces
    for item, label, _ in view._surfaces:
        assert item.scene() is view.scene() and item.isVisible()
        assert x0 < label.pos().x() < x1 and y0 < label.pos().y() < y1  # the labels came along
    # Another script without surfaces takes them away.
    assert window.load_script(scripts_dir() / "full_lock_left.toml")
    assert view._surfaces == [] and not view._road_legend.isVisible()


def test_a_label_stays_on_its_surface_and_in_view():
    road = np.array([[300.0, -10.0], [1500.0, -10.0], [1500.0, 0.0], [300.0, 0.0]])
    at = label_point(road, (400.0, 460.0, -30.0, 30.0))
    assert 406.0 <= at[0] <= 454.0 and -10.0 <= at[1] <= 0.0
    triangle = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])  # the box's point nearest the centre is off it
    assert label_point(triangle, (8.0, 12.0, 8.0, 12.0)) == pytest.approx(triangle.mean(axis=0))
    assert surface_colour(3.0) == surface_colour(1.0) != surface_colour(0.5)
