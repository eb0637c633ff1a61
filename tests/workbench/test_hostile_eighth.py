"""Promises under hostile use, the eighth pass: compare's inputs, a script of many parameter changes."""
from __future__ import annotations

from cli_calls import run

from physics.presets import scripts_dir


def test_two_scripts_to_compare_are_told_they_are_not_csvs(capsys):
    """`carbench compare A.toml B.toml --vs-preset sedan` said "two CSVs are compared as they are", of two scripts."""
    script = str(scripts_dir() / "braking_stop.toml")
    code, out, err = run(["compare", script, script, "--vs-preset", "sedan"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"carbench: {script}: two inputs are compared as telemetry CSVs (.csv)"), err


def test_a_script_of_many_parameter_changes_compiles_in_about_a_second_not_fourteen():
    """Each [[set]] of parameters read the parameter classes' type hints again (3.3 ms apiece, 70% of it): a script
    of 2,000 such changes took 14 s to compile. Counted, not timed: the hints are read once per class."""
    import typing
    from unittest import mock

    from workbench.scripts.format import parse_script
    from workbench.scripts.program import compile_script

    text = '[script]\nname = "many"\npreset = "sedan"\nduration = 2.0\n' + "".join(
        f'[[set]]\nat = {i * 0.01:.2f}\nparams = {{ "body.mass" = {1500 + i}.0 }}\n' for i in range(50))
    compile_script(parse_script(text))  # every class's hints read once, in this process
    with mock.patch.object(typing, "get_type_hints", side_effect=AssertionError("read again")):
        program = compile_script(parse_script(text))
    assert len(program.script.sets) == 50


def test_a_sweeps_refusal_of_a_parking_car_gives_its_lengths_in_pixels():
    """The parameter groups' own checks wrote their values without units; with them, a sweep's check of a car in
    pixels said metres where the sweep's own text beside it said px."""
    import numpy as np

    from physics import load_preset
    from workbench.runs.sweep import _group_problem

    car = load_preset("parking").params
    said = _group_problem(car, "body", ["body.lr"], np.array([10.0 * car.body.wheelbase]))
    assert said == f"lr = {10.0 * car.body.wheelbase:g} px: must be less than the wheelbase ({car.body.wheelbase:g} px)"


def test_a_value_nested_thousands_deep_on_the_command_line_is_said_so(capsys):
    """`--set body.mass=[[[...` 10,000 deep said "maximum recursion depth exceeded"; in a file, "nested too deeply"."""
    script = str(scripts_dir() / "braking_stop.toml")
    code, out, err = run(["compare", script, "--vs-set", "body.mass=" + "[" * 10_000], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err == "carbench: --vs-set body.mass: nested too deeply\n", err
