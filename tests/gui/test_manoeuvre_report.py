"""``carbench manoeuvre --report``: the KPI tables and the charts (the Bode chart of the sweep) as HTML and PNG."""

from __future__ import annotations

from PySide6.QtGui import QImage

from workbench.cli import main


def test_the_report_has_the_kpis_of_both_cars_and_a_bode_chart(tmp_path, capsys):
    folder = tmp_path / "kpis"
    assert main(["manoeuvre", "iso7401_sweep", "--vs-set", "tyres.b_rear=11", "--report", str(folder)]) == 0
    page = (folder / "index.html").read_text()
    assert "yaw-rate -3 dB bandwidth" in page and "sedan (edited)" in page
    charts = sorted(folder.glob("*.png"))
    assert len(charts) == 2  # gain and phase against frequency
    image = QImage(str(charts[0]))
    assert image.width() > 600 and image.height() > 300
    assert "report: " in capsys.readouterr().err


def test_a_report_of_a_car_the_test_fits_to_draws_its_charts_and_one_it_cannot_run_says_so(tmp_path, capsys):
    """The charts run the script as the test runs it on each car: the coast-down in neutral only where there is a
    gearbox (the report re-ran the bare script and ended in a traceback on the kinematic car), and a test a car
    cannot run draws no chart and says why."""
    folder = tmp_path / "coast"
    assert main(["manoeuvre", "coastdown", "--preset", "teaching", "--report", str(folder)]) == 1  # not 130 km/h
    page = (folder / "index.html").read_text()
    assert "road load A" in page and "the driver holds 130 km/h" in page and len(list(folder.glob("*.png"))) == 1
    capsys.readouterr()
    folder = tmp_path / "two"
    code = main(["manoeuvre", "all", "--preset", "sedan", "--vs-preset", "parking", "--report", str(folder)])
    page = (folder / "index.html").read_text()
    out = capsys.readouterr().out
    assert code in (0, 1) and "lengths in px" in page and "lengths in px" in out
    assert "road load A" in page and "stopping distance" in page  # the sedan's own KPIs, not blanked by parking's
