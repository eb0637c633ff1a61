"""SPEC 4: the script format is parsed strictly; every malformed script is refused naming the file,
the entry and the reason. A parsed script written back with to_toml() parses to an equal Script."""

from __future__ import annotations

import math
import tomllib

import pytest

from physics import ANALOG, KEYS, channel_names
from workbench.scripts.format import Expect, Hold, Script, ScriptError, Setting, load_script, parse_script

SRC = "cases/bad_script.toml"

HEAD = """
[script]
name = "case"
preset = "sedan"
duration = 8.0
"""

GOOD_HOLD = """
[[hold]]
keys = ["throttle"]
from = 0.0
to = 2.0
"""

GOOD_SET = """
[[set]]
at = 0.0
gear = 1
"""

GOOD_EXPECT = """
[[expect]]
channel = "speed"
at = 1.0
min = 0.0
"""


def refused(text: str) -> str:
    with pytest.raises(ScriptError) as info:
        parse_script(text, SRC)
    message = str(info.value)
    assert message.startswith(f"{SRC}: "), message
    assert "\n" not in message, f"the message should be one line: {message!r}"
    return message


def test_a_valid_script_parses():
    s = parse_script(HEAD + GOOD_SET + GOOD_HOLD + GOOD_EXPECT, SRC)
    assert (s.name, s.preset, s.duration, s.dt, s.source) == ("case", "sedan", 8.0, None, SRC)
    assert s.holds == (Hold(("throttle",), 0.0, 2.0),)
    assert s.sets == (Setting(0.0, gear=1),)
    assert s.expects == (Expect("speed", at=1.0, min=0.0),)


# -- the TOML itself and the top level ---------------------------------------------------------------


def test_bad_toml_names_the_line():
    text = HEAD + "\n[[hold]]\nkeys = [\"throttle\"\nfrom = 0.0\n"  # unclosed list
    message = refused(text)
    assert "not valid TOML" in message
    line = text.splitlines().index("from = 0.0") + 1  # where the unclosed list is found unclosed
    assert f"line {line}," in message, message


def test_bad_toml_duplicate_key_names_the_line():
    message = refused('[script]\nname = "a"\nname = "b"\npreset = "sedan"\nduration = 1.0\n')
    assert "not valid TOML" in message and "line 3" in message, message


def test_a_dotted_key_of_thousands_of_parts_is_refused_before_the_toml_parser():
    # tomllib's time grows with the square of a dotted key's length: 200,000 parts (400 KB) did not finish in a minute
    message = refused(HEAD + "\n[" + ".".join(["a"] * 20_000) + "]\n")
    assert message.endswith(f"line {HEAD.count(chr(10)) + 2}: a dotted key of more than 64 parts"), message
    # 64 parts are read as TOML (and refused as the unknown table they are); dots in strings and comments are no keys
    message = refused(HEAD + "\n[" + ".".join(["a"] * 64) + "]\n")
    assert "unknown table" in message
    text = HEAD.replace('name = "', 'name = "' + "." * 500, 1) + "# " + "a." * 500 + "\n"
    assert parse_script(text).name.startswith("." * 500)


def test_unknown_top_level_table():
    message = refused(HEAD + "\n[extras]\ncolour = \"red\"\n")
    assert "extras" in message and "unknown table" in message
    # the message says what a script may contain
    for table in ("[script]", "[[set]]", "[[hold]]", "[[expect]]"):
        assert table in message


def test_missing_script_table():
    message = refused(GOOD_HOLD)
    assert "[script]" in message and "missing" in message


@pytest.mark.parametrize("name", ["hold", "set", "expect"])
def test_entry_table_that_is_not_an_array_of_tables(name):
    message = refused(HEAD + f"\n[{name}]\nat = 1.0\n")
    assert f"[[{name}]]" in message and "array of tables" in message


# -- [script] ----------------------------------------------------------------------------------------


def test_unknown_key_in_script():
    message = refused(HEAD + "colour = \"red\"\n")
    assert "[script]" in message and "unknown key `colour`" in message
    assert "duration" in message  # lists the allowed keys


