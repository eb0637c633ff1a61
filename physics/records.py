"""The record layouts the compiled kernel reads and writes, generated from the schema dataclasses.

- PARAMS: one car's parameters, a field ``group_key`` per numeric leaf of CarParams
  (``engine_peak_torque`` is ``engine.peak_torque``), plus the derived values in DERIVED;
- STATE: the fields of physics.state.State;
- INPUTS: the fields of physics.inputs.Inputs (one frame of one car);
- TELEMETRY: the channels of physics.telemetry.Telemetry, all float64;
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

from . import aero, gearbox, tyre
from .driver_params import DriverParams, DriverSetup
from .inputs import Inputs, element_type
from .jit import scalar
from .params import COMBINED, KINEMATIC, CarParams
from .schema import ParamError, group_class, leaves
from .state import State
from .telemetry import Telemetry

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
STATE = np.dtype([(f.name, _SCALARS[f.type]) for f in fields(State)])
INPUTS = np.dtype([(f.name, element_type(f.name)) for f in fields(Inputs)])
TELEMETRY = np.dtype([(f.name, np.float64) for f in fields(Telemetry)])
CHANNELS = tuple(TELEMETRY.names)
_DRIVER_TYPES = {bool: np.bool_, int: np.int64, float: np.float64, "bool": np.bool_, "int": np.int64,
                 "float": np.float64}
DRIVER = np.dtype([(f.name, _DRIVER_TYPES[f.type]) for f in fields(DriverSetup)]
                  + [(f.name, np.float64) for f in fields(DriverParams)])
STATE_FLOATS = tuple(f.name for f in fields(State) if f.type == "float")


def param_record(car: CarParams) -> np.void:
    """One car's parameter record (groups it does not have are zeros)."""
    rec = np.zeros((), dtype=PARAMS)
    for name, group, key in PARAM_LEAVES:
        part = getattr(car, group)
        if part is not None:
            rec[name] = getattr(part, key)
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
    if car.gearbox is not None:
        count = len(car.gearbox.ratios)
        if count > gearbox.MAX_GEARS:
            raise ParamError(f"gearbox.ratios: {count} gears; at most {gearbox.MAX_GEARS}")
        table = gearbox.ratio_table(car.gearbox.ratios, car.gearbox.reverse)
        rec["gear_ratio"][:len(table)] = table
        rec["top_gear"] = count
    else:
        rec["top_gear"] = 1
    return rec


def param_records(cars: Sequence[CarParams]) -> np.ndarray:
    """Per-car parameter records, one per car of the batch (the same CarParams object is converted once)."""
    out = np.empty(len(cars), dtype=PARAMS)
    done: dict[int, np.void] = {}
    for i, car in enumerate(cars):
        rec = done.get(id(car))
        if rec is None:
            rec = done[id(car)] = param_record(car)
        out[i] = rec
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
    row = out[0]
    for name in INPUTS.names:
        row[name] = getattr(u, name)
    return out


# -- generated helpers ----------------------------------------------------------------------


def _generate(name: str, lines: list[str]):
    namespace = {"math": math}
    exec("\n".join(lines), namespace)  # noqa: S102 (the source is built from field names above)
    return scalar(namespace[name])


def _copier(name: str, names: Sequence[str]):
    return _generate(name, [f"def {name}(src, dst):"] + [f"    dst.{f} = src.{f}" for f in names])


def _finder(name: str, names: Sequence[str]):
    """f(rec) -> index into ``names`` of the first non-finite field, or -1 (one sum decides the usual case)."""
    lines = [f"def {name}(r):", "    total = " + " + ".join(f"r.{f}" for f in names),
             "    if math.isfinite(total):", "        return -1"]
    for i, f in enumerate(names):
        lines += [f"    if not math.isfinite(r.{f}):", f"        return {i}"]
    lines.append("    return -1")
    return _generate(name, lines)


copy_state = _copier("copy_state", STATE.names)
copy_telemetry = _copier("copy_telemetry", TELEMETRY.names)
copy_inputs = _copier("copy_inputs", INPUTS.names)
nonfinite_channel = _finder("nonfinite_channel", CHANNELS)
nonfinite_state = _finder("nonfinite_state", STATE_FLOATS)
