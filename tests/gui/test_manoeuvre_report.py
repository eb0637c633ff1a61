"""``carbench manoeuvre --report``: the KPI tables and the charts (the Bode chart of the sweep) as HTML and PNG."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage

from workbench.cli import main


def test_the_report_has_the_kpis_of_both_cars_and_a_bode_chart(tmp_path, capsys):
    folder = tmp_path / "kpis"
    assert main(["manoeuvre", "iso7401_sweep", "--vs-set", "tyres.b_rear=11", "--report", str(folder)]) == 0
    page = (folder / "index.html").read_text()
    assert "yaw-rate -3 dB bandwidth" in page and "sedan (tyres.b_rear 11 1/rad)" in page
    charts = sorted(folder.glob("*.png"))
    assert len(charts) == 2  # gain and phase against frequency
    image = QImage(str(charts[0]))
    assert image.width() > 600 and image.height() > 300
    assert "report: " in capsys.readouterr().err


def test_the_report_carries_each_cars_stamp_as_a_replays_does(tmp_path, capsys):
    """The manoeuvre report had no stamp: no carbench or numpy version, no preset, no SHA-256 of the parameters."""
    import json
    import re

    from physics import load_preset
    from workbench.runs.stamp import params_sha256

    folder = tmp_path / "r"
    assert main(["manoeuvre", "iso21994", "--vs-set", "tyres.mu=0.9", "--report", str(folder)]) == 0
    capsys.readouterr()
    page = (folder / "index.html").read_text()
    (doc,) = re.findall(r'<script type="application/json" class="stamp">(.*?)</script>', page)
    a, b = json.loads(doc)
    sedan = load_preset("sedan").params
    assert a["preset"] == b["preset"] == "sedan" and a["params_sha256"] == params_sha256(sedan)
    assert b["params_sha256"] == params_sha256(sedan.with_values({"tyres.mu": 0.9})) != a["params_sha256"]
    assert [c["path"] for c in b["changed"]] == ["tyres.mu"] and a["changed"] == []
    assert a["carbench"] in page and "<td>B: sedan (tyres.mu 0.9)</td>" in page


def test_a_report_of_a_car_the_test_fits_to_draws_its_charts_and_one_it_cannot_run_says_so(tmp_path, capsys):
    """The charts run the script as the test runs it on each car: the coast-down in neutral only where there is a
    gearbox (the report re-ran the bare script and ended in a traceback on the kinematic car), and a test a car
    cannot run draws no chart and says why."""
    folder = tmp_path / "coast"
    folder.mkdir()
    # an earlier report of another test in the folder: its charts go when this one replaces its page
    (folder / "index.html").write_text('<html><head><meta name="generator" content="carbench"><title>carbench '
                                       'manoeuvre</title></head><body><img src="iso4138-1.png"></body></html>')
    (folder / "iso4138-1.png").write_bytes(b"an earlier chart")
    assert main(["manoeuvre", "coastdown", "--preset", "teaching", "--report", str(folder)]) == 1  # not 130 km/h
    page = (folder / "index.html").read_text()
    assert "road load A" in page and "the driver holds 130 km/h" in page and len(list(folder.glob("*.png"))) == 1
    assert not (folder / "iso4138-1.png").exists()
    capsys.readouterr()
    folder = tmp_path / "two"
    code = main(["manoeuvre", "all", "--preset", "sedan", "--vs-preset", "parking", "--report", str(folder)])
    page = (folder / "index.html").read_text()
    out = capsys.readouterr().out
    assert code in (0, 1) and "lengths in px" in page and "lengths in px" in out
    assert "road load A" in page and "stopping distance" in page  # the sedan's own KPIs, not blanked by parking's


def test_the_legend_goes_to_the_corner_with_the_least_of_the_curves():
    import numpy as np

    from workbench.gui.charts import emptiest_corner
    from workbench.output.charts import Chart, Series

    t = np.linspace(0.0, 20.0, 401)
    step = Series(t, np.where(t > 14.0, 10.5, 0.0), "sedan")  # a step response: high on the right
    assert emptiest_corner(Chart("step", "t", "r", [step]), (0.0, 20.0), (0.0, 10.5)) == "top left"
    fall = Series(t, 10.0 - 0.5 * t, "speed")  # high on the left, low on the right
    assert emptiest_corner(Chart("fall", "t", "v", [fall]), (0.0, 20.0), (0.0, 10.0)) == "top right"


def test_the_legend_corner_counts_a_curves_segments_and_the_reference_lines_not_its_frames_alone():
    import numpy as np

    from workbench.gui.charts import emptiest_corner
    from workbench.output.charts import Chart, Line, Series

    # Two frames: a jump across the top right. Counted by frames the top right was empty and got the legend, over the
    # line; the bottom left holds a long flat stretch, so its frames outnumber.
    jump = Series(np.array([0.0, 1.0, 2.0, 3.0, 4.0, 19.0, 20.0]), np.array([0.0, 0.0, 0.0, 0.0, 0.0, 10.0, 10.0]))
    chart = Chart("jump", "t", "v", [jump])
    assert emptiest_corner(chart, (0.0, 20.0), (0.0, 10.0)) == "top left"
    # A dashed zero line along the top (a margin chart whose values are all below zero) is not covered either.
    below = Series(np.linspace(0.0, 20.0, 50), np.linspace(-9.0, -1.0, 50))
    chart = Chart("margins", "t", "m", [below], lines=[Line(0.0, "y", label="pass")])
    assert emptiest_corner(chart, (0.0, 20.0), (-10.0, 0.0)) == "bottom right"


def test_the_step_steers_chart_is_of_the_run_its_kpis_come_from():
    """The report drew the script's own run (27 deg of handwheel) under the title "to 4 m/s^2"."""
    from physics import load_preset
    from workbench.manoeuvres.catalogue import manoeuvre
    from workbench.manoeuvres.runner import Car, run_jobs

    m = manoeuvre("iso7401_step")
    cars = [Car(load_preset("sedan").params, "sedan")]
    ((script, _),) = m.chart_jobs(cars, lambda jobs: run_jobs(jobs, m.channels))
    assert script.robot.get("amplitude") != m.base_script().robot.get("amplitude")
    (run,) = run_jobs([(script, cars[0])], m.channels)
    (kpi,) = [k for k in m.kpis(run) if k.key == "steady_ay"]
    assert abs(kpi.value - 4.0) < 0.1


def test_the_length_of_a_line_inside_a_corner_is_its_clipped_segments():
    import math

    import numpy as np

    from workbench.gui.charts import inside_length

    box = (0.0, 0.5, 0.0, 0.5)
    diagonal = inside_length(np.array([0.0, 1.0]), np.array([0.0, 1.0]), box)
    assert diagonal == pytest.approx(math.sqrt(0.5))  # half the diagonal, with no point inside but its first
    assert inside_length(np.array([0.6, 1.0]), np.array([0.0, 1.0]), box) == 0.0  # beside it
    assert inside_length(np.array([0.25, 0.25, 2.0]), np.array([-1.0, 2.0, 2.0]), box) == pytest.approx(0.5)
    assert inside_length(np.array([0.1, np.nan, 0.2]), np.array([0.1, 0.3, 0.2]), box) == pytest.approx(
        math.hypot(0.1, 0.1))  # a frame with no value is left out, its neighbours joined
