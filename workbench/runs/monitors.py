"""Invariant monitors: named physical checks evaluated on every frame of every car.

A monitor reads telemetry as (frames, cars) arrays (:class:`Frames`), so the same checks run on a
replay's log and on a hunt's batch. Each has a one-line description and a tolerance; a frame that
breaks it becomes a :class:`Violation` with the values that decided it, in display units.

Telemetry frame k holds the state at the frame's start and what acted during it, so the change
from frame k to k + 1 is what frame k's forces and inputs did.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from physics import CarParams
from physics.aero import drag_constant
from physics.gearbox import ratio_table

_DEG = 180.0 / math.pi
ENERGY_WINDOW = 0.5
"""[s] The energy monitor's span: kinetic energy may not rise beyond the drive's work over any stretch this long."""


@dataclass(frozen=True)
class Frames:
    """Telemetry of a batch over time: channel -> (frames, cars) array, in the model's units.

    ``params`` holds, per car, the parameter sets in effect and the frame each starts on
    (``[(0, params), (k, changed), ...]``); ``lengths`` the number of valid frames per car (cars of one
    batch may run for different times).
    """

    channels: Mapping[str, np.ndarray]
    params: Sequence[Sequence[tuple[int, CarParams]]]
    dt: float
    lengths: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return self.channels["t"].shape

    def __getitem__(self, name: str) -> np.ndarray:
        return self.channels[name]

    def param(self, fn: Callable[[CarParams], float]) -> np.ndarray:
        """``fn`` of the parameters in effect at every (frame, car), as a (frames, cars) array."""
        frames, cars = self.shape
        out = np.empty((frames, cars))
        for i, segments in enumerate(self.params):
            for j, (start, params) in enumerate(segments):
                end = segments[j + 1][0] if j + 1 < len(segments) else frames
                out[start:end, i] = fn(params)
        return out

    def valid(self, pairs: bool = False) -> np.ndarray:
        """Mask of frames that exist for each car (``pairs``: frames k whose k + 1 exists too)."""
        frames, _ = self.shape
        k = np.arange(frames - 1 if pairs else frames)[:, None]
        return k < (self.lengths[None, :] - (1 if pairs else 0))


def frames_from_columns(columns: Mapping[str, np.ndarray], params: Sequence[Sequence[tuple[int, CarParams]]],
                        dt: float, lengths: Sequence[int] | None = None) -> Frames:
    """Frames from (frames, cars) arrays (or (frames,) for one car)."""
    cols = {k: (np.asarray(v, dtype=float)[:, None] if np.ndim(v) == 1 else np.asarray(v, dtype=float))
            for k, v in columns.items()}
    frames, cars = cols["t"].shape
    lens = np.full(cars, frames) if lengths is None else np.asarray(lengths)
    return Frames(cols, params, dt, lens)


@dataclass(frozen=True)
class Violation:
    """A monitor broken by one car: its first frame, how many frames broke it, and the deciding values."""

    monitor: str
    car: int
    frame: int
    time: float
    count: int
    values: tuple[tuple[str, float, str], ...]  # (what, value, display unit)

    def value_texts(self) -> list[str]:
        """One text per value, a limit folded into the value before it: "lateral accel 30 m/s^2 (limit 25)"."""
        out: list[str] = []
        for what, value, unit in self.values:
            if what == "limit" and out:
                out[-1] += f" (limit {value:.4g})"
            else:
                out.append(f"{what} {value:.4g}{' ' + unit if unit else ''}")
        return out

    def values_text(self) -> str:
        return ", ".join(self.value_texts())


Check = Callable[[Frames, float], tuple[np.ndarray, Callable[[int, int], list[tuple[str, float, str]]]]]


@dataclass(frozen=True)
class Monitor:
    """One invariant: a name, a one-line description, a tolerance (with its meaning) and the check."""

    name: str
    description: str
    tolerance: float
    tolerance_doc: str
    check: Check = field(repr=False)
    reads: tuple[str, ...] | None = None  # the channels the check reads ("t" aside); None: every channel

    def run(self, frames: Frames, tolerance: float | None = None) -> list[Violation]:
        """Every car that breaks this monitor: its first violating frame and the count."""
        tol = self.tolerance if tolerance is None else tolerance
        mask, values = self.check(frames, tol)
        out = []
        for car in np.flatnonzero(mask.any(axis=0)):
            hits = np.flatnonzero(mask[:, car])
            k = int(hits[0])
            out.append(Violation(self.name, int(car), k, k * frames.dt, len(hits), tuple(values(k, int(car)))))
        return out


# -- helpers ---------------------------------------------------------------------------------------

def _length_unit(frames: Frames) -> str:
    return frames.params[0][0][1].model.unit


def _kinematic(frames: Frames) -> bool:
    return frames.params[0][0][1].kind == "kinematic"


def _manual(frames: Frames) -> bool:
    return frames.params[0][0][1].manual


def _combined(frames: Frames) -> np.ndarray:
    """Per (frame, car): whether the car runs the combined tyre model (it reads the road under its tyres)."""
    return frames.param(lambda p: 1.0 if p.model.traction == "combined" else 0.0) > 0.0


def _four_wheel(frames: Frames) -> bool:
    p = frames.params[0][0][1]
    return p.kind != "kinematic" and p.model.layout == "four_wheel"


CORNERS = ("fl", "fr", "rl", "rr")


def _world_acceleration(f: Frames) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Acceleration of the reference point from frame k to k + 1 in the car's axes at mid-frame, and the yaw acceleration."""
    h, vx, vy, r = f["heading"], f["vx"], f["vy"], f["yaw_rate"]
    wx = vx * np.cos(h) - vy * np.sin(h)
    wy = vx * np.sin(h) + vy * np.cos(h)
    ax, ay = np.diff(wx, axis=0) / f.dt, np.diff(wy, axis=0) / f.dt
    hm = 0.5 * (h[1:] + h[:-1])
    along = ax * np.cos(hm) + ay * np.sin(hm)
    across = -ax * np.sin(hm) + ay * np.cos(hm)
    return along, across, np.diff(r, axis=0) / f.dt


