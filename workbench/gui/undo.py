"""Undo and redo of parameter edits, resets and preset loads (one QUndoStack, shown in the Edit menu).

Each command holds what the car was and what it became, and applies either side through the
session, so an undone edit is recorded (and replayed) like any other edit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QUndoCommand, QUndoStack

from physics import CarParams, ParamError, Preset
from physics.units import shown
from workbench.gui.plot_style import pretty_unit

if TYPE_CHECKING:
    from workbench.gui.session_model import SessionModel

PARAM_EDIT_ID = 1001


class UndoStack(QUndoStack):
    """The edit history. A step back or forward first asks :attr:`guard` (the command it would undo or redo, and True
    for an undo), and does nothing, the index where it was, where the guard says no: a preset load undone or redone
    while a recording runs ends the recording, and the window asks about it first, as opening a preset does (the
    car changed and the recording ended without a word). Every step through the history goes through here: Ctrl+Z
    and Ctrl+Shift+Z, the Edit history list (MainWindow.go_to_history), a direct ``undo()``/``redo()`` and a direct
    ``setIndex()``, which goes a step at a time through the guarded ``undo()``/``redo()`` and stops where one is not
    taken (QUndoStack's own setIndex undid and redid past the guard: a preset load undone that way ended the recording
    without a word)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.guard: Callable[[QUndoCommand, bool], bool] | None = None

    def undo(self) -> None:
        if self.canUndo() and not self._allowed(self.command(self.index() - 1), True):
            return
        super().undo()

    def redo(self) -> None:
        if self.canRedo() and not self._allowed(self.command(self.index()), False):
            return
        super().redo()

    def setIndex(self, idx: int) -> None:
        idx = min(max(idx, 0), self.count())
        while self.index() != idx:
            before = self.index()
            self.undo() if before > idx else self.redo()
            if self.index() == before:  # the guard said no
                return

    def _allowed(self, command: QUndoCommand | None, undo: bool) -> bool:
        return self.guard is None or command is None or self.guard(command, undo)


class ParamsCommand(QUndoCommand):
    """Parameters changed from ``before`` to ``after`` (path -> value); already applied when pushed."""

    def __init__(self, model: SessionModel, text: str, before: dict[str, Any], after: dict[str, Any],
                 merge_key: str | None = None):
        super().__init__(text)
        self._model = model
        self.before, self.after = before, after
        self._merge_key = merge_key
        self._applied = True  # the edit was made (and validated) before the command was pushed

    def id(self) -> int:
        return PARAM_EDIT_ID if self._merge_key else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        """A drag (or a run of spins of one value) is one step of the history; a drag that ends where it
        began (Escape) leaves none."""
        if not isinstance(other, ParamsCommand) or other._merge_key != self._merge_key:
            return False
        self.after = other.after
        self.setText(other.text())
        if self.after == self.before:
            self.setObsolete(True)  # the stack drops it
        return True

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        _applying(self, "redo", self._model.apply_params, self.after)

    def undo(self) -> None:
        _applying(self, "undo", self._model.apply_params, self.before)


class PresetCommand(QUndoCommand):
    """The car switched from one preset (with its edits) to another; undo brings the first back."""

    def __init__(self, model: SessionModel, before: tuple[Preset, CarParams], after: tuple[Preset, CarParams]):
        super().__init__(f"load preset {after[0].name}")
        self._model = model
        self.before, self.after = before, after
        self._applied = True

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        _applying(self, "redo", self._model.apply_preset, *self.after)

    def undo(self) -> None:
        _applying(self, "undo", self._model.apply_preset, *self.before)


def _applying(command: QUndoCommand, what: str, apply, *args) -> None:
    """``apply(*args)`` for an undo or a redo; a refusal (a replay owns the parameters, a loaded road no car of those
    values feels) is said through the model's ``edit_refused``, never raised: Qt calls these, and an exception there
    was a traceback on stderr (the Edit history list steps through the stack itself, past the window's guard)."""
    try:
        apply(*args)
    except (ParamError, ValueError) as exc:
        command._model.edit_refused.emit(f"cannot {what} {command.text()}: {exc}")


def describe(path: str, value: Any, info: Any) -> str:
    """The text of an edit in the history: ``body.mass = 1300 kg``, in the unit the parameter panel shows (``info``,
    the parameter's description: steering.lock in deg, not rad)."""
    return f"{path} = {pretty_unit(shown(value, info))}"
