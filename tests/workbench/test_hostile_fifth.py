"""A fifth look at hostile input: each case printed a false, doubled or differently worded line before its fix.

In-process calls only (the suite is at the edge of its time budget).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import io
import os
import sys

import numpy as np
import pytest
from cli_calls import run

SHORT = ('[script]\nname = "n"\npreset = "teaching"\nduration = 0.1\n'
         '[[expect]]\nchannel = "speed"\nat = 0.05\nmax = 1.0\n')


def _never(*args, **kwargs):
    raise AssertionError("the run started")


# -- an output in a folder of the kernel's: said as that, not as a device --------------------------------------------

@pytest.mark.parametrize("option, target, folder", [
    ("--csv", "/proc/carbench-x.csv", "/proc"),
    ("--mcap", "/proc/carbench-x.mcap", "/proc"),
    ("--csv", "/sys/kernel/carbench-x.csv", "/sys/kernel"),
])
def test_an_output_to_be_created_in_proc_or_sys_names_the_folder(option, target, folder, tmp_path, monkeypatch,
                                                                   capsys):
    """``--csv /proc/x.csv`` said "is a device or system file, not a regular file" of a file that does not exist."""
    import workbench.runs.replay as replay

    monkeypatch.setattr(replay, "replay", _never)
    script = tmp_path / "s.toml"
    script.write_text(SHORT, encoding="utf-8")
    code, out, err = run(["replay", str(script), option, target], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: {option} {target}: the folder {folder} is among the system's own files "
                                "(/proc, /sys), where no file can be created"], err


def test_an_output_through_a_link_into_proc_names_the_link_and_where_it_leads(tmp_path, monkeypatch, capsys):
    import workbench.runs.replay as replay

    monkeypatch.setattr(replay, "replay", _never)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(SHORT, encoding="utf-8")
    (tmp_path / "into-proc").symlink_to("/proc/sys")
    code, out, err = run(["replay", "s.toml", "--csv", "into-proc/x.csv"], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == ["carbench: --csv into-proc/x.csv: the folder into-proc (which leads to /proc/sys) is among "
                                "the system's own files (/proc, /sys), where no file can be created"], err
    # a file that is there is a system file indeed, and a folder that is not there is said as missing
    for target, said in (("/proc/self/status", "/proc/self/status: is a device or system file, not a regular file"),
                         ("/proc/carbench-no-such/x.csv", "/proc/carbench-no-such/x.csv: the folder "
                                                          "/proc/carbench-no-such does not exist")):
        code, out, err = run(["replay", "s.toml", "--csv", target], capsys)
        assert code == 2 and err.splitlines() == [f"carbench: --csv {said}"], err


# -- a stdout that takes nothing: every command says it in the same words -----------------------------------------

DEV_FULL = "carbench: cannot write to stdout: No space left on device (it is /dev/full)"


@contextlib.contextmanager
def stdout_as(stream):
    """``sys.stdout`` replaced for the block (set in the test's body: capsys sets sys.stdout again as a test's call
    begins)."""
    saved = sys.stdout
    sys.stdout = stream
    try:
        yield
    finally:
        sys.stdout = saved


@contextlib.contextmanager
def dev_full_stdout():
    """``> /dev/full``, in this process: sys.stdout a real file on the device."""
    with open("/dev/full", "w", encoding="utf-8") as full, stdout_as(full):
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                full.truncate(0)  # anything the old code left buffered: dropped, so that the close does not fail


class _NoHub:
    """SDL2's hub with nothing plugged in (the test does not depend on SDL2 being there)."""

    version = "2.0.0"
    devices: dict = {}

    def pump(self):
        pass

    update = close = pump


@pytest.mark.parametrize("argv", [["presets"], ["devices"], ["devices", "--json"], ["--help"], ["--version"],
                                  ["presets", "--help"], ["bench", "--help"]], ids=" ".join)
def test_every_command_onto_dev_full_says_so_as_replay_does(argv, monkeypatch, capsys):
    """``presets`` and ``devices`` said "cannot write the output: No space left on device" (their print failed and
    the catch-all for unforeseen OSErrors worded it), --help and --version "cannot write to stdout: No space left on
    device": replay, sweep, hunt, compare, manoeuvre and bench say DEV_FULL."""
    from workbench.controllers import devices_command

    monkeypatch.setattr(devices_command, "ControllerHub", _NoHub)
    with dev_full_stdout():
        code, _, err = run(argv, capsys)
    assert code == 2 and err.splitlines() == [DEV_FULL], err


class _FullDisk(io.TextIOBase):
    """A stdout on a disk that fills up: not known in advance (no /dev/full), every write fails with ENOSPC."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_bench_and_presets_onto_a_full_disk_say_it_is_stdout(monkeypatch, capsys):
    """bench's table and presets' list were printed line by line: a write that failed was worded by the catch-all,
    "cannot write the output", as if an output file had; the commands' results go through streams.emit now."""
    from workbench import bench

    monkeypatch.setattr(bench, "measure", lambda *a: {})
    monkeypatch.setattr(bench, "print_figures", lambda figures: print("carbench bench\n  figures"))
    for argv in (["bench", "--no-gui", "--quick"], ["presets"]):
        with stdout_as(_FullDisk()):
            code, _, err = run(argv, capsys)
        assert code == 2 and err.splitlines() == ["carbench: cannot write to stdout: No space left on device"], err


