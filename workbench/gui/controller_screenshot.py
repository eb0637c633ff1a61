"""The mapping dialog's screenshot for the README: a virtual gamepad (no hardware needed) mid-drive."""

from __future__ import annotations

from pathlib import Path

# The pose on show: the stick a little left, the throttle squeezed most of the way, the clutch button down.
POSE_AXES = {"leftx": -9000, "righttrigger": 16000, "lefttrigger": -32768}
POSE_BUTTONS = ("b",)


def take_controllers(path: str | Path, settings: str) -> Path:
    """Write the Controls > Controllers and wheels dialog of a window driven by a virtual gamepad to ``path``."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from workbench.controllers.sdl import VirtualDevice
    from workbench.gui.testing import make_window

    app = QApplication.instance()
    pad = VirtualDevice("gamepad", "Gamepad (virtual)")
    window = make_window("sedan", QSettings(settings, QSettings.Format.IniFormat))
    try:
        window.show()
        window.analog.pump()
        for axis, raw in POSE_AXES.items():
            pad.set_axis(axis, raw)
        for button in POSE_BUTTONS:
            pad.set_button(button, True)
        window.model.advance(120)
        dialog = window.analog.show_dialog()
        app.processEvents()
        dialog.update_values()
        app.processEvents()
        # Taller by what its scroll area hides (it opens at 980x560, to fit a 1024x640 screen): all of it on show.
        dialog.resize(dialog.width(), dialog.height() + dialog.scroll.verticalScrollBar().maximum())
        app.processEvents()
        dialog.grab().save(str(path))
        dialog.close()
    finally:
        window.close()
        pad.detach()
    return Path(path)
