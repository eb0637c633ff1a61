"""Shared fixtures of the headless workbench tests (no Qt module is imported here or by the tests).

The shipped scripts are replayed once per session, both one by one and as one batch call, and
the results are shared by test_replay, test_csv and test_bugs to keep the suite fast.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from physics.presets import scripts_dir

REPO = Path(__file__).resolve().parents[2]


def shipped_script_paths() -> list[Path]:
    return sorted(scripts_dir().glob("*.toml"))


@pytest.fixture(scope="session")
def shipped_paths() -> list[Path]:
    paths = shipped_script_paths()
    assert len(paths) >= 10, paths
    return paths


@pytest.fixture(scope="session")
def shipped_programs(shipped_paths):
    from workbench.scripts.format import load_script
    from workbench.scripts.program import compile_script

    return [compile_script(load_script(p)) for p in shipped_paths]


@pytest.fixture(scope="session")
def shipped_alone(shipped_programs):
    """Each shipped script replayed on its own (a batch of one)."""
    from workbench.runs.replay import replay

    return [replay([p])[0] for p in shipped_programs]


@pytest.fixture(scope="session")
def shipped_batch(shipped_programs):
    """Every shipped script replayed in one replay() call (sedan and parking scripts mixed)."""
    from workbench.runs.replay import replay

    return replay(shipped_programs)


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@pytest.fixture
def run_cli():
    """Run ``python -m workbench ARGS...`` (the ``carbench`` command) as a subprocess."""

    def run(*args: str, cwd: str | os.PathLike | None = None, timeout: float = 120.0):
        return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                              cwd=cwd or REPO, env=cli_env(), timeout=timeout, stdin=subprocess.DEVNULL)

    return run