@pytest.mark.parametrize("key", ["name", "preset", "duration"])
def test_missing_script_key(key):
    lines = [line for line in HEAD.splitlines() if not line.startswith(key + " ")]
    message = refused("\n".join(lines) + "\n")
    assert "[script]" in message and f"`{key}` is missing" in message


@pytest.mark.parametrize("value", ["0.0", "-1.0", "0"])
def test_non_positive_duration(value):
    message = refused(HEAD.replace("duration = 8.0", f"duration = {value}"))
    assert "[script] duration" in message and "must be positive" in message


@pytest.mark.parametrize("value", ['"8"', "true", "inf", "nan"])
def test_duration_not_a_finite_number(value):
    message = refused(HEAD.replace("duration = 8.0", f"duration = {value}"))
    assert "[script] duration" in message and "finite number" in message


@pytest.mark.parametrize("value", ["0.0", "-0.01", "0.0500001", "1.0"])
def test_dt_out_of_range(value):
    message = refused(HEAD + f"dt = {value}\n")
    assert "[script] dt" in message and "[1e-05, 0.05]" in message


@pytest.mark.parametrize("value", [0.05, 0.001, 1 / 120])
def test_dt_in_range(value):
    assert parse_script(HEAD + f"dt = {value!r}\n", SRC).dt == value


@pytest.mark.parametrize("key", ["name", "preset"])
def test_empty_name_or_preset(key):
    message = refused(HEAD.replace(f'{key} = "{"case" if key == "name" else "sedan"}"', f'{key} = ""'))
    assert f"[script] {key}" in message and "non-empty string" in message


# -- [[hold]] ----------------------------------------------------------------------------------------


def test_unknown_key_in_hold_names_the_entry():
    message = refused(HEAD + GOOD_HOLD + GOOD_HOLD.replace("to = 2.0", "to = 2.0\nuntil = 3.0"))
    assert "[[hold]] #2" in message and "unknown key `until`" in message


def test_unknown_key_name_in_hold_keys():
    message = refused(HEAD + GOOD_HOLD.replace('["throttle"]', '["throttle", "nitro"]'))
    assert "[[hold]] #1" in message and "'nitro'" in message
    assert all(key in message for key in KEYS)  # lists the keys


@pytest.mark.parametrize("keys", ["[]", '"throttle"'])
def test_hold_keys_must_be_a_non_empty_list(keys):
    message = refused(HEAD + GOOD_HOLD.replace('["throttle"]', keys))
    assert "[[hold]] #1" in message and "non-empty list" in message


@pytest.mark.parametrize("missing", ["keys", "from", "to"])
def test_hold_key_missing(missing):
    table = "\n".join(line for line in GOOD_HOLD.splitlines() if not line.startswith(missing + " "))
    message = refused(HEAD + table + "\n")
    assert "[[hold]] #1" in message and f"`{missing}` is missing" in message


@pytest.mark.parametrize("start,end", [(3.0, 2.0), (2.0, 2.0)])
def test_hold_to_not_after_from(start, end):
    message = refused(HEAD + GOOD_HOLD + f"\n[[hold]]\nkeys = [\"left\"]\nfrom = {start}\nto = {end}\n")
    assert "[[hold]] #2" in message and "`to`" in message and "is not after `from`" in message


@pytest.mark.parametrize("start,end,bad,reason", [(7.0, 8.5, "to", "past the script's duration"),
                                                  (8.5, 9.0, "from", "past the script's duration"),
                                                  (8.0, 8.0, "from", "is the script's end (8 s)")])
def test_hold_time_past_duration(start, end, bad, reason):
    message = refused(HEAD + f"\n[[hold]]\nkeys = [\"left\"]\nfrom = {start}\nto = {end}\n")
    assert "[[hold]] #1" in message and f"`{bad}`" in message and reason in message


def test_hold_to_at_the_duration_is_allowed():
    s = parse_script(HEAD + "\n[[hold]]\nkeys = [\"left\"]\nfrom = 7.0\nto = 8.0\n", SRC)
    assert s.holds[0].end == 8.0


def test_hold_negative_time():
    message = refused(HEAD + GOOD_HOLD.replace("from = 0.0", "from = -0.5"))
    assert "[[hold]] #1" in message and "`from` = -0.5" in message and "before the start" in message


