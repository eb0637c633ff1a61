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


def plotted(tmp_path, capsys, text: str, params: list[str]):
    """The --out folder of a sweep --plot of the script ``text`` over ``params`` (each a --param), which succeeded."""
    script = tmp_path / "swept.toml"
    script.write_text(text)
    out = tmp_path / "out"
    args = ["sweep", str(script), "--out", str(out), "--plot"]
    for p in params:
        args += ["--param", p]
    assert cli.main(args) == 0, capsys.readouterr().err
    return out


@pytest.mark.parametrize(("params", "names"), [
    (["engine.peak_torque=20:350:4"], {"margins.png", "measure-peak-yaw-rate.png"}),
    (["engine.peak_torque=20:350:3", "body.mass=900,1500"], {"heatmap-moving.png", "heatmap-measure-peak-yaw-rate.png"}),
    (["engine.peak_torque=20:350:2", "body.mass=900,1500", "steering.lock=20,40"], {"tornado-moving.png"}),
])
def test_plot_writes_pngs_that_open(qapp, tmp_path, capsys, params, names):
    out = plotted(tmp_path, capsys, SCRIPT, params)
    pngs = {p.name for p in out.glob("*.png")}
    assert pngs == names
    for name in pngs:
        image = QImage(str(out / name))
        assert not image.isNull() and image.width() >= 600, name
        assert len({image.pixel(x, y) for x in range(0, image.width(), 9) for y in range(0, image.height(), 9)}) > 5


def test_a_sweep_into_a_folder_removes_an_earlier_sweeps_charts_and_nothing_else(qapp, tmp_path, capsys):
    """A grid's heatmaps stayed beside a later one-axis sweep's CSV and margins, read as its findings. Only the
    charts the earlier sweep listed and left as they were go: never a user's copy, under any name, nor a link."""
    import json
    import os

    from workbench.output.png_text import MANIFEST, charts_of_a_sweep, png_texts

    script = tmp_path / "tiny.toml"
    script.write_text(SCRIPT)
    out = tmp_path / "out"
    grid = ["sweep", str(script), "--out", str(out), "--plot", "--param", "engine.peak_torque=20:350:3",
            "--param", "body.mass=900,1500"]
    assert cli.main(grid) == 0, capsys.readouterr().err
    capsys.readouterr()
    heatmaps = {"heatmap-moving.png", "heatmap-measure-peak-yaw-rate.png"}
    assert charts_of_a_sweep(out) == heatmaps
    assert (out / MANIFEST).read_text().split() == sorted(heatmaps, key=["heatmap-moving.png",
                                                                       "heatmap-measure-peak-yaw-rate.png"].index)
    assert png_texts(out / "heatmap-moving.png")["Software"].startswith("carbench ")
    # the user's own images beside them: one Qt wrote (no Source), copies of a chart (the tag with it) under other
    # names, hidden, and hard-linked from elsewhere, and a link to a chart
    mine = QImage(40, 30, QImage.Format.Format_RGB32)
    mine.fill(0x336699)
    assert mine.save(str(out / "photo.png"))
    kept = {"photo.png", "copy.png", ".hidden.png", "margins-old.png"}
    for name in ("copy.png", ".hidden.png", "margins-old.png"):
        (out / name).write_bytes((out / "heatmap-moving.png").read_bytes())
    linked = tmp_path / "mine.png"
    linked.write_bytes((out / "heatmap-measure-peak-yaw-rate.png").read_bytes())
    os.unlink(out / "heatmap-measure-peak-yaw-rate.png")
    os.link(linked, out / "heatmap-measure-peak-yaw-rate.png")  # the listed name, now also the user's file
    (out / "link.png").symlink_to(out / "heatmap-moving.png")
    line = ["sweep", str(script), "--out", str(out), "--plot", "--param", "engine.peak_torque=20:350:4", "--json"]
    assert cli.main(line) == 0, capsys.readouterr().err
    report = json.loads(capsys.readouterr().out)
    assert report["removes"] == [str(out / "heatmap-moving.png")]
    assert {p.name for p in out.iterdir()} == {"sweep.csv", MANIFEST, "margins.png", "measure-peak-yaw-rate.png",
                                               "heatmap-measure-peak-yaw-rate.png", "link.png"} | kept
    assert (out / "link.png").is_symlink() and linked.exists()
    # the same sweep again removes nothing: it writes the same charts
    assert cli.main(line[:-1]) == 0
    text = capsys.readouterr().out
    assert "removes" not in text and (out / "margins.png").exists()
    # a sweep without --plot leaves no chart of the one before beside its CSV
    assert cli.main([a for a in line if a not in ("--plot", "--json")]) == 0
    assert "removes an earlier sweep's charts it does not draw again" in capsys.readouterr().out
    assert not (out / "margins.png").exists() and (out / "photo.png").exists() and (out / "copy.png").exists()


