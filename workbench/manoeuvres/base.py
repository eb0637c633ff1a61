"""A handling test: its shipped script, the channels it reads, how it runs on cars and its KPIs.

A :class:`Manoeuvre` runs its shipped script (``presets/scripts/NAME.toml``, a script like any other:
it replays, records, compares and exports) on each car, and computes its KPIs from the run. A test
whose standard asks for several runs (a series of speeds or amplitudes, or a first run that finds
the amplitude of the next) overrides :meth:`Manoeuvre.run`; the runs of all cars of a stage go as
one batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workbench.manoeuvres.kpi import Kpi, RunData
from workbench.manoeuvres.runner import Car
from workbench.scripts.format import Script, load_script, resolve_script

Runner = Callable[[Sequence[tuple[Script, Car]]], list[RunData]]
"""Runs (script, car) jobs as one batch and returns their runs in the same order."""


class Manoeuvre:
    """One test of the catalogue."""

    name = ""  # what `carbench manoeuvre NAME` and a script's [script] manoeuvre call it
    title = ""
    standard = ""
    script = ""  # the shipped script it runs
    channels: tuple[str, ...] = ()
    conditions = 1
    """How many of its script's first [[expect]] entries state the test's conditions (the speed held or the line
    kept before the test's input): a run that does not meet them is no run of the test, and its KPIs get no verdict
    (physics of the car aside, a car that cannot reach the test's speed cannot be judged at it)."""
    input_rate_floor: float | None = None
    """[deg/s of handwheel] For a test with a steering robot: None where its standard prescribes the robot's profile
    itself (the steer the car gets must be it), else the slowest handwheel rate the standard allows (ISO 7401's step:
    200 deg/s). A car whose steering rate cannot give it gets a row that says so (`carbench manoeuvre`)."""
    lateral = True
    """Whether the test judges the car's handling, which a kinematic car (no tyres, no slip) does not have."""

    def base_script(self) -> Script:
        return load_script(resolve_script(self.script))

    def fits(self, script: Script) -> str | None:
        """Why this test's KPIs cannot be taken from ``script``'s run (a script tagged ``[script] manoeuvre`` with
        this test's name), or None: the script must drive as the test's shipped one does, with the same kind of
        driver path, a driver that lets go (``until``) where the shipped one does, and the same kind of steering
        robot; the values may differ."""
        want, got = shape(self.base_script()), shape(script)
        if want == got:
            return None
        return (f"{script.source}: [script] manoeuvre = {script.manoeuvre!r} needs a script that drives as "
                f"{self.script} does ({describe(want)}); this one has {describe(got)}")

    def script_for(self, script: Script, car: Car) -> Script:
        """The script as this test runs it on ``car`` (a test may fit it to the car: its gear, say)."""
        return script

    def chart_jobs(self, cars: Sequence[Car], runner: Runner) -> list[tuple[Script, Car]]:
        """The (script, car) runs a report draws for the cars: the script as the test runs it on each car (a test
        whose KPIs come from a run it derives, as the step steer scaled to its lateral acceleration, derives it)."""
        base = self.base_script()
        return [(self.script_for(base, car), car) for car in cars]

    def run(self, cars: Sequence[Car], runner: Runner, script: Script | None = None) -> list[list[Kpi]]:
        """Every car's KPIs: one run of the script each, as one batch."""
        script = script or self.base_script()
        return [self.kpis(run) for run in runner([(script, car) for car in cars])]

    def kpis(self, run: RunData) -> list[Kpi]:
        """The KPIs of one run of this test's script (what the window shows for the run on show)."""
        raise NotImplementedError


def shape(script: Script) -> tuple:
    """How a script drives, as far as a test's KPIs read it: its driver's path kind (None: no driver, "" no path),
    whether the driver lets go at ``until``, and its steering robot's kind (None: none)."""
    d, r = script.driver, script.robot
    path = None if d is None else ("" if d.path is None else d.path.kind)
    return path, d is not None and d.until is not None, None if r is None else r.kind


def describe(s: tuple) -> str:
    path, until, robot = s
    driver = ("no driver" if path is None else "a driver with no path" if path == ""
              else f"a driver on a path of kind {path!r}")
    return ", ".join([driver + (" that lets go at `until`" if until else ""),
                      "no steering robot" if robot is None else f"a {robot} steering robot"])
