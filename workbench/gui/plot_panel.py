"""Live plots: stacked pyqtgraph plots of chosen channels over a scrolling time window.

Curves are created once per chosen channel and only ``setData`` is called on each refresh, with
the history in the window peak-decimated to about one point per pixel column; the decimation is
kept between refreshes (see :mod:`workbench.gui.decimate`), so a 600 s window costs what a 10 s
one does. The plots share one time range: the wheel or a right drag zooms them all, a
double-click or "fit" resets it. A left click or drag moves the time cursor (the frame every
panel shows); a crosshair follows the mouse and reads out every curve in the axis' time base.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QIODevice, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from physics import ChannelInfo
from physics.telemetry import channels_of
from physics.units import display_of
from workbench.gui.charts import inside_length
from workbench.gui.decimate import peak_decimate  # noqa: F401 (re-exported: the bench and tests use it)
from workbench.gui.plot_rows import (
    DELTA_TEXT,
    SAMPLE_LENGTH,
    PlotRow,
    align_zeros,
    delta_pen,
    draw_sample,
    sample_colour,
    sample_height,
)
from workbench.gui.plot_style import TEXT, pretty_unit
from workbench.gui.session_model import SessionModel
from workbench.output.files import atomic_write_bytes, atomic_write_text

DEFAULT_PLOTS = [["speed_kmh"], ["rpm"], ["yaw_rate", "steer"], ["fy_front", "fy_rear"]]
# Where a car lacks a channel (km/h on a pixel car) its nearest stands in.
STAND_INS = {"speed_kmh": "speed"}
EDIT = (230, 120, 0)
BOUND = (150, 40, 160)
DOT = 9  # [px] an expectation's worst-value dot
DOT_ROOM = DOT / 2 + 2  # [px] kept free above and below the data of a plot with expectations: a whole dot


def default_plots(params) -> list[list[str]]:
    """Plots that suit the car: engine speed for a manual car, drive and brake forces otherwise."""
    speed = "speed_kmh" if params.model.unit == "m" else "speed"
    second = ["rpm"] if params.manual else ["drive_force", "brake_force"]
    fourth = ["fy_front", "fy_rear"] if params.kind == "dynamic" else ["curvature"]
    return [[speed], second, ["yaw_rate", "steer"], fourth]


def display_unit(info) -> tuple[str, float]:
    """The unit a channel is shown in, as the window writes it (m/s\u00b2), and the factor from its SI value: the one
    table (physics.units) every surface uses."""
    unit, factor = display_of(info)
    return pretty_unit(unit), factor


def format_value(value: float) -> str:
    """A readout: four significant digits, never ``-0``."""
    text = f"{value + 0.0:.4g}"
    return "0" if text in ("-0", "-0.0") else text


PLOT_MIN_HEIGHT = 36  # [px] a plot's least height (its ticks thinned so as never to overlap)
AXIS_ENDS = 2  # [px] a plot's height less its vertical axes' length (without the time axis)
TIME_AXIS_HEIGHT = 32  # [px] the time axis and its tick labels, under the bottom plot
MAX_PLOTS = 12  # plots in the panel at most ("+ plot" stops there)
ROWS_BEFORE_SCROLLING = 4  # the panel holds this many plots at their least height; more scroll, and the window
#   keeps its least height (seven plots made it 724 px tall: taller than a 1024 x 640 screen)



def _place(mark, origin: float) -> None:
    """Put a mark drawn in the run's time where the axis shows it (at t - origin)."""
    x = getattr(mark, "carbench_x", None)
    if isinstance(mark, pg.InfiniteLine) and x is not None:
        mark.setValue(x - origin)
    elif isinstance(mark, pg.LinearRegionItem) and x is not None:
        mark.setRegion((x[0] - origin, x[1] - origin))
    elif getattr(mark, "carbench_shift", False):  # a curve or a scatter drawn in the run's time
        mark.setPos(-origin, 0.0)


EXPORT_FILTERS = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)", "csv": "CSV table (*.csv)"}


PAUSED_MARGIN = 0.03
"""Paused, the time axis runs this share of its span past the newest frame (a dot drawn on it stays whole)."""


def curve_length_in(row: PlotRow, box: QRectF, references: Sequence = ()) -> float:
    """How much of ``row``'s curves on show, and of ``references`` (the pinned runs' curves on it), lies in ``box``:
    scene pixels of line, each curve against its own axis' view box (gui.charts.inside_length, as a chart places its
    legend). Counting the points as decimated for drawing, a fast stretch with few points weighed less than it shows,
    and the references were not counted: the readout went over a reference's rise."""
    length = 0.0
    for curve in [*row.curves.values(), *references]:
        if not curve.isVisible():
            continue
        x, y = curve.getData()
        vb = curve.getViewBox()
        if x is None or not len(x) or vb is None:
            continue
        (vx0, vx1), (vy0, vy1) = vb.viewRange()
        rect = vb.sceneBoundingRect()
        if vx1 <= vx0 or vy1 <= vy0:
            continue
        px = rect.left() + (np.asarray(x, dtype=float) + curve.pos().x() - vx0) / (vx1 - vx0) * rect.width()
        py = rect.top() + (vy1 - np.asarray(y, dtype=float) - curve.pos().y()) / (vy1 - vy0) * rect.height()
        length += inside_length(px, py, (box.left(), box.right(), box.top(), box.bottom()))
    return length


