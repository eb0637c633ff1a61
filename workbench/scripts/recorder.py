"""The recorder: a live session's per-frame inputs written as a script that replays it exactly."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from physics import ANALOG, KEYS, CarParams
from workbench.runs.stamp import make_stamp
from workbench.scripts.format import GEAR_KEYS, Expect, Hold, Script, Setting


def params_diff(base: CarParams, params: CarParams) -> dict[str, Any]:
    """The parameters of ``params`` that differ from ``base``, by dotted path."""
    out = {}
    for info in params.infos():
        value = params.get(info.path)
        if base.get(info.path) != value:
            out[info.path] = value
    return out


class Recorder:
    """Collects what the driver did on each frame and writes it as frame-exact [[hold]]/[[set]] entries.

    Call :meth:`record` once per simulated frame, before that frame is stepped, with the keys
    held, any analog overrides and any parameter changes that take effect on that frame.
    """

    def __init__(self, preset: str, dt: float, preset_params: CarParams, params: CarParams | None = None):
        self.preset = preset
        self.dt = dt
        self.frames = 0
        self._runs: dict[str, int] = {}  # key -> first frame of the current run
        self._holds: list[tuple[int, int, str]] = []
        self._sets: list[tuple[int, Setting]] = []
        self._analog: dict[str, float] = {}
        # Gear keys do nothing on a car without a gearbox, and a script for it refuses them.
        self._ignored = frozenset(GEAR_KEYS) if preset_params.gearbox is None else frozenset()
        self._stamp = make_stamp(preset, preset_params, params if params is not None else preset_params, dt)
        start = params_diff(preset_params, params) if params is not None else {}
        if start:
            self._sets.append((0, Setting(0.0, params=start)))

    def record(self, keys: Iterable[str] = (), analog: dict[str, float] | None = None, gear: int | None = None,
               params: dict[str, Any] | None = None) -> None:
        """Note frame ``self.frames``: the held keys, analog overrides in force, a gear selection, parameter edits."""
        k = self.frames
        held = set(keys)
        unknown = held - set(KEYS)
        if unknown:
            raise ValueError(f"unknown key {sorted(unknown)[0]!r}; the keys are: {', '.join(KEYS)}")
        held -= self._ignored
        for key in list(self._runs):
            if key not in held:
                self._holds.append((self._runs.pop(key), k, key))
        for key in held:
            self._runs.setdefault(key, k)
        analog = dict(analog or {})
        changed = {name: value for name, value in analog.items() if self._analog.get(name) != value}
        released = tuple(name for name in ANALOG if name in self._analog and name not in analog)
        self._analog = analog
        if changed or released or gear is not None or params:
            self._sets.append((k, Setting(k * self.dt, gear, changed, released, dict(params or {}))))
        self.frames = k + 1

    def script(self, name: str, expects: Iterable[Expect] = (), description: str = "") -> Script:
        """The recording so far as a script (duration = frames recorded * dt)."""
        holds = list(self._holds) + [(first, self.frames, key) for key, first in self._runs.items()]
        merged: dict[tuple[int, int], list[str]] = {}
        for first, end, key in holds:
            merged.setdefault((first, end), []).append(key)
        hold_entries = tuple(
            Hold(tuple(sorted(keys, key=KEYS.index)), first * self.dt, end * self.dt)
            for (first, end), keys in sorted(merged.items())
        )
        sets = tuple(s for _, s in sorted(self._sets, key=lambda item: item[0]))
        return Script(name=name, preset=self.preset, duration=max(self.frames, 1) * self.dt, dt=self.dt,
                      description=description, sets=sets, holds=hold_entries, expects=tuple(expects),
                      source=f"<recording {name}>", recorded=self._stamp)
