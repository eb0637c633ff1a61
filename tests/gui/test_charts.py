"""The PNG renderer of headless chart specs: every kind of chart draws and writes a PNG that opens."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage

from workbench.gui.charts import render_png
from workbench.output.charts import Band, Bars, Chart, Heatmap, Line, Marker, Series


def opened(path) -> QImage:
    image = QImage(str(path))
    assert not image.isNull(), f"{path} does not open as an image"
    return image


def colours(image: QImage) -> set[int]:
    return {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}


T = np.linspace(0.0, 10.0, 200)
CHARTS = {
    "lines": Chart("speed", "t [s]", "speed [km/h]", series=[Series(T, np.sin(T), "a"), Series(T, np.cos(T), "b", dashed=True)],
                   bands=[Band(2.0, 8.0, "x"), Band(0.5, np.inf, "y")], lines=[Line(0.5, label="min")],
                   markers=[Marker(8.0, float(np.sin(8.0)), "worst")]),
    "heatmap": Chart("margin", "lock [deg]", "mu", heatmap=Heatmap(np.arange(5.0), np.arange(4.0),
                                                                  np.arange(20.0).reshape(4, 5) - 9.5)),
    "bars": Chart("sensitivity", "margin", "", bars=Bars(["a", "b"], np.array([-1.0, -2.0]), np.array([1.0, 0.5]))),
    "flat and non-finite": Chart("flat", "t [s]", "x", series=[Series(T, np.where(T > 5, np.nan, 1.0))]),
}


@pytest.mark.parametrize("name", CHARTS)
def test_every_kind_of_chart_writes_a_png_that_opens(qapp, tmp_path, name):
    path = render_png(CHARTS[name], tmp_path / "chart.png")
    image = opened(path)
    assert (image.width(), image.height()) == (CHARTS[name].width, CHARTS[name].height)
    assert len(colours(image)) > 5, "the chart drew nothing but a background"


def test_the_drawn_series_shows_in_its_colour(qapp, tmp_path):
    chart = Chart("one", "x", "y", series=[Series(T, T, "line", colour="#ff00ff")])
    image = opened(render_png(chart, tmp_path / "one.png"))
    magenta = [(x, y) for x in range(image.width()) for y in range(0, image.height(), 3)
               if image.pixelColor(x, y).name() == "#ff00ff"]
    assert len(magenta) > 50


def test_a_heatmaps_scale_is_centred_on_its_boundary_and_its_ticks_are_the_values_run():
    """Every car passed (margins 2 to 9) and the lowest drew red; a log axis drew its cells at even spacing under
    ticks of values never run."""
    import numpy as np

    from workbench.gui.charts import _cell_ticks, heat_levels

    assert heat_levels(np.array([[2.0, 9.0], [3.0, np.nan]]), 0.0) == (-9.0, 9.0)
    assert heat_levels(np.array([[-4.0, -1.0]]), 0.0) == (-4.0, 4.0)
    assert heat_levels(np.array([[5.0, 7.0]]), None) == (5.0, 7.0)  # a measure: its own range
    assert _cell_ticks(np.array([1000.0, 2466.2, 6082.2, 15000.0])) == [(0.0, "1000"), (1.0, "2466"),
                                                                      (2.0, "6082"), (3.0, "15000")]
    assert len(_cell_ticks(np.geomspace(1, 1e6, 50))) <= 12
    # a log axis of 2,000 .. 20,000 N: written out, not "1.125e+04" beside "6325"
    ticks = [text for _, text in _cell_ticks(np.geomspace(2000.0, 20000.0, 5))]
    assert ticks == ["2000", "3557", "6325", "11247", "20000"]
    assert [text for _, text in _cell_ticks(np.array([0.0012345, 0.5, 2.5e7, 1.5e-5]))] == ["0.001234", "0.5",
                                                                                         "2.5e+07", "1.5e-05"]


def test_a_tornado_chart_shows_its_bound_when_every_margin_is_below_it():
    import numpy as np

    from workbench.gui.charts import bars_x_range
    from workbench.output.charts import Bars, Chart, Line

    chart = Chart("sensitivity", "mean margin", "", bars=Bars(["a", "b"], np.array([-5.0, -3.0]), np.array([-2.0, -1.0]),
                                                              -2.5), lines=[Line(0.0, "x", "#1a9850", True)])
    assert bars_x_range(chart) == (-5.0, 0.0)


@pytest.mark.parametrize("level", [0.0, 250.0])
def test_a_flat_curves_pass_band_fills_the_plot_above_it(qapp, tmp_path, level):
    """Every car's margin the same (a bound met exactly): the band, cut at half the curve's height of none, had no
    height, and the chart showed no side as passing."""
    from workbench.output.charts import PASS_COLOUR

    chart = Chart("flat", "x", "margin", series=[Series(np.array([0.0, 1.0, 2.0]), np.full(3, level), "m")],
                  bands=[Band(level, np.inf, "y", PASS_COLOUR, "passes")])
    image = QImage(str(render_png(chart, tmp_path / "flat.png")))
    column = image.width() // 3
    rows = range(image.height() // 8, image.height() - image.height() // 8)

    def green(y: int) -> bool:
        c = image.pixelColor(column, y)
        return c.green() > c.red() + 8 and c.green() > c.blue() + 8

    greens = [y for y in rows if green(y)]
    assert greens, "no pass band drawn"
    assert min(greens) < image.height() // 4 < image.height() // 2 < max(greens) + 40  # from the top down to the curve


def test_long_tick_labels_are_drawn(qapp, tmp_path):
    # Values of -123,400 N spread over 30 N: their labels were wider than the axis' first room and were not drawn
    # at all (the axis widens for them only at a second paint).
    x = np.linspace(0.0, 10.0, 50)
    path = render_png(Chart("margin", "mass [kg]", "margin [N]", [Series(x, -123400.0 + 30.0 * np.sin(x), "car")]),
                      tmp_path / "wide.png")
    image = opened(path)
    strip = [QColor(image.pixel(px, py)).lightness() for px in range(24, 58) for py in range(40, image.height() - 60)]
    assert sum(1 for v in strip if v < 128) > 200  # the digits of several labels, left of the plot's frame


def test_axes_keep_their_own_unit_without_an_si_prefix(qapp, tmp_path, monkeypatch):
    # A 5 ms hunt's monitor chart read "time [s] (x0.001)" with ticks up to 5: pyqtgraph's SI prefix was left on.
    import pyqtgraph as pg

    made = []
    add_plot = pg.GraphicsLayout.addPlot

    def recording(self, *args, **kwargs):
        made.append(add_plot(self, *args, **kwargs))
        return made[-1]

    monkeypatch.setattr(pg.GraphicsLayout, "addPlot", recording)
    t = np.linspace(0.0, 0.005, 7)
    opened(render_png(Chart("monitor", "time [s]", "force [N]", [Series(t, 2e6 * t, "car")]), tmp_path / "ms.png"))
    (plot,) = made
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        assert axis.autoSIPrefixScale == 1.0 and "x0.001" not in axis.labelString() and "(x" not in axis.labelString()


def test_a_long_note_wraps_and_the_plot_stays_within_the_image(qapp, tmp_path):
    """A note wider than the chart widened the plot past the image, which cut off its right side: the ISO 4138 chart's
    150-character note cut the axis at 3 of 5 m/s^2 and the legend in half. Notes wrap to the chart's width: the curve
    ends where it ends with a short note."""
    def right_end(notes) -> int:
        chart = Chart("one", "x", "y", series=[Series(T, T, "line", colour="#ff00ff")], notes=notes)
        image = opened(render_png(chart, tmp_path / "note.png"))
        return max(x for x in range(image.width()) for y in range(0, image.height(), 2)
                   if image.pixelColor(x, y).name() == "#ff00ff")

    short = right_end(["a short note"])
    long = right_end(["a note of many words that goes on " * 6])
    assert short < Chart("w", "x", "y").width - 20
    assert abs(long - short) <= 20


def test_a_tornados_note_wraps_to_the_plot_right_of_its_names_and_its_bars_stay_within_the_image(qapp, tmp_path):
    """The note wrapped to the chart's width, but a tornado's title spans only the plot right of its axis of parameter
    names: its first line ran past the image and took the plot with it, the bars cut at 0 and the bound at margin 0
    out of sight (a sweep's --plot, seen by a review)."""
    from workbench.gui.charts import HIGH_END

    labels = ["body.mass (\u2212)", "engine.peak_torque (+)", "aero.cd (\u2212)"]
    note = ("centre: mean margin -480.5 rpm; dashed green: the bound (margin 0); (+): the margin grows with the "
            "parameter, (\u2212) shrinks, (=) stays")

    def right_end(notes) -> tuple[int, int]:
        chart = Chart("launch-shift: sensitivity of \u201cshift 1-2\u201d", "mean margin [rpm]", "", notes=notes,
                      bars=Bars(labels, np.array([-1384.0, -1217.0, -481.0]), np.array([74.8, 74.0, -480.0]), -480.5),
                      lines=[Line(0.0, axis="x", colour="#00ff00", dashed=False)])
        image = opened(render_png(chart, tmp_path / "tornado.png"))
        points = [(x, y) for x in range(image.width()) for y in range(0, image.height(), 2)]
        bars = max(x for x, y in points if image.pixelColor(x, y).name() == HIGH_END)  # the high ends, on the right
        bound = max(x for x, y in points if image.pixelColor(x, y).name() == "#00ff00")
        return bars, bound

    short = right_end(["short"])
    long = right_end([note])
    assert short[0] < Chart("w", "x", "y").width - 10 and short[0] > short[1]  # the bars end right of the bound
    assert abs(long[0] - short[0]) <= 20 and abs(long[1] - short[1]) <= 20


def test_a_chart_drawn_leaves_no_widget_behind(qapp, tmp_path):
    """Each chart's widget was left for an event loop a command never runs: 2.7 MB a chart, and `carbench replay
    --report` of a script with 2,000 expectations passed 2.9 GB."""
    from PySide6.QtWidgets import QApplication

    t = np.linspace(0.0, 10.0, 200)
    render_png(Chart(title="first", x_label="t", y_label="y", series=[Series(t, np.sin(t), "", "#1f77b4")]),
               tmp_path / "first.png")
    before = len(QApplication.allWidgets())
    for i in range(5):
        render_png(Chart(title=f"chart {i}", x_label="t", y_label="y", series=[Series(t, np.cos(t), "", "#1f77b4")]),
                   tmp_path / f"{i}.png")
    assert len(QApplication.allWidgets()) == before
    with pytest.raises(OSError):  # a chart that cannot be written leaves none either
        render_png(Chart(title="nowhere", x_label="t", y_label="y"), tmp_path / "no" / "such" / "folder.png")
    assert len(QApplication.allWidgets()) == before


def _dark(image: QImage) -> int:
    """Pixels as dark as a heatmap's boundary (#111), on a grid of every second pixel."""
    return sum(max(QColor(image.pixel(x, y)).getRgb()[:3]) < 40
               for x in range(0, image.width(), 2) for y in range(0, image.height(), 2))


def test_a_heatmaps_boundary_is_not_drawn_along_the_cells_without_a_value(qapp, tmp_path):
    """The cars without a verdict (grey) had the scale's bottom put under them for the boundary's trace, and every
    grey cell beside a failing one was outlined as a pass boundary. With no car on either side of the limit there is
    none; a KPI passing below its limit is green below it and red above."""
    values = np.array([[np.nan, 100.0, 120.0], [np.nan, 110.0, 130.0], [np.nan, np.nan, 140.0]])
    failing = Chart("ratio", "a", "b", heatmap=Heatmap(np.arange(3.0), np.arange(3.0), values, 35.0, "%",
                                                       passes_below=True))
    image = opened(render_png(failing, tmp_path / "failing.png"))
    assert _dark(image) < 20  # the axes' ticks and labels only: no boundary
    rgb = [QColor(image.pixel(x, y)).getRgb()[:3] for x in range(0, image.width(), 5) for y in range(0, image.height(), 5)]
    red = sum(r > 180 and g < 90 and b < 90 for r, g, b in rgb)
    green = sum(g > 120 and r < 90 and b < 120 for r, g, b in rgb)
    assert red > 200 and green < red / 5  # failing cells red (viridis or the margins' way round: none)
    mixed = np.array([[np.nan, 10.0, 60.0], [np.nan, 20.0, 70.0], [np.nan, 15.0, 80.0]])
    both = Chart("ratio", "a", "b", heatmap=Heatmap(np.arange(3.0), np.arange(3.0), mixed, 35.0, "%",
                                                    passes_below=True))
    assert _dark(opened(render_png(both, tmp_path / "both.png"))) > _dark(image) + 30  # the limit between them


def test_a_heatmaps_cells_take_their_sides_colours_and_the_boundary_runs_between_cells():
    """A margin of exactly 0 (a car that passes) came out the colour table's middle, the yellow of neither side, and
    the boundary was interpolated between the cells' centres, through a passing car's cell. Each cell is coloured by
    its side, pale at the boundary, and the boundary runs on the edges between a passing and a failing cell."""
    from workbench.gui.charts import FAIL_PALE, PASS_DARK, PASS_PALE, heat_colours, pass_boundary

    values = np.array([[-2.0, 0.0, 3.0], [-1.0, np.nan, 6.0]])
    rgba = heat_colours(values, 0.0, -6.0, 6.0)
    assert tuple(rgba[0, 1, :3]) == PASS_PALE and tuple(rgba[1, 2, :3]) == PASS_DARK  # 0 passes; 6 is the far end
    assert tuple(rgba[1, 1]) == (190, 190, 190, 255)  # no value: grey
    assert rgba[0, 0, 0] > rgba[0, 0, 1] and tuple(rgba[1, 0, :3]) != FAIL_PALE  # failing: red, darker away from 0
    edges = pass_boundary(values, 0.0)
    # between (0, 0) and (1, 0) only: (0, 1) fails beside a cell with no value, (1, 0) passes above one
    assert edges.tolist() == [[0.5, -0.5], [0.5, 0.5]]
    below = pass_boundary(np.array([[10.0, 40.0], [20.0, 30.0]]), 35.0, below=True)  # "<= 35 %": the 40 fails
    assert sorted(map(tuple, below.tolist())) == [(0.5, -0.5), (0.5, 0.5), (0.5, 0.5), (1.5, 0.5)]
    assert tuple(heat_colours(np.array([[35.0]]), 35.0, 0.0, 70.0, below=True)[0, 0, :3]) == PASS_PALE


def test_a_sweeps_margins_keep_their_pass_boundary_in_view_however_far_the_margins():
    """`sweep braking_stop --param brakes.force=2000:20000:7:log`: every margin 12.4 to 14.5 s, and the zero line, the
    pass boundary, was off the chart."""
    from physics.presets import scripts_dir
    from workbench.gui.charts import y_range
    from workbench.output.sweep_report import charts
    from workbench.runs.sweep import plan_sweep, run_sweep
    from workbench.scripts.format import load_script
    from workbench.scripts.program import compile_script

    program = compile_script(load_script(scripts_dir() / "braking_stop.toml"))
    result = run_sweep(plan_sweep(program, ["brakes.force=2000:20000:7:log"]))
    margins = dict(charts(result))["margins.png"]
    lo = min(float(np.nanmin(series.y)) for series in margins.series)
    hi = max(float(np.nanmax(series.y)) for series in margins.series)
    assert lo > 5.0  # far above the boundary: more than twice the margins' spread away
    assert y_range(margins, lo, hi)[0] <= 0.0


def test_a_titles_row_is_as_tall_as_its_lines_of_notes(qapp):
    """pyqtgraph fixes a plot's title row at 30 px: three lines of notes ran into the plot and the title off the top
    of the image (every tornado chart, the manoeuvre report's ISO 4138 chart)."""
    import pyqtgraph as pg

    from workbench.gui.charts import fit_title

    plot = pg.PlotItem(title="title<br><span style='font-size:9pt'>one</span><br><span style='font-size:9pt'>two"
                             "</span><br><span style='font-size:9pt'>three</span>")
    text = plot.titleLabel.item.boundingRect().height()
    assert text > 45 and fit_title(plot) >= text
    assert plot.titleLabel.maximumHeight() >= text  # (30 before)
    assert fit_title(pg.PlotItem(title="one line")) == 30


def test_the_legend_goes_half_way_up_where_curves_run_along_the_top_and_the_bottom():
    """A sweep's margins: one expectation's line along the top, three along the bottom, the legend of five entries
    a third of the plot high. Counted as a quarter, and a line drawn with its points counted by its points alone,
    the top right looked emptiest and the legend went over the top line; half-way up the right is clear."""
    from workbench.gui.charts import emptiest_corner

    x = np.linspace(200.0, 450.0, 6)
    top = Series(x, np.full(6, 0.0275), "launch", points=True)
    bottom = [Series(x, np.zeros(6), f"gear {g}", points=True) for g in (2, 3, 4)]
    chart = Chart("margins", "torque", "margin", [top, *bottom], bands=[Band(0.0, np.inf, "y", label="passes")],
                  lines=[Line(0.0)])
    assert emptiest_corner(chart, (200.0, 450.0), (-0.0014, 0.0289)) == "middle right"
    sparse = Chart("margins", "torque", "margin", [top])  # one entry: the top right's quarter holds the line
    assert emptiest_corner(sparse, (200.0, 450.0), (0.0, 0.0289)) != "top right"
