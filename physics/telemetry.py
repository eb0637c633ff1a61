"""Telemetry: every named quantity one frame exposes, with its unit and a one-line description.

Each field of :class:`Telemetry` is a channel: the schema from which physics.records generates
the record the kernel writes (all float64), and a step returns a :class:`TelemetryFrame` with the
same names. Units are SI with lengths in the preset's unit; ``display`` names the unit the
workbench shows (degrees for angles).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields

import numpy as np

from . import corners
from .schema import unit_in


def channel(unit: str, doc: str, display: str | None = None, si_only: bool = False):
    return field(metadata=dict(unit=unit, doc=doc, display=display, si_only=si_only))


@dataclass(slots=True)
class Telemetry:
    """One frame of a car: the state at the frame's start and what acted during it (the channel schema)."""

    t: np.ndarray = channel("s", "simulation time of the frame, k * dt")
    x: np.ndarray = channel("m", "position of the reference point, world x")
    y: np.ndarray = channel("m", "position of the reference point, world y")
    heading: np.ndarray = channel("rad", "heading from +x, counter-clockwise", "deg")
    speed: np.ndarray = channel("m/s", "speed of the reference point |v|, negative while the car travels backwards "
                                       "(the sign changes only through a standstill, never in a spin)")
    speed_kmh: np.ndarray = channel("km/h", "speed in km/h", si_only=True)
    vx: np.ndarray = channel("m/s", "forward velocity in the car frame")
    vy: np.ndarray = channel("m/s", "leftward velocity in the car frame")
    yaw_rate: np.ndarray = channel("rad/s", "yaw rate, counter-clockwise", "deg/s")
    beta: np.ndarray = channel("rad", "body slip angle: velocity direction minus heading", "deg")
    steer: np.ndarray = channel("rad", "bicycle front-wheel angle, positive left", "deg")
    wheel_left: np.ndarray = channel("rad", "left front wheel angle (Ackermann)", "deg")
    wheel_right: np.ndarray = channel("rad", "right front wheel angle (Ackermann)", "deg")
    curvature: np.ndarray = channel("1/m", "predicted path curvature of the rear axle, tan(steer) / L")
    throttle: np.ndarray = channel("", "throttle pedal 0..1")
    brake: np.ndarray = channel("", "brake pedal 0..1")
    clutch_pedal: np.ndarray = channel("", "clutch pedal 0..1 (1 = pressed)")
    clutch: np.ndarray = channel("", "clutch engagement 0..1 (1 = engaged)")
    handbrake: np.ndarray = channel("", "handbrake on (1) or off (0)")
    gear: np.ndarray = channel("", "gear: -1 reverse, 0 neutral, 1.. forward")
    rpm: np.ndarray = channel("rpm", "engine speed")
    throttle_applied: np.ndarray = channel("", "the throttle the engine (or a direct drive) gets, 0..1: the pedal less "
                                               "what the rev limiter, traction control and stability control cut")
    engine_torque: np.ndarray = channel("N m", "engine torque at the flywheel (negative: engine braking)")
    axle_torque: np.ndarray = channel("N m", "torque reaching the driven axle")
    drive_force: np.ndarray = channel("N", "drive force the driven wheels put on the road")
    drag_force: np.ndarray = channel("N", "aerodynamic drag along the car's x axis")
    rolling_force: np.ndarray = channel("N", "rolling resistance along the car's x axis")
    brake_force: np.ndarray = channel("N", "braking force along the car's x axis (handbrake included)")
    accel_long: np.ndarray = channel("m/s^2", "longitudinal acceleration from the forces")
    accel_lat: np.ndarray = channel("m/s^2", "lateral acceleration: the frame's change of the velocity in the world "
                                             "along the car's lateral axis at the frame's end, over dt (about dvy/dt "
                                             "+ vx * yaw_rate at the frame's start)")
    wheelspin: np.ndarray = channel("", "driven wheels spinning (1) or gripping (0)")
    slip_front: np.ndarray = channel("rad", "front slip angle: travel direction minus wheel direction", "deg")
    slip_rear: np.ndarray = channel("rad", "rear slip angle", "deg")
    fy_front: np.ndarray = channel("N", "front tyre lateral force acting on the car")
    fy_rear: np.ndarray = channel("N", "rear tyre lateral force acting on the car")
    load_front: np.ndarray = channel("N", "front axle load (weight transfer)")
    load_rear: np.ndarray = channel("N", "rear axle load (weight transfer)")
    kinematic_weight: np.ndarray = channel("", "low-speed blend: 1 = fully kinematic, 0 = fully dynamic (combined: "
                                                "how far the rear axle is below the slip speed)")
    wheel_front: np.ndarray = channel("rad/s", "front axle's wheel speed (rolling speed / radius outside the combined "
                                               "model)")
    wheel_rear: np.ndarray = channel("rad/s", "rear axle's wheel speed")
    slip_ratio_front: np.ndarray = channel("", "front longitudinal slip ratio (omega R - u) / max(|u|, slip speed)")
    slip_ratio_rear: np.ndarray = channel("", "rear longitudinal slip ratio; positive: wheelspin, -1: locked")
    fx_front: np.ndarray = channel("N", "front tyre longitudinal force, along the wheel")
    fx_rear: np.ndarray = channel("N", "rear tyre longitudinal force")
    grip_front: np.ndarray = channel("", "share of the front tyres' friction ellipse in use, 0..1")
    grip_rear: np.ndarray = channel("", "share of the rear tyres' friction ellipse in use, 0..1")
    brake_front: np.ndarray = channel("N", "front brake force (brake torque / wheel radius) acting")
    brake_rear: np.ndarray = channel("N", "rear brake force, handbrake included")
    stalled: np.ndarray = channel("", "engine stalled (1) or running (0)")
    tcs_active: np.ndarray = channel("", "traction control cutting the engine's torque (1) or not (0)")
    roll: np.ndarray = channel("rad", "body roll, positive to the right (four-wheel model)", "deg")
    mu_front: np.ndarray = channel("", "the front tyres' friction coefficient: the road's under them (four-wheel: the "
                                       "front wheels' mean, each the road's less tyres.load_sensitivity at its load: "
                                       "mu_fl, mu_fr)")
    mu_rear: np.ndarray = channel("", "the rear tyres' friction coefficient")
    esc_active: np.ndarray = channel("", "stability control braking a wheel (1) or not (0)")
    lateral_error: np.ndarray = channel("m", "driver: distance of the reference point from the path, positive "
                                             "left (0 without a path)")
    path_distance: np.ndarray = channel("m", "driver: arc length along the path of the nearest point (0 without "
                                             "a path)")
    target_speed: np.ndarray = channel("m/s", "driver: the speed it is asked to hold (0 when it holds none)")
    target_x: np.ndarray = channel("m", "driver: the preview point on the path it steers for, world x (the car's "
                                        "position without a path)")
    target_y: np.ndarray = channel("m", "driver: the preview point, world y")


