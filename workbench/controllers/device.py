"""What a controller is and has, as SDL2 reports it: its GUID, name, kind, axes and buttons."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.controllers.mapping import RAW_MAX, RAW_MIN

KINDS = ("gamepad", "wheel", "joystick", "arcade stick", "flight stick", "dance pad", "guitar", "drum kit",
         "arcade pad", "throttle")
"""SDL_JoystickType's kinds (``gamepad`` also for any device SDL's game controller API knows)."""


@dataclass(frozen=True)
class DeviceInfo:
    """A controller as the window and ``carbench devices`` show it; ``ranges`` are the raw (low, high) per axis."""

    guid: str  # 32 hex digits: the same controller model on the same platform has the same GUID
    name: str
    kind: str  # one of KINDS
    axes: tuple[str, ...]
    buttons: tuple[str, ...]
    ranges: tuple[tuple[int, int], ...] = ()

    def axis_range(self, axis: str) -> tuple[int, int]:
        """The raw reading's span of ``axis`` (a game controller's triggers read 0 .. 32767)."""
        i = self.axes.index(axis)
        return self.ranges[i] if i < len(self.ranges) else (RAW_MIN, RAW_MAX)

    @property
    def label(self) -> str:
        return f"{self.name} ({self.kind})"