def test_hold_time_not_a_number():
    message = refused(HEAD + GOOD_HOLD.replace("to = 2.0", 'to = "2.0"'))
    assert "[[hold]] #1" in message and "`to`" in message and "finite number" in message


# -- [[set]] -----------------------------------------------------------------------------------------


def test_unknown_key_in_set_names_the_entry():
    message = refused(HEAD + GOOD_SET + "\n[[set]]\nat = 1.0\nwiper = 1.0\n")
    assert "[[set]] #2" in message and "unknown key `wiper`" in message
    assert all(name in message for name in ANALOG)  # the allowed keys are listed


def test_set_without_at():
    message = refused(HEAD + "\n[[set]]\ngear = 2\n")
    assert "[[set]] #1" in message and "`at` is missing" in message


@pytest.mark.parametrize("at,reason", [(8.5, "past the script's duration"), (-1.0, "before the start")])
def test_set_time_out_of_the_script(at, reason):
    message = refused(HEAD + f"\n[[set]]\nat = {at}\ngear = 2\n")
    assert "[[set]] #1" in message and "`at`" in message and reason in message


@pytest.mark.parametrize("name,value", [("steer", 1.5), ("steer", -1.01), ("throttle_pedal", -0.1),
                                        ("brake_pedal", 1.2), ("clutch_pedal", 2.0)])
def test_analog_override_out_of_range(name, value):
    message = refused(HEAD + f"\n[[set]]\nat = 1.0\n{name} = {value}\n")
    assert "[[set]] #1" in message and f"`{name}` = {value:g}" in message and "out of range" in message


@pytest.mark.parametrize("name,value", [("steer", -1.0), ("steer", 1.0), ("throttle_pedal", 0.0),
                                        ("clutch_pedal", 1.0)])
def test_analog_override_at_the_ends_of_its_range(name, value):
    s = parse_script(HEAD + f"\n[[set]]\nat = 1.0\n{name} = {value}\n", SRC)
    assert s.sets[0].analog == {name: value}


@pytest.mark.parametrize("value", ["2.5", '"2"', "true", "2.0"])
def test_gear_not_an_integer(value):
    message = refused(HEAD + f"\n[[set]]\nat = 1.0\ngear = {value}\n")
    assert "[[set]] #1" in message and "`gear` must be a whole number" in message


@pytest.mark.parametrize("release", ['["wheel"]', '"steer"', '["steer", 3]'])
def test_release_of_unknown_control(release):
    message = refused(HEAD + f"\n[[set]]\nat = 1.0\nrelease = {release}\n")
    assert "[[set]] #1" in message and "`release`" in message
    assert all(name in message for name in ANALOG)


def test_set_and_release_of_one_control():
    message = refused(HEAD + "\n[[set]]\nat = 1.0\nsteer = 0.5\nrelease = [\"steer\"]\n")
    assert "[[set]] #1" in message and "both set and released" in message


@pytest.mark.parametrize("body", ["", "release = []", "params = {}"])
def test_a_set_that_sets_nothing(body):
    message = refused(HEAD + GOOD_SET + f"\n[[set]]\nat = 1.0\n{body}\n")
    assert "[[set]] #2" in message and "sets nothing" in message


def test_params_must_be_a_table():
    message = refused(HEAD + "\n[[set]]\nat = 1.0\nparams = 400.0\n")
    assert "[[set]] #1" in message and "`params`" in message


# -- [[expect]] --------------------------------------------------------------------------------------


def test_unknown_key_in_expect_names_the_entry():
    message = refused(HEAD + GOOD_EXPECT.replace("min = 0.0", "min = 0.0\ntolerance = 0.1"))
    assert "[[expect]] #1" in message and "unknown key `tolerance`" in message


def test_unknown_channel_lists_the_known_channels():
    message = refused(HEAD + GOOD_EXPECT + GOOD_EXPECT.replace('"speed"', '"velocity"'))
    assert "[[expect]] #2" in message and "unknown channel 'velocity'" in message
    assert all(name in message for name in channel_names("m"))


def test_expect_without_channel():
    message = refused(HEAD + GOOD_EXPECT.replace('channel = "speed"\n', ""))
    assert "[[expect]] #1" in message and "`channel` is missing" in message


