"""A batch of cars ready to step: per-car parameters stacked into arrays, plus derived constants."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from . import aero, gearbox
from .params import KINEMATIC, CarParams
from .schema import ParamError


def _stack(items: Sequence[Any], where: str) -> Any:
    """Stack equal-shaped dataclasses: numbers become (N,) arrays, lists (N, K); strings must agree."""
    first = items[0]
    if first is None:
        if any(item is not None for item in items):
            raise ParamError(f"[{where}]: some cars of the batch have it and some do not")
        return None
    if dataclasses.is_dataclass(first):
        if any(item is None for item in items):
            raise ParamError(f"[{where}]: some cars of the batch have it and some do not")
        return type(first)(**{
            f.name: _stack([getattr(item, f.name) for item in items], f"{where}.{f.name}" if where else f.name)
            for f in fields(first)
        })
    if isinstance(first, str):
        if any(item != first for item in items):
            raise ParamError(f"{where}: cars of one batch must agree ({sorted(set(items))})")
        return first
    if isinstance(first, (list, tuple)):
        if any(len(item) != len(first) for item in items):
            raise ParamError(f"{where}: cars of one batch must have the same number of entries")
        return np.array(items, dtype=float)
    return np.array(items, dtype=float)


@dataclass(frozen=True)
class Car:
    """N cars of one model kind: stacked parameters (leaves are arrays of shape (N,)) and derived values."""

    params: CarParams
    cars: tuple[CarParams, ...]
    n: int
    kind: str
    manual: bool
    reference_com: bool
    all_driven: bool
    lf: np.ndarray
    weight: np.ndarray
    c_drag: np.ndarray
    ratios: np.ndarray  # (N, gears + 2) indexed by gear + 1
    rows: np.ndarray
    top_gear: int
    # Tyre coefficients laid out for both axles at once: [front of every car, rear of every car].
    tyre_b: np.ndarray | None = None
    tyre_c: np.ndarray | None = None
    tyre_e: np.ndarray | None = None
    tyre_mu: np.ndarray | None = None

    @property
    def kinematic(self) -> bool:
        return self.kind == KINEMATIC

    @property
    def unit(self) -> str:
        return self.params.model.unit


def prepare(cars: CarParams | Sequence[CarParams], n: int | None = None) -> Car:
    """Stack one car (repeated ``n`` times) or a sequence of cars of the same kind into a Car batch."""
    if isinstance(cars, CarParams):
        cars = [cars] * (n or 1)
    elif n is not None and n != len(cars):
        raise ValueError(f"{len(cars)} cars given for a batch of {n}")
    cars = tuple(cars)
    if not cars:
        raise ValueError("a batch needs at least one car")
    p = _stack(cars, "")
    count = len(cars)
    g = p.gearbox
    ratios = gearbox.ratio_table(g) if g is not None else np.zeros((count, 3))
    t = p.tyres
    axles = {}
    if t is not None:
        axles = dict(tyre_b=np.concatenate([t.b_front, t.b_rear]), tyre_c=np.tile(t.c, 2),
                     tyre_e=np.tile(t.e, 2), tyre_mu=np.tile(t.mu, 2))
    return Car(
        params=p,
        cars=cars,
        n=count,
        kind=p.model.kind,
        manual=p.engine is not None,
        reference_com=p.model.reference == "com",
        all_driven=p.body.driven_axle == "all",
        lf=p.body.wheelbase - p.body.lr,
        weight=p.body.mass * p.model.gravity,
        c_drag=aero.drag_constant(p.aero.cd, p.aero.frontal_area, p.aero.air_density),
        ratios=np.ascontiguousarray(ratios),
        rows=np.arange(count),
        top_gear=ratios.shape[1] - 2,
        **axles,
    )
