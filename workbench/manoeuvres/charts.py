"""Charts of a handling test's runs, as data (workbench.output.charts): the Bode chart of the frequency
response, the course with its cones, the steady-state curve, and a channel against time for the rest.

Each chart is of what the test's KPIs are read from: the step steer's and the braking in a turn's runs around
their input (a window of the run, not its run-up), the coast-down with the road-load fit beside it, the
steady-state curve along the lateral acceleration, and the double lane change's run that the KPI reports. No
non-finite value reaches a chart (:func:`finite_only`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from workbench.manoeuvres.base import Manoeuvre
from workbench.manoeuvres.kpi import DEG, KMH, G, RunData, line_fit
from workbench.manoeuvres.performance import road_load_frames
from workbench.manoeuvres.steady_state import limit_reached, steady_frames
from workbench.output.charts import PALETTE, Band, Chart, Line, Marker, Series, darker

TIME_CHANNELS = {"iso7401_step": ("yaw_rate", "yaw rate [deg/s]", DEG), "r140_swd": ("yaw_rate", "yaw rate [deg/s]", DEG),
                 "iso7975": ("yaw_rate", "yaw rate [deg/s]", DEG), "iso21994": ("speed", "speed [km/h]", KMH),
                 "acceleration": ("speed", "speed [km/h]", KMH), "elasticity": ("speed", "speed [km/h]", KMH),
                 "coastdown": ("speed", "speed [km/h]", KMH)}

STEP_BEFORE = 1.0  # [s] the step steer's chart starts this long before the step (ISO 7401's t = 0, half the steer)
STEP_SETTLED = 0.05  # the yaw rate within this share of its steady state: settled
STEP_AFTER = 2.0  # [s] and ends this long after the yaw rate has settled
BRAKE_BEFORE = 2.0  # [s] the braking in a turn's chart starts this long before the brake onset
BRAKE_AFTER = 1.0  # [s] and ends this long after the car stands
FIT_COLOUR = "#222222"  # the coast-down's fitted curve
STEADY_BIN = 0.05  # [m/s^2] the steady-state curve: the mean road-wheel angle per this much lateral acceleration
SPEED_MARKS = {"acceleration": (100.0, 200.0), "elasticity": (80.0, 120.0), "iso21994": ()}
"""The speeds [km/h] a speed chart marks, by test (ISO 21994's come from its onset: 0.8 and 0.1 of it)."""
MARK_COLOUR = "#666666"  # what a KPI reads, marked
FAIL_MARK = "#c62828"  # a limit drawn


def finite_only(chart: Chart) -> Chart:
    """``chart`` with every series' non-finite points left out (the renderer drew a NaN as 0: a false point)."""
    series = []
    for s in chart.series:
        x, y = np.asarray(s.x, dtype=float), np.asarray(s.y, dtype=float)
        keep = np.isfinite(x) & np.isfinite(y)
        series.append(s if keep.all() else replace(s, x=x[keep], y=y[keep]))
    markers = [m for m in chart.markers if np.isfinite(m.x) and np.isfinite(m.y)]
    return replace(chart, series=series, markers=markers)


def within(s: Series, lo: float, hi: float) -> Series:
    """The part of ``s`` with x in [lo, hi]."""
    keep = (s.x >= lo) & (s.x <= hi)
    return replace(s, x=s.x[keep], y=s.y[keep])


def phase_through_1hz(freq: np.ndarray, gain: np.ndarray, phase: np.ndarray) -> np.ndarray:
    """A phase curve [deg] unwrapped along the sweep and moved by whole turns to pass through the KPI's value at 1 Hz
    (transient.phase_at): unwrapped from the lowest frequency, a car sliding on ice read 296 and 2159 deg at 1 Hz on the
    chart where its KPIs read -64 and -1."""
    from workbench.manoeuvres.transient import phase_at

    unwrapped = np.degrees(np.unwrap(np.radians(phase)))
    if not len(freq):
        return unwrapped
    at = float(np.interp(1.0, freq, unwrapped))
    return unwrapped + 360.0 * round((phase_at(1.0, freq, gain, phase) - at) / 360.0)


def bode_charts(bodes: Sequence[dict], labels: Sequence[str]) -> list[Chart]:
    """Gain of yaw rate over road-wheel angle against frequency, one curve per car, and the phase of yaw rate and of
    lateral acceleration (ISO 7401's frequency response reads both at 1 Hz)."""
    gain = [Series(b["frequency"], b["gain"], label, PALETTE[i % len(PALETTE)]) for i, (b, label) in
            enumerate(zip(bodes, labels, strict=True))]
    # The yaw rate's phase and the lateral acceleration's (dashed): the KPIs read both at 1 Hz.
    phase = []
    for i, (b, label) in enumerate(zip(bodes, labels, strict=True)):
        colour = PALETTE[i % len(PALETTE)]
        named = f"{label}: " if len(bodes) > 1 else ""
        for key, gain_key, what in (("phase", "gain", "yaw rate"), ("ay_phase", "ay_gain", "lateral acceleration")):
            phase.append(Series(b["frequency"], phase_through_1hz(b["frequency"], b[gain_key], b[key]),
                                f"{named}{what}", colour, dashed=key == "ay_phase"))
    # What the KPIs read, marked (of the first car): its gain at the sweep's lowest frequency less 3 dB, where the
    # bandwidth is read, and 1 Hz, where the phases are.
    marks = [Line(1.0, "x", MARK_COLOUR, label="1 Hz")]
    gain_marks = list(marks)
    if bodes and len(bodes[0]["gain"]):
        low = float(bodes[0]["gain"][0])
        # The line the bandwidth KPI reads: the gain over sqrt 2 (-3.01 dB; 10^(-3/20) drew it 0.12% off).
        gain_marks.append(Line(low / math.sqrt(2.0), "y", MARK_COLOUR, label="-3 dB", label_at=0.95))
    return [Chart("Yaw-rate gain (ISO 7401 frequency response)", "frequency [Hz]", "yaw rate / road-wheel angle [1/s]",
                  gain, lines=gain_marks,
                  notes=["the bandwidth where the gain first falls 3 dB below its value at the sweep's lowest "
                         "frequency (the dashed line: the first car's)"]),
            Chart("Yaw-rate and lateral-acceleration phase", "frequency [Hz]", "phase [deg]", phase, lines=marks,
                  notes=["over road-wheel angle; the lateral acceleration's dashed"])]


def binned(x: np.ndarray, y: np.ndarray, width: float) -> tuple[np.ndarray, np.ndarray]:
    """The mean of x and of y over the points in each ``width`` of x, sorted along x (a bin's mean x lies in its
    bin, so the means rise strictly); bins with no point are left out."""
    if not len(x):
        return np.zeros(0), np.zeros(0)
    _, which = np.unique(np.floor(x / width).astype(np.int64), return_inverse=True)
    count = np.bincount(which)
    return np.bincount(which, weights=x) / count, np.bincount(which, weights=y) / count


def steady_state_chart(runs: Sequence[RunData], labels: Sequence[str], colours: Sequence[str]) -> Chart:
    """Road-wheel angle against lateral acceleration on the quasi-steady frames of the ramp up to the car's limit (the
    run-up from rest, and the breakaway and the catch past the limit left out: manual003's catch, back on the circle
    at the speed asked for, drew its bins from 1.5 to 5 m/s^2 a quarter of a degree below the ramp's and swinging
    past 3.7, its maximum), the fit range shaded, and the understeer gradient's line through the fitted frames
    (dashed).

    The frames are drawn as their mean per STEADY_BIN of lateral acceleration, along it: drawn in time order, the
    frame-to-frame scatter of a_y (it falls back on 43% of the frames) drew a scribble where the driver settles on
    the circle and loops where a_y dips near the limit."""
    series, bands = [], []
    for run, label, colour in zip(runs, labels, colours, strict=True):
        f = steady_frames(run)
        limit = limit_reached(run, f)
        ramp = f.steady & (run.t <= limit) if limit is not None else f.steady
        ay, delta = binned(f.ay[ramp], f.delta[ramp] * DEG, STEADY_BIN)
        if len(ay):
            series.append(Series(ay, delta, label, colour))
        fit = line_fit(f.ay[f.fit], f.understeer[f.fit])
        if fit is not None:
            offset = float(np.mean(f.delta[f.fit] - fit[0] * f.ay[f.fit]))  # the slope's line through the frames
            # Over the frames fitted: FIT_RANGE, cut at LINEAR_SHARE of the car's limit where that is within it (the
            # chart shaded and drew 1..4 m/s^2 for the classic fitted to 1.57).
            x = np.array([float(f.ay[f.fit].min()), float(f.ay[f.fit].max())])
            # dark over the car's own curve (in its colour, the dashes lay hidden under it); of several cars, a dark
            # shade of each one's colour
            series.append(Series(x, (fit[0] * x + offset) * DEG, f"{label}: {fit[0] * DEG * G:.3g} deg/g",
                                 FIT_COLOUR if len(runs) == 1 else darker(colour), dashed=True))
            bands.append(Band(x[0], x[1], "x", colour, f"{label}: fit range {x[0]:.3g}..{x[1]:.3g} m/s^2"))
    if len(bands) > 1 and len({f"{b.lo:.3g}..{b.hi:.3g}" for b in bands}) == 1:  # one range for every car, as
        # written: one grey band (two shaded over each other muddied into a third colour)
        lo, hi = min(b.lo for b in bands), max(b.hi for b in bands)
        bands = [Band(lo, hi, "x", "#888888", f"fit range {lo:.3g}..{hi:.3g} m/s^2")]
    return Chart("Steady-state circle: steer against lateral acceleration", "lateral acceleration [m/s^2]",
                 "road-wheel angle [deg]", series, bands=bands,
                 notes=["quasi-steady frames of the ramp up to the car's limit (on the circle, at the speed asked "
                        f"for): the mean road-wheel angle per {STEADY_BIN:g} m/s^2 of lateral acceleration"])


def step_window(run: RunData) -> tuple[float, float]:
    """The step steer's run from STEP_BEFORE before the step (ISO 7401's t = 0: the steer at half its final value) to
    STEP_AFTER after the yaw rate last leaves STEP_SETTLED of its steady state; the whole run when it has no step."""
    from workbench.manoeuvres.transient import step_response

    t, yaw = run.t, run["yaw_rate"]
    r = step_response(t, run["steer"], yaw, float(t[-1]))
    t0, steady = r["t0"], r["steady"]
    if t0 is None or not np.isfinite(steady) or steady == 0:
        return float(t[0]), float(t[-1])
    off = np.flatnonzero((t >= t0) & ~(np.abs(yaw / steady - 1.0) <= STEP_SETTLED))
    settled = float(t[off[-1]]) if len(off) else t0
    return max(float(t[0]), t0 - STEP_BEFORE), min(float(t[-1]), settled + STEP_AFTER)


def step_chart(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str], colours: Sequence[str]) -> Chart:
    """The yaw rate around the step, every car's window together: the run's 14 s of straight run-up before it and
    its last seconds at the steady state are not what the response times are read from. Time runs from each car's own
    t0 (ISO 7401's t = 0, the steer at half its final value), as the response times are read; the absolute time of
    the run where a car has no step."""
    from workbench.manoeuvres.transient import step_response

    responses = [step_response(run.t, run["steer"], run["yaw_rate"], float(run.t[-1])) for run in runs]
    aligned = bool(runs) and all(r["t0"] is not None for r in responses)
    shifts = [float(r["t0"]) if aligned else 0.0 for r in responses]
    windows = [(a - shift, b - shift) for (a, b), shift in zip((step_window(run) for run in runs), shifts, strict=True)]
    lo, hi = min(w[0] for w in windows), max(w[1] for w in windows)
    series = [within(Series(run.t - shift, run["yaw_rate"] * DEG, name, c), lo, hi)
              for run, name, c, shift in zip(runs, labels, colours, shifts, strict=True)]
    # The instants the response times are read from and at (the first car's): t0, the steer at half its final value,
    # and 90% of the steady yaw rate.
    lines = []
    if runs:
        r = responses[0]
        if r["t0"] is not None and np.isfinite(r["steady"]):
            lines = [Line(r["t0"] - shifts[0], "x", MARK_COLOUR, label="t0"),
                     Line(0.9 * r["steady"] * DEG, "y", MARK_COLOUR, label="90% of the steady state", label_at=0.95)]
    return Chart(m.title, "time from t0 [s]" if aligned else "time [s]", "yaw rate [deg/s]", series, lines=lines,
                 notes=[f"around the step: from {STEP_BEFORE:g} s before it (t0: the steer at half its final value) "
                        f"to {STEP_AFTER:g} s after the yaw rate settles within {100 * STEP_SETTLED:g}% of its "
                        "steady state"])


