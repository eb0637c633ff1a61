"""``[[track]]`` entries: one analog control's value on every frame of a stretch, as a recorder writes it.

A driver on a gamepad or a wheel moves a control a little on almost every frame; a ``[[set]]`` per
frame would be three lines each. A track holds the stretch as one list::

    [[track]]
    control = "throttle_pedal"   # steer, throttle_pedal, brake_pedal or clutch_pedal
    from = 1.25                  # the time of the first value's frame (on a frame of [script] dt)
    values = [0.0125, 0.025, 0.0375, 0.05]

The values are one per frame of the script's dt (so ``[script] dt`` is required), each in the
control's range, and the last one holds, as a ``[[set]]`` would, until a ``[[set]]`` or another
track changes or releases the control. Replayed at another dt, each frame takes the value of the
track's frame that covers its time. Two tracks of one control never overlap, and no ``[[set]]``
sets or releases a control inside its track.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from physics import ANALOG

TRACK_KEYS = ("control", "from", "values")
ON_FRAME = 1e-6  # [frames] how far `from` may be off its frame (a time written with 17 digits is within 1e-12)


@dataclass(frozen=True)
class Track:
    """Values of one analog control on consecutive frames of the script's dt, from time ``start`` on."""

    control: str
    start: float
    values: tuple[float, ...]

    def end(self, dt: float) -> float:
        """The time of the last value's frame [s]."""
        return self.start + (len(self.values) - 1) * dt

    def to_table(self) -> dict[str, Any]:
        return {"control": self.control, "from": self.start, "values": list(self.values)}


def parse_track(parser, table: dict, i: int, dt: float | None, ranges: dict[str, tuple[float, float]]) -> Track:
    """One ``[[track]]`` table, checked by ``parser`` (the script parser: its ``fail``, ``number`` and ``time``)."""
    where = f"[[track]] #{i}"
    parser.known_keys(table, TRACK_KEYS, where)
    for key in TRACK_KEYS:
        if key not in table:
            raise parser.fail(where, f"`{key}` is missing")
    control = table["control"]
    if control not in ANALOG:
        raise parser.fail(where, f"`control` = {control!r} is not an analog control; the controls are: "
                                 f"{', '.join(ANALOG)}")
    if dt is None:
        raise parser.fail(where, "needs [script] dt: a track's values are one per frame")
    start = parser.time(table, "from", where)  # the last frame (t = duration) may take a value too
    frame = start / dt
    if abs(frame - round(frame)) > ON_FRAME:
        raise parser.fail(where, f"`from` = {start!r} s is not on a frame of dt = {dt!r} s "
                                 f"(the nearest are {math.floor(frame) * dt!r} and {math.ceil(frame) * dt!r})")
    values = table["values"]
    if not isinstance(values, list) or not values:
        raise parser.fail(where, "`values` must be a non-empty list of numbers, one per frame")
    lo, hi = ranges[control]
    checked = []
    for j, value in enumerate(values, 1):
        number = parser.number(value, f"{where} value #{j}")
        if not lo <= number <= hi:
            said = f"{number:g}" if not lo <= float(f"{number:g}") <= hi else repr(number)  # never rounded into range
            raise parser.fail(where, f"value #{j} = {said} is out of range {lo:g}..{hi:g} for {control}")
        checked.append(number)
    last = start + (len(values) - 1) * dt
    if last > parser.duration + ON_FRAME * dt:
        raise parser.fail(where, f"its {len(values)} values run from {start:g} s to {last:g} s, past the "
                                 f"script's duration ({parser.duration:g} s)")
    return Track(control, start, tuple(checked))


