"""Plots: an axis per unit, sensible ranges, the channel menu, the crosshair, marks and export."""

import numpy as np
import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QImage

from physics import channel_infos
from workbench.gui.decimate import Decimator, peak_decimate
from workbench.gui.plot_panel import PAUSED_MARGIN
from workbench.gui.testing import drive, hold
from workbench.scripts.format import resolve_script


def test_channels_of_different_units_get_their_own_axis(carbench_window):
    window = carbench_window
    window.plots.set_channel_sets([["rpm", "engine_torque"]])
    hold(window, {"throttle"}, 600)
    row = window.plots.rows[0]
    assert [a.unit for a in row.axes] == ["rpm", "N m"]
    item = row.plot.getPlotItem()
    assert item.getAxis("left").labelText == "rpm" and item.getAxis("right").labelText == "N m"
    log = window.model.session.log
    torque = log.column("engine_torque")[-1200:]
    y0, y1 = row.axes[1].vb.viewRange()[1]
    assert y0 <= torque.min() and torque.max() <= y1
    assert (torque.max() - torque.min()) >= 0.5 * (y1 - y0)  # the torque fills its own axis


def test_axis_labels_fit(carbench_window):
    window = carbench_window
    window.plots.set_channel_sets([["yaw_rate", "vx"]])
    row = window.plots.rows[0]
    for axis in row.axes:
        label = axis.axis.label
        assert label.boundingRect().width() <= axis.axis.height() + 1  # rotated: its width runs along the axis
        assert "," not in axis.axis.labelText


@pytest.mark.carbench_preset("manual003")  # the values below are 003's car's
def test_a_flat_signal_gets_a_sensible_range(carbench_window):
    window = carbench_window
    window.plots.set_channel_sets([["fy_front"], ["rpm"]])
    hold(window, set(), 120)  # standing still: no lateral force, the engine idling
    y0, y1 = window.plots.rows[0].vb.viewRange()[1]
    assert y1 - y0 >= 1.0
    y0, y1 = window.plots.rows[1].vb.viewRange()[1]
    assert 50 <= y1 - y0 <= 400 and y0 < 1000 < y1


def test_a_signal_that_only_wanders_by_rounding_is_shown_flat_and_a_small_real_one_is_not(carbench_window):
    # A decay towards zero leaves values of 1e-10 deg/s or 4e-7 N: autoscaled, that noise would fill the plot.
    window = carbench_window
    window.plots.set_channel_sets([["fy_front"]])
    axis = window.plots.rows[0].axes[0]
    axis.fit(-2.0e-7, 4.0e-7)
    y0, y1 = axis.vb.viewRange()[1]
    assert y0 <= -1.0 and y1 >= 1.0
    axis.fit(1000.0, 1000.0 + 4.0e-7)  # the same spread on a large value
    y0, y1 = axis.vb.viewRange()[1]
    assert y0 <= 900.0 and y1 >= 1100.0
    axis.fit(0.0, 2.0e-3)  # a slip ratio of a few thousandths is signal: it fills its plot
    y0, y1 = axis.vb.viewRange()[1]
    assert y0 < 0.0 < 2.0e-3 < y1 and y1 - y0 < 4.0e-3


@pytest.mark.carbench_preset("manual003")  # the values below are 003's car's
def test_the_channel_menu_is_grouped_and_searchable(carbench_window):
    row = carbench_window.plots.rows[0]
    groups = [a.text() for a in row.menu.actions() if a.menu() is not None]
    assert groups[:3] == ["motion", "steering", "pedals"] and "tyres" in groups
    row.search.setText("torque")
    names = [a.data() for a in row.menu.actions() if a.data()]
    docs = {i.name: i.doc for i in channel_infos("m")}
    assert {"engine_torque", "axle_torque"} <= set(names) and len(names) < len(docs) / 4
    assert all("torque" in n or "torque" in docs[n] for n in names)  # by name or by description
    next(a for a in row.menu.actions() if a.data() == "axle_torque").setChecked(True)
    assert "axle_torque" in row.channels()
    row.search.clear()
    assert any(a.data() == "axle_torque" and a.isChecked() for a in row.channel_actions())
    # Opened again, the last search is selected: what is typed replaces it (it was appended: "speed_kmhfy_front")
    row.search.setText("speed_kmh")
    row._focus_search()
    assert row.search.selectedText() == "speed_kmh"
    row.search.insert("fy_front")
    assert row.search.text() == "fy_front"


