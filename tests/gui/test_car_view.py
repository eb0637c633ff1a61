"""The car view: the actual centre of rotation, the HUD, the key overlay and the parking lot."""

import numpy as np
import pytest
from axis_labels import tick_labels

from physics import load_preset
from workbench.gui.car_geometry import car_shape
from workbench.gui.hud import PEDAL, PEDAL_GAP
from workbench.gui.testing import hold, make_window


def _fitted_centre(xs, ys):
    """Least-squares circle through the points (Kasa fit): x^2 + y^2 + D x + E y + F = 0."""
    a = np.column_stack([xs, ys, np.ones_like(xs)])
    d, e, _ = np.linalg.lstsq(a, -(xs ** 2 + ys ** 2), rcond=None)[0]
    return np.array([-d / 2, -e / 2])


@pytest.mark.parametrize("preset", ["teaching", "parking"])
def test_the_centre_of_rotation_sits_on_the_centre_of_the_trails_circle(qtbot, carbench_settings, preset):
    window = make_window(preset, carbench_settings)
    qtbot.addWidget(window)
    window.show()
    hold(window, {"throttle", "left"}, 600)  # full lock, full throttle: the reference point runs on one circle
    log = window.model.session.log
    assert abs(log.column("steer")[-1]) == pytest.approx(window.model.session.params.steering.lock)
    xs, ys = log.column("x")[-90:], log.column("y")[-90:]
    centre = _fitted_centre(xs, ys)
    radius = float(np.mean(np.hypot(xs - centre[0], ys - centre[1])))
    shape = car_shape(log.frame(log.frames - 1), window.model.session.params, window.model.session.dt)
    assert np.linalg.norm(shape.icr - centre) < 0.005 * radius
    drawn = window.car_view._icr.getData()
    assert np.hypot(drawn[0][0] - centre[0], drawn[1][0] - centre[1]) < 0.005 * radius
    # the bicycle's predicted centre (R = L / tan(delta) beside the rear axle) agrees to half a step's travel
    assert np.linalg.norm(shape.turn_centre - centre) < 0.02 * radius


def test_the_hud_shows_speed_gear_rpm_pedals_and_steering(carbench_window):
    window = carbench_window
    hold(window, {"throttle", "left"}, 300)
    hud = window.car_view.hud
    log = window.model.session.log
    speed, gear, steer = hud.lines()
    assert speed == f"{log.column('speed_kmh')[-1]:.0f} km/h"
    assert gear == f"gear 1   {log.column('rpm')[-1]:.0f} rpm"
    assert steer == f"steer {np.degrees(log.column('steer')[-1]):+.1f} deg"
    assert hud.values["throttle"] == log.column("throttle")[-1]
    assert hud.isVisible() and window.car_view.rect().contains(hud.geometry())
    window.recorder.timeline.setValue(100)  # the HUD follows the time cursor
    assert hud.lines()[0] == f"{log.column('speed_kmh')[100]:.0f} km/h"


@pytest.mark.parametrize("preset", ["manual003", "parking"])
def test_the_hud_draws_the_handbrake_beside_the_pedals(carbench_window, preset):
    window = carbench_window
    window.model.load_preset(preset)
    hud = window.car_view.hud

    def orange_in(column: str) -> int:
        """Pixels of the handbrake's colour in the column of the bar named ``column``."""
        names = [name for name, _, _ in hud.bars()]
        x = int(hud._pedals_x) + names.index(column) * (PEDAL + PEDAL_GAP)
        image = hud.grab().toImage()
        colour = dict((n, c) for n, c, _ in hud.bars())["handbrake"].rgb()
        return sum(image.pixel(x + dx, y) == colour for dx in range(PEDAL) for y in range(8, 60))

    hold(window, {"throttle"}, 60)
    hold(window, {"handbrake"}, 30)
    names = [name for name, _, _ in hud.bars()]
    assert names[-1] == "handbrake" and ("clutch_pedal" in names) == (preset == "manual003")
    assert dict((n, level) for n, _, level in hud.bars())["handbrake"] == 1.0
    assert orange_in("handbrake") == PEDAL * 52  # the whole bar
    assert window.car_view.rect().contains(hud.geometry())
    hold(window, set(), 5)
    assert dict((n, level) for n, _, level in hud.bars())["handbrake"] == 0.0
    assert orange_in("handbrake") == 0


def _drawn_labels(view, axis):
    """The rectangles (in the car view's pixels) of an axis' tick labels and of its title."""
    rects = [(view.mapFromScene(rect).boundingRect(), text) for rect, text in tick_labels(axis)]
    if axis.label.isVisible():
        rects.append((view.mapFromScene(axis.label.sceneBoundingRect()).boundingRect(), "title"))
    return rects


@pytest.mark.parametrize("size", [(1024, 640), (1500, 900), (2560, 1440)])
def test_the_hud_covers_no_axis_label(carbench_window, qtbot, size):
    window = carbench_window
    window.resize(*size)
    hold(window, {"throttle"}, 120)
    qtbot.wait(20)
    view = window.car_view
    hud = view.hud.geometry()
    assert view.rect().contains(hud)
    item = view.getPlotItem()
    labels = _drawn_labels(view, item.getAxis("left")) + _drawn_labels(view, item.getAxis("bottom"))
    assert len(labels) >= 6
    for rect, text in labels:
        assert not rect.intersects(hud), (size, text, rect, hud)
    area = view.mapFromScene(item.getViewBox().sceneBoundingRect()).boundingRect()
    assert area.contains(hud)  # inside the plot area


