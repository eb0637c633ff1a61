"""`carbench sweep`: exit 0 when it ran, 2 with one line for bad input and nothing on stdout, files checked first."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest
from conftest import REPO, cli_env

from workbench import cli
from workbench.runs import cluster
from workbench.runs.sweep_command import ProgressBar

SCRIPT = """
[script]
name = "tiny"
preset = "manual003"
duration = 1.0
dt = 0.05

[[hold]]
keys = ["throttle"]
from = 0.0
to = 1.0

[[expect]]
name = "moving"
channel = "speed_kmh"
at = 1.0
min = 1.0

[[measure]]
name = "end speed"
channel = "speed_kmh"
at = 1.0
"""


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(SCRIPT)
    return path


def sweep(capsys, *args):
    code = cli.main(["sweep", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_sweep_writes_its_csv_and_prints_the_summary(capsys, script, tmp_path):
    out_dir = tmp_path / "out"
    code, out, err = sweep(capsys, script, "--param", "engine.peak_torque=50:350:3", "--out", out_dir)
    assert code == 0, err
    assert "2 of 3 cars pass every expectation" in out or "3 of 3 cars pass every expectation" in out
    rows = list(csv.DictReader((out_dir / "sweep.csv").open()))
    assert [float(r["engine.peak_torque [N m]"]) for r in rows] == [50.0, 200.0, 350.0]
    assert {"moving [km/h]", "moving margin [km/h]", "moving pass", "end speed [km/h]", "all pass"} <= set(rows[0])
    assert all(float(r["moving [km/h]"]) == float(r["end speed [km/h]"]) for r in rows)


def test_json_summary(capsys, script, tmp_path):
    code, out, _ = sweep(capsys, script, "--param", "engine.peak_torque=20,350", "--out", tmp_path, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["cars"] == 2 and doc["expectations"][0]["passed"] == 1
    assert doc["expectations"][0]["flips"] == [{"before": 20.0, "after": 350.0, "passes_after": True}]
    assert doc["files"] == [str(tmp_path / "sweep.csv")]


@pytest.mark.parametrize(("args", "reason"), [
    (["--param", "steering.lock=10:95:3"], "--param steering.lock=10:95:3: steering.lock = 95 deg is out of range"),
    (["--param", "body.lr=2.7"], "car 1 (body.lr = 2.7 m): body.lr = 2.7 m: must be less than the wheelbase"),
    (["--param", "body.mass=1:2", "--samples", "2000000"], "--samples 2000000: must be between 1 and 1,000,000"),
    (["--param", "body.mass=1:2:3", "--workers", "0"], "--workers 0: must be between 1 and"),
    (["--param", "body.mass=900:1000:3", "--dt", "1"], "--dt: dt = 1.0: the timestep must be a number in [1e-05, 0.05] s"),
    # the range said was (0, 0.05], and 1e-06 was refused within it
    (["--param", "body.mass=900:1000:3", "--dt", "1e-6"], "--dt: dt = 1e-06: the timestep must be a number in [1e-05, 0.05]"),
    (["--param", "body.mass=900:1000:3", "--chunk", "0"], "--chunk 0"),
    (["--param", "body.mass=900:1000:3", "--out", "/nonexistent/deeper/out"], "--out /nonexistent/deeper/out"),
])
def test_bad_input_exits_2_with_one_line_and_nothing_on_stdout(capsys, script, args, reason):
    code, out, err = sweep(capsys, script, *args)
    assert code == 2 and out == ""
    assert err.startswith("carbench: ") and err.count("\n") == 1, err
    assert reason in err, err


def test_an_output_file_in_the_way_is_refused_before_running(capsys, script, tmp_path):
    (tmp_path / "sweep.csv").mkdir()
    code, out, err = sweep(capsys, script, "--param", "body.mass=900,1000", "--out", tmp_path)
    assert code == 2 and out == "" and "is a directory" in err


def test_an_unknown_script_is_bad_input(capsys, tmp_path):
    code, out, err = sweep(capsys, tmp_path / "missing.toml", "--param", "body.mass=900,1000")
    assert code == 2 and out == "" and "no such script file" in err


def test_workers_without_distributed_name_the_extra(capsys, script, monkeypatch, tmp_path):
    def missing(name):
        raise ImportError(name)

    monkeypatch.setattr(cluster.importlib, "import_module", missing)
    for option in (["--workers", "2"], ["--scheduler", "tcp://127.0.0.1:8786"]):
        code, out, err = sweep(capsys, script, "--param", "body.mass=900,1000", "--out", tmp_path, *option)
        assert code == 2 and out == "" and 'carbench[cluster]' in err


def test_the_progress_bar_shows_cars_rate_and_time_left_after_a_second():
    stream = io.StringIO()
    bar = ProgressBar(stream)
    bar(100, 1000, 50_000, 500_000, 0.5)
    assert stream.getvalue() == ""
    bar(250, 1000, 125_000, 500_000, 2.0)
    bar.close()
    text = stream.getvalue()
    assert "250/1,000 cars" in text and "62,500 car-steps/s" in text and "6 s left" in text and text.endswith("\n")


SWEEP_WITHOUT_QT = """
import contextlib, io, sys
GUI = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6", "matplotlib")
class _NoGui:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in GUI:
            raise ImportError(f"{name} is not installed here")
        return None