def _c_drag(p: CarParams) -> float:
    return 0.5 * p.aero.cd * p.aero.frontal_area * p.aero.air_density


def _drive_max(p: CarParams) -> float:
    """Largest drive force the drivetrain can ask of the road [N]."""
    if p.drive is not None:
        return p.drive.force
    ratio = max(max(p.gearbox.ratios), abs(p.gearbox.reverse)) * p.gearbox.final_drive
    return min(p.engine.peak_torque, p.clutch.capacity) * ratio / p.body.wheel_radius


def _tyre_lever(p: CarParams) -> float:
    """The farthest a tyre's contact patch is from the centre of mass [m]: the yaw moment the tyres' grip can give is
    at most their whole grip times it. On the single-track car the axles' distances; on the four-wheel car each
    corner's, half the track out to the side (a wheel braked on one side turns the car about it)."""
    along = max(p.body.lr, p.body.wheelbase - p.body.lr)
    if p.model.layout == "four_wheel":
        return math.hypot(along, 0.5 * p.body.track)
    return along


def _pad(a: np.ndarray) -> np.ndarray:
    """A (frames - 1, cars) pair mask padded to (frames, cars)."""
    return np.vstack([a, np.zeros((1, a.shape[1]), dtype=bool)])


# -- the checks ------------------------------------------------------------------------------------

def _finite(f: Frames, tol: float):
    names = list(f.channels)
    bad = np.zeros(f.shape, dtype=bool)
    for name in names:
        v = f[name]
        bad |= ~np.isfinite(v) | (np.abs(np.nan_to_num(v)) > tol)
    bad &= f.valid()

    from physics import channel_infos
    from physics.units import display_of

    shown = {info.name: display_of(info) for info in channel_infos(_length_unit(f))}

    def values(k, i):
        # each channel beyond the tolerance in its display unit (an angle in deg), the tolerance after them
        out = []
        for name in names:
            v = float(f[name][k, i])
            if not math.isfinite(v) or abs(v) > tol:
                unit, factor = shown.get(name, ("", 1.0))
                out.append((name, v * factor if math.isfinite(v) else v, unit))
        return out[:4] + [("largest magnitude allowed (SI)", tol, "")]

    return bad, values


