"""A run's stamp: what a run was made with, so that two runs (or a recording and its replay) can be told apart.

The stamp names the carbench and numpy versions, the preset and a SHA-256 of its parameters, every
parameter of the run that differs from that preset, and dt. It is written into every recording
as a ``[recorded]`` table and into ``carbench replay --json``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np

from physics import CarParams

STAMP_KEYS = ("carbench", "numpy", "preset", "preset_sha256", "params_sha256", "dt", "changed")
CHANGE_KEYS = ("path", "preset", "run")


@functools.cache
def carbench_version() -> str:
    """The installed carbench's version, read once (a read of the package's metadata takes 1.6 to 4 ms, and every
    recording's stop stamps it)."""
    try:
        return metadata.version("carbench")
    except metadata.PackageNotFoundError:
        return "unknown"


def params_sha256(params: CarParams) -> str:
    """SHA-256 of the parameters' canonical form: JSON of the preset document, keys sorted, floats by repr."""
    text = json.dumps(params.to_document(), sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Change:
    """One parameter of a run that differs from its preset."""

    path: str
    preset: Any  # None when the preset has no such parameter
    run: Any


@dataclass(frozen=True)
class Stamp:
    """What a run was made with."""

    carbench: str
    numpy: str
    preset: str
    preset_sha256: str
    params_sha256: str
    dt: float
    changed: tuple[Change, ...] = ()

    def to_table(self) -> dict[str, Any]:
        """The ``[recorded]`` table (and the JSON object) of this stamp."""
        return {
            "carbench": self.carbench, "numpy": self.numpy, "preset": self.preset,
            "preset_sha256": self.preset_sha256, "params_sha256": self.params_sha256, "dt": self.dt,
            "changed": [{"path": c.path, "preset": c.preset, "run": c.run} for c in self.changed
                        if c.preset is not None],
        }

    def differences(self, other: Stamp) -> list[str]:
        """What differs between the run stamped ``self`` and the run stamped ``other``, in words."""
        out = []
        if self.carbench != other.carbench:
            newer = _version(self.carbench) > _version(other.carbench) and _version(other.carbench) > ()
            out.append(f"carbench {self.carbench} (now {other.carbench}"
                       + (", an older one: a newer model may replay what it recorded otherwise here)" if newer else ")"))
        if self.numpy != other.numpy:
            out.append(f"numpy {self.numpy} (now {other.numpy})")
        if self.preset != other.preset:
            out.append(f"preset {self.preset} (now {other.preset})")
        elif self.preset_sha256 != other.preset_sha256:
            out.append(f"preset {self.preset} with other parameters (its file changed since)")
        if self.params_sha256 != other.params_sha256:
            ours = {c.path: c.run for c in self.changed}
            theirs = {c.path: c.run for c in other.changed}
            paths = [p for p in dict.fromkeys([*ours, *theirs]) if ours.get(p) != theirs.get(p)]
            listed = ", ".join(f"{p} {_text(ours.get(p, AS_PRESET))} (now {_text(theirs.get(p, AS_PRESET))})"
                               for p in paths)
            out.append(f"other parameters{': ' + listed if listed else ''}")
        if self.dt != other.dt:
            out.append(f"dt {self.dt:.6g} s (now {other.dt:.6g} s)")
        return out


AS_PRESET = "as the preset"  # a parameter a stamp does not list as changed: the preset's own value ("-" said nothing)


def _version(text: str) -> tuple[int, ...]:
    """A version's leading numbers ("0.3.7" -> (0, 3, 7)); () for one that has none ("unknown"). Each number is read
    to 18 digits at most, whatever the string (Python refuses to read an int of 4,301 digits; a recording's version of
    more than MAX_VERSION characters is refused before it gets here)."""
    import re

    found = re.match(r"\d{1,18}(?:\.\d{1,18})*", text or "")
    return tuple(int(part) for part in found.group(0).split(".")) if found else ()


def _text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def make_stamp(preset: str, preset_params: CarParams, params: CarParams, dt: float) -> Stamp:
    """The stamp of a run of ``params`` (at frame 0) made from the preset ``preset`` at ``dt``."""
    changed = []
    base = {i.path for i in preset_params.infos()}
    for info in params.infos():
        value = params.get(info.path)
        before = preset_params.get(info.path) if info.path in base else None
        if before != value:
            changed.append(Change(info.path, before, value))
    return Stamp(carbench_version(), np.__version__, preset, params_sha256(preset_params), params_sha256(params),
                 float(dt), tuple(changed))


MAX_STAMP_DT = 1.0  # [s] no run is stepped more coarsely than this
MAX_CHANGES = 1000  # far more parameters than a car has
MAX_LIST = 64  # a parameter list (the gear ratios) is short


def _value_problem(value: Any) -> str | None:
    """Why a parameter value in a stamp is not one a parameter can have, or None."""
    if isinstance(value, bool) or isinstance(value, str):
        return None
    if isinstance(value, int):
        return None if abs(value) < 10**15 else "is an integer too large for a parameter"
    if isinstance(value, float):
        return None if math.isfinite(value) else "must be finite"
    if isinstance(value, list):
        if len(value) > MAX_LIST:
            return f"lists {len(value):,} values; at most {MAX_LIST}"
        for item in value:
            problem = _value_problem(item)
            if problem or isinstance(item, list):
                return problem or "must be a flat list"
        return None
    return f"must be a number, a boolean, text or a list of numbers, got {type(value).__name__}"


def _exact_keys(table: dict, allowed: Sequence[str], where: str) -> None:
    """ValueError unless ``table`` has every key of ``allowed`` and no other."""
    for key in table:
        if key not in allowed:
            raise ValueError(f"{where}: unknown key `{key}`; allowed: {', '.join(allowed)}")
    for key in allowed:
        if key not in table:
            raise ValueError(f"{where}: `{key}` is missing")


MAX_VERSION = 64
"""The longest version string a ``[recorded]`` table may carry (a release's, "0.3.25", or numpy's)."""


def stamp_from_table(table: Any, where: str = "[recorded]") -> Stamp:
    """Parse a ``[recorded]`` table strictly; ValueError names the key and the reason."""
    if not isinstance(table, dict):
        raise ValueError(f"{where}: must be a table")
    _exact_keys(table, STAMP_KEYS, where)
    for key in ("carbench", "numpy", "preset", "preset_sha256", "params_sha256"):
        if not isinstance(table[key], str) or not table[key]:
            raise ValueError(f"{where}: `{key}` must be a non-empty string, got {table[key]!r}")
    for key in ("carbench", "numpy"):  # a release's version: the replay's note quotes it
        if len(table[key]) > MAX_VERSION:
            raise ValueError(f"{where}: `{key}` is {len(table[key]):,} characters long; a version has at most "
                             f"{MAX_VERSION}")
    for key in ("preset_sha256", "params_sha256"):
        if len(table[key]) != 64 or any(ch not in "0123456789abcdef" for ch in table[key]):
            raise ValueError(f"{where}: `{key}` must be 64 lowercase hex digits")
    dt = table["dt"]
    if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not 0 < dt <= MAX_STAMP_DT \
            or not math.isfinite(dt):
        shown = f"{dt!r}" if not isinstance(dt, int) or abs(dt) < 10**20 else "an integer of many digits"
        raise ValueError(f"{where}: `dt` must be a number in (0, {MAX_STAMP_DT:g}] s, got {shown}")
    changes = table["changed"]
    if not isinstance(changes, list) or not all(isinstance(c, dict) for c in changes):
        raise ValueError(f"{where}: `changed` must be a list of {{ path, preset, run }} tables")
    if len(changes) > MAX_CHANGES:
        raise ValueError(f"{where}: `changed` lists {len(changes):,} parameters; at most {MAX_CHANGES:,}")
    out = []
    for i, change in enumerate(changes, 1):
        _exact_keys(change, CHANGE_KEYS, f"{where}: changed #{i}")
        if not isinstance(change["path"], str) or change["path"].count(".") != 1:
            raise ValueError(f"{where}: changed #{i}: `path` must read group.key, got {change['path']!r}")
        for key in ("preset", "run"):
            problem = _value_problem(change[key])
            if problem:
                raise ValueError(f"{where}: changed #{i}: `{key}` {problem}")
        out.append(Change(change["path"], change["preset"], change["run"]))
    return Stamp(table["carbench"], table["numpy"], table["preset"], table["preset_sha256"], table["params_sha256"],
                 float(dt), tuple(out))


def preset_label(name: str, path) -> str:
    """How a stamp (and a script) names a preset: the shipped name, or the file's absolute path (a preset opened as
    ``mycar.toml`` went into recordings so, and they named no file from anywhere else, or claimed another preset
    beside it)."""
    from physics.presets import cars_dir

    if path is not None and path.parent.resolve() != cars_dir().resolve():
        return os.path.abspath(path)
    return name


def program_stamp(program) -> Stamp:
    """The stamp of a run of a compiled script (a ``workbench.scripts.program.Program``)."""
    base = program.preset_params if program.preset_params is not None else program.params
    return make_stamp(preset_label(program.preset, program.preset_path), base, program.params, program.dt)


def recording_note(program) -> str | None:
    """One line when ``program`` is a recording replayed with other parameters, dt or versions than it was made with."""
    recorded = program.script.recorded
    if recorded is None:
        return None
    differences = recorded.differences(program_stamp(program))
    if not differences:
        return None
    return f"note: {program.script.source} was recorded with " + "; ".join(differences)


def stamp_table(program) -> dict[str, Any]:
    """The one stamp of a run of a compiled script, as every surface shows it (--json, recordings, HTML, MCAP)."""
    return program_stamp(program).to_table()


def session_stamp(session) -> Stamp:
    """The stamp of the window's live session (a ``workbench.runs.live.LiveSession``): its preset and the parameters
    its history started with, as its recording and its run pinned for comparing are stamped (the parameters now, an
    edit made after driving among them, gave the same run another stamp)."""
    preset = session.preset
    start = session.history.start_params if session.history.frames else session.params  # before a frame: the first's
    return make_stamp(preset_label(preset.name, preset.path), preset.params, start, session.dt)
