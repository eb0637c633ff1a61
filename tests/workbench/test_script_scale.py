"""A script's entries are read and compiled in time about linear in their number (each [[set]] was written from its
frame to the run's end, every pair of tracks compared, a list searched per measure: 80,000 tracks took 464 s to read,
100,000 [[set]]s 45 s), with the same per-frame inputs and the same refusals as the direct way of computing them,
which these tests keep beside the compiled program."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from physics import ANALOG, KEYS, load_preset
from physics.presets import cars_dir
from physics.telemetry import channels_of
from workbench.scripts.format import ScriptError, parse_script
from workbench.scripts.program import compile_script, frame_of

DT = 0.01
HEAD = f'[script]\nname = "scale"\npreset = "sedan"\nduration = 1.0\ndt = {DT}\n'
CONTROLS = ("steer", "throttle_pedal")


def direct_inputs(script, frames):
    """The per-frame keys and analog overrides as the program once wrote them: each hold over its frames, each
    [[set]] from its frame to the end, in time order."""
    keys = np.zeros((frames, len(KEYS)), dtype=bool)
    for hold in script.holds:
        for key in hold.keys:
            keys[frame_of(hold.start, DT):frame_of(hold.end, DT), KEYS.index(key)] = True
    on = np.zeros((frames, len(ANALOG)), dtype=bool)
    value = np.zeros((frames, len(ANALOG)))
    for setting in sorted(script.sets, key=lambda s: s.at):
        k = frame_of(setting.at, DT)
        for name, v in setting.analog.items():
            on[k:, ANALOG.index(name)] = True
            value[k:, ANALOG.index(name)] = v
        for name in setting.release:
            on[k:, ANALOG.index(name)] = False
    return keys, on, value


entries = st.lists(st.tuples(st.integers(0, 99), st.sampled_from(CONTROLS),
                             st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.75, 1.0]))), max_size=30)
holds = st.lists(st.tuples(st.integers(0, 99), st.integers(1, 120), st.sampled_from(["brake", "left", "handbrake"])),
                 max_size=12)


@settings(deadline=None, max_examples=60)
@given(sets=entries, held=holds)
def test_sets_and_holds_compile_to_the_inputs_written_frame_by_frame(sets, held):
    body = ""
    seen = {}
    for frame, control, v in sets:
        if seen.setdefault((frame, control), v) != v:
            continue  # two values at one time are refused (test_two_sets_at_one_time_...)
        body += f"[[set]]\nat = {frame * DT!r}\n" + (f'release = ["{control}"]\n' if v is None else f"{control} = {v}\n")
    for start, length, key in held:
        body += f'[[hold]]\nkeys = ["{key}"]\nfrom = {start * DT!r}\nto = {min(start + length, 100) * DT!r}\n'
    script = parse_script(HEAD + body, "scale.toml")
    program = compile_script(script)
    keys, on, value = direct_inputs(script, program.frames)
    np.testing.assert_array_equal(program.keys, keys)
    np.testing.assert_array_equal(program.analog_on, on)
    np.testing.assert_array_equal(program.analog_value, value)


def test_twenty_thousand_sets_and_as_many_tracks_compile_to_the_inputs_written_frame_by_frame():
    head = '[script]\nname = "many"\npreset = "sedan"\nduration = 400.0\ndt = 0.01\n'
    body = "".join(f"[[set]]\nat = {2 * k * 0.01!r}\nsteer = {((k * 7) % 11 - 5) / 10}\n" for k in range(20000))
    body += "".join(f'[[track]]\ncontrol = "throttle_pedal"\nfrom = {2 * k * 0.01!r}\nvalues = [{(k % 5) / 5}]\n'
                    for k in range(20000))
    program = compile_script(parse_script(head + body, "many.toml"))
    j = ANALOG.index("steer")
    expected = np.repeat([((k * 7) % 11 - 5) / 10 for k in range(20000)], 2)
    np.testing.assert_array_equal(program.analog_value[:40000, j], expected)
    t = ANALOG.index("throttle_pedal")
    np.testing.assert_array_equal(program.analog_value[:40000, t], np.repeat([(k % 5) / 5 for k in range(20000)], 2))


def test_tracks_that_overlap_or_a_set_inside_one_are_refused_among_many():
    tracks = "".join(f'[[track]]\ncontrol = "steer"\nfrom = {k * 3 * DT!r}\nvalues = [0.1, 0.2]\n' for k in range(30))
    overlap = tracks + f'[[track]]\ncontrol = "steer"\nfrom = {31 * DT!r}\nvalues = [0.3, 0.4, 0.5]\n'
    with pytest.raises(ScriptError, match=r"\[\[track\]\] #31: overlaps \[\[track\]\] #11 \(steer"):
        parse_script(HEAD + overlap, "t.toml")
    inside = tracks + f"[[set]]\nat = {43 * DT!r}\nsteer = 0.5\n[[set]]\nat = {4 * DT!r}\nsteer = 0.5\n"
    with pytest.raises(ScriptError, match=r"\[\[set\]\] #2: sets steer at 0.04 s, inside \[\[track\]\] #2"):
        parse_script(HEAD + inside, "t.toml")
    other = tracks + f'[[track]]\ncontrol = "throttle_pedal"\nfrom = {31 * DT!r}\nvalues = [0.3, 0.4, 0.5]\n'
    parse_script(HEAD + other, "t.toml")  # another control's track may lie over them


@pytest.mark.parametrize(("second", "words"), [
    ("steer = -0.5", "steer is set to -0.5 at 0.5 s, where [[set]] #1 sets it to 0.5"),
    ('release = ["steer"]', "steer is released at 0.5 s, where [[set]] #1 sets it to 0.5"),
    ("gear = 3", "gear is set to 3 at 0.5 s, where [[set]] #1 sets it to 2"),
])
def test_two_sets_at_one_time_that_give_one_thing_two_values_are_refused(second, words):
    first = '[[set]]\nat = 0.5\nsteer = 0.5\ngear = 2\nparams = { "body.mass" = 1500.0 }\n'
    with pytest.raises(ScriptError) as refused:
        parse_script(HEAD + first + f"[[set]]\nat = 0.5\n{second}\n", "s.toml")
    assert str(refused.value) == f"s.toml: [[set]] #2: {words} at the same time: keep one"
    parse_script(HEAD + first + "[[set]]\nat = 0.5\nsteer = 0.5\ngear = 2\n", "s.toml")  # the same value: let be
    # parameters are not inputs: the later value holds (a recording's edit on its first frame, after its start's)
    later = parse_script(HEAD + first + '[[set]]\nat = 0.5\nparams = { "body.mass" = 1700.0 }\n', "s.toml")
    assert compile_script(later).param_changes[-1][1].body.mass == 1700.0


def test_a_recording_with_an_edit_on_its_first_frame_loads_and_replays_what_was_driven():
    """The recorder writes the edits a recording starts with at 0 s, and an edit made on its first frame (scrubbed to
    frame 0 and edited, the window drives on from there) as a second [[set]] at 0 s: refused as two values of one
    parameter at one time, the saved recording, and the crash recovery's copy, could not be loaded."""
    from workbench.runs.live import LiveSession
    from workbench.runs.replay import replay

    s = LiveSession("sedan")
    s.set_param("body.mass", 1500.0)
    for _ in range(30):
        s.step(["throttle"])
    s.drive_from(0)
    s.set_param("body.mass", 1600.0)
    for _ in range(30):
        s.step(["throttle"])
    script = s.stop_recording("r")
    program = compile_script(parse_script(script.to_toml(), "r.toml"))
    assert program.params.body.mass == 1600.0
    (result,) = replay([program])
    assert result.log.digest(result.car, s.log.frames) == s.log.digest()


