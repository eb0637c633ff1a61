"""Presets and parameters: every shipped preset loads and round-trips; bad values are refused clearly."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import to_toml

from physics import (
    CarParams,
    ParamError,
    PresetError,
    Simulation,
    UnknownChannelError,
    channel_names,
    check_channel,
    load_preset,
    parse_preset,
    preset_names,
)
from physics.presets import cars_dir

SHIPPED = {"parking": ("kinematic", "px"), "teaching": ("kinematic", "m"), "f1tenth": ("dynamic", "m"),
           "sedan_single_track": ("dynamic", "m"), "tail_happy": ("dynamic", "m"),
           "sedan": ("dynamic", "m"), "classic": ("dynamic", "m"), "manual003": ("dynamic", "m")}
SOURCE = "bad.toml"


def preset_text(name: str) -> str:
    return (cars_dir() / f"{name}.toml").read_text()


def set_value(text: str, key: str, value: str) -> str:
    """The preset text with the first ``key = ...`` line's value replaced."""
    out, count = re.subn(rf"(?m)^{re.escape(key)} = .*$", f"{key} = {value}", text, count=1)
    assert count == 1, key
    return out


def refusal(text: str) -> str:
    with pytest.raises(PresetError) as info:
        parse_preset(text, SOURCE)
    message = str(info.value)
    assert SOURCE in message
    return message


# -- shipped presets --------------------------------------------------------------------------


def test_the_shipped_presets_are_the_six_of_the_spec_and_two_more_sedans():
    assert set(preset_names()) == set(SHIPPED)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_shipped_preset_loads(name):
    loaded = load_preset(name)
    assert loaded.name == name
    assert isinstance(loaded.params, CarParams)
    assert (loaded.params.kind, loaded.params.model.unit) == SHIPPED[name]
    assert loaded.params.manual == (name in ("sedan", "sedan_single_track", "tail_happy", "manual003"))


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_document_round_trip(name):
    p = load_preset(name).params
    assert CarParams.from_document(p.to_document()) == p
    # ... and through TOML text, as the workbench writes a preset back.
    assert parse_preset(to_toml(p.to_document()), f"{name}-copy.toml") == p


def test_teaching_and_f1tenth_wheelbases_are_001s():
    assert load_preset("teaching").params.body.wheelbase == 2.6
    assert load_preset("teaching").params.body.lr == 1.3
    assert load_preset("f1tenth").params.body.wheelbase == 0.3302


def test_a_preset_loads_by_path(tmp_path: Path):
    path = tmp_path / "mine.toml"
    path.write_text(set_value(preset_text("manual003"), "mass", "1400.0"))
    loaded = load_preset(path)
    assert loaded.name == "mine" and loaded.params.body.mass == 1400.0


def test_an_unknown_preset_name_lists_the_presets():
    with pytest.raises(PresetError) as info:
        load_preset("no-such-car")
    assert "no-such-car" in str(info.value)
    for name in SHIPPED:
        assert name in str(info.value)


# -- bad files --------------------------------------------------------------------------------


def test_negative_mass_is_refused():
    message = refusal(set_value(preset_text("manual003"), "mass", "-5.0"))
    assert "body.mass" in message and "-5" in message
    assert "allowed: 0.01 <= value <= 1e+06 kg" in message


def test_zero_wheelbase_is_refused():
    message = refusal(set_value(preset_text("manual003"), "wheelbase", "0.0"))
    assert "body.wheelbase" in message
    assert "allowed: 0.01 <= value <= 1000 m" in message


@pytest.mark.parametrize("lock", ["1.5708", repr(math.pi / 2), "2.0"])
def test_lock_of_90_degrees_or_more_is_refused(lock):
    message = refusal(set_value(preset_text("manual003"), "lock", lock))
    assert "steering.lock" in message
    assert "allowed: 0 < value <= 1.39626 rad" in message


