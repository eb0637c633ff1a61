"""A fourth look at hostile input: each case printed a false or misleading line (or a traceback) before its fix.

In-process calls and short scripts only (the suite is at the edge of its time budget).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys

import pytest
from cli_calls import run

from workbench.output.files import MAX_NAME_BYTES

# -- --max-memory: every malformed size says what is wrong with it ---------------------------------------------------

NOT_A_SIZE = "give a number of bytes, or one with K, M, G, T (e.g. 2G, 512M)"


@pytest.mark.parametrize("typed, said", [
    ("nanG", "'nanG': 'nan' is not a number; " + NOT_A_SIZE),  # was: unknown unit 'nang'
    ("NaN", "'NaN': 'nan' is not a number; " + NOT_A_SIZE),  # was: unknown unit 'nan'
    ("infG", "'infG': 'inf' is not a finite number; " + NOT_A_SIZE),  # was: unknown unit 'infg'
    ("-infinityGiB", "'-infinityGiB': '-infinity' is not a finite number; " + NOT_A_SIZE),
    ("nan1G", "'nan1G': 'nan1' is not a number; " + NOT_A_SIZE),
    ("1.5.2G", "'1.5.2G': '1.5.2' is not a number; " + NOT_A_SIZE),
    ("", "'': an empty size; " + NOT_A_SIZE),  # was: '' is not a size
    ("G", "'G': no number; " + NOT_A_SIZE),
    ("-1G", "'-1G': the size must be positive"),
    ("0G", "'0G': the size must be positive"),
    ("0.1", "'0.1': less than one byte"),  # was taken: a budget of 0 B, every replay refused as over it
    ("1e-300G", "'1e-300G': less than one byte"),
    ("2X", "'2X': unknown unit 'x'; use a number of bytes or K, M, G, T (KiB, MiB, GiB ...)"),
])
def test_a_malformed_max_memory_says_what_is_wrong(typed, said, capsys):
    code, out, err = run(["replay", "braking_stop", f"--max-memory={typed}"], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: argument --max-memory: {said}"], err


@pytest.mark.parametrize("argv, said", [
    # argparse took the value for an option and said only "expected one argument"
    (["replay", "braking_stop", "--max-memory", "-1G"], "argument --max-memory: '-1G': the size must be positive"),
    (["replay", "braking_stop", "--max-memory", "-infG"],
     "argument --max-memory: '-infG': '-inf' is not a finite number; " + NOT_A_SIZE),
    (["hunt", "--cars", "-1e3"], "argument --cars: invalid whole number value: '-1e3'"),
    (["replay", "braking_stop", "--dt", "-1e-2"], "argument --dt: '-1e-2' was read as an option; give it as --dt=-1e-2"),
    (["replay", "braking_stop", "--dt", "-inf"], "argument --dt: invalid number value: '-inf'"),  # no number typed
    # an option indeed after the option: argparse's words are true
    (["replay", "braking_stop", "--max-memory", "--json"], "argument --max-memory: expected one argument"),
    # a mistyped option (or a short one) is no value: argparse's words are true there too (a review: '--jsn' was
    # judged as a size, "unknown unit 'jsn'", and '--preset --jsn' told to give --preset=--jsn)
    (["replay", "braking_stop", "--max-memory", "--jsn"], "argument --max-memory: expected one argument"),
    (["replay", "braking_stop", "--preset", "--jsn"], "argument --preset: expected one argument"),
    (["replay", "braking_stop", "--max-memory", "-x"], "argument --max-memory: expected one argument"),
])
def test_a_value_that_starts_with_a_dash_is_judged_as_a_value(argv, said, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: {said}"], err


# -- a stdout known to take nothing: said before the run, not after minutes of it ----------------------------------

SHORT = ('[script]\nname = "n"\npreset = "teaching"\nduration = 0.1\n'
         '[[expect]]\nchannel = "speed"\nat = 0.05\nmax = 1.0\n')
DEV_FULL = "carbench: cannot write to stdout: No space left on device (it is /dev/full)"


@contextlib.contextmanager
def dev_full_stdout():
    """``> /dev/full``, in this process: sys.stdout a real file on the device (set in the test's body: capsys sets
    sys.stdout again as the test's call begins)."""
    saved = sys.stdout
    with open("/dev/full", "w", encoding="utf-8") as full:
        sys.stdout = full
        try:
            yield
        finally:
            sys.stdout = saved
            with contextlib.suppress(OSError):
                full.truncate(0)  # anything the old code printed: dropped, so that the close does not fail


def _never(*args, **kwargs):
    raise AssertionError("the run started though its result could go nowhere")


def test_bench_onto_dev_full_stops_before_measuring(monkeypatch, capsys):
    """carbench bench --json > /dev/full measured for minutes, then failed on the print."""
    from workbench import bench

    monkeypatch.setattr(bench, "measure", _never)
    with dev_full_stdout():
        code, _, err = run(["bench", "--json", "--no-gui", "--quick"], capsys)
    assert code == 2 and err.splitlines() == [DEV_FULL], err


COMMANDS = [
    ("replay", ["replay", "S.toml", "--csv", "x.csv", "--json"], "workbench.runs.replay.replay"),
    ("sweep", ["sweep", "S.toml", "--param", "body.mass=1000:1200:2", "--out", "sw"],
     "workbench.runs.sweep_command.run_sweep"),
    ("hunt", ["hunt", "--preset", "teaching", "--cars", "1", "--seconds", "0.1", "--out", "h"],
     "workbench.runs.hunt.hunt"),
    ("compare", ["compare", "S.toml", "--vs-dt", "0.005", "--csv", "c.csv"], "workbench.runs.compare_command.replay"),
    ("manoeuvre", ["manoeuvre", "iso4138_circle"], "workbench.manoeuvres.manoeuvre_command.run_tests"),
]


@pytest.mark.parametrize(("case", "argv", "runner"), COMMANDS, ids=[c for c, _, _ in COMMANDS])
def test_every_long_command_onto_dev_full_stops_before_its_run(case, argv, runner, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    monkeypatch.setattr(runner, _never)
    with dev_full_stdout():
        code, _, err = run(argv, capsys)
    assert code == 2 and err.splitlines() == [DEV_FULL], err
    assert sorted(os.listdir(tmp_path)) == ["S.toml"]


def test_bad_input_is_still_told_first_onto_dev_full(capsys):
    with dev_full_stdout():
        code, _, err = run(["replay", "nosuch.toml"], capsys)
    assert code == 2 and err.startswith("carbench: nosuch.toml: no such script file"), err


def test_only_dev_full_and_a_closed_stdout_are_known_in_advance(tmp_path):
    """A pipe, a file and /dev/null may take the output: nothing is refused before a write fails."""
    from workbench.streams import ClosedStdout, stdout_refusal

    read, write = os.pipe()
    with os.fdopen(write, "w") as pipe, open(tmp_path / "f", "w") as file, open(os.devnull, "w") as null:
        assert [stdout_refusal(s) for s in (pipe, file, null, io.StringIO())] == [None] * 4
    os.close(read)
    assert stdout_refusal(ClosedStdout()) == "cannot write to stdout: it is closed"
    with open("/dev/full", "w") as full:
        assert stdout_refusal(full) == DEV_FULL.removeprefix("carbench: ")


# -- a newline in a name and a backslash-n typed in one print differently ------------------------------------------

def test_a_file_name_with_a_newline_is_told_from_one_with_a_typed_backslash_n(tmp_path, monkeypatch, capsys):
    """one_line escaped the newline as \\n and left a typed backslash as it was: 'a<newline>b.toml' and 'a\\nb.toml'
    printed the same line on stderr (and the same source in the verdict table)."""
    monkeypatch.chdir(tmp_path)
    real, typed = "a\nb.toml", "a\\nb.toml"
    for name in (real, typed):
        (tmp_path / name).write_text(SHORT, encoding="utf-8")
    said = {}
    for name in (real, typed):
        code, out, err = run(["replay", name, "--preset", "nosuch"], capsys)
        assert code == 2 and out == "" and len(err.splitlines()) == 1, err
        said[name] = err
    assert said[real].startswith("carbench: a\\nb.toml: --preset: nosuch: no such preset"), said[real]
    assert said[typed].startswith("carbench: a\\\\nb.toml: --preset: nosuch: no such preset"), said[typed]
    tables = [run(["replay", name], capsys)[1] for name in (real, typed)]
    assert "(a\\nb.toml)" in tables[0] and "(a\\\\nb.toml)" in tables[1], tables


def test_a_preset_name_with_a_newline_is_told_from_one_with_a_typed_backslash_n(tmp_path, capsys):
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    lines = [run(["replay", str(tmp_path / "S.toml"), "--preset", name], capsys)[2] for name in ("x\ny", "x\\ny")]
    assert ": --preset: x\\ny: no such preset" in lines[0] and len(lines[0].splitlines()) == 1, lines[0]
    assert ": --preset: x\\\\ny: no such preset" in lines[1] and len(lines[1].splitlines()) == 1, lines[1]


def test_a_byte_that_is_not_utf8_is_told_from_a_typed_backslash_x_on_stderr(tmp_path, monkeypatch, capsys):
    """As in the files' contents (printable): the byte 0xE9 prints as \\xe9, the four characters typed as \\\\xe9."""
    monkeypatch.chdir(tmp_path)
    byte, typed = os.fsdecode(b"sk\xe9.toml"), "sk\\xe9.toml"
    lines = [run(["replay", name], capsys)[2] for name in (byte, typed)]
    assert lines[0].startswith("carbench: sk\\xe9.toml: no such script file"), lines[0]
    assert lines[1].startswith("carbench: sk\\\\xe9.toml: no such script file"), lines[1]


# -- found by trying: each said a line that did not name what was wrong ---------------------------------------------

@pytest.mark.parametrize(("second", "said"), [
    ("", "--vs-script: '': an empty script name"),  # was "carbench: '': an empty script name", naming nothing
    ("nosuch", "--vs-script: nosuch: no such script file"),  # was "nosuch: ...": which of the two?
    ("dir.toml", "--vs-script: dir.toml: is a directory"),
    ("bad.toml", "--vs-script: bad.toml: [[expect]] #1: `max` (1) is below `min` (2)"),
])
def test_compare_names_the_vs_script_it_refuses(second, said, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    (tmp_path / "bad.toml").write_text(SHORT + "min = 2.0\n", encoding="utf-8")
    (tmp_path / "dir.toml").mkdir()
    code, out, err = run(["compare", "S.toml", "--vs-script", second], capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith(f"carbench: {said}"), err


def test_replay_csv_of_a_script_with_a_long_name_beside_another(tmp_path, monkeypatch, capsys):
    """Two scripts and --csv: each CSV is named <stem>.<script name>.csv, and a script named with 300 characters
    (a string in its file) made a name the file system refuses: exit 2 with a 300-character line, no CSV."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    (tmp_path / "L.toml").write_text(SHORT.replace('name = "n"', f'name = "{"n" * 300}"'), encoding="utf-8")
    for stem in ("x", "y" * 160, "z" * 195, "\u00e9" * 97):  # a long --csv name leaves the script's name less room
        code, out, err = run(["replay", "L.toml", "S.toml", "--csv", f"{stem}.csv"], capsys)
        assert code == 0, (stem[:3], err)
        made = [p.name for p in tmp_path.glob("*.csv")]
        assert len(made) == 2 and all(len(os.fsencode(name)) <= MAX_NAME_BYTES for name in made), made
        assert any(name.endswith(".n.csv") for name in made) and any("nnnnnnnnnnnnnnnn.csv" in name for name in made)
        assert all(name.decode("utf-8") for name in map(os.fsencode, made))  # cut between characters
        for p in tmp_path.glob("*.csv"):
            p.unlink()


@pytest.mark.parametrize("command, option, suffix, starts", [
    (["replay", "S.toml"], "--csv", ".csv", b"t [s],"),
    (["replay", "S.toml"], "--mcap", ".mcap", b"\x89MCAP"),
    (["compare", "S.toml", "--vs-script", "S.toml"], "--csv", ".csv", b""),
])
def test_an_output_named_with_the_200_bytes_it_may_have_is_written(command, option, suffix, starts, tmp_path,
                                                                   monkeypatch, capsys):
    """The staged output was written through a temporary file of its own (workbench.output.files.atomic_writer),
    staged twice: a --csv or --mcap name of 194 bytes, within the 200 the outputs allow, passed a file name's 255
    bytes and ended as 'File name too long' (replay --csv, replay --mcap, compare --csv)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT, encoding="utf-8")
    name = "y" * (MAX_NAME_BYTES - len(suffix)) + suffix
    code, out, err = run([*command, option, name], capsys)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["S.toml", name]
    assert (tmp_path / name).read_bytes().startswith(starts) and (tmp_path / name).stat().st_size > 0
