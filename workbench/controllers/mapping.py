"""How a controller drives the car: which axis is which analog control and how it responds, which button
does what. Pure data and arithmetic on raw SDL values; saved as JSON (per controller GUID) by the window.

An axis's raw value (SDL's signed 16-bit reading) becomes a control's value in four steps:

1. **Range**: the calibrated travel [low, high] is scaled to 0..1 (outside it, clipped). For ``steer``, each
   side of the axis's centre on its own, to -1..0 and 0..1: the centre is raw 0, where SDL centres a stick's
   or a wheel's axis (the middle of the travel for a calibrated range that does not hold 0), so a wheel that
   reaches further one way than the other still reads 0 straight ahead.
2. **Inversion**: 1 - x (a pedal that reads high at rest, a stick that reads the other way); -x for ``steer``.
3. **Dead zone**: for ``steer`` around the centre, for a pedal at rest; the rest of the travel is
   stretched to fill the range again, so full travel still gives full lock or full pedal.
4. **Curve**: linear, or a power law |x|^exponent with the sign kept (an exponent above 1 is finer
   near the centre or at rest).

``steer`` is -1..1 and follows the script convention (positive steers left): the control's high
end (a stick or wheel to the right) steers right. Pedals are 0..1. Values are rounded to
:data:`DECIMALS` places (a little coarser than a 16-bit reading, far finer than a thumb or a foot
holds a control) so that a recording writes short numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from physics import ANALOG, KEYS

COMMANDS = ("reset", "pause", "pin")
"""Button actions that are window commands (on press), beside the driving keys (held)."""
BUTTON_ACTIONS = KEYS + COMMANDS
CURVES = ("linear", "power")
RAW_MIN, RAW_MAX = -32768, 32767  # an SDL axis reading
MAX_DEAD_ZONE = 0.5  # of the travel (of each half, for steer)
EXPONENTS = (0.2, 5.0)  # the power law's exponent, lowest and highest
MIN_TRAVEL = 4096  # [raw units] a calibrated range at least this wide (1/16 of the reading's span)
DECIMALS = 4  # a mapped value is rounded to 1e-4 (0.0035 deg of a 35 deg lock), written as at most 4 decimals


class MappingError(ValueError):
    """A mapping that cannot be used (from the settings or the dialog); the message says which part and why."""


@dataclass(frozen=True)
class AxisMapping:
    """One axis driving one analog control."""

    axis: str  # the device's name for the axis ("leftx", "axis 0")
    control: str  # one of physics.ANALOG
    invert: bool = False
    dead_zone: float = 0.0  # of the travel, 0 .. MAX_DEAD_ZONE
    curve: str = "linear"
    exponent: float = 1.0  # for the power curve
    low: int = RAW_MIN  # the raw reading at one end of the travel (calibrated)
    high: int = RAW_MAX  # and at the other

    def __post_init__(self):
        if self.control not in ANALOG:
            raise MappingError(f"axis {self.axis!r}: control {self.control!r} is not one of {', '.join(ANALOG)}")
        if not 0.0 <= self.dead_zone <= MAX_DEAD_ZONE:
            raise MappingError(f"axis {self.axis!r}: dead zone {self.dead_zone!r} is outside 0 .. {MAX_DEAD_ZONE:g}")
        if self.curve not in CURVES:
            raise MappingError(f"axis {self.axis!r}: curve {self.curve!r} is not one of {', '.join(CURVES)}")
        if not EXPONENTS[0] <= self.exponent <= EXPONENTS[1]:
            raise MappingError(f"axis {self.axis!r}: exponent {self.exponent!r} is outside "
                               f"{EXPONENTS[0]:g} .. {EXPONENTS[1]:g}")
        if not RAW_MIN <= self.low < self.high <= RAW_MAX or self.high - self.low < MIN_TRAVEL:
            raise MappingError(f"axis {self.axis!r}: range {self.low} .. {self.high} must lie in {RAW_MIN} .. "
                               f"{RAW_MAX} and span at least {MIN_TRAVEL}")
        if self.control == "steer":
            centre = self.centre
            if min(centre - self.low, self.high - centre) < MIN_TRAVEL / 2:
                raise MappingError(f"axis {self.axis!r}: range {self.low} .. {self.high} must reach at least "
                                   f"{MIN_TRAVEL // 2} to each side of its centre ({centre:g}) to steer")

    @property
    def centre(self) -> float:
        """The raw reading of a steering axis straight ahead: 0, where SDL centres a stick or a wheel, or the
        middle of a calibrated range that does not hold 0."""
        return 0.0 if self.low < 0 < self.high else 0.5 * (self.low + self.high)

    def apply(self, raw: float) -> float:
        """The control's value for a raw reading (steer -1..1, positive left; a pedal 0..1)."""
        if self.control == "steer":  # each side of the centre on its own: -1 at the low end, +1 at the high end
            centre = self.centre
            x = (min((raw - centre) / (self.high - centre), 1.0) if raw >= centre
                 else -min((centre - raw) / (centre - self.low), 1.0))
            if self.invert:
                x = -x
        else:
            x = min(max((raw - self.low) / (self.high - self.low), 0.0), 1.0)
            if self.invert:
                x = 1.0 - x
        magnitude = abs(x)
        if magnitude <= self.dead_zone:
            return 0.0
        magnitude = (magnitude - self.dead_zone) / (1.0 - self.dead_zone)
        if self.curve == "power":
            magnitude = magnitude ** self.exponent
        value = math.copysign(magnitude, x)
        if self.control == "steer":
            value = -value  # to the right is negative steer
        return round(value, DECIMALS) + 0.0  # + 0.0: never -0.0

    def calibrated(self, low: int, high: int) -> AxisMapping:
        return replace(self, low=int(low), high=int(high))


