"""What the README promises, tried as a hostile user would: names, clobbered inputs, left-behind files,
signals at every stage, full disks, links, FIFOs, devices, long names, huge numbers, the environment.

Each refusal is checked like test_hostile's: exit 2, stderr one ``carbench: `` line naming what is at
fault, stdout empty, no traceback, and the folder exactly as it was (nothing written, nothing changed).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cli_calls import run, snapshot
from numba_cache import seed_subsystems

from physics.presets import cars_dir, scripts_dir
from workbench import cli

REPO = Path(__file__).resolve().parents[2]
SEDAN = (cars_dir() / "sedan.toml").read_text(encoding="utf-8")
SHORT = ('[script]\nname = "short"\npreset = "sedan"\nduration = 2.0\n'
         '[[hold]]\nkeys = ["throttle"]\nfrom = 0.0\nto = 1.0\n'
         '[[expect]]\nchannel = "speed"\nat = 1.5\nmin = 0.0\n')
HASH = "a" * 64
RECORDED = ('\n[recorded]\ncarbench = "x"\nnumpy = "y"\npreset = "sedan"\npreset_sha256 = "{h}"\n'
            'params_sha256 = "{h}"\ndt = {dt}\nchanged = {changed}\n')
GEARS = "[" + ", ".join(["3.0"] * 10_000) + "]"
SWEEP = ["sweep", "S.toml", "--param", "body.mass=900:1000:2", "--out", "sw"]


def recorded(dt: str = "0.01", changed: str = "[]") -> str:
    return SHORT + RECORDED.format(h=HASH, dt=dt, changed=changed)


def one_line(code: int, out: str, err: str, needles=()) -> None:
    assert code == cli.EXIT_BAD_INPUT, (code, out, err)
    assert out == "", out
    assert err.startswith("carbench: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)


# -- the files a case starts from ------------------------------------------------------------------

def _files(root: Path, kind: str) -> None:
    from physics import channel_names

    (root / "S.toml").write_text(SHORT, encoding="utf-8")
    names = channel_names("m")
    rows = [",".join(names)] + [",".join([f"{t / 100:g}"] + ["0"] * (len(names) - 1)) for t in range(3)]
    (root / "a.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (root / "car.toml").write_text(SEDAN, encoding="utf-8")
    if kind == "link":
        (root / "link.toml").symlink_to("car.toml")
    elif kind == "hardlink":
        os.link(root / "car.toml", root / "hard.toml")
    elif kind == "o":
        (root / "o").mkdir()
        (root / "o" / "sweep.csv").write_text(SEDAN, encoding="utf-8")
    elif kind == "o-script":
        (root / "o").mkdir()
        (root / "o" / "sweep.csv").write_text(SHORT, encoding="utf-8")
    elif kind == "rep":
        (root / "rep").mkdir()
        (root / "rep" / "index.html").write_text(SHORT, encoding="utf-8")
    elif kind == "rep-link":
        (root / "rep").mkdir()
        (root / "rep" / "index.html").symlink_to(root / "S.toml")
    elif kind == "fifo":
        os.mkfifo(root / "b.csv")
    elif kind == "zero":
        (root / "b.csv").symlink_to("/dev/zero")
    elif kind == "null":
        (root / "n.csv").symlink_to("/dev/null")
    elif kind == "bigcsv":
        with open(root / "b.csv", "wb") as f:
            f.truncate(1024**3 + 1)  # sparse
    elif kind == "loop":
        (root / "loop1").symlink_to("loop2")
        (root / "loop2").symlink_to("loop1")
    elif kind == "bigint":
        (root / "big.toml").write_text(SHORT + '[[set]]\nat = 1.0\nparams = { "body.mass" = ' + "9" * 5000 + " }\n",
                                       encoding="utf-8")
    elif kind == "bigint-preset":
        (root / "big.toml").write_text(SEDAN.replace("mass = ", "mass = " + "9" * 5000 + " # ", 1), encoding="utf-8")
    elif kind == "gears-preset":
        (root / "gears.toml").write_text(re.sub(r"ratios = \[[^\]]*\]", f"ratios = {GEARS}", SEDAN, count=1),
                                         encoding="utf-8")
    elif kind == "gears-set":
        (root / "gears.toml").write_text(SHORT + f'[[set]]\nat = 1.0\nparams = {{ "gearbox.ratios" = {GEARS} }}\n',
                                         encoding="utf-8")
    elif kind == "huge-dt":
        (root / "rec.toml").write_text(recorded(dt="1" + "0" * 400), encoding="utf-8")
    elif kind == "datetime":
        (root / "rec.toml").write_text(
            recorded(changed='[{ path = "body.mass", preset = 1979-05-27T07:32:00Z, run = 1.0 }]'), encoding="utf-8")
    elif kind == "long-changed":
        rows = ", ".join('{ path = "body.mass", preset = 1.0, run = 2.0 }' for _ in range(1001))
        (root / "rec.toml").write_text(recorded(changed=f"[{rows}]"), encoding="utf-8")
    elif kind == "rep-dir":  # what the report writes is a folder already: found before the run, not after
        (root / "rep" / "index.html").mkdir(parents=True)
    elif kind == "rep-png-dir":
        (root / "rep" / "short-expect-1.png").mkdir(parents=True)
    elif kind == "o-dir":
        (root / "o" / "sweep.csv").mkdir(parents=True)
    elif kind == "h-report-file":
        (root / "h").mkdir()
        (root / "h" / "report").write_text("a file where hunt writes its report folder\n", encoding="utf-8")
    elif kind == "local-sedan":  # a file named like the shipped preset, in the working folder: it wins
        (root / "sedan").write_text("x[[[\n", encoding="utf-8")
    elif kind == "dirs":
        (root / "sedan").mkdir()
        (root / "braking_stop").mkdir()
        (root / "dir.toml").mkdir()


@dataclass
class Case:
    id: str
    family: str
    argv: list[str]
    needles: list[str]
    kind: str = ""
    env: dict[str, str] = field(default_factory=dict)
    without: str = ""  # a threading layer that must not load here for the case to apply


LONG = "a" * 300 + ".toml"
CASES = [
    # -- outputs against inputs (presets too, through links), and against the other outputs ------------
    Case("compare-csv-is-vs-preset", "clobber", ["compare", "S.toml", "--vs-preset", "car.toml", "--csv", "car.toml"],
         ["--csv car.toml", "one of the inputs"]),
    Case("compare-csv-is-preset", "clobber", ["compare", "S.toml", "--preset", "car.toml", "--vs-preset", "sedan",
                                              "--csv", "car.toml"], ["--csv car.toml", "one of the inputs"]),
    Case("compare-csv-is-preset-by-link", "links", ["compare", "S.toml", "--vs-preset", "car.toml", "--csv",
                                                    "link.toml"], ["--csv link.toml", "one of the inputs"], "link"),
    Case("compare-csv-is-preset-by-hard-link", "links", ["compare", "S.toml", "--vs-preset", "car.toml", "--csv",
                                                         "hard.toml"], ["--csv hard.toml", "one of the inputs"],
         "hardlink"),
    Case("compare-csv-is-vs-script", "clobber", ["compare", "S.toml", "--vs-script", "braking_stop", "--csv",
                                                 "S.toml"], ["--csv S.toml", "one of the inputs"]),
    Case("sweep-out-holds-the-preset", "clobber", ["sweep", "S.toml", "--preset", "o/sweep.csv", "--param",
                                                   "body.mass=900:1000:2", "--out", "o"], ["--out", "sweep.csv"], "o"),
    Case("sweep-out-holds-the-script", "clobber", ["sweep", "o/sweep.csv", "--param", "body.mass=900:1000:2",
                                                   "--out", "o"], ["--out", "sweep.csv"], "o-script"),
    Case("replay-report-holds-the-script", "clobber", ["replay", "rep/index.html", "--report", "rep"],
         ["--report rep", "index.html"], "rep"),
    Case("replay-report-holds-a-link-to-the-script", "links", ["replay", "S.toml", "--report", "rep"],
         ["--report rep", "index.html", "link"], "rep-link"),
    Case("replay-csv-inside-report", "clobber", ["replay", "S.toml", "--csv", "rep/index.html", "--report", "rep"],
         ["--report rep", "index.html"], "rep"),
    Case("replay-mcap-inside-report", "clobber", ["replay", "S.toml", "--mcap", "rep/chart.png", "--report", "rep"],
         ["--report rep", "chart.png"], "rep"),
    Case("replay-mcap-is-csv", "clobber", ["replay", "S.toml", "--csv", "x.out", "--mcap", "x.out"],
         ["--mcap x.out", "another output"]),
    Case("replay-csv-is-preset-by-link", "links", ["replay", "S.toml", "--preset", "car.toml", "--csv", "link.toml"],
         ["--csv link.toml", "one of the inputs"], "link"),
    Case("replay-report-page-is-a-folder", "clobber", ["replay", "S.toml", "--csv", "ok.csv", "--report", "rep"],
         ["--report rep", "would write index.html inside it", "is a directory"], "rep-dir"),
    Case("replay-report-chart-is-a-folder", "clobber", ["replay", "S.toml", "--csv", "ok.csv", "--report", "rep"],
         ["--report rep", "short-expect-1.png", "is a directory"], "rep-png-dir"),
    Case("manoeuvre-report-page-is-a-folder", "clobber", ["manoeuvre", "iso4138_circle", "--report", "rep"],
         ["--report rep", "index.html", "is a directory"], "rep-dir"),
    Case("sweep-out-csv-is-a-folder", "clobber", ["sweep", "S.toml", "--param", "body.mass=900:1000:2", "--out", "o"],
         ["--out o", "sweep.csv", "is a directory"], "o-dir"),
    Case("hunt-out-report-is-a-file", "clobber", ["hunt", "--preset", "sedan", "--cars", "1", "--seconds", "1",
                                                  "--out", "h"], ["--out h", "report", "not a folder"],
         "h-report-file"),
    Case("replay-csv-is-a-loop", "links", ["replay", "S.toml", "--csv", "loop1"], ["--csv loop1", "loop"], "loop"),
    # -- names -----------------------------------------------------------------------------------------------
    Case("name-directory-with-extension", "names", ["replay", "dir.toml"], ["dir.toml", "is a directory",
                                                                            "regular file"], "dirs"),
    Case("output-dash", "names", ["replay", "S.toml", "--csv", "-"], ["--csv -", "not stdout"]),
    Case("output-dash-folder", "names", ["replay", "S.toml", "--report", "-"], ["--report -", "a folder, not stdout"]),
    Case("output-dash-hunt", "names", ["hunt", "--out", "-"], ["--out -", "a folder, not stdout"]),
    Case("name-missing-bare", "names", ["replay", "braking_stopp"], ["braking_stopp", "looked up among the shipped",
                                                                     "braking_stop"]),
    Case("name-shipped-with-extension", "names", ["replay", "braking_stop.toml"],
         ["braking_stop.toml", "named without the extension: braking_stop"]),
    Case("name-empty", "names", ["compare", "", "--vs-dt", "0.01"], ["empty script name"]),
    Case("name-preset-directory", "names", ["compare", "S.toml", "--vs-preset", "dir.toml"],
         ["dir.toml", "is a directory"], "dirs"),
    Case("name-sweep-missing", "names", ["sweep", "nosuch", "--param", "body.mass=900:1000:2"],
         ["nosuch", "looked up among the shipped scripts"]),
    Case("name-hunt-preset-missing", "names", ["hunt", "--preset", "nosuch"],
         ["--preset", "nosuch", "looked up among the shipped presets"]),
    Case("name-window-script-directory", "names", ["--script", "dir.toml"], ["--script", "is a directory"], "dirs"),
    # an existing regular file wins over a shipped name on every command's path, not only in the resolver
    Case("name-local-preset-wins-replay", "names", ["replay", "braking_stop", "--preset", "sedan"],
         ["--preset: sedan: not valid TOML"], "local-sedan"),
    Case("name-local-preset-wins-compare", "names", ["compare", "S.toml", "--preset", "sedan", "--vs-dt", "0.01"],
         ["--preset: sedan: not valid TOML"], "local-sedan"),
    Case("name-local-preset-wins-compare-vs", "names", ["compare", "S.toml", "--preset", "classic", "--vs-preset",
                                                        "sedan"], ["--vs-preset: sedan: not valid TOML"], "local-sedan"),
    Case("name-local-preset-wins-sweep", "names", ["sweep", "S.toml", "--preset", "sedan", "--param",
                                                   "body.mass=900:1000:2", "--out", "sw"],
         ["--preset: sedan: not valid TOML"], "local-sedan"),
    Case("name-local-preset-wins-hunt", "names", ["hunt", "--preset", "sedan", "--cars", "1", "--seconds", "1"],
         ["--preset: sedan: not valid TOML"], "local-sedan"),
    Case("name-local-preset-wins-manoeuvre", "names", ["manoeuvre", "iso4138_circle", "--preset", "sedan"],
         ["--preset: sedan: not valid TOML"], "local-sedan"),
    Case("name-local-preset-wins-manoeuvre-vs", "names", ["manoeuvre", "iso4138_circle", "--preset", "classic",
                                                          "--vs-preset", "sedan"],
         ["--vs-preset: sedan: not valid TOML"], "local-sedan"),
    Case("name-local-preset-wins-window", "names", ["--preset", "sedan"], ["--preset: sedan: not valid TOML"],
         "local-sedan"),
    Case("name-vs-preset-missing-names-its-option", "names", ["compare", "S.toml", "--vs-preset", "nosuch"],
         ["--vs-preset: nosuch", "looked up among the shipped presets"]),
    # -- FIFOs, devices, sizes ------------------------------------------------------------------------------
    Case("compare-csv-fifo", "fifos", ["compare", "a.csv", "b.csv"], ["b.csv", "is a FIFO"], "fifo"),
    Case("compare-csv-link-to-dev-zero", "devices", ["compare", "a.csv", "b.csv"], ["b.csv", "is a device"], "zero"),
    Case("compare-csv-too-big", "sizes", ["compare", "a.csv", "b.csv"],
         ["b.csv: 1,073,741,825 bytes is larger than a telemetry CSV", "(1,073,741,824 bytes, 1 GiB)"], "bigcsv"),
    Case("compare-csv-link-to-dev-null", "devices", ["compare", "a.csv", "n.csv"], ["n.csv", "is a device"],
         "null"),
    # -- path errors ------------------------------------------------------------------------------------------
    Case("long-script-name", "long names", ["replay", LONG], ["too long"]),
    Case("long-preset-name", "long names", ["replay", "S.toml", "--preset", LONG], ["--preset", "too long"]),
    Case("long-csv-name", "long names", ["replay", "S.toml", "--csv", "a" * 300 + ".csv"], ["--csv", "too long"]),
    Case("long-compare-csv", "long names", ["compare", "a.csv", "b" * 300 + ".csv"], ["too long"]),
    Case("script-symlink-loop", "links", ["replay", "loop1"], ["loop1", "loop of symbolic links"], "loop"),
    Case("preset-symlink-loop", "links", ["replay", "S.toml", "--preset", "loop1"], ["loop1", "loop"], "loop"),
    # -- huge numbers and long lists ----------------------------------------------------------------------
    Case("integer-of-5000-digits", "huge numbers", ["replay", "big.toml"], ["big.toml", "4,300 digits"], "bigint"),
    Case("preset-integer-of-5000-digits", "huge numbers", ["replay", "S.toml", "--preset", "big.toml"],
         ["big.toml", "4,300 digits"], "bigint-preset"),
    Case("gears-10000-in-a-preset", "huge numbers", ["replay", "S.toml", "--preset", "gears.toml"],
         ["gears.toml", "10000 gears", "at most"], "gears-preset"),
    Case("gears-10000-in-set-params", "huge numbers", ["replay", "gears.toml"], ["[[set]] #1", "10000 gears"],
         "gears-set"),
    Case("gears-10000-by-vs-set", "huge numbers", ["compare", "S.toml", "--vs-set", f"gearbox.ratios={GEARS}"],
         ["--vs-set", "10000 gears"]),
    Case("gears-10000-on-the-window", "huge numbers", ["--preset", "gears.toml"], ["--preset", "10000 gears"],
         "gears-preset"),
    Case("gears-10000-for-hunt", "huge numbers", ["hunt", "--preset", "gears.toml"], ["--preset", "10000 gears"],
         "gears-preset"),
    Case("stamp-dt-of-400-digits", "huge numbers", ["replay", "rec.toml"], ["[recorded]", "`dt`", "many digits"],
         "huge-dt"),
    Case("stamp-datetime-in-changed", "huge numbers", ["replay", "rec.toml"], ["[recorded]", "changed #1",
                                                                               "datetime"], "datetime"),
    Case("stamp-1001-changes", "huge numbers", ["replay", "rec.toml"], ["[recorded]", "at most 1,000"],
         "long-changed"),
    Case("vs-set-integer-of-5000-digits", "huge numbers", ["compare", "S.toml", "--vs-set", "body.mass=" + "9" * 5000],
         ["--vs-set body.mass", "4,300 digits"]),
    Case("manoeuvre-set-integer-of-5000-digits", "huge numbers",
         ["manoeuvre", "iso4138_circle", "--set", "body.mass=" + "9" * 5000], ["body.mass", "4,300 digits"]),
    Case("gears-10000-by-manoeuvre-set", "huge numbers", ["manoeuvre", "iso4138_circle", "--set",
                                                          f"gearbox.ratios={GEARS}"], ["--set", "10000 gears"]),
    Case("vs-set-angle-in-degrees-out-of-range", "units", ["compare", "S.toml", "--vs-set", "steering.lock=100"],
         ["--vs-set steering.lock=100 (deg)", "out of range", "<= 80 deg"]),
    Case("manoeuvre-set-angle-in-degrees-out-of-range", "units", ["manoeuvre", "iso4138_circle", "--set",
                                                                  "steering.lock=100"],
         ["--set steering.lock=100 (deg)", "<= 80 deg"]),
    Case("manoeuvre-vs-set-angle-not-a-number", "units", ["manoeuvre", "iso4138_circle", "--vs-set",
                                                          "steering.lock=wide"],
         ["--vs-set steering.lock='wide'", "a number in deg"]),
    Case("vs-set-rate-in-degrees-out-of-range", "units", ["compare", "S.toml", "--vs-set", "steering.rate=-1"],
         ["--vs-set steering.rate=-1 (deg/s)", "deg/s"]),
    Case("vs-set-traction-simple", "huge numbers", ["compare", "S.toml", "--vs-set", "model.traction=simple"],
         ["--vs-set", "traction"]),
    Case("sweep-seed-negative", "huge numbers", ["sweep", "S.toml", "--param", "body.mass=900:1000", "--samples",
                                                 "3", "--seed", "-1"], ["--seed -1", "0 .."]),
    Case("sweep-seed-too-large", "huge numbers", ["sweep", "S.toml", "--param", "body.mass=900:1000", "--samples",
                                                  "3", "--seed", str(2**40)], ["--seed", "0 .."]),
    Case("hunt-seed-negative", "huge numbers", ["hunt", "--seed", "-1"], ["--seed -1", "0 .."]),
    # -- the environment numba reads --------------------------------------------------------------------------
    Case("numba-threads-huge", "environment", ["replay", "S.toml"], ["NUMBA_NUM_THREADS", "from 1 to"],
         env={"NUMBA_NUM_THREADS": "100000"}),
    Case("numba-threads-zero", "environment", ["replay", "S.toml"], ["NUMBA_NUM_THREADS", "from 1 to"],
         env={"NUMBA_NUM_THREADS": "0"}),
    Case("numba-threads-words", "environment", ["replay", "S.toml"], ["NUMBA_NUM_THREADS='lots'"],
         env={"NUMBA_NUM_THREADS": "lots"}),
    Case("numba-threading-layer-bogus", "environment", ["replay", "S.toml"], ["NUMBA_THREADING_LAYER='bogus'",
                                                                              "omp"],
         env={"NUMBA_THREADING_LAYER": "bogus"}),
    Case("numba-threading-layer-tbb-not-installed", "environment", ["replay", "braking_stop", "full_lock_left"],
         ["NUMBA_THREADING_LAYER='tbb'", "cannot be loaded here", "TBB", "omp"],
         env={"NUMBA_THREADING_LAYER": "tbb"}, without="tbb"),
    Case("numba-threading-layer-safe-without-tbb", "environment", ["replay", "braking_stop", "full_lock_left"],
         ["NUMBA_THREADING_LAYER='safe'", "cannot be loaded here", "TBB", "workqueue"],
         env={"NUMBA_THREADING_LAYER": "safe"}, without="tbb"),
]


def test_the_cases_are_many_unique_and_in_every_family():
    assert len(CASES) >= 50
    assert len({c.id for c in CASES}) == len(CASES)
    assert {c.family for c in CASES} >= {"clobber", "names", "links", "fifos", "devices", "sizes", "long names",
                                         "huge numbers", "environment"}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_promise_holds(case: Case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    if case.without:
        from workbench.numba_env import layer_loads

        if layer_loads(case.without):
            pytest.skip(f"numba's {case.without} threading layer loads on this machine")
    _files(tmp_path, case.kind)
    before = snapshot(tmp_path)
    shipped = snapshot(scripts_dir())

    code, out, err = run(case.argv, capsys)

    one_line(code, out, err, case.needles)
    assert snapshot(tmp_path) == before, "a file was written or changed"
    assert snapshot(scripts_dir()) == shipped


# -- every command, with shipped names, from a folder that is not the repository ----------------------------

SHIPPED_RUNS = [
    ["replay", "braking_stop", "--preset", "sedan"],
    ["compare", "braking_stop", "--vs-preset", "sedan_single_track"],
    ["compare", "braking_stop", "--preset", "sedan", "--vs-script", "braking_grip"],
    ["sweep", "braking_stop", "--preset", "sedan", "--param", "body.mass=900:1000:2", "--out", "sw"],
    ["hunt", "--preset", "sedan", "--cars", "1", "--seconds", "1", "--out", "h"],
    ["presets"],  # ended in a traceback: it loaded each shipped preset by its bare name through physics.load_preset
]


@pytest.mark.parametrize("argv", SHIPPED_RUNS, ids=[" ".join(a[:2]) for a in SHIPPED_RUNS])
def test_every_command_takes_shipped_names_from_any_folder(argv, tmp_path, monkeypatch, capsys):
    """Folders named like the shipped script and preset do not hide them (an existing regular file wins; a
    bare name that is not one is looked up among the shipped ones)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sedan").mkdir()
    (tmp_path / "braking_stop").mkdir()
    code, out, err = run(argv, capsys)
    assert code in (0, 1), (code, out, err)
    assert "carbench: " not in err.replace("carbench: compiling", ""), err
    assert out.strip()