def _jerk(f: Frames, tol: float):
    along, across, yaw_acc = _world_acceleration(f)
    speed = np.maximum(np.abs(f["speed"][:-1]), np.abs(f["speed"][1:]))
    mass = f.param(lambda p: p.body.mass)[:-1]
    resist = (np.abs(f["drag_force"]) + np.abs(f["rolling_force"]))[:-1] / mass
    lock = f.param(lambda p: p.steering.lock)[:-1]
    rate = f.param(lambda p: p.steering.rate)[:-1]
    wheelbase = f.param(lambda p: p.body.wheelbase)[:-1]
    lr_share = f.param(lambda p: p.body.lr / p.body.wheelbase)[:-1]
    sec2 = 1.0 / np.cos(lock) ** 2
    exempt = np.zeros_like(speed, dtype=bool)
    if _kinematic(f):
        short = f.param(lambda p: p.steering.handbrake_wheelbase or p.body.wheelbase)[:-1]
        wheelbase = np.minimum(wheelbase, short)
        long_lim = f.param(lambda p: (_drive_max(p) + p.brakes.force) / p.body.mass)[:-1] + resist
        weight = np.ones_like(speed)
        # 001's arcade handbrake swaps the wheelbase and caps the speed at once: by design, not a force.
        arcade = f.param(lambda p: float(p.steering.handbrake_wheelbase > 0 or p.brakes.handbrake_speed > 0))[:-1]
        # Frame k's change follows the handbrake of frames k - 1 (the state it starts from) and k.
        on = f["handbrake"] > 0
        hb = on[:-1] | on[1:] | np.vstack([on[:1], on[:-2]])
        exempt |= hb & (arcade > 0)
        grip_long = grip_lat = yaw_grip = 0.0
    else:
        g = f.param(lambda p: p.model.gravity)[:-1]
        mu = f.param(lambda p: p.tyres.mu)[:-1]
        mu_peak = f.param(lambda p: max(p.tyres.mu, p.tyres.traction_mu))[:-1]
        # The combined model's tyres grip with the road's friction under them (a laid surface, mu_front ... mu_rr):
        # the car's own tyres.mu at 0.01 on a dry road had a launch's sideways jerk called impossible.
        combined = _combined(f)[:-1]
        if combined.any():
            names = [f"mu_{c}" for c in CORNERS] if _four_wheel(f) else ["mu_front", "mu_rear"]
            road = np.where(combined, np.max([np.maximum(f[n][:-1], f[n][1:]) for n in names], axis=0), 0.0)
            mu, mu_peak = np.maximum(mu, road), np.maximum(mu_peak, road)
        grip_long = mu_peak * g
        grip_lat = mu * g
        long_lim = grip_long + resist
        yaw_grip = mu * f.param(lambda p: p.model.gravity * p.body.mass * _tyre_lever(p) / p.body.yaw_inertia)[:-1]
        weight = np.maximum(f["kinematic_weight"][:-1], f["kinematic_weight"][1:])
    drag_lat = f.param(_c_drag)[:-1] * speed * speed / mass
    # The kinematic share of the motion turns with the wheel: its lateral and yaw accelerations
    # come from geometry (v^2 tan(lock) / L, the steering rate), not from a force.
    kin_lat = speed * speed * np.tan(lock) / wheelbase + speed * rate * sec2 * lr_share
    kin_yaw = (long_lim * np.tan(lock) + speed * rate * sec2) / wheelbase
    lat_lim = grip_lat + drag_lat + weight * kin_lat
    yaw_lim = yaw_grip + weight * kin_yaw
    k = 1.0 + tol
    # 003's stop rule ends a crawl that this frame's forces leave below stop_speed: a step of at most
    # stop_speed beyond what the forces do, and whatever slow turn the crawl had ends with it.
    stop = f.param(lambda p: p.model.stop_speed)[:-1]
    at_rest = (f["speed"][1:] == 0.0) & (f["vy"][1:] == 0.0) & (f["yaw_rate"][1:] == 0.0)
    stopped = at_rest & (np.hypot(f["vx"][:-1], f["vy"][:-1]) <= stop + f.dt * k * np.maximum(long_lim, lat_lim))
    # Rounding: the world-frame difference of two nearly equal velocities.
    lat_lim = lat_lim + 1e-6 * (long_lim + 1.0)
    yaw_lim = yaw_lim + 1e-6 * (long_lim + 1.0)
    bad_long = (np.abs(along) > k * long_lim + 1e-9) & ~stopped
    bad_lat = (np.abs(across) > k * lat_lim + 1e-9) & ~stopped
    bad_yaw = (np.abs(yaw_acc) > k * yaw_lim + 1e-9) & ~stopped
    bad = (bad_long | bad_lat | bad_yaw) & ~exempt & f.valid(pairs=True)
    unit = _length_unit(f)

    def values(j, i):
        return [("longitudinal accel", float(along[j, i]), f"{unit}/s^2"),
                ("limit", float(k * long_lim[j, i]), f"{unit}/s^2"),
                ("lateral accel", float(across[j, i]), f"{unit}/s^2"),
                ("limit", float(k * lat_lim[j, i]), f"{unit}/s^2"),
                ("yaw accel", float(yaw_acc[j, i] * _DEG), "deg/s^2"),
                ("limit", float(k * yaw_lim[j, i] * _DEG), "deg/s^2"),
                ("speed", float(f["speed"][j, i]), f"{unit}/s")]

    return _pad(bad), values


