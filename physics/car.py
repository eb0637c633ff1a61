"""A batch of cars ready to step: per-car parameter records, and the checks that the cars fit one batch."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from .params import KINEMATIC, CarParams
from .records import DERIVED, DERIVED_FROM, PARAM_LEAVES, param_records
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

    cars: Sequence[CarParams]  # a tuple, or a Swept sequence that makes each car when it is asked for
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


def prepare(cars: CarParams | Sequence[CarParams] | Car, n: int | None = None) -> Car:
    """One car (repeated ``n`` times) or a sequence of cars of the same kind as a Car batch (a Car as it is)."""
    if isinstance(cars, Car):
        if n is not None and n != cars.n:
            raise ValueError(f"{cars.n} cars given for a batch of {n}")
        return cars
    if isinstance(cars, CarParams):
        cars = [cars] * (n or 1)
    elif n is not None and n != len(cars):
        raise ValueError(f"{len(cars)} cars given for a batch of {n}")
    cars = tuple(cars)
    if not cars:
        raise ValueError("a batch needs at least one car")
    _check_batch(cars)
    return Car(cars, param_records(cars))


def _typed(group, key: str, value: float):
    return int(value) if isinstance(getattr(group, key), int) else float(value)


def with_values(base: CarParams, paths: Sequence[str], values: Sequence[float]) -> CarParams:
    """``base`` with the numeric parameters at ``paths`` (``group.key``) set to ``values`` (SI), unchecked: a sweep
    checks each group's values once (workbench.runs.sweep.check_cars). A whole-number parameter takes the value
    truncated, as ``int()`` does."""
    changes: dict[str, dict] = {}
    for path, value in zip(paths, values, strict=True):
        group, key = path.split(".")
        changes.setdefault(group, {})[key] = _typed(getattr(base, group), key, value)
    return dataclasses.replace(base, **{g: dataclasses.replace(getattr(base, g), **kv) for g, kv in changes.items()})


class Swept(Sequence):
    """The cars of a sweep: ``base`` with the parameters at ``paths`` set to each row of ``values`` (N, len(paths)),
    SI. A car's CarParams is made only when it is asked for (a sweep of 100,000 cars never asks)."""

    def __init__(self, base: CarParams, paths: Sequence[str], values: np.ndarray):
        self.base, self.paths, self.values = base, tuple(paths), np.asarray(values, dtype=np.float64)
        self._first: CarParams | None = None  # the batch's kind, unit and layout are read off car 0, often

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i in (0, -len(self)):
            if self._first is None:
                self._first = with_values(self.base, self.paths, self.values[0])
            return self._first
        return with_values(self.base, self.paths, self.values[i])


_LEAF_FIELDS = {f"{group}.{key}": name for name, group, key in PARAM_LEAVES}


def prepare_swept(base: CarParams, paths: Sequence[str], values: np.ndarray) -> Car:
    """The batch of :class:`Swept` cars, its records built by columns: the base car's record for every car, each
    swept parameter's column written in, and the derived values (physics.records.DERIVED) computed once per distinct
    row of the swept parameters they depend on (those of the groups in DERIVED_FROM). The records are those
    :func:`prepare` makes from the cars one by one, byte for byte (tests/physics/test_swept_batch.py), in a small part
    of the time: the per-car Python work was most of a large sweep's time.

    The swept parameters are numeric leaves of groups the base car has; anything else is left to :func:`prepare`.
    """
    cars = Swept(base, paths, values)
    fields_ = [_LEAF_FIELDS.get(path) for path in cars.paths]
    if (not len(cars) or None in fields_ or len(set(cars.paths)) != len(cars.paths)
            or any(getattr(base, path.split(".")[0]) is None for path in cars.paths)):
        return prepare(cars)
    out = np.repeat(param_records([base]), len(cars))
    for d, (path, name) in enumerate(zip(cars.paths, fields_, strict=True)):
        group, key = path.split(".")
        column = cars.values[:, d]
        # int() truncates and has no -0: trunc(-0.0) + 0.0 is +0.0, as float(int(-0.0)) is
        out[name] = np.trunc(column) + 0.0 if isinstance(getattr(getattr(base, group), key), int) else column
    derived = [d for d, path in enumerate(cars.paths) if path.split(".")[0] in DERIVED_FROM]
    if derived:
        columns = np.ascontiguousarray(cars.values[:, derived])
        as_bytes = columns.view(np.dtype((np.void, columns.itemsize * len(derived)))).reshape(-1)
        _, first, which = np.unique(as_bytes, return_index=True, return_inverse=True)  # distinct rows, bit for bit
        derived_paths = [cars.paths[d] for d in derived]
        each = param_records([with_values(base, derived_paths, row) for row in columns[first]])
        names = list(DERIVED)
        out[names] = each[names][which.reshape(-1)]
    return Car(cars, out)
