"""A batch of cars ready to step: per-car parameter records, and the checks that the cars fit one batch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from .params import KINEMATIC, CarParams
from .records import param_records
from .schema import ParamError


def _group_layout(name: str, group) -> dict[str, object]:
    out: dict[str, object] = {f"[{name}]": group is not None}
    if group is not None:
        for g in fields(group):
            value = getattr(group, g.name)
            if isinstance(value, str):
                out[f"{name}.{g.name}"] = value
    return out


def batch_layout(car: CarParams) -> dict[str, object]:
    """What cars of one batch must share: which groups they have and every string-valued parameter."""
    out: dict[str, object] = {}
    for f in fields(car):
        out.update(_group_layout(f.name, getattr(car, f.name)))
    return out


def _check_batch(cars: Sequence[CarParams]) -> None:
    first = batch_layout(cars[0])
    names = [f.name for f in fields(cars[0])]
    seen = {id(cars[0])}
    for car in cars[1:]:
        if id(car) in seen:
            continue
        seen.add(id(car))
        for name in names:
            group = getattr(car, name)
            if group is getattr(cars[0], name):
                continue  # shared with the first car (a sweep's cars share the groups it does not vary)
            for key, value in _group_layout(name, group).items():
                if value != first[key]:
                    if key.startswith("["):
                        raise ParamError(f"{key}: some cars of the batch have it and some do not")
                    raise ParamError(f"{key}: cars of one batch must agree ({first[key]!r} and {value!r})")


@dataclass(frozen=True)
class Car:
    """N cars of one model kind: their parameters, and one record of physics.records.PARAMS per car."""

    cars: tuple[CarParams, ...]
    records: np.ndarray  # (N,) PARAMS

    @property
    def n(self) -> int:
        return len(self.cars)

    @property
    def kind(self) -> str:
        return self.cars[0].kind

    @property
    def kinematic(self) -> bool:
        return self.kind == KINEMATIC

    @property
    def manual(self) -> bool:
        return self.cars[0].manual

    @property
    def unit(self) -> str:
        return self.cars[0].model.unit

    @property
    def top_gear(self) -> np.ndarray:
        """Per car: the highest forward gear."""
        return self.records["top_gear"]

    @property
    def idle_rpm(self) -> np.ndarray:
        """Per car: the engine's idle speed (0 without an engine)."""
        return self.records["engine_idle_rpm"]


def prepare(cars: CarParams | Sequence[CarParams], n: int | None = None) -> Car:
    """One car (repeated ``n`` times) or a sequence of cars of the same kind as a Car batch."""
    if isinstance(cars, CarParams):
        cars = [cars] * (n or 1)
    elif n is not None and n != len(cars):
        raise ValueError(f"{len(cars)} cars given for a batch of {n}")
    cars = tuple(cars)
    if not cars:
        raise ValueError("a batch needs at least one car")
    _check_batch(cars)
    return Car(cars, param_records(cars))
