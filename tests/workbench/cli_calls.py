"""Calling the command line in the test's own process, and what a folder holds: shared by the CLI tests."""

from __future__ import annotations

import os
from pathlib import Path

from workbench import cli


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    """``carbench ARGV`` in this process: (exit code, stdout, stderr); argparse's own exits included."""
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse's own errors and --help
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``root`` with its size and modification time (links not followed)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            path = Path(dirpath) / name
            info = path.lstat()
            out[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return out