def test_the_library_finds_a_shipped_preset_beside_a_folder_of_its_name(tmp_path, monkeypatch):
    from physics import PresetError, load_preset
    from physics.presets import cars_dir

    monkeypatch.chdir(tmp_path)
    (tmp_path / "sedan").mkdir()
    (tmp_path / "mine").mkdir()
    assert load_preset("sedan").path == cars_dir() / "sedan.toml"
    with pytest.raises(PresetError, match="mine: is a directory, not a preset file"):
        load_preset("mine")


LOCAL_RUNS = [
    ["replay", "braking_stop", "--preset", "car.txt"],
    ["compare", "braking_stop", "--preset", "car.txt", "--vs-dt", "0.01"],
    ["compare", "braking_stop", "--vs-preset", "car.txt"],
    ["sweep", "braking_stop", "--preset", "car.txt", "--param", "body.mass=900:1000:2", "--out", "sw"],
    ["hunt", "--preset", "car.txt", "--cars", "1", "--seconds", "1", "--out", "h"],
    ["manoeuvre", "iso4138_circle", "--preset", "car.txt"],
    ["manoeuvre", "iso4138_circle", "--vs-preset", "car.txt"],
]


@pytest.mark.parametrize("argv", LOCAL_RUNS, ids=[" ".join(a[:3]) for a in LOCAL_RUNS])
def test_every_command_reads_a_preset_file_whatever_its_extension(argv, tmp_path, monkeypatch, capsys):
    """An existing regular file wins: ``car.txt`` is the preset in that file, not a shipped name to look up."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "car.txt").write_text((cars_dir() / "manual003.toml").read_text(encoding="utf-8"), encoding="utf-8")
    code, out, err = run(argv, capsys)
    assert code in (0, 1), (code, out, err)
    assert "carbench: " not in err.replace("carbench: compiling", ""), err
    assert out.strip()


def test_the_window_takes_shipped_names_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "manual003").mkdir()
    (tmp_path / "braking_stop").mkdir()
    assert cli._check_window_arguments("manual003", "braking_stop") is None  # the script's own car
    assert "is a directory" in cli._check_window_arguments(None, "braking_stop/")


def test_an_existing_regular_file_wins_over_a_shipped_name(tmp_path, monkeypatch):
    from workbench.names import resolve_preset_name, resolve_script_name

    monkeypatch.chdir(tmp_path)
    (tmp_path / "braking_stop").write_text(SHORT, encoding="utf-8")
    (tmp_path / "sedan").write_text(SEDAN, encoding="utf-8")
    assert resolve_script_name("braking_stop") == Path("braking_stop")
    assert resolve_preset_name("sedan") == Path("sedan")
    (tmp_path / "braking_stop").unlink()
    assert resolve_script_name("braking_stop") == scripts_dir() / "braking_stop.toml"


# -- signals at every stage: cleaned up like Ctrl-C, exit 128 + N ---------------------------------------------

def _fake_render(chart, path):
    Path(path).write_bytes(b"\x89PNG\r\n\x1a\n")  # a PNG's signature is enough for the page
    return Path(path)


def _send(signum):
    os.kill(os.getpid(), signum)


STAGES = ["while-streaming-the-csv", "while-writing-the-mcap", "while-rendering-a-chart", "before-the-commit"]
SIGNALS = [("SIGINT", 130), ("SIGTERM", 128 + signal.SIGTERM), ("SIGHUP", 128 + signal.SIGHUP)]


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize(("name", "code"), SIGNALS, ids=[s for s, _ in SIGNALS])
def test_a_signal_at_any_stage_leaves_nothing_behind(stage, name, code, tmp_path, monkeypatch, capsys):
    import workbench.output.files as files
    import workbench.output.mcap_log as mcap_log
    import workbench.runs.replay as replay_module

    signum = getattr(signal, name)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    monkeypatch.setattr(cli, "chart_renderer", lambda: _fake_render)
    if stage == "while-streaming-the-csv":
        import workbench.runs.compare_command  # noqa: F401  (it binds replay when first imported: the real one, not this test's)

        real = replay_module.replay

        def replay(programs, listener=None):
            def relay(members, log, done):
                listener(members, log, done)
                if done > 10:
                    _send(signum)
            return real(programs, relay)

        monkeypatch.setattr(replay_module, "replay", replay)
    elif stage == "while-writing-the-mcap":
        real_write = mcap_log.write_mcap

        def write_mcap(results, path, violations=()):
            Path(path).write_bytes(b"partial")
            _send(signum)
            return real_write(results, path, violations)

        monkeypatch.setattr(mcap_log, "write_mcap", write_mcap)
    elif stage == "while-rendering-a-chart":
        def render(chart, path):  # the signal arrives mid-drawing: held until the chart is done, then acted on
            _send(signum)
            return _fake_render(chart, path)

        monkeypatch.setattr(cli, "chart_renderer", lambda: render)
    else:
        real_commit = files.StagedOutputs.commit

        def commit(self):
            _send(signum)
            return real_commit(self)

        monkeypatch.setattr(files.StagedOutputs, "commit", commit)
    before = snapshot(tmp_path)
    handlers = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]

    got, out, err = run(["replay", "S.toml", "--csv", "t.csv", "--mcap", "t.mcap", "--report", "rep"], capsys)

    assert got == code, (got, out, err)
    # The result reaches stdout before the outputs move into place (a full stdout must commit nothing), so
    # a signal at the commit comes after the table; at every earlier stage stdout stays empty.
    assert out == "" or stage == "before-the-commit", out
    assert err.strip().splitlines()[-1].startswith("carbench: "), err
    assert "Traceback" not in err
    assert snapshot(tmp_path) == before, "a staged or partial output was left behind"
    assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)] == handlers  # put back


MID_COMMIT = ["setting-an-old-file-aside", "after-the-renames"]


@pytest.mark.parametrize("moment", MID_COMMIT)
@pytest.mark.parametrize(("name", "code"), SIGNALS, ids=[s for s, _ in SIGNALS])
def test_a_signal_in_the_middle_of_the_commit_waits_for_it(moment, name, code, tmp_path, monkeypatch, capsys):
    """A signal between an old output's rename to its hidden name and the new one's arrival left the old one hidden
    with nothing in its place (the rollback did not know of it); one during the removal of the old ones left the
    rest hidden for good. The commit runs to its end, then the signal is acted on, and says the outputs are in."""
    import workbench.output.files as files

    signum = getattr(signal, name)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    for old in ("t.csv", "t.mcap"):
        (tmp_path / old).write_text("an earlier run's output", encoding="utf-8")
    real_set_aside, real_remove = files._set_aside, files._remove

    def set_aside(path):
        aside = real_set_aside(path)
        if moment == "setting-an-old-file-aside":
            _send(signum)  # renamed, not yet known to the rollback
        return aside

    def remove(path):
        if moment == "after-the-renames":
            _send(signum)
        return real_remove(path)

    monkeypatch.setattr(files, "_set_aside", set_aside)
    monkeypatch.setattr(files, "_remove", remove)

    got, out, err = run(["replay", "S.toml", "--csv", "t.csv", "--mcap", "t.mcap"], capsys)

    assert got == code, (got, out, err)
    assert err.strip().splitlines()[-1].endswith("(the outputs were already in place)"), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["S.toml", "t.csv", "t.mcap"]  # nothing hidden left
    assert (tmp_path / "t.csv").read_text(encoding="utf-8").startswith("t [s],")  # the new ones, whole
    assert (tmp_path / "t.mcap").read_bytes()[:8] == b"\x89MCAP0\r\n"


def test_a_signal_during_a_commit_that_fails_leaves_the_failure_said(tmp_path, monkeypatch, capsys):
    """A signal held during a commit whose move then failed (a full disk) was raised in its place: "interrupted (the
    outputs were already in place)", which they were not, and the failure's reason lost."""
    import errno

    import workbench.output.files as files

    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    for old in ("t.csv", "t.mcap"):
        (tmp_path / old).write_text("an earlier run's output", encoding="utf-8")
    real_set_aside, real_rename = files._set_aside, os.rename
    moves = []

    def set_aside(path):
        _send(signal.SIGINT)
        return real_set_aside(path)

    def rename(source, destination):
        if ".staged" in str(source):
            moves.append(source)
            if len(moves) == 2:
                raise OSError(errno.ENOSPC, "No space left on device", str(destination))
        return real_rename(source, destination)

    monkeypatch.setattr(files, "_set_aside", set_aside)
    monkeypatch.setattr(files.os, "rename", rename)

    code, out, err = run(["replay", "S.toml", "--csv", "t.csv", "--mcap", "t.mcap"], capsys)

    assert code == 2, (code, err)
    assert err.strip().splitlines()[-1] == "carbench: cannot move the outputs into place: t.mcap: No space left on " \
        "device", err
    assert "already in place" not in err
    assert {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir() if p.name != "S.toml"} == \
        {"t.csv": "an earlier run's output", "t.mcap": "an earlier run's output"}  # put back, nothing else left


