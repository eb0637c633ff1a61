"""The ``carbench`` command as a subprocess (SPEC 5): exit 0 when all pass, 1 when one fails, 2 for bad
input with a one-line ``carbench: ...`` message and no traceback; --json; presets; demo."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import cli_env

from physics import channel_infos, preset_names
from physics.units import display_of

CLUTCH = "presets/scripts/clutch_coast.toml"
PARKING = "presets/scripts/parking_full_lock.toml"

IMPOSSIBLE = """[script]
name = "impossible"
preset = "manual003"
duration = 2.0

[[hold]]
keys = ["throttle"]
from = 0.0
to = 2.0

[[expect]]
name = "moves at all"
channel = "speed"
at = 2.0
min = 0.1

[[expect]]
name = "supersonic in two seconds"
channel = "speed_kmh"
from = 1.0
to = 2.0
min = 1234.0
"""


def by_name(results, name):
    return next(r for r in results if r.program.name == name)


def assert_bad_input(done, *needles):
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    assert done.stderr.startswith("carbench: "), done.stderr
    assert done.stderr.endswith("\n") and done.stderr.count("\n") == 1, done.stderr
    assert done.stdout == ""
    for needle in needles:
        assert needle in done.stderr, (needle, done.stderr)


def test_replay_of_a_passing_script(run_cli, shipped_alone):
    done = run_cli("replay", CLUTCH)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    expected = by_name(shipped_alone, "clutch-coast")
    lines = done.stdout.splitlines()
    assert lines[0].startswith("clutch-coast  (presets/scripts/clutch_coast.toml)  preset manual003")
    for verdict in expected.verdicts:
        assert any(line.strip().startswith(f"PASS  {verdict.expect.label()}") for line in lines), verdict.expect
    assert "FAIL" not in done.stdout
    n = len(expected.verdicts)
    assert lines[-1] == f"1 script, {n} expectations: {n} passed, 0 failed"


def test_replay_of_a_failing_script_names_the_expectation(run_cli, tmp_path):
    path = tmp_path / "impossible.toml"
    path.write_text(IMPOSSIBLE, encoding="utf-8")
    done = run_cli("replay", path, CLUTCH)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    rows = [line.strip() for line in done.stdout.splitlines()]
    assert any(row.startswith("FAIL  supersonic in two seconds  speed_kmh") for row in rows), done.stdout
    assert any(row.startswith("PASS  moves at all") for row in rows)
    assert rows[-1].endswith("passed, 1 failed (1 script failing)")
    assert rows[-1].startswith("2 scripts, 8 expectations: 7 passed")


@pytest.mark.parametrize("case", ["missing file", "malformed TOML", "unknown channel", "unknown --preset",
                                  "--dt 0", "--dt -1", "--dt 1.0", "--dt word", "no script"])
def test_bad_input_exits_2_with_one_line(run_cli, tmp_path, case):
    bad = tmp_path / "bad.toml"
    if case == "missing file":
        done = run_cli("replay", CLUTCH, tmp_path / "nope.toml")
        assert_bad_input(done, "nope.toml", "no such script file")
    elif case == "malformed TOML":
        bad.write_text('[script]\nname = "x"\npreset = "sedan\nduration = 1.0\n', encoding="utf-8")
        done = run_cli("replay", bad)
        assert_bad_input(done, str(bad), "not valid TOML", "line 3")
    elif case == "unknown channel":
        bad.write_text(IMPOSSIBLE.replace('channel = "speed_kmh"', 'channel = "warp_factor"'), encoding="utf-8")
        done = run_cli("replay", bad)
        assert_bad_input(done, str(bad), "[[expect]] #2", "unknown channel 'warp_factor'", "speed_kmh")
    elif case == "unknown --preset":
        done = run_cli("replay", CLUTCH, "--preset", "lorry")
        assert_bad_input(done, "--preset", "lorry", *preset_names())
    elif case == "--dt word":
        done = run_cli("replay", CLUTCH, "--dt", "word")
        assert_bad_input(done, "--dt", "word")
    elif case == "no script":
        done = run_cli("replay")
        assert_bad_input(done, "SCRIPT")
    else:
        value = case.split()[1]
        done = run_cli("replay", CLUTCH, "--dt", value)
        assert_bad_input(done, "--dt", "[1e-05, 0.05]")


def test_a_preset_without_a_channel_is_bad_input(run_cli):
    done = run_cli("replay", CLUTCH, "--preset", "parking")
    assert_bad_input(done, "clutch_coast.toml", "[[expect]] #1", "unknown channel 'speed_kmh'")


def test_json_verdicts(run_cli, tmp_path, shipped_alone):
    path = tmp_path / "impossible.toml"
    path.write_text(IMPOSSIBLE, encoding="utf-8")
    done = run_cli("replay", PARKING, path, CLUTCH, "--json")
    assert done.returncode == 1, done.stderr
    doc = json.loads(done.stdout)
    assert doc["passed"] is False
    assert [s["name"] for s in doc["scripts"]] == ["parking-full-lock", "impossible", "clutch-coast"]
    assert [s["passed"] for s in doc["scripts"]] == [True, False, True]
    assert [e["passed"] for e in doc["scripts"][1]["expectations"]] == [True, False]
    assert doc["scripts"][1]["expectations"][1]["label"] == "supersonic in two seconds"
    for entry in (doc["scripts"][0], doc["scripts"][2]):
        expected = by_name(shipped_alone, entry["name"])
        assert entry["digest"] == expected.digest()  # another process, the same telemetry
        assert entry["frames"] == expected.program.frames and entry["preset"] == expected.program.preset
        assert len(entry["expectations"]) == len(expected.verdicts)
        infos = {c.name: c for c in channel_infos(expected.program.params.model.unit)}
        for e, v in zip(entry["expectations"], expected.verdicts, strict=True):
            assert e["label"] == v.expect.label() and e["channel"] == v.expect.channel
            unit, factor = display_of(infos[v.expect.channel])  # in display units, as the table shows them
            assert e["measured"] == v.measured * factor and e["frame"] == v.frame and e["passed"] == v.passed
            assert e["frames"] == [v.first, v.last] and e["unit"] == unit


def test_json_of_passing_scripts_exits_0(run_cli):
    done = run_cli("replay", CLUTCH, "--json", "--dt", "0.01")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["passed"] is True and doc["scripts"][0]["dt"] == 0.01 and doc["scripts"][0]["frames"] == 801


def test_presets_lists_cars_and_scripts(run_cli, shipped_paths):
    done = run_cli("presets")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    cars = out.split("Input scripts")[0]
    for name in ("parking", "teaching", "f1tenth", "sedan", "classic", "manual003"):
        assert f"  {name} " in cars, name
    assert set(preset_names()) == {"parking", "teaching", "f1tenth", "sedan", "classic", "manual003",
                                   "sedan_single_track", "tail_happy"}
    scripts = out.split("Input scripts")[1]
    for path in shipped_paths:
        assert path.name in scripts
    assert "unreadable" not in out


def test_demo_replays_the_shipped_scripts(run_cli, shipped_alone):
    done = run_cli("demo")
    assert done.returncode == 0, done.stderr
    n = sum(len(r.verdicts) for r in shipped_alone)
    last = done.stdout.splitlines()[-2:]
    assert last == [f"{len(shipped_alone)} scripts, {n} expectations: {n} passed, 0 failed",
                    f"monitors: no violation in {sum(bool(r.program.script.monitors) for r in shipped_alone)} scripts"]
    for r in shipped_alone:
        assert f"{r.program.name}  (" in done.stdout


def test_no_command_without_a_display_runs_the_demo(run_cli):
    done = run_cli()
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("carbench: no display found") and done.stderr.count("\n") == 2  # and a blank line
    assert "expectations:" in done.stdout.splitlines()[-2] and "monitors: no violation" in done.stdout.splitlines()[-1]


def test_a_preset_that_cannot_be_decoded_is_bad_input(run_cli, tmp_path):
    bad = tmp_path / "binary.toml"
    bad.write_bytes(b"\x80\x81\x82 not text")
    assert_bad_input(run_cli("replay", CLUTCH, "--preset", str(bad)), "binary.toml", "not UTF-8")


def test_help_version_and_a_bad_option_answer_without_the_model(run_cli):
    # The subcommands' parsers are built without importing their commands: the model and numba load only for a
    # command that runs (`carbench --version` took 1.3 s of wall time, 0.7 s of it importing numba).
    probe = ("import sys, runpy; sys.argv = ['carbench'] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('workbench', run_name='__main__')\n"
             "except SystemExit as exit:\n"
             "    print('imported:', sorted(m for m in ('numba', 'physics', 'PySide6') if m in sys.modules),\n"
             "          'exit:', exit.code, file=sys.stderr)\n")
    for args, code in ((["--help"], 0), (["--version"], 0), (["hunt", "--cars", "many"], 2),
                       (["manoeuvre", "--help"], 0), (["compare", "--bogus"], 2)):
        done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, env=cli_env(),
                              timeout=60, stdin=subprocess.DEVNULL)
        assert done.stderr.strip().splitlines()[-1] == f"imported: [] exit: {code}", (args, done.stderr)
    listed = run_cli("manoeuvre", "--help").stdout
    from workbench.manoeuvres.catalogue import CATALOGUE

    assert ", ".join(CATALOGUE) in " ".join(listed.split())  # the help names every test the catalogue has


LATE_CTRL_C = """
import atexit, os, signal, sys, time
from workbench import cli

def late():  # a Ctrl-C as the interpreter shuts down, after the command is over (as numba's exit handlers run)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)

atexit.register(late)
sys.exit(cli.entry(sys.argv[1:]))
"""


@pytest.mark.parametrize("args", [["--version"], ["replay", "presets/scripts/clutch_coast.toml", "--json"]])
def test_a_ctrl_c_once_the_command_is_over_prints_no_traceback(args):
    from conftest import REPO

    done = subprocess.run([sys.executable, "-c", LATE_CTRL_C, *args], capture_output=True, text=True, env=cli_env(),
                          cwd=REPO, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr
