"""A recovery file's edits the car refuses (a parameter it does not have, a string for a number, a gear it lacks) are
left out when the file is read, each said in a line, so that the question to restore says so before anything is
restored: they were read as they were, and the restored recording failed later, at its replay."""

from __future__ import annotations

import json
from dataclasses import replace

from workbench.runs.live import LiveSession
from workbench.runs.recovery import RecoveryStore, from_text, restore
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


LOCK_70 = 1.2217  # rad: the sedan's inner front wheel would turn 85 deg at full lock, past the 80 the car allows


def test_edits_whose_car_the_model_refuses_are_left_out_on_the_car_the_edits_before_them_made(tmp_path):
    """Each value passed its parameter's own rule, but the car they make is refused (a review: a lock whose inner
    wheel turns past 80 deg, a yaw inertia below the four-wheel floor): nothing was left out and the restored
    recording failed at its compile. Each edit is checked on the car the edits before it made."""
    text = journal(tmp_path, {"frames": 40, "sets": [[22, None, {"steering.lock": LOCK_70}],
                                                     [24, None, {"body.yaw_inertia": 50.0}],
                                                     [26, None, {"steering.lock": LOCK_70, "engine.peak_torque": 400}],
                                                     [28, None, {"body.track": 1.0}],
                                                     [30, None, {"steering.lock": LOCK_70}],
                                                     [32, None, {"gearbox.ratios": [3.0, 2.0, 1.0]}],
                                                     [34, 5, {"gearbox.ratios": [1.0] * 13}]]})
    recovery = from_text(text, "r.json")
    lock, inertia, lock_again, gear, gears = recovery.dropped
    assert "steering.lock at 0.183 s" in lock and "inner one would turn 85.04 deg" in lock
    assert "body.yaw_inertia at 0.200 s" in inertia and "below the 0.05" in inertia
    assert "steering.lock at 0.217 s" in lock_again
    assert "gear 5 at 0.283 s" in gear and "-1 (reverse) .. 3" in gear  # the gearbox the edit before it left
    assert "gearbox.ratios at 0.283 s" in gears and "13 gears" in gears
    assert all("\n" not in line for line in recovery.dropped)
    kept = [(round(s.at * 120), s.gear, s.params) for s in recovery.recording.sets[1:]]
    assert kept == [(26, None, {"engine.peak_torque": 400}), (28, None, {"body.track": 1.0}),
                    (30, None, {"steering.lock": LOCK_70}),  # on a track of 1 m the inner wheel turns 79 deg
                    (32, None, {"gearbox.ratios": [3.0, 2.0, 1.0]})]
    (result,) = replay([compile_script(recovery.recording)])  # it was refused there
    assert result.log.frames == 40


def test_unsaved_edits_are_kept_in_an_order_they_restore_in_and_those_the_car_refuses_left_out(tmp_path):
    text = journal(tmp_path, {"frames": 25, "params": {"body.lr": 3.0, "steering.lock": LOCK_70,
                                                       "body.wheelbase": 3.5}})
    recovery = from_text(text, "r.json")
    (line,) = recovery.dropped
    assert line.startswith("unsaved edit of steering.lock left out: the front wheels at full lock")
    # the axle moved back before the centre of mass (restored one at a time, lr first was refused)
    assert list(recovery.params.items()) == [("body.wheelbase", 3.5), ("body.lr", 3.0)]
    session = LiveSession("sedan")
    assert restore(session, replace(recovery, recording=None)) == []
    assert (session.params.body.wheelbase, session.params.body.lr) == (3.5, 3.0)


def test_a_drag_before_a_refused_edit_keeps_every_frame_of_it(tmp_path):
    """A drag journals an edit a frame, each made into a car and checked; the refused lock after it is left out and
    the drag kept whole."""
    drag = [[21 + k, None, {"tyres.mu": 0.8 + 0.001 * k}] for k in range(200)]
    text = journal(tmp_path, {"frames": 230, "sets": drag + [[225, None, {"steering.lock": LOCK_70}]]})
    recovery = from_text(text, "r.json")
    assert len(recovery.dropped) == 1 and "steering.lock" in recovery.dropped[0]
    assert len(recovery.recording.sets) == 1 + 200  # (its first: the edit of tyres.mu before it started)
