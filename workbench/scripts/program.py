"""A script compiled against a car: per-frame input arrays, parameter changes and expectation windows."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from physics import (
    ANALOG,
    DEFAULT_DT,
    KEYS,
    CarParams,
    ParamError,
    Preset,
    PresetError,
    UnknownChannelError,
    channel_names,
    check_channel,
    check_dt,
)
from physics.simulation import MAX_DT
from physics.telemetry import AIDS_CHANNELS, ENGINE_CHANNELS
from workbench.scripts.driving import Drive, DriveError, compile_drive, robot_angle, steer_share
from workbench.scripts.format import GEAR_KEYS, Script, ScriptError
from workbench.scripts.limits import DEFAULT_MAX_MEMORY, MIN_DT, LimitError, check_memory, format_bytes, run_bytes
from workbench.scripts.surfaces import ignored_by, road_lost
from workbench.scripts.track import apply_tracks

# Channels only some cars have: elsewhere they read a constant, and an expectation on one could never fail (a roll of
# at most 0.01 deg passed on the single-track car). Refused there by name.
COMBINED_CHANNELS = ("slip_ratio_front", "slip_ratio_rear", "fx_front")  # the combined tyre model's (traction)
TYRE_CHANNELS = ("slip_front", "slip_rear", "fy_front", "fy_rear", "wheelspin", "load_front", "load_rear",
                 "grip_front", "grip_rear", "mu_front", "mu_rear", "kinematic_weight") + COMBINED_CHANNELS
FOUR_WHEEL_CHANNELS = ("roll", "esc_active") + tuple(
    name for name in channel_names("m") if name.endswith(("_fl", "_fr", "_rl", "_rr")))
# A channel of an SI car that a car in pixels lacks, and the one to use there.
SI_ONLY_CHANNELS = {"speed_kmh": "speed"}


def frame_of(t: float, dt: float) -> int:
    """The frame that covers time ``t``: frame k covers t = k * dt (computed, never accumulated).

    Half a frame rounds up, the same way at every time.
    """
    return int(math.floor(t / dt + 0.5))


def first_frame_from(t: float, dt: float) -> int:
    """The first frame k with k * dt >= ``t`` (within a millionth of a frame, so 2.5 s at 1/120 s is frame 300)."""
    return max(int(math.ceil(t / dt - 1e-6)), 0)


@cache
def _channel_count(unit: str) -> int:
    return len(channel_names(unit))


@cache
def _channel_known(channel: str, unit: str) -> bool:
    """Whether ``channel`` exists for a car in ``unit`` (the lookup builds every channel's description: a
    sweep compiles its script once per car)."""
    try:
        check_channel(channel, unit)
    except UnknownChannelError:
        return False
    return True


def check_step(dt: float) -> float:
    """The timestep, or ValueError when it is outside [MIN_DT, MAX_DT]."""
    try:
        step = check_dt(dt)
    except ValueError:
        step = None
    if step is None or step < MIN_DT:
        raise ValueError(f"dt = {dt!r}: the timestep must be a number in [{MIN_DT:g}, {MAX_DT:g}] s")
    return step


@dataclass(frozen=True)
class Program:
    """Everything a replay needs of one script, resolved against its car and dt."""

    script: Script
    preset: str  # the preset's name (file stem)
    preset_path: Path | None  # the preset file it was loaded from
    params: CarParams  # in effect at frame 0
    dt: float
    frames: int  # frames 0 .. frames - 1; the last one is the state at t = duration (before it: [script] frames)
    keys: np.ndarray  # (frames, len(KEYS)) bool
    analog_on: np.ndarray  # (frames, len(ANALOG)) bool
    analog_value: np.ndarray  # (frames, len(ANALOG)) float
    gear_on: np.ndarray  # (frames,) bool
    gear_value: np.ndarray  # (frames,) int
    param_changes: tuple[tuple[int, CarParams], ...]  # (frame, parameters from that frame on), frame > 0
    windows: tuple[tuple[int, int], ...]  # per expectation: first and last frame, inclusive
    measure_windows: tuple[tuple[int, int], ...] = ()  # per measure: first and last frame, inclusive
    preset_params: CarParams | None = None  # the preset's own parameters (before the script's changes)
    drive: Drive | None = None  # the closed-loop driver ([driver]), compiled against the car

    @property
    def name(self) -> str:
        return self.script.name


KIND_PATHS = ("model.kind", "model.traction", "model.layout")
"""The parameters that choose the car's model: changing one leaves the car's other parameters as they were."""


def change_problem(exc: Exception, changes: dict) -> str:
    """A refusal of ``changes`` to a car in words that name the entry the user wrote: a change of the car's model
    (``model.kind = "kinematic"``) is refused by the schema for a parameter the user never typed (the preset's
    ``model.blend_low``, which a kinematic car does not use), and is said so."""
    text = str(exc)
    kinds = [path for path in changes if path in KIND_PATHS]
    if kinds and not any(text.startswith(path) for path in changes):
        named = ", ".join(f"{path} = {changes[path]!r}" for path in kinds)
        return (f"{named}: the car's other parameters stay as they were, and {text}; a car of another model is another "
                "preset")
    return text


def record_problem(params: CarParams) -> str | None:
    """Why the model cannot take ``params`` (more gears than it has room for, say), or None."""
    from physics.records import param_record

    try:
        param_record(params)
    except (ParamError, ValueError, OverflowError) as exc:
        return str(exc)
    return None


def _resolve_preset(script: Script, preset: str | Path | Preset | None):
    if isinstance(preset, Preset):  # already loaded (a batch of many scripts on one car)
        return preset
    name = preset if preset is not None else script.preset
    text = str(name)
    if preset is None and (text.endswith(".toml") or "/" in text) and script.source not in ("", "<script>"):
        beside = Path(script.source).parent / text
        # Whatever is there beside the script is the one it names, loaded or refused as it is (a FIFO or a folder
        # beside it let a file of that name in the working folder drive the script without a word)
        if os.path.lexists(beside) and not text.endswith("/"):
            name = beside
    from workbench.names import NameRuleError, load_named_preset

    try:
        return load_named_preset(name)
    except (PresetError, NameRuleError) as exc:
        where = "--preset" if preset is not None else "[script] preset"
        raise ScriptError(f"{script.source}: {where}: {exc}") from None


def script_preset_path(script: Script) -> Path | None:
    """The preset file ``script`` drives (as compile_script finds it), or None when it does not load."""
    try:
        return _resolve_preset(script, None).path
    except ScriptError:
        return None


def compile_script(script: Script, preset: str | Path | Preset | None = None, dt: float | None = None,
                   max_memory: int = DEFAULT_MAX_MEMORY, telemetry: bool = True,
                   memory_option: str | None = None) -> Program:
    """Resolve ``script`` against its preset (or ``preset``) and dt (or ``dt``, else the script's, else 1/120 s).

    Raises ScriptError naming the file, the entry and the reason for anything the car refuses:
    an unknown channel, a gear on a car without a gearbox, a parameter change out of range, or a
    run whose telemetry would not fit in ``max_memory`` bytes (checked before anything is allocated).
    ``telemetry`` False: the run's telemetry is not held (a sweep streams it a block at a time), so only the
    program's own per-frame inputs count against ``max_memory``. ``memory_option``: the command's option that sets
    ``max_memory`` (replay's ``--max-memory``), which the refusal names; None where a command has none.
    """
    loaded = _resolve_preset(script, preset)
    src = script.source
    step = dt if dt is not None else script.dt if script.dt is not None else DEFAULT_DT
    try:
        step = check_step(step)
    except ValueError as exc:
        raise ScriptError(f"{src}: {'--dt' if dt is not None else '[script] dt'}: {exc}") from None
    # Frames 0 .. duration / dt; a script with [script] frames (a recording) stops before the frame at t = duration.
    frames = frame_of(script.duration, step) + (0 if script.frames is not None else 1)
    unit = loaded.params.model.unit
    try:
        check_memory(frames, _channel_count(unit) if telemetry else 0, 1, max_memory, src, memory_option)
    except LimitError as exc:
        if telemetry:
            raise ScriptError(str(exc)) from None
        raise ScriptError(f"{src}: {frames:,} frames' inputs would take {format_bytes(run_bytes(frames, 0))}, "
                          f"over the memory budget of {format_bytes(max_memory)}; a shorter script or a longer "
                          "dt") from None
    # Each key's holds as +1 where one starts and -1 where it ends, summed along the frames: held where the sum is
    # positive (each hold written over its frames cost holds x frames: many long holds took minutes).
    starts = np.zeros((frames + 1, len(KEYS)), dtype=np.int64)
    for i, hold in enumerate(script.holds, 1):
        first, end = frame_of(hold.start, step), frame_of(hold.end, step)
        if end <= first:
            raise ScriptError(f"{src}: [[hold]] #{i}: covers no frame at dt = {step:g} s")
        gear_keys = [key for key in hold.keys if key in GEAR_KEYS]
        if gear_keys and loaded.params.gearbox is None:
            raise ScriptError(f"{src}: [[hold]] #{i}: key {gear_keys[0]!r} is refused: "
                              f"the {loaded.name} car has no gearbox")
        first, end = min(first, frames), min(end, frames)
        for key in hold.keys:
            starts[first, KEYS.index(key)] += 1
            starts[end, KEYS.index(key)] -= 1
    keys = np.cumsum(starts[:frames], axis=0) > 0

    analog_on = np.zeros((frames, len(ANALOG)), dtype=bool)
    analog_value = np.zeros((frames, len(ANALOG)))
    gear_on = np.zeros(frames, dtype=bool)
    gear_value = np.zeros(frames, dtype=np.int64)
    params = loaded.params
    steer = ANALOG.index("steer")
    robot_owns = np.full(frames, script.robot is not None)  # the robot steers until a [[set]] steer or release
    at_start = params
    changes: list[tuple[int, CarParams]] = []
    order = sorted(range(len(script.sets)), key=lambda j: script.sets[j].at)
    # Each control's value and whether it is set, from the frame of each [[set]] on (the last in time order wins),
    # filled forward once at the end: written from each [[set]]'s frame to the run's end, 100,000 [[set]]s took 45 s.
    taken: list[list[tuple[int, bool]]] = [[] for _ in ANALOG]  # (frame, set or released), in time order
    valued: list[list[tuple[int, float]]] = [[] for _ in ANALOG]  # (frame, value) of the sets alone
    steered = frames  # the first frame a [[set]] takes the steer from the robot
    for j in order:
        setting, where = script.sets[j], f"{src}: [[set]] #{j + 1}"
        k = frame_of(setting.at, step)
        for name, value in setting.analog.items():
            taken[ANALOG.index(name)].append((k, True))
            valued[ANALOG.index(name)].append((k, value))
        for name in setting.release:
            taken[ANALOG.index(name)].append((k, False))
        if "steer" in setting.analog or "steer" in setting.release:
            steered = min(steered, k)
        if setting.gear is not None:
            if params.gearbox is None:
                raise ScriptError(f"{where}: `gear` is refused: the {loaded.name} car has no gearbox")
            top = len(params.gearbox.ratios)
            if not -1 <= setting.gear <= top:
                raise ScriptError(f"{where}: `gear` = {setting.gear} is out of range -1 (reverse) .. {top}")
            if k < frames:  # (one within half a frame of a [script] frames run's end, at another dt, is past it)
                gear_on[k], gear_value[k] = True, setting.gear
        if setting.params:
            try:
                updated = params.with_values(setting.params)
            except ParamError as exc:
                raise ScriptError(f"{where}: params: {change_problem(exc, setting.params)}") from None
            problem = params.swap_problem(updated) or record_problem(updated)
            if problem:
                raise ScriptError(f"{where}: params: {problem}")
            lost = road_lost(script.surfaces, params, updated)
            if lost:
                raise ScriptError(f"{where}: params: {lost}")
            params = updated
            if k == 0:
                at_start = params
            elif k < frames:
                changes.append((k, params))

    robot_owns[steered:] = False
    every = np.arange(frames)
    for c in range(len(ANALOG)):
        for events, target in ((taken[c], analog_on), (valued[c], analog_value)):
            if events:
                at = np.array([k for k, _ in events], dtype=np.int64)
                last = np.searchsorted(at, every, side="right") - 1  # the last event at or before each frame
                given = np.array([v for _, v in events], dtype=target.dtype)
                target[:, c] = np.where(last >= 0, given[np.maximum(last, 0)], target[:, c])
    if script.surfaces and ignored_by(at_start):
        raise ScriptError(f"{src}: [[surface]] #1: the {loaded.name} car would not feel it: {ignored_by(at_start)}")
    apply_tracks(script, step, analog_on, analog_value)
    drive = None
    try:
        if script.robot is not None:
            angle = robot_angle(script.robot, np.arange(frames) * step)
            analog_on[robot_owns, steer] = True
            analog_value[robot_owns, steer] = steer_share(angle[robot_owns], at_start)
        if script.driver is not None:
            # The driver hands back every control after the script's last frame, or at its hand_over.
            end = (frames - 0.5) * step
            if script.driver.hand_over is not None:
                end = min(end, script.driver.hand_over)
            drive = compile_drive(script.driver, at_start, end, loaded.name)
    except DriveError as exc:
        raise ScriptError(f"{src}: {exc}") from None
    # A channel is checked against the cars in effect over its entry's window: a [[set]] may change the car part-way
    # (model.traction), and the car at the script's end was taken for all of it.
    cars = [(0, at_start)] + changes
    windows = tuple(_window(e, f"{src}: [[expect]] #{i}", cars, loaded.name, step, frames)
                    for i, e in enumerate(script.expects, 1))
    measure_windows = tuple(_window(m, f"{src}: [[measure]] #{i}", cars, loaded.name, step, frames)
                            for i, m in enumerate(script.measures, 1))
    return Program(script, loaded.name, loaded.path, at_start, step, frames, keys, analog_on, analog_value, gear_on, gear_value,
                   tuple(changes), windows, measure_windows, loaded.params, drive)


def _window(entry, where: str, cars: Sequence[tuple[int, CarParams]], car: str, step: float,
            frames: int) -> tuple[int, int]:
    """The first and last frame (inclusive) an [[expect]] or [[measure]] looks at; ScriptError if none, or where its
    channel is one no car in effect over those frames has (``cars``: each parameter set and the frame it starts on, in
    order)."""
    first, last = _frames_of(entry, step, frames, where)
    in_effect = [p for i, (k, p) in enumerate(cars) if k <= last and (i + 1 == len(cars) or cars[i + 1][0] > first)]
    problem = None
    for params in in_effect:
        try:
            _check_expect_channel(entry.channel, params, car, where)
            return first, last  # one car that has it: judged
        except ScriptError as exc:
            problem = problem or exc
    raise problem


def _frames_of(entry, step: float, frames: int, where: str) -> tuple[int, int]:
    if entry.at is not None:
        first = last = min(frame_of(entry.at, step), frames - 1)
    else:
        # Every frame of [from, to): never one before `from`, whatever the dt.
        first, last = first_frame_from(entry.start, step), first_frame_from(entry.end, step) - 1
        if last < first:
            raise ScriptError(f"{where}: the window covers no frame at dt = {step:g} s")
    return first, last


def _check_expect_channel(channel: str, params: CarParams, car: str, where: str) -> None:
    """ScriptError when ``channel`` does not exist for this car or reads a part the car does not have."""
    unit = params.model.unit
    try:
        if not _channel_known(channel, unit):
            check_channel(channel, unit)  # raises, with the list of the known ones
    except UnknownChannelError as exc:
        instead = SI_ONLY_CHANNELS.get(channel)
        if instead is not None and unit != "m":
            raise ScriptError(f"{where}: unknown channel {channel!r} for the {car} car: it measures lengths "
                              f"in {unit}, so there is no km/h; use {instead!r} ({unit}/s)") from None
        raise ScriptError(f"{where}: {exc}") from None
    # physics.telemetry's engine channels: rpm, engine_torque, clutch and stalled (a car with a direct drive force has
    # a gear, -1 or 1, its way).
    if channel in ENGINE_CHANNELS and params.engine is None:
        raise ScriptError(f"{where}: channel {channel!r} is refused: the {car} car has no engine, clutch or "
                          "gearbox (a direct drive force); it reads a constant here")
    if channel in TYRE_CHANNELS and params.tyres is None:
        raise ScriptError(f"{where}: channel {channel!r} is refused: the {car} car is kinematic and has no "
                          "tyre model")
    if channel in FOUR_WHEEL_CHANNELS and params.model.layout != "four_wheel":
        raise ScriptError(f"{where}: channel {channel!r} is refused: the {car} car has one tyre per axle (it is the "
                          "four-wheel car's: its corners, roll and stability control); it reads a constant here")
    if params.aids is None and channel in AIDS_CHANNELS:
        raise ScriptError(f"{where}: channel {channel!r} is refused: the {car} car has no driver aids (no [aids] "
                          "in its preset); it reads a constant here")
    if channel in COMBINED_CHANNELS and params.model.traction != "combined":
        raise ScriptError(f"{where}: channel {channel!r} is refused: the {car} car drives on 003's simple traction "
                          "rule, which has no tyre slip ratio nor longitudinal tyre force; it reads a constant here")


def set_by(program: Program) -> set[str]:
    """The parameters ``program``'s script sets itself, at its start or part-way (its ``[[set]]`` entries' keys: a
    setting to the preset's own value is the script's too)."""
    return {path for setting in program.script.sets for path in setting.params}
