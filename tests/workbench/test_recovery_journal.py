"""The recovery file journals a running recording: each save appends what was recorded since the last one.

What a crash leaves must be the recording bit for bit as it was at the last save, and a save must not
rebuild the whole recording (that froze the window for most of a second every 3 s after half an hour).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from physics import ANALOG, KEYS
from physics.presets import load_preset
from workbench.runs.live import LiveSession
from workbench.runs.recovery import RecoveryError, RecoveryStore, capture, from_text
from workbench.runs.replay import replay
from workbench.scripts.format import Script
from workbench.scripts.program import compile_script
from workbench.scripts.recorder import Recorder


def drive(s: LiveSession, frames: int, start: int = 0) -> None:
    for k in range(start, start + frames):
        keys = {"throttle"} | ({"left"} if (k // 40) % 2 else set())
        s.step(keys, {"steer": ((k * 7) % 50 - 25) / 50.0} if (k // 30) % 3 == 0 else None)


def journaled(tmp_path, frames: int) -> tuple[LiveSession, RecoveryStore]:
    """A sedan recording ``frames`` frames, and a store that has saved it once."""
    s = LiveSession("sedan")
    s.start_recording()
    drive(s, frames)
    store = RecoveryStore(tmp_path, pid=1)
    store.keep(s)
    return s, store


def recorded(store: RecoveryStore):
    return from_text(store.path.read_text(), str(store.path))


def test_saves_append_what_was_recorded_since_and_restore_bit_for_bit(tmp_path):
    s = LiveSession("sedan")
    s.set_param("tyres.mu", 0.95)
    s.start_recording()
    store = RecoveryStore(tmp_path, pid=1)
    drive(s, 300)
    assert store.keep(s)
    first = store.path.read_bytes()
    for part in range(3):
        drive(s, 97, 300 + 97 * part)
        if part == 1:
            s.set_param("engine.peak_torque", 333.0)  # an edit as the car drives: in the recording and the edits
        assert store.keep(s)
        now = store.path.read_bytes()
        assert now.startswith(first) and now.count(b"\n") == first.count(b"\n") + 1  # one line added, none rewritten
        first = now
        back = recorded(store)
        assert back.recording.to_toml() == capture(s).recording.to_toml()
    assert back.params == {"tyres.mu": 0.95, "engine.peak_torque": 333.0}
    assert not store.keep(s)  # nothing new: nothing written
    (result,) = replay([compile_script(back.recording)])
    assert result.log.digest(result.car, s.log.frames) == s.log.digest()


def test_a_save_does_not_rebuild_the_recording(tmp_path, monkeypatch):
    s = LiveSession("sedan")
    s.start_recording()
    drive(s, 200)
    store = RecoveryStore(tmp_path, pid=1)
    store.keep(s)  # the first save writes the head and the entries so far

    def rebuilt(*args, **kwargs):
        raise AssertionError("a save rebuilt the whole recording")

    monkeypatch.setattr(Recorder, "script", rebuilt)
    monkeypatch.setattr(Script, "to_toml", rebuilt)
    for part in range(3):
        drive(s, 50, 200 + 50 * part)
        assert store.keep(s)
    monkeypatch.undo()
    assert recorded(store).recording.to_toml() == capture(s).recording.to_toml()


def test_stopping_goes_on_in_the_journal_and_a_new_recording_starts_a_new_file(tmp_path):
    s, store = journaled(tmp_path, 150)
    before = store.path.read_bytes()
    drive(s, 20, 150)
    s.stop_recording("mine")
    assert store.keep(s)
    assert store.path.read_bytes().startswith(before)  # the stopped recording's last frames, appended
    assert recorded(store).recording.to_toml() == capture(s).recording.to_toml()
    assert recorded(store).frames == 170
    s.recording_unsaved = False  # saved, as the window's save does
    assert store.keep(s) and not store.path.exists()
    s.start_recording()
    drive(s, 30)
    assert store.keep(s)
    assert recorded(store).frames == 30


@pytest.mark.parametrize("change", ["truncate", "empty", "replace"])
def test_a_file_changed_by_another_program_is_written_whole_again(tmp_path, change):
    """Truncated (or emptied, or replaced) by another program while the car is recorded, the file got the next line
    appended after a cut line (or with no head): the next start skipped it as unreadable, and the drive was lost. It
    is written whole when it is not as the journal left it."""
    s, store = journaled(tmp_path, 150)
    text = store.path.read_text()
    if change == "truncate":
        store.path.write_text(text[: len(text) // 2])
    elif change == "empty":
        store.path.write_text("")
    else:  # another file put in its place, as long as it was
        other = tmp_path / "other"
        other.write_text("x" * len(text))
        other.replace(store.path)
    drive(s, 40, 150)
    assert store.keep(s)
    assert recorded(store).recording.to_toml() == capture(s).recording.to_toml()
    drive(s, 30, 190)
    before = store.path.read_bytes()
    assert store.keep(s) and store.path.read_bytes().startswith(before)  # and journaled again from there
    assert recorded(store).recording.to_toml() == capture(s).recording.to_toml()


def test_a_line_cut_short_by_a_crash_leaves_the_saves_before_it(tmp_path):
    s, store = journaled(tmp_path, 120)
    at_first_save = capture(s).recording.to_toml()
    drive(s, 80, 120)
    store.keep(s)
    text = store.path.read_text()
    cut = text[:-1][: len(text) - 1 - len(text[:-1].rsplit("\n", 1)[1]) // 2]  # half of the last line, no newline
    back = from_text(cut, "r.json")
    assert back.recording.to_toml() == at_first_save


def test_a_restored_recording_is_not_written_again_while_it_is_unchanged(tmp_path, monkeypatch):
    s = LiveSession("sedan")
    s.start_recording()
    drive(s, 100)
    kept = capture(s)
    fresh = LiveSession("sedan")
    fresh.last_recording, fresh.recording_unsaved = kept.recording, True  # as restore() leaves it
    store = RecoveryStore(tmp_path, pid=1)
    assert store.keep(fresh)
    calls = []
    original = Script.to_toml
    monkeypatch.setattr(Script, "to_toml", lambda self: calls.append(1) or original(self))
    assert not store.keep(fresh) and not calls
    fresh.set_param("tyres.mu", 0.8)
    assert store.keep(fresh) and recorded(store).params == {"tyres.mu": 0.8}


def test_a_file_of_its_head_alone_or_of_nothing():
    head = json.dumps({"format": "carbench-recovery", "version": 2, "pid": 1, "preset": "sedan", "dt": 0.01})
    assert from_text(head + "\n", "r.json").recording is None  # read as a file of one line, not refused
    with pytest.raises(RecoveryError, match="empty"):
        from_text("", "r.json")


@pytest.mark.parametrize("line, words", [
    ('{"frames": 10}', "no `recorder` line"),
    ('{"recorder": "[script]\\nname = 1\\n"}', "(recording)"),
    ('{"recorder": "[script]\\nname = \\"r\\"\\npreset = \\"sedan\\"\\nduration = 1.0\\ndt = 0.01\\n"}\n'
     '{"frames": 5}', "no [recorded] stamp"),
])
def test_bad_journal_lines_are_refused_with_the_reason(line, words):
    head = json.dumps({"format": "carbench-recovery", "version": 2, "pid": 1, "preset": "sedan", "dt": 0.01})
    with pytest.raises(RecoveryError) as info:
        from_text(f"{head}\n{line}\n", "r.json")
    assert str(info.value).startswith("r.json") and words in str(info.value)


@pytest.mark.parametrize("entry, words", [
    ({"frames": -1}, "not a frame"),
    ({"frames": 5}, "goes back from 10"),
    ({"frames": 20, "holds": [[0, 99, "throttle"]]}, "not a frame"),
    ({"frames": 20, "holds": [[0, 2, "jump"]]}, "a hold must be"),
    ({"frames": 20, "sets": [[0, True, {}]]}, "a set must be"),
    ({"frames": 20, "changes": {"wings": [[0, 1.0]]}}, "`changes`"),
    ({"frames": 20, "changes": {"steer": [[0, "left"]]}}, "a change of steer"),
    ({"frames": 20, "runs": {"jump": 0}}, "`runs`"),
    ({"frames": 20, "changes": {"steer": [[3, float("nan")]]}}, "a finite value"),
    ({"frames": 20, "changes": {"steer": [[3, 10 ** 400]]}}, "a finite value"),
    ({"frames": 20, "sets": [[3, None, {"tyres.mu": None}]]}, "a set must be"),
    ({"frames": 20, "sets": [[3, 10 ** 400, {}]]}, "a set must be"),
    ({"frames": 20, "odd": 1}, "not an entry"),
])
def test_bad_entries_are_refused_with_the_entry(tmp_path, entry, words):
    s, store = journaled(tmp_path, 10)
    text = store.path.read_text() + json.dumps(entry) + "\n"  # NaN as JSON writes it
    with pytest.raises(RecoveryError) as info:
        from_text(text, "r.json")
    assert "entry 2" in str(info.value) and words in str(info.value)


MANUAL = load_preset("manual003")
FRAME = st.fixed_dictionaries({
    "keys": st.sets(st.sampled_from(KEYS)),
    "analog": st.dictionaries(st.sampled_from(ANALOG), st.floats(-1, 1, allow_nan=False), max_size=2),
    "gear": st.none() | st.integers(-1, 5),
    "params": st.none() | st.fixed_dictionaries({"tyres.mu": st.floats(0.3, 1.2)}),
    "save": st.booleans(),
    "repeat": st.integers(1, 12),
})


@settings(max_examples=60, deadline=None)
@given(st.lists(FRAME, min_size=1, max_size=30))
def test_a_journal_is_the_recording_whatever_was_recorded_and_whenever_it_was_saved(frames):
    rec = Recorder("manual003", 0.01, MANUAL.params)
    entries, mark = [], None
    for frame in frames:
        for i in range(frame["repeat"]):
            first = i == 0
            rec.record(frame["keys"], frame["analog"], frame["gear"] if first else None,
                       frame["params"] if first else None)
        if frame["save"]:
            entry, mark = rec.journal(mark)
            entries.append(json.loads(json.dumps(entry)))
    entry, mark = rec.journal(mark)
    entries.append(json.loads(json.dumps(entry)))
    back = Recorder.from_journal(rec.head("r"), entries)
    assert back.script("r").to_toml() == rec.script("r").to_toml()


def test_a_failed_append_is_followed_by_a_whole_file(tmp_path, monkeypatch):
    # A full disk can leave part of a line in the file: appending after it would make a line no reader takes.
    s, store = journaled(tmp_path, 100)
    drive(s, 50, 100)
    real_open = open

    def full(path, mode="r", *args, **kwargs):
        if "a" in mode:
            handle = real_open(path, mode, *args, **kwargs)
            handle.write('{"frames": 1')  # part of a line, then the disk is full
            handle.close()
            raise OSError(28, "No space left on device")
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", full)
    with pytest.raises(OSError):
        store.keep(s)
    monkeypatch.undo()
    drive(s, 50, 150)
    assert store.keep(s)
    assert recorded(store).recording.to_toml() == capture(s).recording.to_toml()


def test_a_file_that_cannot_be_removed_at_a_clean_exit_is_left_without_an_error(tmp_path, monkeypatch):
    s, store = journaled(tmp_path, 20)

    def read_only(self, *args, **kwargs):
        raise OSError(30, "Read-only file system", str(self))

    monkeypatch.setattr(type(store.path), "unlink", read_only)
    assert not store.discard() and store.path.exists()