def test_driving_on_from_the_first_frame_of_a_driven_replay_saves_a_loadable_recording():
    """Its driver hands over half a frame before frame 0 (hand_over = -dt / 2), which a bound of 0 refused."""
    from workbench.runs.live import LiveSession
    from workbench.scripts.format import resolve_script

    s = LiveSession("sedan")
    s.load_script(resolve_script("accel_80_120"))
    s.start_replay()
    for _ in range(20):
        s.step()
    s.drive_from(0)
    for _ in range(20):
        s.step(["throttle"])
    script = parse_script(s.stop_recording("r").to_toml(), "r.toml")
    assert script.driver.hand_over == pytest.approx(-0.5 * s.dt)
    with pytest.raises(ScriptError, match="hand_over"):
        parse_script(HEAD + "[driver]\nspeed_kmh = 30.0\nhand_over = -0.5\n", "h.toml")


def test_a_monitor_named_twice_is_refused():
    body = '[[monitor]]\nname = "finite"\ntolerance = 1.0\n[[monitor]]\nname = "finite"\n'
    with pytest.raises(ScriptError, match=r"\[\[monitor\]\] #2: monitor 'finite' is already checked by \[\[monitor\]\] #1"):
        parse_script(HEAD + body, "m.toml")


@pytest.mark.parametrize(("preset", "channel", "words"), [
    ("sedan_single_track", "roll", "has one tyre per axle"),
    ("sedan_single_track", "load_fl", "has one tyre per axle"),
    ("manual003", "esc_active", "has one tyre per axle"),
    ("manual003", "slip_ratio_rear", "drives on 003's simple traction rule"),
    ("classic", "fx_front", "drives on 003's simple traction rule"),
    ("teaching", "grip_front", "is kinematic"),
    ("teaching", "load_rear", "is kinematic"),
    ("teaching", "stalled", "has no engine"),
    ("classic", "stalled", "has no engine"),
    ("classic", "tcs_active", "has no driver aids"),
    ("manual003", "tcs_active", "has no driver aids"),
])
def test_an_expectation_on_a_channel_the_car_does_not_have_is_refused(preset, channel, words):
    """Such a channel reads a constant on that car: an [[expect]] on it passed whatever the car did (a roll of at
    most 0.01 deg on the single-track car, which has no roll)."""
    text = (f'[script]\nname = "c"\npreset = "{preset}"\nduration = 1.0\n'
            f'[[expect]]\nchannel = "{channel}"\nat = 0.5\nmax = 1.0\n')
    with pytest.raises(ScriptError, match=f"\\[\\[expect\\]\\] #1: channel '{channel}' is refused: the {preset} car "
                                          f"{words}"):
        compile_script(parse_script(text, "c.toml"))


