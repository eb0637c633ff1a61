"""SPEC 1: ``physics`` never imports Qt, and ``carbench replay`` never imports Qt (it must run where no
Qt is installed). Checked in fresh interpreters (this pytest process has pytest-qt loaded) and
statically over the sources."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GUI_PACKAGES = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6", "matplotlib")
HEADLESS = ("__init__", "__main__", "cli", "script", "program", "replay", "recorder", "report", "telemetry_log",
            "toml_writer", "preset_io", "files", "bench", "live")

IMPORT_AND_REPLAY = """
import contextlib, io, sys
GUI = {gui!r}
{prelude}
import physics, workbench, workbench.cli, workbench.replay, workbench.program, workbench.script
import workbench.recorder, workbench.report, workbench.telemetry_log, workbench.toml_writer
import workbench.preset_io, workbench.files, workbench.live
out = io.StringIO()
with contextlib.redirect_stdout(out):
    codes = [workbench.cli.main(["replay", "presets/scripts/clutch_coast.toml", "presets/scripts/parking_handbrake.toml"]),
             workbench.cli.main(["replay", "presets/scripts/full_lock_left.toml", "--json", "--dt", "0.01"]),
             workbench.cli.main(["presets"])]
assert codes == [0, 0, 0], (codes, out.getvalue())
assert "PASS" in out.getvalue()
loaded = sorted(m for m in sys.modules if m.split(".")[0] in GUI)
print("GUI-MODULES:", ",".join(loaded))
"""

BLOCKER = """
class _NoGui:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in GUI:
            raise ImportError(f"{name} is not installed here")
        return None
sys.meta_path.insert(0, _NoGui())
"""


def run_python(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env,
                          timeout=120, stdin=subprocess.DEVNULL)


def test_replay_path_imports_no_gui_module():
    done = run_python(IMPORT_AND_REPLAY.format(gui=GUI_PACKAGES, prelude=""))
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("GUI-MODULES:")]
    assert line == "GUI-MODULES: ", f"imported by physics or the replay path: {line}"


def test_replay_runs_where_no_gui_package_is_installed():
    done = run_python(IMPORT_AND_REPLAY.format(gui=GUI_PACKAGES, prelude=BLOCKER))
    assert done.returncode == 0, done.stderr
    assert "GUI-MODULES: \n" in done.stdout


def test_the_blocker_does_block():
    # the check above would prove nothing if blocked imports could still succeed
    code = "import sys\nGUI = ('PySide6', 'pyqtgraph')\n" + BLOCKER + textwrap.dedent("""
        try:
            import pyqtgraph
        except ImportError as exc:
            print("blocked:", exc)
        """)
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("blocked: pyqtgraph is not installed here")


# -- static checks -----------------------------------------------------------------------------------


def imported(tree: ast.AST, package: str, module_level_only: bool) -> list[str]:
    """Absolute names of the modules a source imports (relative imports resolved inside ``package``)."""
    names = []

    def visit(node, top):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and module_level_only:
                continue
            if isinstance(child, ast.Import):
                names.extend(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package if child.level == 1 else package.rsplit(".", child.level - 1)[0]
                    if child.module:
                        names.append(f"{base}.{child.module}")
                    else:
                        names.extend(f"{base}.{alias.name}" for alias in child.names)
                else:
                    names.append(child.module)
            visit(child, top)

    visit(tree, True)
    return names


def allowed_outside(name: str) -> bool:
    top = name.split(".")[0]
    return top in sys.stdlib_module_names or top in ("numpy", "numba", "__future__")


@pytest.mark.parametrize("path", sorted((REPO / "physics").rglob("*.py")), ids=lambda p: p.name)
def test_physics_imports_only_numpy_numba_and_the_stdlib(path: Path):
    text = path.read_text(encoding="utf-8")
    for word in ("PySide6", "pyqtgraph", "shiboken6", "PyQt"):
        assert word not in text, f"{path.name} mentions {word}"
    for name in imported(ast.parse(text), "physics", module_level_only=False):
        assert name.split(".")[0] == "physics" or allowed_outside(name), f"{path.name} imports {name}"


def test_physics_has_sources():
    assert len(list((REPO / "physics").rglob("*.py"))) >= 10


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_workbench_modules_import_only_the_headless_layer(module):
    path = REPO / "workbench" / f"{module}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for name in imported(tree, "workbench", module_level_only=True):
        top, _, rest = name.partition(".")
        if top == "workbench":
            assert rest.split(".")[0] in HEADLESS, f"workbench/{module}.py imports {name} at module level"
        else:
            assert top == "physics" or allowed_outside(name), f"workbench/{module}.py imports {name}"
