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
- the maximum lateral acceleration: the highest 1 s mean of a_y over a second that is steady throughout: every
  frame quasi-steady as the fit's are (on the circle, at the speed asked for, not after a gear change), the
  road-wheel angle moving by at most STEER_STEADY and the body slip angle within SLIP_STEADY (ISO 4138 takes its
  figures in the steady state; a second of the driver catching a slide is not one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.manoeuvres.base import Manoeuvre
from workbench.manoeuvres.kpi import DEG, KMH, G, Kpi, RunData, line_fit

FIT_RANGE = (1.0, 4.0)  # [m/s^2] the linear range the gradients are taken over
ON_CIRCLE = 1.0  # [m] a car further than this from the circle is off the test's radius
STEADY_SPEED = 0.5  # [m/s] a car this close to the driver's target speed is in the quasi-steady ramp
SHIFT_SETTLE = 2.0  # [s] after a gear change, not steady: the sedan's shift at a_y 3 m/s^2 threw delta - L r / v
# off its line by up to 0.14 deg, back within the run's scatter (0.01 deg) 1.6 s later
STEER_STEADY = 5.0  # [deg] the road-wheel angle's range over a steady second (carbench's choice: the presets' grip
# limits are reached with 2.7 and 4.5 deg of steer in their last steady second; the classic's catch of a spin swung it
# 27 deg, with the body slip at 13 deg, and gave a "maximum" 1.6 m/s^2 above anything it held)
SLIP_STEADY = 10.0  # [deg] the body slip angle's size in a steady second (the presets' limits: 4.6 to 5.5 deg)
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


def turn_sign(run: RunData, on: np.ndarray) -> float:
    """1 for a left-hand circle, -1 for a right-hand one: the script's circle's ``turn``, or for a path that is not a
    circle the sign of the mean a_y of the frames on it. Not the whole run's mean a_y: the classic's spin past its
    limit at dt = 1/240 s (tens of seconds of a_y the other way) made that mean negative, every sign was mirrored
    and no frame was left in the fit range."""
    path = getattr(getattr(run.script, "driver", None), "path", None)
    if path is not None and path.kind == "circle":
        return 1.0 if path.get("turn") == "left" else -1.0
    ay = run["accel_lat"][on] if on.any() else run["accel_lat"]
    return 1.0 if np.mean(ay) >= 0 else -1.0


def steady_frames(run: RunData) -> SteadyFrames:
    t, ay, r, v = run.t, run["accel_lat"], run["yaw_rate"], run["speed"]
    on = np.abs(run["lateral_error"]) < ON_CIRCLE
    sign = turn_sign(run, on)  # a right-hand circle: every sign mirrored
    ay, r, delta, beta = sign * ay, sign * r, sign * run["steer"], sign * run["beta"]
    curvature = r / np.maximum(v, 0.5)
    # Quasi-steady frames only: on the circle and at the speed asked for (not the run-up from rest), and not in
    # the transient after a gear change (a shift inside the fit range moved the sedan's gradient by 2%).
    steady = on & (np.abs(v - run["target_speed"]) < STEADY_SPEED) & (t > 1.0) & ~after_shift(t, run["gear"])
    fit = steady & (ay >= FIT_RANGE[0]) & (ay <= FIT_RANGE[1])
    return SteadyFrames(ay, delta, beta, delta - run.params.body.wheelbase * curvature, on, steady, fit)


def fit_note(fitted: np.ndarray) -> str:
    """What a gradient was fitted over: the lateral accelerations of the frames it was fitted to, which fall short of
    FIT_RANGE where the car cannot follow the speed ramp that far (the classic's reach 2.02 m/s^2)."""
    if not len(fitted):
        return f"no quasi-steady frame within a_y {FIT_RANGE[0]:g}..{FIT_RANGE[1]:g} m/s^2"
    lo, hi = float(fitted.min()), float(fitted.max())
    reach = FIT_RANGE[1] - hi > 0.05 * (FIT_RANGE[1] - FIT_RANGE[0])
    return (f"fit over a_y {lo:.3g}..{hi:.3g} m/s^2" + (f", short of the {FIT_RANGE[0]:g}..{FIT_RANGE[1]:g} asked for"
                                                         if reach else ""))


def steady_maximum(run: RunData, f: SteadyFrames) -> float | None:
    """The highest 1 s mean of a_y over the seconds whose every frame is quasi-steady (``f.steady``), with the
    road-wheel angle's range within STEER_STEADY and the body slip within SLIP_STEADY; None where no second is."""
    n = max(round(1.0 / run.dt), 1)
    if len(run.t) < n:
        return None
    windows = np.lib.stride_tricks.sliding_window_view
    steer = np.degrees(f.delta)
    steady = (windows(f.steady, n).all(axis=1)
              & (np.ptp(windows(steer, n), axis=1) <= STEER_STEADY)
              & (windows(np.degrees(np.abs(f.beta)), n).max(axis=1) <= SLIP_STEADY))
    if not steady.any():
        return None
    held = windows(f.ay, n).mean(axis=1)
    return float(held[steady].max())


class SteadyStateCircle(Manoeuvre):
    name = "iso4138"
    title = "Steady-state circular driving (constant radius)"
    standard = "ISO 4138:2021"
    script = "iso4138_circle"
    channels = ("steer", "accel_lat", "yaw_rate", "speed", "beta", "lateral_error", "target_speed", "gear")

    def kpis(self, run: RunData) -> list[Kpi]:
        f = steady_frames(run)
        ay = f.ay
        wheelbase = run.params.body.wheelbase
        fit_u = line_fit(ay[f.fit], f.understeer[f.fit])
        fit_b = line_fit(ay[f.fit], f.beta[f.fit])
        u = fit_u[0] if fit_u else None  # [rad per m/s^2]
        ay_max = steady_maximum(run, f)
        fitted = ay[f.fit]
        kpis = [Kpi("understeer_gradient", "understeer gradient", None if u is None else u * DEG * G, "deg/g",
                    CLAUSE, note=fit_note(fitted)),
                Kpi("body_slip_gradient", "body slip angle gradient",
                    None if fit_b is None else fit_b[0] * DEG * G, "deg/g", CLAUSE, note=fit_note(fitted)),
                Kpi("max_lateral_acceleration", "maximum lateral acceleration", ay_max, "m/s^2", CLAUSE,
                    note=f"1 s mean over a steady second (on the circle at the speed asked for, the steer within "
                         f"{STEER_STEADY:g} deg, the body slip within {SLIP_STEADY:g} deg)" if ay_max is not None else
                    "no second of the run was steady (on the circle at the speed asked for, the steer within "
                    f"{STEER_STEADY:g} deg, the body slip within {SLIP_STEADY:g} deg)")]
        if u is not None and u > 0:
            kpis.append(Kpi("characteristic_speed", "characteristic speed", math.sqrt(wheelbase / u) * KMH, "km/h",
                            CLAUSE))
        elif u is not None and u < 0:
            kpis.append(Kpi("critical_speed", "critical speed", math.sqrt(-wheelbase / u) * KMH, "km/h",
                            CLAUSE))
        else:
            kpis.append(Kpi("characteristic_speed", "characteristic speed", None, "km/h", CLAUSE))
        return kpis