def _energy(f: Frames, tol: float):
    mass = f.param(lambda p: p.body.mass)
    trans = 0.5 * mass * (f["vx"] ** 2 + f["vy"] ** 2)
    measures = [mass]  # what the energy is weighed with: an edit of one between two frames is no gain or loss
    if _kinematic(f):
        energy = trans
    else:
        inertia = f.param(lambda p: p.body.yaw_inertia)
        energy = trans + 0.5 * inertia * f["yaw_rate"] ** 2
        measures.append(inertia)
    vx_mid = 0.5 * (f["vx"][1:] + f["vx"][:-1])
    work = f.dt * np.maximum(f["drive_force"][:-1] * vx_mid, 0.0)
    combined = f.param(lambda p: 1.0 if getattr(p.model, "traction", "simple") == "combined" else 0.0)
    if combined.any():
        # The combined model's wheels and engine have inertia: the energy they store can push the car
        # (a stalling engine's flywheel through the clutch, spinning wheels gripping again), and the
        # engine's own torque is the work put in (the idle governor works with the throttle closed).
        wheel_f = f.param(lambda p: p.body.wheel_inertia_front) * combined
        wheel_r = f.param(lambda p: p.body.wheel_inertia_rear) * combined
        flywheel = f.param(lambda p: p.engine.inertia if p.engine is not None else 0.0) * combined
        omega = f["rpm"] * (2.0 * np.pi / 60.0)
        if _four_wheel(f):  # each wheel half its axle's inertia
            spin = 0.5 * (wheel_f * (f["wheel_speed_fl"] ** 2 + f["wheel_speed_fr"] ** 2)
                          + wheel_r * (f["wheel_speed_rl"] ** 2 + f["wheel_speed_rr"] ** 2))
        else:
            spin = wheel_f * f["wheel_front"] ** 2 + wheel_r * f["wheel_rear"] ** 2
        energy = energy + 0.5 * (spin + flywheel * omega ** 2)
        measures += [wheel_f, wheel_r, flywheel]
        engine_work = f.dt * np.maximum(f["engine_torque"][:-1] * 0.5 * (omega[1:] + omega[:-1]), 0.0)
        work = np.where(combined[:-1] > 0.0, engine_work, work)
    # The starter's torque is part of engine_torque while it cranks: its work counts like the engine's.
    valid = f.valid(pairs=True)
    coasting = (f["throttle"][:-1] == 0.0) & valid
    # A frame pair across a parameter edit (the mass set while the car rolls) changes the energy by the edit, not
    # by the model: it counts as neither gain nor work (the frames before and after it are judged as ever).
    edited = np.zeros(valid.shape, dtype=bool)
    for m in measures:
        edited |= m[1:] != m[:-1]
    counted = valid & ~edited
    step_gain = np.where(counted, np.diff(energy, axis=0), 0.0)
    step_allowed = np.where(counted, work, 0.0)
    # Over ENERGY_WINDOW of coasting, and each frame at twice the tolerance: a first-order step may
    # trade a little energy within a frame (up to 0.06% of it, measured on a crawling f1tenth car) that
    # the next frames' losses take back, while a source of energy keeps adding.
    # Frame k is judged on the stretch that ends with it (the ENERGY_WINDOW before, or since the start),
    # so a violation's frame is where the energy is found to have risen and a script cut after it
    # still holds the whole stretch.
    frames, cars = step_gain.shape
    n = max(1, int(round(ENERGY_WINDOW / f.dt)))
    zero = np.zeros((1, cars))
    cum_gain = np.vstack([zero, np.cumsum(step_gain, axis=0)])
    cum_allowed = np.vstack([zero, np.cumsum(step_allowed, axis=0)])
    cum_coast = np.vstack([zero, np.cumsum(coasting, axis=0)])
    end = np.arange(1, frames + 1)[:, None] + np.zeros((1, cars), dtype=int)
    start = np.maximum(end - n, 0)
    cols = np.arange(cars)[None, :]
    span = end - start
    gain = cum_gain[end, cols] - cum_gain[start, cols]
    allowed_work = cum_allowed[end, cols] - cum_allowed[start, cols]
    coasting_all = (cum_coast[end, cols] - cum_coast[start, cols]) == span
    allowed = allowed_work + tol * energy[start, cols] + 1e-6 * mass[:-1] * span  # and rounding, per frame
    # A source that fires in one frame (a clutch lock-up making energy) can hide in a stretch's losses
    # at speed: one frame may gain twice the tolerance at most.
    spike = coasting & (step_gain > step_allowed + 2.0 * tol * energy[:-1] + 1e-6 * mass[:-1])
    bad = ((coasting_all & (gain > allowed)) | spike) & valid
    gain = np.where(spike, step_gain, gain)
    allowed_work = np.where(spike, step_allowed, allowed_work)
    span = np.where(spike, 1, span)
    start = np.where(spike, end - 1, start)
    unit = "J" if _length_unit(f) == "m" else "kg px^2/s^2"

    def values(j, i):
        return [("energy gain", float(gain[j, i]), unit), ("drive work", float(allowed_work[j, i]), unit),
                ("kinetic energy", float(energy[start[j, i], i]), unit), ("over", float(span[j, i] * f.dt), "s"),
                ("brake pedal", float(f["brake"][j, i]), "")]

    return _pad(bad), values