def brake_window(run: RunData) -> tuple[float, float]:
    """The braking in a turn's run from BRAKE_BEFORE before the brake onset to BRAKE_AFTER after the car stands (the
    run's end if it never does); the whole run when its driver has no onset."""
    from workbench.manoeuvres.braking import stop_time

    t = run.t
    onset = run.script.driver.until if run.script.driver is not None else None
    if onset is None:
        return float(t[0]), float(t[-1])
    stop = stop_time(t, run["speed"], onset)
    end = float(t[-1]) if stop is None else min(float(t[-1]), stop + BRAKE_AFTER)
    return max(float(t[0]), onset - BRAKE_BEFORE), end


def brake_turn_chart(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str], colours: Sequence[str]) -> Chart:
    """The yaw rate from just before the brake onset to standstill, with the onset t0 and t0 + 1 s (where the KPIs
    are read) marked. The whole run drew the run-up on the circle (22 s) and its start from rest through every corner
    of the plot, and the legend went over the curve."""
    windows = [brake_window(run) for run in runs]
    lo, hi = min(w[0] for w in windows), max(w[1] for w in windows)
    series = [within(Series(run.t, run["yaw_rate"] * DEG, name, c), lo, hi)
              for run, name, c in zip(runs, labels, colours, strict=True)]
    lines = []
    onset = runs[0].script.driver.until if runs[0].script.driver is not None else None
    if onset is not None:
        lines = [Line(onset, "x", label="t0 brake onset"), Line(onset + 1.0, "x", label="t0 + 1 s")]
    return Chart(m.title, "time [s]", "yaw rate [deg/s]", series, lines=lines,
                 notes=[f"from {BRAKE_BEFORE:g} s before the brake onset to {BRAKE_AFTER:g} s after the car stands"])


