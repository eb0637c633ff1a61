"""The interactive session, headless: one car driven frame by frame, recorded, replayed and edited.

The window observes a :class:`LiveSession` through a small Qt model; nothing here imports Qt, so
the session's behaviour (what a frame does with keys, edits, recordings and scripts) is tested
without a display, and a replay in the window goes through the same per-frame inputs as
``carbench replay``.
"""

from __future__ import annotations

import dataclasses
import struct
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from physics import (
    ANALOG,
    DEFAULT_DT,
    KEYS,
    CarParams,
    Inputs,
    ParamError,
    Preset,
    PresetError,
    Simulation,
    Telemetry,
    check_dt,
)
from physics.inputs import ANALOG_FIELDS, input_record
from physics.records import INPUTS
from workbench.names import load_preset_file
from workbench.output.telemetry_log import TelemetryLog
from workbench.runs.replay import Verdict, _InputTrack, judge
from workbench.runs.stamp import preset_label
from workbench.scripts.driving import Drive, drivers_of, ends_at
from workbench.scripts.format import Script, load_script
from workbench.scripts.program import Program, compile_script
from workbench.scripts.recorder import Recorder, params_diff
from workbench.scripts.surfaces import ground_for, road_lost


def handed_over(spec, time: float):
    """A [driver] (DriverSpec) that lets go at ``time`` [s]: its hand_over, and its ``until`` left out when it comes
    no sooner (it would never trigger, and a recording that ends before it could not name it)."""
    spec = dataclasses.replace(spec, hand_over=time)
    if spec.until is not None and spec.until >= time:
        spec = dataclasses.replace(spec, until=None)
        if spec.until_distance is None:  # nothing triggers what comes after
            spec = dataclasses.replace(spec, then="continue", steer_then="continue", decel=0.0)
    return spec


class Compiling:
    """A script (a recording just stopped) compiled on a thread of its own, to become the session's script to replay.

    A 30-minute recording's compile took 0.1 to 0.2 s (and 7 ms more per parameter edit in it) on the window's thread
    when it stopped. The thread reads only the script, which is frozen; the session takes the program on its own
    thread (:meth:`LiveSession.take_compiled`).
    """

    def __init__(self, script: Script):
        self.script = script
        self.program: Program | None = None
        self.track: _InputTrack | None = None
        self.error: Exception | None = None  # what the compile raised (a ScriptError: the program is not taken)
        self.taken = False  # the session took the program as its script to replay
        self.done = threading.Event()  # the compile ended (program or error set)
        self.over = threading.Event()  # and its thread is through (``notify`` returned)

    def start(self, notify: Callable[[Compiling], None] | None = None) -> None:
        """Compile on a thread; then ``notify(self)`` there (to tell the session's thread, which takes the program)."""

        def run() -> None:
            try:
                program = compile_script(self.script, dt=self.script.dt)
                self.track = _InputTrack([program], program.frames)
                self.program = program
            except Exception as exc:  # noqa: BLE001 - handed to the session's thread, which says or raises it
                self.error = exc
            finally:
                self.done.set()
            try:
                if notify is not None:
                    notify(self)
            finally:
                self.over.set()

        # Not a daemon: a window closed meanwhile waits for it (a fraction of a second) rather than cut it short.
        threading.Thread(target=run, name="carbench-compile-recording").start()


REPLAY_OWNS_PARAMS = "the script sets the parameters while it replays; edit them when it is over"
"""Why an edit is refused while a script replays (the script sets the car's parameters then)."""


