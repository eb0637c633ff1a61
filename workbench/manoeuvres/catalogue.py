"""The catalogue of handling tests, by name."""

from __future__ import annotations

from workbench.manoeuvres.base import Manoeuvre
from workbench.manoeuvres.braking import BrakingInATurn, StraightBraking
from workbench.manoeuvres.lane_change import ObstacleAvoidance
from workbench.manoeuvres.listing import NAMES
from workbench.manoeuvres.performance import Acceleration, CoastDown, InGear
from workbench.manoeuvres.sine_dwell import SineWithDwell
from workbench.manoeuvres.steady_state import SteadyStateCircle
from workbench.manoeuvres.transient import FrequencyResponse, StepSteer

CATALOGUE: dict[str, Manoeuvre] = {m.name: m for m in (
    SteadyStateCircle(), StepSteer(), FrequencyResponse(), SineWithDwell(), ObstacleAvoidance(), BrakingInATurn(),
    StraightBraking(), Acceleration(), InGear(), CoastDown())}
if tuple(CATALOGUE) != NAMES:
    raise ImportError(f"workbench.manoeuvres.listing.NAMES must list the catalogue's tests: {', '.join(CATALOGUE)}")


def manoeuvre(name: str) -> Manoeuvre:
    """The test called ``name`` (its own name, or its shipped script's); KeyError lists the known ones."""
    for m in CATALOGUE.values():
        if name in (m.name, m.script):
            return m
    raise KeyError(f"unknown manoeuvre {name!r}; the manoeuvres are: {', '.join(CATALOGUE)}")


def fitting(script) -> Manoeuvre | None:
    """The test whose KPIs a script's run gives (its [script] manoeuvre), or None when it names none; ScriptError
    when it names one that is not a test, or a test its run cannot give the KPIs of (Manoeuvre.fits)."""
    from workbench.scripts.format import ScriptError

    name = getattr(script, "manoeuvre", None)
    if not name:
        return None
    try:
        test = manoeuvre(name)
    except KeyError as exc:
        raise ScriptError(f"{script.source}: [script] manoeuvre: {exc.args[0]}") from None
    problem = test.fits(script)
    if problem:
        raise ScriptError(problem)
    return test