def road_load_fit(m: Manoeuvre, run: RunData) -> dict | None:
    """The coast-down the road-load KPIs describe: "t" [s] and "v" [m/s] of m_eff dv/dt = -(A + B v + C v^2) with
    the run's A, B, C (its KPIs: "a", "b", "c"), from the speed of the first frame the fit is on to the last; "m_eff"
    [kg]; "measured", the measured speeds of the fitted frames. None when the run gives no fit. The frames and m_eff
    are those of performance.road_load_frames, as the KPIs'."""
    kpis = {k.key: k.value for k in m.kpis(run)}
    a, b, c = (kpis.get(f"road_load_{x}") for x in "abc")
    if a is None or b is None or c is None:
        return None
    t, v = run.t, run["speed"]
    m_eff, mask, _ = road_load_frames(run)
    pick = np.flatnonzero(mask)
    if len(pick) < 2:
        return None
    times = t[pick[0]:pick[-1] + 1]
    speed = np.empty(len(times))
    speed[0] = v[pick[0]]

    def slope(x: float) -> float:
        return -(a + b * x + c * x * x) / m_eff

    for i in range(1, len(times)):  # Runge-Kutta, 4th order, on the run's frames
        h, x = times[i] - times[i - 1], speed[i - 1]
        k1 = slope(x)
        k2 = slope(x + 0.5 * h * k1)
        k3 = slope(x + 0.5 * h * k2)
        k4 = slope(x + h * k3)
        speed[i] = x + h * (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0
    return {"t": times, "v": speed, "a": a, "b": b, "c": c, "m_eff": m_eff, "measured": v[pick]}


def coastdown_chart(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str], colours: Sequence[str]) -> Chart:
    """The measured speed and, dashed beside it, the coast-down of the road-load fit the KPIs are (A + B v + C v^2
    integrated from the fit's first frame), the fitted frames shaded."""
    series, bands, notes = [], [], []
    for run, name, colour in zip(runs, labels, colours, strict=True):
        series.append(Series(run.t, run["speed"] * KMH, name, colour))
        fit = road_load_fit(m, run)
        if fit is None:
            notes.append(f"{name}: no road-load fit")
            continue
        # Dark, not the car's colour: the fit lies on the measured curve, and dashed in its colour it was not seen.
        series.append(Series(fit["t"], fit["v"] * KMH, f"{name}: fit A + B v + C v^2", FIT_COLOUR, dashed=True))
        # Cars fitted over the same frames share one band (two drew it darker, and twice in the legend).
        lo, hi = float(fit["t"][0]), float(fit["t"][-1])
        if not any((b.lo, b.hi) == (lo, hi) for b in bands):
            kmh = fit["measured"] * KMH
            bands.append(Band(lo, hi, "x", "#888888", f"fitted {kmh.min():.3g}..{kmh.max():.3g} km/h"))
        notes.append(f"{name}: A {fit['a']:.4g} N, B {fit['b']:.4g} N s/m, C {fit['c']:.4g} N s^2/m^2 "
                     f"(m_eff {fit['m_eff']:.5g} kg)")
    return Chart(m.title, "time [s]", "speed [km/h]", series, bands=bands, notes=notes)