@pytest.mark.parametrize(("name", "code"), SIGNALS, ids=[s for s, _ in SIGNALS])
def test_a_signal_while_a_sweep_draws_leaves_no_folder(name, code, tmp_path, monkeypatch, capsys):
    signum = getattr(signal, name)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")

    def render(chart, path):
        _send(signum)
        return _fake_render(chart, path)

    monkeypatch.setattr(cli, "chart_renderer", lambda: render)
    before = snapshot(tmp_path)
    got, out, err = run(["sweep", "S.toml", "--param", "body.mass=900:1000:2", "--out", "sw", "--plot"], capsys)
    assert got == code, (got, out, err)
    assert out == "" and err.strip().splitlines()[-1].startswith("carbench: "), err
    assert snapshot(tmp_path) == before, "the sweep's folder or a chart was left behind"


def test_a_whole_run_writes_every_output_and_no_staging(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    monkeypatch.setattr(cli, "chart_renderer", lambda: _fake_render)
    code, out, err = run(["replay", "S.toml", "--csv", "t.csv", "--mcap", "t.mcap", "--report", "rep"], capsys)
    assert code == 0, err
    assert sorted(os.listdir(tmp_path)) == ["S.toml", "rep", "t.csv", "t.mcap"]
    assert "index.html" in os.listdir(tmp_path / "rep")
    assert not [n for n in os.listdir(tmp_path / "rep") if n.startswith(".")]
    assert f"{0o777 & ~_umask():o}" == f"{(tmp_path / 'rep').stat().st_mode & 0o777:o}"


def test_a_commit_that_cannot_move_everything_moves_nothing(tmp_path):
    """Every destination is checked before anything moves: a folder where a file goes fails the commit
    before the first output is in place (a file that appeared after the run's own checks)."""
    from workbench.output.files import StagedOutputs

    (tmp_path / "old.csv").write_text("the user's\n", encoding="utf-8")
    (tmp_path / "rep").mkdir()
    before = snapshot(tmp_path)
    with StagedOutputs() as staged:
        staged.file(tmp_path / "old.csv").write_text("new\n", encoding="utf-8")
        staged.file(tmp_path / "t.mcap").write_bytes(b"mcap")
        (staged.folder(tmp_path / "rep") / "index.html").write_text("page\n", encoding="utf-8")
        (tmp_path / "rep" / "index.html").mkdir()  # appears after the checks, before the commit
        with pytest.raises(IsADirectoryError):
            staged.commit()
    (tmp_path / "rep" / "index.html").rmdir()
    assert snapshot(tmp_path).keys() == before.keys()  # the folder's own mtime moved with the staging in it
    assert (tmp_path / "old.csv").read_text(encoding="utf-8") == "the user's\n"


def test_a_commit_that_fails_halfway_moves_back_what_it_moved(tmp_path, monkeypatch):
    """A rename that fails after others succeeded: those are moved back, and the files they replaced put back."""
    import workbench.output.files as files

    (tmp_path / "a.csv").write_text("the user's a\n", encoding="utf-8")
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "index.html").write_text("the user's page\n", encoding="utf-8")
    before = snapshot(tmp_path)
    real = os.rename
    calls = []

    def rename(src, dst):
        calls.append(dst)
        if str(dst).endswith("b.csv"):
            raise OSError(28, "No space left on device")
        return real(src, dst)

    with files.StagedOutputs() as staged:
        staged.file(tmp_path / "a.csv").write_text("new a\n", encoding="utf-8")
        staged.file(tmp_path / "b.csv").write_text("new b\n", encoding="utf-8")
        (staged.folder(tmp_path / "rep") / "index.html").write_text("new page\n", encoding="utf-8")
        monkeypatch.setattr(files.os, "rename", rename)
        with pytest.raises(OSError, match="No space"):
            staged.commit()
        monkeypatch.setattr(files.os, "rename", real)
    assert any(str(c).endswith("a.csv") for c in calls)  # a.csv had moved before b.csv failed
    assert snapshot(tmp_path).keys() == before.keys()
    assert (tmp_path / "a.csv").read_text(encoding="utf-8") == "the user's a\n"
    assert (tmp_path / "rep" / "index.html").read_text(encoding="utf-8") == "the user's page\n"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# -- full disks: a small tmpfs ---------------------------------------------------------------------------------

