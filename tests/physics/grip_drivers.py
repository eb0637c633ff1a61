"""Drivers for the combined-model tests: a flying start, a speed-holding throttle, a recorded run.

The expected values in the tests come from physics written out there (v^2 / (2 mu g), the
understeer gradient's definition), never from the model's own functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from physics import CarParams, Inputs, Simulation, TelemetryFrame, load_preset, records

G = 9.81
RPM_PER_RAD_S = 60.0 / (2.0 * math.pi)


def sedan(preset: str = "sedan_single_track", **changes) -> CarParams:
    """The single-track sedan (or ``preset``), with ``{"group.key": value}`` changes."""
    p = load_preset(preset).params
    return p.with_values(changes) if changes else p


def flying_start(sim: Simulation, speed: float, gear: int) -> None:
    """Every car of ``sim`` rolling straight at ``speed`` in ``gear``: wheels at road speed, the engine with them."""
    p = sim.cars[0]
    state = sim.state
    state.vx[:] = speed
    state.wheel_front[:] = speed / p.body.wheel_radius
    state.wheel_rear[:] = speed / p.body.wheel_radius
    for corner in ("fl", "fr", "rl", "rr"):  # the four-wheel car's wheels
        state[f"wheel_{corner}"][:] = speed / p.body.wheel_radius
    if p.gearbox is not None:
        ratio = ([p.gearbox.reverse, 0.0] + list(p.gearbox.ratios))[gear + 1] * p.gearbox.final_drive
        state.gear[:] = gear
        state.rpm[:] = max(speed / p.body.wheel_radius * ratio * RPM_PER_RAD_S, p.engine.idle_rpm)


Driver = Callable[[float, TelemetryFrame | None], Inputs]


def drive(sim: Simulation, seconds: float, driver: Driver) -> np.recarray:
    """Step ``sim`` for ``seconds``; ``driver(t, previous frame's telemetry or None)`` gives each frame's inputs.

    Returns car 0's telemetry of every frame (a record array, one field per channel).
    """
    count = int(round(seconds / sim.dt))
    out = None
    tel = None
    for k in range(count):
        tel = sim.step(driver(k * sim.dt, tel))
        if out is None:  # written frame by frame (np.concatenate of structured rows is slow)
            out = np.empty(count, dtype=tel.records.dtype)
        out[k] = tel.records[0]
    return (out if out is not None else np.empty(0, dtype=records.TELEMETRY)).view(np.recarray)


class SpeedHold:
    """A throttle that holds ``speed`` (PI on the forward speed), with a steering share as given."""

    def __init__(self, speed: float, dt: float, steer: Callable[[float], float] | float = 0.0):
        self.speed, self.dt, self.steer = speed, dt, steer
        self.integral = 0.0

    def throttle(self, tel) -> float:
        if tel is None:
            return 0.15
        error = self.speed - float(tel.vx[0])
        self.integral += error * self.dt
        return min(max(0.15 + 0.5 * error + 0.3 * self.integral, 0.0), 1.0)

    def __call__(self, t: float, tel) -> Inputs:
        share = self.steer(t) if callable(self.steer) else self.steer
        return Inputs.from_keys(1, set(), throttle_pedal=self.throttle(tel), steer=share)


def first_index(mask: np.ndarray) -> int:
    """Index of the first True of ``mask``; AssertionError when there is none."""
    hits = np.flatnonzero(mask)
    assert hits.size, "the condition never held"
    return int(hits[0])
