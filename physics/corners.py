"""The four corners of a four-wheel car: one schema list that generates the per-wheel state fields, the
per-wheel channels and the compiled code that reads and writes them.

A corner's fields are named ``<quantity>_<corner>`` (``load_fl``, ``wheel_rr``). Compiled code names
them too: the four-wheel frame calls the same small corner functions four times and hands their
results to the generated writers (``write_fl(out, c)``), never to a position in a vector.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

from .jit import scalar


@dataclass(frozen=True)
class Corner:
    """One wheel: its name and where it sits (front or rear axle, left or right side)."""

    name: str
    front: bool
    left: bool

    @property
    def side(self) -> float:
        """+1 on the left, -1 on the right (the car's y axis points left)."""
        return 1.0 if self.left else -1.0


CORNERS = (Corner("fl", True, True), Corner("fr", True, False), Corner("rl", False, True), Corner("rr", False, False))
NAMES = tuple(c.name for c in CORNERS)

STATE_FIELDS = (("wheel", "float", "[rad/s] the wheel's speed (four-wheel model)"),)
"""Per-corner state: (quantity, type, description)."""

CHANNELS = (
    # quantity, unit, description, display unit
    ("load", "N", "vertical load on the tyre", None),
    ("mu", "", "the tyre's friction coefficient: the road's, less for load (tyres.load_sensitivity)", None),
    ("slip_angle", "rad", "slip angle: travel direction minus wheel direction", "deg"),
    ("slip_ratio", "", "longitudinal slip ratio (omega R - u) / max(|u|, slip speed)", None),
    ("fx", "N", "tyre force along the wheel", None),
    ("fy", "N", "tyre force across the wheel", None),
    ("wheel_speed", "rad/s", "the wheel's rotational speed", None),
    ("brake_torque", "N m", "brake torque acting on the wheel (ABS, TCS and ESC included)", None),
    ("abs", "", "ABS (or stability control's valves) holding the wheel's slip (1) or not (0)", None),
    ("tcs", "", "traction control braking the wheel (1) or not (0)", None),
    ("esc", "", "stability control braking the wheel (1) or not (0)", None),
)
"""Per-corner channels of the four-wheel model (zero on the single-track models)."""

Wheel = namedtuple("Wheel", [q for q, *_ in CHANNELS])
"""One corner's channel values for a frame, in CHANNELS order."""


def field_names(quantities) -> list[str]:
    """``<quantity>_<corner>`` for every quantity and corner, quantity by quantity."""
    return [f"{q}_{c}" for q in quantities for c in NAMES]


def state_fields() -> list[tuple[str, str]]:
    return [(f"{q}_{c}", kind) for q, kind, _ in STATE_FIELDS for c in NAMES]


def channel_fields() -> list[tuple[str, str, str, str | None]]:
    """(name, unit, description, display unit) of every per-corner channel."""
    out = []
    for q, unit, doc, display in CHANNELS:
        for c in CORNERS:
            out.append((f"{q}_{c.name}", unit, f"{doc} ({'front' if c.front else 'rear'} "
                                               f"{'left' if c.left else 'right'})", display))
    return out


def _generate(name: str, lines: list[str]):
    namespace = {"math": math}
    exec("\n".join(lines), namespace)  # noqa: S102 (the source is built from the schema above)
    return scalar(namespace[name])


def _writer(corner: str):
    """write_<corner>(out, w): the corner's channels from a Wheel."""
    name = f"write_{corner}"
    return _generate(name, [f"def {name}(out, w):"] + [f"    out.{q}_{corner} = w.{q}" for q, *_ in CHANNELS])


def _zeroer():
    return _generate("zero_corners", ["def zero_corners(out):"]
                     + [f"    out.{f} = 0.0" for f in field_names([q for q, *_ in CHANNELS])])


write_fl, write_fr, write_rl, write_rr = (_writer(c) for c in NAMES)
zero_corners = _zeroer()
"""The per-corner channels of a single-track frame: zeros."""
zero_corner_state = _generate("zero_corner_state", ["def zero_corner_state(new):"]
                              + [f"    new.{f} = 0.0" for f, _ in state_fields()])
"""The per-corner state of a single-track car: zeros."""