def test_a_chart_that_cannot_be_removed_is_said_on_stderr(qapp, tmp_path, capsys, monkeypatch):

    script = tmp_path / "tiny.toml"
    script.write_text(SCRIPT)
    out = tmp_path / "out"
    assert cli.main(["sweep", str(script), "--out", str(out), "--plot", "--param", "engine.peak_torque=20:350:3"]) == 0
    capsys.readouterr()
    refuse_to_remove(monkeypatch, "margins.png")
    assert cli.main(["sweep", str(script), "--out", str(out), "--param", "engine.peak_torque=20:350:3"]) == 0
    err = capsys.readouterr().err
    assert err.strip() == f"carbench: --out {out}: could not remove an earlier sweep's chart margins.png: " \
                          "Operation not permitted"
    assert (out / "margins.png").exists() and not (out / "measure-peak-yaw-rate.png").exists()


def test_png_texts_reads_only_the_text_before_the_image(tmp_path):
    import struct
    import zlib

    from workbench.output.png_text import png_texts

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    head = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
    image = chunk(b"IDAT", zlib.compress(b"\0\0")) + chunk(b"IEND", b"")
    path = tmp_path / "a.png"
    path.write_bytes(head + chunk(b"tEXt", b"Source\0carbench sweep") + image
                     + chunk(b"tEXt", b"Comment\0after the image"))
    assert png_texts(path) == {"Source": "carbench sweep"}
    path.write_bytes(head + chunk(b"tEXt", b"Source\0carbench sweep"))  # cut short: what was read
    assert png_texts(path) == {"Source": "carbench sweep"}
    path.write_bytes(head + chunk(b"tEXt", b"X\0" + b"y" * 70_000) + chunk(b"tEXt", b"Source\0carbench sweep") + image)
    assert png_texts(path) == {}  # past the limit: not carbench's
    path.write_bytes(b"GIF89a" + b"\0" * 40)
    assert png_texts(path) == {} and png_texts(tmp_path / "missing.png") == {}


NEVER = SCRIPT.replace('''[[measure]]
name = "peak yaw rate"
channel = "yaw_rate"
from = 0.0
to = 1.0
reduce = "max"
''', '''[[measure]]
name = "never"
channel = "speed_kmh"
from = 0.0
to = 1.0
first_time_above = 500.0
''')


@pytest.mark.parametrize("params", [["body.mass=900:1500:4"], ["body.mass=900:1500:3", "steering.lock=20,30"]])
def test_a_measure_no_car_reaches_is_charted_as_never(qapp, tmp_path, capsys, params):
    """It ended in a traceback (a line chart with no point), and a heatmap of only such cells was drawn black
    under a note that said grey."""
    assert "first_time_above = 500.0" in NEVER
    out = plotted(tmp_path, capsys, NEVER, params)
    (chart,) = [p for p in out.glob("*.png") if "never" in p.name]
    image = QImage(str(chart))
    assert not image.isNull()
    w, h = image.width(), image.height()
    middle = [image.pixelColor(x, y) for x in range(w // 4, 3 * w // 4, 7) for y in range(h // 4, 3 * h // 4, 7)]
    assert not [c for c in middle if max(c.red(), c.green(), c.blue()) < 60]  # nothing black over the plot
    if len(params) == 2:  # every cell grey
        assert sum(abs(c.red() - 190) < 8 and abs(c.blue() - 190) < 8 for c in middle) > 0.7 * len(middle)


def test_a_chart_not_removed_is_listed_for_the_next_sweep_and_one_linked_meanwhile_stays(qapp, tmp_path, capsys,
                                                                                          monkeypatch):
    import os

    from workbench.output.png_text import MANIFEST, charts_of_a_sweep

    script = tmp_path / "tiny.toml"
    script.write_text(SCRIPT)
    out = tmp_path / "out"
    plot = ["sweep", str(script), "--out", str(out), "--plot", "--param", "engine.peak_torque=20:350:3"]
    plain = [a for a in plot if a != "--plot"]
    assert cli.main(plot) == 0
    real_unlink = refuse_to_remove(monkeypatch, "margins.png")
    assert cli.main(plain) == 0
    monkeypatch.setattr(os, "unlink", real_unlink)
    assert "margins.png" in (out / MANIFEST).read_text().split() and charts_of_a_sweep(out) == {"margins.png"}
    capsys.readouterr()
    assert cli.main(plain) == 0  # the next sweep removes it
    assert not (out / "margins.png").exists() and charts_of_a_sweep(out) == set()  # listed, gone: nothing to do
    # a chart the user links to between the sweep's start and its commit stays
    assert cli.main(plot) == 0
    from workbench.output import files

    real_commit = files.StagedOutputs.commit

    def commit_after_a_link(self):
        os.link(out / "margins.png", tmp_path / "kept.png")
        return real_commit(self)

    monkeypatch.setattr(files.StagedOutputs, "commit", commit_after_a_link)
    assert cli.main(plain) == 0
    assert (out / "margins.png").exists() and (tmp_path / "kept.png").exists()


def refuse_to_remove(monkeypatch, name: str):
    """os.unlink refuses files called ``name`` from now on (as for a file the user may not remove); returns the real
    one."""
    import os

    real_unlink = os.unlink

    def refuse(path, *args, **kwargs):
        if os.path.basename(str(path)) == name:
            raise PermissionError(1, "Operation not permitted", str(path))
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", refuse)
    return real_unlink
