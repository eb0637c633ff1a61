"""`carbench sweep --plot`: the outcome charts are PNGs that open, one kind per number of axes."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage

from workbench import cli

SCRIPT = """
[script]
name = "tiny"
preset = "sedan"
duration = 1.0
dt = 0.05

[[hold]]
keys = ["throttle", "left"]
from = 0.0
to = 1.0

[[expect]]
name = "moving"
channel = "speed_kmh"
at = 1.0
min = 1.0

[[measure]]
name = "peak yaw rate"
channel = "yaw_rate"
from = 0.0
to = 1.0
reduce = "max"
"""


@pytest.mark.parametrize(("params", "names"), [
    (["engine.peak_torque=20:350:4"], {"margins.png", "measure-peak-yaw-rate.png"}),
    (["engine.peak_torque=20:350:3", "body.mass=900,1500"], {"heatmap-moving.png", "heatmap-measure-peak-yaw-rate.png"}),
    (["engine.peak_torque=20:350:2", "body.mass=900,1500", "steering.lock=20,40"], {"tornado-moving.png"}),
])
def test_plot_writes_pngs_that_open(qapp, tmp_path, capsys, params, names):
    script = tmp_path / "tiny.toml"
    script.write_text(SCRIPT)
    out = tmp_path / "out"
    args = ["sweep", str(script), "--out", str(out), "--plot"]
    for p in params:
        args += ["--param", p]
    assert cli.main(args) == 0, capsys.readouterr().err
    pngs = {p.name for p in out.glob("*.png")}
    assert pngs == names
    for name in pngs:
        image = QImage(str(out / name))
        assert not image.isNull() and image.width() >= 600, name
        assert len({image.pixel(x, y) for x in range(0, image.width(), 9) for y in range(0, image.height(), 9)}) > 5