def lane_change_runs(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str]) -> list[tuple[RunData, str]]:
    """Each car's run that its KPI reports, and what it is: the series of entry speeds is run again as the test runs
    it, and the run whose measured entry speed is the KPI's value (the fastest clean one) is drawn; where no run is
    clean, the first of the series (where it stopped). The script's own speed (50 km/h) was drawn, under a KPI of
    52 km/h."""
    from workbench.manoeuvres.lane_change import SPEEDS, at_speed, clean, cone_touches, fault, series_kpis
    from workbench.manoeuvres.runner import Car, run_jobs

    jobs = []
    for run, label in zip(runs, labels, strict=True):
        program = run.extra.get("program")
        car = Car(run.params, label) if program is None else \
            Car(program.preset_params or program.params, label, program.preset_path)
        jobs += [(at_speed(run.script, v), car) for v in SPEEDS]
    series = run_jobs(jobs, m.channels)
    out = []
    for i, label in enumerate(labels):
        mine = series[i * len(SPEEDS):(i + 1) * len(SPEEDS)]
        results = [cone_touches(r) for r in mine]
        (kpi,) = series_kpis(results)
        k = next((j for j, result in enumerate(results) if clean(result) and result[2] is not None
                  and kpi.value is not None and result[2] * KMH == kpi.value), None)
        if k is None:
            why = {"cone": "touches a cone", "lanes": "drives outside the lanes"}.get(fault(SPEEDS[0], results[0]),
                                                                                     "does not reach its speed")
            out.append((mine[0], f"{label}, {SPEEDS[0]:g} km/h: {why}"))
        else:
            out.append((mine[k], f"{label}, {SPEEDS[k]:g} km/h"))
    return out


