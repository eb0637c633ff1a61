"""The Qt face of a LiveSession: it steps the session on the window's timer and tells the views.

Views take this model in ``__init__`` and connect ``_on_..._changed`` handlers to its signals;
they never step or integrate anything themselves.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from physics import CarParams, Preset, PresetError
from workbench.gui.undo import ParamsCommand, PresetCommand, UndoStack, describe
from workbench.output.preset_io import save_preset
from workbench.runs.compare import edited_program
from workbench.runs.live import Compiling, LiveSession, preset_reference
from workbench.scripts.format import Script, ScriptError
from workbench.scripts.program import Program, compile_script, set_by

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
TEXT_EVERY = 4  # text panels (telemetry table, recorder, status) refresh on every 4th tick: 15 Hz
MAX_CATCH_UP = 0.25  # [s of real time] a stalled window does not try to catch up more than this


def recording_car(script: Script) -> str:
    """The car a recording names, as the window names a preset: the shipped name, or its file's name without the
    folder (a script names a preset of the user's own by its whole path)."""
    return Path(script.preset).name.removesuffix(".toml")


class SessionModel(QObject):
    """Observable wrapper of the interactive session."""

    stepped = Signal()  # one or more frames were stepped (or the history was cleared)
    params_changed = Signal(str)  # a parameter path, or "" when many changed
    # The user changed several parameters in one step (Reset all, or the undo or redo of a step of several): {path:
    # value}, after params_changed(""), which also says the script's own changes and is not an edit.
    params_edited = Signal(object)
    preset_loaded = Signal(str)  # the preset's name
    recording_changed = Signal(bool)
    recording_saved = Signal(str)  # the last recording was saved (under this name)
    script_loaded = Signal(str)  # the script's name ("" when none)
    replay_changed = Signal(bool)  # a replay started (True) or ended (False)
    view_frame_changed = Signal(int)  # the frame on show; -1 follows the live frame
    running_changed = Signal(bool)
    speed_changed = Signal(float)
    edit_refused = Signal(str)  # an undo or redo the session refused, and why
    _compiled = Signal(object)  # a recording's compile ended (stop_recording_soon): sent from its thread

    def __init__(self, session: LiveSession, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.keys: set[str] = set()
        self._tapped: set[str] = set()  # keys pressed since the last frame: a tap shorter than a frame still counts
        self.running = True
        self.speed = 1.0
        self.view_frame: int | None = None
        self.text_due = True  # whether this ``stepped`` should refresh the text panels too
        self._advances = 0
        self._debt = 0.0  # simulated time owed to the wall clock [s]
        self._rate = deque(maxlen=120)  # (wall time, sim time) samples for the real-time factor
        self.undo_stack = UndoStack(self)  # (the window guards its steps: MainWindow._before_history_step)
        self.edit_marks: list[tuple[int, str]] = []  # (frame, text) of the edits made while driving
        self._mark_key: str | None = None  # the merge key of the last mark's edits (a drag in progress)
        self._script_params: CarParams | None = None  # parameters a replay set (not the user's edits)
        self._chosen = False  # the script replays with values the user chose (a sweep's car): they are edits too
        # Goes on live from the earlier frame on show (the Comparer's, workbench.gui.references, pinning the run as it
        # was); False where the drive did not go on (the user kept the last recording: the question's Cancel)
        self.drive_on: Callable[[], bool] | None = None
        # What the last load_script did with the edits of the car on show (kept_edits_note says it)
        self.kept_edits: dict[str, Any] = {}
        self.script_owns: list[str] = []
        self.edits_refused = ""
        self._let_go: Script | None = None  # the last recording, where the user discarded it as it ended
        self.recording_changed.connect(self._drop_replaced_let_go)
        # What drives a frame beside the keyboard: called once per frame with the keys held, it gives the
        # keys and the analog overrides to step with (workbench.gui.analog_driving sets it).
        self.frame_inputs: Callable[[set[str]], tuple[Iterable[str], dict[str, float] | None]] | None = None
        session.on_compiled = self._on_compiled
        self._compiled.connect(self._take_compiled)  # queued: sent from the compile's thread, taken on this one

    # -- time ------------------------------------------------------------------------------------

    def tick(self, elapsed: float) -> int:
        """The window's timer fired ``elapsed`` real seconds after the last time: step what is due."""
        if not self.running:
            return 0
        self._debt = min(self._debt + min(elapsed, MAX_CATCH_UP) * self.speed, MAX_CATCH_UP * self.speed)
        frames = int(self._debt / self.session.dt + 1e-9)
        self._debt -= frames * self.session.dt
        return self.advance(frames)

    def advance(self, frames: int = 1) -> int:
        """Step ``frames`` frames with the keys held now (fewer when a replay ends among them); one ``stepped``
        signal for all of them. Returns how many were stepped."""
        if frames <= 0:
            return 0
        was_replaying = self.session.replaying
        params = self.session.params
        stepped = 0
        while stepped < frames:
            keys = self.keys | self._tapped if self._tapped else self.keys
            self._tapped = set()
            if self.frame_inputs is None:
                self.session.step(keys)
            else:
                self.session.step(*self.frame_inputs(keys))
            stepped += 1
            if was_replaying and not self.session.replaying:
                break  # the replay's last frame: the session stops there
        self._rate.append((time.perf_counter(), self.session.time))
        if self.view_frame is not None:
            self.set_view_frame(None)
        if self.session.params is not params:
            if was_replaying:
                self._script_params = self.session.params
            self.params_changed.emit("")  # the replayed script changed a parameter
        self._advances += 1
        # Text is read, not watched: at a run's full rate it would cost frames and show a blur.
        # A burst of frames (catching up, a scripted advance) or a paused step always refreshes it.
        self.text_due = not self.running or stepped > 4 or self._advances % TEXT_EVERY == 0
        self.stepped.emit()
        self.text_due = True
        if was_replaying and not self.session.replaying:
            self.set_running(False)
            self.replay_changed.emit(False)
        return stepped

    def refresh(self) -> None:
        """Have every view, text panels included, show the current frame (no step)."""
        self.text_due = True
        self.stepped.emit()

    def real_time_factor(self) -> float:
        """Simulated seconds per wall second over the last couple of seconds (0 when paused)."""
        if not self.running or len(self._rate) < 2:
            return 0.0
        (w0, s0), (w1, s1) = self._rate[0], self._rate[-1]
        if time.perf_counter() - w1 > 0.5 or w1 <= w0 or s1 < s0:
            return 0.0  # stale, or the history restarted (a reset or a new car) inside the samples
        return (s1 - s0) / (w1 - w0)

    def set_running(self, running: bool) -> None:
        if running != self.running:
            self.running = running
            self._debt = 0.0
            if running:
                # A key pressed and let go while paused is over when the car goes on: it gave the first frame after
                # the pause its input (the tap is for a press shorter than a frame between two frames). A key still
                # held is in ``keys`` and drives on. (A single step while paused still takes a tap before it.)
                self._tapped.clear()
            self._rate.clear()
            self.running_changed.emit(running)
            if not running:
                self.refresh()  # paused: every panel shows the frame the car view shows

    def toggle_running(self) -> None:
        self.set_running(not self.running)

    def single_step(self) -> None:
        """Pause and go one frame forward: through the history when a past frame is on show, else a new step."""
        self.step_frames(1)

    def step_frames(self, delta: int) -> None:
        """Pause and move the time cursor ``delta`` frames; past the newest frame, step the car.

        With nothing stepped yet (a script just loaded, a reset) the car stands at rest at frame 0, and every view
        says frame 0: one step forward shows frame 1, so both frame 0 and frame 1 are stepped (stepping frame 0
        alone showed frame 0 again, and the first press seemed to do nothing).
        """
        self.set_running(False)
        newest = self.session.log.frames - 1
        target = max(self.shown_frame(), 0) + delta
        if target > newest:
            self.advance(target - newest)
            self.set_view_frame(self.session.log.frames - 1)
        elif newest >= 0:
            self.set_view_frame(max(target, 0))

    def set_speed(self, speed: float) -> None:
        self.speed = float(speed)
        self.speed_changed.emit(self.speed)

    def set_view_frame(self, frame: int | None) -> None:
        """Show a past frame (the car and plots as they were), or None to follow the live frame."""
        if frame is not None:
            frame = max(0, min(int(frame), self.session.log.frames - 1))
            if frame == self.session.log.frames - 1 and self.running:
                frame = None
        if frame != self.view_frame:
            self.view_frame = frame
            self.view_frame_changed.emit(-1 if frame is None else frame)

    def shown_frame(self) -> int:
        """The frame the views draw: the scrubbed one, or the newest."""
        if self.view_frame is not None:
            return self.view_frame
        return self.session.log.frames - 1

    def reset(self) -> None:
        """Back to rest at the origin (R); a replay starts over."""
        self.session.reset()
        self.view_frame = None
        self.edit_marks.clear()
        self._rate.clear()
        self.params_changed.emit("")
        self.stepped.emit()

    # -- keys ------------------------------------------------------------------------------------

    def press(self, key: str) -> None:
        self.keys.add(key)
        self._tapped.add(key)  # held for the next frame at least, however soon it is released

    def release(self, key: str) -> None:
        self.keys.discard(key)

    def release_all(self) -> None:
        self.keys.clear()
        self._tapped.clear()

    # -- parameters and presets --------------------------------------------------------------------

    @property
    def modified(self) -> bool:
        """True when the user edited the parameters (a replay's own ``[[set]]`` changes do not count)."""
        return self.session.modified and (self._chosen or self.session.params is not self._script_params)

    def keep_as_edits(self) -> None:
        """The parameters the script replays with now are the user's choice (a car picked on the Sweep dock's chart,
        its values put into the script's start): unsaved edits, asked about before they are lost, until another
        car or script comes in."""
        self._chosen = True

    def set_param(self, path: str, value: Any, merge_key: str | None = None) -> None:
        """Edit a parameter (applies on the next step), undoably; ParamError/ValueError leave it unchanged.

        Edits with the same ``merge_key`` in a row (one slider drag) are one step of the history.
        """
        self.go_on_for({path: value})
        before = self.session.params.get(path)
        self.session.set_param(path, value)
        after = self.session.params.get(path)
        text = describe(path, after, self.session.params.info(path))
        self._mark_edit(text, merge_key)
        self.undo_stack.push(ParamsCommand(self, text, {path: before}, {path: after}, merge_key))
        self.params_changed.emit(path)

    def go_on_for(self, changes: dict[str, Any]) -> None:
        """Before a change of one parameter (an edit, its reset, its undo or redo) with an earlier frame on show: the
        drive goes on from that frame (:attr:`drive_on`), and the change is then made to that frame's car, not to the
        newest first (which refused what the frame's car takes, or took what it refuses: a traceback in a slot and the
        change lost). It is checked on that car before anything moves; ValueError, and nothing changed, where that
        car refuses it or the drive does not go on."""
        frame = self.view_frame
        if (frame is None or len(changes) != 1 or self.drive_on is None or self.session.replaying
                or frame >= self.session.log.frames):
            return
        path = next(iter(changes))
        problem = self.session.edit_problem_at(frame, changes)
        if problem:
            text = problem if problem.startswith(f"{path} ") else f"{path}: {problem}"
            raise ValueError(f"{text} (on the car of frame {frame}, which the edit drives on from)")
        if not self.drive_on():
            raise ValueError(f"{path}: not changed (the drive did not go on from frame {frame})")

    def reset_params(self, paths: list[str] | None = None) -> None:
        """Put parameters (all when None) back to the preset's values, undoably."""
        base = self.session.preset.params
        one = paths is not None and len(paths) == 1
        if one:
            self.go_on_for({paths[0]: base.get(paths[0])})
        params = self.session.params  # (the frame's car, where the drive went on from one)
        targets = [i.path for i in params.infos()] if paths is None else list(paths)
        before = {p: params.get(p) for p in targets if params.get(p) != base.get(p)}
        after = {p: base.get(p) for p in before}
        self.session.reset_params(paths)
        if before:
            text = f"reset {targets[0]}" if len(targets) == 1 else "reset all parameters"
            self._mark_edit(text)
            self.undo_stack.push(ParamsCommand(self, text, before, after))
        self.params_changed.emit(paths[0] if one else "")
        if after and not one:
            self.params_edited.emit(after)

    def set_params(self, changes: dict[str, Any], text: str) -> None:
        """Edit several parameters at once, one step of the history named ``text``: checked together, so that
        ParamError/ValueError leave every one unchanged (one at a time, a rule across two of them refused the mix of
        old and new values half-way)."""
        params = self.session.params
        before = {path: params.get(path) for path in changes}
        self.session.set_params(changes)
        after = {path: self.session.params.get(path) for path in changes}
        self._mark_edit(text)
        self.undo_stack.push(ParamsCommand(self, text, before, after))
        self._say_changed(after)

    def apply_params(self, changes: dict[str, Any]) -> None:
        """Set parameters as an undo or redo does (no new history entry)."""
        self.go_on_for(changes)
        self.session.set_params(changes)
        self._mark_edit(", ".join(describe(p, v, self.session.params.info(p)) for p, v in changes.items()))
        self._say_changed(dict(changes))

    def _say_changed(self, changes: dict[str, Any]) -> None:
        """A user's change of these parameters: params_changed (the path, or "" for several), and params_edited with
        the values where there are several."""
        self.params_changed.emit(next(iter(changes)) if len(changes) == 1 else "")
        if len(changes) > 1:
            self.params_edited.emit(changes)

    def _mark_edit(self, text: str, merge_key: str | None = None) -> None:
        """A mark on the plots at this frame; the edits of one drag (one merge key) are one mark, at its start."""
        if merge_key is not None and merge_key == self._mark_key and self.edit_marks:
            self.edit_marks[-1] = (self.edit_marks[-1][0], text)
        else:
            self.edit_marks.append((self.session.frame, text))
        self._mark_key = merge_key

    def load_preset(self, name_or_path: str | Path, let_go: bool = False) -> Preset:
        """Switch car, undoably; PresetError (with file, key and reason) leaves the current car untouched.

        The new car ends a recording running: kept as the last recording, not saved, or with ``let_go`` (asked about
        and discarded) let go, before anyone hears of the car (the recovery keeper saves as a recording ends: it kept
        the recording discarded, for a crash, until its next save)."""
        before = (self.session.preset, self.session.params)
        was_recording = self.session.recording
        preset = self.session.load_preset(name_or_path)
        if let_go and was_recording:
            self.session.recording_unsaved = False  # nothing asks about it again, nor keeps it for a crash
            if not self.session.stopped_empty:  # (one of no frame is none: the last recording is the one before it)
                self._let_go = self.session.last_recording
        self._after_new_car(was_recording)
        self.undo_stack.push(PresetCommand(self, before, (preset, preset.params)))
        return preset

    def apply_preset(self, preset: Preset, params: CarParams) -> None:
        """Put a car back as an undo or redo of a preset load does."""
        was_recording = self.session.recording
        self.session.use_preset(preset, params)
        self._after_new_car(was_recording)

    def save_preset(self, path: str | Path) -> Path:
        """Save the current parameters as a preset file; they become the reference (not modified)."""
        from physics import load_preset

        written = save_preset(self.session.params, path, header=f"carbench preset, saved from {self.session.preset.name}")
        self.session.mark_saved(load_preset(written))
        self.params_changed.emit("")
        return written

    def _after_new_car(self, was_recording: bool) -> None:
        """Tell the views about a new car: its parameters and channels first, then its (empty) history."""
        self.view_frame = None
        self.edit_marks.clear()
        self._rate.clear()
        self._script_params = None
        self._chosen = False
        self.preset_loaded.emit(self.session.preset.name)
        if was_recording:
            self.recording_changed.emit(False)
        program = self.session.program
        self.script_loaded.emit(program.name if program is not None else "")
        self.stepped.emit()

    # -- recording and replay --------------------------------------------------------------------

    def start_recording(self) -> None:
        self.session.start_recording()  # (the recording let go stays so until another is the last one: one of no
        # frame is none, and leaves it the last recording, discarded)
        self.view_frame = None
        self.edit_marks.clear()
        self.set_running(True)
        self.recording_changed.emit(True)
        self.stepped.emit()

    def discard_last_recording(self) -> None:
        """The last recording, not saved, answered Discard before a new one: it stays the last recording, discarded
        (nothing asks about it again, nor keeps it for a crash), until a recording with a frame takes its place."""
        if self.session.recording_unsaved and self.session.last_recording is not None:
            self.session.recording_unsaved = False
            self._let_go = self.session.last_recording

    def _drop_replaced_let_go(self, recording: bool) -> None:
        """A recording let go that another has replaced as the last one is held no longer."""
        if not recording and self._let_go is not self.session.last_recording:
            self._let_go = None

    def let_go_recording(self) -> None:
        """End the recording running and let it go (asked about and discarded): kept as the last recording, but not as
        unsaved, so nothing asks about it again nor keeps it for a crash (recording_changed comes after)."""
        if self.session.stop_recording() is not None:
            self.session.recording_unsaved = False
            if not self.session.stopped_empty:  # (one of no frame is none: the last recording is the one before it)
                self._let_go = self.session.last_recording
            self.recording_changed.emit(False)

    def stop_recording(self) -> Script | None:
        """End the recording; it becomes the script to replay, unless it drove on from the loaded
        script's replay (that script stays loaded, and the recording is kept to save)."""
        drove_on = self.session.drove_on_script
        script = self.session.stop_recording()
        self.recording_changed.emit(False)
        if script is not None and not drove_on and not self.session.stopped_empty:
            self.session.use_script(script)
            self.script_loaded.emit(script.name)
        return script

    def stop_recording_soon(self) -> Script | None:
        """End the recording (the recorder's Stop): it is the last recording at once, and becomes the script to
        replay once it is compiled on a thread of its own (script_loaded then), as :meth:`stop_recording` makes it
        without waiting for the compile (0.1 to 0.7 s of the window's thread for a 30-minute recording). What needs
        the script to replay before then waits for it (the session takes it first)."""
        drove_on = self.session.drove_on_script
        script = self.session.stop_recording()
        self.recording_changed.emit(False)
        if script is not None and not drove_on and not self.session.stopped_empty:  # (one of no frame is none)
            self.session.use_script_soon(script, self._tell_compiled)
        return script

    def _tell_compiled(self, compiling: Compiling) -> None:
        """(On the compile's thread.)"""
        try:
            self._compiled.emit(compiling)
        except RuntimeError:  # the model is gone (its window closed meanwhile): nothing is left to take it
            pass

    def _take_compiled(self, compiling: Compiling) -> None:
        self.session.take_compiled(wait=False)  # (nothing when something took it already)

    def _on_compiled(self, compiling: Compiling) -> None:
        """The session took a compiled recording (here, or first thing in a load, a replay, a drive on)."""
        error = compiling.error
        if error is not None:
            if not isinstance(error, (ScriptError, PresetError)):
                raise error
            self.edit_refused.emit(f"the recording cannot be replayed here: {error}")
        if compiling.taken:
            self.script_loaded.emit(compiling.script.name)

    def recording_saved_as(self, name: str) -> None:
        """The last recording was written to a file named ``name``: saved (nothing asks about it, nor keeps it for a
        crash), and called ``name``."""
        self.session.recording_unsaved = False
        self._let_go = None  # discarded once, kept after all
        self.name_recording(name)
        self.recording_saved.emit(name)

    def recording_to_save(self) -> str:
        """The recording that Save (the Recorder's, File > Save recording) writes, in words: its name, its length,
        the car it was driven with and whether it was saved ("recording, 12.3 s on sedan, not saved"); "" while one
        runs (Save stops it and writes it) or where there is none. Another car opened since does not change it: it
        is what was recorded, saved with the car it was driven on."""
        session = self.session
        script = session.last_recording
        if session.recording or script is None:
            return ""
        state = ("discarded" if script is self._let_go else "not saved" if session.recording_unsaved else "saved")
        return f"{script.name}, {script.duration:.1f} s on {recording_car(script)}, {state}"

    def recording_of_another_car(self) -> bool:
        """Whether the recording Save writes (:meth:`recording_to_save`) was driven on another car than the one on
        show (opened since it stopped)."""
        script = self.session.last_recording
        return (not self.session.recording and script is not None
                and script.preset != preset_reference(self.session.preset))

    def name_recording(self, name: str) -> None:
        """The last recording, saved as ``name``, is called so (and so is the script, when it is that one)."""
        session = self.session
        session.take_compiled()  # (it is the script once compiled: named so too)
        script = session.last_recording
        if script is None or script.name == name:
            return
        session.last_recording = renamed = replace(script, name=name)
        if session.program is not None and session.program.script is script:
            program = session.program
            session.program = replace(program, script=renamed)
            self.script_loaded.emit(name)

    def edits(self) -> dict[str, Any]:
        """The user's edits: the parameters of the car on show that differ from its preset's, and their values; none
        where the car is as a script set it (a replay's own [[set]] values were kept for the next script as edits)."""
        if not self.modified:
            return {}
        params, base = self.session.params, self.session.preset.params
        return {i.path: params.get(i.path) for i in params.infos() if params.get(i.path) != base.get(i.path)}

    @staticmethod
    def _keeping(program: Program, edits: dict[str, Any]) -> tuple[Program, dict[str, Any], list[str], str]:
        """``program`` with the edits of the car on show it keeps: (that program, the edits kept, those the script
        sets itself, why none could be kept or ""). A parameter the script sets itself (at its start or part-way: a
        recording's own edits, which the car on show still has at its end) is the script's: kept, it changed a
        recording's replay from frame 0."""
        owns = set_by(program)
        kept = {p: v for p, v in edits.items() if p not in owns}
        owned = sorted(p for p in edits if p in owns)
        if not kept:
            return program, {}, owned, ""
        try:
            # the replay drives the car as edited, as a re-run after an edit does: from frame 0 and past the script's
            # own settings of other parameters (a copy of the start's values was undone by them)
            return edited_program(program, kept), kept, owned, ""
        except (ScriptError, ValueError) as exc:
            return program, {}, owned, str(exc)

    def edits_lost_to(self, script: Script) -> str:
        """In words, the edits of the car on show that loading ``script`` (of the same car) would not keep, "" for
        none: those it sets itself, or all of them where it cannot take them. Asked before the load (the window asks
        whether to save them first); ScriptError where the script cannot be compiled (the load then says why)."""
        edits = self.edits()
        if not edits:
            return ""
        program = compile_script(script)
        _, _, owned, refused = self._keeping(program, edits)
        if refused:
            return f"cannot take them ({refused})"
        # one it sets to the value the car has at its end is in it already (a recording's own edit, loaded again)
        end = program.param_changes[-1][1] if program.param_changes else program.params
        lost = [p for p in owned if end.get(p) != edits[p]]
        return f"sets {', '.join(lost)} itself" if lost else ""

    def load_script(self, path: str | Path, keep_edits: bool | dict[str, Any] = False) -> Program:
        """Load a script (and its preset) to replay; ScriptError leaves everything as it was.

        However it is loaded (the menu, again, ``carbench --script``), the car then stands at rest at
        frame 0, paused, for Replay. With ``keep_edits``, when the script drives the car on show
        (the same preset file), the parameter edits it does not set itself stay (:meth:`_keeping`), and so does
        their history where every one stays. ``keep_edits`` may be the edits themselves, taken before the car on show
        became another preset file (saved as one when the window asked): kept on the script's car all the same.
        """
        session = self.session
        was_recording = session.recording
        path_before = session.preset.path
        given = isinstance(keep_edits, dict)
        edits = dict(keep_edits) if given else self.edits()
        program = session.load_script(path)
        self._chosen = False
        same_car = given or (path_before is not None and session.preset.path == path_before)
        self.kept_edits, self.script_owns, self.edits_refused = {}, [], ""
        if keep_edits and same_car and edits:
            edited, kept, self.script_owns, self.edits_refused = self._keeping(program, edits)
            if kept:
                try:
                    session.set_params(kept)  # refused where the script's road would be lost to the car
                except ValueError as exc:
                    kept, self.edits_refused = {}, str(exc)
                else:
                    session.program = program = edited
            self.kept_edits = kept
        if not (keep_edits and same_car) or len(self.kept_edits) < len(edits):
            self.undo_stack.clear()  # edits were made to a car the script replaces (in part: undone, they came back)
        self._after_new_car(was_recording)
        self.set_running(False)
        self.refresh()
        return program

    def kept_edits_note(self) -> str:
        """What the last :meth:`load_script` did with the edits of the car on show, in a line ("" when it had none)."""
        info = self.session.params.info
        said = []
        if self.kept_edits:
            said.append("replays with your edits: " + ", ".join(describe(p, v, info(p)) for p, v in self.kept_edits.items()))
        if self.script_owns:
            said.append("the script sets " + ", ".join(self.script_owns) + " itself")
        if self.edits_refused:
            said.append(f"your edits were not kept: {self.edits_refused}")
        return "; ".join(said)

    def replay(self) -> None:
        """Replay the loaded script (or the last recording) from its start, at the chosen speed."""
        preset = self.session.preset
        self.session.start_replay()
        # The new run's frame 0 on show before anyone hears of it: a frame scrubbed to in the history before, past the
        # script's length (driven on, then stepped back), was drawn from the new log by every view told of the script's
        # parameters below, and lay outside it (an IndexError in the car view's slot).
        self.view_frame = None
        self.edit_marks.clear()
        self._script_params = self.session.params
        if self.session.preset is not preset:  # the script drives another car than the one on show
            self.preset_loaded.emit(self.session.preset.name)
        self.params_changed.emit("")  # the script's own parameters
        self.recording_changed.emit(False)
        self.replay_changed.emit(True)
        self.set_running(True)
        self.stepped.emit()
