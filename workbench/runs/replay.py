"""Deterministic headless replay: scripts through the vectorised model, judged by their expectations.

Scripts that can share a batch (same dt and the same model kind, drivetrain and unit) replay
together as one Simulation of N cars; each keeps its own inputs, parameter changes and verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from physics import ANALOG, KEYS, CarParams, Inputs, Simulation
from workbench.output.telemetry_log import TelemetryLog
from workbench.runs.measures import Measurement, measure_column, measure_unit
from workbench.scripts.format import Expect
from workbench.scripts.program import Program


@dataclass(frozen=True)
class Verdict:
    """One expectation judged: the value that decided it (the worst over a window) and pass or fail."""

    expect: Expect
    first: int
    last: int
    measured: float
    frame: int
    time: float
    unit: str
    passed: bool


@dataclass
class ReplayResult:
    """One script's replay: its telemetry (car ``car`` of ``log``) and its verdicts."""

    program: Program
    log: TelemetryLog
    car: int
    verdicts: list[Verdict]
    measurements: list[Measurement] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(v.passed for v in self.verdicts)

    def column(self, name: str) -> np.ndarray:
        return self.log.column(name, self.car, self.program.frames)

    def digest(self) -> str:
        return self.log.digest(self.car, self.program.frames)

    def csv_text(self) -> str:
        return self.log.csv_text(self.car, self.program.frames)


def batch_key(params: CarParams, dt: float) -> tuple:
    """Cars with equal keys can step in one batch."""
    gears = len(params.gearbox.ratios) if params.gearbox is not None else 0
    groups = tuple(getattr(params, g) is None for g in ("drive", "engine", "clutch", "gearbox", "tyres"))
    return (dt, params.kind, params.model.unit, params.model.reference, params.body.driven_axle, gears, groups)


def judge(expect: Expect, values: np.ndarray, first: int, last: int, dt: float, unit: str) -> Verdict:
    """Check ``values[first..last]`` against the bounds; the decisive value is the one nearest (or furthest past) a bound."""
    window = values[first:last + 1]
    lo = -np.inf if expect.min is None else expect.min
    hi = np.inf if expect.max is None else expect.max
    margin = np.minimum(window - lo, hi - window)
    j = int(np.argmin(margin))
    return Verdict(expect, first, last, float(window[j]), first + j, (first + j) * dt, unit, bool(margin[j] >= 0))


def replay(programs: Sequence[Program]) -> list[ReplayResult]:
    """Replay every program; results come back in the order given."""
    groups: dict[tuple, list[int]] = {}
    for i, program in enumerate(programs):
        key = batch_key(program.params, program.dt)
        if any(batch_key(params, program.dt) != key for _, params in program.param_changes):
            key = ("alone", i)  # its parameter changes reshape the car: it cannot share a batch
        groups.setdefault(key, []).append(i)
    results: list[ReplayResult | None] = [None] * len(programs)
    for members in groups.values():
        batch = [programs[i] for i in members]
        for i, result in zip(members, run_batch(batch), strict=True):
            results[i] = result
    return results  # type: ignore[return-value]


def run_batch(programs: Sequence[Program]) -> list[ReplayResult]:
    """Step programs of one batch key together and judge each."""
    n = len(programs)
    dt = programs[0].dt
    frames = max(p.frames for p in programs)
    cars = [p.params for p in programs]
    sim = Simulation(cars, dt=dt)
    track = _InputTrack(programs, frames)
    changes: dict[int, list[tuple[int, CarParams]]] = {}
    for i, p in enumerate(programs):
        for k, params in p.param_changes:
            changes.setdefault(k, []).append((i, params))
    log = TelemetryLog(cars[0].model.unit, n, capacity=frames)
    for k in range(frames):
        if k in changes:
            for i, params in changes[k]:
                cars[i] = params
            sim.set_cars(cars)
        log.record(sim.step(track.inputs(k)))
    results = []
    for i, p in enumerate(programs):
        units = {c.name: c.unit for c in log.infos}
        verdicts = [judge(e, log.column(e.channel, i, p.frames), first, last, dt, units[e.channel])
                    for e, (first, last) in zip(p.script.expects, p.windows, strict=True)]
        measurements = []
        for m, (first, last) in zip(p.script.measures, p.measure_windows, strict=True):
            value = measure_column(m, log.column(m.channel, i, p.frames), first, last, dt)
            measurements.append(Measurement(m, first, last, None if np.isnan(value) else value,
                                            measure_unit(m, units[m.channel])))
        results.append(ReplayResult(p, log, i, verdicts, measurements))
    return results


class _InputTrack:
    """Per-frame input arrays of a batch laid out so that frame k is a set of cheap views."""

    # inputs() below names the rows in this order.
    assert KEYS == ("throttle", "brake", "left", "right", "clutch", "handbrake", "gear_up", "gear_down")
    assert ANALOG == ("steer", "throttle_pedal", "brake_pedal", "clutch_pedal")

    def __init__(self, programs: Sequence[Program], frames: int):
        n = len(programs)
        keys = np.zeros((len(KEYS), frames, n), dtype=bool)
        on = np.zeros((len(ANALOG), frames, n), dtype=bool)
        value = np.zeros((len(ANALOG), frames, n))
        gear_on = np.zeros((frames, n), dtype=bool)
        gear_value = np.zeros((frames, n), dtype=np.int64)
        for i, p in enumerate(programs):
            keys[:, :p.frames, i] = p.keys.T
            on[:, :p.frames, i] = p.analog_on.T
            value[:, :p.frames, i] = p.analog_value.T
            gear_on[:p.frames, i] = p.gear_on
            gear_value[:p.frames, i] = p.gear_value
        self.keys, self.on, self.value = keys, on, value
        self.gear_on, self.gear_value = gear_on, gear_value

    def inputs(self, k: int) -> Inputs:
        keys, on, value = self.keys, self.on, self.value
        return Inputs(
            throttle=keys[0, k], brake=keys[1, k], left=keys[2, k], right=keys[3, k], clutch=keys[4, k],
            handbrake=keys[5, k], gear_up=keys[6, k], gear_down=keys[7, k],
            steer_on=on[0, k], steer_value=value[0, k], throttle_on=on[1, k], throttle_value=value[1, k],
            brake_on=on[2, k], brake_value=value[2, k], clutch_on=on[3, k], clutch_value=value[3, k],
            gear_on=self.gear_on[k], gear_value=self.gear_value[k],
        )
