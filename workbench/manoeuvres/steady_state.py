"""ISO 4138 steady-state circular driving, constant-radius method: a 100 m circle at a slowly rising speed.

ISO 4138:2021 (its data evaluation, with the terms of ISO 8855:2011) takes the steady state against
lateral acceleration:

- understeer gradient U = d(delta)/d(a_y) - L d(1/R)/d(a_y) (ISO 8855), with delta the
  road-wheel angle (the steering-wheel angle over the overall steering ratio) and the path
  curvature 1/R = yaw rate / speed (ISO 4138 allows R from speed and yaw velocity); here the slope
  of a least-squares line of delta - L r / v against a_y over FIT_RANGE, in deg/g, on the frames
  where the car is on the circle and within STEADY_SPEED of the speed asked for, and not within SHIFT_SETTLE
  of a gear change;
- body slip angle gradient d(beta)/d(a_y) over the same range, in deg/g;
- the characteristic speed sqrt(L / U) of an understeering car, or the critical speed sqrt(-L / U) of
  an oversteering one (ISO 8855);
- the maximum lateral acceleration: the highest 1 s mean of a_y while the car stays within 1 m of the
  circle (past it the car no longer drives the test's radius).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.manoeuvres.base import Manoeuvre
from workbench.manoeuvres.kpi import DEG, KMH, G, Kpi, RunData, line_fit, moving_mean

FIT_RANGE = (1.0, 4.0)  # [m/s^2] the linear range the gradients are taken over
ON_CIRCLE = 1.0  # [m] a car further than this from the circle is off the test's radius
STEADY_SPEED = 0.5  # [m/s] a car this close to the driver's target speed is in the quasi-steady ramp
SHIFT_SETTLE = 2.0  # [s] after a gear change, not steady: the sedan's shift at a_y 3 m/s^2 threw delta - L r / v
# off its line by up to 0.14 deg, back within the run's scatter (0.01 deg) 1.6 s later
CLAUSE = "ISO 4138:2021 data evaluation; ISO 8855:2011"


@dataclass(frozen=True)
class SteadyFrames:
    """A run's steady-state data with a right-hand circle's signs mirrored: lateral acceleration, road-wheel
    angle delta, body slip, delta - L r / v (what the understeer gradient is the slope of), and which frames
    are on the circle, quasi-steady (on it, at the speed asked for, after the first second), and in the fit."""

    ay: np.ndarray
    delta: np.ndarray
    beta: np.ndarray
    understeer: np.ndarray
    on: np.ndarray
    steady: np.ndarray
    fit: np.ndarray


def after_shift(t: np.ndarray, gear: np.ndarray, settle: float = SHIFT_SETTLE) -> np.ndarray:
    """Which frames lie within ``settle`` seconds of a gear change (from the frame of the change on)."""
    changed = t[1:][np.diff(gear) != 0]
    out = np.zeros(len(t), dtype=bool)
    for start in changed:
        out |= (t >= start) & (t < start + settle)
    return out


def steady_frames(run: RunData) -> SteadyFrames:
    t, ay, r, v = run.t, run["accel_lat"], run["yaw_rate"], run["speed"]
    sign = 1.0 if np.mean(ay) >= 0 else -1.0  # a right-hand circle: every sign mirrored
    ay, r, delta, beta = sign * ay, sign * r, sign * run["steer"], sign * run["beta"]
    on = np.abs(run["lateral_error"]) < ON_CIRCLE
    curvature = r / np.maximum(v, 0.5)
    # Quasi-steady frames only: on the circle and at the speed asked for (not the run-up from rest), and not in
    # the transient after a gear change (a shift inside the fit range moved the sedan's gradient by 2%).
    steady = on & (np.abs(v - run["target_speed"]) < STEADY_SPEED) & (t > 1.0) & ~after_shift(t, run["gear"])
    fit = steady & (ay >= FIT_RANGE[0]) & (ay <= FIT_RANGE[1])
    return SteadyFrames(ay, delta, beta, delta - run.params.body.wheelbase * curvature, on, steady, fit)


class SteadyStateCircle(Manoeuvre):
    name = "iso4138"
    title = "Steady-state circular driving (constant radius)"
    standard = "ISO 4138:2021"
    script = "iso4138_circle"
    channels = ("steer", "accel_lat", "yaw_rate", "speed", "beta", "lateral_error", "target_speed", "gear")

    def kpis(self, run: RunData) -> list[Kpi]:
        f = steady_frames(run)
        t, ay, on = run.t, f.ay, f.on
        wheelbase = run.params.body.wheelbase
        fit_u = line_fit(ay[f.fit], f.understeer[f.fit])
        fit_b = line_fit(ay[f.fit], f.beta[f.fit])
        u = fit_u[0] if fit_u else None  # [rad per m/s^2]
        held = moving_mean(ay, round(1.0 / run.dt))
        reach = np.flatnonzero(~on & (t > 1.0))
        last = reach[0] if len(reach) else len(t)
        ay_max = float(held[:last].max()) if last > 0 else None
        kpis = [Kpi("understeer_gradient", "understeer gradient", None if u is None else u * DEG * G, "deg/g",
                    CLAUSE, note=f"fit over a_y {FIT_RANGE[0]:g}..{FIT_RANGE[1]:g} m/s^2"),
                Kpi("body_slip_gradient", "body slip angle gradient",
                    None if fit_b is None else fit_b[0] * DEG * G, "deg/g", CLAUSE),
                Kpi("max_lateral_acceleration", "maximum lateral acceleration", ay_max, "m/s^2", CLAUSE,
                    note=f"1 s mean, within {ON_CIRCLE:g} m of the circle")]
        if u is not None and u > 0:
            kpis.append(Kpi("characteristic_speed", "characteristic speed", math.sqrt(wheelbase / u) * KMH, "km/h",
                            CLAUSE))
        elif u is not None and u < 0:
            kpis.append(Kpi("critical_speed", "critical speed", math.sqrt(-wheelbase / u) * KMH, "km/h",
                            CLAUSE))
        else:
            kpis.append(Kpi("characteristic_speed", "characteristic speed", None, "km/h", CLAUSE))
        return kpis
