"""The car view of a four-wheel car: four wheels at their own angles, each with its force, load bar and aids."""

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from physics import channel_names
from workbench.gui.car_geometry import LIFTED, car_shape, force_scale
from workbench.gui.car_view import AID_COLOURS, CORNER_ORDER, LIFTED_WHEEL, LOAD, LOAD_LOW, WHEEL
from workbench.gui.testing import hold


def _points(item) -> np.ndarray:
    return np.array([(p.x(), p.y()) for p in item.polygon()])


def _curve(item) -> np.ndarray:
    xs, ys = item.getData()
    return np.column_stack([xs, ys]) if xs is not None else np.zeros((0, 2))


def _direction(outline: np.ndarray) -> float:
    """The heading of a wheel's outline (front edge minus back edge, as car_geometry._box lays it)."""
    along = outline[0] - outline[1]
    return float(np.arctan2(along[1], along[0]))


def test_a_four_wheel_car_draws_each_wheel_where_the_model_has_it(carbench_window):
    window = carbench_window
    p = window.model.session.params
    assert p.model.layout == "four_wheel"
    view = window.car_view
    assert window.model.session.log.frames == 0  # before the first step the car stands on its four wheels
    assert all(w.brush().style() == Qt.BrushStyle.SolidPattern for w in view._wheels)
    assert all(_points(c.bar)[0] == pytest.approx(_points(c.frame)[0]) for c in view._corners.values())
    hold(window, {"throttle", "left"}, 400)  # a tightening left turn under power: the loads shift right
    log = window.model.session.log
    v = log.frame(log.frames - 1)
    view = window.car_view
    heading = v["heading"]
    ahead = np.array([np.cos(heading), np.sin(heading)])
    left = np.array([-ahead[1], ahead[0]])
    com = np.array([v["x"], v["y"]])
    b = p.body
    places = {"fl": com + (b.wheelbase - b.lr) * ahead + 0.5 * b.track * left,
              "fr": com + (b.wheelbase - b.lr) * ahead - 0.5 * b.track * left,
              "rl": com - b.lr * ahead + 0.5 * b.track * left, "rr": com - b.lr * ahead - 0.5 * b.track * left}
    angles = {"fl": v["wheel_left"], "fr": v["wheel_right"], "rl": 0.0, "rr": 0.0}
    assert v["wheel_left"] > v["wheel_right"] > 0.0  # Ackermann: the inner (left) wheel turns more
    static = dict(zip(("front", "rear"), p.static_loads(), strict=True))
    ratios = {}
    for corner, i in CORNER_ORDER.items():
        outline = _points(view._wheels[i])
        assert outline[:4].mean(axis=0) == pytest.approx(places[corner], abs=1e-6)
        turn = _direction(outline) - (heading + angles[corner])
        assert np.angle(np.exp(1j * turn)) == pytest.approx(0.0, abs=1e-9)
        curve = _curve(view._force_front if corner[0] == "f" else view._force_rear)
        force = curve[:2] if corner[1] == "l" else curve[2:]  # a pair of points per wheel, left first
        world = np.array([[np.cos(heading + angles[corner]), -np.sin(heading + angles[corner])],
                          [np.sin(heading + angles[corner]), np.cos(heading + angles[corner])]])
        expected = force_scale(p) * world @ np.array([v[f"fx_{corner}"], v[f"fy_{corner}"]])
        assert force[0] == pytest.approx(places[corner], abs=1e-6)
        assert force[1] - force[0] == pytest.approx(expected, abs=1e-9)
        bar, frame = _points(view._corners[corner].bar), _points(view._corners[corner].frame)
        ratio = np.linalg.norm(bar[0] - bar[1]) / np.linalg.norm(frame[0] - frame[1])
        load = v[f"load_{corner}"] / static["front" if corner[0] == "f" else "rear"]
        assert ratio == pytest.approx(load, rel=1e-9)
        ratios[corner] = ratio
    assert ratios["fr"] > 1.0 > ratios["fl"]  # the outside wheels carry more than their static load
    assert ratios["rr"] > 1.0 > ratios["rl"]
    assert len(_curve(view._force_front)) == len(_curve(view._force_rear)) == 4  # no axle arrow besides


