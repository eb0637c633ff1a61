"""The car's parameters: CarParams, one frozen group per subsystem (physics.groups), as a preset file is.

These dataclasses are the one schema: the preset loader validates TOML against them, the writer
emits them, the workbench's parameter panel is generated from them. Values are SI (lengths in the
preset's unit, see ``model.unit``); angles are radians and are shown in degrees only at the edges.
Every number has a lower and an upper bound: physical, wide enough for cars in metres and in pixels
(about 15 px to the metre), and tight enough that no accepted value overflows the step.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .groups import (
    COMBINED,
    DYNAMIC,
    FOUR_WHEEL,
    KINEMATIC,
    SIMPLE,
    SINGLE_TRACK,
    WHEEL_ANGLE_MAX,
    AeroParams,
    AidParams,
    BodyParams,
    BrakeParams,
    ClutchParams,
    DifferentialParams,
    DriveParams,
    EngineParams,
    GearboxParams,
    ModelParams,
    PedalParams,
    SteeringParams,
    SuspensionParams,
    TyreParams,
)
from .schema import (
    LENGTH_UNITS,
    ParamError,
    ParamInfo,
    build_group,
    group_class,
    group_is_optional,
    group_table,
    leaves,
    unit_in,
)

__all__ = ["COMBINED", "DYNAMIC", "FOUR_WHEEL", "KINEMATIC", "SIMPLE", "SINGLE_TRACK", "CarParams", "ParamError",
           "ParamInfo"]

# Fields that only one model kind uses; the loader refuses them for the other kind.
ONLY_FOR = {
    "model.reference": KINEMATIC,
    "model.blend_low": DYNAMIC,
    "model.blend_high": DYNAMIC,
    "steering.handbrake_wheelbase": KINEMATIC,
    "brakes.handbrake_speed": KINEMATIC,
    "body.cg_height": DYNAMIC,
    "body.yaw_inertia": DYNAMIC,
    "body.driven_axle": DYNAMIC,
    "body.wheel_inertia_front": DYNAMIC,
    "body.wheel_inertia_rear": DYNAMIC,
    "model.traction": DYNAMIC,
    "model.slip_speed": DYNAMIC,
    "engine.inertia": DYNAMIC,
    "engine.stall_rpm": DYNAMIC,
    "engine.idle_authority": DYNAMIC,
    "engine.starter_torque": DYNAMIC,
    "engine.starter_rpm": DYNAMIC,
    "engine.firing_rpm": DYNAMIC,
    "engine.friction_breakaway": DYNAMIC,
    "brakes.front_share": DYNAMIC,
    "brakes.abs": DYNAMIC,
    "brakes.abs_slip": DYNAMIC,
    "brakes.abs_rear_margin": DYNAMIC,
    "brakes.abs_select_low": DYNAMIC,
    "brakes.abs_min_speed": DYNAMIC,
    "brakes.abs_cornering": DYNAMIC,
    "model.layout": DYNAMIC,
    "steering.ackermann": DYNAMIC,
    "tyres.load_sensitivity": DYNAMIC,
    "tyres.cornering_load": DYNAMIC,
    "tyres.nominal_load": DYNAMIC,
}


@dataclass(frozen=True, kw_only=True)
class CarParams:
    """Every parameter of one car; optional groups are None where the car has no such part."""

    model: ModelParams
    body: BodyParams
    steering: SteeringParams
    pedals: PedalParams
    aero: AeroParams
    brakes: BrakeParams
    drive: DriveParams | None = None
    engine: EngineParams | None = None
    clutch: ClutchParams | None = None
    gearbox: GearboxParams | None = None
    tyres: TyreParams | None = None
    aids: AidParams | None = None
    suspension: SuspensionParams | None = None
    differential: DifferentialParams | None = None

    @property
    def manual(self) -> bool:
        """True for the engine + clutch + gearbox drivetrain of 003."""
        return self.engine is not None

    @property
    def kind(self) -> str:
        return self.model.kind

    # -- reading and writing ------------------------------------------------------------------

    @classmethod
    def from_document(cls, doc: dict[str, Any]) -> CarParams:
        """Build and validate from a parsed TOML document. Raises ParamError naming the key."""
        if not isinstance(doc, dict):
            raise ParamError("expected a TOML table")
        names = [f.name for f in fields(cls)]
        unknown = [k for k in doc if k not in names]
        if "script" in unknown:
            raise ParamError("a script ([script]), not a car's parameters; load it as a script (carbench replay, "
                             "or Load script in the window's File menu)")
        if unknown:
            raise ParamError(f"[{unknown[0]}]: unknown group; the groups are: {', '.join(names)}")
        kind = doc.get("model", {}).get("kind") if isinstance(doc.get("model"), dict) else None
        length_unit = doc.get("model", {}).get("unit") if isinstance(doc.get("model"), dict) else None
        length_unit = length_unit if length_unit in LENGTH_UNITS else "m"  # (a wrong one is said by [model])
        built = {}
        for name in names:
            if name not in doc:
                if not group_is_optional(cls, name):
                    raise ParamError(f"[{name}]: missing group")
                continue
            table = doc[name]
            if isinstance(table, dict) and kind in (KINEMATIC, DYNAMIC):
                for key in table:
                    only = ONLY_FOR.get(f"{name}.{key}")
                    if only is not None and only != kind:
                        raise ParamError(f"{name}.{key}: not used by a {kind} car (only by a {only} car)")
            built[name] = build_group(group_class(cls, name), name, table, length_unit)
        car = cls(**built)
        problem = car.check()
        if problem:
            raise ParamError(problem)
        return car

    def check(self) -> str | None:
        """Cross-group consistency; None when the car is consistent."""
        manual = [self.engine is not None, self.clutch is not None, self.gearbox is not None]
        if any(manual) and not all(manual):
            return "[engine], [clutch] and [gearbox] go together: a manual drivetrain needs all three"
        if all(manual) == (self.drive is not None):
            return "a car needs exactly one drivetrain: [drive] (a direct drive force) or [engine]+[clutch]+[gearbox]"
        if self.kind == DYNAMIC and self.tyres is None:
            return "[tyres]: missing group (a dynamic car needs its tyres)"
        if self.kind == KINEMATIC and self.tyres is not None:
            return "[tyres]: not used by a kinematic car"
        if self.kind == KINEMATIC and self.aids is not None:
            return "[aids]: not used by a kinematic car"
        four = self.kind == DYNAMIC and self.model.layout == FOUR_WHEEL
        for name in ("suspension", "differential"):
            if four and getattr(self, name) is None:
                return f"[{name}]: missing group (a four-wheel car needs it)"
            if not four and getattr(self, name) is not None:
                return f"[{name}]: used only by a four-wheel car (model.layout = 'four_wheel')"
        if four:
            problem = (self._wheel_angle_problem() or self._yaw_inertia_problem() or self._nominal_load_problem()
                       or self._roll_problem())
            if problem:
                return problem
        if self.kind == DYNAMIC and not four:
            problem = self._yaw_inertia_problem()
            if problem:
                return problem
        if not four and self.body.driven_axle == "front":
            return "body.driven_axle = 'front': only a four-wheel car (model.layout = 'four_wheel') drives its front axle"
        if (not four and self.kind == DYNAMIC and self.model.traction == COMBINED and self.manual
                and self.body.driven_axle != "rear"):
            return ("body.driven_axle = 'all': the combined model drives one axle from an engine "
                    "(use 'rear', or model.traction = 'simple')")
        return None

    def static_loads(self) -> tuple[float, float]:
        """Each front and each rear wheel's static load (in the car's unit of force): half its axle's share of the
        weight (physics.records.four_wheel_derived's static_front and static_rear, the same bits)."""
        b = self.body
        weight = b.mass * self.model.gravity
        return 0.5 * weight * b.lr / b.wheelbase, 0.5 * weight * (b.wheelbase - b.lr) / b.wheelbase

    def full_lock_wheel_angles(self) -> tuple[float, float]:
        """A four-wheel car's inner and outer front wheel angles at full lock [rad], as the model turns them
        (physics.steering.ackermann, then steering.ackermann's share of it)."""
        inner, outer = front_wheel_angles(self.steering.lock, self.steering.ackermann, self.body.wheelbase,
                                          self.body.track)
        return float(inner), float(outer)

    def _wheel_angle_problem(self) -> str | None:
        """Why a four-wheel car's front wheels would turn past WHEEL_ANGLE_MAX at some steer up to full lock (a track
        wide for the turning circle, or an Ackermann share beyond the geometry), or None."""
        st, b = self.steering, self.body
        worst, steer, inner = widest_front_wheel(st.lock, st.ackermann, b.wheelbase, b.track)
        if worst <= WHEEL_ANGLE_MAX:
            return None
        unit = self.model.unit
        where = "at full lock" if steer == st.lock else f"at {math.degrees(steer):.4g} deg of lock"
        # The largest lock these allow (the widest angle grows with the lock from 0).
        lo, hi = 0.0, st.lock
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if widest_front_wheel(mid, st.ackermann, b.wheelbase, b.track)[0] <= WHEEL_ANGLE_MAX \
                else (lo, mid)
        advice = ("a narrower track, a smaller lock or a smaller Ackermann share" if st.ackermann > 0.0
                  else "a smaller lock or an Ackermann share nearer 0")
        return (f"the front wheels {where}: the {'inner' if inner else 'outer'} one would turn "
                f"{math.degrees(worst):.4g} deg, past the {math.degrees(WHEEL_ANGLE_MAX):g} deg a front wheel may turn "
                f"(steering.lock {math.degrees(st.lock):.4g} deg, body.track {b.track:g} {unit}, body.wheelbase "
                f"{b.wheelbase:g} {unit}, steering.ackermann {st.ackermann:g}); {advice} keeps it within (the largest "
                f"lock these allow: {math.floor(math.degrees(lo) * 100.0) / 100.0:.2f} deg)")

    def _yaw_inertia_problem(self) -> str | None:
        """Why a dynamic car's yaw inertia is below the model's floor (YAW_INDEX_MIN times m lf lr), or None."""
        b = self.body
        lf = b.wheelbase - b.lr
        index = float(yaw_index(b.yaw_inertia, b.mass, b.wheelbase, b.lr))
        if index >= YAW_INDEX_MIN:
            return None
        unit, length = unit_in("kg m^2", self.model.unit), self.model.unit
        least = YAW_INDEX_MIN * b.mass * lf * b.lr
        # In the fewest digits that still tell them apart (it read "an index of 0.05, below the 0.05 ...").
        shown = _fewest(index, lambda v: v < YAW_INDEX_MIN, 2)
        least_shown = _up(least, 4)
        return (f"body.yaw_inertia = {b.yaw_inertia:g} {unit} with body.mass {b.mass:g} kg, lf {lf:g} {length} and lr "
                f"{b.lr:g} {length}: a dynamic index Iz / (m lf lr) of {shown}, below the {YAW_INDEX_MIN:g} the "
                f"model's yaw needs (at least {least_shown} {unit}; road cars have 0.8 to 1.2)")

    def _nominal_load_problem(self) -> str | None:
        """Why a four-wheel car's tyres.nominal_load is no load its tyres could be made for, or None: a reference load
        (0 takes each wheel's own static load) is within NOMINAL_SPAN of the wheels' static loads. The tyres' cornering
        stiffness scales with it: one step of the panel's slider off 0 (100 N against the sedan's 3,924 N a wheel)
        left 0.3% of it, and friction at its floor."""
        nominal = self.tyres.nominal_load
        if nominal == 0.0:
            return None
        front, rear = self.static_loads()
        lo, hi = min(front, rear) / NOMINAL_SPAN, max(front, rear) * NOMINAL_SPAN
        if lo <= nominal <= hi:
            return None
        unit = unit_in("N", self.model.unit)
        return (f"tyres.nominal_load = {nominal:g} {unit}: a tyre's reference load within {NOMINAL_SPAN:g} times its "
                f"wheel's static load, {math.ceil(lo):.0f} to {math.floor(hi):.0f} {unit} on this car (0 takes each "
                f"wheel's own)")

    def roll_stiffnesses(self) -> tuple[float, float]:
        """A four-wheel car's front and rear roll stiffness [N m/rad]: each axle's springs, k t^2 / 2, and its anti-roll
        bar (physics.records.four_wheel_derived's, the same bits)."""
        b, su = self.body, self.suspension
        return 0.5 * su.spring_front * b.track**2 + su.arb_front, 0.5 * su.spring_rear * b.track**2 + su.arb_rear

    def roll_axis_height(self) -> float:
        """A four-wheel car's roll axis under its centre of mass: between the roll centres, by the centre of mass's
        place along the wheelbase (physics.records.four_wheel_derived's, the same bits)."""
        b, su = self.body, self.suspension
        return su.roll_centre_front + (su.roll_centre_rear - su.roll_centre_front) * (b.wheelbase - b.lr) / b.wheelbase

    def roll_at_1g(self) -> float:
        """A four-wheel car's steady roll [rad] at 1 g of lateral acceleration: m g h' / (K_front + K_rear - m g h'),
        h' the centre of mass's height above the roll axis and K an axle's roll stiffness, as physics.suspension rolls
        the body (Gillespie, Fundamentals of Vehicle Dynamics, 1992, ch. 8: the roll gradient, the centre of mass's
        sideways shift included). Negative where the roll axis is above the centre of mass (the body leans into the
        turn); infinite where the springs cannot hold the body up against that shift (K <= m g h')."""
        front, rear = self.roll_stiffnesses()
        moment = self.body.mass * self.model.gravity * (self.body.cg_height - self.roll_axis_height())
        if front + rear <= moment:
            return math.inf
        return moment / (front + rear - moment)

    def _roll_problem(self) -> str | None:
        """Why a four-wheel car's body would roll past ROLL_AT_1G_MAX at 1 g (:meth:`roll_at_1g`), or None."""
        roll = self.roll_at_1g()
        if abs(roll) <= ROLL_AT_1G_MAX:
            return None
        b, su, unit = self.body, self.suspension, self.model.unit
        amount = ("without end: its springs and anti-roll bars are too soft to hold it up against its weight as it "
                  "leans" if math.isinf(roll) else f"{math.degrees(roll):.4g} deg at 1 g of lateral acceleration")
        return (f"the body would roll {amount} (body.cg_height "
                f"{b.cg_height:g} {unit}, suspension.roll_centre_front {su.roll_centre_front:g} {unit} and "
                f"roll_centre_rear {su.roll_centre_rear:g} {unit}, the springs and anti-roll bars, body.mass and "
                f"body.track), past the {math.degrees(ROLL_AT_1G_MAX):g} deg the model's roll is made for: stiffer "
                f"springs or anti-roll bars, or a centre of mass nearer the roll axis, keep it within")

    def swap_problem(self, other: CarParams) -> str | None:
        """Why ``other`` cannot replace these parameters mid-run (None when it can).

        The state means the same only for the same model kind, drivetrain, unit and reference point.
        """
        ours = (self.kind, self.manual, self.model.unit, self.model.reference, self.model.layout)
        theirs = (other.kind, other.manual, other.model.unit, other.model.reference, other.model.layout)
        if ours != theirs:
            return "the model kind, layout, drivetrain, unit and reference point cannot change mid-run"
        return None

    def to_document(self) -> dict[str, Any]:
        """The preset as a TOML-ready dict: values only, every field the car's kind uses."""
        doc = {}
        for f in fields(self):
            group = getattr(self, f.name)
            if group is None:
                continue
            table = group_table(group)
            doc[f.name] = {k: v for k, v in table.items() if ONLY_FOR.get(f"{f.name}.{k}", self.kind) == self.kind}
        return doc

    # -- introspection and edits --------------------------------------------------------------

    def infos(self) -> list[ParamInfo]:
        """Every parameter this car uses, in preset order, with units in the preset's unit of length."""
        out = []
        for f in fields(self):
            group = getattr(self, f.name)
            if group is None:
                continue
            for info in leaves(type(group), f.name):
                if ONLY_FOR.get(info.path, self.kind) != self.kind:
                    continue
                out.append(dataclasses.replace(info, unit=unit_in(info.unit, self.model.unit)))
        return out

    def info(self, path: str) -> ParamInfo:
        for info in self.infos():
            if info.path == path:
                return info
        known = ", ".join(i.path for i in self.infos())
        raise ParamError(f"{path}: unknown parameter for this car; known: {known}")

    def get(self, path: str) -> Any:
        group_name, key = _split(path)
        group = getattr(self, group_name, None)
        if group is None or not hasattr(group, key):
            self.info(path)  # raises with the list of known parameters
        return getattr(group, key)

    def with_value(self, path: str, value: Any) -> CarParams:
        """A copy with one parameter changed, validated like a preset value."""
        return self.with_values({path: value})

    def with_values(self, changes: dict[str, Any]) -> CarParams:
        """A copy with several parameters changed at once (validated together)."""
        doc = self.to_document()
        for path, value in changes.items():
            self.info(path)
            group_name, key = _split(path)
            doc[group_name][key] = value
        return CarParams.from_document(doc)


NOMINAL_SPAN = 4.0
"""How far a four-wheel car's tyres.nominal_load may be from its wheels' static loads (a factor either way): a
passenger car's tyre is rated for about its wheel's static load (Pacejka 2012's example tyre: FNOMIN 4,000 N; a
1,600 kg car puts 3,924 N on each wheel), and a truck's on a car (4 times) or a kart's (a quarter) is no tyre for it."""

ROLL_AT_1G_MAX = math.radians(30.0)
"""The most a four-wheel car's body may roll at 1 g of lateral acceleration (:meth:`CarParams.roll_at_1g`, either way).
Road cars roll 3 to 8 deg per g and racing cars 1 to 2 (Milliken and Milliken, Race Car Vehicle Dynamics, 1995, ch. 18;
Gillespie, Fundamentals of Vehicle Dynamics, 1992, ch. 9); the body's roll (physics.suspension) is linear in the
moment, with no tipping over, so a body that rolls through tens of degrees is past what it describes: a centre of mass
1,000 m up, or roll centres 100 m up, rolled the sedan through 78 and 8 rad in a bend. 30 deg at 1 g is several
times any road car's."""

YAW_INDEX_MIN = 0.05
"""The least dynamic index Iz / (m lf lr) a dynamic car may have. Road cars have 0.8 to 1.2 (Milliken and Milliken,
Race Car Vehicle Dynamics, 1995, 5.5). The model's yaw on four tyres made energy braking in a bend at 0.00092 (the
sedan's 2,900 kg m^2 cut to 3), and not at 0.0015 (5 kg m^2) in the same run; hunts of 300 cars x 30 s at 0.05 on the
sedan and tail_happy presets, and on the sedan with a 6 m track, found nothing. The floor is 54 times the index that
failed and 16 times below any road car's. On two tyres (single-track cars, held to it since 0.3.25) the same: manual003
coasting in a turn at 3 kg m^2 (0.0015) spun at 18 rad/s and gained 1,182 J a frame, and sedan_single_track at 0.1 kg
m^2 7,306 J; at the floor (101 kg m^2 on manual003) the same run coasts down as it should. The F1TENTH car has 0.46."""


STEER_SAMPLES = np.linspace(0.0, 1.0, 65)
"""Where :func:`widest_front_wheel` looks between straight ahead and full lock (shares of the lock). With an
Ackermann share of 0 to 1.5 the widest angle is at full lock; a negative one can turn a wheel furthest at part lock."""


def front_wheel_angles(steer, share, wheelbase, track):
    """The inner and outer front wheel angles [rad] of a four-wheel car at a bicycle steer angle (floats or numpy
    arrays): physics.steering.ackermann's, then the share of it the car follows (as physics.four_wheel turns them)."""
    tan_d = np.tan(steer)
    half = 0.5 * track * tan_d
    inner = np.arctan2(wheelbase * tan_d, wheelbase - half)
    outer = np.arctan2(wheelbase * tan_d, wheelbase + half)
    return steer + share * (inner - steer), steer + share * (outer - steer)


def widest_front_wheel(lock, share, wheelbase, track):
    """The widest either front wheel turns [rad] at a steer from straight ahead to ``lock`` (by symmetry the same
    to the other side), the steer it turns that far at and whether it is the inner wheel; for arrays of cars (the
    last axis of the answer's arrays is the cars'), the widest angles alone."""
    steer = np.multiply.outer(np.asarray(lock, dtype=np.float64), STEER_SAMPLES)  # (..., samples)
    share, wheelbase, track = (np.asarray(v, dtype=np.float64)[..., None] for v in (share, wheelbase, track))
    inner, outer = front_wheel_angles(steer, share, wheelbase, track)
    both = np.maximum(np.abs(inner), np.abs(outer))
    if np.ndim(lock) > 0:
        return both.max(axis=-1)
    last = len(STEER_SAMPLES) - 1
    k = last - int(np.argmax(both[::-1]))  # the widest, at full lock where it ties
    return float(both[k]), float(lock) if k == last else float(steer[k]), bool(abs(inner[k]) >= abs(outer[k]))


def _fewest(value: float, holds, digits: int) -> str:
    """``value`` in ``digits`` significant digits, or more where fewer would not keep ``holds`` (a comparison a
    message states) true of the number shown."""
    for d in range(digits, 17):
        text = f"{value:.{d}g}"
        if holds(float(text)):
            return text
    return repr(value)


def _up(value: float, digits: int) -> str:
    """``value`` (positive) rounded up to ``digits`` significant digits: a least value a message names is one the
    check takes (2900.24 shown as 2900.2 was refused in turn)."""
    step = 10.0 ** (math.floor(math.log10(value)) - digits + 1)
    text = f"{math.ceil(value / step) * step:.{digits}g}"
    return text if float(text) >= value else repr(value)


def yaw_index(yaw_inertia, mass, wheelbase, lr):
    """The dynamic index Iz / (m lf lr) (floats or numpy arrays)."""
    return yaw_inertia / (mass * (wheelbase - lr) * lr)


def _wheels_past(lock, share, wheelbase, track) -> np.ndarray:
    return widest_front_wheel(lock, share, wheelbase, track) > WHEEL_ANGLE_MAX


def _index_below(yaw_inertia, mass, wheelbase, lr) -> np.ndarray:
    return yaw_index(yaw_inertia, mass, wheelbase, lr) < YAW_INDEX_MIN


DYNAMIC_RULES = ((("body.yaw_inertia", "body.mass", "body.wheelbase", "body.lr"), _index_below),)
"""The rules across groups that CarParams.check applies to every dynamic car (its dynamic index), in the form of
FOUR_WHEEL_RULES."""

FOUR_WHEEL_RULES = ((("steering.lock", "steering.ackermann", "body.wheelbase", "body.track"), _wheels_past),
                    *DYNAMIC_RULES)
"""The four-wheel car's rules across groups that CarParams.check applies to one car (its front wheels' angles, its
dynamic index), for arrays of cars: each the parameters it reads, in the order its test takes them, and the test (True
where a car is refused). workbench.runs.sweep checks a sweep's cars with them (a single-track car's with
DYNAMIC_RULES)."""


def _split(path: str) -> tuple[str, str]:
    if path.count(".") != 1:
        raise ParamError(f"{path}: a parameter is named group.key, e.g. engine.peak_torque")
    group, key = path.split(".")
    return group, key
