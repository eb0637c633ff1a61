"""The physics API: N cars at a fixed timestep, stepped with inputs, read by channel name."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from . import records
from .car import Car, prepare
from .inputs import Inputs
from .kernel import Kernel, Workspace, default_kernel
from .params import CarParams
from .path import COLUMNS as PATH_COLUMNS
from .state import initial_state
from .surface import COLUMNS as SURFACE_COLUMNS
from .telemetry import ChannelInfo, TelemetryFrame, channel_infos, check_channel

DEFAULT_DT = 1.0 / 120.0
MAX_DT = 0.05
BLOCK_FRAMES = 4096  # frames per kernel call in run(): bounds the telemetry held at once for large batches


def check_dt(dt: float) -> float:
    """The timestep as a float, or ValueError when it is not in (0, 0.05] s."""
    if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not math.isfinite(dt) or not 0 < dt <= MAX_DT:
        raise ValueError(f"dt = {dt!r}: the timestep must be a number in (0, {MAX_DT}] s")
    return float(dt)


class Simulation:
    """A batch of cars stepped at a fixed dt by the compiled kernel.

    >>> from physics import Simulation, Inputs, load_preset
    >>> sim = Simulation(load_preset("sedan").params, n=1)
    >>> telemetry = sim.step(Inputs.from_keys(1, {"throttle"}))
    >>> sim.channel("rpm"), sim.channel_info("rpm").unit

    ``step`` advances one frame (the interactive car); ``run`` advances a block of frames whose
    inputs are given as a record array (frames, N) of physics.records.INPUTS. A batch of one car
    runs the serial compilation of the kernel, larger batches the parallel one (``parallel``
    overrides). ``kernel`` is the compiled model, physics.build_kernel(...) for a variant.
    A NonFiniteError stops the run; reset() before going on. ``drivers`` and ``track`` give the cars
    closed-loop drivers (see :meth:`set_drivers`), ``ground`` and ``ground_index`` road surfaces
    (see :meth:`set_ground`).
    """

    def __init__(self, cars: CarParams | Sequence[CarParams], n: int | None = None, dt: float = DEFAULT_DT,
                 kernel: Kernel | None = None, parallel: bool | None = None, drivers: np.ndarray | None = None,
                 track: np.ndarray | None = None, ground: np.ndarray | None = None,
                 ground_index: np.ndarray | None = None):
        self.dt = check_dt(dt)
        self.car: Car = prepare(cars, n)
        self.kernel = kernel if kernel is not None else default_kernel()
        self.parallel = parallel
        self.frame = 0
        self._state = initial_state(self.car.n, self.car.idle_rpm)
        self.telemetry: TelemetryFrame | None = None
        self._inputs = np.empty((1, self.car.n), dtype=records.INPUTS)
        self._work = Workspace(self.car.n)
        self.drivers: np.ndarray | None = None
        self.track: np.ndarray | None = None
        if drivers is not None:
            self.set_drivers(drivers, track)
        self.ground: np.ndarray | None = None
        self.ground_index: np.ndarray | None = None
        if ground is not None:
            self.set_ground(ground, ground_index)

    def set_ground(self, ground: np.ndarray | None, index: np.ndarray | None = None) -> None:
        """Lay road surfaces under the cars from the next step on: the rows of their polygons (physics.surface)
        and each car's (first row, row count) in them (all of them for every car when None); None takes
        them away."""
        if ground is None:
            self.ground = self.ground_index = None
            return
        ground = np.ascontiguousarray(ground, dtype=np.float64).reshape(-1, SURFACE_COLUMNS)
        if index is None:
            index = np.tile(np.array([0, len(ground)], dtype=np.int64), (self.car.n, 1))
        index = np.ascontiguousarray(index, dtype=np.int64).reshape(self.car.n, 2)
        if np.any(index < 0) or np.any(index.sum(axis=1) > len(ground)):
            raise ValueError(f"ground_index: a car's surfaces reach past the ground's {len(ground)} rows")
        if not len(ground):
            ground = np.zeros((1, SURFACE_COLUMNS))
        self.ground, self.ground_index = ground, index

    def set_drivers(self, drivers: np.ndarray | None, track: np.ndarray | None = None) -> None:
        """Drive the cars from the next step on: (N,) physics.records.DRIVER records and the rows of
        their paths and profiles (physics.path); None takes every driver away."""
        if drivers is None:
            self.drivers = self.track = None
            return
        drivers = np.ascontiguousarray(drivers, dtype=records.DRIVER).reshape(self.car.n)
        track = np.zeros((2, len(PATH_COLUMNS))) if track is None else np.ascontiguousarray(track, dtype=float)
        rows = len(track)
        for name in ("path", "profile"):
            start, count = drivers[f"{name}_start"], drivers[f"{name}_count"]
            if np.any((count > 0) & ((start < 0) | (start + count > rows))):
                raise ValueError(f"drivers: a {name} reaches past the track's {rows} rows")
        if np.any(drivers["path_count"] == 1):
            raise ValueError("drivers: a path needs at least two rows")
        self.drivers, self.track = drivers, track

    @property
    def state(self) -> np.recarray:
        """The state of every car, (N,) records of physics.records.STATE (``sim.state.vx``); a view."""
        return self._state.view(np.recarray)

    def restore(self, state: np.ndarray, frame: int) -> None:
        """Put every car back into ``state`` (records as :attr:`state` gives them) at the start of ``frame``."""
        self._state[...] = state
        self.frame = int(frame)
        self.telemetry = None

    @property
    def n(self) -> int:
        return self.car.n

    @property
    def cars(self) -> tuple[CarParams, ...]:
        return self.car.cars

    def _parallel(self) -> bool:
        return self.car.n > 1 if self.parallel is None else self.parallel

    def reset(self) -> None:
        """Back to rest at the origin, frame 0, keeping the parameters."""
        self.frame = 0
        self._state = initial_state(self.car.n, self.car.idle_rpm)
        self.telemetry = None

    def step(self, inputs: Inputs | None = None) -> TelemetryFrame:
        """Advance one frame with ``inputs`` (no keys when None); returns that frame's telemetry.

        ``inputs`` is an Inputs, or (N,) records of physics.records.INPUTS. The telemetry gives
        every channel as an array over the N cars (``telemetry.rpm``).
        """
        if inputs is None:
            self._inputs[...] = np.zeros((), dtype=records.INPUTS)
        elif isinstance(inputs, np.ndarray):  # one frame of INPUTS records, e.g. a row of a script's inputs
            if inputs.dtype != records.INPUTS:
                raise TypeError("inputs: expected an Inputs or physics.records.INPUTS records")
            self._inputs[0] = inputs
        else:
            records.inputs_records(inputs, self._inputs)
        out = np.empty((1, self.car.n), dtype=records.TELEMETRY)
        self.kernel.run(self.car.records, self._state, self._inputs, out, self.dt, self.frame, self._parallel(),
                        self._work, check=False, drivers=self.drivers, track=self.track, ground=self.ground,
                        ground_index=self.ground_index)
        self.frame += 1
        self.telemetry = TelemetryFrame(out[0])
        return self.telemetry

    def run(self, inputs: np.ndarray, telemetry: np.ndarray | None = None) -> np.ndarray:
        """Advance ``len(inputs)`` frames; ``inputs`` is (frames, N) of INPUTS. Returns the telemetry, (frames, N).

        ``telemetry`` is written in place when given (C-contiguous, (frames, N) of TELEMETRY).
        """
        frames = inputs.shape[0]
        if inputs.dtype != records.INPUTS or inputs.shape[1:] != (self.car.n,):
            raise ValueError(f"inputs: expected ({frames}, {self.car.n}) records of physics.records.INPUTS")
        inputs = np.ascontiguousarray(inputs)
        if telemetry is None:
            telemetry = np.empty((frames, self.car.n), dtype=records.TELEMETRY)
        for start in range(0, frames, BLOCK_FRAMES):
            end = min(start + BLOCK_FRAMES, frames)
            self.kernel.run(self.car.records, self._state, inputs[start:end], telemetry[start:end], self.dt,
                            self.frame, self._parallel(), self._work, drivers=self.drivers, track=self.track,
                            ground=self.ground, ground_index=self.ground_index)
            self.frame += end - start
        if frames:
            self.telemetry = TelemetryFrame(telemetry[frames - 1])
        return telemetry

    def set_cars(self, cars: CarParams | Sequence[CarParams]) -> None:
        """Replace the parameters from the next step on (same batch size and kind); the state is kept."""
        car = prepare(cars, self.car.n if isinstance(cars, CarParams) else None)
        if car.n != self.car.n:
            raise ValueError(f"{car.n} cars given for a batch of {self.car.n}")
        problem = self.car.cars[0].swap_problem(car.cars[0])
        if problem:
            raise ValueError(problem)
        self.car = car
        if car.manual:  # a gearbox that lost gears keeps the car in its new top gear
            self._state["gear"] = np.minimum(self._state["gear"], car.top_gear)

    def set_param(self, path: str, value, index: int | None = None) -> None:
        """Change one parameter (of every car, or of car ``index``) from the next step on, validated."""
        cars = list(self.car.cars)
        targets = range(len(cars)) if index is None else [index]
        for i in targets:
            cars[i] = cars[i].with_value(path, value)
        self.set_cars(cars)

    @property
    def channels(self) -> list[ChannelInfo]:
        """Every channel this batch exposes, with units in its presets' unit of length."""
        return channel_infos(self.car.unit)

    def channel_info(self, name: str) -> ChannelInfo:
        return check_channel(name, self.car.unit)

    def channel(self, name: str) -> np.ndarray:
        """The last frame's value of channel ``name`` for every car (UnknownChannelError if unknown)."""
        check_channel(name, self.car.unit)
        if self.telemetry is None:
            raise RuntimeError("no frame yet: call step() first")
        return self.telemetry[name]