def _lateral(f: Frames, tol: float):
    unit = _length_unit(f)
    if _kinematic(f):  # the kinematic bicycle has no tyre forces to compare with
        return np.zeros(f.shape, dtype=bool), lambda j, i: []
    mass = f.param(lambda p: p.body.mass)
    steer = f["steer"]
    # The channels hold the forces the frame's step applied: less drag, they sum to m a_y exactly where the car is
    # fully dynamic. a_y is judged against vx r, which it equals only in steady motion, so where the motion holds still.
    if _four_wheel(f):  # each front wheel at its own angle
        left, right = f["wheel_left"], f["wheel_right"]
        tyres_all = (f["fy_fl"] * np.cos(left) + f["fx_fl"] * np.sin(left) + f["fy_fr"] * np.cos(right)
                     + f["fx_fr"] * np.sin(right) + f["fy_rl"] + f["fy_rr"]) / mass
    else:
        tyres_all = (f["fy_front"] * np.cos(steer) + f["fx_front"] * np.sin(steer) + f["fy_rear"]) / mass
    # The air's drag across the car (physics.aero.resistances, from the frame's start, as the step takes it): the
    # tyres hold m a_y less it, in the dynamic share of the motion as vx r is (the kinematic share has no forces).
    # Left out, a car of a large frontal area (1e4 m^2) at 2 m/s read 2.17 m/s^2 of tyre force against 0.85 of vx r,
    # whatever dt.
    c_drag = f.param(lambda p: drag_constant(p.aero.cd, p.aero.frontal_area, p.aero.air_density))
    vx_all, vy_all = f["vx"], f["vy"]
    drag_y = -c_drag * vy_all * np.hypot(vx_all, vy_all)
    stop = mass * np.abs(vy_all) / f.dt  # never more than stops the sideways motion in a frame (never_reversing)
    tyres_all = tyres_all + (1.0 - f["kinematic_weight"]) * np.clip(drag_y, -stop, stop) / mass
    tyres = tyres_all[:-1]
    w = f["kinematic_weight"][:-1]
    v, r = f["speed"][:-1], f["yaw_rate"][:-1]
    # Fully dynamic, the tyres carry the motion; fully kinematic, the car turns without them. Inside the
    # blend band the two models' yaw rates mix and no single balance holds, so it is not judged there.
    expected = (1.0 - w) * f["vx"][:-1] * r  # a_y = dvy/dt + vx r, and dvy/dt is small in steady motion
    g = f.param(lambda p: p.model.gravity)[:-1]
    # Small beside the mismatch the monitor allows by default: 0.5 m/s^2, or half that allowance, 0.05 (g + |vx r|),
    # where it is less (at the Moon's gravity a car at full lock whose vy still settled by 0.5 m/s^2 failed a balance
    # that held).
    settling = np.minimum(0.5, 0.05 * (g + np.abs(expected)))
    steady = (((w == 0.0) | (w == 1.0)) & (np.abs(np.diff(f["vy"], axis=0)) / f.dt < settling)
              & (np.abs(np.diff(f["yaw_rate"], axis=0)) / f.dt < 0.1)
              & (np.abs(np.diff(f["vx"], axis=0)) / f.dt < 2.0) & (np.abs(np.diff(tyres_all, axis=0)) / f.dt < 5.0)
              & (f["handbrake"][:-1] == 0.0))
    miss = np.abs(tyres - expected)
    bad = steady & (miss > tol * (g + np.abs(expected))) & f.valid(pairs=True)

    def values(j, i):
        return [("tyre and air lateral accel", float(tyres[j, i]), f"{unit}/s^2"),
                ("vx r", float(expected[j, i]), f"{unit}/s^2"),
                ("speed", float(v[j, i]), f"{unit}/s"), ("yaw rate", float(r[j, i] * _DEG), "deg/s")]

    return _pad(bad), values


def _clutch_flip(f: Frames, tol: float):
    """The direction of travel reverses from one frame to the next, or a car that came to rest moves
    again, within one stretch of pressed clutch and released throttle. (The sign of ``speed`` alone
    follows vx, which flips in any spin: the world-frame velocity is what must not reverse.)"""
    bad = np.zeros(f.shape, dtype=bool)
    if not _manual(f):
        return bad, lambda j, i: []
    shift = f.param(lambda p: p.gearbox.shift_clutch)
    # Pressed: far enough for a shift and passing nothing (the automatic launch clutch may still
    # bite on a pedal coming up, and then the engine drives the car).
    cond = (f["clutch_pedal"] >= shift) & (f["clutch"] == 0.0) & (f["throttle"] == 0.0) & f.valid()
    h, vx, vy = f["heading"], f["vx"], f["vy"]
    wx, wy = vx * np.cos(h) - vy * np.sin(h), vx * np.sin(h) + vy * np.cos(h)
    size = np.hypot(vx, vy)
    moving = size > tol
    reversed_ = (wx[:-1] * wx[1:] + wy[:-1] * wy[1:] < 0.0) & moving[:-1] & moving[1:] & cond[:-1] & cond[1:]
    bad[1:] |= reversed_
    rest = cond & ~moving
    seen = np.cumsum(rest, axis=0)
    before = np.vstack([np.zeros((1, f.shape[1])), seen[:-1]])
    starts = cond & ~np.vstack([np.zeros((1, f.shape[1]), dtype=bool), cond[:-1]])
    base = np.maximum.accumulate(np.where(starts, before, 0.0), axis=0)
    bad |= cond & moving & (before - base > 0)
    unit = _length_unit(f)

    def values(j, i):
        prev = float(f["speed"][j - 1, i]) if j > 0 else float("nan")
        return [("speed before", prev, f"{unit}/s"), ("speed", float(f["speed"][j, i]), f"{unit}/s"),
                ("clutch pedal", float(f["clutch_pedal"][j, i]), ""), ("brake pedal", float(f["brake"][j, i]), "")]

    return bad, values