@pytest.fixture
def small_disk(tmp_path):
    """A 2 MiB tmpfs mounted at tmp_path/disk (root and a mount namespace that allows it), else a skip saying why."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root; the full-disk cases cannot be made here")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode}); no full-disk cases")
    yield disk
    # The test's chdir into the disk is undone after this (an autouse fixture asked for monkeypatch first): a mount
    # still anyone's working directory is busy, and every run left five tmpfs mounts behind.
    if Path.cwd().resolve().is_relative_to(disk.resolve()):
        os.chdir(tmp_path)
    done = subprocess.run(["umount", str(disk)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"the small disk was left mounted: {done.stderr.strip()}"


def _fill(disk: Path, leave: int) -> None:
    """Fill ``disk`` until at most ``leave`` bytes are free."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    with open(disk / "filler", "wb") as f:
        try:
            f.write(b"\0" * max(0, free - leave))
            f.flush()
            os.fsync(f.fileno())
        except OSError:
            pass


FULL = [
    ("replay-csv-then-mcap", ["replay", "S.toml", "--csv", "ok.csv", "--mcap", "x.mcap"], "csv"),
    ("replay-report", ["replay", "S.toml", "--report", "rep"], 0),
    ("replay-report-and-csv", ["replay", "S.toml", "--csv", "ok.csv", "--report", "rep"], "csv"),
    ("sweep-out", ["sweep", "S.toml", "--param", "body.mass=900:1000:2", "--out", "sw"], 0),
    ("compare-csv", ["compare", "S.toml", "--vs-preset", "sedan_single_track", "--csv", "c.csv"], 0),
]