def check_tracks(parser, tracks: Sequence[Track], sets: Sequence, dt: float | None) -> None:
    """Refuse two tracks of one control that overlap, and a [[set]] that sets or releases a control inside its track."""
    if not tracks:
        return
    import bisect

    from workbench.scripts.program import frame_of

    # Each control's tracks in the order they start: one overlaps where it starts before the latest end of those
    # before it; a [[set]]'s frame falls in the last track starting at or before it, if anywhere. (Every pair
    # compared took 464 s to read 80,000 tracks.) Of overlapping tracks the pair named is the first found along the
    # time; of [[set]]s inside a track, the first track in the file that has one, and its first such [[set]].
    spans = [(frame_of(t.start, dt), frame_of(t.start, dt) + len(t.values) - 1) for t in tracks]
    by_control: dict[str, list[int]] = {}
    for i, track in enumerate(tracks):
        by_control.setdefault(track.control, []).append(i)
    clash: tuple[int, int] | None = None  # (the earlier track in the file, the later one), 0-based
    for members in by_control.values():
        members.sort(key=lambda i: (spans[i][0], i))
        reach = -1  # the member reaching furthest so far
        for i in members:
            if reach >= 0 and spans[i][0] <= spans[reach][1]:
                pair = (min(reach, i), max(reach, i))
                clash = pair if clash is None or pair < clash else clash
                break
            if reach < 0 or spans[i][1] > spans[reach][1]:
                reach = i
    if clash is not None:
        i, j = clash
        track = tracks[i]
        raise parser.fail(f"[[track]] #{j + 1}", f"overlaps [[track]] #{i + 1} ({track.control}, "
                                                 f"{track.start:g}..{track.end(dt):g} s)")
    starts = {control: [spans[i][0] for i in members] for control, members in by_control.items()}
    inside: tuple[int, int] | None = None  # (track, [[set]]), 0-based
    for j, setting in enumerate(sets):
        k = frame_of(setting.at, dt)
        for control in (*setting.analog, *setting.release):
            if control not in starts:
                continue
            n = bisect.bisect_right(starts[control], k) - 1
            if n >= 0:
                i = by_control[control][n]
                if k <= spans[i][1] and (inside is None or (i, j) < inside):
                    inside = (i, j)
    if inside is not None:
        i, j = inside
        track, setting = tracks[i], sets[j]
        raise parser.fail(f"[[set]] #{j + 1}", f"sets {track.control} at {setting.at:g} s, inside [[track]] "
                                               f"#{i + 1} ({track.start:g}..{track.end(dt):g} s)")


def apply_tracks(script, step: float, analog_on: np.ndarray, analog_value: np.ndarray) -> None:
    """Write ``script``'s tracks into a program's per-frame overrides (already filled from its [[set]]s).

    Frame k at ``step`` takes the track value of the script frame that covers k * step; after its
    last frame the track's last value holds until the control's next [[set]] or track.
    """
    if not script.tracks:
        return
    import bisect

    from workbench.scripts.program import frame_of

    frames = len(analog_on)
    events: dict[str, list[int]] = {name: [] for name in ANALOG}  # frames where a set or track takes a control
    for setting in script.sets:
        for name in (*setting.analog, *setting.release):
            events[name].append(frame_of(setting.at, step))
    for track in script.tracks:
        events[track.control].append(frame_of(track.start, step))
    ordered = {name: sorted(frames_of) for name, frames_of in events.items()}  # (a scan per track: tracks squared)
    for track in script.tracks:
        c = ANALOG.index(track.control)
        first = frame_of(track.start, step)
        last = min(frame_of(track.end(script.dt), step), frames - 1)
        values = np.asarray(track.values)
        if last >= first:
            # frame_of(k * step, script dt) - frame_of(start, script dt) for every k at once (the same
            # operations, so the same frames): at the script's own dt that is k - first, exactly.
            covering = np.floor(np.arange(first, last + 1) * step / script.dt + 0.5).astype(np.int64)
            index = covering - frame_of(track.start, script.dt)
            analog_on[first:last + 1, c] = True
            analog_value[first:last + 1, c] = values[np.clip(index, 0, len(values) - 1)]
        taking = ordered[track.control]
        n = bisect.bisect_right(taking, last)
        after = taking[n] if n < len(taking) else frames
        analog_on[last + 1:after, c] = True
        analog_value[last + 1:after, c] = values[-1]
