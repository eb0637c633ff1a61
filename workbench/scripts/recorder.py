"""The recorder: a live session's per-frame inputs written as a script that replays it exactly.

Keys become ``[[hold]]`` segments; an analog control (a gamepad's stick, a wheel's pedal, the
mouse) becomes a ``[[track]]`` of per-frame values while it moves and a ``[[set]]`` where it
changes once and then stays.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from physics import ANALOG, KEYS, CarParams
from workbench.runs.stamp import make_stamp
from workbench.scripts.format import GEAR_KEYS, Expect, Hold, Script, Setting
from workbench.scripts.track import Track

TRACK_GAP = 6  # [frames] changes of a control this close together go into one [[track]]
TRACK_MIN = 3  # changes a [[track]] holds at least; fewer are written as [[set]] entries

JournalMark = tuple[int, int, tuple[int, ...]]  # entries of a Recorder already journaled: holds, sets, changes by control


def params_diff(base: CarParams, params: CarParams) -> dict[str, Any]:
    """The parameters of ``params`` that differ from ``base``, by dotted path."""
    out = {}
    for info in params.infos():
        value = params.get(info.path)
        if base.get(info.path) != value:
            out[info.path] = value
    return out


class Recorder:
    """Collects what the driver did on each frame and writes it as frame-exact [[hold]]/[[set]]/[[track]] entries.

    Call :meth:`record` once per simulated frame, before that frame is stepped, with the keys
    held, any analog overrides and any parameter changes that take effect on that frame.
    """

    def __init__(self, preset: str, dt: float, preset_params: CarParams, params: CarParams | None = None,
                 surfaces: tuple = (), driver=None):
        self.preset = preset
        self.surfaces = tuple(surfaces)  # the road driven on: a recording replays on the same surfaces
        # A closed-loop driver that drove the first frames (a replay driven on from): its DriverSpec, with the
        # hand_over where the keys took over. It steers inside the simulation, so its inputs are in no key or track.
        self.driver = driver
        self.dt = dt
        self.frames = 0
        self._runs: dict[str, int] = {}  # key -> first frame of the current run
        self._holds: list[tuple[int, int, str]] = []
        self._sets: list[tuple[int, Setting]] = []
        self._analog: dict[str, float] = {}
        self._changes: dict[str, list[tuple[int, float | None]]] = {name: [] for name in ANALOG}  # None: released
        self._no_stretches()
        # Gear keys do nothing on a car without a gearbox, and a script for it refuses them.
        self._ignored = frozenset(GEAR_KEYS) if preset_params.gearbox is None else frozenset()
        self._preset_params = preset_params
        self._start = params if params is not None else preset_params  # in effect on the first frame (stamped)
        self._stamp = None  # the stamp, where it is known and the parameters are not (a recorder from a journal)
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
        analog = {name: float(value) for name, value in (analog or {}).items()}
        if not set(analog) <= set(ANALOG):
            odd = sorted(set(analog) - set(ANALOG))[0]
            raise ValueError(f"unknown analog control {odd!r}; the controls are: {', '.join(ANALOG)}")
        held -= self._ignored
        for key in list(self._runs):
            if key not in held:
                self._holds.append((self._runs.pop(key), k, key))
        for key in held:
            self._runs.setdefault(key, k)
        for name, value in analog.items():
            if self._analog.get(name) != value:
                self._changes[name].append((k, value))
                self._stretch(name, k, value)
        for name in self._analog:
            if name not in analog:
                self._changes[name].append((k, None))
                self._stretch(name, k, None)
        self._analog = analog
        if gear is not None or params:
            self._sets.append((k, Setting(k * self.dt, gear, params=dict(params or {}))))
        if k == 0 and params:  # an edit on the first frame: the recording starts with it, and is stamped so (its
            # replay, which starts with it too, said "recorded with other parameters")
            self._start = self._start.with_values(dict(params))
        self.frames = k + 1

    def script(self, name: str, expects: Iterable[Expect] = (), description: str = "") -> Script:
        """The recording so far as a script: its N frames (duration N * dt, ``frames`` N: the frame at t = duration,
        which a script's run would add, was not driven)."""
        holds = list(self._holds) + [(first, self.frames, key) for key, first in self._runs.items()]
        merged: dict[tuple[int, int], list[str]] = {}
        for first, end, key in holds:
            merged.setdefault((first, end), []).append(key)
        hold_entries = tuple(
            Hold(tuple(sorted(keys, key=KEYS.index)), first * self.dt, end * self.dt)
            for (first, end), keys in sorted(merged.items())
        )
        sets, tracks = self._analog_entries()
        return Script(name=name, preset=self.preset, duration=max(self.frames, 1) * self.dt, dt=self.dt,
                      description=description, sets=sets, holds=hold_entries, expects=tuple(expects),
                      source=f"<recording {name}>", recorded=self.stamp(), tracks=tracks, surfaces=self.surfaces,
                      driver=self.driver, frames=max(self.frames, 1))

    def stamp(self):
        """What the recording is made with (its script's ``[recorded]``)."""
        if self._stamp is not None:
            return self._stamp
        return make_stamp(self.preset, self._preset_params, self._start, self.dt)

    # -- a journal: the recording kept as it grows, each part written once ----------------------------------------

    def head(self, name: str, description: str = "") -> Script:
        """The recording without its entries: its preset, dt, stamp, road and driver, and its duration so far.

        :meth:`journal` gives the entries; :meth:`from_journal` puts the two together again.
        """
        return Script(name=name, preset=self.preset, duration=max(self.frames, 1) * self.dt, dt=self.dt,
                      description=description, source=f"<recording {name}>", recorded=self.stamp(),
                      surfaces=self.surfaces, driver=self.driver)

    def journal(self, since: JournalMark | None = None) -> tuple[dict[str, Any], JournalMark]:
        """What was recorded since ``since`` (from the start when None), JSON-ready, and the mark for the next call.

        The holds that ended, the gear and parameter entries and each control's changes are those added
        since the mark (they never change once added); ``frames`` and ``runs`` (each key held now, from its
        first frame) are as they are now. Cheap: the work is that of the entries added, not of the recording.
        """
        holds, sets, changes = since if since is not None else (0, 0, (0,) * len(ANALOG))
        entry: dict[str, Any] = {"frames": self.frames, "runs": dict(self._runs)}
        if len(self._holds) > holds:
            entry["holds"] = [list(h) for h in self._holds[holds:]]
        if len(self._sets) > sets:
            entry["sets"] = [[k, s.gear, dict(s.params)] for k, s in self._sets[sets:]]
        moved = {name: [list(c) for c in self._changes[name][done:]]
                 for name, done in zip(ANALOG, changes, strict=True) if len(self._changes[name]) > done}
        if moved:
            entry["changes"] = moved
        mark = (len(self._holds), len(self._sets), tuple(len(self._changes[name]) for name in ANALOG))
        return entry, mark

    @classmethod
    def from_journal(cls, head: Script, entries: Iterable[Mapping[str, Any]]) -> Recorder:
        """A recorder holding what :meth:`journal`'s entries (in their order) recorded on ``head``'s car, dt,
        stamp, road and driver: its :meth:`script` is the recording. ValueError names an entry that is not one."""
        if head.dt is None or head.recorded is None:
            raise ValueError("the recording's head has no dt or no [recorded] stamp")
        rec = cls.__new__(cls)
        rec.preset, rec.dt, rec.surfaces, rec.driver = head.preset, head.dt, head.surfaces, head.driver
        rec._stamp = head.recorded
        rec._preset_params = rec._start = None
        rec._ignored = frozenset()
        rec._analog = {}
        rec._holds, rec._sets = [], []
        rec._changes = {name: [] for name in ANALOG}
        rec._runs, rec.frames = {}, 0
        for n, entry in enumerate(entries, 1):
            _take_entry(rec, entry, f"entry {n}")
        rec._no_stretches()
        for name in ANALOG:
            for frame, value in rec._changes[name]:
                rec._stretch(name, frame, value)
        return rec

    # -- a control's changes in stretches, kept as they are recorded ------------------------------------------------
    # (Splitting a 30-minute recording's changes and filling its tracks' values frame by frame when it stopped took
    # 0.1 s of the window's thread; kept as they come, each change costs what it adds and the script is put together
    # from the stretches.)

    def _no_stretches(self) -> None:
        # Per control: the stretches closed (a Track, or the (frame, value) changes [[set]] entries are made of) and the
        # one still open (its changes and its value on every frame from its first to its last change), or None.
        self._closed: dict[str, list[Track | list[tuple[int, float | None]]]] = {name: [] for name in ANALOG}
        self._open: dict[str, tuple[list[tuple[int, float]], list[float]] | None] = {name: None for name in ANALOG}

    def _stretch(self, name: str, frame: int, value: float | None) -> None:
        """Add a change of control ``name`` to its stretches: a value within TRACK_GAP frames of the open stretch's last
        change goes on in it; a release, or a control still for longer, closes it (a release stands alone)."""
        current = self._open[name]
        if value is not None and current is not None and frame - current[0][-1][0] <= TRACK_GAP:
            changes, values = current
            last_frame, last_value = changes[-1]
            values.extend([last_value] * (frame - last_frame - 1))  # the frames between repeat the value held
            values.append(value)
            changes.append((frame, value))
            return
        if current is not None:
            self._closed[name].append(self._stretch_entry(name, current))
        if value is None:  # a release stands alone (a track only holds values)
            self._open[name] = None
            self._closed[name].append([(frame, None)])
        else:
            self._open[name] = ([(frame, value)], [value])

    def _stretch_entry(self, name: str, stretch) -> Track | list[tuple[int, float | None]]:
        """A stretch as a [[track]] (TRACK_MIN changes or more) or as the changes [[set]] entries are made of."""
        changes, values = stretch
        if len(changes) >= TRACK_MIN:
            return Track(name, changes[0][0] * self.dt, tuple(values))
        return list(changes)

    def _analog_entries(self) -> tuple[tuple[Setting, ...], tuple[Track, ...]]:
        """The [[set]] entries (gears, parameters and the analog changes that stand alone) and the [[track]]s.

        A control's changes that follow each other within TRACK_GAP frames form one stretch; a stretch
        of TRACK_MIN changes or more is a track (the frames between its changes repeat the value
        held), shorter ones and every release are [[set]] entries.
        """
        by_frame: dict[int, tuple[dict[str, float], list[str]]] = {}
        tracks = []
        for name in ANALOG:
            current = self._open[name]
            for stretch in self._closed[name] + ([self._stretch_entry(name, current)] if current is not None else []):
                if isinstance(stretch, Track):
                    tracks.append(stretch)
                    continue
                for frame, value in stretch:
                    analog, released = by_frame.setdefault(frame, ({}, []))
                    if value is None:
                        released.append(name)
                    else:
                        analog[name] = value
        entries = list(self._sets)
        last_at = {k: i for i, (k, _) in enumerate(entries)}  # a frame's last gear or parameter entry
        for k, (analog, released) in by_frame.items():
            if k in last_at:
                i = last_at[k]
                base = entries[i][1]
                entries[i] = (k, Setting(base.at, base.gear, analog, tuple(released), base.params))
            else:
                entries.append((k, Setting(k * self.dt, analog=analog, release=tuple(released))))
        sets = tuple(s for _, s in sorted(entries, key=lambda item: item[0]))
        return sets, tuple(sorted(tracks, key=lambda t: (t.start, ANALOG.index(t.control))))


def _finite(value: Any) -> bool:
    """A finite number (not a bool); an integer too large for a float is not."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _parameter_value(value: Any) -> bool:
    """What a parameter edit may be: a finite number, a string, or a list of finite numbers."""
    return _finite(value) or isinstance(value, str) or (isinstance(value, list) and all(_finite(v) for v in value))


def _frame(value: Any, where: str, frames: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or (frames is not None and value > frames):
        raise ValueError(f"{where}: {value!r} is not a frame of the recording")
    return value


def _take_entry(rec: Recorder, entry: Mapping[str, Any], where: str) -> None:
    """Add one :meth:`Recorder.journal` entry to ``rec``; ValueError names what is wrong with it."""
    if not isinstance(entry, Mapping) or not set(entry) <= {"frames", "runs", "holds", "sets", "changes"}:
        raise ValueError(f"{where}: not an entry of a recording")
    frames = _frame(entry.get("frames"), f"{where} `frames`")
    if frames < rec.frames:
        raise ValueError(f"{where}: `frames` {frames} goes back from {rec.frames}")
    runs = entry.get("runs", {})
    if not isinstance(runs, Mapping) or not set(runs) <= set(KEYS):
        raise ValueError(f"{where}: `runs` must map keys to the frame each went down")
    holds = entry.get("holds", [])
    sets = entry.get("sets", [])
    changes = entry.get("changes", {})
    if not isinstance(holds, list) or not isinstance(sets, list) or not isinstance(changes, Mapping):
        raise ValueError(f"{where}: `holds` and `sets` must be lists, `changes` a table")
    for hold in holds:
        if not (isinstance(hold, list) and len(hold) == 3 and hold[2] in KEYS):
            raise ValueError(f"{where}: a hold must be [first frame, end frame, key], got {hold!r}")
        first, end = _frame(hold[0], f"{where} hold", frames), _frame(hold[1], f"{where} hold", frames)
        rec._holds.append((first, end, hold[2]))
    for item in sets:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[2], Mapping)
                and (item[1] is None or (isinstance(item[1], int) and not isinstance(item[1], bool)
                                         and abs(item[1]) < 100))
                and all(isinstance(k, str) and _parameter_value(v) for k, v in item[2].items())):
            raise ValueError(f"{where}: a set must be [frame, gear or null, parameters (finite numbers, strings or "
                             f"lists of numbers)], got {item!r}")
        k = _frame(item[0], f"{where} set", frames)
        rec._sets.append((k, Setting(k * rec.dt, item[1], params=dict(item[2]))))
    for name, items in changes.items():
        if name not in ANALOG or not isinstance(items, list):
            raise ValueError(f"{where}: `changes` must map analog controls to their changes, got {name!r}")
        for item in items:
            if not (isinstance(item, list) and len(item) == 2 and (item[1] is None or _finite(item[1]))):
                raise ValueError(f"{where}: a change of {name} must be [frame, a finite value or null], got {item!r}")
            rec._changes[name].append((_frame(item[0], f"{where} change", frames),
                                       None if item[1] is None else float(item[1])))
    rec._runs = {key: _frame(first, f"{where} run", frames) for key, first in runs.items()}
    rec.frames = frames
