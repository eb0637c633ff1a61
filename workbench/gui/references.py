"""Pinned reference runs and the background re-run of the loaded script after every parameter edit.

:class:`References` holds up to four whole runs (``workbench.runs.compare.Run``), each with its own
colour. :class:`Rerun` re-runs the loaded script from frame 0 with the edited parameters through
the headless ``replay()`` in a worker thread, so the window never waits for it; an edit made while
a re-run is under way supersedes it (its result is dropped and the newest edit runs next).
:class:`Comparer` ties them to the session: pin, unpin, drive on from the frame on show.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor

from physics import NonFiniteError, ParamError
from workbench.gui.session_model import SessionModel
from workbench.runs.compare import Run, edited_program
from workbench.runs.replay import ReplayResult, replay
from workbench.scripts.format import ScriptError
from workbench.scripts.limits import LimitError
from workbench.scripts.program import Program

EXPECTED = (NonFiniteError, ParamError, ScriptError, LimitError, MemoryError)
"""What a re-run after an edit may end in by the edit's own doing (a car made unstable, a run too long for the
memory): said in a message box. Anything else is a bug, and raised too (Rerun._on_done)."""

MAX_REFERENCES = 4
COLOURS = (QColor(230, 120, 0), QColor(140, 60, 190), QColor(0, 150, 140), QColor(200, 40, 110))


@dataclass
class Reference:
    run: Run
    colour: QColor
    name: str


class References(QObject):
    """Up to four pinned runs; ``changed`` after every pin or unpin."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.items: list[Reference] = []
        self._count = 0

    def __len__(self) -> int:
        return len(self.items)

    def pin(self, run: Run, name: str | None = None) -> Reference:
        """Pin ``run``; with four pinned already, the oldest makes room."""
        if len(self.items) >= MAX_REFERENCES:
            self.items.pop(0)
        used = {r.colour.rgb() for r in self.items}
        colour = next(c for c in COLOURS if c.rgb() not in used)
        self._count += 1
        ref = Reference(run, colour, name or f"ref {self._count}")
        self.items.append(ref)
        self.changed.emit()
        return ref

    def unpin(self, index: int) -> None:
        if 0 <= index < len(self.items):
            self.items.pop(index)
            self.changed.emit()

    def clear(self) -> None:
        if self.items:
            self.items.clear()
            self.changed.emit()