def _rest(f: Frames, tol: float):
    speed, r = f["speed"], f["yaw_rate"]
    at_rest = (np.abs(speed[:-1]) == 0.0) & (np.abs(r[:-1]) == 0.0)
    idle = (f["throttle"][:-1] == 0.0) & (f["brake"][:-1] == 0.0)
    if _manual(f):
        # An idling engine in gear with the clutch biting pushes the car (idle creep, then a stall):
        # that is input, not rest. At rest means no drive path: neutral, or the clutch fully open.
        idle &= (f["gear"][:-1] == 0.0) | (f["clutch"][:-1] == 0.0)
    moved = np.hypot(np.diff(f["x"], axis=0), np.diff(f["y"], axis=0))
    turned = np.abs(np.diff(f["heading"], axis=0))
    bad = at_rest & idle & ((np.abs(speed[1:]) > tol) | (np.abs(r[1:]) > tol) | (moved > tol * f.dt)
                            | (turned > tol * f.dt)) & f.valid(pairs=True)
    unit = _length_unit(f)

    def values(j, i):
        return [("speed after", float(speed[j + 1, i]), f"{unit}/s"),
                ("yaw rate after", float(r[j + 1, i] * _DEG), "deg/s"), ("moved", float(moved[j, i]), unit)]

    return _pad(bad), values


def _grip(f: Frames, tol: float):
    """Each axle's tyre force within the road's grip: on the combined model the resultant of its longitudinal
    and lateral force within mu Fz (the ellipse's larger axis); on 003's simple rules, which keep the
    lateral force and the drive force apart, each within its own limit."""
    if _kinematic(f):
        return np.zeros(f.shape, dtype=bool), lambda j, i: []
    axis = f.param(lambda p: max(1.0, p.tyres.lateral_share))
    k = 1.0 + tol
    if _four_wheel(f):  # each tyre against its own load and friction coefficient (the road's, and its load's)
        use4 = {c: np.hypot(f[f"fx_{c}"], f[f"fy_{c}"]) / np.maximum(f[f"mu_{c}"] * axis * f[f"load_{c}"], 1e-9)
                for c in CORNERS}
        for c in CORNERS:  # a lifted wheel passes nothing
            use4[c] = np.where(f[f"load_{c}"] > 0.0, use4[c], np.where(np.hypot(f[f"fx_{c}"], f[f"fy_{c}"]) > 0.0,
                                                                       np.inf, 0.0))
        bad4 = np.zeros(f.shape, dtype=bool)
        for c in CORNERS:
            bad4 |= use4[c] > k
        bad4 &= f.valid()

        def values4(j, i):
            return [(f"{c} tyre", float(use4[c][j, i]), "x mu Fz") for c in CORNERS]

        return bad4, values4
    mu = f.param(lambda p: p.tyres.mu)
    combined = _combined(f)
    drive_mu = f.param(lambda p: max(p.tyres.mu, p.tyres.traction_mu))
    all_driven = f.param(lambda p: 1.0 if p.body.driven_axle == "all" else 0.0) > 0.0
    out = np.zeros(f.shape, dtype=bool)
    use = {}
    for axle in ("front", "rear"):
        fx, fy, load = f[f"fx_{axle}"], f[f"fy_{axle}"], f[f"load_{axle}"]
        # The combined model reads the surface under the axle (003's simple rules know no surfaces).
        road = np.where(combined, f[f"mu_{axle}"], mu) if combined.any() else mu
        ellipse = np.hypot(fx, fy) / (road * axis * load)
        drive_load = np.where(all_driven, f["load_front"] + f["load_rear"], load)
        apart = np.maximum(np.abs(fy) / (mu * load), np.abs(fx) / (drive_mu * drive_load))
        use[axle] = np.where(combined, ellipse, apart)
        out |= use[axle] > k
    bad = out & f.valid()

    def values(j, i):
        return [("front tyre", float(use["front"][j, i]), "x mu Fz"), ("rear tyre", float(use["rear"][j, i]),
                "x mu Fz"), ("rear force", float(np.hypot(f["fx_rear"][j, i], f["fy_rear"][j, i])), "N"),
                ("rear load", float(f["load_rear"][j, i]), "N")]

    return bad, values