def test_expect_without_bounds():
    message = refused(HEAD + GOOD_EXPECT.replace("min = 0.0\n", ""))
    assert "[[expect]] #1" in message and "needs `min`, `max` or both" in message


def test_expect_max_below_min():
    message = refused(HEAD + GOOD_EXPECT.replace("min = 0.0", "min = 5.0\nmax = 4.0"))
    assert "[[expect]] #1" in message and "`max` (4) is below `min` (5)" in message


def test_expect_max_equal_min_is_allowed():
    s = parse_script(HEAD + GOOD_EXPECT.replace("min = 0.0", "min = 4.0\nmax = 4.0"), SRC)
    assert (s.expects[0].min, s.expects[0].max) == (4.0, 4.0)


@pytest.mark.parametrize("extra", ["from = 0.5", "to = 2.0", "from = 0.5\nto = 2.0"])
def test_expect_at_together_with_a_window(extra):
    message = refused(HEAD + GOOD_EXPECT.replace("at = 1.0", f"at = 1.0\n{extra}"))
    assert "[[expect]] #1" in message and "not both" in message


@pytest.mark.parametrize("window", ["", "from = 0.5", "to = 2.0"])
def test_expect_needs_at_or_a_whole_window(window):
    message = refused(HEAD + GOOD_EXPECT.replace("at = 1.0", window))
    assert "[[expect]] #1" in message and "needs `at`" in message


@pytest.mark.parametrize("window,bad,reason", [
    ("at = 8.01", "at", "past the script's duration"),
    ("at = -0.1", "at", "before the start"),
    ("from = 1.0\nto = 9.0", "to", "past the script's duration"),
    ("from = 8.0\nto = 8.0", "from", "is the script's end"),
    ("from = -1.0\nto = 1.0", "from", "before the start"),
])
def test_expect_times_out_of_the_script(window, bad, reason):
    message = refused(HEAD + GOOD_EXPECT.replace("at = 1.0", window))
    assert "[[expect]] #1" in message and f"`{bad}`" in message and reason in message


@pytest.mark.parametrize("start,end", [(3.0, 2.0), (2.0, 2.0)])
def test_expect_window_to_not_after_from(start, end):
    message = refused(HEAD + GOOD_EXPECT.replace("at = 1.0", f"from = {start}\nto = {end}"))
    assert "[[expect]] #1" in message and "is not after `from`" in message


def test_expect_at_the_duration_is_allowed():
    assert parse_script(HEAD + GOOD_EXPECT.replace("at = 1.0", "at = 8.0"), SRC).expects[0].at == 8.0


@pytest.mark.parametrize("bound", ["min = nan", "max = inf", 'min = "0"', "max = true"])
def test_expect_bound_not_a_finite_number(bound):
    message = refused(HEAD + GOOD_EXPECT.replace("min = 0.0", bound))
    assert "[[expect]] #1" in message and "finite number" in message


def test_expect_label_and_bounds_text():
    s = parse_script(HEAD + GOOD_EXPECT + """
[[expect]]
name = "named"
channel = "rpm"
from = 1.0
to = 2.5
min = 900.0
max = 1100.0
""", SRC)
    assert s.expects[0].label() == "speed at 1 s"
    assert s.expects[0].bound_text() == ">= 0"
    assert s.expects[1].label() == "named"
    assert s.expects[1].bound_text() == ">= 900 and <= 1100"


# -- files -------------------------------------------------------------------------------------------


def test_load_script_of_a_missing_file(tmp_path):
    path = tmp_path / "nope.toml"
    with pytest.raises(ScriptError, match="no such script file") as info:
        load_script(path)
    assert str(path) in str(info.value)


def test_load_script_of_a_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes((HEAD.replace('"case"', '"caf\xe9"')).encode("latin-1"))
    with pytest.raises(ScriptError, match="not UTF-8 text") as info:
        load_script(path)
    assert str(path) in str(info.value)


def test_load_script_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(HEAD + "\n[[hold]]\nkeys = [\"nitro\"]\nfrom = 0.0\nto = 1.0\n", encoding="utf-8")
    with pytest.raises(ScriptError) as info:
        load_script(path)
    assert str(info.value).startswith(f"{path}: [[hold]] #1: unknown key 'nitro'")


