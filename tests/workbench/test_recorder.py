"""The recorder: a live session (random keys, analog overrides, gear selections, parameter edits while
driving, an edited starting parameter) written as a script replays bit for bit (SPEC 4)."""

from __future__ import annotations

import os
import tomllib

import numpy as np
import pytest

from physics import ANALOG, KEYS, Inputs, Simulation, load_preset
from workbench.output.telemetry_log import TelemetryLog
from workbench.runs.replay import replay
from workbench.scripts.format import Expect, Hold, Script, Setting, load_script, parse_script
from workbench.scripts.program import compile_script, frame_of
from workbench.scripts.recorder import Recorder, params_diff

SEDAN_EDITS = {
    150: {"engine.peak_torque": 420.0},
    300: {"tyres.mu": 0.85, "steering.rate": 2.0},  # two edits on one frame
    451: {"engine.peak_torque": 300},  # an int, as a spin box might give
    600: {"clutch.capacity": 450.5, "aero.cd": 0.31},
    800: {"tyres.mu": 1.05},
}
PARKING_EDITS = {
    100: {"drive.force": 300000.0},
    250: {"steering.lock": 0.4, "brakes.handbrake_speed": 60.0},
}


# how likely each key is held after each change; a drive that gets going and turns
HOLD_CHANCE = {"throttle": 0.85, "brake": 0.08, "left": 0.35, "right": 0.3, "clutch": 0.15, "handbrake": 0.05,
               "gear_up": 0.1, "gear_down": 0.03}


class Live:
    """What a live session did, frame by frame, and what it measured."""

    def __init__(self, preset, dt, start_edit, edits, seed, frames, gears=False, warmup=0):
        base = load_preset(preset).params
        start = base.with_values(start_edit)
        self.sim = Simulation(start, dt=dt)
        self.recorder = Recorder(preset, dt, base, start)
        self.log = TelemetryLog(start.model.unit, 1, capacity=16)  # grows while driving
        self.frames = frames
        self.keys = np.zeros((frames, len(KEYS)), dtype=bool)
        self.analog_on = np.zeros((frames, len(ANALOG)), dtype=bool)
        self.analog_value = np.zeros((frames, len(ANALOG)))
        self.gear_on = np.zeros(frames, dtype=bool)
        rng = np.random.default_rng(seed)
        held: set[str] = set()
        analog: dict[str, float] = {}
        change_at = 0
        for k in range(frames):
            if k == change_at:  # the driver changes what they hold every few frames
                held = {key for key in HOLD_CHANCE if rng.random() < HOLD_CHANCE[key]}
                if k < warmup:  # get going first: throttle, steering by key or override
                    held = {"throttle"} | (held & {"left", "right"})
                if rng.random() < 0.3:
                    name = "steer" if k < warmup else ANALOG[int(rng.choice(len(ANALOG), p=[0.6, 0.3, 0.05, 0.05]))]
                    lo = -1.0 if name == "steer" else 0.0
                    analog[name] = float(rng.uniform(lo, 1.0))
                if analog and rng.random() < 0.4:
                    analog.pop(sorted(analog)[0])
                change_at = k + int(rng.integers(1, 40))
            gear = int(rng.choice([-1, 0, 1, 2, 3, 5])) if gears and k >= warmup and rng.random() < 0.005 else None
            params = edits.get(k)
            if params:
                for path, value in params.items():
                    self.sim.set_param(path, value)
            self.recorder.record(held, dict(analog), gear, params)
            for key in held:
                self.keys[k, KEYS.index(key)] = True
            for name, value in analog.items():
                self.analog_on[k, ANALOG.index(name)] = True
                self.analog_value[k, ANALOG.index(name)] = value
            extra = {} if gear is None else {"gear": gear}
            self.gear_on[k] = gear is not None
            self.log.record(self.sim.step(Inputs.from_keys(1, held, **analog, **extra)))


@pytest.fixture(scope="module")
def sedan_live():
    """003's car (manual003): its simple rules make the random drive cover both low-speed regimes."""
    return Live("manual003", 1 / 120, {"engine.peak_torque": 380.0, "body.mass": 1250.0}, SEDAN_EDITS, seed=3,
                frames=900, gears=True, warmup=420)


