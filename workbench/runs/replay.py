"""Deterministic headless replay: scripts through the compiled model, judged by their expectations.

Scripts that can share a batch (same dt and the same model kind, drivetrain and unit) replay
together as one Simulation of N cars; each keeps its own inputs, parameter changes and verdicts.
A batch's inputs go to the kernel as one (frames, N) array: one call per stretch of frames
between parameter changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from physics import ANALOG, KEYS, CarParams, Kernel, Simulation, channel_names
from physics.car import batch_layout
from physics.inputs import ANALOG_FIELDS
from physics.records import INPUTS
from workbench.output.telemetry_log import TelemetryLog
from workbench.runs.measures import Measurement, measure_column, measure_unit, script_channels
from workbench.scripts.driving import drivers_of
from workbench.scripts.format import Expect
from workbench.scripts.limits import run_bytes
from workbench.scripts.program import Program
from workbench.scripts.surfaces import ground_for

BLOCK = 4096  # frames between two calls of a replay's listener

Listener = Callable[[Sequence[int], TelemetryLog, int], None]
"""Called as frames are made: (indices of the programs in the batch, its log, frames done so far)."""


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
    return (dt, gears, tuple(sorted(batch_layout(params).items())))


def judge(expect: Expect, values: np.ndarray, first: int, last: int, dt: float, unit: str) -> Verdict:
    """Check ``values[first..last]`` against the bounds; the decisive value is the one nearest (or furthest past) a bound."""
    window = values[first:last + 1]
    lo = -np.inf if expect.min is None else expect.min
    hi = np.inf if expect.max is None else expect.max
    margin = np.minimum(window - lo, hi - window)
    j = int(np.argmin(margin))
    return Verdict(expect, first, last, float(window[j]), first + j, (first + j) * dt, unit, bool(margin[j] >= 0))


def batches(programs: Sequence[Program], padding: float | None = None) -> list[list[int]]:
    """The programs that replay together, as lists of indices (in the order given within a batch).

    A batch steps every car for its longest program's frames and holds that many frames of telemetry for each car.
    With ``padding``, the programs of one batch key are cut into batches, longest first, each holding at most
    ``padding`` times the frames its programs need (:data:`PADDING` for a replay): one long recording among short
    scripts made the whole batch that long, and `carbench replay` of an hour's recording beside the 46 shipped scripts
    (580,000 frames) asked for 7.5 million frames, 6.5 GiB, and was refused."""
    groups: dict[tuple, list[int]] = {}
    for i, program in enumerate(programs):
        key = batch_key(program.params, program.dt)
        if any(batch_key(params, program.dt) != key for _, params in program.param_changes):
            key = ("alone", i)  # its parameter changes reshape the car: it cannot share a batch
        groups.setdefault(key, []).append(i)
    if padding is None:
        return list(groups.values())
    out = []
    for members in groups.values():
        cut: list[list[int]] = []
        held = 0  # the frames the last batch's programs need
        for i in sorted(members, key=lambda i: -programs[i].frames):  # longest first, in order among equals
            frames = programs[i].frames
            if cut and programs[cut[-1][0]].frames * (len(cut[-1]) + 1) <= padding * (held + frames):
                cut[-1].append(i)
                held += frames
            else:
                cut.append([i])
                held = frames
        out.extend(sorted(batch) for batch in cut)
    return out


PADDING = 1.5
"""A replay's batch holds at most this many times the frames its scripts need (:func:`batches`)."""


def replay_bytes(programs: Sequence[Program]) -> tuple[int, int]:
    """(frames, bytes): what replaying ``programs`` allocates for telemetry and inputs, known before it runs."""
    frames = total = 0
    for members in batches(programs, PADDING):
        batch = [programs[i] for i in members]
        longest = max(p.frames for p in batch)
        frames += longest * len(batch)
        total += run_bytes(longest, len(channel_names(batch[0].params.model.unit)), len(batch))
    return frames, total


