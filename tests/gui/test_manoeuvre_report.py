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
