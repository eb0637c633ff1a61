"""A script compiled against a car: per-frame input arrays, parameter changes and expectation windows."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from physics import (
    ANALOG,
    DEFAULT_DT,
    KEYS,
    CarParams,
    ParamError,
    PresetError,
    UnknownChannelError,
    check_channel,
    check_dt,
    load_preset,
)
from workbench.scripts.format import Script, ScriptError


def frame_of(t: float, dt: float) -> int:
    """The frame that covers time ``t``: frame k covers t = k * dt (computed, never accumulated).

    Half a frame rounds up, the same way at every time.
    """
    return int(math.floor(t / dt + 0.5))


@dataclass(frozen=True)
class Program:
    """Everything a replay needs of one script, resolved against its car and dt."""

    script: Script
    preset: str  # the preset's name (file stem)
    preset_path: Path | None  # the preset file it was loaded from
    params: CarParams  # in effect at frame 0
    dt: float
    frames: int  # frames 0 .. frames - 1; the last one is the state at t = duration
    keys: np.ndarray  # (frames, len(KEYS)) bool
    analog_on: np.ndarray  # (frames, len(ANALOG)) bool
    analog_value: np.ndarray  # (frames, len(ANALOG)) float
    gear_on: np.ndarray  # (frames,) bool
    gear_value: np.ndarray  # (frames,) int
    param_changes: tuple[tuple[int, CarParams], ...]  # (frame, parameters from that frame on), frame > 0
    windows: tuple[tuple[int, int], ...]  # per expectation: first and last frame, inclusive
    preset_params: CarParams | None = None  # the preset's own parameters (before the script's changes)

    @property
    def name(self) -> str:
        return self.script.name


def _resolve_preset(script: Script, preset: str | Path | None):
    name = preset if preset is not None else script.preset
    text = str(name)
    if preset is None and (text.endswith(".toml") or "/" in text) and script.source not in ("", "<script>"):
        beside = Path(script.source).parent / text
        if beside.is_file():
            name = beside
    try:
        return load_preset(name)
    except PresetError as exc:
        where = "--preset" if preset is not None else "[script] preset"
        raise ScriptError(f"{script.source}: {where}: {exc}") from None


def compile_script(script: Script, preset: str | Path | None = None, dt: float | None = None) -> Program:
    """Resolve ``script`` against its preset (or ``preset``) and dt (or ``dt``, else the script's, else 1/120 s).

    Raises ScriptError naming the file, the entry and the reason for anything the car refuses:
    an unknown channel, a gear on a car without a gearbox, a parameter change out of range.
    """
    loaded = _resolve_preset(script, preset)
    src = script.source
    step = dt if dt is not None else script.dt if script.dt is not None else DEFAULT_DT
    try:
        step = check_dt(step)
    except ValueError as exc:
        raise ScriptError(f"{src}: {exc}") from None
    frames = frame_of(script.duration, step) + 1
    keys = np.zeros((frames, len(KEYS)), dtype=bool)
    for i, hold in enumerate(script.holds, 1):
        first, end = frame_of(hold.start, step), frame_of(hold.end, step)
        if end <= first:
            raise ScriptError(f"{src}: [[hold]] #{i}: covers no frame at dt = {step:g} s")
        for key in hold.keys:
            keys[first:end, KEYS.index(key)] = True

    analog_on = np.zeros((frames, len(ANALOG)), dtype=bool)
    analog_value = np.zeros((frames, len(ANALOG)))
    gear_on = np.zeros(frames, dtype=bool)
    gear_value = np.zeros(frames, dtype=np.int64)
    params = loaded.params
    at_start = params
    changes: list[tuple[int, CarParams]] = []
    order = sorted(range(len(script.sets)), key=lambda j: script.sets[j].at)
    for j in order:
        setting, where = script.sets[j], f"{src}: [[set]] #{j + 1}"
        k = frame_of(setting.at, step)
        for name, value in setting.analog.items():
            analog_on[k:, ANALOG.index(name)] = True
            analog_value[k:, ANALOG.index(name)] = value
        for name in setting.release:
            analog_on[k:, ANALOG.index(name)] = False
        if setting.gear is not None:
            if params.gearbox is None:
                raise ScriptError(f"{where}: `gear` is refused: the {loaded.name} car has no gearbox")
            top = len(params.gearbox.ratios)
            if not -1 <= setting.gear <= top:
                raise ScriptError(f"{where}: `gear` = {setting.gear} is out of range -1 (reverse) .. {top}")
            gear_on[k], gear_value[k] = True, setting.gear
        if setting.params:
            try:
                updated = params.with_values(setting.params)
            except ParamError as exc:
                raise ScriptError(f"{where}: params: {exc}") from None
            problem = params.swap_problem(updated)
            if problem:
                raise ScriptError(f"{where}: params: {problem}")
            params = updated
            if k == 0:
                at_start = params
            else:
                changes.append((k, params))

    windows = []
    for i, expect in enumerate(script.expects, 1):
        try:
            check_channel(expect.channel, params.model.unit)
        except UnknownChannelError as exc:
            raise ScriptError(f"{src}: [[expect]] #{i}: {exc}") from None
        if expect.at is not None:
            first = last = min(frame_of(expect.at, step), frames - 1)
        else:
            first, last = frame_of(expect.start, step), frame_of(expect.end, step) - 1
            if last < first:
                raise ScriptError(f"{src}: [[expect]] #{i}: the window covers no frame at dt = {step:g} s")
        windows.append((first, last))
    return Program(script, loaded.name, loaded.path, at_start, step, frames, keys, analog_on, analog_value, gear_on, gear_value,
                   tuple(changes), tuple(windows), loaded.params)
