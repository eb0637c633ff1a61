"""SPEC 1 and STYLE 1: the layering is held by import-linter contracts (pyproject.toml), and the
sources are clean under ruff's rule set. Both tools run here as the suite's own checks."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ALIASES = {"workbench.testing", "workbench.screenshots"}  # documented GUI import paths, kept as aliases


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` (import-linter's command) on the sources under ``root``."""
    beside = Path(sys.executable).parent / "lint-imports"
    lint = str(beside) if beside.exists() else shutil.which("lint-imports")
    assert lint, "import-linter is one of the test extras"
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([lint, "--no-cache"], cwd=root, capture_output=True, text=True, timeout=300, env=env)


def contracts() -> list[dict]:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_the_contracts_are_kept():
    done = lint_imports(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 kept, 0 broken" in done.stdout


@pytest.fixture()
def copy_of_repo(tmp_path) -> Path:
    for name in ("physics", "workbench", "presets"):
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    return tmp_path


@pytest.mark.parametrize(("module", "line"), [
    ("workbench/runs/replay.py", "from PySide6 import QtCore"),
    ("workbench/output/report.py", "import pyqtgraph"),
    ("workbench/scripts/program.py", "from workbench.gui import car_view"),
    ("physics/engine.py", "import workbench.cli"),
])
def test_a_forbidden_import_breaks_a_contract(copy_of_repo, module, line):
    path = copy_of_repo / module
    path.write_text(path.read_text() + f"\n{line}  # added by the test\n")
    done = lint_imports(copy_of_repo)
    assert done.returncode == 1, done.stdout
    assert "BROKEN" in done.stdout and module.removesuffix(".py").replace("/", ".") in done.stdout


def test_every_headless_module_is_under_the_headless_contract():
    (headless,) = [c for c in contracts() if c["name"].startswith("headless")]
    sources = set(headless["source_modules"])
    for path in sorted((REPO / "workbench").rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        if parts[1] == "gui" or parts[-1] in ("__init__", "__main__") and len(parts) == 2:
            continue
        name = ".".join(parts).removesuffix(".__init__")
        if name in ALIASES:
            continue
        assert any(name == s or name.startswith(s + ".") for s in sources), f"{name} is outside the contract"


def test_the_aliases_only_re_export():
    # the aliases sit outside the headless contract, so they must stay thin
    for name in ALIASES:
        tree = ast.parse((REPO / (name.replace(".", "/") + ".py")).read_text())
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                assert node.module.startswith("workbench.gui."), (name, node.module)
            elif isinstance(node, ast.If):
                assert ast.unparse(node.test) == "__name__ == '__main__'", name
            else:
                assert isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant), (name, ast.unparse(node))


def test_ruff_is_clean():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