def _state(window, **channels) -> dict[str, float]:
    """A frame of the car at rest at the origin with ``channels`` set."""
    v = dict.fromkeys(channel_names(window.model.session.params.model.unit), 0.0)
    front, rear = window.model.session.params.static_loads()
    v.update(load_fl=front, load_fr=front, load_rl=rear, load_rr=rear)
    v.update(channels)
    return v


def test_a_lifted_wheel_is_hollow_an_unloaded_one_warns_and_the_aids_are_marked(carbench_window):
    window = carbench_window
    view = window.car_view
    p = window.model.session.params
    front, rear = p.static_loads()
    v = _state(window, load_fl=1.8 * front, load_fr=0.5 * LIFTED * front, load_rl=0.3 * rear, abs_fl=1.0,
               tcs_rl=1.0, esc_rl=1.0, esc_rr=1.0)
    view._draw_corners(car_shape(v, p))
    fl, fr, rl, rr = (view._wheels[CORNER_ORDER[c]] for c in ("fl", "fr", "rl", "rr"))
    assert fr.brush().style() == Qt.BrushStyle.NoBrush  # lifted: hollow, dashed grey
    assert fr.pen().style() == Qt.PenStyle.DashLine and fr.pen().color() == LIFTED_WHEEL
    for wheel in (fl, rl, rr):
        assert wheel.brush().style() == Qt.BrushStyle.SolidPattern and wheel.brush().color() == WHEEL
    assert fl.pen().color() == AID_COLOURS["ABS"]
    assert rl.pen().color() == AID_COLOURS["TCS"]  # the first of its aids colours the wheel
    assert rr.pen().color() == AID_COLOURS["ESC"]
    items = view._corners
    assert items["fl"].aids.textItem.toPlainText() == "ABS"
    assert items["rl"].aids.textItem.toPlainText() == "TCS ESC"
    html = items["rl"].aids.textItem.toHtml()
    assert html.index(AID_COLOURS["TCS"].name()) < html.index(AID_COLOURS["ESC"].name())  # each in its colour
    assert items["rr"].aids.textItem.toPlainText() == "ESC"
    assert items["fr"].aids.textItem.toPlainText() == "" and not items["fr"].aids.isVisible()
    assert items["fl"].aids.isVisible()
    # in the window's own font, bold: QFont("") was whatever family fontconfig gave for "" (a serif, C059, where the
    # URW fonts are installed)
    font = items["fl"].aids.textItem.font()
    assert font.family() == QApplication.font().family() and font.bold() and font.pointSize() == 8
    assert items["rl"].bar.brush().color() == LOAD_LOW  # below half its static load
    assert items["fl"].bar.brush().color() == LOAD and items["rr"].bar.brush().color() == LOAD

    def length(item):
        pts = _points(item)
        return np.linalg.norm(pts[0] - pts[1])

    assert length(items["fl"].bar) == pytest.approx(1.8 * length(items["fl"].frame))
    assert length(items["rr"].bar) == pytest.approx(length(items["rr"].frame))
    assert length(items["fr"].bar) < 0.01 * length(items["fr"].frame)
    # The wheel comes back down: solid again, its mark gone.
    view._draw_corners(car_shape(_state(window), p))
    assert fr.brush().style() == Qt.BrushStyle.SolidPattern and fr.pen().color() == WHEEL
    assert fl.pen().color() == WHEEL and items["fl"].aids.textItem.toPlainText() == ""


@pytest.mark.carbench_preset("sedan_single_track")
def test_a_single_track_car_keeps_its_axle_arrows(carbench_window):
    window = carbench_window
    assert window.model.session.params.model.layout == "single_track"
    hold(window, {"throttle", "left"}, 300)
    view = window.car_view
    log = window.model.session.log
    v = log.frame(log.frames - 1)
    front = _curve(view._force_front)
    assert len(front) == 2 and np.linalg.norm(front[1] - front[0]) == pytest.approx(
        abs(v["fy_front"]) * force_scale(window.model.session.params))
    assert len(_curve(view._force_rear)) == 2  # the axle's one arrow
    for items in view._corners.values():
        assert not any(item.isVisible() for item in items.items())
    for wheel in view._wheels:
        assert wheel.brush().style() == Qt.BrushStyle.SolidPattern


