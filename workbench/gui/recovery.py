"""Crash recovery in the window: a timer that keeps the recovery file, and the offer to restore one.

What is saved, and how it is validated and restored, lives in ``workbench.runs.recovery`` (headless);
this module only schedules the saves and asks the question.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMessageBox

from physics import PresetError
from workbench.runs.recovery import SAVE_EVERY, Recovery, RecoveryError, RecoveryStore, RecoveryTooLarge, restore


class RecoveryKeeper(QObject):
    """Saves what a crash would lose from ``window`` every ``interval`` seconds; :meth:`discard` on a clean exit."""

    def __init__(self, window, store: RecoveryStore | None = None, interval: float = SAVE_EVERY):
        super().__init__(window)
        self.window = window
        self.store = store if store is not None else RecoveryStore()
        self.errors: list[str] = []
        self.timer = QTimer(self)
        self.timer.setInterval(int(interval * 1000))
        self.timer.timeout.connect(self.save_now)
        self.timer.start()

    def save_now(self) -> bool:
        """Write the recovery file now (or remove it when nothing would be lost); True when it changed."""
        try:
            return self.store.keep(self.window.model.session)
        except OSError as exc:  # a full disk must not stop the driving; say it once
            message = f"recovery file {self.store.path}: {exc.strerror or exc}"
            if message not in self.errors:
                self.errors.append(message)
                self.window.show_message(f"cannot keep the {message}", 8000)
            return False

    def discard(self) -> None:
        """A clean exit: nothing to recover."""
        self.timer.stop()
        self.store.discard()


def offer_restore(window, store: RecoveryStore | None = None,
                  ask: Callable[[Recovery], bool] | None = None) -> Recovery | None:
    """After a crash: ask whether to restore the newest orphaned recovery file into ``window``.

    Returns what was restored (None when nothing was). Declined or restored, the orphans are removed;
    unreadable ones are removed too, with their reason in the status bar.
    """
    store = store if store is not None else RecoveryStore()
    orphans = store.orphans()
    if not orphans:
        return None
    usable = [(path, item) for path, item in orphans if isinstance(item, Recovery)]
    for path, item in orphans:
        if isinstance(item, RecoveryTooLarge):  # a whole drive, perhaps: never removed
            try:
                kept = store.set_aside(path)
            except OSError as exc:
                window.show_message(f"recovery file skipped: {item}; it could not be kept aside: "
                                    f"{exc.strerror or exc}", 8000)
            else:
                window.show_message(f"recovery file skipped: {item}; kept as {kept}", 8000)
        elif isinstance(item, RecoveryError):
            window.show_message(f"recovery file skipped: {item}", 8000)
            store.remove(path)
    if not usable:
        return None
    path, recovery = usable[0]
    ask = ask if ask is not None else (lambda r: _ask(window, r))
    chosen = ask(recovery)
    for other, _ in usable:
        store.remove(other)
    if not chosen:
        return None
    model = window.model
    try:
        problems = restore(model, recovery)
    except PresetError as exc:
        window.show_error("Not restored", f"{path}: {exc}")
        return None
    if recovery.recording is not None:
        model.script_loaded.emit(recovery.recording.name)
    if problems:
        window.show_error("Restored in part", "\n".join(problems))
    window.show_message(f"restored {recovery.describe()}", 8000)
    return recovery


def _ask(window, recovery: Recovery) -> bool:
    answer = QMessageBox.question(
        window, "Restore after a crash",
        f"carbench did not close cleanly last time. Restore {recovery.describe()}?\n\n"
        "A restored recording can be replayed or saved from the recorder.",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes)
    return answer == QMessageBox.StandardButton.Yes
