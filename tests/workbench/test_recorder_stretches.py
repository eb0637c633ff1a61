"""The recorder keeps each analog control's changes in stretches as they are recorded, so that the script of a long
recording is put together from them when it stops, not made by going through every change again (0.1 s of the
window's thread for 30 minutes of a gamepad). The stretches are those the recording always had: a restored journal
and the recorder give one script."""

from __future__ import annotations

import json

from physics import load_preset
from workbench.scripts.format import Setting
from workbench.scripts.recorder import TRACK_GAP, Recorder
from workbench.scripts.track import Track


class Untouchable(list):
    """A control's changes that must not be gone through again."""

    def __iter__(self):
        raise AssertionError("the script went through every change again")


def drive() -> Recorder:
    rec = Recorder("sedan", 0.01, load_preset("sedan").params)
    for k in range(200):
        analog = {}
        if k < 60:  # a stick moved every frame, then still: a track
            analog["steer"] = round(0.01 * min(k, 40), 4)
        if 80 <= k < 150 and k % (TRACK_GAP + 3) == 0 or 150 <= k < 170:  # changes too far apart: [[set]] entries
            analog["throttle_pedal"] = 0.5 if k < 150 else 0.25
        rec.record({"throttle"} if k % 50 < 30 else set(), analog)
    return rec


def test_a_script_is_put_together_from_its_stretches():
    rec = drive()
    expected = rec.script("r")
    entry, _ = rec.journal()
    rec._changes = {name: Untouchable(changes) for name, changes in rec._changes.items()}
    script = rec.script("r")
    assert script == expected
    steer = [t for t in script.tracks if t.control == "steer"]
    assert steer == [Track("steer", 0.0, tuple(round(0.01 * min(k, 40), 4) for k in range(41)))]
    assert Setting(0.6, release=("steer",)) in script.sets
    back = Recorder.from_journal(rec.head("r"), [json.loads(json.dumps(entry))])
    assert back.script("r") == expected
