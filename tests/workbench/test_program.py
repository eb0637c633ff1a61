"""Compiling a script against a car: frame mapping, per-frame inputs, settings, and what the car refuses."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from physics import ANALOG, DEFAULT_DT, KEYS, load_preset, preset_names
from physics.presets import cars_dir
from workbench.scripts.format import ScriptError, parse_script
from workbench.scripts.program import compile_script, frame_of

SRC = "cases/program.toml"


def script(body: str = "", preset: str = "manual003", duration: float = 8.0, dt: float | None = None, source=SRC):
    head = f'[script]\nname = "p"\npreset = "{preset}"\nduration = {duration!r}\n'
    if dt is not None:
        head += f"dt = {dt!r}\n"
    return parse_script(head + body, source)


def refused(s, **kw) -> str:
    with pytest.raises(ScriptError) as info:
        compile_script(s, **kw)
    message = str(info.value)
    assert "\n" not in message
    return message


# -- frame mapping -----------------------------------------------------------------------------------


def test_frame_k_covers_k_dt():
    dt = 1 / 120
    for k in (0, 1, 2, 119, 120, 121, 12345, 71999):
        assert frame_of(k * dt, dt) == k


def test_frame_of_rounds_to_the_nearest_frame():
    dt = 0.01
    assert frame_of(0.0, dt) == 0
    assert frame_of(0.0149, dt) == 1
    assert frame_of(0.0151, dt) == 2
    assert frame_of(0.0049, dt) == 0
    assert frame_of(0.0051, dt) == 1
    assert frame_of(2.4, 1 / 120) == 288  # 2.4 * 120 = 287.99999999999994 before rounding


def test_no_drift_over_long_durations():
    dt = 1 / 120
    assert frame_of(599.0, dt) == 71880
    assert frame_of(600.0, dt) == 72000
    # every whole and half second of ten minutes lands on its exact frame
    assert all(frame_of(t / 2, dt) == t * 60 for t in range(0, 1201))
    assert all(frame_of(k * dt, dt) == k for k in range(71000, 72001))


def test_long_script_compiles_to_exact_frames():
    s = script('[[hold]]\nkeys = ["throttle"]\nfrom = 599.0\nto = 599.5\n', duration=600.0)
    p = compile_script(s)
    assert p.frames == 72001
    on = np.flatnonzero(p.keys[:, KEYS.index("throttle")])
    assert (on[0], on[-1], len(on)) == (71880, 71939, 60)


def test_frames_include_the_state_at_the_duration():
    p = compile_script(script(duration=8.0))
    assert p.frames == 961 and p.dt == DEFAULT_DT
    assert compile_script(script(duration=1.0, dt=0.05)).frames == 21
    assert compile_script(script(duration=1.0, dt=0.3e-1)).frames == 34  # round(33.33) + 1


@pytest.mark.parametrize("start,end,dt", [(0.0, 2.0, 1 / 120), (0.1, 0.2, 1 / 120), (1 / 3, 2 / 3, 1 / 60),
                                          (2.45, 7.99, 0.01), (0.004, 0.0125, 1 / 120)])
def test_hold_covers_from_round_start_to_round_end_minus_one(start, end, dt):
    p = compile_script(script(f'[[hold]]\nkeys = ["brake", "left"]\nfrom = {start!r}\nto = {end!r}\n', dt=dt))
    first, stop = round(start / dt), round(end / dt)
    for key in KEYS:
        column = p.keys[:, KEYS.index(key)]
        if key in ("brake", "left"):
            assert np.array_equal(np.flatnonzero(column), np.arange(first, stop)), key
        else:
            assert not column.any(), key


def test_overlapping_holds_are_or_ed_per_key():
    p = compile_script(script('[[hold]]\nkeys = ["throttle"]\nfrom = 0.0\nto = 1.0\n'
                              '[[hold]]\nkeys = ["throttle", "clutch"]\nfrom = 0.5\nto = 2.0\n'))
    throttle, clutch = p.keys[:, KEYS.index("throttle")], p.keys[:, KEYS.index("clutch")]
    assert np.array_equal(np.flatnonzero(throttle), np.arange(0, 240))
    assert np.array_equal(np.flatnonzero(clutch), np.arange(60, 240))


def test_hold_shorter_than_a_frame_is_refused():
    s = script('[[hold]]\nkeys = ["left"]\nfrom = 0.0\nto = 1.0\n[[hold]]\nkeys = ["gear_up"]\nfrom = 1.0\nto = 1.004\n')
    message = refused(s)
    assert message.startswith(f"{SRC}: [[hold]] #2: covers no frame")
    # the same hold is fine at a timestep it does cover
    assert compile_script(s, dt=0.001).keys[1000:1004, KEYS.index("gear_up")].all()


def test_expect_window_that_covers_no_frame_is_refused():
    # frame 120 is at 1.0 s and frame 121 at 1.0083 s: no frame lies in [1.001, 1.005)
    s = script('[[expect]]\nchannel = "speed"\nfrom = 1.001\nto = 1.005\nmin = 0.0\n')
    message = refused(s)
    assert message.startswith(f"{SRC}: [[expect]] #1: the window covers no frame")


def test_expectation_windows():
    s = script('[[expect]]\nchannel = "speed"\nat = 2.4\nmin = 0.0\n'
               '[[expect]]\nchannel = "speed"\nfrom = 2.45\nto = 8.0\nmin = 0.0\n'
               '[[expect]]\nchannel = "speed"\nat = 8.0\nmin = 0.0\n')
    assert compile_script(s).windows == ((288, 288), (294, 959), (960, 960))
    assert compile_script(s, dt=0.05).windows == ((48, 48), (49, 159), (160, 160))


# -- settings ----------------------------------------------------------------------------------------


def test_analog_setting_lasts_until_set_again_or_released():
    s = script('[[set]]\nat = 1.0\nsteer = 0.5\nthrottle_pedal = 0.25\n'
               '[[set]]\nat = 2.0\nsteer = -1.0\n'
               '[[set]]\nat = 3.0\nrelease = ["steer"]\n'
               '[[set]]\nat = 4.0\nsteer = 0.125\n', duration=5.0)
    p = compile_script(s)
    steer, pedal = ANALOG.index("steer"), ANALOG.index("throttle_pedal")
    on, value = p.analog_on[:, steer], p.analog_value[:, steer]
    assert not on[:120].any()
    assert on[120:360].all() and np.all(value[120:240] == 0.5) and np.all(value[240:360] == -1.0)
    assert not on[360:480].any()
    assert on[480:].all() and np.all(value[480:] == 0.125)
    assert np.flatnonzero(~p.analog_on[:, pedal]).tolist() == list(range(120))
    assert np.all(p.analog_value[120:, pedal] == 0.25)
    assert not p.analog_on[:, ANALOG.index("brake_pedal")].any()


def test_settings_apply_in_time_order_not_file_order():
    s = script('[[set]]\nat = 3.0\nrelease = ["steer"]\n[[set]]\nat = 1.0\nsteer = 0.5\n', duration=4.0)
    on = compile_script(s).analog_on[:, ANALOG.index("steer")]
    assert np.flatnonzero(on).tolist() == list(range(120, 360))


def test_gear_setting_is_one_frame_selection():
    s = script('[[set]]\nat = 0.0\ngear = -1\n[[set]]\nat = 2.0\ngear = 0\n[[set]]\nat = 3.0\ngear = 5\n')
    p = compile_script(s)
    assert np.flatnonzero(p.gear_on).tolist() == [0, 240, 360]
    assert p.gear_value[[0, 240, 360]].tolist() == [-1, 0, 5]


@pytest.mark.parametrize("preset", ["parking", "classic", "teaching", "f1tenth"])
def test_gear_refused_without_a_gearbox(preset):
    s = script('[[hold]]\nkeys = ["left"]\nfrom = 0.0\nto = 1.0\n[[set]]\nat = 0.0\nthrottle_pedal = 1.0\n'
               '[[set]]\nat = 1.0\ngear = 2\n', preset=preset)
    message = refused(s)
    assert message.startswith(f"{SRC}: [[set]] #2: `gear` is refused")
    assert f"the {preset} car has no gearbox" in message


@pytest.mark.parametrize("gear", [6, -2, 100])
def test_gear_out_of_range_on_the_sedan(gear):
    message = refused(script(f"[[set]]\nat = 1.0\ngear = {gear}\n"))
    assert message.startswith(f"{SRC}: [[set]] #1: `gear` = {gear} is out of range -1 (reverse) .. 5")


def test_gear_against_the_gearbox_in_force_at_that_time():
    # 4 ratios from 1 s on: 5th is refused after, accepted before
    four = '[[set]]\nat = 1.0\nparams = { "gearbox.ratios" = [3.5, 2.0, 1.4, 1.0] }\n'
    assert compile_script(script(four + "[[set]]\nat = 0.5\ngear = 5\n")).gear_value[60] == 5
    message = refused(script(four + "[[set]]\nat = 2.0\ngear = 5\n"))
    assert "[[set]] #2" in message and "-1 (reverse) .. 4" in message


def test_params_change_from_its_frame_on():
    s = script('[[set]]\nat = 0.0\nparams = { "engine.peak_torque" = 380.0 }\n'
               '[[set]]\nat = 2.0\nparams = { "engine.peak_torque" = 420.0, "tyres.mu" = 0.9 }\n'
               '[[set]]\nat = 3.0\nparams = { "tyres.mu" = 1.1 }\n')
    p = compile_script(s)
    base = load_preset("manual003").params
    assert p.params == base.with_value("engine.peak_torque", 380.0)
    assert [k for k, _ in p.param_changes] == [240, 360]
    at2, at3 = p.param_changes[0][1], p.param_changes[1][1]
    assert (at2.engine.peak_torque, at2.tyres.mu) == (420.0, 0.9)
    assert (at3.engine.peak_torque, at3.tyres.mu) == (420.0, 1.1)  # changes accumulate


@pytest.mark.parametrize("params,key", [('{ "engine.peak_torque" = -5.0 }', "engine.peak_torque"),
                                        ('{ "tyres.mu" = 0.0 }', "tyres.mu"),
                                        ('{ "steering.lock" = 1.6 }', "steering.lock"),
                                        ('{ "engine.peak_torque" = "high" }', "engine.peak_torque"),
                                        ('{ "engine.turbo" = 1.0 }', "engine.turbo"),
                                        ('{ "peak_torque" = 1.0 }', "peak_torque")])
def test_params_validated_naming_the_entry_and_the_key(params, key):
    s = script('[[set]]\nat = 0.0\ngear = 1\n' f"[[set]]\nat = 1.0\nparams = {params}\n")
    message = refused(s)
    assert message.startswith(f"{SRC}: [[set]] #2: params: ")
    assert key in message


def test_params_out_of_range_names_the_allowed_range():
    message = refused(script('[[set]]\nat = 1.0\nparams = { "engine.peak_torque" = -5.0 }\n'))
    assert "out of range" in message and "allowed" in message


def test_params_cannot_change_the_model_kind():
    message = refused(script('[[set]]\nat = 1.0\nparams = { "model.kind" = "kinematic" }\n'))
    assert "[[set]] #1: params" in message


def test_params_of_a_group_the_car_does_not_have():
    message = refused(script('[[set]]\nat = 1.0\nparams = { "engine.peak_torque" = 300.0 }\n', preset="classic"))
    assert message.startswith(f"{SRC}: [[set]] #1: params: engine.peak_torque")


# -- preset and dt ----------------------------------------------------------------------------------


def test_preset_override_by_name():
    s = script('[[expect]]\nchannel = "speed"\nat = 1.0\nmin = 0.0\n')
    p = compile_script(s, preset="classic")
    assert p.preset == "classic" and p.params == load_preset("classic").params
    assert compile_script(s).preset == "manual003"


def test_preset_override_by_path(tmp_path):
    path = tmp_path / "mycar.toml"
    text = (cars_dir() / "manual003.toml").read_text().replace("peak_torque = 350.0", "peak_torque = 410.0")
    path.write_text(text)
    p = compile_script(script(), preset=str(path))
    assert p.preset == "mycar" and p.params.engine.peak_torque == 410.0


def test_script_preset_path_beside_the_script(tmp_path):
    shutil.copy(cars_dir() / "teaching.toml", tmp_path / "own_car.toml")
    source = tmp_path / "s.toml"
    source.write_text('[script]\nname = "p"\npreset = "own_car.toml"\nduration = 1.0\n')
    from workbench.scripts.format import load_script

    p = compile_script(load_script(source))
    assert p.preset == "own_car" and p.params == load_preset("teaching").params


def test_what_is_beside_the_script_is_its_preset_even_when_it_is_no_file(tmp_path, monkeypatch):
    """A FIFO or a folder beside the script under its preset's name let a file of that name in the working folder
    drive it without a word (a review of the command line): it is refused, saying what it is. With nothing beside
    it, the name is read as typed (from the working folder), as before."""
    import os

    from workbench.scripts.format import ScriptError, load_script

    (tmp_path / "s").mkdir()
    shutil.copy(cars_dir() / "teaching.toml", tmp_path / "own_car.toml")  # the working folder's
    source = tmp_path / "s" / "x.toml"
    source.write_text('[script]\nname = "p"\npreset = "own_car.toml"\nduration = 1.0\n')
    monkeypatch.chdir(tmp_path)
    assert compile_script(load_script(source)).params == load_preset("teaching").params  # nothing beside it
    beside = tmp_path / "s" / "own_car.toml"
    for make, said in ((os.mkfifo, "is a FIFO"), (os.mkdir, "is a directory")):
        make(beside)
        with pytest.raises(ScriptError) as err:
            compile_script(load_script(source))
        assert "[script] preset:" in str(err.value) and said in str(err.value), str(err.value)
        (os.rmdir if make is os.mkdir else os.remove)(beside)


def test_unknown_preset_name_lists_the_presets():
    message = refused(script(preset="lorry"))
    assert message.startswith(f"{SRC}: [script] preset: lorry: no such preset")
    assert all(name in message for name in preset_names())
    message = refused(script(), preset="lorry")
    assert message.startswith(f"{SRC}: --preset: lorry")


def test_missing_preset_file_is_refused(tmp_path):
    message = refused(script(), preset=str(tmp_path / "none.toml"))
    assert "--preset" in message and "none.toml" in message


def test_malformed_preset_file_is_refused(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text((cars_dir() / "manual003.toml").read_text().replace("mass = 1200.0", "mass = -1.0"))
    message = refused(script(), preset=str(path))
    assert "--preset" in message and "body.mass" in message


def test_dt_override_wins_over_the_script():
    s = script('[[hold]]\nkeys = ["throttle"]\nfrom = 1.0\nto = 2.0\n', dt=1 / 60, duration=4.0)
    assert compile_script(s).dt == 1 / 60 and compile_script(s).frames == 241
    p = compile_script(s, dt=0.01)
    assert p.dt == 0.01 and p.frames == 401
    assert np.flatnonzero(p.keys[:, 0]).tolist() == list(range(100, 200))


@pytest.mark.parametrize("dt", [0.0, -1.0, 1.0])
def test_bad_dt_override_is_refused_by_compile(dt):
    with pytest.raises(ValueError, match="dt"):
        compile_script(script(), dt=dt)


def test_channel_checked_against_the_preset_unit():
    s = script('[[hold]]\nkeys = ["throttle"]\nfrom = 0.0\nto = 1.0\n'
               '[[expect]]\nchannel = "speed"\nat = 1.0\nmin = 0.0\n'
               '[[expect]]\nchannel = "speed_kmh"\nat = 1.0\nmin = 0.0\n', preset="parking")
    message = refused(s)
    assert message.startswith(f"{SRC}: [[expect]] #2: unknown channel 'speed_kmh'")
    assert "measures lengths in px" in message and "use 'speed' (px/s)" in message
    assert compile_script(s, preset="teaching").preset == "teaching"  # fine on an SI preset
    message = refused(script('[[expect]]\nchannel = "speed_kmh"\nat = 1.0\nmin = 0.0\n'), preset="parking")
    assert "[[expect]] #1: unknown channel 'speed_kmh'" in message


def test_program_arrays_have_one_row_per_frame():
    p = compile_script(script(duration=2.0))
    assert p.keys.shape == (241, len(KEYS)) and p.keys.dtype == bool
    assert p.analog_on.shape == p.analog_value.shape == (241, len(ANALOG))
    assert p.gear_on.shape == p.gear_value.shape == (241,)
    assert not p.keys.any() and not p.analog_on.any() and not p.gear_on.any()
    assert p.param_changes == () and p.windows == ()
