"""Analog driving in the window: controllers and the mouse beside the keyboard, frame by frame.

:func:`install_analog_driving` gives the window a Controls menu (the mapping dialog, mouse
steering), a status-bar slot naming the controllers plugged in, and the session model's per-frame
inputs: the keys held on the keyboard, on controller buttons and on the mouse, and the analog
overrides of the inputs that moved last (``workbench.controllers.arbiter``). The session records
those overrides, so a drive replays exactly.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel

from workbench.controllers.arbiter import KEYBOARD, InputArbiter
from workbench.gui.controller_input import ControllerInput
from workbench.gui.mouse_steering import MouseSteering

MOUSE = "mouse"
MESSAGE_MS = 6000


class AnalogDriving(QObject):
    """The window's analog inputs: controllers, mouse steering and who drives what."""

    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self.controllers = ControllerInput(window.settings, self)
        self.mouse = MouseSteering(window.car_view, self)
        self.arbiter = InputArbiter()
        self._create_menu()
        self._create_status()
        self.controllers.message.connect(lambda text: window.show_message(text, MESSAGE_MS))
        self.controllers.devices_changed.connect(self._update_status)
        self.controllers.command.connect(self._on_command)
        self.controllers.mapping_changed.connect(self._on_mapping_changed)
        window.model.frame_inputs = self.frame_inputs
        # A new car or script, and a reset (MainWindow.reset_car): every control back to the keys, and a source
        # takes one again only when it moves.
        window.model.preset_loaded.connect(lambda name: self.arbiter.release())
        window.model.script_loaded.connect(lambda name: self.arbiter.release())
        hub = self.controllers.hub
        if hub is not None:  # also when a window is dropped without being closed
            window.destroyed.connect(lambda *_: hub.close())
        self.mouse_action.setChecked(window.settings.value("mouse_steering", False, type=bool))
        self.pump()

    def _create_menu(self) -> None:
        window = self._window
        menu = window.menuBar().addMenu("&Controls")
        help_menu = next((a for a in window.menuBar().actions() if a.text() == "&Help"), None)
        if help_menu is not None:  # Controls before Help
            window.menuBar().insertMenu(help_menu, menu)
        self.dialog_action = menu.addAction("Controllers and wheels\u2026", self.show_dialog)
        self.mouse_action = menu.addAction("Mouse steering")
        self.mouse_action.setCheckable(True)
        self.mouse_action.toggled.connect(self.set_mouse_steering)
        self.menu = menu
        self._dialog = None

    def _create_status(self) -> None:
        self.status = QLabel()
        self._window.statusBar().addPermanentWidget(self.status)
        self._update_status()

    def _update_status(self) -> None:
        names = [d.info.name for d in self.controllers.devices]
        if self.controllers.unavailable:
            text, tip = "no controllers (SDL2 missing)", self.controllers.unavailable
        elif names:
            text, tip = "controller: " + ", ".join(names), "\n".join(d.info.label for d in self.controllers.devices)
        else:
            text, tip = "", "no controller plugged in"
        if self.mouse.enabled:
            text = (text + "  " if text else "") + "mouse steers"
        self.status.setText(text)
        self.status.setToolTip(tip)

    def _on_mapping_changed(self, device) -> None:
        """An edited mapping is no move of the axes: every controller of its model (one GUID, one mapping) is judged
        from what it reads under the new mapping."""
        for other in self.controllers.devices:
            if other.info.guid == device.info.guid:
                self.arbiter.rebase(f"controller {other.instance_id}")

    # -- per tick and per frame ----------------------------------------------------------------------

    def pump(self) -> None:
        """On every tick of the window's timer (devices coming and going, command buttons)."""
        self.controllers.pump()

    def frame_inputs(self, keys: set[str]) -> tuple[set[str], dict[str, float] | None]:
        """One frame's keys and analog overrides (the session model calls this before each step)."""
        pressed, sources = self.controllers.sample()
        mouse = self.mouse.source()
        if mouse:
            sources[MOUSE] = mouse
        held = set(keys) | pressed | self.mouse.keys()
        if not sources and all(owner == KEYBOARD for owner in self.arbiter.owner.values()):
            return held, None  # the keyboard alone: nothing to arbitrate
        return held, self.arbiter.frame(held, sources) or None

    # -- commands ------------------------------------------------------------------------------------

    def _on_command(self, action: str) -> None:
        """A controller button's command. Not while a modal dialog is up (a question, a file dialog): the keyboard
        cannot reach the window then, and a button went round it: Start resumed the car that Save had paused while
        its file was chosen, and Back asked "Restart the recording?" over the same question."""
        from PySide6.QtWidgets import QApplication

        if QApplication.activeModalWidget() is not None:
            return
        window = self._window
        if action == "pause":
            window.model.toggle_running()
        elif action == "reset":
            window.reset_car()
        elif action == "pin":
            window.pin_action.trigger()

    def set_mouse_steering(self, on: bool) -> None:
        self.mouse.set_enabled(on)
        self._window.settings.setValue("mouse_steering", bool(on))
        self._update_status()

    def show_dialog(self):
        from workbench.gui.controller_dialog import ControllerDialog

        if self._dialog is None:
            self._dialog = ControllerDialog(self.controllers, self._window)
        self._dialog.show()
        self._dialog.raise_()
        # The keyboard to it: with no window manager (Xvfb) nothing activates a new window, the main window kept the
        # keys and Escape never reached the dialog (nor Tab, nor its combo boxes' keys).
        self._dialog.activateWindow()
        return self._dialog

    def shutdown(self) -> None:
        if self._dialog is not None:
            self._dialog.close()
        self.controllers.close()


def install_analog_driving(window) -> AnalogDriving:
    """Controllers and mouse steering for ``window`` (its model, car view, menus and status bar)."""
    return AnalogDriving(window)
