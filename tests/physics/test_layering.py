"""SPEC 1: the physics layer never imports Qt, pyqtgraph or matplotlib."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

FORBIDDEN = ("PySide6", "shiboken6", "pyqtgraph", "matplotlib", "PyQt")
REPO = Path(__file__).resolve().parents[2]


def imported_after(code: str) -> list[str]:
    """Module names in sys.modules after running ``code`` in a fresh interpreter."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_physics_pulls_in_no_gui_library():
    modules = imported_after("import physics")
    assert "physics" in modules and "numpy" in modules
    offending = [m for m in modules if m.startswith(FORBIDDEN)]
    assert offending == []


def test_stepping_a_car_pulls_in_no_gui_library():
    code = ("from physics import Simulation, Inputs, load_preset\n"
            "sim = Simulation([load_preset(n).params for n in ('sedan', 'sedan')])\n"
            "sim.step(Inputs.from_keys(2, {'throttle'}))\n"
            "sim.channel('rpm')")
    offending = [m for m in imported_after(code) if m.startswith(FORBIDDEN)]
    assert offending == []


@pytest.mark.skipif(importlib.util.find_spec("PySide6") is None, reason="PySide6 is not installed")
def test_the_check_sees_a_gui_import():
    # The same probe finds a GUI library when one is imported (PySide6 is installed here).
    modules = imported_after("import physics, PySide6")
    assert any(m.startswith("PySide6") for m in modules)