# -- a sweep's value typed twice: refused, not the same car run twice ----------------------------------------------

@pytest.mark.parametrize("spec, said", [
    ("body.mass=1200,1200", "the value 1200 is given twice"),
    ("body.mass=1100, 1200 ,1200", "the value 1200 is given twice"),
    ("body.mass=1200,1300,1200.0", "1200.0 is the value 1200 again"),
    ("steering.lock=30,3e1", "3e1 is the value 30 again"),  # in degrees, compared as the car gets it
])
def test_a_sweep_value_given_twice_is_refused(spec, said, tmp_path, monkeypatch, capsys):
    """``--param body.mass=1,1`` ran the same car twice, two identical rows in sweep.csv, without a word: a typo an
    engineer would want told (the same parameter in two --param options was already refused, 'given twice')."""
    import workbench.runs.sweep_command as sweep_command

    monkeypatch.setattr(sweep_command, "run_sweep", _never)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT.replace("teaching", "sedan"), encoding="utf-8")
    code, out, err = run(["sweep", "S.toml", "--param", spec, "--out", "sw"], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: --param {spec}: {said}; give each value once (the same car would run "
                                "twice)"], err
    assert sorted(os.listdir(tmp_path)) == ["S.toml"]


def test_a_sweep_range_with_more_values_than_floats_in_it_is_refused(tmp_path, monkeypatch, capsys):
    import workbench.runs.sweep_command as sweep_command

    monkeypatch.setattr(sweep_command, "run_sweep", _never)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "S.toml").write_text(SHORT.replace("teaching", "sedan"), encoding="utf-8")
    spec = "body.mass=1200:1200.0000000000002:5"
    code, out, err = run(["sweep", "S.toml", "--param", spec, "--out", "sw"], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: --param {spec}: N = 5 values from 1200.0 to 1200.0000000000002 kg are "
                                "not all different as the cars get them (as floats); give fewer values or a wider "
                                "range (the same car would run twice)"], err
    # Degrees all different as typed, not all in radians, where the cars get them: said so, not blamed on the degrees.
    spec = "steering.lock=30:30.000000000001:200"
    typed = np.linspace(30.0, 30.000000000001, 200)
    assert len(set(typed.tolist())) == 200 and len(set(np.radians(typed).tolist())) < 200
    code, out, err = run(["sweep", "S.toml", "--param", spec, "--out", "sw"], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: --param {spec}: N = 200 values from 30.0 to 30.000000000001 deg are "
                                "not all different as the cars get them (as floats, in SI); give fewer values or a "
                                "wider range (the same car would run twice)"], err
    # values that differ run as before
    from physics import load_preset
    from workbench.runs.sweep_axes import parse_axis

    assert list(parse_axis("body.mass=1200,1200.5", load_preset("sedan").params).values) == [1200.0, 1200.5]


# -- argparse's own messages: what was typed escaped once, as in carbench's other lines -----------------------------

ARGPARSE_QUOTES = [  # (argv, the line after "carbench: ")
    (["hunt", "--cars", "a\\b"], "argument --cars: invalid whole number value: 'a\\\\b'"),
    (["replay", "S.toml", "--dt", "a\\b"], "argument --dt: invalid number value: 'a\\\\b'"),
    (["rep\\lay"], "argument command: invalid choice: 'rep\\\\lay' (choose from 'replay', 'sweep', 'hunt', "
                   "'compare', 'devices', 'manoeuvre', 'presets', 'bench', 'demo')"),
    (["replay", "S.toml", "--json=a\\b"], "argument --json: ignored explicit argument 'a\\\\b'"),
    # a newline, a typed backslash-n and a byte that is not UTF-8 read as in a file name
    (["replay", "S.toml", "--dt", "a\nb"], "argument --dt: invalid number value: 'a\\nb'"),
    (["replay", "S.toml", "--dt", "a\\nb"], "argument --dt: invalid number value: 'a\\\\nb'"),
    (["replay", "S.toml", "--dt", os.fsdecode(b"a\xe9")], "argument --dt: invalid number value: 'a\\xe9'"),
    (["replay", "S.toml", "--dt", "it's"], "argument --dt: invalid number value: \"it's\""),  # quoted so it reads whole
]


@pytest.mark.parametrize(("argv", "said"), ARGPARSE_QUOTES, ids=[" ".join(a) for a, _ in ARGPARSE_QUOTES])
def test_argparse_messages_escape_what_was_typed_once(argv, said, capsys):
    """argparse quotes a bad value with repr (a backslash as two), and the line's printer doubled each again: a typed
    a\\b read 'a\\\\\\\\b', where carbench's own lines (a\\\\b.toml: no such script file) show two."""
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: {said}"], err
    _, _, own = run(["replay", "a\\b.toml"], capsys)
    assert own.startswith("carbench: a\\\\b.toml: no such script file"), own  # the same backslash, the same two


