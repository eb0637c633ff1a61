"""The one table of display units: how a channel or a parameter is shown, everywhere it is shown.

Values live in SI (radians, metres per second); a surface that shows one to a person converts it
with :func:`display_unit` (degrees for angles and angular rates). Sweep axes are typed in the display
unit and converted back with :func:`to_si` (exactly as ``math.radians`` does it).
"""

from __future__ import annotations

import math
from typing import Any

DISPLAY_UNITS: dict[str, tuple[str, float, float]] = {
    # display unit: (the SI unit it shows, factor from SI, factor back to SI)
    "deg": ("rad", 180.0 / math.pi, math.pi / 180.0),
    "deg/s": ("rad/s", 180.0 / math.pi, math.pi / 180.0),
    "km/h": ("m/s", 3.6, 1.0 / 3.6),
}


def display_unit(unit: str, display: str | None = None) -> tuple[str, float]:
    """(unit shown, factor from the SI value) for a value in ``unit`` whose display unit is ``display``."""
    if display in DISPLAY_UNITS and DISPLAY_UNITS[display][0] == unit:
        return display, DISPLAY_UNITS[display][1]
    return unit, 1.0


def display_of(info: Any) -> tuple[str, float]:
    """(unit shown, factor) of a channel or parameter description (anything with ``unit`` and ``display``)."""
    return display_unit(info.unit, getattr(info, "display", None))


def to_display(value: float, info: Any) -> float:
    """``value`` (SI) in ``info``'s display unit."""
    return value * display_of(info)[1]


def to_si(value: float, info: Any) -> float:
    """A value typed in ``info``'s display unit, back in SI."""
    display = getattr(info, "display", None)
    if display in DISPLAY_UNITS and DISPLAY_UNITS[display][0] == info.unit:
        return value * DISPLAY_UNITS[display][2]
    return value


def shown(value: Any, info: Any, digits: int = 6) -> str:
    """``value`` (SI) as text in its display unit, with the unit: ``"39.9999 deg"``, ``"1400 kg"``."""
    unit, factor = display_of(info)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        text = str(value) if not isinstance(value, list) else "[" + ", ".join(
            f"{v * factor:.{digits}g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)
            for v in value) + "]"
    else:
        text = f"{value * factor:.{digits}g}"
    return f"{text} {unit}".rstrip()