class Rerun(QObject):
    """Re-runs a program in a worker thread; ``finished`` carries the newest request's ReplayResult."""

    started = Signal()  # a re-run was asked for (one may already be under way)
    finished = Signal(object)  # ReplayResult
    failed = Signal(str)
    _done = Signal(object, int, str)  # (result or None, generation, error) from the worker thread

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._generation = 0
        self._queued: Program | None = None
        self._thread: threading.Thread | None = None
        self._done.connect(self._on_done)

    @property
    def busy(self) -> bool:
        return self._thread is not None

    def request(self, program: Program) -> None:
        """Run ``program``; a run still under way for an older request is superseded."""
        self._generation += 1
        self.started.emit()
        if self._thread is not None:
            self._queued = program  # starts as soon as the running one returns (its result is dropped)
            return
        self._start(program)

    def cancel(self) -> None:
        """Drop the result of any re-run under way or asked for (a new script or car came in)."""
        self._generation += 1
        self._queued = None

    def _start(self, program: Program) -> None:
        generation = self._generation
        self._thread = threading.Thread(target=self._work, args=(program, generation), daemon=True,
                                        name="carbench-rerun")
        self._thread.start()

    def _work(self, program: Program, generation: int) -> None:
        try:
            (result,) = replay([program])
            outcome = (result, generation, "")
        except EXPECTED as exc:  # what an edit may lead to: said to the user
            outcome = (None, generation, f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a bug: said to the user, and raised again in the GUI thread
            outcome = (exc, generation, f"{type(exc).__name__}: {exc}")
        try:
            self._done.emit(*outcome)
        except RuntimeError:
            pass  # the window closed while the re-run ran: nobody is waiting for it

    def _on_done(self, result: ReplayResult | None, generation: int, error: str) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
        if self._queued is not None and generation != self._generation:
            program, self._queued = self._queued, None
            self._start(program)
            return
        if generation != self._generation:
            return
        if isinstance(result, BaseException):
            self.failed.emit(error)
            # Unexpected: handed to sys.excepthook as an exception in a slot is (its traceback on stderr in the
            # app; in a test, pytest-qt fails the test), not only shown in a message box.
            sys.excepthook(type(result), result, result.__traceback__)
        elif result is None:
            self.failed.emit(error)
        else:
            self.finished.emit(result)


class Comparer(QObject):
    """The session's side of comparing: pin the current run, re-run after edits, drive on from the past."""

    rerun_adopted = Signal()
    drove_on = Signal(int)  # the frame the session went on from
    said = Signal(str)  # why a request did nothing, for the status bar

    def __init__(self, model: SessionModel, parent: QObject | None = None):
        super().__init__(parent)
        self.model = model
        self.references = References(self)
        self.rerun = Rerun(self)
        self.align = "time"  # or "distance"
        self._base: Program | None = None  # the script as loaded, before any edit
        self._serial = 0  # the session's script_serial of _base: a re-run of it is adopted only while it is loaded
        self._overrides: dict[str, Any] = {}
        # Asked before driving on from the past starts a recording that would take the place of the last one, not
        # saved yet (the window asks Save / Discard / Cancel); True to go on.
        self.confirm_recording: Callable[[str], bool] = lambda doing: True
        model.drive_on = self.drive_from_here  # an edit with an earlier frame on show goes on from it first
        model.params_changed.connect(self._on_params_changed)
        model.params_edited.connect(self._on_params_edited)
        model.script_loaded.connect(self._on_script_loaded)
        model.preset_loaded.connect(lambda name: self._on_script_loaded(""))
        self.rerun.finished.connect(self._on_rerun_finished)
        self._on_script_loaded("")

    # -- pinning ---------------------------------------------------------------------------------

    def current_run(self, label: str = "current") -> Run:
        return self.model.session.whole_run(label)

    def pin_current(self) -> bool:
        """Pin the run on show as a reference (False when there is nothing to pin yet)."""
        if self.model.session.log.frames == 0:
            return False
        n = self.references._count + 1
        self.references.pin(self.current_run(f"ref {n}"), f"ref {n}")
        return True

    # -- editing ---------------------------------------------------------------------------------

    def _on_script_loaded(self, name: str) -> None:
        self.rerun.cancel()  # a re-run of the script before is of no use now
        session = self.model.session
        self._base = session.program
        self._serial = session.script_serial
        self._overrides = {}

    def _on_params_changed(self, path: str) -> None:
        if not path:
            return  # the script's own change, or many at once (params_edited says a user's): not an edit to re-run
        self._on_params_edited({path: self.model.session.params.get(path)})

    def _on_params_edited(self, changes: dict[str, Any]) -> None:
        """Re-run the loaded script with the user's edits (``changes`` the latest, {path: value}) from frame 0."""
        session = self.model.session
        # (with an earlier frame on show the model drove on from it before the change: SessionModel.go_on_for)
        if session.replaying or session.recording:
            return
        # A recording just stopped is the script to replay once compiled: taken first (waited for), which says so
        # (script_loaded: _base is the recording then). An edit made before it was taken re-ran the script the Stop
        # replaced, and that re-run was adopted over the recording.
        session.program_to_replay()
        if self._base is None:
            return
        self._overrides.update(changes)
        # A value put back to the script's own at frame 0 (an undo, or Reset all where the script sets none) is no
        # edit: kept, Replay put the reset edits back and the run on show stayed the edited car's. (Reset all puts
        # the preset's values: where the script sets others at frame 0, those are edits, and the re-run takes them.)
        start = self._base.params
        self._overrides = {p: v for p, v in self._overrides.items() if v != start.get(p)}
        try:
            program = edited_program(self._base, self._overrides)
        except ValueError:
            return  # the script refuses the edit on this car (shown by the panel already)
        self.rerun.request(program)

    def _on_rerun_finished(self, result: ReplayResult) -> None:
        session = self.model.session
        if session.replaying or session.recording or session.program is None:
            return  # the user moved on: a replay or a recording now owns the history
        try:
            session.adopt_replay(result, self._serial)
        except ValueError:
            return  # another car (or dt), or another script, came in while it ran
        self.model.view_frame = None
        # The re-run has every edit from frame 0: their marks, at the frames they were made on (the end of a replay,
        # often), said the run on show changed there ("body.mass = 2000 kg" at 20 s of a run driven at 2000 kg).
        self.model.edit_marks.clear()
        self.model.refresh()
        self.rerun_adopted.emit()

    # -- driving on from the past ----------------------------------------------------------------

    def drive_from_here(self) -> bool:
        """Go on live from the frame on show; the discarded future is pinned as a reference."""
        model = self.model
        session = model.session
        frame = model.view_frame
        if frame is None:  # the newest frame: nothing after it to go on from instead (it said nothing at all)
            self.said.emit("Drive from here goes on from an earlier frame: this is the newest one; step back (,) "
                           "or scrub to a frame first" if session.log.frames else "Nothing driven yet to go on from")
            return False
        if not session.recording and not self.confirm_recording("drive on from here"):
            return False  # a new recording starts here: the last one, not saved, is asked about first
        n = self.references._count + 1
        past = session.drive_from(frame, f"ref {n}")
        if past is None:
            return False
        self.references.pin(past, f"ref {n} (before frame {frame})")
        model.view_frame = None
        model.recording_changed.emit(True)
        model.view_frame_changed.emit(-1)
        model.params_changed.emit("")
        model.set_running(True)  # driving on: the keys drive from here, at once
        model.refresh()
        self.drove_on.emit(frame)
        return True
