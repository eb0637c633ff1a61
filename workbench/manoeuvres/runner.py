"""Runs of a manoeuvre's scripts on many cars at once, keeping only the channels its KPIs read.

A job is a script and a car; the jobs are compiled, grouped into batches as ``replay`` groups them
(same dt and model kind), cut into chunks of at most ``chunk`` cars, and each chunk steps as one
Simulation through blocks of frames. Of each block only the asked channels are kept, so a sweep of
a thousand cars holds a few channels, not the whole telemetry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from physics import CarParams, Kernel, Preset, Simulation
from physics.records import INPUTS, TELEMETRY
from workbench.manoeuvres.kpi import RunData
from workbench.runs.replay import batches, input_fields
from workbench.scripts.driving import drivers_of
from workbench.scripts.format import Script, ScriptError
from workbench.scripts.program import Program, compile_script
from workbench.scripts.surfaces import ground_for

BLOCK = 32  # frames per kernel call: a block of 512 cars' telemetry is then 13 MB, and is read back while
# it is still in the cache (at 128 frames, 53 MB, copying the channels out took longer than stepping)
DEFAULT_CHUNK = 512  # cars per batch


@dataclass(frozen=True)
class Car:
    """A car to test: its parameters and the preset they come from (for scripts that name files beside it)."""

    params: CarParams
    name: str = "car"
    path: object = None

    def preset(self) -> Preset:
        return Preset(self.name, self.path, self.params)


def compile_jobs(jobs: Sequence[tuple[Script, Car]], dt: float | None = None) -> list[Program]:
    """Every job's program, at ``dt`` (the script's own when None; ScriptError names the script and the car that
    refuses it)."""
    programs = []
    for script, car in jobs:
        if car.params.model.unit != "m":
            raise ScriptError(f"{script.source}: the {car.name} car measures lengths in {car.params.model.unit}; "
                              "the handling tests' speeds, radii and cones are in metres")
        program = compile_script(script, car.preset(), dt)
        if program.param_changes:
            raise ScriptError(f"{script.source}: a manoeuvre's script changes no parameters after frame 0")
        programs.append(program)
    return programs


def run_jobs(jobs: Sequence[tuple[Script, Car]], channels: Sequence[str], chunk: int = DEFAULT_CHUNK,
             kernel: Kernel | None = None, dt: float | None = None) -> list[RunData]:
    """Run every job (at ``dt``, the scripts' own when None); each result holds ``channels`` (and t) of its own
    frames."""
    return run_programs(compile_jobs(jobs, dt), channels, chunk, kernel)


def run_programs(programs: Sequence[Program], channels: Sequence[str], chunk: int = DEFAULT_CHUNK,
                 kernel: Kernel | None = None) -> list[RunData]:
    names = list(dict.fromkeys(channels))
    for name in ["t", *names]:
        if name not in TELEMETRY.names:
            raise ValueError(f"unknown channel {name!r}")
    names = [name for name in names if name != "t"]  # the frames' times are known without the kernel
    results: list[RunData | None] = [None] * len(programs)
    for members in batches(programs):
        for first in range(0, len(members), chunk):
            part = members[first:first + chunk]
            columns = _run_chunk([programs[i] for i in part], names, kernel)
            for j, i in enumerate(part):
                p = programs[i]
                # Rows of the chunk's car-major arrays: views, not copies (they share the chunk's memory).
                data = {"t": np.arange(p.frames) * p.dt, **{name: columns[name][j, :p.frames] for name in names}}
                results[i] = RunData(data, p.dt, p.params, p.script, {"program": p})
    return results  # type: ignore[return-value]


def _run_chunk(programs: Sequence[Program], names: list[str], kernel: Kernel | None) -> dict[str, np.ndarray]:
    """Step one batch of cars; each channel of ``names`` as a (cars, frames) array."""
    n = len(programs)
    frames = max(p.frames for p in programs)
    drivers, track = drivers_of([p.drive for p in programs])
    sim = Simulation([p.params for p in programs], dt=programs[0].dt, kernel=kernel, drivers=drivers, track=track,
                     **ground_for(programs))
    # Inputs a block at a time, and only the fields a script sets: a driven car's are all zero.
    sources = [(j, p.frames, fields) for j, p in enumerate(programs) if (fields := input_fields(p))]
    length = min(frames, BLOCK)
    inputs = np.zeros((length, n), dtype=INPUTS)
    asked = names or ["t"]  # only the channels asked for are stored
    block = np.empty((length, n, len(asked)))
    out = {name: np.empty((n, frames)) for name in names}
    for start in range(0, frames, BLOCK):
        end = min(start + BLOCK, frames)
        for j, last, fields in sources:
            column = inputs[:end - start, j]
            stop = min(max(last - start, 0), end - start)  # past its own end a car's inputs are zero
            for name, values in fields:
                column[name][:stop] = values[start:start + stop]
                column[name][stop:] = 0
        telemetry = block[:end - start]
        sim.run(inputs[:end - start], telemetry, channels=asked)
        for j, name in enumerate(names):
            out[name][:, start:end] = telemetry[:, :, j].T
    return out
