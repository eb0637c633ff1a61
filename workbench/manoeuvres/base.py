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

    def base_script(self) -> Script:
        return load_script(resolve_script(self.script))

    def run(self, cars: Sequence[Car], runner: Runner, script: Script | None = None) -> list[list[Kpi]]:
        """Every car's KPIs: one run of the script each, as one batch."""
        script = script or self.base_script()
        return [self.kpis(run) for run in runner([(script, car) for car in cars])]

    def kpis(self, run: RunData) -> list[Kpi]:
        """The KPIs of one run of this test's script (what the window shows for the run on show)."""
        raise NotImplementedError
