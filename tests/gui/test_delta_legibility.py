"""A plot of B\u2212A says which curve is which: with B\u2212A on, every curve on a row is in a pinned run's colour, so the
row's title squares in the hidden curves' colours named nothing on the plot, and a row's two channels (yaw_rate on the
left axis, steer on the right) drew their differences in one colour, told apart only by the axis they are read on.
Each channel's differences now have a line style of their own, and the title shows a sample of it before the
channel's name, as an exported plot's title does (one source: plot_rows.DELTA_STYLES, delta_pen, draw_sample)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QDockWidget

from physics.presets import scripts_dir
from workbench.gui.plot_panel import export_title
from workbench.gui.plot_rows import DELTA_TEXT
from workbench.gui.testing import drive


def slalom_pinned_then_slower_steering(window, qtbot) -> None:
    """The slalom pinned as A, then re-run with a slower steering rate: both the yaw rate and the steer differ."""
    drive(window, scripts_dir() / "slalom.toml", chunk=24)
    assert window.comparer.pin_current()
    with qtbot.waitSignal(window.comparer.rerun_adopted, timeout=120_000):
        window.model.set_param("steering.rate", 0.25)


def pen_look(pen) -> tuple:
    dashes = tuple(pen.dashPattern()) if pen.style() != Qt.PenStyle.SolidLine else ()
    return pen.color().rgb(), dashes


def colours_in(image: QImage, x0: int, x1: int, y0: int, y1: int) -> set[tuple[int, int, int]]:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    return {QColor(image.pixel(x, y)).getRgb()[:3] for x in range(x0, x1) for y in range(y0, y1)}


def test_each_channel_of_a_b_minus_a_row_has_its_own_line_style_and_the_title_shows_it(carbench_window, qtbot):
    window = carbench_window
    slalom_pinned_then_slower_steering(window, qtbot)
    (ref,) = window.comparer.references.items
    row = window.plots.rows[2]
    assert list(row.curves) == ["yaw_rate", "steer"]
    plain_title = row.title.text()
    overlay = window.plot_overlay.row_overlay(row)
    overlay.delta.setChecked(True)
    window.model.refresh()
    QApplication.processEvents()
    yaw, steer = overlay.curves[(0, "yaw_rate")], overlay.curves[(0, "steer")]
    assert len(yaw.getData()[1]) and len(steer.getData()[1]) and yaw.isVisible() and steer.isVisible()
    # Both in the pinned run's colour (the colour names the run), each in a style of its own: solid, then dashed.
    assert yaw.opts["pen"].color() == ref.colour and steer.opts["pen"].color() == ref.colour
    assert pen_look(yaw.opts["pen"]) != pen_look(steer.opts["pen"])
    assert yaw.opts["pen"].style() == Qt.PenStyle.SolidLine and steer.opts["pen"].style() != Qt.PenStyle.SolidLine

    # The title: no square in a hidden curve's colour; each channel after a sample of its line, "B-A" after it.
    title = row.title.text()
    assert "&#9632;" not in title and title != plain_title
    assert f"yaw_rate&nbsp;{DELTA_TEXT}" in title and f"steer&nbsp;{DELTA_TEXT}" in title
    assert title.count("<img") == 2 and title.index("<img") < title.index("yaw_rate")
    assert title.index("yaw_rate") < title.rindex("<img") < title.index("steer")
    assert "yaw_rate solid" in row.title.toolTip() and "steer dashed" in row.title.toolTip()
    shot = row.title.grab().toImage()
    seen = colours_in(shot, 0, shot.width(), 0, shot.height())
    assert ref.colour.getRgb()[:3] in seen  # the samples, in the run's colour (the only run pinned)
    for curve in row.curves.values():
        assert curve.opts["pen"].color().getRgb()[:3] not in seen  # no hidden curve's colour
    # The two samples differ as the curves do: the solid one is unbroken, the dashed one has gaps.
    ink = [[QColor(shot.pixel(x, y)).getRgb()[:3] == ref.colour.getRgb()[:3] for x in range(shot.width())]
           for y in range(shot.height())]
    line = max(range(shot.height()), key=lambda y: sum(ink[y]))  # the samples' row of pixels
    runs, x = [], 0
    while x < shot.width():  # the stretches of the run's colour along it
        if ink[line][x]:
            start = x
            while x < shot.width() and ink[line][x]:
                x += 1
            runs.append(x - start)
        x += 1
    assert runs[0] >= 18 and len(runs) >= 3 and max(runs[1:]) < runs[0]

    # The export says the same: each channel after a sample of the pen its curve is drawn with.
    entries = export_title(row)
    assert [text for _, text in entries] == [f"yaw_rate {DELTA_TEXT} [deg/s]", f"steer {DELTA_TEXT} [deg]", ref.name]
    assert pen_look(entries[0][0]) == pen_look(yaw.opts["pen"])
    assert pen_look(entries[1][0]) == pen_look(steer.opts["pen"])

    # B-A off: the curves and the title as before.
    overlay.delta.setChecked(False)
    window.model.refresh()
    assert row.title.text() == plain_title and row.title.toolTip() == "yaw_rate, steer"  # (its channels, whole)
    assert row.curves["yaw_rate"].isVisible() and row.curves["steer"].isVisible()


def test_with_two_runs_pinned_the_runs_keep_their_colours_and_the_channels_their_styles(carbench_window, qtbot):
    window = carbench_window
    slalom_pinned_then_slower_steering(window, qtbot)
    assert window.comparer.pin_current()
    refs = window.comparer.references.items
    row = window.plots.rows[3]
    assert list(row.curves) == ["fy_front", "fy_rear"]  # one axis: only the line style tells them apart
    overlay = window.plot_overlay.row_overlay(row)
    overlay.delta.setChecked(True)
    window.model.refresh()
    looks = {key: pen_look(curve.opts["pen"]) for key, curve in overlay.curves.items()}
    assert len(set(looks.values())) == 4  # two runs by two channels, each pair its own look
    for (i, name), (colour, dashes) in looks.items():
        assert colour == refs[i].colour.rgb()  # the run's colour
        assert dashes == looks[(1 - i, name)][1]  # the channel's style, whichever run it is taken from
    # The title's samples in the text's colour: the runs' colours are the plots' key's, and the export names them.
    text_colour = (70, 70, 70)
    shot = row.title.grab().toImage()
    seen = colours_in(shot, 0, shot.width(), 0, shot.height())
    assert text_colour in seen and not any(r.colour.getRgb()[:3] in seen for r in refs)
    entries = export_title(row)  # the same samples, in the same colour; then each run in its colour
    assert [pen_look(mark) for mark, _ in entries[:2]] == [(QColor(*text_colour).rgb(), looks[(0, name)][1])
                                                            for name in row.curves]
    assert [(mark.rgb(), text) for mark, text in entries[2:]] == [(r.colour.rgb(), r.name) for r in refs]


def test_an_exported_b_minus_a_plot_draws_each_channels_line_sample(carbench_window, qtbot, tmp_path):
    window = carbench_window
    slalom_pinned_then_slower_steering(window, qtbot)
    (ref,) = window.comparer.references.items
    row = window.plots.rows[2]
    window.plot_overlay.row_overlay(row).delta.setChecked(True)
    window.model.refresh()
    window.plots.export(row, "png", str(tmp_path / "delta.png"))
    image = QImage(str(tmp_path / "delta.png")).convertToFormat(QImage.Format.Format_RGB32)
    band = int(image.height() - row.plot.getPlotItem().height()) - 1
    ink = [x for x in range(image.width()) if any(QColor(image.pixel(x, y)).getRgb()[:3] == ref.colour.getRgb()[:3]
                                                  for y in range(band))]
    # in the title: the solid sample, the dashed one (broken), and the run's square
    stretches = []
    for x in ink:
        if stretches and x == stretches[-1][1] + 1:
            stretches[-1][1] = x
        else:
            stretches.append([x, x])
    assert len(stretches) >= 4
    assert stretches[0][1] - stretches[0][0] >= 18  # the solid sample, unbroken


def test_a_b_minus_a_title_gives_up_the_words_before_it_widens_the_dock(carbench_window, qtbot):
    """At 1024 x 640 the plots' dock has no room for "yaw_rate B\u2212A  steer B\u2212A" beside the row's buttons:
    the title drops the words (the toggle beside says B\u2212A) and keeps both channels whole, asking for no more
    room than that."""
    window = carbench_window
    window.resize(1024, 640)
    slalom_pinned_then_slower_steering(window, qtbot)
    row = window.plots.rows[2]
    dock_width = window.plots.width()
    window.plot_overlay.row_overlay(row).delta.setChecked(True)
    window.model.refresh()
    QApplication.processEvents()
    assert window.plots.width() == dock_width
    title = row.title
    assert "&#9632;" not in title.text() and title.text().count("<img") == 2  # the samples, not the squares
    # the forms: with the words, without them, then fewer channels ("+1 more") and their count where each is narrower
    # (plot_rows.fewer, RowTitle._narrowing)
    assert DELTA_TEXT in title.forms[0] and DELTA_TEXT not in title.forms[1]
    assert title.minimumSizeHint().width() <= title.width()
    assert title.text() == title.forms[1]
    assert "yaw_rate" in title.text() and "steer" in title.text()
    assert f"steer {DELTA_TEXT}" not in title.toolTip() and "steer dashed" in title.toolTip()
    # a wider dock: the words come back
    dock = window.plots.parentWidget()
    while not isinstance(dock, QDockWidget):
        dock = dock.parentWidget()
    window.resize(1500, 900)
    QApplication.processEvents()
    window.resizeDocks([dock], [dock_width + 150], Qt.Orientation.Horizontal)
    QApplication.processEvents()
    assert window.plots.width() > dock_width + 100
    assert title.text() == title.forms[0] and f"steer&nbsp;{DELTA_TEXT}" in title.text()


def test_an_svg_exports_references_cut_to_the_plot_area():
    """Qt's SVG generator drops the plot's clipping: a reference longer than the time on show ran over the axes to the
    image's edges (a review). Its paths are cut to the plot's area, a line that runs on inside staying one subpath (a
    dashed pen's pattern runs on along it)."""
    import numpy as np
    from PySide6.QtCore import QRectF

    from workbench.gui.plot_overlay import clip_segments

    x = np.linspace(-5.0, 15.0, 201)
    y = np.sin(x)
    xs, ys, connect = clip_segments(x, y, QRectF(0.0, -2.0, 10.0, 4.0))
    assert xs.min() == 0.0 and xs.max() == 10.0 and np.all(np.abs(ys) <= 1.0)
    assert connect[-1] == 0 and np.all(connect[:-1] == 1)  # one line from edge to edge
    # A line that leaves the rectangle and comes back is two lines, each ending on the edge.
    xs, ys, connect = clip_segments(np.array([0.0, 5.0, 10.0]), np.array([0.0, 4.0, 0.0]), QRectF(-1.0, -1.0, 12.0, 3.0))
    assert len(xs) == 4 and list(connect) == [1, 0, 1, 0] and np.all(ys <= 2.0 + 1e-12)
    assert clip_segments(np.array([20.0, 30.0]), np.array([0.0, 0.0]), QRectF(0.0, -1.0, 10.0, 2.0))[0].size == 0


def test_an_svg_export_draws_the_references_within_the_plot(carbench_window, tmp_path, monkeypatch):
    from workbench.gui import plot_overlay
    from workbench.gui.testing import hold

    window = carbench_window
    hold(window, {"throttle", "left"}, 1800)  # a reference of 15 s, turning
    window.comparer.pin_current()
    window.model.start_recording()  # a new run from rest, straight on: its newest 10 s on show, the reference
    hold(window, {"throttle"}, 1500)  # running on before and after them
    drawn = []
    original = plot_overlay.ReferenceLayer._draw_paths

    def recording(self, painter, within=None):
        drawn.append(within)
        return original(self, painter, within)

    monkeypatch.setattr(plot_overlay.ReferenceLayer, "_draw_paths", recording)
    row = window.plots.rows[0]
    window.plots.export(row, "svg", str(tmp_path / "row.svg"))
    assert drawn and all(w is not None for w in drawn)
    x0, x1 = row.vb.viewRange()[0]
    layer = next(iter(window.plot_overlay.row_overlay(row).layers.values()))
    seen = layer.mapRectToView(drawn[0])  # the cut, back in the plot's own coordinates: the time on show
    assert abs(seen.left() - x0) < 1e-6 and abs(seen.right() - x1) < 1e-6
    # The SVG drawn: no pixel of the reference's colour left or right of the plot's area (it ran to the edges).
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    svg = QSvgRenderer(str(tmp_path / "row.svg"))
    image = QImage(svg.defaultSize(), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    svg.render(painter)
    painter.end()
    area = row.plot.mapFromScene(row.vb.sceneBoundingRect()).boundingRect()  # the plot's area in the widget
    colour = window.comparer.references.items[0].colour  # drawn dashed and thin: lighter where antialiased
    assert colour.red() > 200 and colour.blue() < 60  # the first reference's orange

    def near(x: int, y: int) -> bool:
        c = image.pixelColor(x, y)
        return c.red() > 180 and c.red() - c.blue() > 90 and c.green() < c.red() - 30

    outside = [x for x in range(image.width()) if x < area.left() - 6 or x > area.right() + 6  # a pen's width
               for y in range(0, image.height(), 2) if near(x, y)]
    inside = [x for x in range(area.left() + 3, area.right() - 3) for y in range(0, image.height(), 2) if near(x, y)]
    assert inside and not outside, (len(inside), outside[:5])
