"""The README's commands and quoted outputs, checked against what the commands do (where that is deterministic)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_calls import run as _run

from workbench import bench, cli
from workbench.names import shipped_names

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _commands(word: str) -> list[list[str]]:
    """Every ``carbench WORD ...`` line of the README's shell blocks (continuations joined)."""
    blocks = re.findall(r"```sh\n(.*?)```", README, flags=re.S)
    text = "\n".join(blocks).replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith(f"carbench {word} ") and "SCRIPT" not in line:
            out.append(line.split()[1:])
    return out


def test_the_sweep_examples_name_shipped_scripts():
    examples = _commands("sweep")
    assert len(examples) >= 3
    for argv in examples:
        assert argv[1] in shipped_names("script"), argv


def test_the_quoted_sweep_summary_line_is_what_the_first_example_prints(tmp_path, monkeypatch, capsys):
    first = _commands("sweep")[0]
    assert first[1] == "full_lock_left"
    quoted = re.search(r'the first example prints "(.*?)"\)', README, flags=re.S).group(1)
    quoted = " ".join(quoted.split())
    monkeypatch.chdir(tmp_path)
    argv = [a for a in first if a != "--plot"]  # the summary does not depend on the charts
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert quoted in [line.strip() for line in out.splitlines()], out


def test_two_axes_with_samples_give_tornado_charts_as_the_readme_says(tmp_path, monkeypatch, capsys):
    assert "any\n`--samples` sweep of two or more axes" in README or "`--samples` sweep of two or more axes" in \
        " ".join(README.split("\n"))
    monkeypatch.chdir(tmp_path)
    written: list[str] = []

    def render(chart, path):
        written.append(Path(path).name)
        Path(path).write_bytes(b"\x89PNG\r\n\x1a\n")

    monkeypatch.setattr(cli, "chart_renderer", lambda: render)
    code, out, err = _run(["sweep", "braking_stop", "--param", "body.mass=900:1800", "--param",
                           "brakes.force=5000:15000:log", "--samples", "6", "--seed", "1", "--out", "b", "--plot"],
                          capsys)
    assert code == 0, err
    pngs = sorted(p.name for p in (tmp_path / "b").glob("*.png"))
    assert pngs and all(name.startswith("tornado-") for name in pngs), pngs


def test_bench_says_what_it_measures_before_it_measures(monkeypatch, capsys):
    assert "a progress line on stderr as each measurement starts" in README

    class Stop(Exception):
        pass

    def first_measurement():
        raise Stop

    monkeypatch.setattr(bench, "compile_time", first_measurement)
    with pytest.raises(Stop):
        bench.run_bench(quick=True, gui=False)
    err = capsys.readouterr().err
    assert err.startswith("bench [1/11] compiling the model"), err


@pytest.mark.parametrize("gui", [False, True])
def test_bench_counts_its_steps_to_the_total_it_announces(monkeypatch, gui):
    # Every measurement replaced by a stub: only the progress lines are under test.
    from collections import defaultdict

    from workbench.manoeuvres import handling_bench
    from workbench.runs import sweep_bench

    monkeypatch.setattr(bench, "CPU", defaultdict(lambda: 1.0))
    for name in ("compile_time", "replay_figures", "replay_all_wall", "hunt_throughput", "peer_figures",
                 "cold_compile"):
        monkeypatch.setattr(bench, name, lambda *a, **k: {})
    for name in ("step_us", "window_step_us", "batch_rate", "one_car_kernel_us"):
        monkeypatch.setattr(bench, name, lambda *a, **k: 1.0)
    monkeypatch.setattr(bench, "commonroad_step_us", lambda *a, **k: None)
    monkeypatch.setattr(bench, "rerun_after_edit", lambda *a, **k: (0.0, 1))
    monkeypatch.setattr(sweep_bench, "figures", lambda quick: {})
    monkeypatch.setattr(handling_bench, "figures", lambda quick: {})
    if gui:
        from workbench.gui import bench as gui_bench

        monkeypatch.setattr(gui_bench, "figures_apart", lambda quick: {})
    lines = []
    steps = 12 if gui else 11
    bench.measure(quick=True, gui=gui, progress=bench.BenchProgress(stream=_Lines(lines), steps=steps))
    counts = [line.split("]")[0] for line in lines]
    assert counts == [f"bench [{k}/{steps}" for k in range(1, steps + 1)], lines


class _Lines:
    def __init__(self, lines):
        self.lines = lines

    def write(self, text):
        if text.strip():
            self.lines.append(text)

    def flush(self):
        pass


def test_the_readme_quotes_the_scheduler_connect_time():
    from workbench.runs.cluster import CONNECT_TIMEOUT

    assert f"given up on after {CONNECT_TIMEOUT:g} s" in README


def test_the_readme_says_what_file_has_to_record_and_what_a_b_minus_a_plots_csv_holds(carbench_window):
    """Two window changes landed without their words here: File's Record and Stop recording (Record disabled while
    a recording runs), and a plot's CSV that, with B\u2212A on, holds the differences it shows under headers of their own."""
    from workbench.gui.plot_panel import CSV_DELTA

    text = " ".join(README.split())
    window = carbench_window
    record, stop = window.record_action.text(), window.stop_recording_action.text()
    assert f"File has {record} and {stop} beside Save recording" in text
    assert "Record is disabled while a recording runs" in text
    assert "with *B\u2212A* on, the CSV holds the differences the plot shows" in text
    quoted = re.search(r"its \*Data as CSV\* writes each channel's difference to each reference, .*? headed `([^`]*)`",
                       text)
    assert quoted and quoted.group(1) == f"steer {CSV_DELTA} (ref 1) [deg]"


def test_the_monitor_table_says_what_each_tolerance_is_and_its_default():
    """A [[monitor]]'s tolerance means something of its own for each monitor (finite's is a magnitude, rpm_range's
    rpm, grip_limit's a share), and nothing a user reads said which: `tolerance = 0.5` on finite fired on 800 rpm."""
    from workbench.runs.monitors import MONITORS

    for m in MONITORS:
        (row,) = [line for line in README.splitlines() if line.startswith(f"| `{m.name}` |")]
        assert row.endswith(f"| {m.tolerance_doc.replace('|', chr(92) + '|')} ({m.tolerance:g}) |"), m.name


def test_a_finite_violation_says_the_tolerance_and_each_value_in_its_display_unit():
    """Its values were in SI with no unit ("load_front 7848"), where every other monitor's are in display units."""
    from physics import channel_infos
    from physics.units import display_of
    from workbench.runs.monitors import check_results
    from workbench.runs.replay import replay
    from workbench.scripts.format import parse_script
    from workbench.scripts.program import compile_script

    text = '[script]\nname = "t"\npreset = "sedan"\nduration = 1.0\n[[monitor]]\nname = "finite"\ntolerance = 0.2\n'
    (result,) = replay([compile_script(parse_script(text, "t.toml"))])
    (found,) = check_results([result])
    v = found.violation
    *values, (what, tolerance, _) = v.values
    assert (what, tolerance) == ("largest magnitude allowed (SI)", 0.2)
    shown = {info.name: display_of(info) for info in channel_infos("m")}
    assert values
    for name, value, unit in values:
        assert (unit, value) == (shown[name][0], result.log.column(name)[v.frame] * shown[name][1])