class InputHistory:
    """What the car was given on each frame stepped so far: keys, analog overrides, gear selections, parameters.

    Enough to re-simulate any prefix of the session bit for bit and to write it as a script.
    """

    def __init__(self, params: CarParams, capacity: int = 4096):
        self.start_params = params  # in effect at frame 0
        self.frames = 0
        self.keys = np.zeros((capacity, len(KEYS)), dtype=bool)
        self.analog_on = np.zeros((capacity, len(ANALOG)), dtype=bool)
        self.analog_value = np.zeros((capacity, len(ANALOG)))
        self.gear_on = np.zeros(capacity, dtype=bool)
        self.gear_value = np.zeros(capacity, dtype=np.int64)
        self.changes: list[tuple[int, CarParams]] = []  # (frame, parameters from that frame on), frame > 0

    def _grow(self) -> None:
        for name in ("keys", "analog_on", "analog_value", "gear_on", "gear_value"):
            old = getattr(self, name)
            new = np.zeros((2 * len(old),) + old.shape[1:], dtype=old.dtype)
            new[:len(old)] = old
            setattr(self, name, new)

    def append(self, keys, analog_on=None, analog_value=None, gear: int | None = None,
               params: CarParams | None = None) -> None:
        """Frame ``self.frames``: ``keys`` a row of KEYS flags; ``params`` when they changed on this frame."""
        k = self.frames
        if k == len(self.keys):
            self._grow()
        self.keys[k] = keys
        if analog_on is not None:
            self.analog_on[k] = analog_on
            self.analog_value[k] = analog_value
        self.gear_on[k] = gear is not None
        self.gear_value[k] = 0 if gear is None else gear
        self._close(k, params)

    def append_live(self, keys: np.ndarray, analog: dict[str, float], params: CarParams | None = None) -> None:
        """Frame ``self.frames`` as :meth:`append` takes it, from a row of KEYS flags and the overrides by name."""
        k = self.frames
        if k == len(self.keys):
            self._grow()
        self.keys[k] = keys
        if analog:
            self.analog_on[k] = False
            self.analog_value[k] = 0.0
            for name, value in analog.items():
                j = _ANALOG_INDEX[name]
                self.analog_on[k, j] = True
                self.analog_value[k, j] = value
        # gear_on[k] and gear_value[k] are already False and 0: frames past the history are kept cleared
        if params is None:
            self.frames = k + 1
        else:
            self._close(k, params)

    def _close(self, k: int, params: CarParams | None) -> None:
        """End frame ``k``: the car's parameters from it on, when they changed (the first frame's are the start)."""
        if params is not None:
            if k == 0:
                self.start_params = params
            else:
                self.changes.append((k, params))
        self.frames = k + 1

    def truncate(self, frames: int) -> None:
        """Forget frame ``frames`` and every later one."""
        self.frames = min(self.frames, max(frames, 0))
        self.analog_on[self.frames:] = False
        self.gear_on[self.frames:] = False
        self.gear_value[self.frames:] = 0
        self.changes = [(k, p) for k, p in self.changes if k < self.frames]

    def params_at(self, frame: int) -> CarParams:
        """The parameters in effect on ``frame``."""
        params = self.start_params
        for k, p in self.changes:
            if k <= frame:
                params = p
        return params

    def params_before(self, frame: int) -> CarParams:
        """The parameters a drive on from the start of ``frame`` goes on with: those of the frame before it (the
        start's at frame 0)."""
        return self.params_at(frame - 1) if frame > 0 else self.start_params

    def inputs(self, k: int) -> Inputs:
        return Inputs.from_row(self.keys[k], self.analog_on[k], self.analog_value[k], self.gear_on[k],
                               self.gear_value[k])

    def replay_into(self, sim: Simulation, log: TelemetryLog | None, frames: int,
                    snapshots: dict[int, Any] | None = None) -> None:
        """Step ``sim`` through frames sim.frame .. frames - 1 exactly as they were.

        ``sim`` is fresh (frame 0, the start parameters) or restored at the start of a frame with the
        parameters in effect there; ``snapshots`` collects the state every SNAPSHOT_EVERY frames.
        """
        changes = dict(self.changes)
        for k in range(sim.frame, frames):
            if k in changes:
                sim.set_cars(changes[k])
            telemetry = sim.step(self.inputs(k))
            if log is not None:
                log.record(telemetry)
            if snapshots is not None and sim.frame % SNAPSHOT_EVERY == 0:
                snapshots[sim.frame] = sim.state.copy()

    def feed(self, recorder: Recorder, frames: int) -> None:
        """Write frames 0 .. frames - 1 into ``recorder`` (made with the start parameters)."""
        changes = dict(self.changes)
        params = self.start_params
        for k in range(frames):
            edits = None
            if k in changes:
                edits, params = params_diff(params, changes[k]), changes[k]
            keys = [name for name, on in zip(KEYS, self.keys[k], strict=True) if on]
            analog = {name: float(v) for name, on, v in zip(ANALOG, self.analog_on[k], self.analog_value[k],
                                                             strict=True) if on}
            gear = int(self.gear_value[k]) if self.gear_on[k] else None
            recorder.record(keys, analog, gear, edits or None)