@pytest.mark.parametrize(("case", "argv", "leave"), FULL, ids=[f[0] for f in FULL])
def test_a_full_disk_creates_nothing(case, argv, leave, small_disk, monkeypatch, capsys):
    monkeypatch.chdir(small_disk)
    (small_disk / "S.toml").write_text(SHORT, encoding="utf-8")
    monkeypatch.setattr(cli, "chart_renderer", lambda: _fake_render)
    if leave == "csv":  # room for the CSV of the short script, not for the second output
        code, _, err = run(["replay", "S.toml", "--csv", "probe.csv"], capsys)
        assert code == 0, err
        size = (small_disk / "probe.csv").stat().st_size
        (small_disk / "probe.csv").unlink()
        leave = size + 4096 * 2
    _fill(small_disk, leave)
    before = snapshot(small_disk)
    code, out, err = run(argv, capsys)
    one_line(code, out, err, ["No space left"])
    assert snapshot(small_disk) == before


REAL_CHARTS = [
    ("sweep-plot", [*SWEEP, "--plot"]),
    ("replay-report", ["replay", "S.toml", "--report", "rep"]),
    ("manoeuvre-report", ["manoeuvre", "iso4138_circle", "--report", "rep"]),
]


@pytest.mark.parametrize(("case", "argv"), REAL_CHARTS, ids=[c for c, _ in REAL_CHARTS])
def test_a_full_disk_under_real_charts_is_one_line(case, argv, small_disk):
    """The charts drawn by Qt and libpng: libpng's own 'Write Error' never reaches the terminal, the one line
    names the output (not its hidden staging name), and nothing is left."""
    pytest.importorskip("PySide6")
    pytest.importorskip("pyqtgraph")
    (small_disk / "S.toml").write_text(SHORT, encoding="utf-8")
    _fill(small_disk, 8 * 1024)  # room for a CSV and a page, not for a chart
    before = snapshot(small_disk)
    done = _carbench(argv, small_disk, {"QT_QPA_PLATFORM": "offscreen"})
    errors = [e for e in done.stderr.splitlines() if not e.startswith("carbench: compiling the car model")]
    assert done.returncode == 2, done.stderr
    assert len(errors) == 1 and errors[0].startswith("carbench: "), done.stderr
    assert ".staged" not in errors[0] and ".partial" not in errors[0], errors[0]
    assert done.stdout == ""
    assert snapshot(small_disk) == before


# -- streams: full, closed, not UTF-8 (a real process: the interpreter's own streams) ----------------------------

def _env(extra: dict | None = None) -> dict[str, str]:
    """The environment of a carbench subprocess: this checkout's packages first (not an installed carbench's)."""
    full = {**os.environ, **(extra or {})}
    full["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    return full


def _carbench(args: list[str], cwd: Path, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    full = _env(env)
    full.pop("DISPLAY", None)
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=600, check=False, **kw)


class _FullStdout(io.StringIO):
    """A stdout that takes nothing (``> /dev/full``), in this process."""

    def write(self, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self):
        pass


STDOUT_FAILS = [  # each writes files; a stdout that cannot take the result must leave none of them
    ("replay-csv", ["replay", "S.toml", "--csv", "x.csv"]),
    ("replay-csv-json", ["replay", "S.toml", "--csv", "x.csv", "--json"]),
    ("replay-every-output", ["replay", "S.toml", "--csv", "x.csv", "--mcap", "x.mcap", "--report", "rep"]),
    ("sweep-out", SWEEP),
    ("sweep-out-json-plot", [*SWEEP, "--json", "--plot"]),
    ("compare-csv", ["compare", "S.toml", "--vs-dt", "0.005", "--csv", "c.csv"]),
    ("manoeuvre-report", ["manoeuvre", "iso4138_circle", "--report", "rep"]),
]


@pytest.mark.parametrize(("case", "argv"), STDOUT_FAILS, ids=[c for c, _ in STDOUT_FAILS])
def test_a_full_stdout_fails_the_run_before_any_file_is_in_place(case, argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    monkeypatch.setattr(cli, "chart_renderer", lambda: _fake_render)
    before = snapshot(tmp_path)
    monkeypatch.setattr(sys, "stdout", _FullStdout())
    code, _, err = run(argv, capsys)
    assert code == cli.EXIT_BAD_INPUT, (code, err)
    assert err.splitlines()[-1].startswith("carbench: cannot write to stdout: No space left"), err
    assert [line for line in err.splitlines() if line.startswith("carbench: ")
            and not line.startswith("carbench: compiling")] == [err.splitlines()[-1]], err
    assert snapshot(tmp_path) == before, "an output was written though its result never reached stdout"


class _FullStderr(_FullStdout):
    """A stderr that takes nothing (``2> /dev/full``), in this process."""

    def flush(self):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


STDERR_FULL = [  # (case, argv, exit code, what the folder holds after)
    ("bad-script-name", ["replay", "nosuch.toml"], 2, []),
    ("bad-dt", ["replay", "S.toml", "--dt", "1"], 2, []),
    ("bad-arguments", ["replay"], 2, []),
    ("bad-vs-preset", ["compare", "S.toml", "--vs-preset", "nosuch"], 2, []),
    ("bad-hunt-preset", ["hunt", "--preset", "nosuch"], 2, []),
    ("bad-manoeuvre", ["manoeuvre", "nosuch"], 2, []),
    ("replay-every-output", ["replay", "S.toml", "--csv", "x.csv", "--mcap", "x.mcap", "--report", "rep"], 0,
     ["rep", "x.csv", "x.mcap"]),
    ("replay-failing", ["replay", "F.toml", "--json"], 1, []),
    ("sweep", SWEEP, 0, ["sw"]),
    ("compare", ["compare", "S.toml", "--vs-dt", "0.005", "--csv", "c.csv"], 1, ["c.csv"]),
]


@pytest.mark.parametrize(("case", "argv", "code", "made"), STDERR_FULL, ids=[c[0] for c in STDERR_FULL])
def test_a_full_stderr_changes_neither_the_exit_code_nor_the_outputs(case, argv, code, made, tmp_path, monkeypatch,
                                                                     capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    monkeypatch.setattr(cli, "chart_renderer", lambda: _fake_render)
    (tmp_path / "F.toml").write_text(SHORT.replace("min = 0.0", "min = 1000.0"), encoding="utf-8")  # fails
    monkeypatch.setattr(sys, "stderr", _FullStderr())
    got, out, _ = run(argv, capsys)
    assert got == code, (got, out)
    assert (out != "") == (code != 2), out  # the result on stdout; nothing on bad input
    assert sorted(os.listdir(tmp_path)) == sorted(["F.toml", "S.toml", *made])
    assert isinstance(sys.stderr, _FullStderr), "the guard outlived the command"


@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_a_full_or_closed_stderr_in_a_real_process(stderr, tmp_path):
    """The interpreter's own stderr: an error is still exit 2 with nothing on stdout, and a run's
    result, exit code and files are what they would be (the first compile's notice included)."""
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")

    def carbench(*args):
        with open("/dev/full", "w") as full:
            return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=tmp_path, env=_env(),
                                  stdout=subprocess.PIPE, stderr=full if stderr == "full" else None, text=True,
                                  timeout=600, check=False,
                                  preexec_fn=(lambda: os.close(2)) if stderr == "closed" else None)

    done = carbench("replay", "nosuch.toml")
    assert (done.returncode, done.stdout) == (2, "")
    done = carbench("replay", "S.toml", "--csv", "x.csv")
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout
    assert sorted(os.listdir(tmp_path)) == ["S.toml", "x.csv"]


CLOSED_STDOUT = [  # (argv, the line on stderr)
    (["replay", "S.toml", "--csv", "x.csv"], "carbench: cannot write to stdout: it is closed"),
    (SWEEP, "carbench: cannot write to stdout: it is closed"),
    (["compare", "S.toml", "--vs-dt", "0.005", "--csv", "c.csv"], "carbench: cannot write to stdout: it is closed"),
    (["presets"], "carbench: cannot write to stdout: it is closed"),
    (["--version"], "carbench: cannot write to stdout: it is closed"),
    (["replay", "nosuch.toml"], "carbench: nosuch.toml: no such script file"),
]


@pytest.mark.parametrize(("argv", "line"), CLOSED_STDOUT, ids=[" ".join(a[:2]) for a, _ in CLOSED_STDOUT])
def test_a_closed_stdout_is_a_full_one(argv, line, tmp_path):
    """``>&-``: a command with something to print exits 2 with one line, and writes no file."""
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "workbench", *argv], cwd=tmp_path, env=_env(), stdout=None,
                          stderr=subprocess.PIPE, text=True, timeout=600, check=False,
                          preexec_fn=lambda: os.close(1))
    errors = [e for e in done.stderr.splitlines() if not e.startswith("carbench: compiling the car model")]
    assert done.returncode == 2, done.stderr
    assert len(errors) == 1 and errors[0].startswith(line), done.stderr
    assert sorted(os.listdir(tmp_path)) == ["S.toml"]


