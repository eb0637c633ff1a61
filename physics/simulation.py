"""The physics API: N cars at a fixed timestep, stepped with inputs, read by channel name."""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Sequence

import numpy as np

from . import records
from .car import Car, prepare
from .inputs import Inputs, RecordedInputs, input_record
from .kernel import Kernel, Workspace, channel_indices, default_kernel, raise_fault
from .params import CarParams
from .path import COLUMNS as PATH_COLUMNS
from .state import initial_state
from .surface import COLUMNS as SURFACE_COLUMNS
from .telemetry import ChannelInfo, TelemetryFrame, channel_infos, check_channel

DEFAULT_DT = 1.0 / 120.0
MAX_DT = 0.05
BLOCK_FRAMES = 4096  # frames per kernel call in run(): bounds the telemetry held at once for large batches
STEP_RING = 4  # telemetry records step() writes in turn (2 when that much telemetry passes 64 kB)


def check_dt(dt: float) -> float:
    """The timestep as a float, or ValueError when it is not in (0, 0.05] s."""
    if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not math.isfinite(dt) or not 0 < dt <= MAX_DT:
        raise ValueError(f"dt = {dt!r}: the timestep must be a number in (0, {MAX_DT}] s")
    return float(dt)


_TELEMETRY_BYTES = records.TELEMETRY.itemsize


def _telemetry_slot(n: int) -> tuple:
    """One telemetry record of step(): the (1, N, channels) float64 array the kernel writes, its (N,) row of
    TELEMETRY records, the row's flat float64 view and the TelemetryFrame over them."""
    row = np.empty(n, dtype=records.TELEMETRY)
    flat = row.view(np.float64).reshape(-1)
    return flat.reshape(1, n, len(records.CHANNELS)), row, flat, TelemetryFrame(row, flat)


_refcount = sys.getrefcount


def _references(slot: tuple) -> int:
    """How many references the parts of a telemetry slot have together: any view, frame or row held outside adds
    one. (No part ever has fewer than when the slot was made and nobody else held it, so the sum is that of a
    free slot only when every part's count is.)"""
    part0, part1, part2, part3 = slot
    return _refcount(part0) + _refcount(part1) + _refcount(part2) + _refcount(part3)


def _frames_done(then: Callable[[int, int, int, int], None], start: int, end: int, lo: int, hi: int) -> None:
    then(lo, hi, start, end)


