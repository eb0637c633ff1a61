"""A sweep of a handling test's script: every car through the test, its KPIs as the sweep's measures.

The cars' runs of the script go through the manoeuvre runner (only the channels the KPIs, the
expectations and the measures read are kept); the expectations and measures are judged on those
runs with the replay's own arithmetic, so a test that needs only its script's run steps each car
once. A test whose standard asks for more runs (a series of speeds or amplitudes) runs them too.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from workbench.manoeuvres.base import Manoeuvre
from workbench.manoeuvres.catalogue import fitting
from workbench.manoeuvres.kpi import CONDITIONS
from workbench.manoeuvres.manoeuvre_command import checked_channels, lag_condition, robot_lag, unmet_condition
from workbench.manoeuvres.runner import DEFAULT_CHUNK, Car, run_jobs
from workbench.runs.measures import bounds, measure_column
from workbench.runs.sweep import Plan, Progress, SweepResult, car_with

PIECE_BYTES = 256 * 2**20
"""What one piece of a handling test's sweep may hold of its cars' runs: a piece has fewer cars than the chunk when
the script's frames and channels would pass this (a long script)."""


def piece_cars(frames: int, channels: int, chunk: int) -> int:
    """Cars per piece: at most ``chunk``, and no more than PIECE_BYTES of runs of ``frames`` frames of ``channels``
    float64 channels (and the time) each; at least one."""
    return max(1, min(chunk, PIECE_BYTES // (8 * max(frames, 1) * (channels + 1))))


class _Cancelled(Exception):
    """A cancel asked for while a test's series ran (:func:`run_test_sweep`'s ``cancelled``)."""


def run_test_sweep(plan: Plan, chunk: int = DEFAULT_CHUNK, progress: Progress | None = None,
                   cancelled: Callable[[], bool] | None = None) -> SweepResult | None:
    """Every car of ``plan`` through its script's handling test: verdicts, measures and the test's KPIs.

    The cars go through in pieces of ``chunk`` (fewer for a long script: :func:`piece_cars`): each piece's runs are
    reduced to their verdicts, measures and KPIs and let go before the next piece runs, so the memory a sweep holds
    does not grow with its cars (a run keeps every frame of the channels its KPIs read: 3,000 cars of the ISO 4138
    circle peaked at 3.07 GB when every run was kept to the end, and at 1.05 GB in pieces). The budget counts the
    script's own run; a test that runs a series of its own (the lane change at every speed) holds a piece's series
    too. A car's figures do not depend on the piece it runs in.
    ``progress(cars_done, cars, car_steps_done, car_steps, seconds)`` is told after every piece (the car-steps to
    come extrapolated from those done: a test with runs of its own steps each car more than once).
    ``cancelled()`` is asked before each piece and before each batch of a test's series: a cancelled sweep returns None
    (the window's Sweep dock, which runs pieces of a few cars so that it answers within seconds).
    """
    began = time.perf_counter()
    program = plan.program
    script = program.script
    test = fitting(script)  # ScriptError for a tagged script the test cannot take its KPIs from
    paths = [a.path for a in plan.axes]
    values = plan.si_values()
    channels = list(dict.fromkeys([*test.channels, *(e.channel for e in script.expects),
                                   *(m.channel for m in script.measures), *(["steer"] if script.robot else [])]))
    e, m, n = len(script.expects), len(script.measures), plan.cars
    expect_value, expect_margin = np.zeros((e, n)), np.zeros((e, n))
    measure_value = np.full((m, n), np.nan)
    per_car: list = []
    valid = np.ones(n, dtype=bool)
    unmet: set[int] = set()  # id() of the piece's cars one of whose series' runs missed the test's conditions
    steps = 0
    piece = piece_cars(program.frames, len(channels), chunk)
    for first_car in range(0, n, piece):
        if cancelled is not None and cancelled():
            return None
        unmet.clear()  # by id(): a car of an earlier piece is gone, and a new one may have its id
        cars = [Car(car_with(program.params, paths, row), program.preset, program.preset_path)
                for row in values[first_car:first_car + piece]]
        # At the plan's dt (the sweep's --dt, else the script's): the expectation windows are the plan's frames.
        runs = run_jobs([(script, car) for car in cars], channels, chunk, dt=program.dt)
        steps += sum(len(r.t) for r in runs)
        if type(test).run is Manoeuvre.run:  # the test is its script's one run: its KPIs come from these runs
            per_car.extend(test.kpis(run) for run in runs)
        else:
            counted = []

            def runner(jobs, counted=counted):
                if cancelled is not None and cancelled():  # between the series' batches too: a piece's series is long
                    raise _Cancelled
                # Each run of the test's series is held to its script's conditions, as `carbench manoeuvre` holds them
                # (the sine with dwell's slowly increasing steer and every amplitude's run at 80 km/h).
                done = run_jobs(jobs, checked_channels(test, jobs), chunk, dt=program.dt)
                for (_, car), run in zip(jobs, done, strict=True):
                    if unmet_condition(run, test.conditions) or lag_condition(test, robot_lag(run)):
                        unmet.add(id(car))
                counted.append(sum(len(r.t) for r in done))
                return done

            try:
                per_car.extend(test.run(cars, runner, script))
            except _Cancelled:
                return None
            steps += sum(counted)
        for i, run in enumerate(runs, start=first_car):
            for j, (expect, (first, last)) in enumerate(zip(script.expects, program.windows, strict=True)):
                window = run[expect.channel][first:last + 1]
                lo, hi = bounds(expect)
                margin = np.minimum(window - lo, hi - window)
                k = int(np.argmin(margin))
                expect_value[j, i], expect_margin[j, i] = window[k], margin[k]
            # A car whose runs did not meet the test's conditions (each script's first expectations) gets no verdict on
            # its KPIs, as `carbench manoeuvre` gives none: it fails on the conditions.
            valid[i] = (bool((expect_margin[:test.conditions, i] >= 0).all()) and id(cars[i - first_car]) not in unmet
                        and not lag_condition(test, robot_lag(run)))  # the script's own run's steering input too
            for j, (measure, (first, last)) in enumerate(zip(script.measures, program.measure_windows,
                                                             strict=True)):
                measure_value[j, i] = measure_column(measure, run[measure.channel], first, last, program.dt)
        del runs  # this piece's frames go before the next piece runs
        if progress is not None:
            done = min(first_car + piece, n)
            progress(done, n, steps, round(steps * n / done), time.perf_counter() - began)
    keys = list(dict.fromkeys(k.key for kpis in per_car for k in kpis if k.key not in ("not_run", CONDITIONS)))
    first_of = {k.key: k for kpis in per_car for k in kpis}
    kpi_value = np.full((len(keys), n), np.nan)
    kpi_passed = np.full((len(keys), n), np.nan)
    for i, kpis in enumerate(per_car):
        for k in kpis:
            if k.key in keys and k.value is not None:
                kpi_value[keys.index(k.key), i] = k.value
            if k.key in keys and k.passed is not None and valid[i]:
                kpi_passed[keys.index(k.key), i] = float(k.passed)
    # A limit may depend on the car (FMVSS 126's lateral displacement: 1.52 m above 3,500 kg, else 1.83 m): each one
    # the cars were judged against, in the order met.
    limits = tuple(" or ".join(dict.fromkeys(k.limit for kpis, ok in zip(per_car, valid, strict=True) if ok
                                             for k in kpis if k.key == key and k.limit)) or None for key in keys)
    # The limit as a number, where the cars judged were all held to one (a line on the KPI's chart).
    numeric = []
    for key in keys:
        held = {k.bound for kpis, ok in zip(per_car, valid, strict=True) if ok for k in kpis if k.key == key and k.limit}
        numeric.append(held.pop() if len(held) == 1 else None)
    names = tuple((first_of[key].label, first_of[key].unit) for key in keys)
    # The test's conditions, met or not, as a row of verdicts without a value: by the script's conditions and each
    # series run's (above), and by a test's own (the sine with dwell's car that cannot reach 0.3 g).
    own = [next((k.passed for k in kpis if k.key == CONDITIONS), None) for kpis in per_car]
    if not valid.all() or any(o is False for o in own):
        met = np.array([v and o is not False for v, o in zip(valid, own, strict=True)], dtype=float)
        keys.append(CONDITIONS)
        names += (("the test's conditions", ""),)
        limits += ("met",)
        numeric.append(None)
        kpi_value = np.vstack([kpi_value, np.full((1, n), np.nan)])
        kpi_passed = np.vstack([kpi_passed, met[None]])
    return SweepResult(plan, expect_value, expect_margin, measure_value, steps, time.perf_counter() - began,
                       names, kpi_value, limits, kpi_passed, tuple(keys), tuple(numeric))