def test_the_channel_menus_offer_what_the_car_on_show_computes(carbench_window):
    from physics.telemetry import channels_of

    window = carbench_window
    for name in ("teaching", "manual003", "sedan"):
        assert window.load_preset(name)
        row = window.plots.rows[0]
        offered = {a.data() for a in row.channel_actions()}
        computed = {i.name for i in channels_of(window.model.session.params)}
        assert offered == computed
        assert ("rpm" in offered) == (name != "teaching") and ("load_fl" in offered) == (name == "sedan")


def test_the_crosshair_hides_on_leave_and_never_goes_stale_or_prints_minus_zero(carbench_window):
    window = carbench_window
    window.plots.set_channel_sets([["steer"]])
    hold(window, {"left"}, 30)
    hold(window, {"right"}, 30)
    hold(window, set(), 240)
    plots = window.plots
    row = plots.rows[0]
    plots.show_cursor(window.model.session.log.frames * window.model.session.dt - 0.5)
    assert row.readout.isVisible()
    assert "-0 " not in row.readout.toPlainText() and "= -0\n" not in row.readout.toPlainText() + "\n"
    text = row.readout.toPlainText()
    hold(window, {"left"}, 120)  # the data moved under the crosshair: the readout follows
    assert row.readout.toPlainText() != text
    row.plot.leaveEvent(QEvent(QEvent.Type.Leave))
    assert not row.readout.isVisible() and not row.cursor.isVisible()