def readout_at_top(row: PlotRow, right: bool, references: Sequence = ()) -> bool:
    """Whether the crosshair's readout goes in the plot's top corner (else the bottom one), on the right or the left:
    where it covers less of the curves (the run's and the pinned runs'), the top among equals."""
    size = row.readout.textItem.boundingRect().size()
    rect = row.vb.sceneBoundingRect()
    left = rect.right() - size.width() if right else rect.left()
    at_top = QRectF(left, rect.top(), size.width(), size.height())
    at_bottom = QRectF(left, rect.bottom() - size.height(), size.width(), size.height())
    return curve_length_in(row, at_top, references) <= curve_length_in(row, at_bottom, references)


class PlotPanel(QWidget):
    """A stack of plots sharing the time axis; ``watch_requested`` names a channel to pin in the watch list,
    ``export_requested`` a plot to export (the window asks where, as for its other files)."""

    watch_requested = Signal(str)
    export_requested = Signal(object, str)  # a PlotRow and "png", "svg" or "csv"
    rows_changed = Signal()  # a plot was added or removed (emitted after the panel has drawn it)

    def __init__(self, model: SessionModel, plots: list[list[str]] | None = None, window: float = 10.0, parent=None):
        super().__init__(parent)
        self._model = model
        # While a row shows B\u2212A, its differences at given times (the compare overlay, which draws them, sets it):
        # (row, absolute times [s]) -> [(channel, pinned run's name, values in the channel's display unit)].
        self.differences_at: Callable[[PlotRow, np.ndarray], list[tuple[str, str, np.ndarray]]] | None = None
        # The pinned runs' curves on a row (the overlay sets it), which the crosshair's readout keeps clear of.
        self.reference_curves: Callable[[PlotRow], list] | None = None
        self.window = QDoubleSpinBox()
        self.window.setRange(1.0, 600.0)
        self.window.setDecimals(1)
        self.window.setSuffix(" s")
        self.window.setValue(window)
        self.window.setToolTip("length of the scrolling time window")
        self.window.valueChanged.connect(self._on_window_changed)
        self.absolute = QCheckBox("absolute")
        self.absolute.setToolTip("time on the x-axis from the start of the run, instead of from the newest frame")
        self.absolute.toggled.connect(self._on_time_base_changed)
        fit = QToolButton()
        fit.setText("fit")
        fit.setToolTip("reset the zoom of the time axis (or double-click a plot)")
        fit.clicked.connect(self._on_fit_clicked)
        add, remove = QToolButton(), QToolButton()
        self._add_button, self._remove_button = add, remove
        add.setText("+ plot")
        add.setToolTip(f"add a plot (up to {MAX_PLOTS})")
        remove.setText("- plot")
        remove.setToolTip("remove the bottom plot (one stays)")
        add.clicked.connect(self._on_add_clicked)
        remove.clicked.connect(self._on_remove_clicked)
        for w in (self.absolute, fit, add, remove):
            w.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        bar = self.bar = QHBoxLayout()  # (the comparer's overlay puts the references' key on a line under it)
        bar.setContentsMargins(4, 2, 4, 2)
        bar.addWidget(QLabel("window"))
        bar.addWidget(self.window)
        bar.addWidget(fit)
        bar.addWidget(self.absolute)
        bar.addStretch(1)
        bar.addWidget(add)
        bar.addWidget(remove)
        rows = QWidget()
        rows.setObjectName("plot rows")
        self._rows_layout = QVBoxLayout(rows)
        self._rows_layout.setContentsMargins(0, 0, 0, 0)
        self._rows_layout.setSpacing(2)
        self.scroll = QScrollArea()  # the plots share its height; past ROWS_BEFORE_SCROLLING of them it scrolls
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(rows)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.scroll, 1)
        self.rows: list[PlotRow] = []
        self.origin = 0.0  # [s] the absolute time at x = 0 (the newest frame, or 0 in absolute time)
        self.view = (0.0, 0.0)  # [s] the absolute time range on show
        self._zoom: float | None = None  # [s] a zoomed span (None: the window)
        self._paused_view: tuple[float, float] | None = None
        self._cursor_t: float | None = None  # the crosshair's absolute time
        self._mouse = None  # (row, scene position) of the mouse's last move over a plot
        self._log = None
        self._marks_key = None
        self._marks_origin: float | None = None
        self._defaults = default_plots(model.session.params)
        self._menu_infos = self.menu_infos()
        for channels in (plots or self._defaults)[:MAX_PLOTS]:  # (a saved layout: set_channel_sets)
            self.add_plot(channels)
        model.stepped.connect(self._on_stepped)
        model.view_frame_changed.connect(self._on_view_frame_changed)
        model.preset_loaded.connect(self._on_preset_loaded)
        model.params_changed.connect(self._on_params_changed)
        model.script_loaded.connect(self._on_script_loaded)

    def infos(self) -> list[ChannelInfo]:
        return self._model.session.log.infos

    def menu_infos(self) -> list[ChannelInfo]:
        """The channels the plots' menus offer: those the car on show computes (the Telemetry table's list)."""
        return channels_of(self._model.session.params)

    def unit_of(self, info: ChannelInfo) -> str:
        return display_unit(info)[0]

    def stand_in(self, name: str) -> str:
        names = {i.name for i in self.infos()}
        return name if name in names else STAND_INS.get(name, name)

    # -- layout ------------------------------------------------------------------------------------

    def add_plot(self, channels: list[str]) -> PlotRow:
        """A plot of ``channels`` under the others; ValueError past MAX_PLOTS."""
        if len(self.rows) >= MAX_PLOTS:
            raise ValueError(f"the panel holds at most {MAX_PLOTS} plots")
        row = PlotRow(self, channels)
        row.build_menu(self._menu_infos)
        row.plot.scene().sigMouseMoved.connect(lambda pos, r=row: self._on_mouse_moved(r, pos))
        row.channels_changed.connect(self._on_channels_changed)
        row.vb.picked.time.connect(self._on_time_picked)
        row.vb.picked.reset.connect(self.reset_zoom)
        row.vb.sigRangeChangedManually.connect(lambda *a, r=row: self._on_zoomed(r))
        row.export_requested.connect(lambda kind, r=row: self.export_requested.emit(r, kind))
        row.watch_requested.connect(self.watch_requested)
        self.rows.append(row)
        self._rows_layout.addWidget(row, 1)
        self._label_time_axis()
        self._marks_key = None
        self.refresh()
        self.rows_changed.emit()
        return row

    def _label_time_axis(self) -> None:
        """Only the bottom plot draws the shared time axis (in seconds); the others just their grid."""
        label = "time [s]" if self.absolute.isChecked() else "time from the newest frame [s]"
        for i, row in enumerate(self.rows):
            item = row.plot.getPlotItem()
            last = i == len(self.rows) - 1
            if last:
                item.setLabel("bottom", label)  # (setLabel also shows the axis)
            item.showAxis("bottom", last)
            # the bottom plot also holds the time axis: its plot area stays as tall as the others'
            row.plot.setMinimumHeight(PLOT_MIN_HEIGHT + (TIME_AXIS_HEIGHT if last else 0))
        # The scroll area asks for the first rows' least height (and the time axis): with up to
        # ROWS_BEFORE_SCROLLING plots the panel is as tall at least as without it; with more, they scroll.
        held = self.rows[:ROWS_BEFORE_SCROLLING]
        least = sum(row.minimumSizeHint().height() for row in held) + self._rows_layout.spacing() * (len(held) - 1)
        if len(self.rows) > len(held):
            least += TIME_AXIS_HEIGHT
        self.scroll.setMinimumHeight(least)
        # Its width is the rows' least width (a scroll area's own least size leaves its widget out, and with no
        # horizontal scroll bar a narrow dock would cut the rows' right ends).
        self.scroll.setMinimumWidth(self.scroll.widget().minimumSizeHint().width()
                                    + self.scroll.verticalScrollBar().sizeHint().width())
        self._add_button.setEnabled(len(self.rows) < MAX_PLOTS)
        self._remove_button.setEnabled(len(self.rows) > 1)  # the last plot stays: "- plot" did nothing there
        self._fit_plot_heights()
        self._balance_rows()

    def _fit_plot_heights(self) -> None:
        """Past ROWS_BEFORE_SCROLLING plots (they scroll), every plot at least as tall as the longest unit on their
        axes needs to show whole (written as small as LabelFit writes it), and the bottom one that and its time axis
        as drawn: at the least height of 36 px the parking car's force unit "kg px/s\u00b2" read "kg p\u2026", and the
        bottom plot area was 28 px beside the others' 34. Up to ROWS_BEFORE_SCROLLING plots the least heights stay as
        _label_time_axis sets them (the window's least height is theirs)."""
        bottom = self.rows[-1].plot.getPlotItem().getAxis("bottom") if self.rows else None
        if bottom is not None and bottom.isVisible():  # as laid out (a plot just added has not been yet)
            self._time_axis = max(getattr(self, "_time_axis", TIME_AXIS_HEIGHT), math.ceil(bottom.height()))
        if len(self.rows) <= ROWS_BEFORE_SCROLLING:
            return
        lengths = [y.axis.whole_title_length() for row in self.rows for y in row.axes
                   if hasattr(y.axis, "whole_title_length")]
        least = max([PLOT_MIN_HEIGHT] + [math.ceil(length) + AXIS_ENDS for length in lengths])
        time_axis = getattr(self, "_time_axis", TIME_AXIS_HEIGHT)
        for i, row in enumerate(self.rows):
            height = least + (time_axis if i == len(self.rows) - 1 else 0)
            if row.plot.minimumHeight() != height:
                row.plot.setMinimumHeight(height)

    def _balance_rows(self) -> None:
        """Share the height so that every plot area is alike: the bottom plot gets its time axis on top of
        what each gets (with equal stretch the layout gave every row the same height, and on a short panel
        the bottom row only its least, 28 px of plot area beside the others' 42)."""
        if not self.rows:
            return
        n = len(self.rows)
        bottom = self.rows[-1].plot.getPlotItem().getAxis("bottom")
        axis = max(int(bottom.height()), TIME_AXIS_HEIGHT) if bottom.isVisible() else TIME_AXIS_HEIGHT
        total = self._rows_layout.geometry().height() or self.height()
        each = max((total - axis) / n, 1.0)
        for i, row in enumerate(self.rows):
            share = each + (axis if i == n - 1 else 0)
            self._rows_layout.setStretchFactor(row, max(int(round(10 * share)), 1))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_plot_heights()  # (the time axis as laid out)
        self._balance_rows()

    def _on_add_clicked(self, checked: bool = False) -> None:
        if len(self.rows) < MAX_PLOTS:
            self.add_plot(["speed"])

    def _on_remove_clicked(self, checked: bool = False) -> None:
        self.remove_plot()

    def remove_plot(self) -> None:
        if len(self.rows) > 1:
            row = self.rows.pop()
            self._rows_layout.removeWidget(row)
            row.hide()  # gone now, not when the event loop gets round to deleting it
            row.deleteLater()
            self._label_time_axis()
            self.rows_changed.emit()

    def channel_sets(self) -> list[list[str]]:
        return [row.channels() for row in self.rows]

    def set_channel_sets(self, sets: list[list[str]]) -> None:
        """One plot per entry of ``sets``, each showing those channels (the first MAX_PLOTS of them)."""
        sets = list(sets)[:MAX_PLOTS]
        while len(self.rows) > max(len(sets), 1):
            self.remove_plot()
        for i, channels in enumerate(sets):
            if i < len(self.rows):
                self.rows[i].set_channels(channels)
            else:
                self.add_plot(channels)
        self._fit_plot_heights()
        self._marks_key = None
        self.refresh()

    # -- model events ------------------------------------------------------------------------------

    def _on_stepped(self) -> None:
        self.refresh()

    def _on_view_frame_changed(self, frame: int) -> None:
        self.refresh()

    def _on_window_changed(self, value: float) -> None:
        self._zoom = None
        self._paused_view = None
        self.refresh()

    def _on_time_base_changed(self, absolute: bool) -> None:
        self._label_time_axis()
        self._marks_key = None
        for row in self.rows:
            row.x_range = None
        self.refresh()

    def _on_channels_changed(self) -> None:
        self._marks_key = None
        self._fit_plot_heights()  # another unit on an axis
        self.refresh()

    def _on_params_changed(self, path: str) -> None:
        self._marks_key = None  # an edit: a new mark

    def _on_script_loaded(self, name: str) -> None:
        self._marks_key = None

    def _on_preset_loaded(self, name: str) -> None:
        if self.channel_sets() == self._defaults:
            # Untouched defaults follow the car (engine speed for a manual car, forces otherwise).
            self._defaults = default_plots(self._model.session.params)
            self.set_channel_sets(self._defaults)
        infos = self.menu_infos()
        if infos != self._menu_infos:  # another car's channels (a script on the same car keeps them)
            self._menu_infos = infos
            for row in self.rows:
                row.set_channels(row.channels())
                row.build_menu(infos)
            self._fit_plot_heights()  # the units of another car (px)
        self._marks_key = None
        self.refresh()

    # -- the time range ----------------------------------------------------------------------------

    def span(self) -> float:
        return self._zoom if self._zoom is not None else self.window.value()

    def _on_fit_clicked(self, checked: bool = False) -> None:
        self.reset_zoom()

    def reset_zoom(self) -> None:
        self._zoom = None
        self._paused_view = None
        self.refresh()

    def _on_zoomed(self, row: PlotRow) -> None:
        """The user zoomed one plot (wheel or right drag): every plot takes its time range."""
        x0, x1 = row.vb.viewRange()[0]
        if not x1 > x0:
            return
        self._zoom = min(max(x1 - x0, 10 * self._model.session.dt), 600.0)
        if self._model.view_frame is not None:
            self._paused_view = (x0 + self.origin, x1 + self.origin)
        self.refresh()
        if self._cursor_t is not None and self._mouse is not None:
            self._on_mouse_moved(*self._mouse)  # the mouse stayed put: it now points at another time

    def _on_time_picked(self, x: float) -> None:
        """A click or drag in a plot: the time cursor goes there (and the run pauses)."""
        dt = self._model.session.dt
        if self._model.session.log.frames == 0:
            return
        self._model.set_running(False)
        self._model.set_view_frame(int(round((x + self.origin) / dt)))

    def _time_range(self) -> tuple[float, float]:
        """The absolute times on show: the newest ``span`` seconds live; paused, a window around the
        frame on show that stays put while that frame stays well inside it (so a drag is steady)."""
        dt = self._model.session.dt
        newest = max(self._model.session.log.frames - 1, 0) * dt
        span = self.span()
        if self._model.view_frame is None:
            self._paused_view = None
            return newest - span, newest
        shown = self._model.shown_frame() * dt
        view = self._paused_view
        if view is None or abs((view[1] - view[0]) - span) > 1e-9 or not (
                view[0] + 0.02 * span <= shown <= view[1] - 0.02 * span):
            if view is not None and abs((view[1] - view[0]) - span) <= 1e-9 and view[0] <= shown <= view[1]:
                return view
            # Centred on the frame on show, but not past the newest frame (by more than a margin, where an
            # expectation's dot on the last frame is drawn whole) while it is in the newest half: stepping back one
            # frame, the plots had jumped to half a window of empty future.
            start = min(shown - span / 2, newest + PAUSED_MARGIN * span - span)
            view = (start, start + span)
        self._paused_view = view
        return view

    # -- drawing -----------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Draw the time range on show, the time cursor, the crosshair and the marks."""
        log = self._model.session.log
        if log is not self._log:
            self._log = log
            self._marks_key = None
            for row in self.rows:
                for d in row.decimators.values():
                    d.clear()
        slots = max(len(row.axes) - 1 for row in self.rows)
        for row in self.rows:
            row.reserve_right(slots)  # one plot area for all: the time axes line up
        dt = self._model.session.dt
        live = self._model.view_frame is None
        a, b = self._time_range()
        if a < 0.0 and self.absolute.isChecked():  # time from the start of the run: none before it (the first
            a, b = 0.0, b - a                        # seconds of a run showed -7 .. 3 s, the axis below zero empty)
        self.view = (a, b)
        newest = max(log.frames - 1, 0) * dt
        self.origin = 0.0 if self.absolute.isChecked() else newest
        x_range = (a - self.origin, b - self.origin)
        start = max(0, int(math.floor(a / dt)))
        end = min(log.frames, int(math.ceil(b / dt)) + 1)
        t_all = log.column("t")
        infos = {i.name: i for i in log.infos}
        shown_x = self._model.shown_frame() * dt - self.origin
        self._draw_marks()  # before the ranges: an expectation's bounds and dot are fitted in with the curves
        for row in self.rows:
            item = row.plot.getPlotItem()
            if row.x_range != x_range:
                item.setXRange(*x_range, padding=0)
                row.x_range = x_range
            columns = int(row.vb.width()) or 500
            per = max((end - start) // max(columns // 2, 1), 1)
            ranges: dict[int, list[float]] = {}
            for name, curve in row.curves.items():
                _, factor = display_unit(infos[name])
                x, y, lo, hi = row.decimators[name].window(t_all, log.column(name), start, end, per, (id(log), name))
                if factor != 1.0:
                    y, lo, hi = y * factor, lo * factor, hi * factor
                if len(x):
                    x = x - self.origin
                    curve.set_bounds(float(x[0]), float(x[-1]), lo, hi)
                curve.setData(x, y, skipFiniteCheck=True)  # channels are finite
                axis = row.axis_of(name)
                r = ranges.setdefault(id(axis), [np.inf, -np.inf])
                r[0], r[1] = min(r[0], lo), max(r[1], hi)
            for key, t0, t1, y0, y1 in row.mark_extents:
                if t0 <= b and t1 >= a and key in ranges:  # on show, on an axis with a curve
                    r = ranges[key]
                    r[0], r[1] = min(r[0], y0), max(r[1], y1)
            row.drawn_ranges = ranges  # the overlay fits its references' curves in with these
            for axis in row.axes:
                lo, hi = ranges.get(id(axis), (np.inf, -np.inf))
                if log.frames == 0 and not lo <= hi:
                    axis.clear()  # a new run not started yet (a script loaded, a preset opened): not the last one's
                else:
                    axis.fit(lo, hi)
            align_zeros(row.axes)
            for axis in row.axes:
                axis.vb.prepareForPaint()  # apply the ranges now, not mid-paint (a second repaint)
            row.now.setVisible(not live)
            if not live:
                row.now.setValue(shown_x)
        if self._cursor_t is not None:
            self.show_cursor(self._cursor_t)

    # -- marks: expectations, edits and [[set]] events -----------------------------------------------

    def _draw_marks(self) -> None:
        session = self._model.session
        program = session.program
        verdicts = session.verdicts() if program is not None else []
        edits = tuple(self._model.edit_marks)
        # The marks are made in the run's own time and moved with the origin: rebuilding them on every frame
        # of a relative time axis cost tens of milliseconds a frame with a script's [[set]] lines.
        key = (id(session.log), edits, tuple(v is not None and (v.frame, v.passed) for v in verdicts), id(program),
               tuple(id(r) for r in self.rows))
        origin = self.origin if self._marks_move() else 0.0
        if key == self._marks_key:
            if origin != self._marks_origin:
                self._marks_origin = origin
                for row in self.rows:
                    for mark in row.marks:
                        _place(mark, origin)
            return
        self._marks_key, self._marks_origin = key, origin
        dt = session.dt
        sets = []
        if program is not None and session.replayed:
            sets = [(s.at, "[[set]]") for s in program.script.sets if s.params or s.gear is not None or s.analog]
        infos = {i.name: i for i in session.log.infos}
        for row in self.rows:
            row.clear_marks()
            row.mark_extents = []
            for axis in row.axes:
                axis.room = 0.0
            for frame, text in edits:
                self._vline(row, frame * dt, EDIT, text)
            for at, text in sets:
                self._vline(row, at, (120, 120, 120), text)
            if program is None:
                continue
            for expect, verdict in zip(program.script.expects, verdicts or [None] * len(program.script.expects),
                                       strict=False):
                if expect.channel not in row.curves:
                    continue
                axis = row.axis_of(expect.channel)
                _, factor = display_unit(infos[expect.channel])
                self._expectation(row, axis, expect, verdict, factor)
        for row in self.rows:
            for mark in row.marks:
                _place(mark, origin)

    def _marks_move(self) -> bool:
        return not self.absolute.isChecked()

    def _vline(self, row: PlotRow, t: float, colour, text: str) -> None:
        line = pg.InfiniteLine(pos=t, angle=90, movable=False,
                               pen=pg.mkPen(colour, width=1, style=Qt.PenStyle.DashLine))
        line.carbench_x = t
        line.setToolTip(text)
        row.add_mark(line)

    def _expectation(self, row: PlotRow, axis, expect, verdict, factor: float) -> None:
        first = expect.at if expect.at is not None else expect.start
        last = expect.at if expect.at is not None else expect.end
        if first is None or last is None:
            return
        x0, x1 = first, last  # in the run's time; _place moves them to the axis's
        pen = pg.mkPen(BOUND, width=1)
        if x1 > x0:
            region = pg.LinearRegionItem(values=(x0, x1), movable=False, brush=pg.mkBrush(150, 40, 160, 28),
                                         pen=pg.mkPen(None))
            region.carbench_x = (x0, x1)
            region.setZValue(-50)
            row.add_mark(region, axis)
        for bound in (expect.min, expect.max):
            if bound is None:
                continue
            y = bound * factor
            xs = [x0, x1] if x1 > x0 else [x0 - 0.15, x0 + 0.15]
            bound_line = pg.PlotCurveItem(xs, [y, y], pen=pen)
            bound_line.carbench_shift = True
            row.add_mark(bound_line, axis)
            row.mark_extents.append((id(axis), xs[0], xs[1], y, y))
        if verdict is not None:
            colour = (0, 140, 0) if verdict.passed else (200, 0, 0)
            y = verdict.measured * factor
            row.mark_extents.append((id(axis), verdict.time, verdict.time, y, y))
            axis.room = DOT_ROOM
            worst = pg.ScatterPlotItem([verdict.time], [y], size=DOT,
                                       symbol="o", brush=pg.mkBrush(*colour), pen=pg.mkPen(255, 255, 255))
            worst.setToolTip(f"{expect.label()}: worst {format_value(y)} "
                             f"at t = {verdict.time:.3f} s")
            worst.carbench_shift = True
            row.add_mark(worst, axis)

    # -- the crosshair -----------------------------------------------------------------------------

    def _on_mouse_moved(self, row: PlotRow, pos) -> None:
        self._mouse = (row, pos)
        if not row.vb.sceneBoundingRect().contains(pos):
            self.show_cursor(None)
            return
        self.show_cursor(row.vb.mapSceneToView(pos).x() + self.origin)

    def show_cursor(self, t: float | None) -> None:
        """Put the crosshair at absolute time ``t`` on every plot and read out the values there (None hides it)."""
        log = self._model.session.log
        self._cursor_t = t
        if t is None or log.frames == 0:
            self._cursor_t = None
            for row in self.rows:
                row.cursor.setVisible(False)
                row.readout.setVisible(False)
            return
        k = int(np.clip(round(t / self._model.session.dt), 0, log.frames - 1))
        values = log.frame(k)
        infos = {i.name: i for i in log.infos}
        x = values["t"] - self.origin
        for row in self.rows:
            row.cursor.setValue(x)
            row.cursor.setVisible(True)
            lines = [f"t = {format_value(round(x, 3))} s" + ("" if self.absolute.isChecked() else
                                                            f"  (t = {values['t']:.3f} s)")]
            for name in row.curves:
                unit, factor = display_unit(infos[name])
                lines.append(f"{name} = {format_value(values[name] * factor)} {unit}".rstrip())
            row.readout.setText("\n".join(lines))
            (x0, x1), (y0, y1) = row.vb.viewRange()
            # On the side away from the cursor, so it never hides the values it reads out; at the top or the bottom,
            # whichever hides less of the curves (at the top it hid the newest second of a rising speed under a real
            # X server, where its box is opaque).
            right = x < (x0 + x1) / 2
            top = readout_at_top(row, right, self.reference_curves(row) if self.reference_curves else ())
            row.readout.setAnchor((1 if right else 0, 0 if top else 1))
            row.readout.setPos(x1 if right else x0, y1 if top else y0)
            row.readout.setVisible(True)

    # -- export ------------------------------------------------------------------------------------

    def export_name(self, row: PlotRow, kind: str) -> str:
        """A file name for the plot's export: its channels' names ("yaw_rate-steer.png")."""
        return f"{'-'.join(row.channels()) or 'plot'}.{kind}"

    def export(self, row: PlotRow, kind: str, path: str) -> None:
        """Write the plot as an image (pyqtgraph's exporters), under a title that names its channels with their units
        as the plot's title row does on screen (or their differences, while it shows B\u2212A: :func:`export_title`),
        or its channels over the time on show as CSV."""
        from pyqtgraph import exporters

        item = row.plot.getPlotItem()
        if kind == "csv":
            atomic_write_text(path, self.csv_text(row))
            return
        with self._time_axis_shown(row):  # an image of a plot above the bottom one had no time axis
            if kind == "png":
                image = _titled(exporters.ImageExporter(item).export(toBytes=True), export_title(row),
                                row.title.font())
                buffer = QBuffer()
                buffer.open(QIODevice.OpenModeFlag.WriteOnly)
                image.save(buffer, "PNG")
                data = bytes(buffer.data())
            else:
                data = _svg(row.plot, export_title(row), row.title.font())
        atomic_write_bytes(path, data)

    @contextlib.contextmanager
    def _time_axis_shown(self, row: PlotRow):
        """The row's plot with the time axis (only the bottom plot draws it on screen), as long as the block runs."""
        item = row.plot.getPlotItem()
        axis = item.getAxis("bottom")
        if axis.isVisible():
            yield
            return
        last = self.rows[-1].plot.getPlotItem().getAxis("bottom")
        size, area = row.plot.size(), row.vb.height()
        item.setLabel("bottom", last.labelText, units=last.labelUnits or None)  # (setLabel shows the axis)
        item.layout.activate()
        # the plot area as tall as on screen: the widget grown by what the axis took of it
        row.plot.resize(size.width(), size.height() + max(round(area - row.vb.height()), 0))
        item.layout.activate()
        try:
            yield
        finally:
            item.showAxis("bottom", False)
            row.plot.resize(size)
            item.layout.activate()

    def csv_text(self, row: PlotRow) -> str:
        """Every frame of the time on show: t [s] and the row's channels in their display units; while the row shows
        B\u2212A, what it shows instead: each channel's difference to each pinned run, the run on show minus that run
        ("speed_kmh B-A (ref 1) [km/h]"; a cell is empty where the pinned run has no sample to take it from). It wrote
        the channels' own values under their names while the plot showed differences."""
        log = self._model.session.log
        dt = self._model.session.dt
        a, b = self.view
        start, end = max(0, int(math.floor(a / dt))), min(log.frames, int(math.ceil(b / dt)) + 1)
        infos = {i.name: i for i in log.infos}
        t = log.column("t")[start:end]

        def header(name: str, words: str = "") -> str:
            unit = display_of(infos[name])[0]  # a file: its units as the command line's CSV writes them (m/s^2)
            return _csv_field(f"{name}{words} [{unit}]" if unit else f"{name}{words}")

        if row.differences and self.differences_at is not None:
            shown = self.differences_at(row, t)
            head = ["t [s]"] + [header(name, f" {CSV_DELTA} ({run})") for name, run, _ in shown]
            columns = [t] + [values for _, _, values in shown]
        else:
            names = row.channels()
            head = ["t [s]"] + [header(n) for n in names]
            columns = [t] + [log.column(n)[start:end] * display_of(infos[n])[1] for n in names]
        lines = [",".join(head)]
        lines += [",".join(repr(float(v)) if math.isfinite(v) else "" for v in values)
                  for values in zip(*columns, strict=True)]
        return "\n".join(lines) + "\n"


CSV_DELTA = "B-A"  # B\u2212A in a CSV's header, in ASCII: a spreadsheet reading the file as Latin-1 keeps it


def _csv_field(text: str) -> str:
    """A header cell, quoted where it holds a comma or a quote (a pinned run's name may)."""
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n') else text


Mark = QColor | QPen | None  # before a title's entry: a square in a colour, a line sample of a pen, or nothing


def export_title(row: PlotRow) -> list[tuple[Mark, str]]:
    """What an exported plot says it shows: each channel in its curve's colour, with its unit ("yaw_rate [deg/s]");
    on screen the row's title names the channels and the axes their units, and an image had neither title nor
    name (only the axes' units, of which channel it did not say).

    While the row shows B\u2212A (its channels' curves hidden, the run on show minus each pinned run drawn in that
    run's colour, each channel in a line style of its own) it says so, in the words of the row's toggle: each
    channel's difference with its unit after a sample of its line style, as the row's title shows it on screen
    ("yaw_rate B\u2212A [deg/s]"), then each pinned run in its colour with its name, as the plots' key names it
    ("ref 1")."""
    if not row.curves:
        return [(QColor(*TEXT), "(no channel)")]
    if row.differences:
        colour = sample_colour(row.differences)
        return [(delta_pen(colour, i), f"{name} {DELTA_TEXT} [{row.units[name]}]" if row.units.get(name)
                 else f"{name} {DELTA_TEXT}") for i, name in enumerate(row.curves)] \
            + [(QColor(colour), name) for colour, name in row.differences]
    return [(curve.opts["pen"].color(), f"{name} [{row.units[name]}]" if row.units.get(name) else name)
            for name, curve in row.curves.items()]


class _Title:
    """The title of an exported plot laid out for a width: a square in each channel's colour (or a sample of its
    line, for a difference), then its name and unit, the channels side by side and on as many lines as they need. An
    entry with no mark has none."""

    PAD = 4.0  # [px] around the title

    def __init__(self, entries: list[tuple[Mark, str]], font: QFont, width: float, device):
        self.entries, self.font = entries, font
        metrics = QFontMetricsF(font, device)
        self.ascent, line = metrics.ascent(), metrics.height()
        self.box = sample_height(metrics.ascent())  # the colour's square, as tall as a small letter or so
        gap, space = metrics.horizontalAdvance(" "), metrics.horizontalAdvance("   ")
        self.places: list[tuple[float, float, float]] = []  # each entry's mark's x, its text's x, its line's top
        x = y = self.PAD
        for mark, text in entries:
            square = 0.0 if mark is None else (SAMPLE_LENGTH if isinstance(mark, QPen) else self.box) + gap
            wide = square + metrics.horizontalAdvance(text)
            if x > self.PAD and x + wide > width - self.PAD:
                x, y = self.PAD, y + line
            self.places.append((x, x + square, y))
            x += wide + space
        self.height = math.ceil(y + line + self.PAD)

    def paint(self, painter: QPainter) -> None:
        painter.save()
        painter.setFont(self.font)
        painter.setPen(QColor(*TEXT))
        for (mark, text), (square_x, text_x, top) in zip(self.entries, self.places, strict=True):
            baseline = top + self.ascent
            if isinstance(mark, QPen):  # as the row's title on screen draws it
                draw_sample(painter, square_x, baseline, self.box, mark)
            elif mark is not None:
                painter.fillRect(QRectF(square_x, baseline - self.box, self.box, self.box), mark)
            painter.drawText(QPointF(text_x, baseline), text)
        painter.restore()


def _titled(image: QImage, entries: list[tuple[Mark, str]], font: QFont) -> QImage:
    """``image`` (the plot, as pyqtgraph's ImageExporter draws it) under its title (:class:`_Title`)."""
    title = _Title(entries, font, image.width(), image)
    out = QImage(image.width(), image.height() + title.height, QImage.Format.Format_ARGB32)
    out.setDotsPerMeterX(image.dotsPerMeterX())
    out.setDotsPerMeterY(image.dotsPerMeterY())
    out.fill(QColor("white"))
    painter = QPainter(out)
    title.paint(painter)
    painter.drawImage(0, title.height, image)
    painter.end()
    return out


def _svg(widget, entries: list[tuple[Mark, str]], font: QFont) -> bytes:
    """The widget drawn as SVG by Qt's own generator (pyqtgraph 0.14's SVGExporter fails on the paths
    Qt 6 writes), under its title (:class:`_Title`)."""
    from PySide6.QtCore import QRect, QSize
    from PySide6.QtSvg import QSvgGenerator

    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    # The screen's resolution: at Qt's default 72 dpi the widget's layout (in screen pixels) was drawn with its text
    # in points taken as pixels, three quarters of its size on screen (tick labels small, the right axis' title
    # off by itself), and the drawing's size in mm a quarter larger than the plot.
    generator.setResolution(widget.logicalDpiX())
    title = _Title(entries, font, widget.width(), generator)
    size = QSize(widget.width(), widget.height() + title.height)
    generator.setSize(size)
    generator.setViewBox(QRect(0, 0, size.width(), size.height()))
    generator.setTitle("carbench plot: " + ", ".join(text for _, text in entries))
    painter = QPainter(generator)
    painter.fillRect(QRectF(0, 0, size.width(), title.height), QColor("white"))
    title.paint(painter)
    painter.translate(0, title.height)
    widget.render(painter)
    painter.end()
    return bytes(buffer.data())