def lane_change_chart(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str], colours: Sequence[str]) -> Chart:
    from workbench.scripts.courses import course_of

    shown = lane_change_runs(m, runs, labels)
    first = shown[0][0]
    course = course_of(first.script.driver.path, first.params)
    series = [Series(course.rows[:, 0], course.rows[:, 1], "driver's line", "#888888", dashed=True)]
    series += [Series(run["x"], run["y"], label, c) for (run, label), c in zip(shown, colours, strict=True)]
    lo, hi = course.cones[:, 0].min() - 10.0, course.cones[:, 0].max() + 10.0
    series = [within(s, lo, hi) for s in series]
    cones = [Marker(float(x), float(y), "", "#ff7f0e") for x, y in course.cones]
    return Chart("ISO 3888-2 course: path of the centre of mass and the cones", "x [m]", "y [m]", series,
                 markers=cones, notes=["each car's run of the KPI: the fastest set speed with it and every slower one "
                                       "clean"])


def charts_of(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str]) -> list[Chart]:
    return [finite_only(chart) for chart in _charts_of(m, runs, labels)]


def _charts_of(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str]) -> list[Chart]:
    colours = [PALETTE[i % len(PALETTE)] for i in range(len(runs))]
    if m.name == "iso7401_sweep":
        return bode_charts([m.bode(run) for run in runs], labels)
    if m.name == "iso4138":
        return [steady_state_chart(runs, labels, colours)]
    if m.name == "iso3888_2":
        return [lane_change_chart(m, runs, labels, colours)]
    if m.name == "iso7401_step":
        return [step_chart(m, runs, labels, colours)]
    if m.name == "iso7975":
        return [brake_turn_chart(m, runs, labels, colours)]
    if m.name == "coastdown":
        return [coastdown_chart(m, runs, labels, colours)]
    if m.name == "r140_swd":  # each car's run of its worst ratio, then its run of its least displacement
        n = len(labels)
        return [sine_dwell_chart(m, runs[:n], labels, colours[:n]),
                displacement_chart(m, runs[n:], labels, colours[:n])]
    if m.name in SPEED_MARKS:
        return [speed_chart(m, runs, labels, colours)]
    channel, label, scale = TIME_CHANNELS.get(m.name, ("speed", "speed [km/h]", KMH))
    series = [Series(run.t, run[channel] * scale, name, c) for run, name, c in zip(runs, labels, colours, strict=True)]
    return [Chart(m.title, "time [s]", label, series)]




