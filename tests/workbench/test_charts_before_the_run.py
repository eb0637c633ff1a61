"""What a command's charts need is settled before it runs: a name too long for a file, and a Qt that is installed but
cannot load, each lost a whole run's outputs (or ended in a traceback) after it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO, cli_env

LONG = "n" * 220  # with "-expect-1.png" and a staged name's suffix, past a file name's 255 bytes

LONG_NAME = f"""[script]
name = "{LONG}"
preset = "sedan"
duration = 2.0

[[expect]]
at = 0.5
channel = "speed"
min = 0
"""

LONG_EXPECTATION = f"""[script]
name = "x"
preset = "manual003"
duration = 2.0

[[hold]]
keys = ["throttle"]
from = 0.0
to = 2.0

[[expect]]
name = "{LONG}"
at = 1.0
channel = "speed"
min = 0.1
"""


def _carbench(args, cwd, pythonpath):
    env = cli_env()
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in pythonpath)  # this checkout's carbench, from any folder
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120, stdin=subprocess.DEVNULL)


def test_a_long_script_or_expectation_name_gives_its_charts_a_name_a_file_may_have(tmp_path):
    """A script named with 220 characters: its report's chart name passed 255 bytes and the replay, already run, ended
    'File name too long' with no report and no CSV; a sweep's heatmap of such an expectation likewise, its CSV lost.
    The names are cut to 100 characters."""
    (tmp_path / "long.toml").write_text(LONG_NAME)
    done = _carbench(["replay", "long.toml", "--report", "rep", "--csv", "out.csv"], tmp_path, [REPO])
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.csv").exists()
    charts = sorted(p.name for p in (tmp_path / "rep").glob("*.png"))
    assert charts == ["n" * 100 + "-expect-1.png"]
    (tmp_path / "exp.toml").write_text(LONG_EXPECTATION)
    done = _carbench(["sweep", "exp.toml", "--param", "body.mass=1000:1400:2", "--param",
                      "engine.peak_torque=200:400:2", "--out", "sw", "--plot"], tmp_path, [REPO])
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "sw" / "sweep.csv").exists()
    assert (tmp_path / "sw" / ("heatmap-" + "n" * 100 + ".png")).exists()


def _shim(folder: Path) -> Path:
    """A PySide6 that is found but cannot load, as one whose Qt libraries need a system libEGL that is missing."""
    package = folder / "PySide6"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('__version__ = "6.9.0"\n')
    for module in ("QtCore", "QtGui", "QtWidgets"):
        (package / f"{module}.py").write_text(
            'raise ImportError("libEGL.so.1: cannot open shared object file: No such file or directory")\n')
    return folder


def test_a_qt_that_cannot_load_is_one_line_before_the_run(tmp_path):
    """Each of replay --report, sweep --plot and manoeuvre --report ran, then ended in a 40-line traceback (exit 1,
    the code of a failed expectation) where PySide6 was found but could not load its libraries."""
    shim = _shim(tmp_path / "shim")
    commands = (["replay", "clutch_coast", "--report", "rep"],
                ["sweep", "clutch_coast", "--param", "body.mass=1000,1100", "--out", "sw", "--plot"],
                ["manoeuvre", "iso21994", "--report", "mr"])
    for args in commands:
        done = _carbench(args, tmp_path, [shim, REPO])
        option = args[-1] if args[-1] == "--plot" else "--report"
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr == (f"carbench: {option} needs PySide6 and pyqtgraph, which are installed but do not load "
                               "here: libEGL.so.1: cannot open shared object file: No such file or directory\n"), args
        assert done.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shim"]  # nothing written