@pytest.mark.parametrize(("key", "value", "said"), [
    ("mass", "1e999", "[body] mass: 1e999"),
    ("mass", "-1e400", "[body] mass: -1e400"),
    ("ratios", "[3.5, 2.0, 1.4, 1.0, 1_000e999]", "[gearbox] ratios[4]: 1_000e999"),
    ("mass", "1" + "0" * 400 + ".0", "[body] mass: 1" + "0" * 34 + "..."),
])
def test_a_number_beyond_a_float_in_a_preset_is_said_as_typed(key, value, said, tmp_path):
    """TOML reads 1e999 as inf: ``mass = 1e999`` said "body.mass = inf: inf is not a finite number", a value the
    user never wrote (a script's numbers were fixed so before: workbench.scripts.format). A typed inf is inf."""
    text = set_value(preset_text("manual003"), key, value)
    assert refusal(text) == f"{SOURCE}: {said} is beyond a floating-point number's range"
    path = tmp_path / "sedan.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PresetError) as info:
        load_preset(path)
    assert str(info.value) == f"{path}: {said} is beyond a floating-point number's range"
    assert refusal(set_value(preset_text("manual003"), "mass", "inf")) == (
        f"{SOURCE}: body.mass = inf: inf is not a finite number; allowed: 0.01 <= value <= 1e+06 kg")


def test_lock_up_to_80_degrees_is_accepted_and_beyond_refused():
    # The schema stops at 80 deg (beyond it the single-track integration is not stable).
    limit = math.radians(80.0)
    assert parse_preset(set_value(preset_text("manual003"), "lock", repr(limit)), SOURCE).steering.lock == limit
    message = refusal(set_value(preset_text("manual003"), "lock", "1.45"))
    assert "steering.lock" in message and "<= 1.39626 rad" in message


def test_unknown_key_is_refused():
    message = refusal(preset_text("manual003").replace("[body]\n", "[body]\nbogus = 1.0\n", 1))
    assert "body.bogus" in message and "unknown key" in message
    assert "mass" in message and "wheelbase" in message  # the keys that are allowed


def test_unknown_group_is_refused():
    message = refusal(preset_text("manual003") + "\n[turbo]\nboost = 1.0\n")
    assert "turbo" in message and "unknown group" in message
    assert "engine" in message and "tyres" in message  # the groups that are allowed


def test_wrong_type_is_refused():
    message = refusal(set_value(preset_text("manual003"), "mass", '"heavy"'))
    assert "body.mass" in message and "expected a number" in message
    assert "allowed: 0.01 <= value <= 1e+06 kg" in message


def test_bad_toml_syntax_is_refused():
    message = refusal(preset_text("manual003").replace("mass = 1200.0", "mass = = 1200.0"))
    assert "TOML" in message and "line" in message


def test_a_dotted_key_of_thousands_of_parts_is_refused_before_the_toml_parser():
    message = refusal(preset_text("manual003") + "\n[" + ".".join(["body"] * 20_000) + "]\n")
    assert message.endswith("a dotted key of more than 64 parts") and "line " in message


def test_the_long_key_check_takes_one_pass_whatever_the_spaces_between_dots():
    # A pattern with two ways to take a space between two dots tried powers of two of them on a near miss.
    from physics.toml_text import MAX_KEY_PARTS, long_key_line

    for piece in (" . ", ". ", " .", "  .  ", "a . ", '"a" . '):
        assert long_key_line("x = " + piece * (MAX_KEY_PARTS - 1) + "q") is None, piece
        assert long_key_line("x = 1\ny = " + piece * MAX_KEY_PARTS + "q") == 2, piece
    assert long_key_line('s = """' + "a." * 100 + '\n"""\n' + "a." * 70 + "b = 1") == 3  # the line after a string
    # A match starts only where a run of key characters, spaces and dots starts: tried at every position of a long
    # run, each try ate the rest of it (160,000 letters took 23 s; a 1 MiB preset would have taken a quarter of an
    # hour). These finish in a pass each.
    for text in ("a" * 1_000_000 + " = 1", " " * 1_000_000 + "a = 1", "." * 1_000_000, ("a." * 63 + "b ") * 10_000):
        assert long_key_line(text) is (1 if text.startswith(".") else None)
    # indented, in an inline table, after a comma: a long key is found wherever a key may start
    for text in ("  " + "a." * 64 + "b = 1", "x = { " + "a." * 64 + "b = 1 }", "x = { y = 1, " + "a." * 64 + "b = 2 }"):
        assert long_key_line(text) == 1, text


def test_lr_not_less_than_wheelbase_is_refused():
    message = refusal(set_value(preset_text("manual003"), "lr", "2.6"))
    assert "lr" in message and "wheelbase" in message and "less than" in message


def test_a_kinematic_car_with_tyres_is_refused():
    tyres = "\n[tyres]\n" + "\n".join(
        f"{k} = {v}" for k, v in load_preset("manual003").params.to_document()["tyres"].items()) + "\n"
    message = refusal(preset_text("teaching") + tyres)
    assert "tyres" in message and "kinematic" in message