def test_a_full_stderr_through_the_first_compile(tmp_path):
    """The first compile's notice (printed by physics.kernel) goes to a full stderr: the run is unchanged."""
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    seed_subsystems(tmp_path / "cache")  # only the kernel left to compile
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "workbench", "replay", "S.toml"], cwd=tmp_path,
                              env=_env({"NUMBA_CACHE_DIR": str(tmp_path / "cache")}), stdout=subprocess.PIPE,
                              stderr=full, text=True, timeout=600, check=False)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout
    assert list((tmp_path / "cache").rglob("kernel._block*.nbi")), "the kernel was not compiled afresh"


def test_json_onto_a_full_stdout_is_one_line(tmp_path):
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "workbench", "replay", "S.toml", "--json", "--csv", "x.csv"],
                              cwd=tmp_path, env=_env(),
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=600, check=False)
    assert done.returncode == 2
    # A cold kernel cache adds the one progress line of the first compile before the run; the error is one line.
    errors = "".join(line for line in done.stderr.splitlines(keepends=True)
                     if not line.startswith("carbench: compiling the car model, once"))
    assert errors.startswith("carbench: ") and errors.count("\n") == 1, done.stderr
    assert "No space left" in errors
    assert sorted(os.listdir(tmp_path)) == ["S.toml"], "the CSV was written though its run failed"


def test_an_error_never_goes_to_stdout_when_stderr_is_closed(tmp_path):
    done = subprocess.run([sys.executable, "-m", "workbench", "replay", "nosuch.toml"], cwd=tmp_path, env=_env(),
                          capture_output=False, stdout=subprocess.PIPE, stderr=None, text=True, timeout=600,
                          check=False, preexec_fn=lambda: os.close(2))
    assert done.returncode == 2
    assert done.stdout == ""