@pytest.mark.parametrize("size", [(1024, 640), (1500, 900), (2560, 1440)])
def test_the_key_overlay_fits_the_view(carbench_window, qtbot, size):
    window = carbench_window
    window.resize(*size)
    qtbot.wait(20)
    window.help_action.trigger()
    qtbot.wait(20)
    view = window.car_view
    assert view._help.isVisible()
    assert view.rect().contains(view._help.geometry())
    assert view._help.heightForWidth(view._help.width()) <= view._help.height()  # no line cut off


def test_a_parking_car_keeps_its_bays_under_another_name(carbench_window, tmp_path):
    window = carbench_window
    tuned = tmp_path / "parking-tuned.toml"
    tuned.write_text(load_preset("parking").path.read_text())
    assert window.load_preset(tuned)
    xs, ys = window.car_view._bays.getData()
    assert len(xs) > 20
    assert window.load_preset("sedan")
    assert len(window.car_view._bays.getData()[0]) == 0


def test_a_marker_just_past_the_views_edge_draws_nothing(carbench_window):
    # The centre of rotation's cross, a few pixels past the left edge of the view, showed one arm at the edge: a
    # stray yellow dash beside the y axis' ticks. Only a marker whose point is in the view is drawn.
    from PySide6.QtGui import QColor

    window = carbench_window
    window.resize(1500, 900)
    view = window.car_view
    vb = view.getPlotItem().getViewBox()
    window.model.set_running(False)
    (x0, x1), (y0, y1) = vb.viewRange()
    px = vb.viewPixelSize()[0]

    def yellow(image):  # the marker's colour (workbench.gui.car_view.ICR) in the left 120 px of the view
        return [(x, y) for y in range(image.height()) for x in range(0, 120)
                if (lambda c: c.red() > 150 and 110 < c.green() < 200 and c.blue() < 80)(QColor(image.pixel(x, y)))]

    view._icr.setData([x0 - 3 * px], [0.5 * (y0 + y1)])  # its centre 3 px left of the edge: 4 px of an arm inside
    assert view._icr.isVisible() and yellow(view.grab().toImage()) == []
    view._icr.setData([x0 + 20 * px], [0.5 * (y0 + y1)])  # inside: the whole cross
    drawn = yellow(view.grab().toImage())
    assert len({x for x, _ in drawn}) >= 12 and len({y for _, y in drawn}) >= 12


@pytest.mark.carbench_preset("manual003")
def test_the_hud_before_the_first_frame_says_what_the_first_frame_will(carbench_window):
    window = carbench_window
    window.load_script("presets/scripts/clutch_coast.toml")
    assert window.model.session.log.frames == 0
    window.car_view.redraw()
    before = window.car_view.hud.lines()[1]
    assert before == f"gear 1   {window.model.session.params.engine.idle_rpm:.0f} rpm"
    hold(window, set(), 1)
    assert window.model.session.log.column("gear")[0] == 1.0
    assert window.car_view.hud.lines()[1].startswith("gear 1 ")


def test_the_hud_steer_text_clears_its_bar_at_full_lock_either_way(carbench_window):
    from workbench.gui.hud import BAR, GAP, MARGIN

    hud = carbench_window.car_view.hud
    metrics = hud.fontMetrics()
    bar_start = MARGIN + hud._column - BAR
    for text in ("steer +88.8 deg", "steer -88.8 deg", "steer +40.0 deg", "steer +31.5 deg"):
        assert MARGIN + metrics.horizontalAdvance(text) + GAP <= bar_start, text
    assert 60 + 14 <= hud.height() - 2  # the pedals' initials clear of the bottom edge


def test_the_wheels_zoom_stops_at_a_tyres_width_and_a_few_kilometres(carbench_window):
    """The zoom went on without end (spans of 1e-300 m and 1e300 m, the car and grid no longer drawn)."""
    from workbench.gui.car_view import ZOOM_LIMITS

    view = carbench_window.car_view
    length = carbench_window.model.session.params.body.length
    vb = view.getPlotItem().getViewBox()
    for _ in range(40):
        vb.scaleBy((0.1, 0.1))  # as forty turns of the wheel in
    (x0, x1), (y0, y1) = vb.viewRange()
    assert min(x1 - x0, y1 - y0) == pytest.approx(ZOOM_LIMITS[0] * length, rel=1e-6)
    for _ in range(40):
        vb.scaleBy((10.0, 10.0))
    (x0, x1), (y0, y1) = vb.viewRange()
    assert max(x1 - x0, y1 - y0) == pytest.approx(ZOOM_LIMITS[1] * length, rel=1e-6)
    assert ZOOM_LIMITS[0] * length < 0.3 and ZOOM_LIMITS[1] * length > 5000.0  # the sedan: 4.71 m long
