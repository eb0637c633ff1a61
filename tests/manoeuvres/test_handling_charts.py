"""The charts of a handling test's report, as data (no drawing): what each one shows."""

from __future__ import annotations

import numpy as np
import pytest

from physics import load_preset
from workbench.manoeuvres.catalogue import CATALOGUE
from workbench.manoeuvres.charts import STEADY_BIN, charts_of
from workbench.manoeuvres.kpi import DEG, G
from workbench.manoeuvres.runner import Car, run_jobs
from workbench.manoeuvres.steady_state import FIT_RANGE, LINEAR_SHARE, steady_frames


def test_the_steady_state_chart_shows_only_the_quasi_steady_frames_and_marks_the_fit():
    # The run ends past the limit with the car spinning at full lock (a_y down to -9 m/s^2, the road
    # wheel at 31.5 deg): drawn, that buried the steady branch the KPIs are read from.
    m = CATALOGUE["iso4138"]
    (run,) = run_jobs([(m.base_script(), Car(load_preset("sedan").params, "sedan"))], m.channels)
    (chart,) = charts_of(m, [run], ["sedan"])
    curves = [s for s in chart.series if not s.dashed]
    (fit,) = [s for s in chart.series if s.dashed]
    frames = steady_frames(run)
    # one point per STEADY_BIN of a_y the quasi-steady frames fill (their mean there), of no other frame
    bins = np.unique(np.floor(frames.ay[frames.steady] / STEADY_BIN))
    assert sum(len(s.x) for s in curves) == len(bins) and frames.steady.sum() < len(run.t)
    drawn_ay = np.concatenate([s.x for s in curves])
    assert drawn_ay.min() > 0.0 and drawn_ay.max() < 9.0
    lock = np.degrees(load_preset("sedan").params.steering.lock)
    assert np.abs(np.concatenate([s.y for s in curves])).max() < 0.5 * lock  # [deg] the limit's understeer, never the lock
    assert run["steer"].max() * DEG > 30.0  # the run itself went to full lock
    (band,) = chart.bands
    fitted = frames.ay[frames.fit]
    assert (band.lo, band.hi, band.axis) == (fitted.min(), fitted.max(), "x")
    assert FIT_RANGE[0] <= band.lo < FIT_RANGE[0] + 0.1 and FIT_RANGE[1] - 0.1 < band.hi <= FIT_RANGE[1]
    kpi = {k.key: k.value for k in m.kpis(run)}["understeer_gradient"]  # [deg/g]
    slope = np.diff(fit.y)[0] / np.diff(fit.x)[0]  # [deg per m/s^2]
    assert slope * G == pytest.approx(kpi, rel=1e-9)
    assert tuple(fit.x) == (band.lo, band.hi)


def test_the_steady_state_chart_shades_the_range_fitted_below_a_low_limit():
    """The classic's limit (about 2 m/s^2) is within ISO 4138's 1..4 m/s^2, and its fit stops at LINEAR_SHARE of its
    maximum steady a_y (1.57 m/s^2): the chart shaded and drew the line over 1..4 m/s^2 all the same."""
    m = CATALOGUE["iso4138"]
    (run,) = run_jobs([(m.base_script(), Car(load_preset("classic").params, "classic"))], m.channels)
    (chart,) = charts_of(m, [run], ["classic"])
    (band,) = chart.bands
    (fit,) = [s for s in chart.series if s.dashed]
    ay_max = {k.key: k.value for k in m.kpis(run)}["max_lateral_acceleration"]
    assert band.hi <= LINEAR_SHARE * ay_max < FIT_RANGE[1]
    assert tuple(fit.x) == (band.lo, band.hi)
    assert f"{band.hi:.3g}" in band.label


def test_the_steady_state_chart_draws_the_ramp_up_to_the_cars_limit():
    """manual003 breaks away at about 3.7 m/s^2 and is caught back on the circle at the speed asked for: the frames of
    its catch drew bins from 1.5 to 5 m/s^2, a quarter of a degree under the ramp's and swinging past its maximum. The
    chart draws the ramp's quasi-steady frames up to the end of the steady second with the most lateral acceleration."""
    from workbench.manoeuvres.steady_state import limit_reached

    m = CATALOGUE["iso4138"]
    (run,) = run_jobs([(m.base_script(), Car(load_preset("manual003").params, "manual003"))], m.channels)
    (chart,) = charts_of(m, [run], ["manual003"])
    (curve,) = [s for s in chart.series if not s.dashed]
    frames = steady_frames(run)
    limit = limit_reached(run, frames)
    ramp = frames.steady & (run.t <= limit)
    assert (frames.steady & (run.t > limit)).sum() > 50  # the catch has steady-looking frames
    assert len(curve.x) == len(np.unique(np.floor(frames.ay[ramp] / STEADY_BIN)))
    ay_max = {k.key: k.value for k in m.kpis(run)}["max_lateral_acceleration"]
    assert curve.x.max() < 1.1 * ay_max < 4.2
