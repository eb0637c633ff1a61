"""Driving on from a past frame: the state of frame k restored bit for bit, the future kept as a run,
and the recording of frames 0..k-1 plus what came after replays exactly what was seen."""

from __future__ import annotations

import numpy as np

from physics.presets import scripts_dir
from workbench.runs.live import LiveSession
from workbench.runs.replay import replay
from workbench.scripts.program import compile_script


def drive(session: LiveSession, frames: int, pattern) -> None:
    for _ in range(frames):
        session.step(pattern(session.frame))


def weave(k: int) -> set[str]:
    keys = {"throttle"} if k % 97 < 80 else {"brake"}
    if (k // 40) % 3 == 1:
        keys.add("left")
    return keys


def replays_as_seen(session: LiveSession, frames: int) -> None:
    script = session.stop_recording("drive on")
    program = compile_script(script, dt=script.dt)
    assert program.frames == frames  # a recording replays the frames driven ([script] frames), no more
    (result,) = replay([program])
    assert np.array_equal(result.log.matrix(0, frames), session.log.matrix(frames=frames))


def test_drive_on_from_frame_100_of_300():
    session = LiveSession("sedan")
    drive(session, 50, weave)
    session.set_param("engine.peak_torque", 420.0)
    drive(session, 250, weave)
    original = session.log.matrix().copy()
    past = session.drive_from(100)
    assert past.frames == 300 and np.array_equal(np.column_stack(list(past.data.values())), original)
    assert session.frame == 100 and session.log.frames == 100
    assert np.array_equal(session.log.matrix(), original[:100])
    assert session.params.engine.peak_torque == 420.0  # the edit at frame 50 is part of the kept past
    drive(session, 100, lambda k: {"brake", "right"})
    assert not np.array_equal(session.log.matrix()[100:], original[100:200])
    replays_as_seen(session, 200)


def test_the_future_edit_is_discarded_with_the_future():
    session = LiveSession("sedan")
    drive(session, 150, weave)
    session.set_param("body.mass", 1800.0)
    drive(session, 50, weave)
    session.drive_from(120)
    assert session.params.body.mass == session.preset.params.body.mass
    drive(session, 30, weave)
    replays_as_seen(session, 150)


def test_drive_on_from_a_replayed_script():
    session = LiveSession("sedan")
    session.load_script(scripts_dir() / "launch_shift.toml")
    session.start_replay()
    drive(session, 900, lambda k: set())  # the script drives: 1st gear, the 1-2 shift at 6.5 s
    seen = session.log.matrix().copy()
    past = session.drive_from(820)
    assert past.verdicts is not None and not session.replaying
    assert np.array_equal(session.log.matrix(), seen[:820])
    drive(session, 60, lambda k: {"clutch", "brake"})
    replays_as_seen(session, 880)


def test_drive_from_the_present_discards_nothing():
    session = LiveSession("teaching")
    drive(session, 20, weave)
    assert session.drive_from(20) is None and session.frame == 20


def test_a_replay_made_elsewhere_becomes_the_history_and_drives_on():
    from workbench.scripts.format import load_script

    session = LiveSession("sedan")
    session.load_script(scripts_dir() / "clutch_coast.toml")
    program = compile_script(load_script(scripts_dir() / "clutch_coast.toml"))
    (result,) = replay([program])
    session.adopt_replay(result)
    assert session.frame == program.frames and session.replayed
    assert np.array_equal(session.log.matrix(), result.log.matrix(0, program.frames))
    assert all(v is not None and v.passed == w.passed for v, w in zip(session.verdicts(), result.verdicts,
                                                                         strict=True))
    # stepping on continues from the exact end state: the same as a session that replayed it itself
    own = LiveSession("sedan")
    own.load_script(scripts_dir() / "clutch_coast.toml")
    own.start_replay()
    while own.replaying:
        own.step()
    for s in (session, own):
        drive(s, 30, lambda k: {"throttle"})
    assert np.array_equal(session.log.matrix(), own.log.matrix())
    # and it drives on from any of its frames
    session.drive_from(400)
    drive(session, 40, lambda k: {"brake"})
    replays_as_seen(session, 440)


def test_drive_on_from_a_kept_state_is_the_same_as_from_rest():
    from workbench.runs.live import SNAPSHOT_EVERY

    sessions = [LiveSession("sedan"), LiveSession("sedan")]
    for session in sessions:
        drive(session, 700, weave)
        session.set_param("engine.peak_torque", 410.0)
        drive(session, 2 * SNAPSHOT_EVERY, weave)
    quick, slow = sessions
    slow._snapshots.clear()  # this one has to re-simulate from rest
    frame = 2 * SNAPSHOT_EVERY + 77
    quick.drive_from(frame)
    slow.drive_from(frame)
    assert quick.restored_from == 2 * SNAPSHOT_EVERY and slow.restored_from == 0
    for session in sessions:
        drive(session, 150, lambda k: {"brake", "left"})
    assert np.array_equal(quick.log.matrix(), slow.log.matrix())
    replays_as_seen(quick, frame + 150)


def test_driving_on_from_a_driven_scripts_replay_records_its_driver_up_to_the_hand_over():
    """The recording of driving on from a replay of a script with a closed-loop driver ([driver]) left the driver
    out: its inputs are made inside the simulation, in no key or track, and the recording replayed a car that stood
    still where the window's had driven its circle at 23 km/h. It now writes the driver with hand_over where the
    keys took over, and replays what was seen; a second drive-on later keeps the first hand-over."""
    from dataclasses import replace

    from workbench.scripts.format import load_script, parse_script

    for name in ("iso4138_circle", "split_mu_braking", "iso7401_step"):
        script = load_script(scripts_dir() / f"{name}.toml")
        script = replace(script, duration=min(script.duration, 16.0), expects=(), measures=())
        (result,) = replay([compile_script(script)])
        session = LiveSession(result.program.preset)
        session.adopt_replay(result)
        session.drive_from(900)
        drive(session, 120, lambda k: {"brake", "left"} if k % 50 < 30 else {"throttle"})
        if name == "iso4138_circle":  # driving on again, later: the driver stays let go at frame 900
            session.drive_from(1000)
            drive(session, 60, lambda k: {"throttle", "right"})
            frames = 1060
        else:
            frames = 1020
        recording = session.stop_recording("drive on")
        assert recording.driver is not None and recording.driver.hand_over == (900 - 0.5) * session.dt
        again = parse_script(recording.to_toml(), "again.toml")  # through the file format too
        assert again.driver.hand_over == recording.driver.hand_over
        (replayed,) = replay([compile_script(again, dt=again.dt)])
        assert np.array_equal(replayed.log.matrix(0, frames), session.log.matrix(frames=frames)), name