_KEY_INDEX = {key: i for i, key in enumerate(KEYS)}
_ANALOG_INDEX = {name: j for j, name in enumerate(ANALOG)}
SNAPSHOT_EVERY = 600  # frames between kept copies of the state (5 s at 1/120 s), to drive on from quickly


class LiveInputs:
    """One car's inputs written in place each frame from the keys held and the overrides in force.

    The record behind :attr:`inputs` (an Inputs, physics.inputs) is what the kernel reads: a frame
    copies the bytes of its keys' record (made once per set of keys) over it and writes the
    overrides' flags and values, so no array is made per frame. :attr:`keys` is the row of KEYS
    flags as written (a view, for the history).
    """

    def __init__(self):
        self.inputs = Inputs.idle(1)
        record = input_record(self.inputs)
        self._bytes = memoryview(record.view(np.uint8).reshape(-1))
        self.keys = record.view(np.bool_).reshape(-1)[:len(KEYS)]
        self._templates: dict[frozenset, bytes] = {}
        self._written: frozenset | None = None  # the keys the record holds with no override (None: rewrite it)

    def write(self, held: frozenset, analog: dict[str, float]) -> Inputs:
        """This frame's inputs: ``held`` keys, ``analog`` overrides by SPEC 4 name (ValueError when unknown)."""
        if not analog and held == self._written:  # the same keys as the last frame: the record already says so
            return self.inputs
        template = self._templates.get(held)
        if template is None:
            template = self._templates[held] = _keys_template(held)
        self._written = None
        self._bytes[:] = template
        for name, value in analog.items():
            at = _ANALOG_AT.get(name)
            if at is None:
                raise ValueError(f"unknown override {name!r}; the overrides are: {', '.join(ANALOG)}")
            self._bytes[at[0]] = 1
            struct.pack_into("d", self._bytes, at[1], value)
        if not analog:
            self._written = held
        return self.inputs


def _keys_template(held: frozenset) -> bytes:
    """One car's INPUTS record with ``held`` keys down and nothing else, as bytes."""
    for key in held:
        if key not in _KEY_INDEX:
            raise ValueError(f"unknown key {key!r}; the keys are: {', '.join(KEYS)}")
    return Inputs.from_keys(1, held)._record.tobytes()


def _field_offset(name: str) -> int:
    return INPUTS.fields[name][1]


# The keys are the record's first fields, one byte each (LiveInputs.keys reads them as a row of flags).
assert INPUTS.names[:len(KEYS)] == KEYS and [_field_offset(k) for k in KEYS] == list(range(len(KEYS)))
assert INPUTS[f"{ANALOG_FIELDS[ANALOG[0]]}_value"] == np.float64
_ANALOG_AT = {name: (_field_offset(f"{ANALOG_FIELDS[name]}_on"), _field_offset(f"{ANALOG_FIELDS[name]}_value"))
              for name in ANALOG}


def named_preset(name_or_path: str | Path) -> Preset:
    """The preset a name or path means by carbench's one rule (workbench.names); PresetError otherwise."""
    from workbench.names import NameRuleError, load_named_preset

    try:
        return load_named_preset(name_or_path)
    except NameRuleError as exc:
        raise PresetError(str(exc)) from None


def preset_reference(preset: Preset) -> str:
    """How a script names this preset: the shipped name, or the file's path."""
    return preset_label(preset.name, preset.path)