@pytest.fixture(scope="module")
def grip_live():
    """The sedan on the combined model (wheel speeds, the start key, stalls) driven at random."""
    return Live("sedan", 1 / 120, {"engine.peak_torque": 420.0, "body.mass": 1650.0}, SEDAN_EDITS, seed=5,
                frames=900, gears=True, warmup=420)


def test_the_random_drive_covers_the_model(sedan_live, parking_live):
    c = sedan_live.log.column
    assert c("speed_kmh").max() > 30
    assert (c("kinematic_weight") == 0).sum() > 100 and (c("kinematic_weight") == 1).sum() > 100  # both regimes
    assert c("wheelspin").any() and c("handbrake").any() and c("brake").any()
    assert len(set(c("gear"))) >= 3 and sedan_live.gear_on.sum() >= 2
    assert sedan_live.analog_on.any(axis=0).sum() >= 2
    p = parking_live.log.column
    assert p("speed").max() > 100 and p("speed").min() < -10 and p("handbrake").any()
    assert parking_live.analog_on.any(axis=0).sum() >= 2


@pytest.fixture(scope="module")
def parking_live():
    return Live("parking", 1 / 60, {"body.wheelbase": 44.0}, PARKING_EDITS, seed=15, frames=400)


def round_trip(live: Live):
    script = live.recorder.script("recorded")
    text = script.to_toml()
    parsed = parse_script(text, "<recorded>")
    program = compile_script(parsed)
    (result,) = replay([program])
    return script, text, parsed, program, result


@pytest.mark.parametrize("which", ["sedan_live", "parking_live", "grip_live"])
def test_recording_replays_bit_for_bit(which, request):
    live: Live = request.getfixturevalue(which)
    assert live.log.frames == live.frames
    script, text, parsed, program, result = round_trip(live)
    assert parsed == Script(**{**script.__dict__, "source": "<recorded>"})
    assert program.frames == live.frames  # the frames driven, no more (the state at t = duration was not driven)
    differing = [name for name in live.log.names
                 if not np.array_equal(result.column(name)[:live.frames], live.log.column(name))]
    assert not differing, differing
    assert result.log.digest(result.car, live.frames) == live.log.digest()
    assert result.log.csv_text(result.car, live.frames) == live.log.csv_text()


@pytest.mark.parametrize("which", ["sedan_live", "parking_live", "grip_live"])
def test_recorded_inputs_are_frame_exact(which, request):
    live: Live = request.getfixturevalue(which)
    _, _, parsed, program, _ = round_trip(live)
    n = live.frames
    held = live.keys.copy()
    if program.params.gearbox is None:  # gear keys do nothing there and are not recorded
        assert held[:, [KEYS.index("gear_up"), KEYS.index("gear_down")]].any()
        held[:, [KEYS.index("gear_up"), KEYS.index("gear_down")]] = False
    assert np.array_equal(program.keys[:n], held)
    assert not program.keys[n:].any()
    assert np.array_equal(program.analog_on[:n], live.analog_on)
    assert np.array_equal(np.where(live.analog_on, program.analog_value[:n], 0.0), live.analog_value)
    assert np.array_equal(program.gear_on[:n], live.gear_on)
    for hold in parsed.holds:  # every hold starts and ends on a frame boundary
        for t in (hold.start, hold.end):
            assert t == frame_of(t, live.sim.dt) * live.sim.dt


def test_recording_has_the_edits_and_the_starting_params(sedan_live):
    script, text, parsed, program, _ = round_trip(sedan_live)
    base = load_preset("manual003").params
    assert program.params == base.with_values({"engine.peak_torque": 380.0, "body.mass": 1250.0})
    assert [k for k, _ in program.param_changes] == sorted(SEDAN_EDITS)
    assert program.param_changes[-1][1] == sedan_live.sim.cars[0]
    assert script.sets[0] == Setting(0.0, params={"engine.peak_torque": 380.0, "body.mass": 1250.0})
    assert script.dt == 1 / 120 and script.duration == 900 / 120 and script.preset == "manual003"
    doc = tomllib.loads(text)
    assert list(doc)[0] == "script"
    edits = [s["params"] for s in doc["set"] if "params" in s]
    assert edits[1:] == [SEDAN_EDITS[k] for k in sorted(SEDAN_EDITS)]


def test_recording_saved_and_loaded_replays_the_same(sedan_live, tmp_path):
    path = sedan_live.recorder.script("saved", description="a random drive").save(tmp_path / "rec.toml")
    program = compile_script(load_script(path))
    (result,) = replay([program])
    assert result.log.digest(0, sedan_live.frames) == sedan_live.log.digest()