def test_a_key_of_the_other_model_kind_is_refused():
    message = refusal(preset_text("manual003").replace("[brakes]\n", "[brakes]\nhandbrake_speed = 10.0\n", 1))
    assert "brakes.handbrake_speed" in message and "kinematic" in message


def test_a_missing_key_is_refused():
    message = refusal(re.sub(r"(?m)^mass = .*\n", "", preset_text("manual003"), count=1))
    assert "body.mass" in message and "missing" in message


# -- edits ------------------------------------------------------------------------------------


def test_with_value_returns_a_validated_copy():
    p = load_preset("manual003").params
    q = p.with_value("engine.peak_torque", 400.0)
    assert q.engine.peak_torque == 400.0 and p.engine.peak_torque == 350.0
    r = p.with_values({"body.wheelbase": 0.3302, "body.lr": 0.17})
    assert (r.body.wheelbase, r.body.lr) == (0.3302, 0.17)


@pytest.mark.parametrize("path, value, words", [
    ("body.mass", -1.0, ["body.mass", "allowed: 0.01 <= value <= 1e+06 kg"]),
    ("steering.lock", 1.5708, ["steering.lock", "<= 1.39626 rad"]),
    ("body.wheelbase", 0.0, ["body.wheelbase", "allowed: 0.01 <= value <= 1000 m"]),
    ("body.mass", "heavy", ["body.mass", "expected a number"]),
    ("body.lr", 3.0, ["lr", "wheelbase"]),
    ("body.bogus", 1.0, ["body.bogus", "unknown parameter"]),
    ("model.reference", "com", ["model.reference", "unknown parameter"]),  # a kinematic-only key
])
def test_with_value_validates(path, value, words):
    p = load_preset("manual003").params
    with pytest.raises(ParamError) as info:
        p.with_value(path, value)
    for word in words:
        assert word in str(info.value)
    assert p == load_preset("manual003").params, "nothing already loaded is lost"


@pytest.mark.parametrize("changes", [
    {"body.cg_height": 1000.0},  # allowed alone (a pixel car's heights), rolled the sedan through 78 rad in a bend
    {"suspension.roll_centre_front": 100.0, "suspension.roll_centre_rear": 100.0},  # through 8 rad the other way
    {"suspension.spring_front": 1.0, "suspension.spring_rear": 1.0, "suspension.arb_front": 0.0,
     "suspension.arb_rear": 0.0},  # each allowed alone: no suspension at all holds the body up
])
def test_a_four_wheel_car_whose_body_would_roll_past_30_deg_at_1_g_is_refused(changes):
    car = load_preset("sedan").params
    assert abs(math.degrees(car.roll_at_1g())) < 5.0  # a road car's 3 to 8 deg per g, the sedan stiffer still
    with pytest.raises(ParamError) as info:
        car.with_values(changes)
    said = str(info.value)
    assert "past the 30 deg" in said
    # the roll m g h' / (K - m g h'): without end where the springs cannot hold the body up as it leans (K <= m g h')
    b = car.body
    s = car.suspension
    values = {"cg": b.cg_height, "rf": s.roll_centre_front, "rr": s.roll_centre_rear, "kf": s.spring_front,
              "kr": s.spring_rear, "af": s.arb_front, "ar": s.arb_rear}
    values.update({{"body.cg_height": "cg", "suspension.roll_centre_front": "rf", "suspension.roll_centre_rear": "rr",
                    "suspension.spring_front": "kf", "suspension.spring_rear": "kr", "suspension.arb_front": "af",
                    "suspension.arb_rear": "ar"}[path]: value for path, value in changes.items()})
    axis = values["rf"] + (values["rr"] - values["rf"]) * (b.wheelbase - b.lr) / b.wheelbase
    k = 0.5 * (values["kf"] + values["kr"]) * b.track ** 2 + values["af"] + values["ar"]
    moment = b.mass * car.model.gravity * (values["cg"] - axis)
    assert ("without end" in said) == (k <= moment), said
    assert ("deg at 1 g" in said) == (k > moment), said
    for path in ("body.cg_height", "roll_centre_front", "roll_centre_rear"):
        assert path in said
    # Each change alone is taken where the roll stays within the bound: a tuner's soft front springs, a high rear
    # roll centre.
    car.with_values({"suspension.spring_front": 5000.0})
    car.with_values({"suspension.roll_centre_rear": 0.5})