# -- a hunt's minimal script naming a preset file whose name is not UTF-8: its line escaped once --------------------

class _Finding:
    """One finding of a hunt on ``preset``, without the hunt (its script: a short one on that preset)."""

    monitor = "rpm_range"

    def __init__(self, preset: str):
        self.preset = preset

    def script(self, name: str, seed: int):
        from workbench.scripts.format import parse_script

        return parse_script(SHORT.replace('"n"', f'"{name}"'))

    def explanation(self, seed: int, cars: int | None = None, seconds: float | None = None) -> str:
        return f"# carbench hunt --preset {self.preset} --cars {cars}\n"  # as hunt.Finding's header begins


def test_a_hunt_refusing_a_preset_name_that_is_not_utf8_escapes_its_line_once(tmp_path, monkeypatch, capsys):
    """The line quoted from the script was escaped for the window (printable), then escaped again by the command
    line's printer: the byte 0xE9 read \\\\xe9 (a name with \\xe9 typed in it), where every other line says \\xe9."""
    from physics.presets import cars_dir
    from workbench.runs import hunt

    monkeypatch.chdir(tmp_path)
    preset = os.fsdecode(b"car\xe9.toml")
    (tmp_path / preset).write_bytes((cars_dir() / "teaching.toml").read_bytes())
    monkeypatch.setattr(hunt, "hunt", lambda presets, *a, **k: [_Finding(presets[0])])
    code, out, err = run(["hunt", "--preset", preset, "--cars", "1", "--seconds", "0.1", "--out", "found"], capsys)
    assert code == 2 and out == ""
    # (refused before the hunt runs now, where it was refused after it, writing the first script)
    assert err.splitlines() == ["carbench: --preset car\\xe9.toml: the scripts a hunt writes name it, and its name is "
                                "not UTF-8 (a file name's bytes, which a script cannot hold); rename that file"], err
    assert sorted(os.listdir(tmp_path)) == [preset]  # nothing written: --out not made
    # the window shows str(): escaped once there too (Qt would drop the lone surrogate), as before
    from workbench.scripts.format import ScriptError, parse_script

    script = parse_script(SHORT)
    with pytest.raises(ScriptError) as refused:
        dataclasses.replace(script, preset=preset).file_text("x.toml")
    assert str(refused.value).startswith("x.toml: not written: a name in it is not UTF-8 (`preset = "
                                         "\"car\\xe9.toml\"`)"), refused.value
    assert refused.value.raw == str(refused.value).replace("\\xe9", preset[3])


def test_the_presets_listing_keeps_its_columns_for_the_longest_name(capsys):
    """sedan_single_track, longer than the column of names, pushed its row's columns right of the others' (a review)."""
    from workbench.cli import main

    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    cars = [line for line in out.splitlines()[1:] if line.startswith("  ") and " unit " in line]
    scripts = [line for line in out.splitlines() if line.startswith("  ") and ".toml " in line and " on " in line]
    assert len(cars) >= 8 and len(scripts) >= 40
    assert len({line.index(" unit ") for line in cars}) == 1
    assert len({line.index(" on ") for line in scripts}) == 1
    assert len({line.index(" s  ") for line in scripts}) == 1  # the durations' column after the cars' names


def test_no_output_is_written_into_the_devices_folder(capsys, tmp_path):
    """Root may create files in /dev (os.access says so): `sweep --out /dev` wrote /dev/sweep.csv and `replay --csv
    /dev/x.csv` /dev/x.csv (a review). Both refused before the run; a folder under /dev that is a folder (/dev/shm)
    still takes outputs, and /dev/null is refused as the device it is."""
    from pathlib import Path

    from workbench.output.files import OutputPathError, check_output_dir, check_output_file

    for check, target in ((check_output_file, "/dev/carbench-never.csv"), (check_output_dir, "/dev"),
                          (check_output_dir, "/dev/")):
        with pytest.raises(OutputPathError) as err:
            check(target, "--out")
        assert "the system's devices" in str(err.value), str(err.value)
    link = tmp_path / "to-dev"
    link.symlink_to("/dev")
    with pytest.raises(OutputPathError):
        check_output_file(link / "x.csv", "--csv")  # through a link too
    with pytest.raises(OutputPathError) as err:
        check_output_file("/dev/null", "--csv")
    assert "regular file" in str(err.value)
    with pytest.raises(OutputPathError) as err:
        check_output_dir("/dev/carbench-new-folder", "--out")  # a folder it would make there
    assert "would be made in /dev" in str(err.value)
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        assert check_output_file("/dev/shm/carbench-x.csv", "--csv") == Path("/dev/shm/carbench-x.csv")
