"""Keyboard driving, application-wide: which key events drive the car, and when held keys let go.

One event filter on the QApplication sees every key event before any widget does, so a driving
key that goes up is released wherever the focus has moved meanwhile (no stuck throttle after
clicking a spin box with Up held), and every held key is released when the focus moves or the
window loses the keyboard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QLineEdit

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


class DrivingKeys(QObject):
    """The application-wide filter: presses drive unless an editor has the focus; releases always release."""

    def __init__(self, model: SessionModel, window):
        super().__init__(window)
        self._model = model
        self._window = window
        self._held: set[int] = set()  # Qt keys whose press drove the car and are still down
        # Keys that drove and are still physically down (even once released for the car): their
        # auto-repeats are swallowed, so a spin box that got the focus meanwhile is not stepped.
        self._down: set[int] = set()
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
        self._held.clear()
        self._model.release_all()

    def _on_focus_changed(self, old, new) -> None:
        if old is not None:
            self.release_all()  # the keyboard went elsewhere: what it held does not stay down

    def _on_application_state_changed(self, state) -> None:
        if state != Qt.ApplicationState.ApplicationActive:
            self.release_all()

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind == QEvent.Type.KeyRelease:
            return self._on_release(event)
        if kind == QEvent.Type.KeyPress:
            return self._on_press(event)
        if kind == QEvent.Type.WindowDeactivate and watched is self._window:
            self.release_all()  # no stuck throttle when the window loses the keyboard
        return False

    def _on_press(self, event) -> bool:
        if event.isAutoRepeat() and event.key() in self._down:
            return True  # auto-repeat of a key that drives: never also steps a spin box it lands on
        key = driving_key(event)
        if key is None or not self._window.isActiveWindow() and not _offscreen():
            return False
        if isinstance(QApplication.focusWidget(), EDITORS):
            return False
        if not event.isAutoRepeat():
            self._held.add(event.key())
            self._down.add(event.key())
            self._model.press(key)
        return True

    def _on_release(self, event) -> bool:
        key = DRIVING_KEYS.get(event.key())
        if key is None:
            return False
        if event.isAutoRepeat():
            return event.key() in self._down
        drove = event.key() in self._down
        self._held.discard(event.key())
        self._down.discard(event.key())
        self._model.release(key)  # wherever the focus is now, and whatever modifier is down
        return drove


def _offscreen() -> bool:
    return QApplication.platformName() in ("offscreen", "minimal")