def test_a_simulation_refuses_a_bad_edit_and_keeps_running():
    sim = Simulation(load_preset("manual003").params)
    sim.step()
    with pytest.raises(ParamError):
        sim.set_param("body.mass", -1.0)
    assert sim.cars[0].body.mass == 1200.0
    sim.set_param("engine.peak_torque", 300.0)
    assert sim.cars[0].engine.peak_torque == 300.0
    sim.step()


# -- channels ---------------------------------------------------------------------------------

SPEC_CHANNELS = ("t x y heading speed speed_kmh vx vy yaw_rate beta steer wheel_left wheel_right throttle brake "
                 "clutch gear rpm engine_torque axle_torque drive_force drag_force rolling_force brake_force "
                 "wheelspin slip_front slip_rear fy_front fy_rear load_front load_rear kinematic_weight").split()


def test_every_spec_channel_exists_with_a_unit_and_a_description():
    assert set(SPEC_CHANNELS) <= set(channel_names("m"))
    units = {"rpm": "rpm", "speed": "m/s", "speed_kmh": "km/h", "heading": "rad", "drive_force": "N",
             "axle_torque": "N m", "clutch": "", "t": "s"}
    for name, unit in units.items():
        info = check_channel(name, "m")
        assert info.unit == unit and info.doc


def test_pixel_presets_report_pixel_units():
    sim = Simulation(load_preset("parking").params)
    sim.step()
    assert sim.channel_info("speed").unit == "px/s"
    assert sim.channel_info("x").unit == "px"
    assert "speed_kmh" not in channel_names("px")


def test_an_unknown_channel_lists_the_known_ones():
    with pytest.raises(UnknownChannelError) as info:
        check_channel("rpms")
    assert "rpms" in str(info.value) and "rpm" in str(info.value) and "speed_kmh" in str(info.value)
    sim = Simulation(load_preset("manual003").params)
    sim.step()
    with pytest.raises(UnknownChannelError):
        sim.channel("rpms")
    assert np.isfinite(sim.channel("rpm")).all()


# -- every number is bounded on both sides ----------------------------------------------------------


def test_every_numeric_parameter_has_a_lower_and_an_upper_bound():
    from physics.params import CarParams as Params
    from physics.schema import group_class, leaves

    unbounded = []
    for f in dataclasses.fields(Params):
        for info in leaves(group_class(Params, f.name), f.name):
            if info.kind is not str and (info.lo is None or info.hi is None):
                unbounded.append(info.path)
    assert not unbounded, unbounded


@pytest.mark.parametrize("group, key, value", [
    ("body", "mass", "1e308"),
    ("body", "wheel_radius", "1e-300"),
    ("engine", "peak_torque", "1e308"),
    ("body", "yaw_inertia", "1e-300"),
    ("engine", "rev_limit", "1e300"),
    ("aero", "rolling", "1e300"),
    ("brakes", "force", "1e300"),
    ("tyres", "mu", "1e200"),
    ("model", "gravity", "1e-200"),
])
def test_absurd_values_are_refused_with_file_key_and_range(group, key, value):
    text = preset_text("sedan")
    head = f"[{group}]\n"
    start = text.index(head)
    line_start = text.index(f"\n{key} = ", start) + 1
    line_end = text.index("\n", line_start)
    message = refusal(text[:line_start] + f"{key} = {value}" + text[line_end:])
    assert message.startswith(SOURCE) and f"{group}.{key}" in message
    assert "out of range" in message and re.search(r"allowed: \S+ <=? value <= \S+", message)


@pytest.mark.parametrize(("path", "value", "shown"), [
    ("suspension.arb_front", 100000001.0, "100000001.0"),  # six digits wrote it as its limit, 1e+08
    ("differential.ramp", 1.0000001, "1.0000001"),
    ("differential.ramp", 1.5, "1.5"),  # six digits where they tell it from the limit
    ("body.mass", 0.001, "0.001"),
    ("steering.lock", 1.3962635, "1.3962635"),  # its limit (80 deg in rad) is written in six digits, 1.39626
])
def test_a_refused_value_is_written_in_the_digits_that_tell_it_from_its_limit(path, value, shown):
    with pytest.raises(ParamError) as info:
        load_preset("sedan").params.with_value(path, value)
    assert str(info.value).startswith(f"{path} = ") and f": {shown} is out of range; allowed:" in str(info.value)
