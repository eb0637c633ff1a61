"""A number typed below a float's range: ``1e-999`` read as 0, a value the user never wrote, and ran as such (a sweep
of ``aero.cd=1e-999,0.3`` ran a car without drag). It is refused as typed, as ``1e999`` is, in every file and option
that reads a number the user types: presets, scripts, ``--set``/``--vs-set`` and a sweep's ``--param``."""

from __future__ import annotations

import pytest
from cli_calls import run

from physics.toml_text import read_float, underflows

SHORT = ('[script]\nname = "n"\npreset = "teaching"\nduration = 0.1\n'
         '[[expect]]\nchannel = "speed"\nat = 0.05\nmax = 1.0\n')


@pytest.mark.parametrize("text, below", [("1e-999", True), ("-2.5e-400", True), ("1_0e-999", True), ("0.0", False),
                                         ("0e-999", False), ("-0.0", False), ("0.000", False), ("5e-324", False),
                                         ("1e-300", False), ("2.0", False)])
def test_a_literal_below_a_float_is_told_from_a_zero(text, below):
    assert underflows(text, float(text)) is below
    assert (getattr(read_float(text), "typed", "") == text) is below


@pytest.mark.parametrize("entry, said", [
    (SHORT + '[[set]]\nat = 0.0\nparams = { "aero.cd" = 1e-999 }\n', '[[set]] #1 params."aero.cd": 1e-999'),
    (SHORT.replace("max = 1.0", "max = -3e-500"), "[[expect]] #1 max: -3e-500"),
], ids=["set-params", "expectation"])
def test_a_number_below_a_float_in_a_script_is_said_as_typed(entry, said, tmp_path, capsys):
    script = tmp_path / "s.toml"
    script.write_text(entry, encoding="utf-8")
    code, out, err = run(["replay", str(script)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err == f"carbench: {script}: {said} is beyond a floating-point number's range\n", err


def test_a_number_below_a_float_in_a_preset_is_said_as_typed(tmp_path, capsys):
    from physics.presets import cars_dir

    text = (cars_dir() / "sedan.toml").read_text(encoding="utf-8")
    preset = tmp_path / "car.toml"
    preset.write_text(text.replace("cd = 0.27", "cd = 1e-999", 1), encoding="utf-8")
    code, out, err = run(["manoeuvre", "acceleration", "--preset", str(preset)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "[aero] cd: 1e-999 is beyond a floating-point number's range" in err, err


@pytest.mark.parametrize("argv", [["compare", "S", "--vs-set", "aero.cd=1e-999"],
                                  ["manoeuvre", "acceleration", "--set", "aero.cd=-1e-999"],
                                  ["sweep", "S", "--param", "aero.cd=1e-999,0.3", "--out", "OUT"],
                                  ["sweep", "S", "--param", "aero.cd=0:1e-999:3", "--out", "OUT"]])
def test_a_number_below_a_float_on_the_command_line_is_said_as_typed(argv, tmp_path, capsys):
    script = tmp_path / "s.toml"
    script.write_text(SHORT, encoding="utf-8")
    out_dir = tmp_path / "out"
    code, out, err = run([str(script) if a == "S" else str(out_dir) if a == "OUT" else a for a in argv], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "e-999" in err and "is beyond a floating-point number's range" in err, err
    assert not out_dir.exists()
