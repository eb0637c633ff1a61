"""Keyboard driving, application-wide: which key events drive the car, and when held keys let go.

One event filter on the QApplication sees every key event before any widget does, so a driving
key that goes up is released wherever the focus has moved meanwhile (no stuck throttle after
clicking a spin box with Up held), and every held key is released when the focus moves or the
window loses the keyboard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeyEvent, QKeySequence, QWindow
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QLineEdit,
    QWidget,
)

from workbench.gui.keymap import DRIVING_KEYS

if TYPE_CHECKING:
    from workbench.gui.session_model import SessionModel

# Widgets that keep the arrows, letters and space for themselves while they have the focus.
EDITORS = (QAbstractSpinBox, QLineEdit, QComboBox, QAbstractSlider, QAbstractItemView)
# Shift counts: Shift+Up is not "throttle". The keypad flag is not a modifier a driver presses.
MODIFIERS = (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
             | Qt.KeyboardModifier.MetaModifier | Qt.KeyboardModifier.ShiftModifier)


def driving_key(event) -> str | None:
    """The control a key event drives, or None (a key with a modifier is never a driving key)."""
    if event.modifiers() & MODIFIERS:
        return None
    return DRIVING_KEYS.get(event.key())


# An X server repeats a held key as a release and a press with the same time stamp, and Qt does not
# always mark them as repeats: a press of a key this soon [ms] after its release is the same hold.
# No hand lets go of a key and presses it again this fast.
REPEAT_GAP_MS = 30


class DrivingKeys(QObject):
    """The application-wide filter: presses drive unless an editor has the focus; releases always release.

    Held keys are tracked by press and release pairs, never by the auto-repeat flag: a key that
    drove stays the driver's from its press to its release (and a press that follows its release
    within REPEAT_GAP_MS continues the hold), so none of its presses reaches an editor that got
    the focus meanwhile, however its repeats are marked.
    """

    def __init__(self, model: SessionModel, window):
        super().__init__(window)
        self._model = model
        self._window = window
        # Keys that drove and are still physically down (even once released for the car, when the
        # focus moved): all their presses are swallowed, so a spin box that got the focus is not stepped.
        self._down: set[int] = set()
        self._released_at: dict[int, int] = {}  # a driving key let go -> the time stamp of its release
        # A driving key released, not yet let go of the car: an X server's repeat is a release and a press with one
        # time stamp, and a frame stepped between the two released the car's key for a frame or two (a brake held
        # for 8 s reached the car, and the recording, as two holds). The car lets go once the events queued with the
        # release are handled, unless the press of a repeat came among them.
        self._letting_go: dict[int, str] = {}
        self._uninstalled = False
        app = QApplication.instance()
        app.installEventFilter(self)
        app.focusChanged.connect(self._on_focus_changed)
        app.applicationStateChanged.connect(self._on_application_state_changed)

    def uninstall(self) -> None:
        if self._uninstalled:
            return  # a window closed twice
        self._uninstalled = True
        app = QApplication.instance()
        app.removeEventFilter(self)
        app.focusChanged.disconnect(self._on_focus_changed)
        app.applicationStateChanged.disconnect(self._on_application_state_changed)
        self.release_all()

    def release_all(self) -> None:
        self._model.release_all()

    def _on_focus_changed(self, old, new) -> None:
        # A key let go before the focus moved is over: its next press belongs to the new focus.
        self._released_at.clear()
        if old is not None:
            self.release_all()  # the keyboard went elsewhere: what it held does not stay down

    def _on_application_state_changed(self, state) -> None:
        if state != Qt.ApplicationState.ApplicationActive:
            self.release_all()
            self._down.clear()
            self._released_at.clear()

    def eventFilter(self, watched, event) -> bool:
        # Every event of the application comes here: one that is no key's leaves without its type being read (each
        # read makes a Python enum, about a microsecond; a window's first show sends some 10,000 events).
        if not isinstance(event, QKeyEvent):
            if watched is self._window and event.type() == QEvent.Type.WindowDeactivate:
                self.release_all()  # no stuck throttle when the window loses the keyboard
            return False
        kind = event.type()
        if kind == QEvent.Type.KeyRelease:
            return self._on_release(event)
        if kind == QEvent.Type.KeyPress:
            return self._on_press(event, watched)
        if kind == QEvent.Type.ShortcutOverride and _is_undo_redo(event) and _in_spin_box(QApplication.focusWidget()):
            # A spin box would keep Ctrl+Z for its own text; the window's undo (of the edit just
            # made there) is what is meant: the override is refused, so the window's shortcut fires.
            event.ignore()
            return True
        return False

    def _may_drive(self, watched) -> bool:
        if _offscreen():
            # No window system decides which window the keys go to: the key's receiver says. Each window's filter
            # sees every key of the application, and the newest window's drove its car with keys sent to another's.
            if not self._is_mine(watched):
                return False
        elif not self._window.isActiveWindow():
            return False
        return not isinstance(QApplication.focusWidget(), EDITORS)

    def _is_mine(self, watched) -> bool:
        """Whether ``watched`` (a widget, or the window system's window a key reaches first) is in this window or in
        one of its docks floating on its own."""
        if isinstance(watched, QWidget):
            top = QWidget.window(watched)  # not watched.window(): the plot panel's ``window`` is its time-window box
            return top is self._window or isinstance(top, QDockWidget) and top.parentWidget() is self._window
        if isinstance(watched, QWindow):
            return watched is self._window.windowHandle()
        return True

    def _on_press(self, event, watched) -> bool:
        code = event.key()
        control = DRIVING_KEYS.get(code)
        if control is None:
            return False
        released = self._released_at.pop(code, None)
        stamp = event.timestamp()
        held = code in self._down or (released is not None and released and stamp
                                      and 0 <= stamp - released <= REPEAT_GAP_MS)
        if held:
            # A repeat of a key that drove (marked or not): it drives on, or is swallowed if an
            # editor has the focus now; never steps that editor.
            self._letting_go.pop(code, None)  # its release never reaches the car
            self._down.add(code)
            if driving_key(event) is not None and self._may_drive(watched):
                self._model.press(control)
            return True
        if driving_key(event) is None or not self._may_drive(watched):
            return False
        self._letting_go.pop(code, None)  # pressed again before its release let go: the car keeps it
        self._down.add(code)
        self._model.press(control)
        return True

    def _on_release(self, event) -> bool:
        code = event.key()
        control = DRIVING_KEYS.get(code)
        if control is None:
            return False
        drove = code in self._down
        self._down.discard(code)
        if drove:
            self._released_at[code] = event.timestamp()
            self._letting_go[code] = control
            QTimer.singleShot(0, self, lambda code=code: self._let_go(code))
        else:
            self._model.release(control)  # wherever the focus is now, and whatever modifier is down
        return drove

    def _let_go(self, code: int) -> None:
        """The car lets go of a driving key released, where no repeat's press came after the release."""
        control = self._letting_go.pop(code, None)
        if control is not None:
            self._model.release(control)


def _is_undo_redo(event) -> bool:
    return (event.matches(QKeySequence.StandardKey.Undo) or event.matches(QKeySequence.StandardKey.Redo)
            or (event.key() == Qt.Key.Key_Z and event.modifiers() & MODIFIERS
                == Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier))


def _in_spin_box(widget) -> bool:
    return isinstance(widget, QAbstractSpinBox) or isinstance(widget, QLineEdit) and isinstance(
        widget.parentWidget(), QAbstractSpinBox)


def _offscreen() -> bool:
    return QApplication.platformName() in ("offscreen", "minimal")