def test_names_that_ascii_cannot_show_are_escaped_not_a_traceback(tmp_path):
    (tmp_path / "caf\xe9.toml").write_text(SHORT.replace('"short"', '"caf\xe9"'), encoding="utf-8")
    done = _carbench(["replay", "caf\xe9.toml", "--preset", "nosuch"], tmp_path, {"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "caf\\xe9.toml" in done.stderr, done.stderr
    done = _carbench(["replay", "caf\xe9.toml"], tmp_path, {"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_a_deleted_working_folder_is_one_line(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    code = ("import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); from workbench import cli; "
            "raise SystemExit(cli.main(['replay', 'braking_stop', '--csv', 'x.csv']))")
    done = subprocess.run([sys.executable, "-c", code, str(gone)], env=_env(), capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith("carbench: ") and done.stderr.count("\n") == 1, done.stderr
    assert "working folder no longer exists" in done.stderr


@pytest.mark.parametrize(("name", "value"), [("NUMBA_NUM_THREADS", "100000"), ("NUMBA_NUM_THREADS", "0"),
                                             ("NUMBA_NUM_THREADS", "lots"), ("NUMBA_THREADING_LAYER", "bogus")])
def test_the_numba_environment_is_checked_before_numba_loads(name, value, tmp_path):
    code = ("import sys; from workbench import cli; rc = cli.main(['replay', 'braking_stop']); "
            "assert 'numba' not in sys.modules, 'numba was imported'; raise SystemExit(rc)")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env({name: value}),
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"carbench: {name}=") and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize(("name", "value", "reason"), [("NUMBA_OPT", "7", "supported values are 0, 1, 2, 3"),
                                                       ("NUMBA_BOUNDSCHECK", "x", "invalid literal for int()")])
def test_any_other_numba_setting_numba_cannot_read_is_one_line(name, value, reason, tmp_path):
    """numba warned with its own 12-line traceback and went on with its default."""
    done = _carbench(["replay", "braking_stop"], tmp_path, {name: value})
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith(f"carbench: {name}={value!r}: numba cannot read it (") \
        and done.stderr.count("\n") == 1, done.stderr
    assert reason in done.stderr


@pytest.mark.parametrize(("name", "value"), [("NUMBA_NUM_THREADS", ""), ("NUMBA_NUM_THREADS", " "),
                                             ("NUMBA_THREADING_LAYER", ""), ("NUMBA_THREADING_LAYER", " omp "),
                                             ("NUMBA_NUM_THREADS", " 2 ")])
def test_an_empty_numba_setting_is_unset_and_spaces_are_dropped(name, value, tmp_path):
    """numba itself prints nine lines of warning for NUMBA_NUM_THREADS= and refuses ' omp' at the first batch."""
    done = subprocess.run([sys.executable, "-m", "workbench", "replay", "braking_stop", "full_lock_left"],
                          cwd=tmp_path, env=_env({name: value}), capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert [e for e in done.stderr.splitlines() if not e.startswith("carbench: compiling the car model")] == []


# -- a signal during numba's first compile: never swallowed by a ctypes callback ----------------------------------

IN_A_CALLBACK = """
import os, signal, sys
from numba.core import codegen

real = codegen.CPUCodeLibrary._object_compiled_hook.__func__
sent = []


def hook(cls, ll_module, buf):  # llvmlite calls this from C: an exception raised here is swallowed
    if not sent:
        sent.append(True)
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        sum(range(1000))  # a few bytecodes: the handler runs here, inside the callback
    return real(cls, ll_module, buf)


codegen.CPUCodeLibrary._object_compiled_hook = classmethod(hook)
from workbench import cli  # noqa: E402

raise SystemExit(cli.main(["replay", "S.toml", "--csv", "x.csv"]))
"""


def _stopped_cleanly(done_code: int, err: str, code: int, line: str, folder: Path) -> None:
    lines = [e for e in err.splitlines() if not e.startswith("carbench: compiling the car model")]
    assert done_code == code, err
    assert lines == [line], err
    assert sorted(n for n in os.listdir(folder) if n not in ("cache", "stderr")) == ["S.toml"], "an output was left"


@pytest.mark.parametrize(("name", "code", "line"), [("SIGTERM", 143, "carbench: stopped by signal 15"),
                                                    ("SIGHUP", 129, "carbench: stopped by signal 1"),
                                                    ("SIGINT", 130, "carbench: interrupted")])
def test_a_signal_inside_numbas_compile_callback_still_stops_the_run(name, code, line, tmp_path):
    """The signal is sent from inside llvmlite's object-cache callback (where numba's first compile runs
    Python, and where an exception is printed as 'Exception ignored' and dropped)."""
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    (tmp_path / "cache").mkdir()
    done = subprocess.run([sys.executable, "-c", IN_A_CALLBACK, name], cwd=tmp_path,
                          env=_env({"NUMBA_CACHE_DIR": str(tmp_path / "cache")}), capture_output=True, text=True,
                          timeout=600, check=False)
    _stopped_cleanly(done.returncode, done.stderr, code, line, tmp_path)


@pytest.mark.parametrize("delay", [0.0, 0.3, 1.0, 2.0, 4.0])
def test_sigterm_at_any_moment_of_a_cold_compile_stops_the_run(delay, tmp_path):
    """A real cold compile (an empty NUMBA_CACHE_DIR), SIGTERM some time after it starts."""
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    (tmp_path / "cache").mkdir()
    with open(tmp_path / "stderr", "w") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "workbench", "replay", "S.toml", "--csv", "x.csv"],
                                   cwd=tmp_path, env=_env({"NUMBA_CACHE_DIR": str(tmp_path / "cache")}),
                                   stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        for _ in range(6000):  # the kernel's compile has begun (its notice is printed)
            if "compiling the car model" in (tmp_path / "stderr").read_text() or process.poll() is not None:
                break
            time.sleep(0.05)
        time.sleep(delay)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    _stopped_cleanly(process.returncode, (tmp_path / "stderr").read_text(), 143, "carbench: stopped by signal 15",
                     tmp_path)


# -- Dask: a port that accepts and never answers ---------------------------------------------------------------

def test_a_scheduler_that_never_answers_is_given_up_on(monkeypatch):
    pytest.importorskip("distributed")
    import socket
    import threading

    from workbench.runs import cluster

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    port = server.getsockname()[1]
    held: list = []
    stop = threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
    try:
        with pytest.raises(cluster.ClusterError, match="no answer within 1 s"), \
                cluster.mapper(scheduler=f"tcp://127.0.0.1:{port}"):
            pass
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        server.close()


MARKED_SWEEP = """
import contextlib, pathlib, sys
from workbench import cli
from workbench.runs import cluster

real = cluster.mapper


@contextlib.contextmanager
def mapper(*args, **kwargs):  # says when the local cluster is up and its first chunks are sent
    with real(*args, **kwargs) as run:
        def marked(fn, chunks):
            pathlib.Path(sys.argv[1]).write_text("the cluster runs")
            return run(fn, chunks)
        yield marked


cluster.mapper = mapper
raise SystemExit(cli.main(["sweep", "full_lock_left", "--param", "steering.lock=10:80:400", "--param",
                           "body.mass=900:1800:100", "--workers", "2", "--chunk", "500", "--out", "o"]))
"""


def _group_alive(pgid: int) -> bool:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                return True
    return False


@pytest.mark.parametrize(("name", "code", "line"), [("SIGINT", 130, "carbench: interrupted"),
                                                    ("SIGTERM", 143, "carbench: stopped by signal 15"),
                                                    ("SIGHUP", 129, "carbench: stopped by signal 1")])
def test_a_signal_to_the_process_group_of_a_cluster_run_is_one_line(name, code, line, tmp_path):
    """Ctrl-C in a terminal signals every process of the group, the local cluster's workers too: the
    terminal sees carbench's one line (not the workers' tracebacks), and no worker outlives the run."""
    pytest.importorskip("distributed")
    marker = tmp_path / "running"
    with open(tmp_path / "stderr", "w") as stderr:  # a file, as a terminal is: the workers write to it too
        process = subprocess.Popen([sys.executable, "-c", MARKED_SWEEP, str(marker)], cwd=tmp_path, env=_env(),
                                   stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True)
    try:
        for _ in range(6000):  # the cluster is up and its workers run the first chunks (at most 10 min)
            if marker.exists() or process.poll() is not None:
                break
            time.sleep(0.1)
        assert marker.exists(), (tmp_path / "stderr").read_text()
        time.sleep(2.0)  # into the computation (the one line is owed at any moment; this is where it was not)
        os.killpg(process.pid, getattr(signal, name))
        out, _ = process.communicate(timeout=120)
        for _ in range(300):  # the workers are closed on the way out; what they print lands in the file
            if not _group_alive(process.pid):
                break
            time.sleep(0.1)
        outlived = _group_alive(process.pid)
    finally:
        if process.poll() is None or _group_alive(process.pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    err = (tmp_path / "stderr").read_text()
    lines = [e for e in err.splitlines() if not e.startswith("carbench: compiling the car model")]
    assert process.returncode == code, err
    assert lines == [line], err
    assert out == ""
    assert not (tmp_path / "o").exists()
    assert not outlived, "a worker outlived the run"


# -- one stamp: --json, the recording, the HTML page, the MCAP and the window show the same ------------------------

STAMPED = SHORT + '[[set]]\nat = 0.0\nparams = { "body.mass" = 1400.0, "steering.lock" = 0.5 }\n'


def _mcap_messages(path: Path):
    from mcap.reader import make_reader

    with open(path, "rb") as f:
        return [(channel.topic, message.log_time, message.data)
                for _, channel, message in make_reader(f).iter_messages(log_time_order=False)]


def test_one_stamp_on_every_surface(tmp_path, monkeypatch, capsys):
    import json

    from workbench.runs.live import LiveSession
    from workbench.runs.stamp import session_stamp
    from workbench.scripts.format import load_script
    from workbench.scripts.program import compile_script
    from workbench.scripts.recorder import Recorder

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "chart_renderer", lambda: _fake_render)
    (tmp_path / "S.toml").write_text(STAMPED, encoding="utf-8")
    code, out, err = run(["replay", "S.toml", "--json", "--mcap", "r.mcap", "--report", "rep"], capsys)
    assert code == 0, err
    from_json = json.loads(out)["scripts"][0]["stamp"]
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" class="stamp">(.*?)</script>', page)
    from_html = json.loads(found.group(1))
    assert from_json["params_sha256"] in page and from_json["preset_sha256"] in page
    parameters = [json.loads(data) for topic, _, data in _mcap_messages(tmp_path / "r.mcap")
                  if topic.endswith("/parameters")]
    from_mcap = parameters[0]["stamp"]
    program = compile_script(load_script("S.toml"))
    from_recording = Recorder(program.preset, program.dt, program.preset_params, program.params).script("r") \
        .recorded.to_table()
    session = LiveSession("sedan", program.dt)
    session.set_params({"body.mass": 1400.0, "steering.lock": 0.5})
    from_window = session_stamp(session).to_table()

    assert from_json == from_html == from_mcap == from_recording == from_window
    assert {c["path"] for c in from_json["changed"]} == {"body.mass", "steering.lock"}
    assert from_json["params_sha256"] != from_json["preset_sha256"]


def test_mcap_messages_are_in_log_time_order(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["replay", "full_lock_left", "braking_stop", "--mcap", "r.mcap"], capsys)
    assert code == 0, err
    times = [t for _, t, _ in _mcap_messages(tmp_path / "r.mcap")]
    assert len(times) > 2000
    assert times == sorted(times)
    topics = {topic for topic, _, _ in _mcap_messages(tmp_path / "r.mcap")}
    assert any(t.endswith("/verdicts") for t in topics)


# -- display units: one table (physics.units), every surface ------------------------------------------------------

def test_the_replay_table_shows_angles_in_degrees(capsys):
    code, out, err = run(["replay", "full_lock_left"], capsys)
    assert code == 0, err
    heading = next(line for line in out.splitlines() if "a full circle" in line)
    assert ">= 360 deg" in heading and "rad" not in heading, heading
    yaw = next(line for line in out.splitlines() if "turns left" in line)
    assert "deg/s" in yaw and "rad" not in yaw, yaw


def test_compares_parameter_diff_is_in_degrees(capsys):
    code, out, err = run(["compare", "full_lock_left", "--vs-set", "steering.lock=31.5127"], capsys)
    assert code in (0, 1), err
    row = next(line for line in out.splitlines() if "steering.lock" in line)
    assert row.split()[-1] == "deg" and "-> 31.5127" in row, row


def test_parameter_values_on_the_command_line_are_in_display_units(capsys):
    """compare --vs-set and manoeuvre --set/--vs-set take degrees, as sweep --param does; [[set]] params stay SI."""
    import json
    import math

    from workbench.manoeuvres.manoeuvre_command import car_of

    code, out, err = run(["compare", "full_lock_left", "--vs-set", "steering.lock=30", "--json"], capsys)
    assert code in (0, 1), err
    row = next(r for r in json.loads(out)["params"] if r["path"] == "steering.lock")
    assert row["b"] == pytest.approx(30.0) and row["unit"] == "deg", row
    car = car_of("sedan", ["steering.lock=30", "body.mass=1400"], "--set")
    assert car.params.steering.lock == math.radians(30) and car.params.body.mass == 1400


def test_the_reports_parameter_table_is_in_display_units(tmp_path, monkeypatch, capsys):
    """'Parameters against the shipped preset' shows what compare's diff shows: degrees for angles."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "chart_renderer", lambda: _fake_render)
    (tmp_path / "S.toml").write_text(STAMPED + '[[set]]\nat = 1.0\nparams = { "steering.lock" = 0.6 }\n',
                                     encoding="utf-8")
    code, _, err = run(["replay", "S.toml", "--report", "rep"], capsys)
    assert code == 0, err
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    table = page[page.index("Parameters against the shipped preset"):page.index("<h3>Expectations")]
    rows = re.findall(r"<tr>(.*?)</tr>", table)
    lock = [r for r in rows if "steering.lock" in r]
    assert len(lock) == 2, rows  # from the start, then at 1 s
    assert "28.6479 deg" in lock[0] and "34.3775 deg" in lock[1], lock
    # the column is the value before: the shipped one from the start, the script's 28.6 deg before the change at 1 s
    # (headed "shipped", it read 28.6 deg, which is not the sedan's)
    assert "<th>before</th>" in table and "<th>shipped</th>" not in table
    assert "<td>28.6479 deg</td><td>34.3775 deg</td><td>from 1 s</td>" in lock[1], lock
    assert "rad" not in table, table
    assert any("body.mass" in r and "1400 kg" in r for r in rows), rows


def test_a_report_on_a_preset_file_does_not_call_it_the_shipped_preset(tmp_path, monkeypatch, capsys):
    """A preset file of the user's (three values off the sedan's) read "the shipped preset, unchanged" (a review)."""
    from physics.presets import cars_dir

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "chart_renderer", lambda: _fake_render)
    text = (cars_dir() / "sedan.toml").read_text(encoding="utf-8").replace("mass = 1600.0", "mass = 1500.0", 1)
    assert "mass = 1500.0" in text
    (tmp_path / "mine.toml").write_text(text, encoding="utf-8")
    (tmp_path / "own").mkdir()
    (tmp_path / "own" / "sedan.toml").write_text(text, encoding="utf-8")  # named as a shipped preset, and not one
    (tmp_path / "S.toml").write_text(STAMPED, encoding="utf-8")
    code, _, err = run(["replay", "S.toml", "--preset", "own/sedan.toml", "--report", "rep"], capsys)
    assert code == 0, err
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert "Parameters against the shipped preset" not in page and "own/sedan.toml" in page
    for extra, changed in (("", False), ('[[set]]\nat = 1.0\nparams = { "body.mass" = 1700.0 }\n', True)):
        (tmp_path / "S.toml").write_text(STAMPED + extra, encoding="utf-8")
        code, _, err = run(["replay", "S.toml", "--preset", "mine.toml", "--report", "rep"], capsys)
        assert code == 0, err
        page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
        assert "shipped preset, unchanged" not in page and "Parameters against the shipped preset" not in page
        assert "<h3>Parameters changed in the run</h3>" in page
        if changed:
            assert re.search(r"<tr><td>body\.mass</td><td>[0-9.]+ kg</td><td>1700 kg</td><td>from 1 s</td></tr>", page)
        else:
            assert "not a shipped preset (nothing to set its values against), unchanged in the run" in page


def test_the_telemetry_csv_names_units_and_compare_still_reads_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["replay", "full_lock_left", "--csv", "a.csv"], capsys)
    assert code == 0, err
    header = (tmp_path / "a.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[:4] == ["t [s]", "x [m]", "y [m]", "heading [rad]"] and "gear" in header
    code, out, err = run(["compare", "a.csv", "a.csv"], capsys)
    assert code == 0, err
    text = (tmp_path / "a.csv").read_text(encoding="utf-8").replace("heading [rad]", "heading [deg]", 1)
    (tmp_path / "b.csv").write_text(text, encoding="utf-8")
    one_line(*run(["compare", "a.csv", "b.csv"], capsys), ["b.csv", "heading", "deg"])


def test_compares_csv_names_each_columns_display_unit(tmp_path, monkeypatch, capsys):
    """compare --csv writes display units (degrees): its header says so per column, as replay's CSV does;
    and compare still reads replay's CSVs, whose header carries their SI units."""
    import csv

    monkeypatch.chdir(tmp_path)
    code, _, err = run(["replay", "full_lock_left", "--csv", "a.csv"], capsys)
    assert code == 0, err
    code, _, err = run(["compare", "a.csv", "a.csv", "--csv", "c.csv"], capsys)
    assert code == 0, err
    with open(tmp_path / "c.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    header = list(rows[0])
    assert header[:4] == ["t [s]", "x.a [m]", "x.b [m]", "x.delta [m]"], header
    assert {"heading.a [deg]", "yaw_rate.b [deg/s]", "speed_kmh.delta [km/h]", "gear.a"} <= set(header), header
    assert float(rows[-1]["heading.a [deg]"]) > 360  # degrees, as the header says


def test_sweep_columns_and_charts_are_in_display_units_one_unit_per_axis(tmp_path, monkeypatch, capsys):
    import csv

    monkeypatch.chdir(tmp_path)
    charts_drawn = {}

    def render(chart, path):
        charts_drawn[Path(path).name.split(".partial")[0].lstrip(".")] = chart
        Path(path).write_bytes(b"\x89PNG\r\n\x1a\n")

    monkeypatch.setattr(cli, "chart_renderer", lambda: render)
    code, out, err = run(["sweep", "full_lock_left", "--param", "steering.lock=20,40", "--out", "o", "--plot"], capsys)
    assert code == 0, err
    with open(tmp_path / "o" / "sweep.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert "a full circle within 10 s [deg]" in rows[0] and "turns left [deg/s]" in rows[0]
    assert float(rows[1]["a full circle within 10 s [deg]"]) > 360  # degrees, not radians
    margins = [c for name, c in charts_drawn.items() if name.startswith("margins")]
    assert len(margins) == len({c.y_label for c in margins}) >= 3  # km/h, deg/s, deg: one chart each
    assert all("[" in c.y_label for c in margins)


def test_the_display_table_is_the_one_the_surfaces_use():
    import math

    from physics import channel_infos
    from physics.units import display_of, shown, to_si

    infos = {c.name: c for c in channel_infos("m")}
    assert display_of(infos["heading"]) == ("deg", 180.0 / math.pi)
    assert display_of(infos["yaw_rate"])[0] == "deg/s"
    assert display_of(infos["speed"]) == ("m/s", 1.0)
    assert shown(math.pi, infos["heading"]) == "180 deg"
    assert to_si(180.0, infos["heading"]) == math.pi


def test_control_characters_in_names_and_texts_stay_on_their_line(tmp_path, monkeypatch, capsys):
    """A newline (or an escape sequence) in a file's name or in a recording's text is shown escaped: the message
    stays one line, and nothing can pass for a line of carbench's own."""
    from workbench.streams import one_line as escaped

    assert escaped("a\nb\tc\r\x1b[2J\x7f\x85é\u2028") == "a\\nb\\tc\\r\\x1b[2J\\x7f\\x85é\\u2028"
    # A right-to-left override (or isolate) in a name reordered the rest of its line on a terminal.
    assert escaped("na\u00efve\u202eevil\u2066x\u200f") == "na\u00efve\\u202eevil\\u2066x\\u200f"
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["replay", "no\nsuch.toml"], capsys)
    one_line(code, out, err, ["no\\nsuch.toml: no such script file"])
    Path("bad\nname.toml").write_text(SHORT + "oops =\n", encoding="utf-8")
    code, out, err = run(["replay", "bad\nname.toml"], capsys)
    one_line(code, out, err, ["bad\\nname.toml: not valid TOML"])
    code, out, err = run(["manoeuvre", "iso7975", "--preset", "no\x1b[2Jcar"], capsys)
    one_line(code, out, err, ["no\\x1b[2Jcar"])
    # A recording made by "another version" whose text holds a line of its own: the note stays one line.
    Path("R.toml").write_text(recorded().replace('carbench = "x"', 'carbench = "0.1\\ncarbench: all passed"'),
                              encoding="utf-8")
    code, out, err = run(["replay", "R.toml"], capsys)
    assert code == 0, err
    notes = [line for line in err.splitlines() if line.startswith("carbench: ")]
    assert notes == [line for line in err.splitlines() if "recorded with" in line], err
    assert len(notes) == 1 and "carbench 0.1\\ncarbench: all passed" in notes[0], err


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["replay", "--help"]])
def test_help_and_version_onto_a_full_stdout_are_one_line_and_exit_2(tmp_path, args):
    # argparse drops a failed write of its help: the command said nothing and exited 0.
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "workbench", *args], cwd=tmp_path, env=_env(), stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=600, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr == "carbench: cannot write to stdout: No space left on device (it is /dev/full)\n"
    shown = subprocess.run([sys.executable, "-m", "workbench", *args], cwd=tmp_path, env=_env(),
                           capture_output=True, text=True, timeout=600, check=False)
    assert shown.returncode == 0 and shown.stderr == "" and shown.stdout.startswith(("usage: carbench", "carbench "))


