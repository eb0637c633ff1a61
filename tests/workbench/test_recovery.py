"""Crash recovery, headless: what is captured, that it round-trips, that bad files are refused, and orphans."""

from __future__ import annotations

import json
import os

import pytest

from workbench.runs.live import LiveSession
from workbench.runs.recovery import Recovery, RecoveryError, RecoveryStore, capture, from_text, restore
from workbench.runs.replay import replay
from workbench.scripts.program import compile_script


def drove() -> LiveSession:
    s = LiveSession("sedan")
    s.set_param("tyres.mu", 0.9)
    s.start_recording()
    for k in range(200):
        s.step({"throttle"} | ({"left"} if k > 120 else set()))
    return s


def test_nothing_to_lose_is_nothing():
    assert capture(LiveSession("sedan")) is None


def test_capture_round_trips_and_restores_bit_for_bit():
    s = drove()
    saved = capture(s, pid=123, now=1e9)
    assert saved.params == {"tyres.mu": 0.9} and saved.frames == 200 and saved.pid == 123
    back = from_text(saved.to_text(), "r.json")
    assert back.params == saved.params and back.recording.to_toml() == saved.recording.to_toml()
    fresh = LiveSession("parking")
    assert restore(fresh, back) == []
    assert fresh.preset.name == "sedan" and fresh.params.tyres.mu == 0.9 and fresh.modified
    (result,) = replay([compile_script(fresh.last_recording)])
    assert result.log.digest(result.car, 200) == s.log.digest()


def test_a_stopped_recording_never_saved_is_kept_until_it_is_saved():
    s = LiveSession("sedan")  # no unsaved edit: only the recording is at stake
    s.start_recording()
    for _ in range(200):
        s.step({"throttle"})
    s.stop_recording()
    kept = capture(s)
    assert kept is not None and kept.frames == 200 and kept.params == {}
    fresh = LiveSession("parking")
    restore(fresh, from_text(kept.to_text(), "r.json"))
    assert fresh.recording_unsaved and fresh.last_recording is not None  # closing the window will ask
    s.recording_unsaved = False  # as the window's save does
    assert capture(s) is None


def test_stopping_a_recording_of_no_frame_leaves_nothing_to_save():
    s = LiveSession("sedan")
    s.start_recording()
    s.stop_recording()
    assert not s.recording_unsaved and capture(s) is None


def test_an_edit_the_car_refuses_is_reported_not_fatal():
    s = drove()
    saved = capture(s)
    bad = Recovery(saved.preset, saved.dt, {"tyres.mu": 1e9, "engine.peak_torque": 420.0}, None)
    fresh = LiveSession("sedan")
    problems = restore(fresh, bad)
    assert len(problems) == 1 and "tyres.mu" in problems[0]
    assert fresh.params.engine.peak_torque == 420.0


@pytest.mark.parametrize("doc, words", [
    ("not json", "not a recovery file"),
    ({"format": "other"}, "not a carbench recovery file"),
    ({"format": "carbench-recovery", "version": 3}, "version 3"),
    ({"format": "carbench-recovery", "version": 1, "preset": "", "dt": 0.01}, "`preset`"),
    ({"format": "carbench-recovery", "version": 1, "preset": "sedan", "dt": 5.0}, "timestep"),
    ({"format": "carbench-recovery", "version": 1, "preset": "sedan", "dt": 0.01, "params": {"a.b": True}},
     "`params`"),
    ({"format": "carbench-recovery", "version": 1, "preset": "sedan", "dt": 0.01, "recording": 5}, "`recording`"),
    ({"format": "carbench-recovery", "version": 1, "preset": "sedan", "dt": 0.01, "saved_at": 1e300}, "`saved_at`"),
    ({"format": "carbench-recovery", "version": 1, "preset": "sedan", "dt": 0.01, "recording": "[script]\n"},
     "(recording)"),
])
def test_bad_recovery_files_are_refused_with_the_reason(doc, words):
    text = doc if isinstance(doc, str) else json.dumps(doc)
    with pytest.raises(RecoveryError) as info:
        from_text(text, "r.json")
    assert str(info.value).startswith("r.json") and words in str(info.value)


def test_orphans_are_files_of_processes_that_are_gone(tmp_path):
    saved = capture(drove())
    mine = RecoveryStore(tmp_path)
    assert mine.save(saved) and mine.path.name == f"recovery-{os.getpid()}.json"
    alive = RecoveryStore(tmp_path, pid=os.getppid())  # a running process: not an orphan
    alive.save(saved)
    gone = RecoveryStore(tmp_path, pid=999_999_999)
    gone.save(saved)
    (tmp_path / "recovery-x.json").write_text("{}")  # not ours at all: ignored
    found = RecoveryStore(tmp_path).orphans()
    assert [p.name for p, _ in found] == ["recovery-999999999.json"]
    assert isinstance(found[0][1], Recovery)
    assert oct(gone.path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())  # follows the umask


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_saving_nothing_removes_the_file(tmp_path):
    store = RecoveryStore(tmp_path)
    store.save(capture(drove()))
    assert store.path.exists()
    assert store.save(None) and not store.path.exists()


def test_a_process_killed_and_not_yet_reaped_is_gone():
    # kill(pid, 0) succeeds on a zombie: a window killed a moment before was taken as running and its file not offered.
    from workbench.runs.recovery import process_alive

    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # it has exited; not reaped: a zombie
        assert not process_alive(pid)
    finally:
        os.waitpid(pid, 0)
    assert process_alive(os.getpid())


def test_a_file_of_this_pid_from_before_this_process_is_an_orphan_and_aside_names_are_free(tmp_path):
    # pids are reused: a crashed process's file with this one's pid was skipped, then overwritten or removed unread.
    from workbench.runs.recovery import PROCESS_STARTED

    earlier = RecoveryStore(tmp_path)  # this pid
    earlier.save(capture(drove()))
    os.utime(earlier.path, (PROCESS_STARTED - 3600, PROCESS_STARTED - 3600))
    mine = RecoveryStore(tmp_path)
    assert [p for p, _ in mine.orphans()] == [mine.path]
    assert not mine.discard() and mine.path.exists()  # not this process's to remove
    # set aside twice under one name: the second did replace the first
    first = mine.set_aside(mine.path)
    earlier.save(capture(drove()))
    second = mine.set_aside(mine.path)
    assert first != second and first.exists() and second.exists()