def speed_chart(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str], colours: Sequence[str]) -> Chart:
    """Speed against time with what the test's KPIs are read at marked (the chart was the speed alone): the 0-100
    and 0-200 km/h thresholds, 80 and 120 km/h and the full throttle's instant of the in-gear test, and ISO 21994's
    brake onset and the speeds of its MFDD (0.8 and 0.1 of the onset's, UN R13-H Annex 3), of the first car's run,
    from shortly before the onset."""
    series = [Series(run.t, run["speed"] * KMH, name, c) for run, name, c in zip(runs, labels, colours, strict=True)]
    lines = [Line(v, "y", MARK_COLOUR, label=f"{v:g} km/h", label_at=0.05) for v in SPEED_MARKS[m.name]]
    notes = []
    first = runs[0] if runs else None
    if m.name == "elasticity" and first is not None:
        full = next((s.at for s in first.script.sets if s.analog.get("throttle_pedal") == 1.0), None)
        if full is not None:
            lines.append(Line(full, "x", MARK_COLOUR, label="full throttle"))
        notes.append("timed from full throttle to 120 km/h, in the gear held")
    if m.name == "acceleration":
        notes.append("timed from the start to each speed's crossing")
    if m.name == "iso21994" and first is not None:
        on = np.flatnonzero(first["brake"] > 0.0)
        if len(on):
            tb, v0 = float(first.t[on[0]]), float(first["speed"][on[0]]) * KMH
            lines.append(Line(tb, "x", MARK_COLOUR, label="brake onset"))
            lines += [Line(share * v0, "y", MARK_COLOUR, label=f"{share:g} v0", label_at=0.95) for share in (0.8, 0.1)]
            series = [within(s, tb - BRAKE_BEFORE, float(s.x[-1]) if len(s.x) else tb) for s in series]
            notes.append(f"MFDD between 0.8 and 0.1 of the speed at the brake's onset ({v0:.4g} km/h{', ' + labels[0] if len(runs) > 1 else ''}); "
                         "the stopping distance from the onset to rest")
    return Chart(m.title, "time [s]", "speed [km/h]", series, lines=lines, notes=notes)


