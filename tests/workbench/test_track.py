"""[[track]] entries (SPEC 4, analog driving): per-frame values of an analog control, parsed strictly,
compiled frame-exactly, written by the recorder while a control moves, and replayed bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from physics import ANALOG, Inputs, Simulation, load_preset
from workbench.output.telemetry_log import TelemetryLog
from workbench.runs.replay import replay
from workbench.scripts.format import ScriptError, parse_script
from workbench.scripts.program import compile_script
from workbench.scripts.recorder import Recorder

DT = 0.01
HEAD = f"""
[script]
name = "track"
preset = "sedan"
duration = 1.0
dt = {DT}
"""


def script(body: str, head: str = HEAD):
    return parse_script(head + body, "track.toml")


def column(program, name):
    j = ANALOG.index(name)
    return program.analog_on[:, j], program.analog_value[:, j]


def test_a_track_sets_each_frame_then_holds_its_last_value_until_a_set_releases_it():
    s = script("""
[[track]]
control = "throttle_pedal"
from = 0.2
values = [0.1, 0.2, 0.35, 0.5]

[[set]]
at = 0.5
release = ["throttle_pedal"]
""")
    on, value = column(compile_script(s), "throttle_pedal")
    assert not on[:20].any()
    assert value[20:24].tolist() == [0.1, 0.2, 0.35, 0.5]
    assert on[20:50].all() and (value[24:50] == 0.5).all()  # the last value holds, as a [[set]] would
    assert not on[50:].any()


def test_a_set_before_a_track_holds_until_the_track_and_one_after_it_takes_over():
    s = script("""
[[set]]
at = 0.0
steer = 0.25

[[track]]
control = "steer"
from = 0.1
values = [0.3, -0.4]

[[set]]
at = 0.3
steer = -1.0
""")
    on, value = column(compile_script(s), "steer")
    assert on.all()
    assert (value[:10] == 0.25).all() and value[10] == 0.3 and (value[11:30] == -0.4).all()
    assert (value[30:] == -1.0).all()


def test_at_another_dt_each_frame_takes_the_track_value_that_covers_its_time():
    s = script("""
[[track]]
control = "brake_pedal"
from = 0.1
values = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
""")
    on, value = column(compile_script(s, dt=0.02), "brake_pedal")
    # frames of 0.02 s at 0.10, 0.12, 0.14: the track's frames at 0.10, 0.12, 0.14 (indices 0, 2, 4)
    assert value[5:8].tolist() == [0.1, 0.3, 0.5] and (value[8:] == 0.6).all() and on[5:].all()
    on, value = column(compile_script(s, dt=0.004), "brake_pedal")
    # frames at 0.100, 0.104, 0.108, 0.112, 0.116, 0.120 s: the track's nearest frames
    assert value[25:31].tolist() == [0.1, 0.1, 0.2, 0.2, 0.3, 0.3] and not on[:25].any()


@pytest.mark.parametrize(("body", "head", "reason"), [
    ('control = "wheel"\nfrom = 0.0\nvalues = [0.1]', HEAD, "[[track]] #1: `control` = 'wheel' is not an analog"),
    ('control = "steer"\nfrom = 0.0\nvalues = [0.1]', HEAD.replace(f"dt = {DT}\n", ""),
     "[[track]] #1: needs [script] dt"),
    ('control = "steer"\nfrom = 0.015\nvalues = [0.1]', HEAD, "`from` = 0.015 s is not on a frame of dt = 0.01 s"),
    ('control = "steer"\nfrom = 0.0\nvalues = [0.1, 1.5]', HEAD, "value #2 = 1.5 is out of range -1..1 for steer"),
    ('control = "clutch_pedal"\nfrom = 0.0\nvalues = [-0.1]', HEAD, "value #1 = -0.1 is out of range 0..1"),
    # the value as typed, not rounded to six digits into the range it is refused for ("-1 is out of range -1..1")
    ('control = "steer"\nfrom = 0.0\nvalues = [-1.0000000001]', HEAD, "value #1 = -1.0000000001 is out of range -1..1"),
    ('control = "steer"\nfrom = 0.0\nvalues = [2]', HEAD, "value #1 = 2 is out of range -1..1"),  # not "2.0"
    ('control = "steer"\nfrom = 0.0\nvalues = [0.1, "a"]', HEAD, "[[track]] #1 value #2: expected a finite number"),
    ('control = "steer"\nfrom = 0.0\nvalues = [nan]', HEAD, "value #1: expected a finite number"),
    ('control = "steer"\nfrom = 0.0\nvalues = []', HEAD, "`values` must be a non-empty list"),
    ('control = "steer"\nfrom = 0.0\nvalues = 0.5', HEAD, "`values` must be a non-empty list"),
    ('control = "steer"\nfrom = 0.98\nvalues = [0.1, 0.2, 0.3, 0.4]', HEAD,
     "its 4 values run from 0.98 s to 1.01 s, past the script's duration (1 s)"),
    ('control = "steer"\nfrom = 1.01\nvalues = [0.1]', HEAD, "`from` = 1.01 is past the script's duration"),
    ('control = "steer"\nfrom = -0.01\nvalues = [0.1]', HEAD, "`from` = -0.01 is before the start"),
    ('control = "steer"\nvalues = [0.1]', HEAD, "[[track]] #1: `from` is missing"),
    ('control = "steer"\nfrom = 0.0\nvalues = [0.1]\nto = 0.5', HEAD, "unknown key `to`; allowed: control, from, values"),
])
def test_bad_tracks_are_refused_with_the_entry_and_the_reason(body, head, reason):
    with pytest.raises(ScriptError) as caught:
        script("\n[[track]]\n" + body + "\n", head)
    assert str(caught.value).startswith("track.toml: ") and reason in str(caught.value)


def test_overlapping_tracks_and_a_set_inside_a_track_are_refused():
    two = '\n[[track]]\ncontrol = "steer"\nfrom = 0.1\nvalues = [0.1, 0.2, 0.3]\n'
    with pytest.raises(ScriptError, match=r"\[\[track\]\] #2: overlaps \[\[track\]\] #1 \(steer, 0.1..0.12 s\)"):
        script(two + two.replace("0.1\nvalues", "0.12\nvalues"))
    script(two + two.replace("0.1\nvalues", "0.13\nvalues"))  # touching is fine
    script(two + two.replace('"steer"', '"brake_pedal"'))  # another control is fine
    with pytest.raises(ScriptError, match=r"\[\[set\]\] #1: sets steer at 0.11 s, inside \[\[track\]\] #1"):
        script(two + "\n[[set]]\nat = 0.11\nrelease = [\"steer\"]\n")
    script(two + "\n[[set]]\nat = 0.11\nthrottle_pedal = 1.0\n")


def test_a_track_round_trips_through_toml_exactly():
    values = [float(v) for v in np.random.default_rng(3).uniform(-1, 1, 300)]
    s = script(f'\n[[track]]\ncontrol = "steer"\nfrom = 0.2\nvalues = {values}\n',
               HEAD.replace("duration = 1.0", "duration = 5.0"))
    again = parse_script(s.to_toml(), "again.toml")
    assert again.tracks == s.tracks and list(again.tracks[0].values) == values
    assert max(len(line) for line in s.to_toml().splitlines()) <= 100  # the long list is wrapped


class Drive:
    """A live drive at DT with analog controls moving like a gamepad's: recorded, and its telemetry kept."""

    def __init__(self, frames=400):
        params = load_preset("sedan").params
        self.sim = Simulation(params, dt=DT)
        self.recorder = Recorder("sedan", DT, params)
        self.log = TelemetryLog(params.model.unit, 1, capacity=frames)
        for k in range(frames):
            analog, keys = self.inputs(k)
            self.recorder.record(keys, analog)
            self.log.record(self.sim.step(Inputs.from_keys(1, keys, **analog)))

    @staticmethod
    def inputs(k):
        analog = {}
        if k < 100:
            analog["throttle_pedal"] = round(min(k / 60, 0.5), 4)  # squeezed to half, then held
        elif k < 200:
            analog["throttle_pedal"] = 0.5
        if 50 <= k < 300:
            analog["steer"] = 0.3  # a steady steer
        if k >= 220:
            analog["brake_pedal"] = round(0.3 + 0.2 * np.sin(k / 9.0), 4)  # modulated
        keys = {"throttle"} if k >= 300 else set()
        return analog, keys


