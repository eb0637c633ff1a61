"""Charts of a handling test's runs, as data (workbench.output.charts): the Bode chart of the frequency
response, the course with its cones, the steady-state curve, and a channel against time for the rest."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.manoeuvres.base import Manoeuvre
from workbench.manoeuvres.kpi import DEG, KMH, G, RunData, line_fit
from workbench.manoeuvres.steady_state import FIT_RANGE, steady_frames
from workbench.output.charts import PALETTE, Band, Chart, Marker, Series

TIME_CHANNELS = {"iso7401_step": ("yaw_rate", "yaw rate [deg/s]", DEG), "r140_swd": ("yaw_rate", "yaw rate [deg/s]", DEG),
                 "iso7975": ("yaw_rate", "yaw rate [deg/s]", DEG), "iso21994": ("speed", "speed [km/h]", KMH),
                 "acceleration": ("speed", "speed [km/h]", KMH), "elasticity": ("speed", "speed [km/h]", KMH),
                 "coastdown": ("speed", "speed [km/h]", KMH)}


def bode_charts(bodes: Sequence[dict], labels: Sequence[str]) -> list[Chart]:
    """Gain and phase of yaw rate over road-wheel angle against frequency, one curve per car."""
    gain = [Series(b["frequency"], b["gain"], label, PALETTE[i % len(PALETTE)]) for i, (b, label) in
            enumerate(zip(bodes, labels, strict=True))]
    phase = [Series(b["frequency"], np.degrees(np.unwrap(np.radians(b["phase"]))), label, PALETTE[i % len(PALETTE)])
             for i, (b, label) in enumerate(zip(bodes, labels, strict=True))]
    return [Chart("Yaw-rate gain (ISO 7401 frequency response)", "frequency [Hz]", "yaw rate / road-wheel angle [1/s]",
                  gain),
            Chart("Yaw-rate phase", "frequency [Hz]", "phase [deg]", phase)]


def steady_state_chart(runs: Sequence[RunData], labels: Sequence[str], colours: Sequence[str]) -> Chart:
    """Road-wheel angle against lateral acceleration on the quasi-steady frames the KPIs use (the spin past
    the limit and the run-up from rest left out), the fit range shaded, and the understeer gradient's line
    through the fitted frames (dashed)."""
    series = []
    for run, label, colour in zip(runs, labels, colours, strict=True):
        f = steady_frames(run)
        # In time order (the speed ramp), one curve per unbroken stretch of quasi-steady frames.
        frames = np.flatnonzero(f.steady)
        for i, stretch in enumerate(np.split(frames, np.flatnonzero(np.diff(frames) > 1) + 1)):
            if len(stretch) > 1:
                series.append(Series(f.ay[stretch], f.delta[stretch] * DEG, "" if i else label, colour))
        fit = line_fit(f.ay[f.fit], f.understeer[f.fit])
        if fit is not None:
            offset = float(np.mean(f.delta[f.fit] - fit[0] * f.ay[f.fit]))  # the slope's line through the frames
            x = np.array(FIT_RANGE)
            series.append(Series(x, (fit[0] * x + offset) * DEG, f"{label}: {fit[0] * DEG * G:.3g} deg/g", colour,
                                 dashed=True))
    band = Band(FIT_RANGE[0], FIT_RANGE[1], "x", "#888888",
                f"fit range {FIT_RANGE[0]:g}..{FIT_RANGE[1]:g} m/s^2")
    return Chart("Steady-state circle: steer against lateral acceleration", "lateral acceleration [m/s^2]",
                 "road-wheel angle [deg]", series, bands=[band],
                 notes=["quasi-steady frames only: on the circle, at the speed asked for"])


def charts_of(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str]) -> list[Chart]:
    colours = [PALETTE[i % len(PALETTE)] for i in range(len(runs))]
    if m.name == "iso7401_sweep":
        return bode_charts([m.bode(run) for run in runs], labels)
    if m.name == "iso4138":
        return [steady_state_chart(runs, labels, colours)]
    if m.name == "iso3888_2":
        from workbench.scripts.courses import course_of

        course = course_of(runs[0].script.driver.path, runs[0].params)
        series = [Series(course.rows[:, 0], course.rows[:, 1], "driver's line", "#888888", dashed=True)]
        series += [Series(run["x"], run["y"], label, c) for run, label, c in zip(runs, labels, colours, strict=True)]
        lo, hi = course.cones[:, 0].min() - 10.0, course.cones[:, 0].max() + 10.0
        series = [Series(s.x[(s.x > lo) & (s.x < hi)], s.y[(s.x > lo) & (s.x < hi)], s.label, s.colour, s.dashed)
                  for s in series]
        cones = [Marker(float(x), float(y), "", "#ff7f0e") for x, y in course.cones]
        speed = runs[0].script.driver.speed
        unit = "km/h" if runs[0].script.driver.speed_unit == "speed_kmh" else "m/s"
        return [Chart(f"ISO 3888-2 course at its script's speed, {speed:g} {unit}: path of the centre of mass and "
                      "the cones", "x [m]", "y [m]", series, markers=cones)]
    channel, label, scale = TIME_CHANNELS.get(m.name, ("speed", "speed [km/h]", KMH))
    series = [Series(run.t, run[channel] * scale, name, c) for run, name, c in zip(runs, labels, colours, strict=True)]
    title = m.title
    if m.name == "r140_swd":  # the series' runs are many: the chart is of the script's own amplitude
        title += f": the run at its script's amplitude, {runs[0].script.robot.get('amplitude'):.4g} deg of handwheel"
    return [Chart(title, "time [s]", label, series)]
