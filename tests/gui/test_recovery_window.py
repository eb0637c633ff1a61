"""Crash recovery in the window: a window killed while recording is restored, recording and edits, in a new one."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workbench.gui.recovery import RecoveryKeeper, offer_restore
from workbench.runs.recovery import RecoveryStore
from workbench.runs.replay import replay
from workbench.scripts.program import compile_script

REPO = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import sys, time
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from workbench.gui.recovery import RecoveryKeeper
    from workbench.gui.testing import make_window
    from workbench.runs.recovery import RecoveryStore
    folder = sys.argv[1]
    window = make_window("sedan", QSettings(folder + "/settings.ini", QSettings.Format.IniFormat))
    window.show()
    keeper = RecoveryKeeper(window, RecoveryStore(folder), interval=0.05)
    m = window.model
    m.set_param("engine.peak_torque", 400.0)  # an unsaved edit
    m.start_recording()
    m.press("throttle"); m.advance(150); m.press("left"); m.advance(90); m.release("throttle"); m.advance(60)
    while not keeper.store.path.exists():  # the keeper's timer saves on its own
        app.processEvents()
        time.sleep(0.01)
    s = m.session
    print(s.log.digest(), s.log.frames, flush=True)
    time.sleep(600)  # killed long before
""")


def read_line(proc: subprocess.Popen, timeout: float = 120.0) -> str:
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "the child window never saved its recovery file"
    return proc.stdout.readline()


def test_a_killed_window_is_restored_in_a_new_one(carbench_window, tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=REPO, env=env)
    try:
        line = read_line(proc)
        assert line, proc.stderr.read()
        digest, frames = line.split()
        os.kill(proc.pid, signal.SIGKILL)  # no clean exit: the file stays
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    orphan = tmp_path / f"recovery-{proc.pid}.json"
    assert proc.returncode == -signal.SIGKILL and orphan.is_file()

    asked = []
    restored = offer_restore(carbench_window, RecoveryStore(tmp_path), ask=lambda r: asked.append(r) or True)
    assert restored is not None and asked == [restored]
    assert not orphan.exists()  # offered once
    session = carbench_window.model.session
    assert session.params.engine.peak_torque == 400.0 and session.modified  # the unsaved edit is back
    recording = session.last_recording
    assert recording is not None and recording.preset == "sedan" and restored.frames == int(frames)
    assert session.program is not None and session.program.name == recording.name  # ready to replay or save
    (result,) = replay([compile_script(recording)])
    assert result.log.digest(result.car, int(frames)) == digest  # the same drive, bit for bit


def test_declining_removes_the_offer(carbench_window, tmp_path):
    store = RecoveryStore(tmp_path, pid=999_999_999)  # a process that does not exist
    carbench_window.model.set_param("engine.peak_torque", 410.0)
    keeper = RecoveryKeeper(carbench_window, store)
    assert keeper.save_now() and store.path.exists()
    keeper.timer.stop()
    carbench_window.model.reset_params()
    assert offer_restore(carbench_window, RecoveryStore(tmp_path), ask=lambda r: False) is None
    assert not store.path.exists()
    assert not carbench_window.model.session.modified


