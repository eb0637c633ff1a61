"""A sixth look at hostile input (manoeuvre, tagged scripts, sweeps at the dt limits, presets files): each case
failed before its fix.

In-process calls only (the suite is at the edge of its time budget); no case compiles a model variant.
"""

from __future__ import annotations

import pytest
from cli_calls import run

SHORT = ('[script]\nname = "n"\npreset = "teaching"\nduration = 0.1\n'
         '[[expect]]\nchannel = "speed"\nat = 0.05\nmax = 1.0\n')


def test_a_sweep_of_a_handling_tests_script_too_long_at_its_dt_is_one_line_not_a_traceback(tmp_path, capsys):
    """``sweep iso4138_circle --dt 1e-5``: the test's runs (7,000,001 frames each) are over the memory budget; the
    ScriptError came out of the sweep as a traceback, exit 1."""
    code, out, err = run(["sweep", "iso4138_circle", "--param", "body.mass=1500:1600:3", "--dt", "1e-5",
                          "--out", str(tmp_path / "sw")], capsys)
    assert code == 2 and out == "", (code, err)
    assert err.count("\n") == 1 and err.startswith("carbench: ") and "iso4138_circle.toml: 7,000,001 frames" in err, err
    assert not (tmp_path / "sw").exists()


def test_a_run_over_the_memory_budget_names_max_memory_only_where_the_command_has_it(tmp_path, capsys):
    """compare and a test's sweep said '(shorten the script, raise dt, or raise --max-memory)', an option neither
    takes (argparse refused it); replay, which has it, still names it."""
    said = "coastdown_fit.toml: 17,000,001 frames of 103 channels would take 14.7 GiB, over the memory budget of 2 GiB"
    code, out, err = run(["compare", "coastdown_fit", "--vs-dt", "1e-5"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and said in err, err
    assert err.endswith("(shorten the script or raise dt)\n"), err
    code, out, err = run(["sweep", "iso4138_circle", "--param", "body.mass=1500:1600:3", "--dt", "1e-5",
                          "--out", str(tmp_path / "sw")], capsys)
    assert code == 2 and err.endswith("(shorten the script or raise dt)\n"), err
    code, out, err = run(["replay", "coastdown_fit", "--dt", "1e-5"], capsys)
    assert code == 2 and said in err and err.endswith("(shorten the script, raise dt, or raise --max-memory)\n"), err


@pytest.mark.parametrize("entry, said", [
    ('[script]\nname = "n"\npreset = "teaching"\nduration = 1e999\n', "[script] duration: 1e999"),
    ('[script]\nname = "n"\npreset = "sedan"\nduration = 1.0\n[driver]\nspeed_kmh = [[0.0, 10.0], [1.0, -1e999]]\n',
     "[driver] speed_kmh[1][1]: -1e999"),
    (SHORT + '[[set]]\nat = 0.0\nparams = { "body.mass" = 1e400 }\n', '[[set]] #1 params."body.mass": 1e400'),
], ids=["duration", "speed-profile", "set-params"])
def test_a_number_beyond_a_float_in_a_script_is_said_as_typed(entry, said, tmp_path, capsys):
    """TOML reads 1e999 as inf: ``duration = 1e999`` said "[script] duration: expected a finite number, got inf" and a
    [[set]] params' "body.mass = inf: inf is not a finite number", a value the user never wrote (the command line's
    --set and --vs-set were fixed before: test_a_number_beyond_a_float_on_the_command_line_is_said_as_typed)."""
    script = tmp_path / "s.toml"
    script.write_text(entry, encoding="utf-8")
    code, out, err = run(["replay", str(script)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err == f"carbench: {script}: {said} is beyond a floating-point number's range\n", err
    script.write_text(SHORT.replace("duration = 0.1", "duration = inf"), encoding="utf-8")  # inf typed is inf
    code, out, err = run(["replay", str(script)], capsys)
    assert code == 2 and err.endswith("[script] duration: expected a finite number, got inf\n"), err


def test_the_change_b_minus_a_of_two_cars_is_shown_in_the_kpis_unit():
    """``manoeuvre iso7975 --vs-set body.mass=1700`` printed the change B - A as a bare number ('1.694 deg  1.622 deg
    -0.07194', '5.165 m/s^2  5.165 m/s^2 -0.0002223', one space from B's unit): every other figure of the table
    carries its unit."""
    from workbench.manoeuvres.kpi import Kpi
    from workbench.manoeuvres.manoeuvre_command import Outcome, table
    from workbench.manoeuvres.runner import Car

    def kpis(heading, decel):
        return [Kpi("heading_deviation_1s", "heading deviation from the circle at 1 s", heading, "deg", "c"),
                Kpi("mean_decel_1s", "mean deceleration over the first second", decel, "m/s^2", "c"),
                Kpi("yaw_ratio_1s", "yaw-rate ratio 1 s after brake onset", 0.9383, "", "c")]

    outcome = Outcome(["iso7975"], [Car(None, "sedan"), Car(None, "sedan (body.mass 1700 kg)")],
                      {"iso7975": [kpis(1.694, 5.165), kpis(1.622, 5.1647777)]}, {"iso7975": 1.0})
    rows = {line.split("  ")[1].strip(): line for line in table(outcome).splitlines() if line.startswith("  ")}
    assert "1.622 deg        -0.072 deg   [c]" in rows["heading deviation from the circle at 1 s"], rows
    assert "5.165 m/s^2  -0.0002223 m/s^2   [c]" in rows["mean deceleration over the first second"], rows
    assert rows["yaw-rate ratio 1 s after brake onset"].endswith("0.9383           0.9383                +0   [c]")
