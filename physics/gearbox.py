"""003: gear selection (a shift needs the clutch pressed) and the ratio of the selected gear."""

from __future__ import annotations

import numpy as np

REVERSE = -1
NEUTRAL = 0


def ratio_table(g) -> np.ndarray:
    """Per-car table of ratios indexed by gear + 1: reverse, neutral (0), 1st, 2nd, ..."""
    ratios = np.atleast_2d(np.asarray(g.ratios, dtype=float))
    reverse = np.asarray(g.reverse, dtype=float).reshape(-1, 1)
    n = max(ratios.shape[0], reverse.shape[0])
    ratios = np.broadcast_to(ratios, (n, ratios.shape[1]))
    reverse = np.broadcast_to(reverse, (n, 1))
    return np.concatenate([reverse, np.zeros((n, 1)), ratios], axis=1)


def shift(gear, up, down, up_held, down_held, up_pending, down_pending, clutch_pedal, shift_clutch, top_gear):
    """The gear after this frame's keys, and the key memory for the next frame.

    A press of gear_up/gear_down arms one shift, carried out on the first frame (while the key is
    still held) that the clutch pedal is pressed at least ``shift_clutch``; one press, one gear.
    """
    up_pending = up & (~up_held | up_pending)
    down_pending = down & (~down_held | down_pending)
    ready = clutch_pedal >= shift_clutch
    go_up = up_pending & ready & (gear < top_gear)
    go_down = down_pending & ready & (gear > REVERSE)
    gear = gear + go_up.astype(gear.dtype) - go_down.astype(gear.dtype)
    return gear, up_pending & ~go_up, down_pending & ~go_down
