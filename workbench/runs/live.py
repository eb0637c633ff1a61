"""The interactive session, headless: one car driven frame by frame, recorded, replayed and edited.

The window observes a :class:`LiveSession` through a small Qt model; nothing here imports Qt, so
the session's behaviour (what a frame does with keys, edits, recordings and scripts) is tested
without a display, and a replay in the window goes through the same per-frame inputs as
``carbench replay``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from physics import DEFAULT_DT, CarParams, Inputs, Preset, Simulation, Telemetry, check_dt
from physics.presets import cars_dir, load_preset
from workbench.output.telemetry_log import TelemetryLog
from workbench.runs.replay import Verdict, _InputTrack, judge
from workbench.scripts.format import Script, load_script
from workbench.scripts.program import Program, compile_script
from workbench.scripts.recorder import Recorder


def preset_reference(preset: Preset) -> str:
    """How a script names this preset: the shipped name, or the file's path."""
    if preset.path is not None and preset.path.parent.resolve() == cars_dir().resolve():
        return preset.name
    return str(preset.path) if preset.path is not None else preset.name


class LiveSession:
    """One car at a fixed dt with its history, an optional recording and an optional script to replay."""

    def __init__(self, preset: Preset | str = "sedan", dt: float = DEFAULT_DT):
        self.dt = check_dt(dt)
        self.last_recording: Script | None = None
        self._use_preset(load_preset(preset) if isinstance(preset, str) else preset)

    # -- the car --------------------------------------------------------------------------------

    def _use_preset(self, preset: Preset) -> None:
        if self.__dict__.get("recorder") is not None:
            self.stop_recording()  # a new car ends the recording; what was recorded is kept
        self.preset = preset
        self.params: CarParams = preset.params
        self.sim = Simulation(self.params, n=1, dt=self.dt)
        self.log = TelemetryLog(self.params.model.unit, 1, capacity=8192)
        self._pending: dict[str, Any] = {}
        self.recorder: Recorder | None = None
        self.program: Program | None = None
        self._track: _InputTrack | None = None
        self.replaying = False
        self.replayed = False  # the history is the loaded script's replay (so its verdicts apply)

    def load_preset(self, name_or_path: str | Path) -> Preset:
        """Switch to another car (validated first: on error nothing changes). Stops recording and replay."""
        preset = load_preset(name_or_path)
        self._use_preset(preset)
        return preset

    @property
    def frame(self) -> int:
        """The next frame to step (also the number of frames recorded in the history)."""
        return self.sim.frame

    @property
    def time(self) -> float:
        return self.sim.frame * self.dt

    @property
    def modified(self) -> bool:
        """True when the parameters differ from the preset as loaded (unsaved edits)."""
        return self.params != self.preset.params

    def set_param(self, path: str, value: Any) -> CarParams:
        """Change one parameter from the next step on (validated: ParamError leaves everything as it was)."""
        if self.replaying:
            raise ValueError(f"{path}: the script sets the parameters while it replays; edit them when it is over")
        updated = self.params.with_value(path, value)
        problem = self.params.swap_problem(updated)
        if problem:
            raise ValueError(f"{path}: {problem}")
        self.params = updated
        self._pending[path] = updated.get(path)
        return updated

    def set_params(self, changes: dict[str, Any]) -> CarParams:
        """Change several parameters at once from the next step on (validated together, as one edit)."""
        if self.replaying:
            raise ValueError("the script sets the parameters while it replays; edit them when it is over")
        updated = self.params.with_values(changes)
        problem = self.params.swap_problem(updated)
        if problem:
            raise ValueError(problem)
        self.params = updated
        self._pending.update({path: updated.get(path) for path in changes})
        return updated

    def use_preset(self, preset: Preset, params: CarParams | None = None) -> None:
        """Switch to a preset already loaded, optionally with edited ``params`` (undoing a preset load)."""
        self._use_preset(preset)
        if params is not None and params != preset.params:
            self.params = params
            self.sim = Simulation(self.params, n=1, dt=self.dt)

    def reset_params(self, paths: Iterable[str] | None = None) -> None:
        """Put parameters (all when ``paths`` is None) back to the preset's values, from the next step on."""
        base = self.preset.params
        targets = [i.path for i in self.params.infos()] if paths is None else list(paths)
        changes = {p: base.get(p) for p in targets if self.params.get(p) != base.get(p)}
        if changes:
            self.params = self.params.with_values(changes)
            self._pending.update(changes)

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
        self.sim = Simulation(self.params, n=1, dt=self.dt)
        self.log = TelemetryLog(self.params.model.unit, 1, capacity=8192)
        self._pending = {}
        if self.recorder is not None:
            self.recorder = Recorder(preset_reference(self.preset), self.dt, self.preset.params, self.params)

    def step(self, keys: Iterable[str] = ()) -> Telemetry:
        """Advance one frame: with ``keys`` held, or with the loaded script's inputs while it replays."""
        k = self.sim.frame
        if self.replaying and self.program is not None:
            if k >= self.program.frames:
                self.replaying = False
            else:
                for frame, params in self.program.param_changes:
                    if frame == k:
                        self.params = params
                        self.sim.set_cars(params)
                telemetry = self.sim.step(self._track.inputs(k))
                self.log.record(telemetry)
                if k + 1 >= self.program.frames:
                    self.replaying = False
                return telemetry
        held = frozenset(keys)
        if self._pending:
            self.sim.set_cars(self.params)
        if self.recorder is not None:
            self.recorder.record(held, params=self._pending or None)
        self._pending = {}
        telemetry = self.sim.step(Inputs.from_keys(1, held))
        self.log.record(telemetry)
        return telemetry

    # -- recording ------------------------------------------------------------------------------

    @property
    def recording(self) -> bool:
        return self.recorder is not None

    def start_recording(self) -> None:
        """Start a recording from rest at the origin (a script's start); the current parameters are kept."""
        self.replaying = False
        self.replayed = False
        self.recorder = Recorder(preset_reference(self.preset), self.dt, self.preset.params, self.params)
        self.reset()

    def stop_recording(self, name: str = "recording") -> Script | None:
        """End the recording and return it as a script (None when nothing was recording)."""
        if self.recorder is None:
            return None
        script = self.recorder.script(name)
        self.recorder = None
        self.last_recording = script
        return script

    # -- scripts --------------------------------------------------------------------------------

    def load_script(self, path: str | Path) -> Program:
        """Load a script to replay: its preset is loaded too. On error (ScriptError) nothing changes."""
        program = compile_script(load_script(path))
        preset = load_preset(program.preset_path) if program.preset_path is not None else self.preset
        self.dt = program.dt
        self._use_preset(preset)
        self.program = program
        self._track = _InputTrack([program], program.frames)
        return program

    def use_script(self, script: Script) -> Program:
        """Take a script already in memory (e.g. the last recording) as the one to replay (on its preset)."""
        program = compile_script(script, dt=script.dt)
        self.program = program
        self._track = _InputTrack([program], program.frames)
        self.replayed = False
        return program

    def start_replay(self) -> None:
        """Replay the loaded script from its start (frame 0, at rest, its parameters)."""
        if self.program is None:
            raise RuntimeError("no script loaded")
        if self.program.preset_path is not None and self.program.preset_path != self.preset.path:
            program, track = self.program, self._track
            self._use_preset(load_preset(program.preset_path))
            self.program, self._track = program, track
        if self.recorder is not None:
            self.stop_recording()  # kept as the last recording, not lost
        self.dt = self.program.dt
        self.params = self.program.params
        self.sim = Simulation(self.params, n=1, dt=self.dt)
        self.log = TelemetryLog(self.params.model.unit, 1, capacity=self.program.frames)
        self._pending = {}
        self.replaying = True
        self.replayed = True

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
