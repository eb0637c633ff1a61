"""ISO 4138 steady-state circular driving, constant-radius method: a 100 m circle at a slowly rising speed.

ISO 4138:2021 (its data evaluation, with the terms of ISO 8855:2011) takes the steady state against
lateral acceleration:

- understeer gradient U = d(delta)/d(a_y) - L d(1/R)/d(a_y) (ISO 8855), with delta the
  road-wheel angle (the steering-wheel angle over the overall steering ratio) and the path
  curvature 1/R = yaw rate / speed (ISO 4138 allows R from speed and yaw velocity); here the slope
  of a least-squares line of delta - L r / v against a_y over FIT_RANGE, in deg/g, on the frames
  where the car is on the circle and within STEADY_SPEED of the speed asked for, and not within SHIFT_SETTLE
  of a gear change, in a steady second (as the maximum's, below) and at most LINEAR_SHARE of the maximum lateral
  acceleration (ISO 4138 takes the gradients in the linear range: a car whose limit is within FIT_RANGE is fitted
  below it);
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
from dataclasses import dataclass, replace

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
LINEAR_SHARE = 0.8  # the gradients' fit stops at this share of the maximum lateral acceleration (carbench's choice:
# manual003's limit, 3.4 to 3.6 m/s^2, is within FIT_RANGE, and its delta - L r / v bends up towards it (a local
# slope of 0.5 deg/g at 1.5 m/s^2, 1.7 at 2.5): fitted to 4 m/s^2 with the frames of its breakaway, 4.19 deg/g at
# dt = 1/120 s and 1.59 at 1/2000 s; in steady seconds only 1.64 and 1.76; and to 80% of its maximum, 1.63 and 1.67)
SLIP_STEADY = 10.0  # [deg] the body slip angle's size in a steady second (the presets' limits: 4.6 to 5.5 deg)
AY_STEADY = 0.8  # [m/s^2] the lateral acceleration's range over a steady second (carbench's choice: the ramp moves
# it by 2 v a / R, 0.37 m/s^2 in a second at the circle's top 132 km/h; the presets' ramp seconds move by 0.26 at the
# most at dt = 1/120 s, and manual003's last steady second at 1/2000 s by 0.55 as its limit nears; as manual003 and
# tail_happy break away at 1/120 s, a_y wobbles by 1.45 and 1.14 m/s^2 in a second whose steer stays within
# STEER_STEADY, which read as maxima of 3.96 and 8.29 m/s^2 against 3.62 and 8.04 at 1/2000 s)
HELD_MORE = 0.1  # [m/s^2] a car that fell behind the speed ramp and then held this much more a_y on the circle than
# its steady maximum was short of power, not at its limit (carbench's choice: the road presets at their limit fall
# behind and hold less, or no steady second, after it; the sedan with 120 N m held 7.06 m/s^2 after a maximum of 5.85)
CLAUSE = "ISO 4138:2021 data evaluation; ISO 8855:2011"
_STEADY_TEXT = (f"on the circle at the speed asked for, the steer within {STEER_STEADY:g} deg, the body slip within "
                f"{SLIP_STEADY:g} deg, a_y within {AY_STEADY:g} m/s^2")


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
    f = SteadyFrames(ay, delta, beta, delta - run.params.body.wheelbase * curvature, on, steady, fit)
    # The linear range: frames of a steady second (the slide past the limit passes back through the range, steer
    # swinging), and not past LINEAR_SHARE of the maximum lateral acceleration (the bend towards the limit)
    n = max(round(1.0 / run.dt), 1)
    seconds = steady_seconds(run, f)
    # A frame is covered where a steady second starts at it or within the n - 1 frames before it.
    starts = np.concatenate([[0], np.cumsum(np.pad(seconds, (0, len(t) - len(seconds))))])
    frame = np.arange(len(t))
    covered = starts[frame + 1] > starts[np.maximum(frame - n + 1, 0)]
    ay_max = steady_maximum(run, f)
    if ay_max is None:
        return replace(f, fit=np.zeros(len(t), dtype=bool))
    # The ramp's linear range ends where its steady frames first pass LINEAR_SHARE of the maximum: a car that breaks
    # away further on can pass back below it in a steady second of the catch (manual003 at dt = 1/2000 s: a quarter
    # of a second 4 s after its ramp left the range, steer up to 1 deg off the line, moved its gradient 12%).
    past = f.steady & (ay > LINEAR_SHARE * ay_max)
    ramp = t < t[np.argmax(past)] if past.any() else np.ones(len(t), dtype=bool)
    return replace(f, fit=fit & covered & ramp & (ay <= LINEAR_SHARE * ay_max))


def steady_seconds(run: RunData, f: SteadyFrames) -> np.ndarray:
    """For each second of the run (by its first frame), whether it is steady: every frame quasi-steady
    (``f.steady``), the road-wheel angle's range within STEER_STEADY, the body slip within SLIP_STEADY and the lateral
    acceleration's range within AY_STEADY."""
    n = max(round(1.0 / run.dt), 1)
    if len(run.t) < n:
        return np.zeros(0, dtype=bool)
    unsteady = np.concatenate([[0], np.cumsum(~f.steady)])  # a window is steady where it holds no unsteady frame
    steer = np.degrees(f.delta)
    return ((unsteady[n:] == unsteady[:-n])
            & (window_max(steer, n) - window_min(steer, n) <= STEER_STEADY)
            & (window_max(np.degrees(np.abs(f.beta)), n) <= SLIP_STEADY)
            & (window_max(f.ay, n) - window_min(f.ay, n) <= AY_STEADY))