def _gear_ratio(f: Frames) -> np.ndarray:
    """|gear ratio x final drive| of the gear engaged at every (frame, car); 0 in neutral."""
    gear = f["gear"]
    out = np.zeros(f.shape)
    for g in np.unique(gear[f.valid()]):
        n = int(g)
        if n == 0:
            continue

        def ratio(p: CarParams, n=n) -> float:
            table = ratio_table(p.gearbox.ratios, p.gearbox.reverse)
            return abs(table[n + 1]) * p.gearbox.final_drive if n + 1 < len(table) else 0.0

        out = np.where(gear == g, f.param(ratio), out)
    return out


def _rpm(f: Frames, tol: float):
    """Below 0 never; past the rev limit (and the tolerance) only as the wheels turn the engine through the clutch,
    as a downshift at speed does: the limiter's fuel cut on (no positive engine torque), and a rising engine speed
    no higher than the fastest wheel (or the road under the car) turns it in the gear engaged."""
    if not _manual(f):
        return np.zeros(f.shape, dtype=bool), lambda j, i: []
    limit = f.param(lambda p: p.engine.rev_limit)
    radius = f.param(lambda p: p.body.wheel_radius)
    rpm, torque = f["rpm"], f["engine_torque"]
    wheel = np.abs(f["speed"]) / radius
    for name in ("wheel_front", "wheel_rear") + tuple(f"wheel_speed_{c}" for c in CORNERS):
        wheel = np.maximum(wheel, np.abs(f[name]))
    turned = wheel * _gear_ratio(f) * (60.0 / (2.0 * math.pi))  # [rpm] the engine as the wheels turn it
    rising = np.zeros(f.shape, dtype=bool)
    rising[1:] = rpm[1:] > rpm[:-1]
    past = rpm > limit + tol
    fuel = torque > 0.0
    # 003's engine (the simple traction model): where the car rolls against the gear engaged its friction acts the
    # other way, so that engine braking brakes (physics.engine.net_torque's ``turned_back``): positive with the fuel
    # cut. Read as fuel, a car rolling forwards at 31 m/s with reverse selected and the engine still past the limit
    # from a downshift, the clutch pressed, fired (`carbench hunt --seed 7002`, manual003).
    simple = f.param(lambda p: 1.0 if p.model.traction == "simple" else 0.0) > 0.0
    fuel &= ~(simple & (np.sign(f["gear"]) * f["vx"] < 0.0))
    own = past & (fuel | (rising & (rpm > turned + tol)))
    bad = ((rpm < 0.0) | own) & f.valid()

    def values(j, i):
        return [("rpm", float(rpm[j, i]), "rpm"), ("rev limit", float(limit[j, i]), "rpm"),
                ("engine torque", float(torque[j, i]), "N m"), ("wheels turn it at", float(turned[j, i]), "rpm"),
                ("gear", float(f["gear"][j, i]), ""), ("speed", float(f["speed"][j, i]), "m/s")]

    return bad, values


_AXLE_AND_CORNER_FORCES = tuple(f"{q}_{c}" for c in ("front", "rear") + CORNERS for q in ("fx", "fy", "mu", "load"))

MONITORS: tuple[Monitor, ...] = (
    Monitor("finite", "every channel of every frame is a finite number, no larger in magnitude than the tolerance",
            1e12, "largest magnitude accepted, in the channel's own unit (SI)", _finite),
    Monitor("impossible_jerk", "frame-to-frame change of speed, lateral speed and yaw rate within what the "
            "tyres' grip and the drive and brakes allow", 0.5,
            "margin over the limit derived from the car's parameters (0.5 = 50%)", _jerk,
            ("heading", "vx", "vy", "yaw_rate", "speed", "drag_force", "rolling_force", "handbrake",
             "kinematic_weight", "mu_front", "mu_rear") + tuple(f"mu_{c}" for c in CORNERS)),
    Monitor("energy_gain", "kinetic energy never rises by more than the drive work while coasting or braking",
            1e-3, f"share of the kinetic energy the car may gain beyond the drive work in {ENERGY_WINDOW:g} s (twice "
            "that in one frame)", _energy,
            ("vx", "vy", "yaw_rate", "drive_force", "rpm", "engine_torque", "throttle", "brake", "wheel_front",
             "wheel_rear") + tuple(f"wheel_speed_{c}" for c in CORNERS)),
    Monitor("lateral_balance", "in steady motion the tyres' and the air's lateral force over the mass is vx r (none when "
            "fully kinematic)", 0.1, "allowed mismatch as a share of g + |v r|", _lateral,
            ("steer", "wheel_left", "wheel_right", "fy_front", "fx_front", "fy_rear", "kinematic_weight", "speed",
             "yaw_rate", "vx", "vy", "handbrake") + tuple(f"{q}_{c}" for c in CORNERS for q in ("fx", "fy"))),
    Monitor("clutch_flip", "no speed sign flip while the clutch is pressed and the throttle off", 1e-3,
            "speeds below this [m/s] count as rest", _clutch_flip,
            ("clutch_pedal", "clutch", "throttle", "heading", "vx", "vy", "speed", "brake")),
    Monitor("rest_stays_rest", "a car at rest with no pedal pressed stays at rest", 1e-6,
            "largest speed [m/s], yaw rate [rad/s] or drift per second still counted as rest", _rest,
            ("speed", "yaw_rate", "throttle", "brake", "gear", "clutch", "x", "y", "heading")),
    Monitor("rpm_range", "engine speed within [0, rev limit + tolerance]; past it only as the wheels turn the engine "
            "through the clutch (a downshift at speed), its fuel cut", 300.0,
            "rpm allowed above the rev limit (and above the wheels' own speed in the gear)", _rpm,
            ("rpm", "gear", "speed", "vx", "engine_torque", "wheel_front", "wheel_rear")
            + tuple(f"wheel_speed_{c}" for c in CORNERS)),
    Monitor("grip_limit", "no tyre's force beyond the road's grip mu Fz of its axle", 0.02,
            "share the force may pass mu Fz by (0.02 = 2%)", _grip, _AXLE_AND_CORNER_FORCES),
)