class TelemetryFrame:
    """One frame of N cars as the kernel wrote it: each channel an array over the cars.

    ``frame.rpm`` or ``frame["rpm"]`` (shape (N,), views); ``frame.records`` is the (N,) record
    array of physics.records.TELEMETRY itself, ``frame.values`` the same memory as (N, channels) float64.
    """

    __slots__ = ("records", "_flat")

    def __init__(self, records: np.ndarray, flat: np.ndarray | None = None):
        self.records = records
        self._flat = flat  # (N * channels,) float64 over the same memory, when the maker had it at hand

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.records[name]
        except (KeyError, ValueError):
            raise AttributeError(name) from None

    def __getitem__(self, name: str) -> np.ndarray:
        return self.records[name]

    @property
    def flat(self) -> np.ndarray:
        """Every channel of every car, car by car in record order, as one float64 array (a view)."""
        if self._flat is None:
            self._flat = self.records.view(np.float64).reshape(-1)
        return self._flat

    @property
    def values(self) -> np.ndarray:
        """(N, channels) float64, the channels in record order (a view)."""
        return self.flat.reshape(len(self.records), -1)

    def copy(self) -> TelemetryFrame:
        return TelemetryFrame(self.records.copy())


@dataclass(frozen=True)
class ChannelInfo:
    """What a channel is: its name, unit (in the preset's unit of length), description and display unit."""

    name: str
    unit: str
    doc: str
    display: str | None