def window_max(x: np.ndarray, n: int) -> np.ndarray:
    """The largest of each ``n`` frames of ``x`` in a row, one per window start (len(x) - n + 1 of them): what
    ``sliding_window_view(x, n).max(axis=1)`` gives, the same values, in O(len(x)) (van Herk and Gil-Werman: the
    running maximum of each block of n from its start and from its end, two of which cover any window). The windows'
    own took 8 ms a car of the ISO 4138 circle (8,401 frames, 120 a second), three times over: most of a sweep's
    time."""
    m = len(x) - n + 1
    blocks = -(-len(x) // n)
    padded = np.full(blocks * n, -np.inf)
    padded[:len(x)] = x
    rows = padded.reshape(blocks, n)
    ahead = np.maximum.accumulate(rows, axis=1).reshape(-1)  # max from each block's start to the frame
    behind = np.maximum.accumulate(rows[:, ::-1], axis=1)[:, ::-1].reshape(-1)  # max from the frame to its block's end
    return np.maximum(behind[:m], ahead[n - 1:n - 1 + m])


def window_min(x: np.ndarray, n: int) -> np.ndarray:
    """The smallest of each ``n`` frames in a row (:func:`window_max` of -x, negated: the same values)."""
    return -window_max(-x, n)


def fit_note(fitted: np.ndarray, ay_max: float | None = None) -> str:
    """What a gradient was fitted over: the lateral accelerations of the frames it was fitted to, which fall short of
    FIT_RANGE where the car's limit is within it (the fit stops at LINEAR_SHARE of the maximum ``ay_max``) or it
    cannot follow the speed ramp that far."""
    if not len(fitted):
        return f"no quasi-steady frame within a_y {FIT_RANGE[0]:g}..{FIT_RANGE[1]:g} m/s^2"
    lo, hi = float(fitted.min()), float(fitted.max())
    reach = FIT_RANGE[1] - hi > 0.05 * (FIT_RANGE[1] - FIT_RANGE[0])
    limited = ay_max is not None and LINEAR_SHARE * ay_max < FIT_RANGE[1]
    why = (f" (the linear range: up to {100 * LINEAR_SHARE:g}% of the maximum {ay_max:.3g} m/s^2)" if limited else "")
    return (f"fit over a_y {lo:.3g}..{hi:.3g} m/s^2" + (f", short of the {FIT_RANGE[0]:g}..{FIT_RANGE[1]:g} asked for"
                                                         + why if reach else ""))


def steady_maximum(run: RunData, f: SteadyFrames) -> float | None:
    """The highest 1 s mean of a_y over the steady seconds (:func:`steady_seconds`); None where no second is."""
    k = _maximum_second(run, f)
    return None if k is None else float(np.mean(f.ay[k:k + max(round(1.0 / run.dt), 1)]))


def limit_reached(run: RunData, f: SteadyFrames) -> float | None:
    """When the ramp reaches the car's limit: the end of the steady second with the highest mean a_y (what
    :func:`steady_maximum` gives); None where no second is steady. Past it the car breaks away, and a steady-looking
    frame is of its catch, not of the ramp."""
    k = _maximum_second(run, f)
    return None if k is None else float(run.t[min(k + max(round(1.0 / run.dt), 1), len(run.t)) - 1])


def _maximum_second(run: RunData, f: SteadyFrames) -> int | None:
    """The first frame of the steady second with the highest mean a_y (the first of equals), or None."""
    n = max(round(1.0 / run.dt), 1)
    steady = steady_seconds(run, f)
    if not steady.any():
        return None
    starts = np.flatnonzero(steady)
    held = np.lib.stride_tricks.sliding_window_view(f.ay, n)[starts].mean(axis=1)  # the steady seconds' means alone
    return int(starts[np.argmax(held)])


def fell_behind(run: RunData, f: SteadyFrames) -> tuple[float, float, float, float] | None:
    """Where a car on the circle first fell more than STEADY_SPEED behind the speed asked for, after it had reached
    it (the run-up from rest is behind by design): (time [s], speed, speed asked for [m/s], the highest 1 s mean of
    a_y [m/s^2] over the seconds from then on that are steady but for the speed, -inf where none is); None where it
    kept up, or left the circle first. A car short of power falls behind the ramp with grip to spare: its steady
    seconds end there, below its limit."""
    v, target = run["speed"], run["target_speed"]
    reached = np.flatnonzero(f.on & (np.abs(v - target) < STEADY_SPEED))
    if not len(reached):
        return None
    late = f.on & (target - v > STEADY_SPEED) & (np.arange(len(v)) > reached[0])
    if not late.any():
        return None
    k = int(np.argmax(late))
    if not f.on[:k + 1][reached[0]:].all():  # it left the circle before: its grip, not its power
        return None
    # The seconds from then on that are steady but for the speed (on the circle, the steer, body slip and a_y steady:
    # not a breakaway's swing), and the highest mean a_y of them; found over the frames from the fall on only (the
    # whole run's seconds cost a sweep's KPIs a millisecond a car).
    n = max(round(1.0 / run.dt), 1)
    steady = f.on[k:] & (run.t[k:] > 1.0) & ~after_shift(run.t, run["gear"])[k:]
    after = replace(f, ay=f.ay[k:], delta=f.delta[k:], beta=f.beta[k:], steady=steady)
    starts = np.flatnonzero(steady_seconds(run, after)) if len(steady) >= n else np.zeros(0, dtype=int)
    held = (float(np.lib.stride_tricks.sliding_window_view(after.ay, n)[starts].mean(axis=1).max()) if len(starts)
            else -math.inf)
    return float(run.t[k]), float(v[k]), float(target[k]), held


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
        short = fell_behind(run, f)
        # Past its limit a car falls behind the ramp too, its tyres' drag at the grip, and holds less from then on; one
        # that holds more below the speed asked for was short of power, not grip.
        behind = ("" if short is None or ay_max is None or short[3] <= ay_max + HELD_MORE else
                  f"; the car fell behind the speed ramp on the circle at {short[0]:.4g} s ({short[1] * KMH:.4g} km/h "
                  f"against {short[2] * KMH:.4g} asked for): its power, not its grip, ended the steady ramp, and it "
                  f"held up to {short[3]:.3g} m/s^2 on the circle below the speed asked for: the maximum is not its limit")
        kpis = [Kpi("understeer_gradient", "understeer gradient", None if u is None else u * DEG * G, "deg/g",
                    CLAUSE, note=fit_note(fitted, ay_max)),
                Kpi("body_slip_gradient", "body slip angle gradient",
                    None if fit_b is None else fit_b[0] * DEG * G, "deg/g", CLAUSE, note=fit_note(fitted, ay_max)),
                Kpi("max_lateral_acceleration", "maximum lateral acceleration", ay_max, "m/s^2", CLAUSE,
                    note=f"1 s mean over a steady second ({_STEADY_TEXT}){behind}" if ay_max is not None else
                    f"no second of the run was steady ({_STEADY_TEXT})")]
        if u is not None and u > 0:
            kpis.append(Kpi("characteristic_speed", "characteristic speed", math.sqrt(wheelbase / u) * KMH, "km/h",
                            CLAUSE))
        elif u is not None and u < 0:
            kpis.append(Kpi("critical_speed", "critical speed", math.sqrt(-wheelbase / u) * KMH, "km/h",
                            CLAUSE))
        else:
            kpis.append(Kpi("characteristic_speed", "characteristic speed", None, "km/h", CLAUSE))
        return kpis
