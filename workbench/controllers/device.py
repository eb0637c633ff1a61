"""What a controller is and has, as SDL2 reports it: its GUID, name, kind, axes and buttons."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.controllers.mapping import RAW_MAX, RAW_MIN

SDL_KINDS = ("gamepad", "wheel", "arcade stick", "flight stick", "dance pad", "guitar", "drum kit", "arcade pad",
             "throttle")
"""SDL_JoystickType's kinds, its values 1 to 9 in order (SDL_JOYSTICK_TYPE_GAMECONTROLLER to _THROTTLE)."""
KINDS = SDL_KINDS + ("joystick",)
"""What a device is: one of SDL's kinds (``gamepad`` also for any device SDL's game controller API knows), or
``joystick`` for one SDL does not know the kind of (SDL_JOYSTICK_TYPE_UNKNOWN, 0) and a gamepad it has no mapping
for."""


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