def replay(programs: Sequence[Program], listener: Listener | None = None,
           kernel: Kernel | None = None) -> list[ReplayResult]:
    """Replay every program (on ``kernel``, the shipped model by default); results come back in the order given.

    ``listener`` (if given) is called every :data:`BLOCK` frames of each batch and at its end, so
    that telemetry can be streamed out (CSV) and progress shown while a long replay runs.
    """
    results: list[ReplayResult | None] = [None] * len(programs)
    for members in batches(programs, PADDING):
        batch = [programs[i] for i in members]
        relay = None if listener is None else (lambda log, done, members=members: listener(members, log, done))
        for i, result in zip(members, run_batch(batch, relay, kernel), strict=True):
            results[i] = result
    return results  # type: ignore[return-value]


def run_batch(programs: Sequence[Program], listener: Callable[[TelemetryLog, int], None] | None = None,
              kernel: Kernel | None = None, channels: Sequence[str] | None = None) -> list[ReplayResult]:
    """Step programs of one batch key together and judge each; ``listener(log, frames done)`` as frames are made.

    The kernel runs a block of frames per call: up to the next parameter change, or :data:`BLOCK`
    frames, whichever comes first, into one reused block of telemetry. ``channels`` (every channel
    when None) are the channels the log keeps, besides the time and what the scripts' expectations
    and measures read: a hunt's batch keeps what its monitors read.
    """
    n = len(programs)
    dt = programs[0].dt
    frames = max(p.frames for p in programs)
    cars = [p.params for p in programs]
    drivers, track = drivers_of([p.drive for p in programs])
    sim = Simulation(cars, dt=dt, kernel=kernel, drivers=drivers, track=track, **ground_for(programs))
    track = _InputTrack(programs, frames)
    changes: dict[int, list[tuple[int, CarParams]]] = {}
    for i, p in enumerate(programs):
        for k, params in p.param_changes:
            changes.setdefault(k, []).append((i, params))
    if channels is not None:
        channels = list(dict.fromkeys(["t", *channels, *(c for p in programs for c in script_channels(p.script))]))
    log = TelemetryLog(cars[0].model.unit, n, capacity=frames, channels=channels)
    buffer = log.block(min(frames, BLOCK))
    cuts = sorted({k for k in changes if 0 < k < frames} | set(range(BLOCK, frames, BLOCK))) + [frames]
    start = 0
    for end in cuts:
        block = buffer[:end - start]
        sim.run(track.records[start:end], block, channels=log.asked)
        log.commit(block)
        if end in changes:
            for i, params in changes[end]:
                cars[i] = params
            sim.set_cars(cars)
        if listener is not None and (end % BLOCK == 0 or end == frames):
            listener(log, end)
        start = end
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


def input_fields(program: Program) -> list[tuple[str, np.ndarray]]:
    """The INPUTS fields a program ever sets, each with its value per frame.

    A field that stays zero on every frame is left out: inputs start as zeros, so writing it is
    work for nothing (a car whose controls only the driver works has none at all).
    """
    p = program
    sources = [(key, p.keys[:, j]) for j, key in enumerate(KEYS)]
    for j, name in enumerate(ANALOG):
        field = ANALOG_FIELDS[name]
        sources += [(f"{field}_on", p.analog_on[:, j]), (f"{field}_value", p.analog_value[:, j])]
    sources += [("gear_on", p.gear_on), ("gear_value", p.gear_value)]
    return [(name, values) for name, values in sources if values.any()]


class _InputTrack:
    """Per-frame inputs of a batch as one (frames, N) record array of physics.records.INPUTS."""

    def __init__(self, programs: Sequence[Program], frames: int):
        n = len(programs)
        self.records = np.zeros((frames, n), dtype=INPUTS)
        for i, p in enumerate(programs):
            column = self.records[:p.frames, i]
            for name, values in input_fields(p):
                column[name] = values

    def inputs(self, k: int) -> np.ndarray:
        """Frame ``k``'s inputs, (N,) records (Simulation.step takes them)."""
        return self.records[k]