# -- writing a script back ---------------------------------------------------------------------------

FULL = Script(
    name="round-trip: \"quoted\" and \\ back",
    preset="sedan",
    duration=12.5,
    dt=1 / 120,
    description="every feature of the format\nover two lines, caf\u00e9",
    sets=(
        Setting(0.0, gear=-1),
        Setting(0.1, analog={"steer": -0.3333333333333333, "throttle_pedal": 0.1}),
        Setting(1 / 3, release=("steer",), params={"engine.peak_torque": 400.5, "tyres.mu": 0.9}),
        Setting(2.0, gear=2, analog={"clutch_pedal": 1.0}, release=("throttle_pedal",)),
        Setting(3.0, params={"gearbox.ratios": [3.6, 2.1, 1.4, 1.0, 0.8]}),
    ),
    holds=(
        Hold(("throttle", "left"), 0.0, 12.5),
        Hold(("gear_up",), 1 / 7, 0.3),
        Hold(tuple(KEYS), 5.0, 5.000001),
    ),
    expects=(
        Expect("speed_kmh", at=2.4, min=10.8, name="named \u2192 arrow"),
        Expect("rpm", start=0.1, end=12.5, min=-1e-300, max=1e300),
        Expect("yaw_rate", at=12.5, max=-math.pi),
    ),
    source=SRC,
)


def test_to_toml_round_trip_of_every_feature():
    text = FULL.to_toml()
    assert parse_script(text, SRC) == FULL


def test_written_script_is_toml_with_script_first():
    text = FULL.to_toml()
    doc = tomllib.loads(text)
    assert list(doc) == ["script", "set", "hold", "expect"]
    assert text.lstrip().startswith("[script]\n")
    assert len(doc["set"]) == 5 and len(doc["hold"]) == 3 and len(doc["expect"]) == 3
    assert doc["script"]["dt"] == 1 / 120


def test_minimal_script_round_trip():
    s = Script("m", "parking", 1.0, source=SRC)
    text = s.to_toml()
    assert tomllib.loads(text) == {"script": {"name": "m", "preset": "parking", "duration": 1.0}}
    assert parse_script(text, SRC) == s


def test_every_shipped_script_round_trips(shipped_paths):
    for path in shipped_paths:
        s = load_script(path)
        assert s.expects, f"{path.name} has no expectation"
        again = parse_script(s.to_toml(), str(path))
        assert again == s, path.name


def test_save_and_load(tmp_path):
    (tmp_path / "sub").mkdir()  # saving never creates folders
    path = FULL.save(tmp_path / "sub" / "full.toml")
    assert path == tmp_path / "sub" / "full.toml"
    loaded = load_script(path)
    assert loaded.source == str(path)
    assert loaded == Script(**{**FULL.__dict__, "source": str(path)})


@pytest.mark.parametrize("text, said", [
    (HEAD.replace("duration = 8.0", "duration = 8.0\ndt = 0.05000000001"),
     "[script] dt: 0.05000000001 s must be in [1e-05, 0.05] s"),
    (HEAD + "[[hold]]\nkeys = [\"throttle\"]\nfrom = 0.0\nto = 8.000000001\n",
     "`to` = 8.000000001 is past the script's duration (8 s)"),
    (HEAD + "[[set]]\nat = 1.0\nsteer = 1.0000001\n", "`steer` = 1.0000001 is out of range -1..1"),
    (HEAD + "[[expect]]\nchannel = \"speed_kmh\"\nat = 1.0\nmin = 1.0\nmax = 0.9999999\n",
     "`max` (0.9999999) is below `min` (1)"),
    (HEAD + "[[hold]]\nkeys = [\"throttle\"]\nfrom = 1.0\nto = 0.9999999\n", "`to` (0.9999999) is not after `from` (1)"),
])
def test_a_value_refused_against_a_limit_is_written_in_the_digits_that_tell_it_from_the_limit(text, said):
    # ":g" wrote "0.05 s must be in [1e-05, 0.05] s": a refusal that read as a contradiction
    with pytest.raises(ScriptError) as info:
        parse_script(text, SRC)
    assert said in str(info.value)