class Simulation:
    """A batch of cars stepped at a fixed dt by the compiled kernel.

    >>> from physics import Simulation, Inputs, load_preset
    >>> sim = Simulation(load_preset("sedan").params, n=1)
    >>> telemetry = sim.step(Inputs.from_keys(1, {"throttle"}))
    >>> sim.channel("rpm"), sim.channel_info("rpm").unit

    ``step`` advances one frame (the interactive car); ``run`` advances a block of frames whose
    inputs are given as a record array (frames, N) of physics.records.INPUTS. A batch of one car
    runs in the calling thread, larger batches share :func:`physics.threads` threads (physics.pool;
    ``parallel`` overrides). Every car runs the same compiled block either way. ``kernel`` is the
    compiled model, physics.build_kernel(...) for a variant. ``cars`` may be a prepared batch
    (physics.car.prepare, or prepare_swept for a sweep's cars).
    A NonFiniteError stops the run; reset() before going on. ``drivers`` and ``track`` give the cars
    closed-loop drivers (see :meth:`set_drivers`), ``ground`` and ``ground_index`` road surfaces
    (see :meth:`set_ground`).
    """

    def __init__(self, cars: CarParams | Sequence[CarParams] | Car, n: int | None = None, dt: float = DEFAULT_DT,
                 kernel: Kernel | None = None, parallel: bool | None = None, drivers: np.ndarray | None = None,
                 track: np.ndarray | None = None, ground: np.ndarray | None = None,
                 ground_index: np.ndarray | None = None):
        self.dt = check_dt(dt)
        self.car: Car = prepare(cars, n)
        self._bound: tuple | None = None  # the compiled step and its arguments, checked once (see _bind)
        self._kernel = kernel if kernel is not None else default_kernel()
        self._parallel_choice = parallel
        self.frame = 0
        self._state = initial_state(self.car.n, self.car.idle_rpm)
        self.telemetry: TelemetryFrame | None = None
        self._partial = False  # the last run() stored only some channels (telemetry is None then)
        n = self.car.n
        self._shape = (1, n)
        self._inputs = np.zeros((1, n), dtype=records.INPUTS)  # step's own record, for inputs it cannot read as they are
        self._idle = np.zeros((1, n), dtype=records.INPUTS)  # no keys, never written
        self._checked = self._idle  # the last Inputs' record step() checked the shape of (never None)
        self._work = Workspace(n)
        self._fault = memoryview(self._work.fault.reshape(-1))  # car 0's fault frame without numpy: _fault[0]
        # step's telemetry: a ring of records, each with its frame; one still held outside is replaced, not reused
        self._ring = [_telemetry_slot(n) for _ in range(STEP_RING if STEP_RING * n * _TELEMETRY_BYTES <= 65536
                                                           else 2)]
        self._free = _references(self._ring[0])  # the references of a slot nobody else holds
        self._slot = 0
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
        self._bound = None
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
        self._bound = None
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
        self._partial = False

    @property
    def n(self) -> int:
        return self.car.n

    @property
    def cars(self) -> Sequence[CarParams]:
        return self.car.cars

    def _parallel(self) -> bool:
        return self.car.n > 1 if self.parallel is None else self.parallel

    def reset(self) -> None:
        """Back to rest at the origin, frame 0, keeping the parameters."""
        self.frame = 0
        self._state = initial_state(self.car.n, self.car.idle_rpm)
        self.telemetry = None
        self._partial = False
        self._bound = None

    @property
    def kernel(self) -> Kernel:
        return self._kernel

    @kernel.setter
    def kernel(self, kernel: Kernel) -> None:
        self._kernel, self._bound = kernel, None

    @property
    def parallel(self) -> bool | None:
        """The cars shared among threads (True), all in the calling thread (False), or by batch size (None)."""
        return self._parallel_choice

    @parallel.setter
    def parallel(self, parallel: bool | None) -> None:
        self._parallel_choice, self._bound = parallel, None

    def _bind(self) -> tuple:
        """The compiled block and its arguments for one step, checked here once rather than on every step."""
        args = self._kernel.arguments(self.car.records, self._state, self._work, self.drivers, self.track,
                                      self.ground, self.ground_index)
        self._bound = (self._kernel.entry(self.car.records, self._parallel()), args, self.car.n)
        return self._bound

    def step(self, inputs: Inputs | np.ndarray | None = None) -> TelemetryFrame:
        """Advance one frame with ``inputs`` (no keys when None); returns that frame's telemetry.

        ``inputs`` is an Inputs, or (N,) or (1, N) records of physics.records.INPUTS. The telemetry
        gives every channel as an array over the N cars (``telemetry.rpm``); it is this frame's own
        and stays as it is when the simulation steps on. (The step writes its telemetry into a few
        records in turn and reuses one only when nothing outside holds it, its channels or its
        values: a record still held is left to its holder and replaced by a new one.)
        """
        entry, args, n = self._bound or self._bind()
        # The common case without a call: an Inputs' own record, its shape checked when it was last new here.
        record = inputs._record if type(inputs) is RecordedInputs else None
        if record is not self._checked:
            record = self._input_record(inputs)
        j = self._slot
        slot = self._ring[j]
        part0, part1, part2, part3 = slot  # _references(slot), without the call
        if _refcount(part0) + _refcount(part1) + _refcount(part2) + _refcount(part3) != self._free:
            slot = self._ring[j] = _telemetry_slot(self.car.n)
            part0 = slot[0]
        entry(args, record, part0, self.dt, self.frame, 0, n)
        if self._fault[0] >= 0 or n > 1:
            raise_fault(self._work.fault)
        self._slot = j + 1 if j + 1 < len(self._ring) else 0
        self.frame += 1
        self.telemetry = telemetry = slot[3]
        return telemetry

    def _input_record(self, inputs) -> np.ndarray:
        """``inputs`` as a (1, N) INPUTS record array the kernel reads: the caller's own when it is one, or
        an Inputs' own record (physics.inputs), else written into the simulation's record."""
        n = self.car.n
        if inputs is None:
            return self._idle
        if type(inputs) is RecordedInputs and inputs._record is not None and inputs._record.shape == self._shape:
            self._checked = inputs._record
            return inputs._record
        if isinstance(inputs, np.ndarray):  # one frame of INPUTS records, e.g. a row of a script's inputs
            if inputs.dtype != records.INPUTS:
                raise TypeError("inputs: expected an Inputs or physics.records.INPUTS records")
            if type(inputs) is np.ndarray and inputs.flags.c_contiguous:
                if inputs.shape == (1, n):
                    return inputs
                if inputs.shape == (n,):
                    return inputs.reshape(1, n)
            self._inputs[0] = inputs
            return self._inputs
        record = input_record(inputs)
        if record is not None:
            if record.shape[1] != n:
                raise ValueError(f"inputs: {record.shape[1]} cars' inputs for a batch of {n}")
            return record
        if len(inputs.throttle) != n:
            raise ValueError(f"inputs: {len(inputs.throttle)} cars' inputs for a batch of {n}")
        return records.inputs_records(inputs, self._inputs)

    def run(self, inputs: np.ndarray, telemetry: np.ndarray | None = None,
            channels: Sequence[str] | None = None,
            then: Callable[[int, int, int, int], None] | None = None) -> np.ndarray:
        """Advance ``len(inputs)`` frames; ``inputs`` is (frames, N) of INPUTS. Returns the telemetry.

        Every channel, (frames, N) TELEMETRY records, when ``channels`` is None; else only the channels
        named, float64 (frames, N, len(channels)) with channel j of car i at frame k in ``[k, i, j]``:
        nothing else is stored or checked, and :attr:`telemetry` is left None. ``telemetry`` is written
        in place when given (C-contiguous, of that shape and dtype).

        ``then(lo, hi, start, end)``, when given, is called as soon as cars ``lo`` to ``hi - 1`` have frames ``start``
        to ``end - 1`` of the returned telemetry written, by the thread that stepped them: ranges of cars that do not
        overlap may be in it at once (physics.pool), each reading and writing only what is its cars'. A sweep reduces
        its cars' frames there, beside the stepping, instead of after it in one thread.
        """
        frames = inputs.shape[0]
        if inputs.dtype != records.INPUTS or inputs.shape[1:] != (self.car.n,):
            raise ValueError(f"inputs: expected ({frames}, {self.car.n}) records of physics.records.INPUTS")
        inputs = np.ascontiguousarray(inputs)
        select = None
        if channels is not None:
            select = channel_indices(channels)
            for name in channels:
                check_channel(name, self.car.unit)  # a channel these cars' unit has (speed_kmh: SI presets)
        if telemetry is None:
            telemetry = np.empty((frames, self.car.n), dtype=records.TELEMETRY) if select is None \
                else np.empty((frames, self.car.n, len(select)))
        for start in range(0, frames, BLOCK_FRAMES):
            end = min(start + BLOCK_FRAMES, frames)
            cars = None if then is None else functools.partial(_frames_done, then, start, end)
            self._kernel.run(self.car.records, self._state, inputs[start:end], telemetry[start:end], self.dt,
                            self.frame, self._parallel(), self._work, drivers=self.drivers, track=self.track,
                            ground=self.ground, ground_index=self.ground_index, channels=select, then=cars)
            self.frame += end - start
        if frames:
            self.telemetry = TelemetryFrame(telemetry[frames - 1]) if select is None else None
            self._partial = select is not None
        return telemetry

    def set_cars(self, cars: CarParams | Sequence[CarParams] | Car) -> None:
        """Replace the parameters from the next step on (same batch size and kind); the state is kept."""
        car = prepare(cars, self.car.n if isinstance(cars, CarParams) else None)
        if car.n != self.car.n:
            raise ValueError(f"{car.n} cars given for a batch of {self.car.n}")
        problem = self.car.cars[0].swap_problem(car.cars[0])
        if problem:
            raise ValueError(problem)
        self.car = car
        self._bound = None
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
            if self._partial:
                raise RuntimeError("the last run stored only the channels it named: step(), or run() without "
                                   "channels, gives every channel")
            raise RuntimeError("no frame yet: call step() first")
        return self.telemetry[name]
