"""A Ctrl-C while the command loads: one line and exit 130, as later."""
from __future__ import annotations

import sys

import pytest

from workbench import cli, launch


class _Interrupting:
    """A module finder that raises ``error`` for workbench.cli, as a Ctrl-C while it loads does."""

    def __init__(self, error: BaseException):
        self.error = error

    def find_spec(self, name, path=None, target=None):
        if name == "workbench.cli":
            raise self.error
        return None


def _interrupt_import() -> RuntimeError:
    try:
        raise RuntimeError("Error calling __set_name__ on 'Field' instance 'notes' in 'Chart'") from KeyboardInterrupt()
    except RuntimeError as exc:
        return exc


@pytest.mark.parametrize("error", [KeyboardInterrupt(), _interrupt_import()], ids=["plain", "in_set_name"])
def test_a_ctrl_c_while_the_command_loads_says_interrupted(monkeypatch, capsys, error):
    monkeypatch.delitem(sys.modules, "workbench.cli")
    monkeypatch.setattr(sys, "meta_path", [_Interrupting(error)] + sys.meta_path)
    assert launch.entry(["--version"]) == 130
    assert capsys.readouterr().err == "carbench: interrupted\n"


def test_another_error_while_the_command_loads_is_not_taken_for_an_interrupt(monkeypatch):
    monkeypatch.delitem(sys.modules, "workbench.cli")
    monkeypatch.setattr(sys, "meta_path", [_Interrupting(RuntimeError("not an interrupt"))] + sys.meta_path)
    with pytest.raises(RuntimeError, match="not an interrupt"):
        launch.entry(["--version"])


def test_an_interrupt_wrapped_while_a_command_loads_its_modules_exits_130(monkeypatch, capsys):
    """Python 3.11 wraps a KeyboardInterrupt raised in a class body's __set_name__ (a dataclass field, while
    workbench.output.charts loaded inside a replay) in a RuntimeError: a traceback and exit 1."""
    def loading(argv):
        raise _interrupt_import()

    monkeypatch.setattr(cli, "_main", loading)
    assert cli.main(["replay", "x.toml"]) == 130
    assert capsys.readouterr().err.strip().endswith("carbench: interrupted")


def test_python_m_workbench_starts_in_the_launcher_as_the_command_does():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]  # (the command's entry point: tests/workbench/test_repo.py)
    assert "from workbench.launch import entry" in (root / "workbench" / "__main__.py").read_text()
