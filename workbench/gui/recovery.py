"""Crash recovery in the window: a timer that keeps the recovery file, and the offer to restore one.

What is saved, and how it is validated and restored, lives in ``workbench.runs.recovery`` (headless);
this module only schedules the saves and asks the question.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QMessageBox

from physics import PresetError
from workbench.runs.recovery import SAVE_EVERY, Recovery, RecoveryError, RecoveryStore, RecoveryTooLarge, restore


class RecoveryKeeper(QObject):
    """Saves what a crash would lose from ``window`` every ``interval`` seconds; :meth:`discard` on a clean exit."""

    def __init__(self, window, store: RecoveryStore | None = None, interval: float = SAVE_EVERY):
        super().__init__(window)
        self.window = window
        self.store = store if store is not None else RecoveryStore()
        self.errors: list[str] = []
        self._discarded = False  # a clean exit's discard: nothing is kept after it
        # While saves fail (a full disk, a read-only folder): a mark in the status bar that stays, the reason its
        # tooltip. The failure was said once, for 8 s, and then nothing showed that nothing was kept.
        self.failing = QLabel("\u26a0 not kept for a crash")
        self.failing.setStyleSheet("color: #c62828;")
        self.failing.hide()
        if hasattr(window, "statusBar"):
            window.statusBar().addPermanentWidget(self.failing)
        self.timer = QTimer(self)
        self.timer.setInterval(int(interval * 1000))
        self.timer.timeout.connect(self.save_now)
        self.timer.start()
        # A recording that stops is kept whole at once (its last frames appended: about a millisecond), not up to
        # `interval` later: its script to replay is compiled meanwhile, and a crash then lost those seconds.
        window.model.recording_changed.connect(self._on_recording_changed)

    def _on_recording_changed(self, recording: bool) -> None:
        if not recording and not self._discarded:
            self.save_now()

    def save_now(self) -> bool:
        """Write the recovery file now (or remove it when nothing would be lost); True when it changed."""
        try:
            changed = self.store.keep(self.window.model.session)
        except OSError as exc:  # a full disk must not stop the driving; say it once, and mark it while it lasts
            message = f"recovery file {self.store.path}: {exc.strerror or exc}"
            if message not in self.errors:
                self.errors.append(message)
                self.window.show_message(f"cannot keep the {message}", 8000)
            self.failing.setToolTip(f"What a crash would lose is not kept: the {message}")
            self.failing.show()
            return False
        self.failing.hide()
        return changed

    def discard(self) -> None:
        """A clean exit: nothing to recover."""
        self._discarded = True
        self.timer.stop()
        self.store.discard()


def offer_restore(window, store: RecoveryStore | None = None,
                  ask: Callable[[Recovery], bool] | None = None) -> Recovery | None:
    """After a crash: ask whether to restore the newest orphaned recovery file into ``window``.

    Returns what was restored (None when nothing was). The file offered is removed once declined, or once this
    window's own file holds what was restored (a crash in the next seconds lost it). The files of other windows
    that crashed with it are kept for the next start (they were removed unread). Unreadable files are removed, too
    large ones kept aside; what was skipped, and a file that could not be removed (a read-only folder ended the
    start), is said in the status bar once the question is answered (it was said under the question, unseen).
    """
    store = store if store is not None else RecoveryStore()
    orphans = store.orphans()
    if not orphans:
        return None
    said: list[str] = []

    def remove(path) -> None:
        problem = store.remove(path)
        if problem:
            said.append(f"could not remove the recovery file {path}: {problem}")

    def keep_aside(path, why: str) -> str:
        try:
            return f"{why}; kept as {store.set_aside(path)}"
        except OSError as exc:
            return f"{why}; it could not be kept aside: {exc.strerror or exc}"

    usable = [(path, item) for path, item in orphans if isinstance(item, Recovery)]
    for path, item in orphans:
        if isinstance(item, RecoveryTooLarge):  # a whole drive, perhaps: never removed
            said.append(keep_aside(path, f"recovery file skipped: {item}"))
        elif isinstance(item, RecoveryError):
            said.append(f"recovery file skipped: {item}")
            remove(path)
    if not usable:
        _say(window, said)
        return None
    path, recovery = usable[0]
    for other, _ in usable[1:]:
        if other == store.path:  # a crashed process's that had this one's pid: this window's saves would replace it
            said.append(keep_aside(other, f"the recovery file {other} is of an earlier process of this pid"))
    usable = [(p, item) for p, item in usable if p == path or p != store.path]
    later = len(usable) - 1
    ask = ask if ask is not None else (lambda r: _ask(window, r, later))
    chosen = ask(recovery)
    if later:
        said.append(f"{later} more recovery file{'s' if later != 1 else ''} of other windows kept: offered at the "
                    "next start")
    if not chosen:
        remove(path)
        _say(window, said)
        return None
    model = window.model
    try:
        problems = restore(model, recovery)
    except PresetError as exc:  # its car cannot be loaded here: set aside, not offered at every start
        window.show_error("Not restored", f"{path}: {exc}")
        _say(window, [keep_aside(path, "not restored"), *said])
        return None
    if recovery.recording is not None:
        model.script_loaded.emit(recovery.recording.name)
    try:
        store.keep(model.session)  # this window's own file first: then the one restored may go
    except OSError as exc:
        said.append(f"the recovery file {path} is kept until this window can keep its own "
                    f"({exc.strerror or exc})")
        if path != store.path:
            store.superseded.append(path)  # removed once this window keeps what is at stake (or nothing is)
    else:
        if path != store.path:  # (a file of this pid's is this window's own now)
            remove(path)
    if problems:
        window.show_error("Restored in part", "\n".join(problems))
    left = len(recovery.dropped)
    if left:
        said.insert(0, f"{left} thing{'s' if left != 1 else ''} the car refuses left out (the question listed "
                       f"{'it' if left == 1 else 'them'})")
    _say(window, [f"restored {recovery.describe()}", *said])
    return recovery


def _say(window, said: list[str]) -> None:
    if said:
        window.show_message("; ".join(said), 15000)


SHOWN_LEFT_OUT = 5  # lines of what the file's car refuses that the question shows (a drag makes one a frame)


def left_out(recovery: Recovery) -> str:
    """What of the file is not restored because its car refuses it (``Recovery.dropped``), for the question: a line
    each, the first SHOWN_LEFT_OUT of them and how many more; "" when nothing."""
    lines = recovery.dropped
    if not lines:
        return ""
    more = len(lines) - SHOWN_LEFT_OUT
    shown = "\n".join(f"\u2022 {line}" for line in lines[:SHOWN_LEFT_OUT])
    tail = f"\n\u2022 and {more} more" if more > 0 else ""
    return f"\n\nLeft out (the car refuses {'it' if len(lines) == 1 else 'them'}):\n{shown}{tail}"


def _ask(window, recovery: Recovery, later: int = 0) -> bool:
    whose = "its recovery file is" if later == 1 else "their recovery files are"
    others = (f"\n\n{later} more window{'s' if later != 1 else ''} closed uncleanly too: {whose} offered at the next "
              "start." if later else "")
    from workbench.gui.main_window import keys_safe_question

    box = keys_safe_question(window, "Restore after a crash",
                             f"carbench did not close cleanly last time. Restore {recovery.describe()}?"
                             + ("\n\nA restored recording can be replayed or saved from the recorder."
                                if recovery.recording is not None else "")
                             + left_out(recovery) + others,
                             QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                             QMessageBox.StandardButton.Yes)
    return box.exec() == QMessageBox.StandardButton.Yes
