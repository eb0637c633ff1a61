"""Keyboard driving: which Qt key is which control, and the help text that lists them."""

from __future__ import annotations

from PySide6.QtCore import Qt

DRIVING_KEYS = {
    Qt.Key.Key_Up: "throttle",
    Qt.Key.Key_Down: "brake",
    Qt.Key.Key_Left: "left",
    Qt.Key.Key_Right: "right",
    Qt.Key.Key_C: "clutch",
    Qt.Key.Key_Space: "handbrake",
    Qt.Key.Key_A: "gear_up",
    Qt.Key.Key_Z: "gear_down",
    Qt.Key.Key_S: "start",
}
"""Held keys: a control is on while its key is down."""

COMMAND_SHORTCUTS = {
    "reset": "R",
    "pause": "P",
    "step": "N",
    "back": ",",
    "forward": ".",
    "follow": "F",
    "help": "F1",
}
"""Commands (menu actions with these shortcuts)."""

HELP_ROWS = (
    ("Up / Down", "throttle / brake (brake at rest reverses a car without a gearbox)"),
    ("Left / Right", "steer"),
    ("C", "clutch (hold)"),
    ("A / Z", "gear up / down (press the clutch first)"),
    ("Space", "handbrake"),
    ("S", "starter: restarts a stalled engine"),
    ("R", "reset to rest at the origin"),
    ("P", "pause / resume"),
    ("N", "single step (pauses)"),
    (", / .", "paused: one frame back / forward through the history"),
    ("Ctrl+Z / Ctrl+Shift+Z", "undo / redo a parameter edit, reset or preset load"),
    ("F", "follow camera on / off"),
    ("B", "pin the run on show as a reference (up to four)"),
    ("D", "drive on from the frame on show (scrubbed)"),
    ("F1", "this help (Escape closes it)"),
)


def help_html() -> str:
    rows = "".join(f"<tr><td><b>{k}</b>&nbsp;&nbsp;</td><td>{v}</td></tr>" for k, v in HELP_ROWS)
    return f"<table>{rows}</table><p>Click the car view to drive; spin boxes keep the arrow keys.</p>"
