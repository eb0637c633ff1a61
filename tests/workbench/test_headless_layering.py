"""SPEC 1: ``carbench replay`` runs where no Qt is installed. The import-linter contracts
(tests/test_layering.py) hold the static layering; these run the replay path in fresh interpreters
(this pytest process has pytest-qt loaded), so imports made at run time are caught too."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GUI_PACKAGES = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6", "matplotlib")

IMPORT_AND_REPLAY = """
import contextlib, io, sys
GUI = {gui!r}
{prelude}
import physics, workbench, workbench.cli, workbench.runs.replay, workbench.scripts.program, workbench.scripts.format
import workbench.scripts.recorder, workbench.output.report, workbench.output.telemetry_log, workbench.scripts.toml_writer
import workbench.output.preset_io, workbench.output.files, workbench.runs.live, workbench.runs.compare
import workbench.runs.stamp, workbench.runs.compare_command
out = io.StringIO()
with contextlib.redirect_stdout(out):
    codes = [workbench.cli.main(["replay", "presets/scripts/clutch_coast.toml", "presets/scripts/parking_handbrake.toml"]),
             workbench.cli.main(["replay", "presets/scripts/full_lock_left.toml", "--json", "--dt", "0.01"]),
             workbench.cli.main(["presets"]),
             workbench.cli.main(["compare", "presets/scripts/clutch_coast.toml", "--vs-preset", "manual003"])]
assert codes == [0, 0, 0, 0], (codes, out.getvalue())
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
