"""A sweep's batch built by columns (physics.car.prepare_swept) is the batch built car by car, byte for byte."""

from __future__ import annotations

import numpy as np
import pytest

from physics import Simulation, load_preset, preset_names
from physics.car import Swept, prepare, prepare_swept, with_values
from physics.records import DERIVED, DERIVED_FROM, PARAM_LEAVES, param_records

PRESETS = sorted(preset_names())


def _leaves(car) -> list[str]:
    """Every numeric parameter ``car`` has, as ``group.key``."""
    return [f"{group}.{key}" for _, group, key in PARAM_LEAVES if getattr(car, group) is not None]


def _values(car, path: str, count: int) -> np.ndarray:
    group, key = path.split(".")
    base = float(getattr(getattr(car, group), key))
    spread = np.linspace(0.8, 1.25, count) * base + np.linspace(0.0, 0.5, count)
    return np.concatenate([spread, spread[::-1]])  # each value twice: shared rows are filled from one computation


def _one_by_one(base, paths, values):
    return prepare([with_values(base, paths, row) for row in values]).records


@pytest.mark.parametrize("preset", PRESETS)
def test_every_parameter_swept_alone_gives_the_records_car_by_car(preset):
    base = load_preset(preset).params
    for path in _leaves(base):
        values = _values(base, path, 3)[:, None]
        swept = prepare_swept(base, [path], values)
        assert swept.records.tobytes() == _one_by_one(base, [path], values).tobytes(), path


@pytest.mark.parametrize("preset", ["sedan", "manual003", "sedan_single_track", "classic"])
def test_several_parameters_swept_together_give_the_records_car_by_car(preset):
    base = load_preset(preset).params
    paths = _leaves(base)
    rng = np.random.default_rng(5)
    for _ in range(20):
        chosen = list(rng.choice(paths, size=3, replace=False))
        columns = [_values(base, path, 4) for path in chosen]
        grid = np.stack(np.meshgrid(*columns, indexing="ij"), axis=-1).reshape(-1, len(chosen))
        swept = prepare_swept(base, chosen, grid)
        assert swept.records.tobytes() == _one_by_one(base, chosen, grid).tobytes(), chosen


@pytest.mark.parametrize("preset", PRESETS)
def test_the_derived_values_read_only_the_groups_said(preset):
    # prepare_swept computes the derived values once per distinct row of the groups in DERIVED_FROM: a parameter of
    # any other group must leave them as they are.
    base = load_preset(preset).params
    before = param_records([base])
    others = [path for path in _leaves(base) if path.split(".")[0] not in DERIVED_FROM]
    assert others  # steering, pedals, brakes, aids ...
    for path in others:
        group, key = path.split(".")
        value = float(getattr(getattr(base, group), key))
        after = param_records([with_values(base, [path], [value * 1.37 + 0.5])])
        for name in DERIVED:
            assert after[name].tobytes() == before[name].tobytes(), (path, name)


def test_the_swept_cars_are_made_when_asked_for_and_a_simulation_takes_the_batch():
    base = load_preset("sedan").params
    values = np.array([[30.0, 1200.0], [35.0, 1500.0], [40.0, 1800.0]])
    paths = ["steering.lock", "body.mass"]
    cars = Swept(base, paths, values)
    assert len(cars) == 3
    assert cars[1] == with_values(base, paths, values[1])
    assert cars[1].body.mass == 1500.0 and cars[1].steering.lock == 35.0
    assert cars[0:3:2] == [cars[0], cars[2]]
    batch = prepare_swept(base, paths, values)
    sim = Simulation(batch)
    assert sim.car is batch and sim.n == 3
    assert sim.cars[2].body.mass == 1800.0
    with pytest.raises(ValueError, match="3 cars given for a batch of 4"):
        prepare(batch, 4)
    sim.set_cars(prepare_swept(base, paths, values[::-1]))
    assert sim.cars[0].body.mass == 1800.0


def test_what_the_columns_cannot_hold_is_built_car_by_car():
    # A parameter that is not a numeric leaf (or one given twice) goes the long way, and still gives the cars asked for.
    base = load_preset("manual003").params
    values = np.array([[1.0, 2.0], [3.0, 4.0]])
    batch = prepare_swept(base, ["body.mass", "body.mass"], values)
    assert [c.body.mass for c in batch.cars] == [2.0, 4.0]
    assert batch.records.tobytes() == _one_by_one(base, ["body.mass", "body.mass"], values).tobytes()


def test_a_whole_number_parameter_swept_through_minus_zero_is_stored_as_int_makes_it():
    # int(-0.0) is 0, stored as +0.0; a sweep axis may give -0 (aids.tcs=-0,1).
    base = load_preset("sedan").params
    values = np.array([[-0.0], [1.0], [-0.0]])
    swept = prepare_swept(base, ["aids.tcs"], values)
    assert swept.records.tobytes() == _one_by_one(base, ["aids.tcs"], values).tobytes()
    assert not np.signbit(swept.records["aids_tcs"]).any()


def test_the_records_of_swept_cars_made_on_the_fly_are_each_cars_own():
    # param_records reads a group object once per id; cars a Swept sequence makes and drops can share an id.
    base = load_preset("sedan").params
    values = np.column_stack([np.linspace(1000.0, 2000.0, 50), np.linspace(20.0, 40.0, 50)])
    cars = Swept(base, ["body.mass", "steering.lock"], values)
    records = param_records(cars)
    assert records["body_mass"].tolist() == values[:, 0].tolist()
    assert records.tobytes() == param_records(list(cars)).tobytes()
    assert cars[0] is cars[0] and cars[-50] is cars[0]  # car 0, read for the batch's kind and unit, is made once
