"""A sweep's LO:HI:N:log axis: its values as typed would give them (no 20.000000000000004 in the CSV), and its charts
on a logarithmic axis with readable ticks; a handling test's KPIs charted against the axis, with their limits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physics import load_preset
from workbench.runs.sweep_axes import parse_axis


@pytest.mark.parametrize(("spec", "values"), [("body.mass=5:80:5:log", [5.0, 10.0, 20.0, 40.0, 80.0]),
                                                ("body.mass=1:1000:4:log", [1.0, 10.0, 100.0, 1000.0]),
                                                ("body.mass=0.1:0.7:7", [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]),
                                                ("steering.ackermann=-1:0.2:7", [-1.0, -0.8, -0.6, -0.4, -0.2, 0.0, 0.2]),
                                                ("steering.ackermann=1e-20:1:5:log", [1e-20, 1e-15, 1e-10, 1e-05, 1.0])])
def test_an_axis_holds_the_values_its_spacing_means(spec, values):
    axis = parse_axis(spec, load_preset("sedan").params)
    assert axis.values.tolist() == values  # exactly: 5:80:5:log's 20 was 20.000000000000004, 40 39.99999999999999
    assert [repr(v) for v in axis.values.tolist()] == [repr(v) for v in values]


def test_an_axis_that_is_not_round_keeps_its_spacing():
    axis = parse_axis("body.mass=1:10:4:log", load_preset("sedan").params)
    assert np.allclose(np.diff(np.log10(axis.values)), 1 / 3, rtol=0, atol=1e-14)
    assert axis.values[0] == 1.0 and axis.values[-1] == 10.0


def test_log_ticks_label_one_two_and_five_times_each_power_of_ten():
    from workbench.gui.charts import log_ticks

    major, minor = log_ticks(math.log10(100), math.log10(20000))
    assert [label for _, label in major] == ["100", "200", "500", "1000", "2000", "5000", "10000", "20000"]
    assert [at for at, _ in major] == pytest.approx([math.log10(v) for v in (100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4)])
    assert len(minor) == 2 * 6 and all(label == "" for _, label in minor)  # 3, 4, 6, 7, 8, 9 of two decades
    small, _ = log_ticks(math.log10(0.02), math.log10(0.6))
    assert [label for _, label in small] == ["0.02", "0.05", "0.1", "0.2", "0.5"]
    # Too short a range for two of 1, 2 and 5: every multiple labelled (it had none, or one); too short for two
    # multiples: pyqtgraph's own.
    assert [label for _, label in log_ticks(math.log10(5.5), math.log10(9.5))[0]] == ["6", "7", "8", "9"]
    assert [label for _, label in log_ticks(math.log10(0.03), math.log10(0.045))[0]] == ["0.03", "0.04"]
    assert [label for _, label in log_ticks(math.log10(1500), math.log10(4500))[0]] == ["2000", "3000", "4000"]
    assert log_ticks(math.log10(5.5), math.log10(5.9)) is None


def test_a_log_sweeps_charts_are_drawn_on_a_log_axis_with_the_kpis_and_their_limits(tmp_path):
    from dataclasses import replace

    from workbench.gui.charts import render_png
    from workbench.manoeuvres.sweep_kpis import run_test_sweep
    from workbench.output.sweep_report import charts
    from workbench.runs.sweep import plan_sweep
    from workbench.scripts.format import load_script, resolve_script
    from workbench.scripts.program import compile_script

    program = compile_script(load_script(resolve_script("r140_sine_dwell")))
    program = replace(program, params=program.params.with_values({"steering.rate": 1.4}))  # the robot's steer followed
    plan = plan_sweep(program, ["aids.esc_gain=100:20000:3:log"])
    drawn = dict(charts(run_test_sweep(plan)))
    assert all(chart.x_log for chart in drawn.values())
    ratio = drawn["kpi-worst-yaw-rate-ratio-1-00-s-after-cos.png"]
    (limit,) = ratio.lines
    assert limit.value == 35.0 and limit.axis == "y" and limit.label == "limit <= 35 %"
    assert "limit <= 35 %" in ratio.notes[0] and "judged pass" in ratio.notes[0]
    assert not drawn["kpi-handwheel-angle-at-0-3-g-a.png"].lines  # a KPI with no limit has no line
    png = render_png(ratio, tmp_path / "ratio.png")
    assert png.stat().st_size > 5000
