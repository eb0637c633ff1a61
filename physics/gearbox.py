"""003: gear selection (a shift needs the clutch pressed) and the ratio of the selected gear."""

from __future__ import annotations

from .groups import MAX_GEARS  # noqa: F401 (read here by physics.records and the tests)
from .jit import scalar

REVERSE = -1
NEUTRAL = 0


def ratio_table(ratios, reverse) -> list[float]:
    """The table of ratios indexed by gear + 1: reverse, neutral (0), 1st, 2nd, ... (built once per car)."""
    return [float(reverse), 0.0] + [float(r) for r in ratios]


@scalar
def shift(gear, up, down, up_held, down_held, up_pending, down_pending, clutch_pedal, shift_clutch, top_gear):
    """The gear after this frame's keys, and the key memory for the next frame.

    A press of gear_up/gear_down arms one shift, carried out on the first frame (while the key is
    still held) that the clutch pedal is pressed at least ``shift_clutch``; one press, one gear.
    Returns (gear, up pending, down pending).
    """
    up_pending = up and (not up_held or up_pending)
    down_pending = down and (not down_held or down_pending)
    ready = clutch_pedal >= shift_clutch
    go_up = up_pending and ready and gear < top_gear
    go_down = down_pending and ready and gear > REVERSE
    gear = gear + (1 if go_up else 0) - (1 if go_down else 0)
    return gear, up_pending and not go_up, down_pending and not go_down
