"""The physics API: N cars at a fixed timestep, stepped with inputs, read by channel name."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .car import Car, prepare
from .inputs import Inputs
from .params import CarParams
from .state import State, initial_state
from .step import step
from .telemetry import ChannelInfo, Telemetry, channel_infos, check_channel

DEFAULT_DT = 1.0 / 120.0
MAX_DT = 0.05


def check_dt(dt: float) -> float:
    """The timestep as a float, or ValueError when it is not in (0, 0.05] s."""
    if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not math.isfinite(dt) or not 0 < dt <= MAX_DT:
        raise ValueError(f"dt = {dt!r}: the timestep must be a number in (0, {MAX_DT}] s")
    return float(dt)


class Simulation:
    """A batch of cars stepped at a fixed dt.

    >>> from physics import Simulation, Inputs, load_preset
    >>> sim = Simulation(load_preset("sedan").params, n=1)
    >>> telemetry = sim.step(Inputs.from_keys(1, {"throttle"}))
    >>> sim.channel("rpm"), sim.channel_info("rpm").unit
    """

    def __init__(self, cars: CarParams | Sequence[CarParams], n: int | None = None, dt: float = DEFAULT_DT):
        self.dt = check_dt(dt)
        self.car: Car = prepare(cars, n)
        self.frame = 0
        self.state: State = initial_state(self.car.n, self._idle_rpm())
        self.telemetry: Telemetry | None = None

    @property
    def n(self) -> int:
        return self.car.n

    @property
    def cars(self) -> tuple[CarParams, ...]:
        return self.car.cars

    def _idle_rpm(self) -> np.ndarray:
        e = self.car.params.engine
        return e.idle_rpm if e is not None else np.zeros(self.car.n)

    def reset(self) -> None:
        """Back to rest at the origin, frame 0, keeping the parameters."""
        self.frame = 0
        self.state = initial_state(self.car.n, self._idle_rpm())
        self.telemetry = None

    def step(self, inputs: Inputs | None = None) -> Telemetry:
        """Advance one frame with ``inputs`` (no keys when None); returns that frame's telemetry."""
        if inputs is None:
            inputs = Inputs.idle(self.car.n)
        self.state, self.telemetry = step(self.car, self.state, inputs, self.dt, self.frame * self.dt)
        self.frame += 1
        return self.telemetry

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
            self.state.gear = np.minimum(self.state.gear, car.top_gear)

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
        return getattr(self.telemetry, name)