def test_recording_with_expectations_is_judged(parking_live):
    speed = parking_live.log.column("speed")
    expect = Expect("speed", start=0.0, end=parking_live.frames / 60, min=float(speed.min()),
                    max=float(speed.max()), name="recorded range")
    script = parking_live.recorder.script("judged", expects=[expect])
    (result,) = replay([compile_script(parse_script(script.to_toml(), "<judged>"))])
    (verdict,) = result.verdicts
    assert verdict.passed and verdict.measured in (speed.min(), speed.max())
    tighter = Expect("speed", start=0.0, end=parking_live.frames / 60, max=float(speed.max()) - 1e-9)
    script = parking_live.recorder.script("judged", expects=[tighter])
    assert not replay([compile_script(script)])[0].passed


def test_recorder_holds_and_sets_by_hand():
    dt = 0.01
    rec = Recorder("sedan", dt, load_preset("sedan").params)
    timeline = [({"throttle"}, {}, None), ({"throttle", "left"}, {}, None), ({"left"}, {"steer": 0.5}, 2),
                ({"left"}, {"steer": 0.5}, None), (set(), {"steer": -0.25}, None), (set(), {}, None),
                ({"throttle"}, {}, None)]
    for keys, analog, gear in timeline:
        rec.record(keys, analog, gear)
    s = rec.script("hand")
    assert s.duration == pytest.approx(0.07)
    assert s.holds == (Hold(("throttle",), 0.0, 0.02), Hold(("left",), 0.01, 0.04), Hold(("throttle",), 0.06, 0.07))
    assert s.sets == (Setting(0.02, gear=2, analog={"steer": 0.5}), Setting(0.04, analog={"steer": -0.25}),
                      Setting(0.05, release=("steer",)))


def test_recorder_without_edits_writes_no_settings():
    base = load_preset("teaching").params
    rec = Recorder("teaching", 1 / 120, base, base)
    for _ in range(3):
        rec.record({"throttle"})
    s = rec.script("plain")
    assert s.sets == () and s.holds == (Hold(("throttle",), 0.0, 3 / 120),)
    assert Recorder("teaching", 1 / 120, base).script("empty").duration == 1 / 120


def test_recorder_refuses_unknown_keys():
    rec = Recorder("sedan", 1 / 120, load_preset("sedan").params)
    with pytest.raises(ValueError, match="unknown key 'nitro'"):
        rec.record({"throttle", "nitro"})


def test_params_diff():
    base = load_preset("sedan").params
    edited = base.with_values({"engine.peak_torque": 400.0, "gearbox.ratios": [3.6, 2.0, 1.4, 1.0, 0.8]})
    assert params_diff(base, edited) == {"engine.peak_torque": 400.0, "gearbox.ratios": [3.6, 2.0, 1.4, 1.0, 0.8]}
    assert params_diff(base, base) == {}


# -- saving is atomic --------------------------------------------------------------------------------

SCRIPT = Script("atomic", "sedan", 2.0, holds=(Hold(("throttle",), 0.0, 1.0),))


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_save_writes_through_a_temp_file_and_rename(tmp_path, monkeypatch):
    target = tmp_path / "s.toml"
    renames = []
    real_replace = os.replace

    def spy(src, dst):
        renames.append((os.fspath(src), os.fspath(dst)))
        assert os.path.dirname(os.fspath(src)) == os.fspath(tmp_path)  # same folder: an atomic rename
        assert open(src, encoding="utf-8").read() == SCRIPT.to_toml()  # complete before the rename
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    SCRIPT.save(target)
    assert len(renames) == 1 and renames[0][1] == os.fspath(target) and renames[0][0] != os.fspath(target)
    assert target.read_text(encoding="utf-8") == SCRIPT.to_toml()
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("broken", ["replace", "fsync"])
def test_failed_save_leaves_the_original_untouched(tmp_path, monkeypatch, broken):
    target = tmp_path / "s.toml"
    target.write_text("# the original\n", encoding="utf-8")

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, broken, boom)
    with pytest.raises(OSError, match="No space left"):
        SCRIPT.save(target)
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "# the original\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_a_preset_opened_by_a_relative_path_is_recorded_by_its_whole_path(tmp_path, monkeypatch):
    """Opened as mycar.toml, the preset went into the recording so: replayed from another folder it named no file."""
    import shutil

    from physics.presets import cars_dir
    from workbench.names import load_named_preset
    from workbench.runs.live import LiveSession
    from workbench.runs.replay import replay as run
    from workbench.runs.stamp import recording_note
    from workbench.scripts.format import load_script
    from workbench.scripts.program import compile_script

    (tmp_path / "cars").mkdir()
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(cars_dir() / "sedan.toml", tmp_path / "cars" / "mycar.toml")
    monkeypatch.chdir(tmp_path / "cars")
    session = LiveSession(load_named_preset("mycar.toml"))
    session.start_recording()
    for _ in range(10):
        session.step({"throttle"})
    path = tmp_path / "elsewhere" / "x.toml"
    session.stop_recording("x").save(path)
    monkeypatch.chdir(tmp_path / "elsewhere")
    program = compile_script(load_script(path))
    assert program.preset_path is not None and program.preset_path.resolve() == (tmp_path / "cars" / "mycar.toml")
    assert recording_note(program) is None  # the same preset, named the same way
    (result,) = run([program])
    assert result.program.frames >= 10