sys.meta_path.insert(0, _NoGui())
import workbench.cli
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    ran = workbench.cli.main(["sweep", SCRIPT, "--param", "engine.peak_torque=50,350", "--out", OUT])
    plotted = workbench.cli.main(["sweep", SCRIPT, "--param", "engine.peak_torque=50,350", "--out", OUT, "--plot"])
print("CODES:", ran, plotted, "|", err.getvalue().strip())
"""


def test_a_sweep_runs_where_no_qt_is_installed_and_plot_says_what_it_needs(script, tmp_path):
    code = f"SCRIPT, OUT = {str(script)!r}, {str(tmp_path / 'out')!r}\n" + SWEEP_WITHOUT_QT
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=cli_env(),
                          timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("CODES:")]
    assert line == "CODES: 0 2 | carbench: --plot needs PySide6 and pyqtgraph"
    assert (tmp_path / "out" / "sweep.csv").is_file()


def test_a_failing_cluster_is_one_line_not_a_traceback(capsys, script, monkeypatch, tmp_path):
    import contextlib

    from workbench.runs import sweep_command

    @contextlib.contextmanager
    def broken(workers, scheduler):
        def run(fn, chunks):
            raise RuntimeError("Error during deserialization of the task graph.\nmore detail")

        yield run

    monkeypatch.setattr(sweep_command.cluster, "mapper", broken)
    monkeypatch.setattr(sweep_command.cluster, "check_options", lambda workers, scheduler: None)
    code, out, err = sweep(capsys, script, "--param", "body.mass=900,1000", "--out", tmp_path,
                           "--scheduler", "tcp://127.0.0.1:8786")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("carbench: --scheduler tcp://127.0.0.1:8786: the Dask cluster could not run the sweep "
                          "(RuntimeError: Error during deserialization of the task graph.)")
    assert not (tmp_path / "sweep.csv").exists()


def test_two_expectations_of_one_name_get_columns_and_charts_of_their_own(capsys, tmp_path):
    """Two [[expect]] named alike made two identical columns in sweep.csv and two identical summary lines, and their
    heatmaps one file, the second written over the first."""
    path = tmp_path / "twice.toml"
    path.write_text(SCRIPT + """
[[expect]]
name = "moving"
channel = "speed_kmh"
at = 0.9
min = 2.0
""")
    out_dir = tmp_path / "out"
    code, out, err = sweep(capsys, path, "--param", "engine.peak_torque=50:350:2", "--param",
                           "body.mass=900:1300:2", "--out", out_dir, "--plot")
    assert code == 0, err
    header = next(csv.reader((out_dir / "sweep.csv").open()))
    assert len(header) == len(set(header)), header
    assert {"moving (#1) [km/h]", "moving (#2) [km/h]", "moving (#1) pass", "moving (#2) pass"} <= set(header)
    assert "moving (#1):" in out and "moving (#2):" in out
    charts = sorted(p.name for p in out_dir.rglob("heatmap-moving*.png"))
    assert charts == ["heatmap-moving-1.png", "heatmap-moving-2.png"], charts


def test_plot_says_when_it_draws_no_chart(capsys, script, tmp_path):
    """Three axes that move nothing (the body's drawn length and width, the steering's rate on a straight run): every
    sensitivity chart was left out and --plot said nothing of it."""
    pytest.importorskip("PySide6")
    code, out, err = sweep(capsys, script, "--param", "body.length=4.5:5:3", "--param", "body.width=1.6:1.9:3",
                           "--param", "steering.rate=10:20:3", "--out", tmp_path / "o", "--plot")
    assert code in (0, 1), err
    assert "no chart: no parameter moved any expectation's margin or KPI" in out
    assert [p.name for p in (tmp_path / "o").glob("*.png")] == []