def test_a_channel_is_judged_by_the_car_in_effect_over_the_window():
    """model.traction may change part-way: the car at the script's end was taken for every window, so an expectation
    on the slip ratio before a switch to the simple rule was refused, and one after a switch to the combined model
    was let through on a constant."""
    head = '[script]\nname = "c"\npreset = "sedan_single_track"\nduration = 4.0\n'
    switch = '[[set]]\nat = 2.0\nparams = { "model.traction" = "simple" }\n'
    before = '[[expect]]\nchannel = "slip_ratio_rear"\nfrom = 0.5\nto = 1.9\nmax = 1.0\n'
    compile_script(parse_script(head + switch + before, "c.toml"))
    after = '[[expect]]\nchannel = "slip_ratio_rear"\nfrom = 2.5\nto = 3.5\nmax = 1.0\n'
    with pytest.raises(ScriptError, match="simple traction rule"):
        compile_script(parse_script(head + switch + after, "c.toml"))
    across = '[[measure]]\nname = "m"\nchannel = "slip_ratio_rear"\nfrom = 1.0\nto = 3.0\nreduce = "max"\n'
    compile_script(parse_script(head + switch + across, "c.toml"))  # part of it on the combined model


@pytest.mark.parametrize(("preset", "channel"), [("sedan", "roll"), ("sedan", "esc_rr"),
                                                 ("classic", "gear"), ("classic", "axle_torque"),
                                                 ("sedan_single_track", "slip_ratio_front"),
                                                 ("manual003", "slip_front"), ("manual003", "load_front")])
def test_an_expectation_on_a_channel_the_car_has_is_taken(preset, channel):
    text = (f'[script]\nname = "c"\npreset = "{preset}"\nduration = 1.0\n'
            f'[[expect]]\nchannel = "{channel}"\nat = 0.5\nmax = 1e9\n')
    compile_script(parse_script(text, "c.toml"))


@pytest.mark.parametrize("channel", ["tcs_active", "esc_active", "esc_fr", "tcs_rl"])
def test_a_four_wheel_car_without_aids_refuses_the_aids_channels(tmp_path, channel):
    """A four-wheel car whose preset has no [aids]: stability and traction control's channels read 0 there, and an
    [[expect]] on esc_active passed whatever the car did (tcs_active alone was refused)."""
    text = (cars_dir() / "sedan.toml").read_text(encoding="utf-8")
    start = text.index("\n[aids]")
    end = text.index("\n[", start + 1)
    (tmp_path / "bare.toml").write_text(text[:start] + text[end:], encoding="utf-8")
    script = (f'[script]\nname = "c"\npreset = "{tmp_path / "bare.toml"}"\nduration = 1.0\n'
              f'[[expect]]\nchannel = "{channel}"\nat = 0.5\nmax = 1.0\n')
    with pytest.raises(ScriptError, match=f"channel '{channel}' is refused: the bare car has no driver aids"):
        compile_script(parse_script(script, "c.toml"))
    assert channel not in {info.name for info in channels_of(load_preset(tmp_path / "bare.toml").params)}
