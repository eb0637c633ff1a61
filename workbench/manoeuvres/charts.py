"""Charts of a handling test's runs, as data (workbench.output.charts): the Bode chart of the frequency
response, the course with its cones, the steady-state curve, and a channel against time for the rest."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.manoeuvres.base import Manoeuvre
from workbench.manoeuvres.kpi import DEG, KMH, RunData
from workbench.output.charts import PALETTE, Chart, Marker, Series

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


def charts_of(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str]) -> list[Chart]:
    colours = [PALETTE[i % len(PALETTE)] for i in range(len(runs))]
    if m.name == "iso7401_sweep":
        return bode_charts([m.bode(run) for run in runs], labels)
    if m.name == "iso4138":
        series = [Series(run["accel_lat"], run["steer"] * DEG, label, c) for run, label, c in
                  zip(runs, labels, colours, strict=True)]
        return [Chart("Steady-state circle: steer against lateral acceleration", "lateral acceleration [m/s^2]",
                      "road-wheel angle [deg]", series)]
    if m.name == "iso3888_2":
        from workbench.scripts.courses import course_of

        course = course_of(runs[0].script.driver.path, runs[0].params)
        series = [Series(course.rows[:, 0], course.rows[:, 1], "driver's line", "#888888", dashed=True)]
        series += [Series(run["x"], run["y"], label, c) for run, label, c in zip(runs, labels, colours, strict=True)]
        lo, hi = course.cones[:, 0].min() - 10.0, course.cones[:, 0].max() + 10.0
        series = [Series(s.x[(s.x > lo) & (s.x < hi)], s.y[(s.x > lo) & (s.x < hi)], s.label, s.colour, s.dashed)
                  for s in series]
        cones = [Marker(float(x), float(y), "", "#ff7f0e") for x, y in course.cones]
        return [Chart("ISO 3888-2 course: path of the centre of mass and the cones", "x [m]", "y [m]", series,
                      markers=cones)]
    channel, label, scale = TIME_CHANNELS.get(m.name, ("speed", "speed [km/h]", KMH))
    series = [Series(run.t, run[channel] * scale, name, c) for run, name, c in zip(runs, labels, colours, strict=True)]
    return [Chart(m.title, "time [s]", label, series)]