def test_the_four_wheel_screenshot_drives_the_tail_happy_car(tmp_path):
    from workbench.gui.screenshots import CAR_SHOTS, _script_on
    from workbench.scripts.format import load_script

    shots = {name: (script, preset, params) for name, script, preset, params, *_ in CAR_SHOTS}
    assert set(shots) == {"four-wheel.png", "split-mu.png"}
    script, preset, params = shots["four-wheel.png"]
    copy = _script_on(script, preset, str(tmp_path), params)
    script = load_script(copy)
    assert copy.parent == tmp_path and script.preset == "tail_happy"
    assert [(s.at, s.params) for s in script.sets][-1] == (0.0, {"body.cg_height": 0.7})  # said in the caption
    split = _script_on(*shots["split-mu.png"][:2], str(tmp_path), shots["split-mu.png"][2])
    assert load_script(split).surfaces  # the shipped script itself, with its road


def test_the_four_wheel_screenshot_shows_a_lifted_wheel(carbench_window, tmp_path):
    from workbench.gui.screenshots import CAR_SHOTS, _script_on
    from workbench.gui.testing import drive

    window = carbench_window
    (shot,) = [s for s in CAR_SHOTS if s[0] == "four-wheel.png"]
    _, script, preset, params, seconds, *_ = shot
    drive(window, _script_on(script, preset, str(tmp_path), params), chunk=256)
    assert window.model.session.params.body.cg_height == 0.7
    window.model.set_running(False)
    window.model.set_view_frame(int(round(seconds / window.model.session.dt)))
    view = window.car_view
    values = window.model.session.log.frame(window.model.shown_frame())
    lifted = [c for c in ("fl", "fr", "rl", "rr") if values[f"load_{c}"] == 0.0]
    assert lifted == ["rr"]  # the inside rear, as the README's caption says
    rr = view._wheels[CORNER_ORDER["rr"]]
    assert rr.brush().style() == Qt.BrushStyle.NoBrush and rr.pen().color() == LIFTED_WHEEL  # drawn hollow


@pytest.mark.parametrize("heading_deg", [0.0, 37.0, 90.0, 180.0, 251.0])
def test_the_aids_of_four_wheels_never_meet_however_small_the_car(carbench_window, heading_deg):
    # Zoomed out (a car a few pixels long, as in a small window), the names of the aids at the four corners ran
    # over each other ("ABSABS"): each now runs away from the car from its corner, forwards or backwards.
    window = carbench_window
    view = window.car_view
    p = window.model.session.params
    v = _state(window, heading=np.radians(heading_deg), abs_fl=1.0, esc_fl=1.0, abs_fr=1.0, abs_rl=1.0, tcs_rr=1.0,
               esc_rr=1.0)
    view._centre_on(np.zeros(2), 120.0)  # 120 m across: the car is about 25 px long
    view._draw_corners(car_shape(v, p))
    rects = {c: view.mapFromScene(view._corners[c].aids.sceneBoundingRect()).boundingRect()
             for c in ("fl", "fr", "rl", "rr")}
    for a, b in (("fl", "fr"), ("fl", "rl"), ("fl", "rr"), ("fr", "rl"), ("fr", "rr"), ("rl", "rr")):
        assert not rects[a].intersects(rects[b]), (a, b, rects[a], rects[b])
    # The first starts at its corner's point, outboard of the load bar; the others near theirs (moved out along
    # the way they run by a line or two where they would meet).
    for c in ("fl", "fr", "rl", "rr"):
        shape = next(w for w in car_shape(v, p).corners if w.corner == c)
        at = view.mapFromScene(view.getPlotItem().getViewBox().mapViewToScene(
            pg.Point(float(shape.aids_at[0]), float(shape.aids_at[1]))))
        reach = 2 if c == "fl" else 2 + 2 * rects[c].height()
        assert rects[c].adjusted(-reach, -reach, reach, reach).contains(at), (c, rects[c], at)
    # Zoomed further out with no new frame (paused): parted again for the new scale.
    view._centre_on(np.zeros(2), 400.0)
    rects = {c: view.mapFromScene(view._corners[c].aids.sceneBoundingRect()).boundingRect()
             for c in ("fl", "fr", "rl", "rr")}
    for a, b in (("fl", "fr"), ("fl", "rl"), ("fl", "rr"), ("fr", "rl"), ("fr", "rr"), ("rl", "rr")):
        assert not rects[a].intersects(rects[b]), ("zoomed out", a, b, rects[a], rects[b])