BY_NAME: dict[str, Monitor] = {m.name: m for m in MONITORS}


def names() -> list[str]:
    return [m.name for m in MONITORS]


def get(name: str) -> Monitor:
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown monitor {name!r}; the monitors are: {', '.join(names())}") from None


def channels_read(selection: Sequence[str] | None = None) -> tuple[str, ...] | None:
    """The channels the selected monitors (all by default) read, "t" first; None when one of them reads every
    channel (``finite``)."""
    chosen = [get(name) for name in (selection or names())]
    if any(m.reads is None for m in chosen):
        return None
    return tuple(dict.fromkeys(("t",) + tuple(name for m in chosen for name in m.reads)))


def run_monitors(frames: Frames, selection: Sequence[str] | None = None,
                 tolerances: Mapping[str, float] | None = None) -> list[Violation]:
    """Every violation of the selected monitors (all by default), by monitor then car."""
    tolerances = tolerances or {}
    out = []
    for name in selection or names():
        out.extend(get(name).run(frames, tolerances.get(name)))
    return out


def frames_of_batch(log, programs: Sequence) -> Frames:
    """Frames of a batch replayed by ``workbench.runs.replay.run_batch``: car i of ``log`` ran ``programs[i]``."""
    columns = {name: log.channel_block(name) for name in log.names}
    params = [[(0, p.params), *p.param_changes] for p in programs]
    return Frames(columns, params, programs[0].dt, np.array([p.frames for p in programs]))


def frames_of_result(result) -> Frames:
    """Frames of one replayed script (a :class:`workbench.runs.replay.ReplayResult`)."""
    p = result.program
    columns = {name: result.log.column(name, result.car, p.frames)[:, None] for name in result.log.names}
    return Frames(columns, [[(0, p.params), *p.param_changes]], p.dt, np.array([p.frames]))


@dataclass(frozen=True)
class ScriptViolation:
    """A violation found in one replayed script (``index`` into the results)."""

    index: int
    script: str
    violation: Violation


def check_results(results: Sequence, everything: bool = False) -> list[ScriptViolation]:
    """The violations of each replayed script's ``[[monitor]]`` entries, or of every monitor with ``everything``.

    A script's own entry sets the tolerance of its monitor in both cases.
    """
    out = []
    for i, result in enumerate(results):
        own = {m.name: m.tolerance for m in result.program.script.monitors}
        selection = names() if everything else list(own)
        if not selection:
            continue
        tolerances = {k: v for k, v in own.items() if v is not None}
        for v in run_monitors(frames_of_result(result), selection, tolerances):
            out.append(ScriptViolation(i, result.program.name, v))
    return out


def violations_table(found: Sequence[ScriptViolation], checked: int) -> str:
    """The violations as text lines (one per monitor and script), or a line saying none fired."""
    if not found:
        return f"monitors: no violation in {checked} script{'s' if checked != 1 else ''}"
    lines = [f"monitors: {len(found)} violation{'s' if len(found) != 1 else ''}"]
    for s in found:
        v = s.violation
        frames = f", {v.count} frames" if v.count > 1 else ""
        lines.append(f"  VIOLATED  {v.monitor}  {s.script} (car {v.car})  frame {v.frame} at {v.time:.4g} s"
                     f"{frames}: {v.values_text()}")
    return "\n".join(lines)


def violations_json(found: Sequence[ScriptViolation]) -> list[dict]:
    return [{"monitor": s.violation.monitor, "script": s.script, "car": s.violation.car, "frame": s.violation.frame,
             "time": s.violation.time, "frames": s.violation.count,
             "values": [{"name": what, "value": value, "unit": unit} for what, value, unit in s.violation.values]}
            for s in found]
