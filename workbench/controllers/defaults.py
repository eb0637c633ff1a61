"""The mapping a controller starts with, before anyone edits it: one for gamepads, one for wheels.

A gamepad (anything SDL's game controller API knows) steers with the left stick and has the right
and left triggers as throttle and brake, as racing games do; one without triggers steers with its left stick and
leaves the pedals to the keys (its sticks, centred at rest, read half a pedal each as a wheel's pedals: the throttle
stuck at 0.49 once the stick had moved). Anything else is taken for a wheel
with pedals, as most report themselves: the first axis steers, the next three are throttle, brake
and clutch (pedals that read the top of their range at rest, hence inverted), and the first two
buttons (the paddles on many wheels) shift up and down; a wheel with fewer shifts on its first hat, up and
down. The mapping dialog shows each axis live,
so a wheel that differs is put right in a minute and remembered by its GUID.
"""

from __future__ import annotations

from workbench.controllers.device import DeviceInfo
from workbench.controllers.mapping import AxisMapping, ControllerMapping

GAMEPAD_STEER_DEAD_ZONE = 0.08  # a worn thumbstick rests up to about 8% off centre
TRIGGER_DEAD_ZONE = 0.02
PEDAL_DEAD_ZONE = 0.02
GAMEPAD_STEER_EXPONENT = 1.5  # finer near the centre: a stick's short travel is the whole lock
GAMEPAD_BUTTONS = {
    "rightshoulder": "gear_up",
    "leftshoulder": "gear_down",
    "a": "handbrake",
    "b": "clutch",
    "y": "start",
    "x": "pin",
    "back": "reset",
    "start": "pause",
}
WHEEL_PEDALS = ("throttle_pedal", "brake_pedal", "clutch_pedal")
WHEEL_BUTTONS = ("gear_up", "gear_down")


def default_mapping(info: DeviceInfo) -> ControllerMapping:
    """The starting mapping for ``info``: the gamepad layout, or the wheel layout for anything else."""
    if info.kind == "gamepad":
        return _gamepad(info)
    return _wheel(info)


def _gamepad(info: DeviceInfo) -> ControllerMapping:
    def axis(name, control, **options):
        low, high = info.axis_range(name)
        return AxisMapping(name, control, low=low, high=high, **options)

    axes = tuple(axis(name, control, **options) for name, control, options in (
        ("leftx", "steer", {"dead_zone": GAMEPAD_STEER_DEAD_ZONE, "curve": "power", "exponent": GAMEPAD_STEER_EXPONENT}),
        ("righttrigger", "throttle_pedal", {"dead_zone": TRIGGER_DEAD_ZONE}),
        ("lefttrigger", "brake_pedal", {"dead_zone": TRIGGER_DEAD_ZONE})) if name in info.axes)
    buttons = {b: action for b, action in GAMEPAD_BUTTONS.items() if b in info.buttons}
    return ControllerMapping(axes, buttons)


def _wheel(info: DeviceInfo) -> ControllerMapping:
    axes = []
    for name, control in zip(info.axes, ("steer",) + WHEEL_PEDALS, strict=False):
        low, high = info.axis_range(name)
        pedal = control != "steer"
        axes.append(AxisMapping(name, control, invert=pedal, dead_zone=PEDAL_DEAD_ZONE if pedal else 0.0,
                                low=low, high=high))
    # The paddles are the first two buttons; a wheel with fewer shifts on its hat, up and down (the hat's
    # directions are buttons too, and took the paddles' place in turn: up, then right for down).
    paddles = [b for b in info.buttons if not b.startswith("hat ")]
    hats = sorted({b.rsplit(" ", 1)[0] for b in info.buttons if b.startswith("hat ")})  # "hat 0", ...
    if len(paddles) < len(WHEEL_BUTTONS) and hats:
        paddles = [f"{hats[0]} up", f"{hats[0]} down"]
    buttons = dict(zip(paddles, WHEEL_BUTTONS, strict=False))
    return ControllerMapping(tuple(axes), buttons)
