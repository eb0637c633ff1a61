"""A ``points`` path: its corners rounded by curvature-continuous blends, and the driver following it.

A polyline's corner is a curvature spike: the driver once took the corner of the audit's path
below at full lock, circled and never came back (a lateral error of 13.8 m at 50 km/h).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from physics.path import BLEND_PEAK, CURVATURE, HEADING, S, X, Y, rows_of, track_rows
from workbench.runs.replay import replay
from workbench.scripts.format import ScriptError, parse_script
from workbench.scripts.program import compile_script

KINK = [[0, 0], [100, 0], [150, 30], [250, 30]]  # the audit's path: two corners of 31 deg
LOOP = [[0, 0], [150, 0], [150, 100], [-150, 100], [-150, 0]]  # closed: four corners of 90 deg, first point mid-straight
ON_PATH = 0.02  # [m] the driver stays this close (measured: 0.6 mm on KINK, 2.1 mm on LOOP, both at 50 km/h)


def rows(points, closed=False, spacing=0.28):
    p = np.asarray(points, dtype=float)
    return track_rows(p[:, 0], p[:, 1], spacing, closed)


def chords(r, closed):
    """Heading of each chord from a row to the next, and its length."""
    x, y = r[:, X], r[:, Y]
    if closed:
        x, y = np.append(x, x[0]), np.append(y, y[0])
    return np.arctan2(np.diff(y), np.diff(x)), np.hypot(np.diff(x), np.diff(y))


@pytest.mark.parametrize(("points", "closed"), [(KINK, False), (LOOP, True)])
def test_the_rows_are_equally_spaced_and_their_heading_and_curvature_are_the_paths_own(points, closed):
    r = rows(points, closed)
    step = r[1, S] - r[0, S]
    heading, length = chords(r, closed)
    assert np.abs(length - step).max() < 1e-5 * step
    # The chord from a row to the next turns half the step's curvature on from the row's heading.
    mid = r[:len(heading), HEADING] + 0.5 * step * r[:len(heading), CURVATURE]
    assert np.abs(np.angle(np.exp(1j * (heading - mid)))).max() < 1e-4
    # Curvature continuous: no step between rows bigger than the blend's slope allows (the polyline's
    # corner put theta / (2 step), 1 /m here, on two rows).
    assert np.abs(np.diff(r[:, CURVATURE])).max() < 2e-3


def test_a_corner_is_rounded_tangent_to_both_segments_with_the_stated_peak_curvature():
    r = rows(KINK)
    theta = math.atan2(30.0, 50.0)
    tangent = 0.5 * math.hypot(50.0, 30.0)  # half the middle segment: its two corners share it
    # Before the first blend the path is the first segment; the blend ends half-way along the middle one.
    before = r[:, S] < 100.0 - tangent - 0.5
    assert np.abs(r[before, Y]).max() < 1e-9 and np.abs(r[before, CURVATURE]).max() == 0.0
    middle = np.argmin(np.hypot(r[:, X] - 125.0, r[:, Y] - 15.0))
    assert math.hypot(r[middle, X] - 125.0, r[middle, Y] - 15.0) < r[1, S]
    assert r[middle, HEADING] == pytest.approx(theta, abs=1e-3)
    chord = np.mean(np.cos(theta * (np.polynomial.polynomial.polyval(np.linspace(0, 1, 200001), [0, 0, 3, -2]) - 0.5)))
    blend = 2.0 * tangent * math.cos(theta / 2.0) / chord
    assert np.abs(r[:, CURVATURE]).max() == pytest.approx(BLEND_PEAK * theta / blend, rel=1e-3)
    assert r[-1, X] == pytest.approx(250.0) and r[-1, Y] == pytest.approx(30.0) and r[-1, HEADING] == 0.0


def test_a_path_that_turns_back_on_itself_is_refused_by_point():
    with pytest.raises(ValueError, match="straight back on itself at point #2"):
        rows([[0, 0], [50, 0], [10, 0]])


def test_a_corner_tighter_than_the_cars_lock_is_refused_by_the_script():
    text = ('[script]\nname = "x"\npreset = "sedan"\nduration = 5.0\n[driver]\nspeed_kmh = 10.0\n'
            '[driver.path]\nkind = "points"\npoints = [[0, 0], [2, 0], [2, 2], [4, 2]]\n')
    with pytest.raises(ScriptError, match="tighter than the car turns at full lock"):
        compile_script(parse_script(text, "tight.toml"))


@pytest.mark.parametrize(("radius", "refused"), [(0.001, True), (4.6, True), (4.7, False), (40.0, False)])
def test_a_circle_tighter_than_the_cars_lock_is_refused_as_a_corner_is(radius, refused):
    """A circle of 1 mm was driven (at full lock, round the car's own circle) where a points path's corner that tight
    is refused. The sedan turns at full lock on a circle of L / tan(lock) = 4.65 m (its rear axle's)."""
    from physics import load_preset

    car = load_preset("sedan").params
    assert car.body.wheelbase / math.tan(car.steering.lock) == pytest.approx(4.65, abs=0.005)
    text = ('[script]\nname = "x"\npreset = "sedan"\nduration = 5.0\n[driver]\nspeed_kmh = 5.0\n'
            f'[driver.path]\nkind = "circle"\nradius = {radius}\n')
    if refused:
        with pytest.raises(ScriptError, match=f"circle: radius {radius:.3g} m is tighter than the car turns at full "
                                              r"lock \(4.65 m\)"):
            compile_script(parse_script(text, "tight.toml"))
    else:
        assert compile_script(parse_script(text, "round.toml")).drive is not None


def drive(points, closed, speed_kmh, duration):
    text = (f'[script]\nname = "x"\npreset = "sedan"\nduration = {duration}\n[driver]\nspeed_kmh = {speed_kmh}\n'
            f'[driver.path]\nkind = "points"\npoints = {points}\nclosed = {str(closed).lower()}\n')
    (result,) = replay([compile_script(parse_script(text, "points.toml"))])
    return {name: result.column(name) for name in ("t", "lateral_error", "path_distance", "speed_kmh")}


def test_the_driver_follows_a_points_path_with_corners_at_50_kmh():
    run = drive(KINK, False, 50.0, 30.0)
    assert run["path_distance"][-1] > 390.0  # round both corners and on along the last segment
    assert np.abs(run["lateral_error"]).max() <= ON_PATH


def test_the_driver_laps_a_closed_points_path_at_50_kmh():
    run = drive(LOOP, True, 50.0, 60.0)
    lapped = np.flatnonzero(np.diff(run["path_distance"]) < -100.0)
    assert len(lapped) == 1  # past the first point again, once
    assert np.abs(run["lateral_error"]).max() <= ON_PATH
    assert np.abs(run["speed_kmh"][run["t"] > 8.0] - 50.0).max() < 1.0


def test_a_car_on_a_circle_is_on_the_path_between_its_rows():
    """The distance from the path was taken from the row's tangent line: on a circle of 100 m at rows 0.28 m apart it
    stepped by a tenth of a millimetre (curvature * spacing^2 / 8) at every row passed, which the driver's preview
    gain made a 20 Hz swing of the sedan's steer at 20 km/h on the ISO 4138 circle (its front tyres' force by 90 N of
    250). Taken from the arc of the row's curvature, a point on the circle is on the path wherever it is."""
    from physics.path import locate

    radius, n = 100.0, 2244  # the sedan's rows: a tenth of its wheelbase apart, 0.28 m
    a = np.arange(n) * (2.0 * math.pi / n)
    r = rows_of(radius * np.sin(a), radius * (1.0 - np.cos(a)), 2.0 * math.pi * radius / n, True, a,
                np.full(n, 1.0 / radius))
    hint, worst = 0, 0.0
    for along in np.arange(0.0, 20.0, 0.01):  # a point every centimetre over 70 rows
        a = along / radius
        for offset in (0.0, 0.5):  # on the circle, and half a metre inside it (left of the path)
            px, py = (radius - offset) * math.sin(a), radius - (radius - offset) * math.cos(a)
            hint, s, error, heading, _ = locate(r, 0, len(r), True, hint, px, py)
            worst = max(worst, abs(error - offset))
            assert heading == pytest.approx(a, abs=1e-4)
    assert worst < 1e-5
