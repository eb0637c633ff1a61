"""``--threads N``: the batch thread count, checked against NUMBA_NUM_THREADS."""

from __future__ import annotations

from physics import max_threads
from physics.presets import scripts_dir


def test_replay_with_one_thread_gives_the_same_verdicts(run_cli):
    scripts = [scripts_dir() / "clutch_coast.toml", scripts_dir() / "launch_shift.toml"]
    one = run_cli("replay", *scripts, "--threads", "1", "--json")
    every = run_cli("replay", *scripts, "--json")
    assert one.returncode == every.returncode == 0, one.stderr
    assert one.stdout == every.stdout


def test_threads_out_of_range_is_bad_input(run_cli):
    for value in ("0", str(max_threads() + 1)):
        done = run_cli("replay", scripts_dir() / "clutch_coast.toml", "--threads", value)
        assert done.returncode == 2
        assert "--threads" in done.stderr and "NUMBA_NUM_THREADS" in done.stderr


def test_a_whole_number_option_takes_ascii_digits_only(run_cli):
    """Python's int() reads other scripts' digits, underscores and spaces; an option's number is plain digits, as
    NUMBA_NUM_THREADS is: one line and exit 2 otherwise (every whole-number option shares the reading)."""
    for option, value in (("--threads", "\u0662"), ("--threads", "1_0"), ("--threads", " 1"), ("--cars", "\uff11")):
        command = ("hunt", "--preset", "sedan", "--seconds", "1") if option == "--cars" else \
            ("replay", scripts_dir() / "clutch_coast.toml")
        done = run_cli(*command, option, value)
        assert done.returncode == 2, (option, value, done.stderr)
        assert f"argument {option}: invalid whole number value" in done.stderr
    assert run_cli("replay", scripts_dir() / "clutch_coast.toml", "--threads", "+1").returncode == 0
