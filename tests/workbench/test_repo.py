"""The repository's promises to a new user: README's two commands, and CI running the second."""

import re
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    after_title = text.split("\n", 1)[1].lstrip()
    block = re.match(r"```sh\n(.*?)```", after_title, re.S)
    assert block, "README.md opens (after its title) with a sh code block of the commands"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_opens_with_exactly_two_commands():
    commands = readme_commands()
    assert len(commands) == 2
    assert "carbench" in commands[0] and "pip install" in commands[0]
    assert "pytest" in commands[1] and ".[test]" in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert readme_commands()[1] in ci.splitlines()


def test_the_pytest_plugin_and_the_command_are_registered():
    dist = metadata.distribution("carbench")
    points = {(e.group, e.name): e.value for e in dist.entry_points}
    assert points[("pytest11", "carbench")] == "workbench.gui.testing"
    assert points[("console_scripts", "carbench")] == "workbench.launch:entry"  # (it loads workbench.cli)


def test_the_pin_on_pyside6_avoids_the_aborting_release():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"PySide6-Essentials>=6.9,<6.12"' in text
