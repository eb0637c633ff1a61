"""Numbers typed on the command line: ASCII digits, a point and an exponent, as a shell user types them. Python's
``float`` reads other scripts' digits ("0.0\u0661" as 0.01), underscores and the words inf and nan; a replay at
``--dt 0.0\u0661`` ran at 0.01 s, and ``--dt 1e309`` was refused as "dt = inf", a value nobody typed."""

from __future__ import annotations

import json

import pytest
from cli_calls import run

from workbench.runs.sweep_axes import SweepError, parse_axis
from workbench.scripts.limits import parse_bytes

NOT_NUMBERS = ["0.0\u0661", "\u0660.01", "1_0", "0x10", " 0.01", "0.01 ", "nan", "inf", "-inf", "1e", ".", "+"]


@pytest.mark.parametrize("text", NOT_NUMBERS)
@pytest.mark.parametrize("option", [["replay", "clutch_coast", "--dt"], ["hunt", "--seconds"],
                                    ["compare", "clutch_coast", "--vs-dt"], ["compare", "clutch_coast", "--atol"]])
def test_an_option_refuses_what_is_no_ascii_number(option, text, capsys):
    code, out, err = run([*option, text], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1, err
    assert f"argument {option[-1]}: invalid number value: '{text}'" in err, err


@pytest.mark.parametrize("text", ["1e309", "-1e309", "1e-999", "2.5e-400"])
def test_a_number_beyond_a_floats_range_is_refused_as_typed(text, capsys):
    code, out, err = run(["replay", "clutch_coast", f"--dt={text}"], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: argument --dt: '{text}' is beyond a floating-point number's range"], err


@pytest.mark.parametrize("text", ["0.005", "5e-3", "5E-3", "+0.005", ".005", "0.0050"])
def test_the_ascii_forms_of_a_number_are_read(text, capsys):
    code, out, err = run(["replay", "clutch_coast", "--dt", text, "--json"], capsys)
    assert err == "" and code in (0, 1), err
    assert json.loads(out)["scripts"][0]["dt"] == 0.005, out


def test_a_sweep_value_and_a_memory_size_are_held_to_ascii_digits(capsys):
    from physics import load_preset

    params = load_preset("sedan").params
    with pytest.raises(SweepError, match="'\u0661\u0660\u0660\u0660' is not a number"):
        parse_axis("body.mass=\u0661\u0660\u0660\u0660,1200", params)
    with pytest.raises(SweepError, match="'1_000' is not a number"):
        parse_axis("body.mass=1_000:1200:3", params)
    assert list(parse_axis("body.mass=1000,1.2e3", params).values) == [1000.0, 1200.0]
    with pytest.raises(ValueError, match="'\u0662' is not a number"):
        parse_bytes("\u0662G")
    assert parse_bytes("2G") == 2 * 1024 ** 3


@pytest.mark.parametrize(("value", "said"), [
    ("gearbox.ratios=[0x3, 2.0, 1.4, 1.0, 0.8]", "a number is typed in decimal here (TOML would read it as [3, 2.0, "
                                                 "1.4, 1.0, 0.8])"),
    ("gearbox.ratios=[3.0, 2.0, 1.4, 1.0, 0b1]", "a number is typed in decimal here"),
    ("gearbox.ratios=[1e400, 2.0, 1.4, 1.0, 0.8]", "1e400 is beyond a floating-point number's range"),
    ("gearbox.ratios=[3.0, 2.0, 1.4, 1.0, 1e-400]", "1e-400 is beyond a floating-point number's range"),
])
def test_a_list_value_is_held_to_the_rules_of_a_single_one(value, said, capsys):
    # --vs-set body.mass=0x600 was refused, but inside a list TOML's hexadecimal integer was read as 3 and 1e400 as inf
    code, out, err = run(["compare", "clutch_coast", "--vs-set", value], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"carbench: --vs-set {value}: {said}"), err


def test_a_list_of_decimal_numbers_and_text_holding_0x_are_taken():
    from workbench.runs.compare_command import parse_assignment

    assert parse_assignment("gearbox.ratios=[3.5, 2, 1.4e0]") == ("gearbox.ratios", [3.5, 2, 1.4])
    assert parse_assignment('model.name="0x3"') == ("model.name", "0x3")


@pytest.mark.parametrize(("argv", "said"), [
    # (the review) a sweep's count of values, a --vs-set value with TOML's underscores, a size below a float's range
    # and a number beyond it inside a list within a list
    (["sweep", "clutch_coast", "--param", "body.mass=1000:1200:\u0661_0"],
     "--param body.mass=1000:1200:\u0661_0: N = '\u0661_0' must be a whole number of values (ASCII digits)"),
    (["compare", "clutch_coast", "--vs-set", "body.mass=1_500"],
     "--vs-set body.mass=1_500: a number is typed without underscores here (TOML would read it as 1500)"),
    (["replay", "clutch_coast", "--max-memory", "1e-400G"],
     "argument --max-memory: '1e-400G': '1e-400' is beyond a floating-point number's range"),
    (["compare", "clutch_coast", "--vs-set", "gearbox.ratios=[[1e400], 2.0]"],
     "--vs-set gearbox.ratios=[[1e400], 2.0]: 1e400 is beyond a floating-point number's range"),
])
def test_every_number_typed_is_held_to_the_same_rules(argv, said, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: {said}"], err
