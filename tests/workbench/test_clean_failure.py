"""Limits and clean failure beyond the hostile table: what is accepted (BOM, shipped names), what streams,
what the progress bar does, the display probe, --version and --help, a closed pipe, early windows."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from cli_calls import run

from physics import load_preset
from physics.presets import cars_dir, scripts_dir
from workbench.display import probe_display
from workbench.output.csv_stream import CsvStreams
from workbench.output.progress import ProgressBar
from workbench.runs.replay import BLOCK, replay, replay_bytes
from workbench.scripts.format import load_script, parse_script
from workbench.scripts.limits import (
    DEFAULT_MAX_MEMORY,
    LimitError,
    check_memory,
    format_bytes,
    parse_bytes,
    telemetry_bytes,
)
from workbench.scripts.program import compile_script

REPO = Path(__file__).resolve().parents[2]


def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return {**env, "QT_QPA_PLATFORM": "offscreen", "PYTHONDONTWRITEBYTECODE": "1"}

CLUTCH = scripts_dir() / "clutch_coast.toml"


# -- accepted now ----------------------------------------------------------------------------------


def test_a_byte_order_mark_is_accepted(tmp_path, capsys):
    script = tmp_path / "bom.toml"
    script.write_bytes(b"\xef\xbb\xbf" + CLUTCH.read_bytes())
    preset = tmp_path / "bom-car.toml"
    preset.write_bytes(b"\xef\xbb\xbf" + (cars_dir() / "manual003.toml").read_bytes())
    assert load_script(script).name == "clutch-coast"
    assert load_preset(preset).params == load_preset("manual003").params
    code, out, err = run(["replay", str(script), "--preset", str(preset)], capsys)
    assert (code, err) == (0, "") and "0 failed" in out


def test_shipped_scripts_are_accepted_by_name(capsys):
    code, out, err = run(["replay", "braking_stop", "clutch_coast"], capsys)
    assert (code, err) == (0, "")
    assert "braking-stop" in out and "clutch-coast" in out


def test_a_local_file_wins_over_a_shipped_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "braking_stop").write_text(CLUTCH.read_text())  # a file of that name, here
    code, out, _ = run(["replay", "braking_stop"], capsys)
    assert code == 0 and "clutch-coast" in out


# -- windows never start before `from` -------------------------------------------------------------


@pytest.mark.parametrize("dt", [0.007, 1 / 120, 0.01, 0.003, 1 / 60, 0.0123])
def test_expectation_windows_never_start_before_from(dt):
    text = ('[script]\nname = "w"\npreset = "sedan"\nduration = 8.0\n'
            '[[expect]]\nchannel = "speed"\nfrom = 2.5\nto = 8.0\nmin = 0.0\n'
            '[[expect]]\nchannel = "speed"\nfrom = 1.0\nto = 1.5\nmin = 0.0\n')
    program = compile_script(parse_script(text, "w.toml"), dt=dt)
    for (first, last), (start, end) in zip(program.windows, [(2.5, 8.0), (1.0, 1.5)], strict=True):
        assert first * dt >= start - 1e-9 and (first - 1) * dt < start  # the first frame at or after `from`
        assert last * dt < end and (last + 1) * dt >= end - 1e-9  # the last frame before `to`


def test_the_window_of_the_issue_starts_at_frame_358_at_dt_0_007():
    text = ('[script]\nname = "w"\npreset = "sedan"\nduration = 8.0\n'
            '[[expect]]\nchannel = "speed"\nfrom = 2.5\nto = 8.0\nmin = 0.0\n')
    assert compile_script(parse_script(text, "w.toml"), dt=0.007).windows == ((358, 1142),)
    assert compile_script(parse_script(text, "w.toml"), dt=1 / 120).windows == ((300, 959),)  # exact stays exact


# -- the memory budget -----------------------------------------------------------------------------


def test_the_budget_counts_telemetry_and_inputs():
    assert telemetry_bytes(1000, 37, 2) == 1000 * 37 * 2 * 8
    check_memory(1000, 37, 1, budget=10**6)
    with pytest.raises(LimitError, match=r"1,000,000 frames of 37 channels would take 383 MiB, over the memory budget of 102 MiB"):
        check_memory(1_000_000, 37, 1, budget=DEFAULT_MAX_MEMORY // 20)


def test_a_batch_counts_each_batch_once():
    programs = [compile_script(load_script(scripts_dir() / name)) for name in ("clutch_coast.toml",
                                                                                "braking_stop.toml",
                                                                                "parking_full_lock.toml")]
    frames, need = replay_bytes(programs)
    sedan = max(p.frames for p in programs[:2])
    assert frames == 2 * sedan + programs[2].frames
    assert need >= telemetry_bytes(sedan, 37, 2) + telemetry_bytes(programs[2].frames, 36, 1)


def test_max_memory_raises_the_budget(tmp_path, capsys):
    script = tmp_path / "long.toml"
    script.write_text('[script]\nname = "l"\npreset = "sedan"\nduration = 30.0\n')
    code, _, err = run(["replay", str(script), "--max-memory", "1M"], capsys)
    assert code == 2 and "3,601 frames" in err and "memory budget of 1 MiB" in err
    code, out, err = run(["replay", str(script), "--max-memory", "64M"], capsys)
    assert (code, err) == (0, "") and "3601 frames" in out


@pytest.mark.parametrize("size", ["1e290T", "99999999999999999999999G", "1025T"])
def test_max_memory_has_a_limit(size, capsys):
    code, out, err = run(["replay", "braking_stop", "--max-memory", size], capsys)
    assert code == 2 and out == ""
    assert err.strip().splitlines()[-1] == f"carbench: argument --max-memory: {size!r}: at most 1 PiB", err


@pytest.mark.parametrize("text, value", [("2G", 2 * 1024**3), ("512MiB", 512 * 1024**2), ("1.5GB", 1_500_000_000),
                                         ("1000", 1000), (" 8 g ", 8 * 1024**3)])
def test_sizes_as_typed(text, value):
    assert parse_bytes(text) == value


@pytest.mark.parametrize("text, said", [("1e400", "'1e400' is beyond a floating-point number's range"),
                                        ("1e400G", "'1e400' is beyond a floating-point number's range"),
                                        ("1e-400G", "'1e-400' is beyond a floating-point number's range"),
                                        ("1e306T", "too large"),
                                        ("1e308k", "too large"), ("0", "must be positive"),
                                        ("-2G", "must be positive")])
def test_sizes_refused_say_why(text, said):
    with pytest.raises(ValueError, match=said):
        parse_bytes(text)


def test_sizes_in_words():
    assert format_bytes(2 * 1024**3) == "2 GiB" and format_bytes(14.6 * 1024**4) == "14.6 TiB"
    assert format_bytes(12) == "12 B"


# -- streaming CSV ---------------------------------------------------------------------------------


def test_the_csv_streams_while_the_replay_runs(tmp_path):
    text = '[script]\nname = "s"\npreset = "sedan"\nduration = 100.0\n[[hold]]\nkeys = ["throttle"]\nfrom = 0.0\nto = 50.0\n'
    program = compile_script(parse_script(text, "s.toml"))
    path = tmp_path / "s.csv"
    seen = []
    with CsvStreams([path], [program.frames]) as streams:

        def listener(members, log, done):
            streams(members, log, done)
            seen.append(streams.written[0])
            assert not path.exists()  # atomic: it appears only when complete

        (result,) = replay([program], listener)
    assert seen[0] == BLOCK and seen[-1] == program.frames and len(seen) > 2  # written block by block
    assert path.read_text() == result.csv_text()


def test_a_failed_replay_leaves_no_csv(tmp_path):
    program = compile_script(load_script(CLUTCH))
    path = tmp_path / "s.csv"

    def boom(members, log, done):
        streams(members, log, done)
        raise RuntimeError("the run broke")

    with pytest.raises(RuntimeError), CsvStreams([path], [program.frames]) as streams:
        replay([program], boom)
    assert list(tmp_path.iterdir()) == []


def test_every_output_is_checked_before_the_run(tmp_path, capsys, monkeypatch):
    ran = []
    import workbench.runs.replay as replay_module

    monkeypatch.setattr(replay_module, "run_batch", lambda *a, **k: ran.append(1) or [])
    code, out, err = run(["replay", str(CLUTCH), "--json", "--csv", str(tmp_path / "no" / "x.csv")], capsys)
    assert code == 2 and out == "" and ran == []


# -- the progress bar ------------------------------------------------------------------------------


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_bar_shows_only_on_a_terminal_and_only_after_two_seconds():
    now = [0.0]
    bar = ProgressBar(10_000, Tty(), clock=lambda: now[0])
    bar((0,), None, 4096)
    assert bar.stream.getvalue() == ""  # a short replay never draws
    now[0] = 2.5
    bar((0,), None, 8192)
    assert "[" in bar.stream.getvalue() and "82%" in bar.stream.getvalue() and "8,192 / 10,000" in bar.stream.getvalue()
    bar.close()
    assert bar.stream.getvalue().endswith("\r\033[K")
    piped = ProgressBar(10_000, io.StringIO(), clock=lambda: 100.0)
    piped((0,), None, 5000)
    assert piped.stream.getvalue() == ""  # not a terminal: nothing, ever


def test_the_progress_bar_counts_every_batch():
    bar = ProgressBar(300, Tty(), clock=lambda: 10.0, show_after=0.0)
    bar((0, 1), None, 100)  # a batch of two cars: 200 car-frames
    bar((2,), None, 100)
    assert "300 / 300" in bar.stream.getvalue()


# -- the command line ------------------------------------------------------------------------------


def test_version(capsys):
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.startswith("carbench ")


def test_replay_help_gives_the_limits_and_the_exit_codes(capsys):
    code, out, _ = run(["replay", "--help"], capsys)
    assert code == 0
    for words in ("[1e-05, 0.05] s", "86400 s", "--max-memory", "exit codes: 0", "1 one failed", "2 bad input",
                  "shipped script"):
        assert words in out, words


def test_a_closed_pipe_ends_quietly():
    done = subprocess.run(f"{sys.executable} -m workbench demo | head -3", shell=True, capture_output=True,
                          text=True, cwd=REPO, env=cli_env(), timeout=300)
    assert len(done.stdout.splitlines()) == 3
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


# -- the display -----------------------------------------------------------------------------------


def test_a_stale_x_display_is_found_before_qt_starts():
    probe = probe_display({"DISPLAY": ":97"}, "linux")
    assert probe.platform is None and probe.reason.startswith("DISPLAY=:97: no X server answers")


def test_a_stale_wayland_display_is_found(tmp_path):
    probe = probe_display({"WAYLAND_DISPLAY": "wayland-7", "XDG_RUNTIME_DIR": str(tmp_path)}, "linux")
    assert probe.platform is None and "WAYLAND_DISPLAY=wayland-7: no compositor answers" in probe.reason


def test_a_live_wayland_socket_counts(tmp_path, monkeypatch):
    from workbench import display

    monkeypatch.setattr(display, "WAYLAND_LIBRARIES", {})  # Qt's plugin loads (tests/workbench/test_wayland_probe.py)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(tmp_path / "wayland-1"))
    server.listen(1)
    try:
        probe = probe_display({"WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": str(tmp_path)}, "linux")
        assert probe.platform == "wayland"
    finally:
        server.close()


def test_a_stale_display_falls_back_to_the_demo_with_one_line():
    env = {**cli_env(), "DISPLAY": ":97"}
    env.pop("QT_QPA_PLATFORM")
    done = subprocess.run([sys.executable, "-m", "workbench"], capture_output=True, text=True, cwd=REPO, env=env,
                          timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("carbench: DISPLAY=:97: no X server answers")
    assert done.stderr.strip().count("\n") == 0 and "expectations:" in done.stdout


def test_the_pytest_plugin_runs_the_readme_example_offscreen_without_a_display(tmp_path):
    (tmp_path / "my_script.toml").write_text((scripts_dir() / "braking_stop.toml").read_text())
    (tmp_path / "test_readme.py").write_text(
        "from workbench.gui.testing import drive\n\n\n"
        "def test_my_script_in_the_window(carbench_window):\n"
        "    driven = drive(carbench_window, 'my_script.toml')\n"
        "    assert driven.passed, driven.failures()\n")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout


def test_a_budget_past_what_the_machine_has_fails_cleanly(monkeypatch, capsys, tmp_path):
    import workbench.runs.replay as replay_module

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(replay_module, "run_batch", no_memory)
    target = tmp_path / "x.csv"
    code, out, err = run(["replay", str(CLUTCH), "--max-memory", "1T", "--csv", str(target)], capsys)
    assert code == 2 and out == "" and err.startswith("carbench: not enough memory for 961 frames")
    assert err.count("\n") == 1 and list(tmp_path.iterdir()) == []