def test_nothing_to_lose_writes_no_file_and_a_clean_exit_removes_it(carbench_window, tmp_path):
    keeper = RecoveryKeeper(carbench_window, RecoveryStore(tmp_path))
    keeper.timer.stop()
    assert not keeper.save_now() and list(tmp_path.iterdir()) == []
    carbench_window.model.start_recording()
    carbench_window.model.advance(10)
    assert keeper.save_now() and keeper.store.path.exists()
    assert not keeper.save_now()  # nothing changed: not written again
    keeper.discard()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text", ["{", '{"format": "carbench-recovery", "version": 99}', "[]"])
def test_an_unreadable_orphan_is_skipped_and_removed(carbench_window, tmp_path, text):
    orphan = tmp_path / "recovery-999999998.json"
    orphan.write_text(text, encoding="utf-8")
    assert offer_restore(carbench_window, RecoveryStore(tmp_path), ask=lambda r: True) is None
    assert not orphan.exists()
    assert "recovery file skipped" in carbench_window.status_message.toolTip()  # the whole message (elided on show)


def test_a_damaged_journal_never_stops_the_window_from_starting(carbench_window, tmp_path):
    # An entry with a NaN (or a number too large for a float) raised out of the reader, the offer and the window's
    # start, at every start (the file stayed).
    s = carbench_window.model.session
    carbench_window.model.start_recording()
    carbench_window.model.advance(20)
    store = RecoveryStore(tmp_path, pid=999_999_997)
    store.keep(s)
    with open(store.path, "a", encoding="utf-8") as handle:
        handle.write('{"frames": 20, "changes": {"steer": [[3, NaN]]}}\n')
    assert offer_restore(carbench_window, RecoveryStore(tmp_path), ask=lambda r: True) is None
    assert not store.path.exists() and "recovery file skipped" in carbench_window.status_message.toolTip()


def test_an_orphan_too_large_to_read_is_kept_aside_not_removed(carbench_window, tmp_path, monkeypatch):
    # It may hold a whole drive: it was removed as unreadable.
    import workbench.runs.recovery as recovery

    orphan = RecoveryStore(tmp_path, pid=999_999_996)
    carbench_window.model.start_recording()
    carbench_window.model.advance(200)
    orphan.keep(carbench_window.model.session)
    size = orphan.path.stat().st_size
    monkeypatch.setattr(recovery, "MAX_RECOVERY_BYTES", size - 1)
    assert offer_restore(carbench_window, RecoveryStore(tmp_path), ask=lambda r: True) is None
    kept = tmp_path / f"{orphan.path.name}.kept"
    assert not orphan.path.exists() and kept.stat().st_size == size
    assert f"kept as {kept}" in carbench_window.status_message.toolTip()
    assert RecoveryStore(tmp_path).orphans() == []  # not offered again


def test_a_file_that_cannot_be_removed_does_not_end_the_start(carbench_window, tmp_path, monkeypatch):
    # A read-only recovery folder: removing an unreadable file raised out of the offer, and the window closed at every
    # start.
    orphan = tmp_path / "recovery-999999995.json"
    orphan.write_text("{", encoding="utf-8")
    real_unlink = Path.unlink

    def read_only(self, *args, **kwargs):
        if self.parent == tmp_path:
            raise OSError(30, "Read-only file system", str(self))
        return real_unlink(self, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", read_only)
    assert offer_restore(carbench_window, RecoveryStore(tmp_path), ask=lambda r: True) is None
    said = carbench_window.status_message.toolTip()
    assert "recovery file skipped" in said and f"could not remove the recovery file {orphan}: Read-only" in said


def test_what_is_restored_is_in_this_windows_own_file_before_the_crashed_ones_is_removed(carbench_window, tmp_path):
    # The crashed window's file was removed at once and this one's written at the keeper's first tick, 3 s later: a
    # crash in between lost the drive. And of two windows that crashed together one was offered, the other removed.
    for pid, frames in ((999_999_994, 120), (999_999_993, 60)):
        other = carbench_window.model
        other.start_recording()
        other.advance(frames)
        RecoveryStore(tmp_path, pid=pid).keep(other.session)
        other.stop_recording()
        other.session.recording_unsaved = False
    older = tmp_path / "recovery-999999994.json"
    os.utime(older, (1.0, 1.0))  # the other window's, saved before
    mine = RecoveryStore(tmp_path)
    restored = offer_restore(carbench_window, mine, ask=lambda r: True)
    assert restored is not None and restored.frames == 60
    assert mine.path.exists() and not (tmp_path / "recovery-999999993.json").exists()
    assert older.exists() and "1 more recovery file of other windows kept" in carbench_window.status_message.toolTip()
    assert [p.name for p, _ in RecoveryStore(tmp_path).orphans()] == [older.name]  # offered at the next start


def test_while_saves_fail_the_status_bar_says_so_until_one_succeeds(carbench_window, tmp_path, monkeypatch):
    # The failure was said once for 8 s; after that nothing showed that a crash would lose the drive.
    keeper = RecoveryKeeper(carbench_window, RecoveryStore(tmp_path))
    keeper.timer.stop()
    carbench_window.model.start_recording()
    carbench_window.model.advance(10)

    def full(session, now=None):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(keeper.store, "keep", full)
    assert not keeper.save_now() and not keeper.save_now()
    assert keeper.failing.isVisibleTo(carbench_window) and "No space left on device" in keeper.failing.toolTip()
    monkeypatch.undo()
    assert keeper.save_now() and not keeper.failing.isVisibleTo(carbench_window)
    keeper.discard()


def test_an_orphan_restored_while_this_window_could_not_keep_its_own_goes_once_it_can(carbench_window, tmp_path):
    """A full disk: the recording restored, this window's own file not written, the orphan kept (right). The disk
    freed, the window's own file written, the recording saved: the orphan stayed, and the next start offered the
    recording again."""
    from workbench.gui.testing import hold

    window = carbench_window
    crashed = RecoveryStore(tmp_path, pid=999_999_998)  # a process that does not exist
    window.model.start_recording()
    hold(window, {"throttle"}, 60)
    window.model.stop_recording()
    assert crashed.keep(window.model.session) and crashed.path.exists()
    window.model.session.recording_unsaved = False  # (that window is gone; this one restores it)
    store = RecoveryStore(tmp_path)
    full = OSError(28, "No space left on device")

    def no_room(session, now=None):
        raise full

    keep = store.keep
    store.keep = no_room
    assert offer_restore(window, store, ask=lambda r: True) is not None
    assert crashed.path.exists() and store.superseded == [crashed.path]  # kept: this window keeps nothing yet
    store.keep = keep  # room again: this window keeps the recording, and the one it restored goes
    assert store.keep(window.model.session) and store.path.exists()
    assert not crashed.path.exists() and store.superseded == []
    path = tmp_path / "saved.toml"
    assert window.save_recording(path)
    store.keep(window.model.session)  # nothing at stake: this window's file goes too
    assert not store.path.exists() and [p for p, _ in RecoveryStore(tmp_path).orphans()] == []