class UnknownChannelError(KeyError):
    """A channel name that does not exist; the message lists the known ones."""

    def __init__(self, name: str, known: list[str]):
        self.name = name
        self.known = known
        super().__init__(name)

    def __str__(self) -> str:
        return f"unknown channel {self.name!r}; the channels are: {', '.join(self.known)}"


def channel_infos(length_unit: str = "m") -> list[ChannelInfo]:
    """Every channel a car with this unit of length exposes (speed_kmh only for SI presets), the
    four-wheel model's per-corner channels (physics.corners) last."""
    return list(_channel_infos(length_unit))


@functools.cache
def _channel_infos(length_unit: str) -> tuple[ChannelInfo, ...]:
    """channel_infos, made once per unit of length: every batch run that names its channels asks (a sweep, each
    block of frames)."""
    out = []
    for f in fields(Telemetry):
        if f.metadata["si_only"] and length_unit != "m":
            continue
        out.append(ChannelInfo(f.name, unit_in(f.metadata["unit"], length_unit), f.metadata["doc"],
                               f.metadata["display"]))
    for name, unit, doc, display in corners.channel_fields():
        out.append(ChannelInfo(name, unit_in(unit, length_unit), doc, display))
    return tuple(out)


# Channels a car writes only when it has the part behind them (the kernel writes 0 or a constant otherwise).
ENGINE_CHANNELS = ("rpm", "engine_torque", "clutch", "stalled")
TYRE_CHANNELS = ("vy", "beta", "wheelspin", "slip_front", "slip_rear", "fy_front", "fy_rear", "load_front",
                 "load_rear", "kinematic_weight", "grip_front", "grip_rear", "mu_front", "mu_rear")
SLIP_RATIO_CHANNELS = ("slip_ratio_front", "slip_ratio_rear", "fx_front")
FOUR_WHEEL_CHANNELS = ("roll", "esc_active")
# The channels of the driver aids (traction and stability control, and their corners' tcs_fl ... esc_rr), which a car
# without [aids] reads as 0.
AIDS_CHANNELS = ("tcs_active", "esc_active") + tuple(name for name, *_ in corners.channel_fields()
                                                     if name.split("_", 1)[0] in ("tcs", "esc"))


def channels_of(params) -> list[ChannelInfo]:
    """The channels that mean something for the car ``params`` (physics.CarParams), in channel_infos order.

    A kinematic car has no tyre forces, a car without an engine no engine speed, a tyre model without
    wheel slip no slip ratios, a single-track car no roll, stability control or per-corner channels,
    a car without driver aids no traction control. Every channel stays in the telemetry (scripts,
    CSV and batches see the same columns for every car); this is what a view of one car lists.
    """
    from .params import COMBINED, FOUR_WHEEL, KINEMATIC

    model = params.model
    hidden: set[str] = set()
    if params.engine is None:
        hidden.update(ENGINE_CHANNELS)
    if model.kind == KINEMATIC:
        hidden.update(TYRE_CHANNELS)
    if model.kind == KINEMATIC or model.traction != COMBINED:
        hidden.update(SLIP_RATIO_CHANNELS)
    if params.aids is None:
        hidden.update(AIDS_CHANNELS)
    if params.tyres is None or model.layout != FOUR_WHEEL:
        hidden.update(FOUR_WHEEL_CHANNELS)
        hidden.update(name for name, *_ in corners.channel_fields())
    return [info for info in channel_infos(model.unit) if info.name not in hidden]


def channel_names_all() -> list[str]:
    """Every channel the kernel writes, in record order (speed_kmh included)."""
    return [f.name for f in fields(Telemetry)] + [name for name, *_ in corners.channel_fields()]


def channel_names(length_unit: str = "m") -> list[str]:
    return [c.name for c in channel_infos(length_unit)]


def check_channel(name: str, length_unit: str = "m") -> ChannelInfo:
    """The channel called ``name``; UnknownChannelError listing the known ones otherwise."""
    infos = _channel_infos(length_unit)
    for info in infos:
        if info.name == name:
            return info
    raise UnknownChannelError(name, [c.name for c in infos])
