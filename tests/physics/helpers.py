"""Shared drivers for the physics tests: record a run, build per-car inputs, fit a circle, 002's resistances.

Nothing here computes an expected value with the model's own functions: the closed forms
(resistance, drag constant) are written out from the source documents.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import fields
from functools import cache

import numpy as np

from physics import CarParams, Inputs, Simulation, load_preset

DT = 1.0 / 120.0


class Run(dict):
    """Telemetry of every frame of a run: channel name -> array of shape (frames, N)."""

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def car(self, i: int) -> Run:
        """The same run for car ``i`` of the batch only: arrays of shape (frames,)."""
        return Run({k: v[:, i] for k, v in self.items()})

    def concat(self, other: Run) -> Run:
        """This run followed by ``other`` (same channels)."""
        return Run({k: np.concatenate([v, other[k]]) for k, v in self.items()})


@cache
def preset(name: str) -> CarParams:
    return load_preset(name).params


def frames(seconds: float, dt: float) -> int:
    return int(round(seconds / dt))


InputSource = Inputs | Callable[[float, Simulation], Inputs]


def record(sim: Simulation, seconds: float, inputs: InputSource | None = None) -> Run:
    """Step ``sim`` for ``seconds`` and return every exposed channel of every frame.

    ``inputs`` is one Inputs for every frame, or a driver ``f(t, sim) -> Inputs`` called before
    each frame with the time since this call began (``sim.telemetry`` holds the previous frame).
    """
    names = [c.name for c in sim.channels]
    count = frames(seconds, sim.dt)
    if count == 0:
        return Run({name: np.zeros((0, sim.car.n)) for name in names})
    block = None
    for k in range(count):
        u = inputs(k * sim.dt, sim) if callable(inputs) else inputs
        records = sim.step(u).records
        if block is None:  # each frame's records written into one block (np.stack of structured rows is slow)
            block = np.empty((count, *records.shape), dtype=records.dtype)
        block[k] = records
    return Run({name: block[name].astype(float) for name in names})


def keys(*names: str, n: int = 1, **analog: float) -> Inputs:
    """Shorthand for ``Inputs.from_keys(n, set(names), **analog)``."""
    return Inputs.from_keys(n, set(names), **analog)


SHIFT_HOLD = 0.15  # [s] clutch and gear_up held together for one shift


def shifting_driver(shift_at: list[float], until: float = math.inf, throttle: bool = True):
    """A driver for a manual car: full throttle, a clutch-and-gear_up shift at each time of ``shift_at``,
    and from ``until`` on the clutch pressed with the throttle released (coasting)."""

    def drive(t: float, sim: Simulation) -> Inputs:
        if t >= until:
            return keys("clutch")
        held = {"throttle"} if throttle else set()
        if any(start <= t < start + SHIFT_HOLD for start in shift_at):
            held |= {"clutch", "gear_up"}
        return keys(*held)

    return drive


def stack_inputs(per_car: list[Inputs]) -> Inputs:
    """One Inputs for a batch from one Inputs per car (each for one car), in batch order."""
    return Inputs(**{f.name: np.concatenate([getattr(u, f.name) for u in per_car]) for f in fields(Inputs)})


def to_toml(doc: dict) -> str:
    """A preset document as TOML text (tables of numbers, strings and lists of numbers only)."""

    def value(v) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return repr(float(v)) if isinstance(v, float) else str(v)

    out = []
    for group, table in doc.items():
        out.append(f"[{group}]")
        out.extend(f"{key} = {value(v)}" for key, v in table.items())
        out.append("")
    return "\n".join(out)


def fit_circle(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle through the points (Kasa fit): centre x, centre y, radius."""
    a = np.column_stack([2.0 * x, 2.0 * y, np.ones_like(x)])
    b = x * x + y * y
    (cx, cy, k), *_ = np.linalg.lstsq(a, b, rcond=None)
    return float(cx), float(cy), math.sqrt(k + cx * cx + cy * cy)


def c_drag(p: CarParams) -> float:
    """002: C_drag = 0.5 * Cd * A * rho, from the preset's values."""
    return 0.5 * p.aero.cd * p.aero.frontal_area * p.aero.air_density


def resistance(p: CarParams, v):
    """002: magnitude of drag plus rolling resistance at speed v >= 0, C_drag v^2 + C_rr v [N]."""
    v = np.asarray(v, dtype=float)
    return c_drag(p) * v * v + p.aero.rolling * v


def top_speed(p: CarParams, force: float) -> float:
    """002: the positive root of force = C_drag v^2 + C_rr v."""
    a, b = c_drag(p), p.aero.rolling
    return (-b + math.sqrt(b * b + 4.0 * a * force)) / (2.0 * a)


def static_loads(p: CarParams) -> tuple[float, float]:
    """Front and rear axle loads at rest, m g lr / L and m g lf / L [N]."""
    b = p.body
    weight = b.mass * p.model.gravity
    return weight * b.lr / b.wheelbase, weight * (b.wheelbase - b.lr) / b.wheelbase


def max_step(values: np.ndarray, mask: np.ndarray) -> float:
    """Largest |frame-to-frame change| of ``values`` over the steps that start on a ``mask`` frame."""
    steps = np.abs(np.diff(values))
    chosen = steps[mask[:-1]]
    return float(chosen.max()) if chosen.size else 0.0


def four_wheel_energy(p: CarParams, run: Run, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Car 0 of a four-wheel ``run``: its kinetic energy [J] each frame (body, yaw, each wheel as half its axle's
    inertia, the engine's flywheel), and the work [J] the engine's own torque put in over each frame (none when it
    drags)."""
    b, e = p.body, p.engine
    omega = run.rpm[:, 0] * (2.0 * math.pi / 60.0)
    energy = (0.5 * b.mass * (run.vx[:, 0] ** 2 + run.vy[:, 0] ** 2) + 0.5 * b.yaw_inertia * run.yaw_rate[:, 0] ** 2
              + 0.25 * b.wheel_inertia_front * (run.wheel_speed_fl[:, 0] ** 2 + run.wheel_speed_fr[:, 0] ** 2)
              + 0.25 * b.wheel_inertia_rear * (run.wheel_speed_rl[:, 0] ** 2 + run.wheel_speed_rr[:, 0] ** 2)
              + 0.5 * e.inertia * omega ** 2)
    return energy, dt * np.maximum(run.engine_torque[:-1, 0] * 0.5 * (omega[1:] + omega[:-1]), 0.0)