def displacement_chart(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str], colours: Sequence[str]) -> Chart:
    """FMVSS 126 S5.2.3: the lateral displacement as S7.11.9 computes it (the lateral acceleration integrated twice
    from BOS) against the time from BOS, of each car's run of its least displacement of those of 5 A and up
    (SineWithDwell.chart_jobs), the instant judged (1.07 s) and the limit (the first car's) marked."""
    from workbench.manoeuvres.sine_dwell import DISPLACEMENT_AT, displacement_min, lateral_path, run_criteria

    series = []
    for run, name, colour in zip(runs, labels, colours, strict=True):
        robot = run.script.robot
        c = run_criteria(run)
        path = None if c["bos"] is None else lateral_path(run.t, run["accel_lat"], c["bos"],
                                                          min(DISPLACEMENT_AT + SWD_AFTER, float(run.t[-1]) - c["bos"]))
        if path is not None:
            when, moved = path
            # shown positive 1.07 s after BOS, whichever way the car went
            sign = 1.0 if np.interp(DISPLACEMENT_AT, when - c["bos"], moved) >= 0.0 else -1.0
            series.append(Series(when - c["bos"], sign * moved, f"{name}, {robot.get('amplitude'):.4g} deg", colour))
    limit = displacement_min(runs[0].params) if runs else 0.0
    lines = [Line(DISPLACEMENT_AT, "x", label=f"BOS + {DISPLACEMENT_AT:g} s"),
             Line(limit, "y", FAIL_MARK, label=f"{limit:g} m", label_at=0.05, kept=True)]
    return Chart(f"{m.title}: lateral displacement, each car's least of its runs of 5 A and up",
                 "time after BOS [s]", "lateral displacement [m]", series, lines=lines,
                 notes=[f"S7.11.9: the lateral acceleration at the centre of mass integrated twice from BOS; at least "
                        f"{limit:g} m {DISPLACEMENT_AT:g} s after it (S5.2.3); a car with no run of 5 A and up: its "
                        "largest, not judged"])


SWD_BEFORE = 0.5  # [s] the sine-with-dwell chart starts this long before the steer
SWD_AFTER = 0.5  # [s] and ends this long after the last point judged (1.75 s after COS)


def sine_dwell_chart(m: Manoeuvre, runs: Sequence[RunData], labels: Sequence[str], colours: Sequence[str]) -> Chart:
    """The yaw rate of each car's decisive run (its worst ratio 1.00 s after COS: SineWithDwell.chart_jobs) from just
    before the steer to just after the last point judged, COS and the two instants of S5.2.1/S5.2.2 marked (of the
    first car's run; the runs' COS differ by the steering's lag only). It was the script's own 120 deg run, over 19 s
    of the run-up."""
    from workbench.manoeuvres.sine_dwell import YAW_LIMITS, run_criteria

    lines, series, spans = [], [], []
    for i, (run, name, colour) in enumerate(zip(runs, labels, colours, strict=True)):
        robot = run.script.robot
        c = run_criteria(run)
        spans.append((robot.start - SWD_BEFORE, c["cos"] + YAW_LIMITS[-1][0] + SWD_AFTER))
        series.append(Series(run.t, run["yaw_rate"] * DEG, f"{name}, {robot.get('amplitude'):.4g} deg", colour))
        if i == 0:
            lines.append(Line(c["cos"], "x", label="COS"))
            lines += [Line(c["cos"] + after, "x", label=f"+{after:.2f} s") for after, _ in YAW_LIMITS]
            if c["psi_peak"] is not None:  # the limits as yaw rates of this run: a share of its reversed peak
                whose = f"{name}'s peak" if len(runs) > 1 else "the peak"  # the other cars' peaks are their own
                # The two limits are a few deg/s apart, and their labels overlapped: the larger one's label on its
                # side away from zero, the smaller one's on its side towards zero, and apart along the axis.
                largest = max(limit for _, limit in YAW_LIMITS)
                for k, (_, limit) in enumerate(YAW_LIMITS):
                    value = limit * c["psi_peak"] * DEG
                    lines.append(Line(value, "y", FAIL_MARK, label=f"{100 * limit:g}% of {whose}",
                                      below=value < 0 if limit == largest else value > 0, label_at=0.05 + 0.3 * k))
    lo, hi = min(a for a, _ in spans), max(b for _, b in spans)
    return Chart(f"{m.title}: each car's run of its worst yaw-rate ratio", "time [s]", "yaw rate [deg/s]",
                 [within(s, lo, hi) for s in series], lines=lines,
                 notes=["judged 1.00 and 1.75 s after COS (the handwheel back at zero): at most "
                        f"{' and '.join(f'{100 * limit:g}%' for _, limit in YAW_LIMITS)} of the reversed peak"])
