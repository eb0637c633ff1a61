"""The record layouts the compiled kernel reads and writes, generated from the schema dataclasses.

- PARAMS: one car's parameters, a field ``group_key`` per numeric leaf of CarParams
  (``engine_peak_torque`` is ``engine.peak_torque``), plus the derived values in DERIVED;
- STATE: the fields of physics.state.State, and each corner's (physics.corners);
- INPUTS: the fields of physics.inputs.Inputs (one frame of one car);
- TELEMETRY: the channels of physics.telemetry.Telemetry and each corner's, all float64;
- DRIVER: one car's closed-loop driver, the fields of physics.driver_params.DriverSetup and DriverParams.

Compiled code reads them by name (``p.engine_peak_torque``, ``s.vx``); nothing is positional.
The helpers at the end (copying a record, finding a non-finite field) are generated from the
same field lists.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import fields

import numpy as np

from . import aero, corners, gearbox, tyre
from .driver_params import DriverParams, DriverSetup
from .groups import DIFFERENTIALS
from .inputs import RECORD, Inputs, input_record
from .jit import scalar
from .params import COMBINED, FOUR_WHEEL, KINEMATIC, CarParams
from .schema import ParamError, group_class, leaves
from .state import State
from .telemetry import channel_names_all

_SCALARS = {"float": np.float64, "int": np.int64, "bool": np.bool_}

DERIVED = {
    # name: (dtype, what it is)
    "kinematic": (np.bool_, "model.kind is kinematic (001's bicycle), else the dynamic model"),
    "manual": (np.bool_, "003's engine + clutch + gearbox drivetrain, else 002's direct drive force"),
    "reference_com": (np.bool_, "the kinematic state is of the centre of mass (model.reference = com)"),
    "all_driven": (np.bool_, "body.driven_axle = all: the grip limit is the whole weight's"),
    "lf": (np.float64, "[L] centre of mass to the front axle, wheelbase - lr"),
    "weight": (np.float64, "[N] mass * gravity"),
    "c_drag": (np.float64, "[N s^2/L^2] 002: 0.5 Cd A rho"),
    "top_gear": (np.int64, "highest forward gear (1 without a gearbox)"),
    "gear_ratio": ((np.float64, (gearbox.MAX_GEARS + 2,)), "ratio by gear + 1: reverse, neutral, 1st, ..."),
    "combined": (np.bool_, "model.traction is combined: wheels and engine with inertia, combined slip"),
    "peak_long": (np.float64, "slip ratio of the longitudinal curve's peak (tyres.b_long, c_long, e_long)"),
    "peak_front": (np.float64, "[rad] slip angle of the front lateral curve's peak"),
    "peak_rear": (np.float64, "[rad] slip angle of the rear lateral curve's peak"),
    "four_wheel": (np.bool_, "model.layout is four_wheel: a tyre per corner"),
    "static_front": (np.float64, "[N] each front wheel's static load"),
    "static_rear": (np.float64, "[N] each rear wheel's static load"),
    "roll_stiffness_front": (np.float64, "[N m/rad] front springs (k t^2 / 2) and anti-roll bar"),
    "roll_stiffness_rear": (np.float64, "[N m/rad] rear springs and anti-roll bar"),
    "roll_axis_height": (np.float64, "[L] the roll axis under the centre of mass (between the roll centres)"),
    "reference_front": (np.float64, "[N] the front tyres' reference load: tyres.nominal_load, or static_front where "
                                    "that is 0 (physics.four_wheel.cornering_scale and friction)"),
    "reference_rear": (np.float64, "[N] the rear tyres' reference load: tyres.nominal_load, or static_rear"),
    "cornering_norm": (np.float64, "sin(2 atan(1 / tyres.cornering_load)): the cornering stiffness's saturation "
                                   "at the reference load (physics.four_wheel.cornering_scale)"),
    "understeer": (np.float64, "[rad s^2/L] the linear bicycle's understeer gradient m / L (lr / Cf - lf / Cr)"),
    "rear_compliance": (np.float64, "[rad s^2/L] the linear bicycle's rear slip angle per lateral acceleration, "
                                    "m lf / (L Cr)"),
    "diff_kind": (np.int64, "the differential: 0 open, 1 locked, 2 limited slip, 3 torque sensing"),
    "front_drive": (np.float64, "the front axle's share of the drive: 0 rear-driven, 1 front-driven, the centre "
                                "differential's split with all-wheel drive"),
    "centre_kind": (np.int64, "all-wheel drive: the centre differential, numbered as diff_kind"),
}


def _param_leaves() -> list[tuple[str, str, str]]:
    """(record field, group, key) for every numeric leaf of CarParams."""
    out = []
    for f in fields(CarParams):
        for info in leaves(group_class(CarParams, f.name), f.name):
            if info.kind in (float, int):
                group, key = info.path.split(".")
                out.append((f"{group}_{key}", group, key))
    return out


PARAM_LEAVES = _param_leaves()
PARAMS = np.dtype([(name, np.float64) for name, _, _ in PARAM_LEAVES]
                  + [(name, kind) if not isinstance(kind, tuple) else (name, kind[0], kind[1])
                     for name, (kind, _) in DERIVED.items()])
_STATE_FIELDS = [(f.name, f.type) for f in fields(State)] + corners.state_fields()
STATE = np.dtype([(name, _SCALARS[kind]) for name, kind in _STATE_FIELDS])
INPUTS = RECORD
TELEMETRY = np.dtype([(name, np.float64) for name in channel_names_all()])
CHANNELS = tuple(TELEMETRY.names)
_DRIVER_TYPES = {bool: np.bool_, int: np.int64, float: np.float64, "bool": np.bool_, "int": np.int64,
                 "float": np.float64}
DRIVER = np.dtype([(f.name, _DRIVER_TYPES[f.type]) for f in fields(DriverSetup)]
                  + [(f.name, np.float64) for f in fields(DriverParams)])
STATE_FLOATS = tuple(name for name, kind in _STATE_FIELDS if kind == "float")


def _leaf_groups() -> list[tuple[str, tuple[str, ...]]]:
    """PARAM_LEAVES as (group, its keys), in record order (a group's leaves are consecutive)."""
    out: list[tuple[str, list[str]]] = []
    for _, group, key in PARAM_LEAVES:
        if not out or out[-1][0] != group:
            out.append((group, []))
        out[-1][1].append(key)
    return [(group, tuple(keys)) for group, keys in out]


_LEAF_GROUPS = _leaf_groups()
# The leaves are the record's first fields, float64 each: a batch's leaves are one (N, leaves) float64 view.
assert all(PARAMS.fields[name] == (np.dtype(np.float64), 8 * j) for j, (name, _, _) in enumerate(PARAM_LEAVES))


def param_record(car: CarParams) -> np.ndarray:
    """One car's parameter record, a 0-d array of PARAMS (groups it does not have are zeros)."""
    return param_records([car])[0:1].reshape(())


def _leaf_values(car: CarParams, seen: dict[int, tuple]) -> list:
    """The values of ``car``'s numeric leaves in record order; a group object met before (``seen``, by id, for
    one batch whose cars hold their groups) is read once."""
    values: list = []
    for group, keys in _LEAF_GROUPS:
        part = getattr(car, group)
        if part is None:
            values.extend([0.0] * len(keys))
            continue
        got = seen.get(id(part))
        if got is None:
            got = seen[id(part)] = tuple(getattr(part, key) for key in keys)
        values.extend(got)
    return values


DERIVED_FROM = ("model", "body", "aero", "tyres", "suspension", "differential", "gearbox")
"""The parameter groups whose values the DERIVED values are computed from (besides which groups a car has and its
string parameters, which every car of a batch shares): a batch that varies only other groups shares them
(physics.car.prepare_swept; tests/physics/test_swept_batch.py checks every leaf of the others)."""


def _derived(rec: np.void, car: CarParams) -> None:
    """The DERIVED values of ``car`` into its record ``rec``; they read the groups of DERIVED_FROM alone."""
    b, m = car.body, car.model
    rec["kinematic"] = m.kind == KINEMATIC
    rec["manual"] = car.engine is not None
    rec["reference_com"] = m.reference == "com"
    rec["all_driven"] = b.driven_axle == "all"
    rec["lf"] = b.wheelbase - b.lr
    rec["weight"] = b.mass * m.gravity
    rec["c_drag"] = aero.drag_constant(car.aero.cd, car.aero.frontal_area, car.aero.air_density)
    rec["combined"] = m.kind != KINEMATIC and m.traction == COMBINED
    t = car.tyres
    if t is not None:
        rec["peak_long"] = tyre.peak_slip(t.b_long, t.c_long, t.e_long)
        rec["peak_front"] = tyre.peak_slip(t.b_front, t.c, t.e)
        rec["peak_rear"] = tyre.peak_slip(t.b_rear, t.c, t.e)
    if t is not None and car.model.layout == FOUR_WHEEL:
        four_wheel_derived(rec, car)
    if car.gearbox is not None:
        count = len(car.gearbox.ratios)
        if count > gearbox.MAX_GEARS:
            raise ParamError(f"gearbox.ratios: {count} gears; at most {gearbox.MAX_GEARS}")
        table = gearbox.ratio_table(car.gearbox.ratios, car.gearbox.reverse)
        rec["gear_ratio"][:len(table)] = table
        rec["top_gear"] = count
    else:
        rec["top_gear"] = 1


def reference_stiffness(load: float, reference: float, q: float, sensitivity: float) -> float:
    """[N] A tyre's cornering stiffness at ``load`` per unit of B C mu lateral_share: ``reference`` sin(2 atan(load /
    (q reference))) / sin(2 atan(1 / q)) where it saturates (``q`` = tyres.cornering_load > 0, MF-Tyre's K_y), else
    ``load`` times the friction's load sensitivity there (1 - s (load / reference - 1), at least 0.1). At the
    reference load both are the load itself: with no nominal load, the static one, as before it existed."""
    if load == reference:
        return load
    if q > 0.0:
        z = load / (q * reference)
        return reference * (2.0 * z / (1.0 + z * z)) / (2.0 * q / (q * q + 1.0))
    return load * max(1.0 - sensitivity * (load / reference - 1.0), 0.1)


def four_wheel_derived(rec: np.void, car: CarParams) -> None:
    """The four-wheel car's derived values: static loads, each axle's roll stiffness, the roll axis, the
    linear bicycle's understeer gradient and rear compliance (for stability control's yaw and slip references) and
    the differential."""
    b, t = car.body, car.tyres
    lf = b.wheelbase - b.lr
    rec["four_wheel"] = True
    rec["static_front"], rec["static_rear"] = car.static_loads()
    rec["roll_stiffness_front"], rec["roll_stiffness_rear"] = car.roll_stiffnesses()
    rec["roll_axis_height"] = car.roll_axis_height()
    rec["reference_front"] = t.nominal_load if t.nominal_load > 0.0 else rec["static_front"]
    rec["reference_rear"] = t.nominal_load if t.nominal_load > 0.0 else rec["static_rear"]
    if t.cornering_load > 0.0:
        rec["cornering_norm"] = 2.0 * t.cornering_load / (t.cornering_load ** 2 + 1.0)  # sin(2 atan(1 / q))
    # Each axle's cornering stiffness is the slope of its magic formula at zero slip at the static loads, B C D, with
    # D = lateral_share mu Fz (physics.four_wheel.cornering_scale); at the reference load it is that of B as given.
    c_front = t.b_front * t.c * t.lateral_share * t.mu * 2.0 * reference_stiffness(
        rec["static_front"], rec["reference_front"], t.cornering_load, t.load_sensitivity)
    c_rear = t.b_rear * t.c * t.lateral_share * t.mu * 2.0 * reference_stiffness(
        rec["static_rear"], rec["reference_rear"], t.cornering_load, t.load_sensitivity)
    rec["understeer"] = b.mass / b.wheelbase * (b.lr / c_front - lf / c_rear)  # Gillespie (1992), ch. 6
    rec["rear_compliance"] = b.mass * lf / (b.wheelbase * c_rear)  # the rear axle's share of m a_y, over Cr
    rec["diff_kind"] = DIFFERENTIALS.index(car.differential.kind)
    axle = car.body.driven_axle
    rec["front_drive"] = 0.0 if axle == "rear" else (1.0 if axle == "front" else car.differential.centre_split)
    rec["centre_kind"] = DIFFERENTIALS.index(car.differential.centre_kind)


def param_records(cars: Sequence[CarParams]) -> np.ndarray:
    """Per-car parameter records, one per car of the batch (the same CarParams object is converted once, and a
    parameter group several cars share is read once: a sweep's cars differ in a group or two)."""
    cars = tuple(cars)  # held while converting: the caches below are keyed by id (a physics.car.Swept makes cars)
    out = np.zeros(len(cars), dtype=PARAMS)
    leaves = np.ndarray((len(cars), len(PARAM_LEAVES)), dtype=np.float64, buffer=out,
                        strides=(PARAMS.itemsize, 8))
    done: dict[int, int] = {}
    seen: dict[int, tuple] = {}
    for i, car in enumerate(cars):
        first = done.get(id(car))
        if first is not None:
            out[i] = out[first]
            continue
        done[id(car)] = i
        leaves[i] = _leaf_values(car, seen)
        _derived(out[i], car)
    return out


def driver_record(setup: DriverSetup, gains: DriverParams | None = None) -> np.void:
    """One car's DRIVER record: what it is asked to do and its gains (the defaults when None)."""
    rec = np.zeros((), dtype=DRIVER)
    for f in fields(DriverSetup):
        rec[f.name] = getattr(setup, f.name)
    for f in fields(DriverParams):
        rec[f.name] = getattr(gains or DriverParams(), f.name)
    return rec


def no_drivers(n: int) -> np.ndarray:
    """(N,) DRIVER records of cars that nobody drives: the inputs reach them unchanged."""
    out = np.empty(n, dtype=DRIVER)
    out[...] = driver_record(DriverSetup())
    return out


def inputs_records(u: Inputs, out: np.ndarray | None = None) -> np.ndarray:
    """Inputs (arrays of shape (N,)) as a (1, N) record array of INPUTS, into ``out`` when given."""
    n = len(u.throttle)
    if out is None or out.shape != (1, n):
        out = np.empty((1, n), dtype=INPUTS)
    record = input_record(u)
    if record is not None:  # its arrays are a record's fields: the record's bytes are the answer
        out.view(np.uint8)[...] = record.view(np.uint8)
        return out
    row = out[0]
    for name in INPUTS.names:
        row[name] = getattr(u, name)
    return out


# -- generated helpers ----------------------------------------------------------------------


def _generate(name: str, lines: list[str], inline: bool = False):
    namespace = {"math": math}
    exec("\n".join(lines), namespace)  # noqa: S102 (the source is built from field names above)
    return scalar(namespace[name], inline=inline)


def _copier(name: str, names: Sequence[str], inline: bool = False):
    return _generate(name, [f"def {name}(src, dst):"] + [f"    dst.{f} = src.{f}" for f in names], inline)


def _finder(name: str, names: Sequence[str], inline: bool = False):
    """f(rec) -> index into ``names`` of the first non-finite field, or -1 (a few sums decide the usual case)."""
    # (v - v) is 0 for a finite value and nan otherwise; four sums, not one, so the additions do not wait in one chain
    parts = [" + ".join(f"(r.{f} - r.{f})" for f in names[k::4]) or "0.0" for k in range(4)]
    lines = [f"def {name}(r):"] + [f"    a{k} = {part}" for k, part in enumerate(parts)] \
        + ["    if (a0 + a1) + (a2 + a3) == 0.0:", "        return -1"]
    for i, f in enumerate(names):
        lines += [f"    if not math.isfinite(r.{f}):", f"        return {i}"]
    lines.append("    return -1")
    return _generate(name, lines, inline)


copy_state = _copier("copy_state", STATE.names, inline=True)
copy_inputs = _copier("copy_inputs", INPUTS.names)
nonfinite_state = _finder("nonfinite_state", STATE_FLOATS, inline=True)