class LiveSession:
    """One car at a fixed dt with its history, an optional recording and an optional script to replay."""

    def __init__(self, preset: Preset | str = "sedan", dt: float = DEFAULT_DT):
        self.dt = check_dt(dt)
        self.last_recording: Script | None = None
        self.stopped_empty = False  # the recording stopped last drove no frame (it is not the last recording)
        self.recording_unsaved = False  # the last recording has not been saved since it stopped
        self._stopped: tuple[Recorder, Script] | None = None  # the last recording's recorder, and the script it gave
        self._compiling: Compiling | None = None  # the last recording, to be the script to replay once compiled
        self.on_compiled: Callable[[Compiling], None] | None = None  # told, on the session's thread, when taken
        # Counts the scripts to replay the session has had: one more each time another script (or none) takes the place
        # of the one loaded (a load, a recording's compile taken, a new car), not when the one loaded is edited
        # (adopt_replay) or renamed. A replay made elsewhere of the script loaded at serial n is adopted only while the
        # serial is still n (adopt_replay): a re-run of the script before a recording's Stop took its place over it.
        self.script_serial = 0
        self._inputs = LiveInputs()  # the keys' frame, written in place
        self._use_preset(named_preset(preset) if isinstance(preset, str) else preset)

    # -- the car --------------------------------------------------------------------------------

    def _use_preset(self, preset: Preset) -> None:
        self.take_compiled()
        if self.__dict__.get("recorder") is not None:
            self.stop_recording()  # a new car ends the recording; what was recorded is kept
        self.preset = preset
        self.params: CarParams = preset.params
        self._drive: Drive | None = None  # the script's driver on the frames of the history it drove
        self.sim = Simulation(self.params, n=1, dt=self.dt)
        self.log = TelemetryLog(self.params.model.unit, 1, capacity=8192)
        self._pending: dict[str, Any] = {}
        self.recorder: Recorder | None = None
        self.program: Program | None = None
        self._track: _InputTrack | None = None
        self.script_serial += 1
        self.replaying = False
        self.replayed = False  # the history is the loaded script's replay (so its verdicts apply)
        self.drove_on_script = False  # a recording that drives on from the loaded script's replay
        self.history = InputHistory(self.params)
        self._stale_sim = False  # the simulation lags the history (see adopt_replay)
        self._snapshots: dict[int, Any] = {}  # frame -> the state at its start (see drive_from)

    def load_preset(self, name_or_path: str | Path) -> Preset:
        """Switch to another car (validated first: on error nothing changes). Stops recording and replay."""
        preset = named_preset(name_or_path)
        self._use_preset(preset)
        return preset

    @property
    def frame(self) -> int:
        """The next frame to step (also the number of frames recorded in the history)."""
        return self.history.frames if self._stale_sim else self.sim.frame

    @property
    def time(self) -> float:
        return self.frame * self.dt

    @property
    def modified(self) -> bool:
        """True when the parameters differ from the preset as loaded (unsaved edits)."""
        return self.params != self.preset.params

    def set_param(self, path: str, value: Any) -> CarParams:
        """Change one parameter from the next step on (validated: ParamError leaves everything as it was)."""
        if self.replaying:
            raise ValueError(f"{path}: {REPLAY_OWNS_PARAMS}")
        updated = self.params.with_value(path, value)
        problem = self._change_problem(self.params, updated)
        if problem:
            raise ValueError(f"{path}: {problem}")
        self.params = updated
        self._pending[path] = updated.get(path)
        return updated

    def set_params(self, changes: dict[str, Any]) -> CarParams:
        """Change several parameters at once from the next step on (validated together, as one edit)."""
        if self.replaying:
            raise ValueError(REPLAY_OWNS_PARAMS)
        updated = self.params.with_values(changes)
        problem = self._change_problem(self.params, updated)
        if problem:
            raise ValueError(problem)
        self.params = updated
        self._pending.update({path: updated.get(path) for path in changes})
        return updated

    def edit_problem(self, changes: dict[str, Any], replay_ends: bool = False) -> str | None:
        """Why :meth:`set_params` would refuse ``changes`` now (a replay owns the parameters, a value out of its
        limits, another kind of car, a car that would no longer feel the loaded road); None when it would take them.
        ``replay_ends``: the caller ends a replay first (a car chosen on a sweep), so a replay is no reason."""
        return REPLAY_OWNS_PARAMS if self.replaying and not replay_ends else self._problem_on(self.params, changes)

    def edit_problem_at(self, frame: int, changes: dict[str, Any]) -> str | None:
        """Why ``changes`` could not be made on the car a drive on from ``frame`` goes on with
        (:meth:`InputHistory.params_before`), as :meth:`set_params` would refuse them there; None when they could."""
        return self._problem_on(self.history.params_before(frame), changes)

    def _problem_on(self, before: CarParams, changes: dict[str, Any]) -> str | None:
        """Why ``changes`` could not be made to the car ``before`` (its values' limits, :meth:`_change_problem`)."""
        try:
            updated = before.with_values(changes)
        except ParamError as exc:
            return str(exc)
        return self._change_problem(before, updated)

    def _change_problem(self, before: CarParams, updated: CarParams) -> str | None:
        """Why ``updated`` may not replace ``before`` while the car runs: another kind of car (swap_problem), or one
        that would no longer feel the loaded script's road surfaces (workbench.scripts.surfaces.road_lost); else
        None."""
        return before.swap_problem(updated) or road_lost(self._surfaces(), before, updated,
                                                          "the loaded script's road surfaces")

    def use_preset(self, preset: Preset, params: CarParams | None = None) -> None:
        """Switch to a preset already loaded, optionally with edited ``params`` (undoing a preset load)."""
        self._use_preset(preset)
        if params is not None and params != preset.params:
            self.params = params
            self.sim = self._new_sim(self.params)

    def reset_params(self, paths: Iterable[str] | None = None) -> None:
        """Put parameters (all when ``paths`` is None) back to the preset's values, from the next step on: an edit
        like any other (refused during a replay, and where the values left would not make a car, ParamError)."""
        base = self.preset.params
        targets = [i.path for i in self.params.infos()] if paths is None else list(paths)
        changes = {p: base.get(p) for p in targets if self.params.get(p) != base.get(p)}
        if changes:
            self.set_params(changes)

    def mark_saved(self, preset: Preset) -> None:
        """The current parameters were saved as ``preset``: they are the new reference, nothing is modified."""
        self.preset = preset

    # -- stepping -------------------------------------------------------------------------------

    def reset(self) -> None:
        """Back to rest at the origin at frame 0 with the current parameters; the history is cleared.

        A recording restarts (a script starts from rest); a replay starts over, with the script's
        parameters.
        """
        if self.replaying:
            self.start_replay()
            return
        self.replayed = False
        self._drive = None
        self.sim = self._new_sim(self.params)
        self.log = TelemetryLog(self.params.model.unit, 1, capacity=8192)
        self.history = InputHistory(self.params)
        self._stale_sim = False
        self._snapshots = {}
        self._pending = {}
        if self.recorder is not None:
            self.recorder = Recorder(preset_reference(self.preset), self.dt, self.preset.params, self.params,
                                 surfaces=self._surfaces())

    def step(self, keys: Iterable[str] = (), analog: dict[str, float] | None = None) -> Telemetry:
        """Advance one frame: with ``keys`` held, or with the loaded script's inputs while it replays.

        ``analog`` holds the overrides in force on this frame (a controller's or the mouse's
        steer, throttle_pedal, brake_pedal, clutch_pedal); a control it leaves out follows the keys.
        """
        if self._stale_sim:
            self._restore_sim()
        k = self.sim.frame
        if self.replaying and self.program is not None:
            if k >= self.program.frames:
                self.replaying = False
            else:
                changed = None
                for frame, params in self.program.param_changes:
                    if frame == k:
                        self.params = changed = params
                        self.sim.set_cars(params)
                p = self.program
                gear = int(p.gear_value[k]) if p.gear_on[k] else None
                self.history.append(p.keys[k], p.analog_on[k], p.analog_value[k], gear, changed)
                telemetry = self.sim.step(self._track.inputs(k))
                self.log.record(telemetry)
                self._snapshot()
                if k + 1 >= self.program.frames:
                    self.replaying = False
                return telemetry
        held = frozenset(keys)
        analog = analog or {}
        inputs = self._inputs.write(held, analog)
        pending = self._pending
        if pending:
            self.sim.set_cars(self.params)
        if self.recorder is not None:
            self.recorder.record(held, analog, params=pending or None)
        self.history.append_live(self._inputs.keys, analog, params=self.params if pending else None)
        if pending:
            self._pending = {}
        telemetry = self.sim.step(inputs)
        self.log.record(telemetry)
        if self.sim.frame % SNAPSHOT_EVERY == 0:
            self._snapshot()
        return telemetry

    def _surfaces(self) -> tuple:
        """The road the session drives on: the loaded script's surfaces."""
        return self.program.script.surfaces if self.program is not None else ()

    def _new_sim(self, params: CarParams) -> Simulation:
        """A fresh simulation of the session's car, driven by the script's driver where the history was."""
        drivers, track = drivers_of([self._drive])
        ground = ground_for([self.program]) if self.program is not None else {}  # the loaded script's road
        return Simulation(params, n=1, dt=self.dt, drivers=drivers, track=track, **ground)

    def _snapshot(self) -> None:
        if self.sim.frame % SNAPSHOT_EVERY == 0:
            self._snapshots[self.sim.frame] = self.sim.state.copy()

    # -- driving on from the past -----------------------------------------------------------------

    def whole_run(self, label: str = "run"):
        """The session's history so far as a run (a copy), with its stamp and, after a replay, its verdicts."""
        from workbench.runs.compare import run_from_log
        from workbench.runs.stamp import make_stamp

        start = self.history.start_params
        stamp = make_stamp(preset_reference(self.preset), self.preset.params, start, self.dt)
        verdicts = [v for v in self.verdicts() if v is not None] if self.replayed else None
        script = self.program.script.source if self.replayed and self.program is not None else None
        changes = tuple((k, p) for k, p in self.history.changes if k < self.log.frames)
        return run_from_log(self.log, start, self.dt, label, verdicts, stamp, script=script, changes=changes)

    def drive_from(self, frame: int, label: str = "before driving on"):
        """Go on live from the start of ``frame``: frames 0 .. frame - 1 are kept, the later ones discarded.

        The state is restored exactly: from the latest state kept at or before ``frame`` (one every
        SNAPSHOT_EVERY frames), or from rest, by re-simulating the frames up to ``frame`` with their
        recorded inputs, checked bit for bit against the history. A recording restarts as those
        frames' inputs, so what is driven next is recorded after them and the script replays
        everything seen. Returns the run as it was before (whole: every frame), or None when
        ``frame`` is past the history (nothing discarded).
        """
        self.take_compiled()
        frame = max(0, int(frame))
        if frame >= self.log.frames:
            return None
        past = self.whole_run(label)
        history = self.history
        base = max((f for f in self._snapshots if f <= frame), default=0)
        sim = self._new_sim(history.params_before(base))
        if base:
            sim.restore(self._snapshots[base], base)
        redone = TelemetryLog(history.start_params.model.unit, 1, capacity=max(frame - base, 1))
        history.replay_into(sim, redone, frame)
        if not np.array_equal(redone.matrix(), self.log.matrix(frames=frame)[base:]):
            raise RuntimeError(f"re-simulating frames {base}..{frame - 1} did not reproduce them bit for bit")
        self.restored_from = base
        if self._drive is not None:  # from here on the keys drive: the script's driver lets go at ``frame``
            # (or where it let go already: a second drive-on later than a first must not bring it back)
            self._drive = ends_at(self._drive, min(float(self._drive.record["end_time"]), (frame - 0.5) * self.dt))
            sim.set_drivers(*drivers_of([self._drive]))
        self.sim = sim
        self.log.truncate(frame)
        self._snapshots = {f: state for f, state in self._snapshots.items() if f <= frame}
        self._stale_sim = False
        history.truncate(frame)
        self.params = history.params_before(frame)
        self._pending = {}
        self.replaying = False
        # Driving on from a replay of the loaded script: its expectations are judged on the run that
        # goes on (its first frames are the script's), and the script stays the one loaded.
        self.replayed = self.replayed and self.program is not None
        self.drove_on_script = self.replayed
        driver = None
        if self._drive is not None and self._drive.spec is not None:  # the recording replays its driven frames
            driver = handed_over(self._drive.spec, float(self._drive.record["end_time"]))
        self.recorder = Recorder(preset_reference(self.preset), self.dt, self.preset.params, history.start_params,
                                 surfaces=self._surfaces(), driver=driver)
        history.feed(self.recorder, frame)
        return past

    def adopt_replay(self, result, serial: int | None = None) -> None:
        """Take a replay made elsewhere (``replay()``, e.g. in a background thread) as the session's history.

        ``result`` is a ReplayResult of a script on this session's car and dt: its telemetry becomes
        the history, its program the loaded script, and its inputs the input history, so the
        session can drive on from any of its frames. The simulation's state at the end is rebuilt
        (bit for bit, by re-simulation) only when the session steps on.

        ValueError, and nothing changes, where another script has taken the place of the one the replay is of: with
        ``serial`` (the :attr:`script_serial` of the script it is of) when the serial has moved on since, and in any
        case when a recording's compile is taken here (the script to replay changes under it).
        """
        taken = self.take_compiled()
        if (taken is not None and taken.taken) or (serial is not None and serial != self.script_serial):
            # (a re-run of the script a recording's Stop replaced, made before the recording's compile was taken: it
            # overwrote the recording as the script to replay)
            raise ValueError("the replay is of a script that another has taken the place of since")
        program = result.program
        if program.dt != self.dt or self.params.swap_problem(program.params):
            raise ValueError("the replay is of another dt or another kind of car than the session's")
        if self.recorder is not None:
            self.stop_recording()
        self.program = program
        self._drive = program.drive
        self._track = _InputTrack([program], program.frames)
        self.log = TelemetryLog(program.params.model.unit, 1, capacity=max(8192, program.frames))
        self.log._data[:program.frames, :, 0] = result.log.matrix(result.car, program.frames)
        self.log.frames = program.frames
        history = InputHistory(program.params, capacity=max(4096, program.frames))
        changes = dict(program.param_changes)
        for k in range(program.frames):
            gear = int(program.gear_value[k]) if program.gear_on[k] else None
            history.append(program.keys[k], program.analog_on[k], program.analog_value[k], gear, changes.get(k))
        self.history = history
        self.params = history.params_at(program.frames - 1)
        self._pending = {}
        self.replaying = False
        self.replayed = True
        self._stale_sim = True
        self._snapshots = {}

    def _restore_sim(self) -> None:
        """Rebuild the simulation at the end of the history (after :meth:`adopt_replay`)."""
        sim = self._new_sim(self.history.start_params)
        self.history.replay_into(sim, None, self.history.frames, self._snapshots)
        self.sim = sim
        self._stale_sim = False

    # -- recording ------------------------------------------------------------------------------

    @property
    def recording(self) -> bool:
        return self.recorder is not None

    def start_recording(self) -> None:
        """Start a recording from rest at the origin (a script's start); the current parameters are kept."""
        self.take_compiled()
        self.replaying = False
        self.replayed = False
        self.drove_on_script = False
        self.recorder = Recorder(preset_reference(self.preset), self.dt, self.preset.params, self.params,
                                 surfaces=self._surfaces())
        self.reset()

    def stop_recording(self, name: str = "recording") -> Script | None:
        """End the recording and return it as a script (None when nothing was recording)."""
        self.take_compiled()
        if self.recorder is None:
            return None
        script = self.recorder.script(name)
        # A recording stopped before any frame was driven is none: as a script it drove a frame nobody drove (a
        # script has one at least) and left out an edit made in it, which is written with the frame after it. The
        # recording before it stays the last one, as it was (saved, or let go, before this one started).
        self.stopped_empty = self.recorder.frames == 0
        if not self.stopped_empty:
            self.recording_unsaved = True
            self._stopped = (self.recorder, script)
            self.last_recording = script
        self.recorder = None
        return script

    def use_script_soon(self, script: Script, notify: Callable[[Compiling], None] | None = None) -> Compiling:
        """Take ``script`` (the recording just stopped) as the one to replay once it is compiled, on a thread of its
        own; ``notify`` is called on that thread when it is (then call :meth:`take_compiled` on the session's).
        Anything that needs the script to replay, or changes it, takes it first (waiting for the compile)."""
        self.take_compiled()
        compiling = Compiling(script)
        self._compiling = compiling
        compiling.start(notify)
        return compiling

    def compile_over(self) -> None:
        """Wait until the thread of a compile :meth:`use_script_soon` started is through (a window that closes: its
        model must outlive what the thread tells it); the program stays untaken."""
        compiling = self._compiling
        if compiling is not None:
            compiling.over.wait()

    @property
    def compiling(self) -> bool:
        """Whether a recording is being compiled to be the script to replay (:meth:`use_script_soon`)."""
        return self._compiling is not None

    def take_compiled(self, wait: bool = True) -> Compiling | None:
        """Take the program :meth:`use_script_soon` compiled as the script to replay (waiting for it, or with ``wait``
        False only once it is there), then tell ``on_compiled``; what was taken, or None. A compile the car refuses
        (ScriptError, PresetError) is not taken: ``on_compiled`` says it, or, without one, it is raised here."""
        compiling = self._compiling
        if compiling is None or not (wait or compiling.done.is_set()):
            return None
        compiling.done.wait()
        self._compiling = None
        if compiling.program is not None:
            self.program, self._track = compiling.program, compiling.track
            self.script_serial += 1
            self.replayed = False
            compiling.taken = True
        if self.on_compiled is not None:
            self.on_compiled(compiling)
        elif compiling.error is not None:
            raise compiling.error
        return compiling

    def program_to_replay(self) -> Program | None:
        """The script to replay: the recording just stopped, once compiled (its compile is taken first, waited for if
        it is still under way: :meth:`take_compiled`), else the one loaded. What acts on the script to replay (re-runs
        it after an edit, sweeps it, judges its KPIs, drives a car chosen on a sweep, keeps a file from being written
        over it) reads it here; :attr:`program` alone is still the script before the Stop until the compile is taken,
        and is for showing what is loaded now (the window is told when it changes: script_loaded)."""
        self.take_compiled()
        return self.program

    def unsaved_recorder(self) -> Recorder | None:
        """The recorder of what a crash would lose: the running one (once it has a frame), or the one whose
        stopped recording is the last recording, not saved since (renamed or not)."""
        if self.recorder is not None and self.recorder.frames > 0:
            return self.recorder
        last, stopped = self.last_recording, self._stopped
        if not self.recording_unsaved or last is None or stopped is None:
            return None
        script = stopped[1]  # a rename replaces the name only: the same entries, the very same tuples
        same = last.holds is script.holds and last.sets is script.sets and last.tracks is script.tracks
        return stopped[0] if same else None

    # -- scripts --------------------------------------------------------------------------------

    def load_script(self, path: str | Path) -> Program:
        """Load a script to replay: its preset is loaded too. On error (ScriptError) nothing changes."""
        self.take_compiled()
        program = compile_script(load_script(path))
        preset = load_preset_file(program.preset_path) if program.preset_path is not None else self.preset
        self.dt = program.dt
        self._use_preset(preset)
        self.program = program
        self._track = _InputTrack([program], program.frames)
        self.script_serial += 1
        return program

    def use_script(self, script: Script) -> Program:
        """Take a script already in memory (e.g. the last recording) as the one to replay (on its preset)."""
        self.take_compiled()
        program = compile_script(script, dt=script.dt)
        self.program = program
        self._track = _InputTrack([program], program.frames)
        self.script_serial += 1
        self.replayed = False
        return program

    def start_replay(self) -> None:
        """Replay the loaded script from its start (frame 0, at rest, its parameters)."""
        self.take_compiled()
        if self.program is None:
            raise RuntimeError("no script loaded")
        if self.program.preset_path is not None and self.program.preset_path != self.preset.path:
            program, track = self.program, self._track
            self._use_preset(load_preset_file(program.preset_path))
            self.program, self._track = program, track
        if self.recorder is not None:
            self.stop_recording()  # kept as the last recording, not lost
        self.dt = self.program.dt
        self.params = self.program.params
        self._drive = self.program.drive
        self.sim = self._new_sim(self.params)
        self.log = TelemetryLog(self.params.model.unit, 1, capacity=self.program.frames)
        self.history = InputHistory(self.params)
        self._stale_sim = False
        self._snapshots = {}
        self._pending = {}
        self.replaying = True
        self.replayed = True
        self.drove_on_script = False

    def verdicts(self) -> list[Verdict | None]:
        """The loaded script's expectations judged on its replay so far (None: not over, or not replayed)."""
        if self.program is None:
            return []
        if not self.replayed:
            return [None] * len(self.program.script.expects)
        units = {c.name: c.unit for c in self.log.infos}
        out: list[Verdict | None] = []
        for expect, (first, last) in zip(self.program.script.expects, self.program.windows, strict=True):
            if last >= self.log.frames:
                out.append(None)
            else:
                values = self.log.column(expect.channel)
                out.append(judge(expect, values, first, last, self.dt, units[expect.channel]))
        return out
