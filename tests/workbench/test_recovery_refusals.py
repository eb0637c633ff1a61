"""A recovery file's edits the car refuses (a parameter it does not have, a string for a number, a gear it lacks) are
left out when the file is read, each said in a line, so that the question to restore says so before anything is
restored: they were read as they were, and the restored recording failed later, at its replay."""

from __future__ import annotations

import json

from workbench.runs.live import LiveSession
from workbench.runs.recovery import RecoveryStore, from_text
from workbench.runs.replay import replay
from workbench.scripts.program import compile_script


def journal(tmp_path, line: dict) -> str:
    """The text of a sedan's journaled recording of 20 frames (tyres.mu edited first), with ``line`` appended."""
    s = LiveSession("sedan")
    s.set_param("tyres.mu", 0.9)
    s.start_recording()
    for _ in range(20):
        s.step({"throttle"})
    store = RecoveryStore(tmp_path, pid=1)
    store.keep(s)
    return store.path.read_text() + json.dumps(line) + "\n"


def test_a_journal_entry_the_car_refuses_is_left_out_with_its_reason(tmp_path):
    text = journal(tmp_path, {"frames": 30, "sets": [[22, None, {"tyres.wings": 1.0}],
                                                     [24, 2, {"tyres.mu": "x", "engine.peak_torque": 400.0}],
                                                     [26, 9, {}]]})
    recovery = from_text(text, "r.json")
    assert len(recovery.dropped) == 3
    wings, string, gear = recovery.dropped
    assert "tyres.wings" in wings and "0.183 s" in wings and "no such parameter" in wings
    assert "tyres.mu" in string and "0.200 s" in string and "expected a number, got str 'x'" in string
    assert "gear 9" in gear and "-1 (reverse) .. 6" in gear
    assert all("\n" not in line for line in recovery.dropped)
    sets = recovery.recording.sets
    assert [(s.at, s.gear, s.params) for s in sets[1:]] == [(24 / 120, 2, {"engine.peak_torque": 400.0})]
    (result,) = replay([compile_script(recovery.recording)])  # what is left replays (it was refused there)
    assert result.log.frames == 30


def test_unsaved_edits_the_car_refuses_are_left_out_and_the_rest_kept(tmp_path):
    text = journal(tmp_path, {"frames": 25, "params": {"tyres.mu": 0.9, "aero.wings": 2.0, "body.mass": "heavy"}})
    recovery = from_text(text, "r.json")
    assert recovery.params == {"tyres.mu": 0.9}
    assert len(recovery.dropped) == 2 and "aero.wings" in recovery.dropped[0] and "body.mass" in recovery.dropped[1]


def test_a_file_the_car_takes_whole_leaves_nothing_out(tmp_path):
    recovery = from_text(journal(tmp_path, {"frames": 25, "sets": [[21, 3, {"engine.peak_torque": 410}]]}), "r.json")
    assert recovery.dropped == () and recovery.recording.sets[-1].params == {"engine.peak_torque": 410}