# -- file names that are not UTF-8 (a byte such as 0xE9, which Python reads as a lone surrogate) --------------------

ODD = os.fsdecode(b"sk\xe9")  # "sk\udce9"


def test_a_script_whose_file_name_is_not_utf8_writes_every_output(tmp_path, monkeypatch, capsys):
    """The name went into the MCAP's metadata, the report's page and --json as a lone surrogate: a UnicodeEncodeError
    traceback after the run (the JSON printed one that strict readers refuse). It is written as \\xe9."""
    import json

    from mcap.reader import make_reader

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "chart_renderer", lambda: _fake_render)
    script = f"{ODD}.toml"
    Path(script).write_text(SHORT, encoding="utf-8")

    code, out, err = run(["replay", script, "--mcap", "m.mcap", "--report", "rep", "--json"], capsys)

    assert code == 0, err
    assert json.loads(out)["scripts"][0]["file"] == "sk\\xe9.toml"
    with open("m.mcap", "rb") as f:
        channels = make_reader(f).get_summary().channels.values()
    assert {c.metadata["script"] for c in channels} == {"sk\\xe9.toml"}
    assert "sk\\xe9.toml" in (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")


def test_a_report_folder_whose_name_is_not_utf8_gets_its_charts(tmp_path):
    """Qt re-encoded the chart's path as UTF-8 and could not write it: refused only after the whole run ("could not
    write out\\udce9/short-expect-1.png"). The charts are encoded in memory and written by Python."""
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    folder = os.fsdecode(b"out\xe9")
    done = _carbench(["replay", "S.toml", "--report", folder], tmp_path, {"QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    charts = list((tmp_path / folder).glob("*.png"))
    assert charts and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in charts)