def test_export_png_svg_and_csv(carbench_window, tmp_path):
    window = carbench_window
    hold(window, {"throttle"}, 240)
    row = window.plots.rows[0]
    for kind in ("png", "svg", "csv"):
        window.plots.export(row, kind, str(tmp_path / f"plot.{kind}"))
    assert (tmp_path / "plot.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (tmp_path / "plot.svg").read_bytes()
    lines = (tmp_path / "plot.csv").read_text().splitlines()
    assert lines[0] == "t [s],speed_kmh [km/h]" and len(lines) == 241
    log = window.model.session.log
    assert float(lines[-1].split(",")[1]) == log.column("speed_kmh")[-1]


def test_an_exported_plot_above_the_bottom_one_has_its_time_axis(carbench_window, tmp_path):
    """Only the bottom plot draws the time axis on screen: an image of any other had none (a review under Xvfb). The
    export draws it, and the plot on screen is as it was after."""
    window = carbench_window
    hold(window, {"throttle"}, 240)
    top, bottom = window.plots.rows[0], window.plots.rows[-1]
    axis = top.plot.getPlotItem().getAxis("bottom")
    assert not axis.isVisible() and bottom.plot.getPlotItem().getAxis("bottom").isVisible()
    height = top.vb.height()
    window.plots.export(top, "svg", str(tmp_path / "top.svg"))
    window.plots.export(top, "png", str(tmp_path / "top.png"))
    assert b"time from the newest frame" in (tmp_path / "top.svg").read_bytes()
    image = QImage(str(tmp_path / "top.png"))
    # the axis' tick labels: dark pixels in the strip under the plot area, left to right
    strip = [x for x in range(image.width()) for y in range(image.height() - 30, image.height() - 3)
             if QColor(image.pixel(x, y)).lightness() < 100]
    assert strip and max(strip) - min(strip) > image.width() // 2
    assert not axis.isVisible() and top.vb.height() == height
    with window.plots._time_axis_shown(top):  # while exported: the axis drawn, the plot area as tall as on screen
        assert axis.isVisible() and abs(top.vb.height() - height) <= 1.0
    assert not axis.isVisible() and top.vb.height() == height


def test_whole_telemetry_to_csv_from_the_file_menu(carbench_window, tmp_path):
    window = carbench_window
    hold(window, {"throttle"}, 100)
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    assert window.export_csv_action in file_menu.actions()
    assert window.export_telemetry(tmp_path / "all.csv")
    lines = (tmp_path / "all.csv").read_text().splitlines()
    assert [c.split(" [")[0] for c in lines[0].split(",")] == window.model.session.log.names and len(lines) == 101


def test_expectations_are_drawn_on_their_channels_plot(carbench_window):
    window = carbench_window
    window.plots.set_channel_sets([["speed_kmh"], ["axle_torque"], ["rpm"]])
    verdicts = drive(window, "presets/scripts/clutch_coast.toml", chunk=24)
    import pyqtgraph as pg

    speed, torque, rpm = window.plots.rows
    assert any(isinstance(m, pg.LinearRegionItem) for m in torque.marks)  # a window is shaded
    assert not rpm.marks  # no expectation on rpm
    worst = [m for m in speed.marks if isinstance(m, pg.ScatterPlotItem)]
    speed_verdicts = [v for v in verdicts if v.expect.channel == "speed_kmh"]
    assert len(worst) == len(speed_verdicts)
    xs = sorted(float(m.data["x"][0]) + m.pos().x() + window.plots.origin for m in worst)  # drawn at t - origin
    assert xs == pytest.approx(sorted(v.time for v in speed_verdicts))
    bounds = [m for m in speed.marks if isinstance(m, pg.PlotCurveItem)]
    assert {float(b.getData()[1][0]) for b in bounds} == {v.expect.min for v in speed_verdicts if v.expect.min}


@pytest.mark.parametrize("size", [(1024, 640), (1500, 900)])
def test_expectation_dots_and_bounds_show_whole_inside_their_plot(carbench_window, qtbot, size):
    import pyqtgraph as pg
    from PySide6.QtCore import QPointF

    from workbench.gui.plot_panel import DOT

    window = carbench_window
    window.resize(*size)
    qtbot.wait(20)
    drive(window, "presets/scripts/clutch_coast.toml", chunk=64)
    window.model.set_running(False)
    window.model.set_view_frame(int(round(6.0 / window.model.session.dt)))  # the audit's frame: dots at the top
    qtbot.wait(20)
    speed = window.plots.rows[0]
    assert speed.channels() == ["speed_kmh"]
    area = speed.vb.sceneBoundingRect()
    (x0, x1), _ = speed.vb.viewRange()
    dots = bounds = 0
    for mark in speed.marks:
        if isinstance(mark, pg.ScatterPlotItem):
            x, y = float(mark.data["x"][0]), float(mark.data["y"][0])
            if not x0 <= x + mark.pos().x() <= x1:
                continue
            centre = mark.mapToScene(QPointF(x, y))
            half = DOT / 2
            assert area.adjusted(half, half, -half, -half).contains(centre), (y, centre, area)  # the whole dot
            dots += 1
        elif isinstance(mark, pg.PlotCurveItem):
            xs, ys = mark.getData()
            if xs[-1] + mark.pos().x() >= x0 and xs[0] + mark.pos().x() <= x1:
                y = mark.mapToScene(QPointF(float(xs[0]), float(ys[0]))).y()
                assert area.top() < y < area.bottom()  # the bound is on show
                bounds += 1
    assert dots >= 2 and bounds >= 2


def test_parameter_edits_and_set_events_are_marked(carbench_window, tmp_path):
    window = carbench_window
    hold(window, {"throttle"}, 120)
    window.model.set_param("engine.peak_torque", 400.0)
    hold(window, {"throttle"}, 60)
    import pyqtgraph as pg

    lines = [m for m in window.plots.rows[0].marks if isinstance(m, pg.InfiniteLine)]
    assert [round(line.value() + window.plots.origin, 6) for line in lines] == [round(120 * window.model.session.dt, 6)]
    assert window.recorder.timeline.marks == [120]
    script = tmp_path / "set.toml"
    script.write_text('''[script]
name = "set"
preset = "sedan"
duration = 2.0

[[hold]]
keys = ["throttle"]
from = 0.0
to = 2.0

[[set]]
at = 1.0
params = { "engine.peak_torque" = 200.0 }
''')
    drive(window, script, chunk=24)
    lines = [m for m in window.plots.rows[0].marks if isinstance(m, pg.InfiniteLine)]
    assert [line.value() + window.plots.origin for line in lines] == pytest.approx([1.0])
    assert window.recorder.timeline.marks == [round(1.0 / window.model.session.dt)]


def test_cached_decimation_equals_decimating_afresh():
    rng = np.random.default_rng(1)
    t = np.arange(20000) / 120.0
    y = np.cumsum(rng.normal(size=20000))
    dec = Decimator()
    for end in range(3000, 20000, 997):
        start = max(0, end - 9000)
        per = 12
        x, v, lo, hi = dec.window(t, y, start, end, per, "s")
        b0, b1 = -(-start // per), end // per
        ref_x, ref_y = peak_decimate(t[b0 * per:b1 * per], y[b0 * per:b1 * per], 2 * (b1 - b0))
        assert np.array_equal(x[(b0 * per - start):(b0 * per - start) + len(ref_x)], ref_x)
        assert np.array_equal(v[(b0 * per - start):(b0 * per - start) + len(ref_y)], ref_y)
        assert (lo, hi) == (y[start:end].min(), y[start:end].max())


def _plot_area_in_global(row):
    """The plot area (the main ViewBox) of a plot as global screen x from, x to."""
    from PySide6.QtCore import QPoint

    rect = row.vb.sceneBoundingRect()
    view = row.plot
    left = view.mapToGlobal(view.mapFromScene(rect.topLeft()))
    right = view.mapToGlobal(view.mapFromScene(rect.topRight()))
    assert isinstance(left, QPoint)
    return left.x(), right.x()


def _right_tick_pens(row) -> set:
    from PySide6.QtGui import QImage, QPainter

    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _, ticks, _ = row.plot.getPlotItem().getAxis("right").generateDrawSpecs(painter)
    finally:
        painter.end()
    return {pen.style() for pen, _, _ in ticks}


def test_the_time_axes_of_every_plot_line_up_to_the_pixel(carbench_window, qtbot):
    from workbench.gui.testing import hold

    window = carbench_window
    window.plots.set_channel_sets([["speed"], ["yaw_rate", "steer"], ["rpm", "engine_torque", "throttle"], ["gear"]])
    hold(window, {"throttle"}, 30)
    qtbot.wait(20)
    rows = window.plots.rows
    assert len(rows[2].axes) == 3  # two axes on the right in the third plot
    extents = [_plot_area_in_global(row) for row in rows]
    assert len(set(extents)) == 1, extents
    assert extents[0][1] - extents[0][0] > 50
    # the room kept on the right of a one-unit plot is blank: no tick marks (they showed as dashes)
    assert _right_tick_pens(rows[0]) == {Qt.PenStyle.NoPen}
    assert Qt.PenStyle.SolidLine in _right_tick_pens(rows[1])
    window.plots.set_channel_sets([["speed"], ["yaw_rate", "steer"]])
    hold(window, set(), 2)
    qtbot.wait(20)
    extents = [_plot_area_in_global(row) for row in window.plots.rows]
    assert len(set(extents)) == 1, extents


def test_the_plot_export_dialog_opens_where_the_last_export_went(carbench_window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    window = carbench_window
    hold(window, {"throttle"}, 60)
    asked = []
    answers = iter([str(tmp_path / "telemetry" / "all.csv"), str(tmp_path / "plots" / "speed.svg"), ""])

    def save_dialog(parent, caption, start, filters, *rest):
        asked.append(start)
        return next(answers), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_dialog)
    (tmp_path / "telemetry").mkdir()
    (tmp_path / "plots").mkdir()
    assert window.export_telemetry_dialog()
    row = window.plots.rows[0]
    row.export_requested.emit("svg")  # the plot's export menu: Plot as SVG...
    assert asked[1] == str((tmp_path / "telemetry" / "speed_kmh.svg").resolve())  # the last export's folder
    assert b"<svg" in (tmp_path / "plots" / "speed.svg").read_bytes()
    assert not window.export_telemetry_dialog()  # cancelled: it opened where the plot went
    assert asked[2] == str((tmp_path / "plots" / "telemetry.csv").resolve())


def test_a_save_dialogs_name_gets_its_kinds_suffix_and_another_suffix_is_refused(carbench_window, tmp_path,
                                                                                 monkeypatch):
    # A plot's PNG went into "wrong.csv" and "noext" without a word, and a preset saved as "mine" was not listed
    # by the Load dialog's *.toml filter.
    from PySide6.QtWidgets import QFileDialog

    window = carbench_window
    hold(window, {"throttle"}, 60)
    answers = iter([str(tmp_path / "noext"), str(tmp_path / "wrong.csv"), str(tmp_path / "mine"),
                    str(tmp_path / "mine"), str(tmp_path / "mine"), str(tmp_path / "sedan.v2"), str(tmp_path / "trail."),
                    str(tmp_path / "kept.toml."), str(tmp_path / "other.csv.")])
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda parent, caption, start, filters, *rest: (next(answers), ""))
    errors, questions = [], []
    monkeypatch.setattr(window, "show_error", lambda title, text: errors.append(text))
    row = window.plots.rows[0]
    row.export_requested.emit("png")
    assert (tmp_path / "noext.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    row.export_requested.emit("png")
    assert not (tmp_path / "wrong.csv").exists()
    assert errors == [f"{tmp_path / 'wrong.csv'}: this is written as a .png file; give it a name ending in .png"]
    assert window.save_preset_dialog() and (tmp_path / "mine.toml").is_file()
    # "mine.toml" is not the name the dialog asked about replacing: asked here
    monkeypatch.setattr(window, "ask_yes_no", lambda title, text: questions.append(text) or False)
    before = (tmp_path / "mine.toml").stat().st_mtime_ns
    assert not window.save_preset_dialog()
    assert questions == [f"{tmp_path / 'mine.toml'} already exists. Replace it?"]
    assert (tmp_path / "mine.toml").stat().st_mtime_ns == before
    monkeypatch.setattr(window, "ask_yes_no", lambda title, text: True)
    assert window.save_preset_dialog()
    assert window.save_preset_dialog() and (tmp_path / "sedan.v2.toml").is_file()  # a point in the name is the name's
    assert window.save_preset_dialog() and (tmp_path / "trail.toml").is_file()  # a point at its end is the suffix's
    assert not (tmp_path / "trail..toml").exists()
    assert window.save_preset_dialog() and (tmp_path / "kept.toml").is_file()  # not "kept.toml.toml"
    assert not window.save_preset_dialog() and not list(tmp_path.glob("other*"))  # another kind: refused


def test_the_window_shows_channels_by_the_one_table_of_display_units():
    # The window's surfaces (plots, telemetry table, compare, sweep and recorder docks) take the unit a channel is
    # shown in from physics.units, as the command line and the reports do: there is no second table to drift.
    # The window writes powers as superscripts (m/s\u00b2, as the parameter panel always did); the unit and factor are
    # the table's.
    from physics import channel_infos
    from physics.units import display_of
    from workbench.gui import plot_panel
    from workbench.gui.plot_style import pretty_unit

    assert not hasattr(plot_panel, "_DISPLAY")
    for unit in ("m", "px"):
        for info in channel_infos(unit):
            shown, factor = plot_panel.display_unit(info)
            assert (shown.translate(str.maketrans({"\u00b2": "^2"})), factor) == display_of(info)
            assert "^" not in shown
    (accel,) = [i for i in channel_infos("m") if i.name == "accel_long"]
    assert plot_panel.display_unit(accel)[0] == "m/s\u00b2"
    assert [pretty_unit(u) for u in ("kg m^2", "kg/m^3", "m^-1", "deg/s")] == ["kg m\u00b2", "kg/m\u00b3", "m\u207b\u00b9",
                                                                              "deg/s"]


def test_a_new_run_with_no_frames_yet_does_not_keep_the_last_runs_range(carbench_window):
    """A script loaded after a drive to 60 km/h: until its first frame the speed plot kept the drive's range, ticks
    up to 60 over an empty plot."""
    window = carbench_window
    window.plots.set_channel_sets([["speed_kmh"]])
    hold(window, {"throttle"}, 360)
    axis = window.plots.rows[0].axes[0]
    assert axis.vb.viewRange()[1][1] > 20.0
    window.load_script(resolve_script("clutch_coast"))
    assert window.model.session.log.frames == 0
    window.plots.refresh()
    assert tuple(axis.vb.viewRange()[1]) == (-1.0, 1.0)
    hold(window, {"throttle"}, 120)  # the new run's data grows it at once
    top = window.model.session.log.column("speed_kmh").max()
    y0, y1 = axis.vb.viewRange()[1]
    assert y0 <= 0.0 and top <= y1 < 4 * max(top, 1.0)


def test_pausing_and_stepping_back_keeps_the_live_window_and_an_earlier_frame_is_centred(carbench_window):
    """Paused and stepped back one frame, the time axis went from -10..0 to -5..+5: half of every plot was empty
    future."""
    window = carbench_window
    hold(window, {"throttle"}, 1800)  # 15 s
    span = window.plots.span()
    live = window.plots.view
    dt = window.model.session.dt
    newest = (window.model.session.log.frames - 1) * dt
    assert live == pytest.approx((newest - span, newest))
    window.model.set_running(False)
    window.model.set_view_frame(window.model.session.log.frames - 2)
    window.plots.refresh()
    margin = PAUSED_MARGIN * span  # where a dot on the newest frame is drawn whole
    assert window.plots.view == pytest.approx((live[0] + margin, live[1] + margin))
    window.model.set_view_frame(300)  # 2.5 s: in the middle of the window on show
    window.plots.refresh()
    a, b = window.plots.view
    assert b - a == pytest.approx(span) and a < 300 * dt < b and b <= newest + margin + 1e-9


def test_a_small_wander_on_a_large_value_is_shown_at_a_hundredth_of_it(carbench_window):
    # An idling engine wandering 0.15 rpm about 800 was ranged to its wander: ticks of "800.05" ran into the axis
    # title. At least 1% of the value is shown, about the middle, so the ticks are whole rpm.
    window = carbench_window
    window.plots.set_channel_sets([["rpm"]])
    axis = window.plots.rows[0].axes[0]
    axis.fit(800.0, 800.15)
    y0, y1 = axis.vb.viewRange()[1]
    assert y1 - y0 >= 8.0 and y0 < 800.0 and 800.15 < y1
    assert abs(0.5 * (y0 + y1) - 800.075) < 1.0
    ticks = axis.axis.tickValues(y0, y1, max(float(axis.vb.height()), 100.0))
    labels = axis.axis.tickStrings(ticks[0][1], 1.0, ticks[0][0])
    assert labels and all("." not in text for text in labels)
    axis.fit(800.0, 830.0)  # a real swing is still fitted to itself
    y0, y1 = axis.vb.viewRange()[1]
    assert y1 - y0 < 40.0


def test_units_past_the_third_share_its_axis_and_its_label_names_them(carbench_window):
    """fy_front (N) and throttle (1) were drawn on the third axis labelled "m/s²" alone, which read +-4500 (a review
    under Xvfb). The shared axis' label names every unit drawn on it."""
    window = carbench_window
    window.plots.set_channel_sets([["rpm", "speed_kmh", "accel_lat", "throttle", "fy_front"]])
    hold(window, {"throttle"}, 60)
    row = window.plots.rows[0]
    assert len(row.axes) == 3 and [a.unit for a in row.axes[:2]] == ["rpm", "km/h"]
    label = row.axes[-1].axis.labelText
    assert all(unit in label for unit in ("m/s", "(1)", "N")), label
    assert row.axis_of("fy_front") is row.axes[-1] and row.axis_of("throttle") is row.axes[-1]
    window.plots.set_channel_sets([["rpm", "speed_kmh"]])  # fewer units again: the axis its own label
    assert window.plots.rows[0].axes[-1].axis.labelText == "km/h"


@pytest.mark.parametrize("size", [(1024, 640), (1400, 900)])
def test_a_plot_of_many_channels_keeps_the_panel_within_its_dock(carbench_window, size):
    """A plot of seven or eight channels asked for its whole title's width: every plot of the panel grew past the
    dock (619 px in 489), and the newest seconds, the right axis and each row's buttons were cut off. The title
    names fewer ("+5 more") where the row has no room, all of them in its tooltip."""
    from PySide6.QtWidgets import QApplication

    window = carbench_window
    window.resize(*size)
    many = ["rpm", "slip_front", "slip_rear", "fy_front", "fy_rear", "load_front", "load_rear", "accel_lat"]
    window.plots.set_channel_sets([["speed"], many])
    hold(window, {"throttle", "left"}, 240)
    QApplication.processEvents()
    scroll = window.plots.scroll
    assert scroll.widget().width() <= scroll.viewport().width()
    row = window.plots.rows[1]
    assert row.geometry().right() <= scroll.viewport().width()
    title = row.title
    if "more" in title.text():
        shown = [n for n in many if f" {n}" in title.text()]
        assert 0 < len(shown) < len(many) and f"+{len(many) - len(shown)} more" in title.text()
    assert title.toolTip() == ", ".join(many)


def test_a_title_keeps_only_forms_narrower_than_the_one_before(carbench_window):
    """Two short names: "x +1 more" is wider than "x y", and the title asked for that wider form's width as its
    least (it could never be chosen)."""
    from workbench.gui.plot_rows import RowTitle, fewer

    title = RowTitle()
    forms = fewer(["x", "y"], "&nbsp;&nbsp;")
    title.set_forms(forms)
    assert title.forms[0] == forms[0]
    widths = [title._measure(f) for f in title.forms]
    assert widths == sorted(widths, reverse=True) and len(set(widths)) == len(widths)
    assert title.minimumSizeHint().width() <= title._measure(forms[0])
    many = fewer([f"channel_{k}" for k in range(6)], "&nbsp;&nbsp;")
    title.set_forms(many)
    assert title.forms[0] == many[0] and title.forms[-1] == many[-1] and len(title.forms) > 2
