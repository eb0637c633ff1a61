"""Live plots: stacked pyqtgraph plots of chosen channels over a scrolling time window.

Curves are created once per chosen channel and only ``setData`` is called on each refresh, with
views into the session's telemetry history (float64 time on x) clipped to the window and
peak-downsampled here to about one point per pixel column (pyqtgraph's own clip and downsampling
would redo that work on every range change). A crosshair follows the mouse across all plots and
reads out every curve's value.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QMenu, QToolButton, QVBoxLayout, QWidget

from physics import ChannelInfo
from workbench.gui.plot_style import style_plot
from workbench.gui.session_model import SessionModel

DEFAULT_PLOTS = [["speed_kmh"], ["rpm"], ["yaw_rate", "steer"], ["fy_front", "fy_rear"]]
# Where a car lacks a channel (km/h on a pixel car) its nearest stands in.
STAND_INS = {"speed_kmh": "speed"}


def default_plots(params) -> list[list[str]]:
    """Plots that suit the car: engine speed for a manual car, drive and brake forces otherwise."""
    speed = "speed_kmh" if params.model.unit == "m" else "speed"
    second = ["rpm"] if params.manual else ["drive_force", "brake_force"]
    fourth = ["fy_front", "fy_rear"] if params.kind == "dynamic" else ["curvature"]
    return [[speed], second, ["yaw_rate", "steer"], fourth]
COLOURS = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (255, 127, 14), (148, 103, 189), (140, 86, 75),
           (227, 119, 194), (23, 190, 207)]
_DISPLAY = {"deg": 180.0 / math.pi, "deg/s": 180.0 / math.pi}


def peak_decimate(t: np.ndarray, y: np.ndarray, columns: int) -> tuple[np.ndarray, np.ndarray]:
    """About one point per pixel column that keeps every peak: the min and max of each 2-column bin.

    Also keeps segments longer than a pixel: an aliased 1-px polyline of sub-pixel segments
    drops pixels where it is steep.
    """
    n = len(t)
    per = n // max(columns // 2, 1)
    if per < 2:
        return t, y
    bins = n // per
    head = bins * per
    yb = y[:head].reshape(bins, per)
    tb = t[:head].reshape(bins, per)
    out_t = np.column_stack([tb[:, 0], tb[:, -1]]).ravel()
    lo, hi = yb.min(axis=1), yb.max(axis=1)
    rising = yb.argmin(axis=1) <= yb.argmax(axis=1)  # keep the order in which min and max came
    out_y = np.column_stack([np.where(rising, lo, hi), np.where(rising, hi, lo)]).ravel()
    return np.concatenate([out_t, t[head:]]), np.concatenate([out_y, y[head:]])


def display_unit(info: ChannelInfo) -> tuple[str, float]:
    """The unit a channel is shown in and the factor from its SI value (degrees for angles)."""
    if info.display in _DISPLAY:
        return info.display, _DISPLAY[info.display]
    return info.unit, 1.0


class PlotRow(QWidget):
    """One plot with a channel menu; several channels share it."""

    channels_changed = Signal()

    def __init__(self, panel: PlotPanel, channels: list[str]):
        super().__init__(panel)
        self._panel = panel
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumHeight(90)
        item = self.plot.getPlotItem()
        self.grid = style_plot(item)
        # The panel sets both ranges before each repaint; auto-ranging at paint time would
        # change the axes mid-paint and paint every plot twice.
        item.disableAutoRange()
        item.getAxis("left").setWidth(62)
        self.cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen((120, 120, 120), style=Qt.PenStyle.DotLine))
        self.now = pg.InfiniteLine(pos=0.0, angle=90, movable=False, pen=pg.mkPen((200, 0, 0), width=1))
        self.readout = pg.TextItem(color=(20, 20, 20), anchor=(0, 0), fill=pg.mkBrush(255, 255, 255, 210))
        for extra in (self.cursor, self.now, self.readout):
            item.addItem(extra, ignoreBounds=True)
            extra.setVisible(False)
        self.button = QToolButton()
        self.button.setText("channels")
        self.button.setToolTip("choose the channels of this plot")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self.button)
        self.button.setMenu(self.menu)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        head = QHBoxLayout()
        head.setContentsMargins(2, 0, 2, 0)
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        head.addWidget(self.title, 1)
        head.addWidget(self.button)
        self.head = head  # other widgets (the compare overlay's B - A toggle) join the title row here
        layout.addLayout(head)
        layout.addWidget(self.plot, 1)
        self.curves: dict[str, pg.PlotCurveItem] = {}
        self.x_range: tuple[float, float] | None = None
        self.set_channels(channels)

    def build_menu(self, infos: list[ChannelInfo]) -> None:
        self.menu.clear()
        for info in infos:
            unit, _ = display_unit(info)
            action = QAction(f"{info.name} [{unit}]" if unit else info.name, self.menu, checkable=True)
            action.setChecked(info.name in self.curves)
            action.setToolTip(info.doc)
            action.toggled.connect(lambda on, name=info.name: self._toggle(name, on))
            self.menu.addAction(action)

    def _toggle(self, name: str, on: bool) -> None:
        names = [n for n in self.curves if n != name] + ([name] if on else [])
        self.set_channels(names)
        self.channels_changed.emit()

    def set_channels(self, names: list[str]) -> None:
        infos = {i.name: i for i in self._panel.infos()}
        names = list(dict.fromkeys(n if n in infos else STAND_INS.get(n, n) for n in names))
        names = [n for n in names if n in infos]
        item = self.plot.getPlotItem()
        for name in list(self.curves):
            if name not in names:
                item.removeItem(self.curves.pop(name))
        for name in names:
            if name not in self.curves:
                colour = COLOURS[len(self.curves) % len(COLOURS)]
                unit, _ = display_unit(infos[name])
                # One-pixel pens draw as one path; wider ones as thousands of separate segments.
                # Antialiased: an aliased 1-px polyline drops pixels on steep stretches.
                curve = pg.PlotCurveItem(pen=pg.mkPen(colour, width=1), name=name, antialias=True)
                item.addItem(curve)
                self.curves[name] = curve
        units = sorted({display_unit(infos[n])[0] for n in names} - {""})
        item.setLabel("left", ", ".join(units) if units else "")
        self.title.setText("&nbsp;" + "&nbsp;&nbsp;".join(
            f"<span style='color:rgb{self.curves[n].opts['pen'].color().getRgb()[:3]}'>&#9632;</span> {n}"
            for n in names) if names else "&nbsp;(no channel: pick some)")
        for action in self.menu.actions():
            action.blockSignals(True)
            action.setChecked(action.text().split(" [")[0] in self.curves)
            action.blockSignals(False)

    def channels(self) -> list[str]:
        return list(self.curves)

    def fit_y(self, lo: float, hi: float) -> None:
        """Fit the y range to the data [lo, hi] with a margin; kept while the data fits it well.

        A range that moved every frame would redraw the axis every frame: it grows at once when
        the data leaves it and shrinks only when the data fills less than half of it.
        """
        (y0, y1) = self.plot.getPlotItem().getViewBox().viewRange()[1]
        fits = y0 <= lo and hi <= y1 and (hi - lo) >= 0.5 * (y1 - y0)
        if fits:
            return
        pad = 0.1 * (hi - lo) if hi > lo else max(abs(hi) * 0.1, 1e-3)
        self.plot.getPlotItem().setYRange(lo - pad, hi + pad, padding=0)


class PlotPanel(QWidget):
    """A stack of plots sharing the time axis."""

    def __init__(self, model: SessionModel, plots: list[list[str]] | None = None, window: float = 10.0, parent=None):
        super().__init__(parent)
        self._model = model
        self.window = QDoubleSpinBox()
        self.window.setRange(1.0, 600.0)
        self.window.setDecimals(1)
        self.window.setSuffix(" s")
        self.window.setValue(window)
        self.window.setToolTip("length of the scrolling time window")
        self.window.valueChanged.connect(self._on_window_changed)
        add, remove = QToolButton(), QToolButton()
        add.setText("+ plot")
        remove.setText("- plot")
        add.clicked.connect(lambda: self.add_plot(["speed"]))
        remove.clicked.connect(self.remove_plot)
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        bar.addWidget(QLabel("window"))
        bar.addWidget(self.window)
        bar.addStretch(1)
        bar.addWidget(add)
        bar.addWidget(remove)
        self._rows_layout = QVBoxLayout()
        self._rows_layout.setContentsMargins(0, 0, 0, 0)
        self._rows_layout.setSpacing(2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addLayout(self._rows_layout, 1)
        self.rows: list[PlotRow] = []
        self.t_ref = 0.0  # [s] the time of the frame on show: x = 0 on every plot
        self._defaults = default_plots(model.session.params)
        for channels in plots or self._defaults:
            self.add_plot(channels)
        model.stepped.connect(self._on_stepped)
        model.view_frame_changed.connect(self._on_view_frame_changed)
        model.preset_loaded.connect(self._on_preset_loaded)

    def infos(self) -> list[ChannelInfo]:
        return self._model.session.log.infos

    # -- layout ------------------------------------------------------------------------------------

    def add_plot(self, channels: list[str]) -> PlotRow:
        row = PlotRow(self, channels)
        row.build_menu(self.infos())
        row.plot.scene().sigMouseMoved.connect(lambda pos, r=row: self._on_mouse_moved(r, pos))
        row.channels_changed.connect(self.refresh)
        self.rows.append(row)
        self._rows_layout.addWidget(row, 1)
        self._label_time_axis()
        self.refresh()
        return row

    def _label_time_axis(self) -> None:
        """Only the bottom plot draws the shared time axis (in seconds); the others just their grid."""
        for i, row in enumerate(self.rows):
            item = row.plot.getPlotItem()
            last = i == len(self.rows) - 1
            if last:
                item.setLabel("bottom", "time from the frame on show [s]")  # (setLabel also shows the axis)
            item.showAxis("bottom", last)

    def remove_plot(self) -> None:
        if len(self.rows) > 1:
            row = self.rows.pop()
            self._rows_layout.removeWidget(row)
            row.hide()  # gone now, not when the event loop gets round to deleting it
            row.deleteLater()
            self._label_time_axis()

    def channel_sets(self) -> list[list[str]]:
        return [row.channels() for row in self.rows]

    def set_channel_sets(self, sets: list[list[str]]) -> None:
        """One plot per entry of ``sets``, each showing those channels."""
        while len(self.rows) > max(len(sets), 1):
            self.remove_plot()
        for i, channels in enumerate(sets):
            if i < len(self.rows):
                self.rows[i].set_channels(channels)
            else:
                self.add_plot(channels)
        self.refresh()

    # -- model events ------------------------------------------------------------------------------

    def _on_stepped(self) -> None:
        self.refresh()

    def _on_view_frame_changed(self, frame: int) -> None:
        self.refresh()

    def _on_window_changed(self, value: float) -> None:
        self.refresh()

    def _on_preset_loaded(self, name: str) -> None:
        if self.channel_sets() == self._defaults:
            # Untouched defaults follow the car (engine speed for a manual car, forces otherwise).
            self._defaults = default_plots(self._model.session.params)
            self.set_channel_sets(self._defaults)
        for row in self.rows:
            row.set_channels(row.channels())
            row.build_menu(self.infos())
        self.refresh()

    # -- drawing -----------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Draw the window of history around the frame on show.

        Time runs along x relative to that frame (0 = the frame on show; live, it is the newest and
        the window ends there; scrubbed, it is centred): the axis and grid then stay put while the
        data scrolls, which keeps each repaint cheap.
        """
        log = self._model.session.log
        live = self._model.view_frame is None
        dt = self._model.session.dt
        span = self.window.value()
        frames = int(span / dt) + 1
        shown = self._model.shown_frame()
        if live:
            start, end, x_range = max(0, log.frames - frames), log.frames, (-span, 0.0)
        else:
            start, end, x_range = max(0, shown - frames // 2), min(log.frames, shown + frames // 2 + 1), (-span / 2, span / 2)
        self.t_ref = max(shown, 0) * dt
        t = log.column("t")[start:end] - self.t_ref
        infos = {i.name: i for i in log.infos}
        for row in self.rows:
            lo, hi = np.inf, -np.inf
            item = row.plot.getPlotItem()
            if row.x_range != x_range:
                item.setXRange(*x_range, padding=0)
                row.x_range = x_range
            columns = int(item.getViewBox().width()) or 500
            for name, curve in row.curves.items():
                _, factor = display_unit(infos[name])
                y = log.column(name)[start:end]
                if factor != 1.0:
                    y = y * factor
                if len(y):
                    lo, hi = min(lo, float(y.min())), max(hi, float(y.max()))
                curve.setData(*peak_decimate(t, y, columns), skipFiniteCheck=True)  # channels are finite
            if lo <= hi:
                row.fit_y(lo, hi)
            item.getViewBox().prepareForPaint()  # apply the ranges now, not mid-paint (a second repaint)
            row.now.setVisible(not live)

    def _on_mouse_moved(self, row: PlotRow, pos) -> None:
        vb = row.plot.getPlotItem().getViewBox()
        if not row.plot.sceneBoundingRect().contains(pos):
            return
        self.show_cursor(vb.mapSceneToView(pos).x() + self.t_ref)

    def show_cursor(self, t: float | None) -> None:
        """Put the crosshair at time ``t`` on every plot and read out the values there (None hides it)."""
        log = self._model.session.log
        if t is None or log.frames == 0:
            for row in self.rows:
                row.cursor.setVisible(False)
                row.readout.setVisible(False)
            return
        k = int(np.clip(round(t / self._model.session.dt), 0, log.frames - 1))
        values = log.frame(k)
        infos = {i.name: i for i in log.infos}
        for row in self.rows:
            row.cursor.setValue(values["t"] - self.t_ref)
            row.cursor.setVisible(True)
            lines = [f"t = {values['t']:.3f} s"]
            for name in row.curves:
                unit, factor = display_unit(infos[name])
                lines.append(f"{name} = {values[name] * factor:.4g} {unit}".rstrip())
            row.readout.setText("\n".join(lines))
            (x0, _), (_, y1) = row.plot.getPlotItem().getViewBox().viewRange()
            row.readout.setPos(x0, y1)
            row.readout.setVisible(True)