def test_an_edit_on_the_first_frame_of_a_recording_is_in_its_stamp(tmp_path):
    """The stamp was taken before the edit, and the replay (which starts with it) said the recording was made with
    other parameters: "tyres.mu - (now 0.8)"."""
    from workbench.runs.live import LiveSession
    from workbench.runs.stamp import recording_note
    from workbench.scripts.format import load_script
    from workbench.scripts.program import compile_script

    session = LiveSession("sedan")
    session.set_param("body.mass", 1400.0)
    session.start_recording()
    session.set_param("tyres.mu", 0.8)
    for _ in range(30):
        session.step({"throttle"})
    path = tmp_path / "edit0.toml"
    session.stop_recording("edit0").save(path)
    program = compile_script(load_script(path))
    assert program.params.tyres.mu == 0.8 and program.params.body.mass == 1400.0
    assert recording_note(program) is None
    assert {c.path for c in program.script.recorded.changed} == {"body.mass", "tyres.mu"}


def test_a_recording_larger_than_a_script_may_be_is_not_saved(tmp_path, monkeypatch):
    """A 40-minute recording was saved as an 18 MiB file that every command then refused (16 MiB at most)."""
    from workbench.runs.live import LiveSession
    from workbench.scripts import limits
    from workbench.scripts.format import ScriptError

    session = LiveSession("sedan")
    session.start_recording()
    for k in range(400):
        session.step({"throttle"} if k % 2 else {"brake"})  # a change every frame: a long file
    script = session.stop_recording("long")
    size = len(script.to_toml().encode())
    monkeypatch.setattr(limits, "MAX_SCRIPT_BYTES", size - 1)
    path = tmp_path / "long.toml"
    with pytest.raises(ScriptError, match=r"long\.toml: .* is larger than a script may be .*: not saved"):
        script.save(path)
    assert not path.exists()
    monkeypatch.setattr(limits, "MAX_SCRIPT_BYTES", size)
    assert script.save(path).stat().st_size == size


def test_a_stamps_differences_say_a_newer_carbench_and_a_preset_value_in_words():
    """A recording from a newer carbench got the same note as one from an older; a parameter at its preset's value
    read "tyres.mu - (now 0.8)"."""
    from dataclasses import replace as changed_to

    from physics import load_preset
    from workbench.runs.stamp import make_stamp

    sedan = load_preset("sedan").params
    base = make_stamp("sedan", sedan, sedan, 1 / 120)
    edited = make_stamp("sedan", sedan, sedan.with_values({"tyres.mu": 0.8}), 1 / 120)
    newer = changed_to(base, carbench="99.0.0")
    older = changed_to(base, carbench="0.0.1")
    assert newer.differences(changed_to(base, carbench="0.3.7")) == [
        "carbench 99.0.0 (now 0.3.7, an older one: a newer model may replay what it recorded otherwise here)"]
    assert older.differences(changed_to(base, carbench="0.3.7")) == ["carbench 0.0.1 (now 0.3.7)"]
    assert changed_to(base, carbench="unknown").differences(base)[0].endswith(")")
    (line,) = base.differences(edited)
    assert line == "other parameters: tyres.mu as the preset (now 0.8)"