def test_a_recorded_analog_drive_is_tracks_and_sets_and_replays_bit_for_bit():
    drive = Drive()
    recording = drive.recorder.script("analog")
    tracks = {t.control: t for t in recording.tracks}
    assert sorted(tracks) == ["brake_pedal", "throttle_pedal"]
    assert tracks["throttle_pedal"].start == 0.0 and len(tracks["throttle_pedal"].values) == 31  # to 0.5 at k = 30
    assert tracks["brake_pedal"].start == pytest.approx(2.2) and len(tracks["brake_pedal"].values) == 180
    steer = [s for s in recording.sets if "steer" in s.analog or "steer" in s.release]
    assert [(round(s.at, 9), s.analog, s.release) for s in steer] == [(0.5, {"steer": 0.3}, ()), (3.0, {}, ("steer",))]
    text = recording.to_toml()
    assert text.count("[[set]]") == 3 and text.count("[[track]]") == 2  # steer on, steer off, throttle off
    (result,) = replay([compile_script(parse_script(text, "analog.toml"))])
    assert np.array_equal(result.log.matrix(0, 401)[:400], drive.log.matrix())


def test_the_recorder_keeps_a_release_and_short_changes_as_sets():
    rec = Recorder("sedan", DT, load_preset("sedan").params)
    for k in range(60):
        analog = {"clutch_pedal": 1.0} if k < 10 else {"clutch_pedal": 0.4} if k < 12 else {}
        rec.record((), analog)
    s = rec.script("short")
    assert s.tracks == ()
    assert [(round(x.at, 9), x.analog, x.release) for x in s.sets] == [
        (0.0, {"clutch_pedal": 1.0}, ()), (0.1, {"clutch_pedal": 0.4}, ()), (0.12, {}, ("clutch_pedal",))]


def test_a_track_may_give_the_last_frame_its_value_as_a_set_may():
    # A script of duration D has frames 0 .. D / dt: the last frame takes a value like any other.
    last = script('\n[[track]]\ncontrol = "steer"\nfrom = 1.0\nvalues = [0.25]\n', HEAD)
    assert last.tracks[0].start == 1.0 and last.tracks[0].values == (0.25,)