@dataclass(frozen=True)
class ControllerMapping:
    """A controller's axes and buttons: at most one axis per control, one action per button."""

    axes: tuple[AxisMapping, ...] = ()
    buttons: dict[str, str] = field(default_factory=dict)  # button name -> one of BUTTON_ACTIONS

    def __post_init__(self):
        seen: dict[str, str] = {}
        for a in self.axes:
            if a.control in seen:
                raise MappingError(f"{a.control} is driven by two axes ({seen[a.control]!r} and {a.axis!r})")
            seen[a.control] = a.axis
        if len({a.axis for a in self.axes}) != len(self.axes):
            raise MappingError("an axis drives two controls")
        for button, action in self.buttons.items():
            if action not in BUTTON_ACTIONS:
                raise MappingError(f"button {button!r}: action {action!r} is not one of {', '.join(BUTTON_ACTIONS)}")

    def axis_for(self, axis: str) -> AxisMapping | None:
        return next((a for a in self.axes if a.axis == axis), None)

    def with_axis(self, mapping: AxisMapping | None, axis: str) -> ControllerMapping:
        """This mapping with ``axis`` mapped as ``mapping`` (None: unmapped); an axis that drove the same control
        gives it up."""
        kept = [a for a in self.axes if a.axis != axis and (mapping is None or a.control != mapping.control)]
        return replace(self, axes=tuple(kept + ([] if mapping is None else [mapping])))

    def with_button(self, button: str, action: str | None) -> ControllerMapping:
        buttons = {b: a for b, a in self.buttons.items() if b != button}
        if action is not None:
            buttons[button] = action
        return replace(self, buttons=buttons)

    def to_dict(self) -> dict[str, Any]:
        return {"axes": [{"axis": a.axis, "control": a.control, "invert": a.invert, "dead_zone": a.dead_zone,
                          "curve": a.curve, "exponent": a.exponent, "low": a.low, "high": a.high} for a in self.axes],
                "buttons": dict(self.buttons)}

    @classmethod
    def from_dict(cls, data: Any) -> ControllerMapping:
        """A mapping read back from :meth:`to_dict`'s document; MappingError on anything else."""
        if not isinstance(data, dict) or set(data) - {"axes", "buttons"}:
            raise MappingError("a mapping is a table of `axes` and `buttons`")
        axes = data.get("axes", [])
        buttons = data.get("buttons", {})
        if not isinstance(axes, list) or not isinstance(buttons, dict):
            raise MappingError("`axes` must be a list and `buttons` a table")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in buttons.items()):
            raise MappingError("`buttons` maps button names to actions")
        parsed = []
        for entry in axes:
            if not isinstance(entry, dict):
                raise MappingError("each axis is a table")
            unknown = set(entry) - set(AxisMapping.__dataclass_fields__)
            if unknown or not {"axis", "control"} <= set(entry):
                raise MappingError(f"an axis needs `axis` and `control` and nothing unknown, got {sorted(entry)}")
            kinds = {"axis": str, "control": str, "invert": bool, "dead_zone": (int, float), "curve": str,
                     "exponent": (int, float), "low": int, "high": int}
            for key, value in entry.items():
                if not isinstance(value, kinds[key]) or (key != "invert" and isinstance(value, bool)):
                    raise MappingError(f"axis {entry['axis']!r}: `{key}` = {value!r} has the wrong type"
                                       if isinstance(entry["axis"], str) and key != "axis"
                                       else f"axis `{key}` = {value!r} has the wrong type")
            parsed.append(AxisMapping(**entry))
        return cls(tuple(parsed), dict(buttons))

    def sample(self, raw_axes: dict[str, float]) -> dict[str, float]:
        """The mapped controls for the raw readings of the axes by name (an axis not read is left out)."""
        return {a.control: a.apply(raw_axes[a.axis]) for a in self.axes if a.axis in raw_axes}

    def actions(self, pressed: set[str] | frozenset[str]) -> set[str]:
        """The actions of the buttons that are down."""
        return {self.buttons[b] for b in pressed if b in self.buttons}


class Calibrator:
    """A range found by moving a control through its travel: the lowest and highest raw readings seen."""

    def __init__(self):
        self.low: int | None = None
        self.high: int | None = None

    def feed(self, raw: int) -> None:
        self.low = raw if self.low is None else min(self.low, raw)
        self.high = raw if self.high is None else max(self.high, raw)

    @property
    def travel(self) -> int:
        return 0 if self.low is None else self.high - self.low

    def result(self, steering: bool = False) -> tuple[int, int]:
        """(low, high); MappingError when the control did not move through enough of its travel, or, ``steering``,
        not to both sides of straight ahead (raw 0) by half that: a wheel turned one way only took the middle of its
        turn for straight ahead, steered full lock at rest and the wrong way inside that range."""
        if self.travel < MIN_TRAVEL:
            raise MappingError(f"the control moved over {self.travel} of the reading's {RAW_MAX - RAW_MIN} units; "
                               f"move it through its whole travel (at least {MIN_TRAVEL})")
        side = MIN_TRAVEL // 2
        if steering and not (self.low <= -side and self.high >= side):
            raise MappingError(f"the steering moved over {self.low} .. {self.high}: turn it all the way to both sides "
                               f"of straight ahead (raw 0), at least {side} each way")
        return int(self.low), int(self.high)
