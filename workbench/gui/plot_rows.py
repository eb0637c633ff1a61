"""One plot of the plot panel: its curves, one y-axis per unit, the crosshair, the time cursor and marks.

The main ViewBox takes the first unit (left axis) and handles the mouse: a left click or drag
moves the time cursor, the wheel and a right drag zoom the time axis, a double-click resets it.
Each further unit gets an overlay ViewBox of its own, x-linked to the main one, with its axis on
the right, so rpm and engine torque each fill their plot's height.
"""

from __future__ import annotations

import base64
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QEvent, QIODevice, QObject, QPoint, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QMenu, QToolButton, QVBoxLayout, QWidget, QWidgetAction

from physics import ChannelInfo
from workbench.gui.decimate import Decimator
from workbench.gui.elided_label import ElidedLabel
from workbench.gui.plot_style import TEXT, FittedAxis, LabelAxis, style_axis, style_plot

COLOURS = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (255, 127, 14), (148, 103, 189), (140, 86, 75),
           (227, 119, 194), (23, 190, 207)]
END_LABEL = "-0000"  # the widest time label at a plot's end whose overhang (half of it) is let past the end
AXIS_WIDTH = 58  # [px] a rotated unit label and ticks of up to six characters ("-12.5k": FittedAxis writes thousands as k)
FLAT_SPAN = 1e-6  # [display units] a spread below it is rounding, not signal, in every channel's unit (N, deg/s, rpm, -)
NARROW_SHARE = 0.01  # [-] the least span shown, as a share of the values' size: an idling engine's 0.15 rpm at 800
# filled its plot with ticks of "800.05" that ran into the axis title; a wander of 1% of a value still shows
DELTA_TEXT = "B\u2212A"  # the compare overlay's toggle of a plot of differences, and an export's words for them
# While a row shows B\u2212A every curve on it is in the colour of a pinned run (the colour names the run, as everywhere
# in the window); each channel's differences get a line style of their own, in the order of the row's channels, and
# the row's title and an exported plot's show a sample of it before the channel's name (delta_pen, draw_sample).
# Each style's name (in the title's tooltip) and dash pattern in pen widths, here pixels (none: a solid line).
DELTA_STYLES = (("solid", ()), ("dashed", (6.0, 3.0)), ("dotted", (2.0, 2.0)), ("dash-dotted", (6.0, 2.5, 2.0, 2.5)))
SAMPLE_LENGTH = 22  # [px] a line sample: two and a half dashes, or nearly two dash-dots
MAX_AXES = 3  # units per plot that get their own axis; further units share the last one
GROUPS = (
    ("motion", ("t", "x", "y", "heading", "speed", "speed_kmh", "vx", "vy", "yaw_rate", "beta", "curvature",
                "accel_long", "accel_lat")),
    ("steering", ("steer", "wheel_left", "wheel_right")),
    ("pedals", ("throttle", "brake", "clutch_pedal", "handbrake")),
    ("engine and drivetrain", ("throttle_applied", "clutch", "gear", "rpm", "engine_torque", "axle_torque",
                               "drive_force", "wheelspin")),
    ("resistances and brakes", ("drag_force", "rolling_force", "brake_force")),
    ("tyres", ("slip_front", "slip_rear", "fy_front", "fy_rear", "load_front", "load_rear")),
    ("model", ("kinematic_weight",)),
)


def channel_group(name: str) -> str:
    for group, names in GROUPS:
        if name in names:
            return group
    return "other"


class KnownBoundsCurve(pg.PlotCurveItem):
    """A curve whose data bounds the panel tells it (it knows them from the decimation), so pyqtgraph
    does not scan the data again for every bounding rectangle."""

    def set_bounds(self, x0: float, x1: float, y0: float, y1: float) -> None:
        self._known = (x0, x1, y0, y1)

    def set_points(self, xs, ys) -> None:
        """setData for a short curve (a trail, an arrow): its bounds from one min/max, not pyqtgraph's scan."""
        xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
        if len(xs):
            self._known = (float(xs.min()), float(xs.max()), float(ys.min()), float(ys.max()))
        else:
            self._known = None
        self.setData(xs, ys, skipFiniteCheck=True)

    def dataBounds(self, ax, frac=1.0, orthoRange=None):
        known = getattr(self, "_known", None)
        if known is None or frac != 1.0 or orthoRange is not None:
            return super().dataBounds(ax, frac, orthoRange)
        return (known[0], known[1]) if ax == 0 else (known[2], known[3])


class CursorViewBox(pg.ViewBox):
    """The main ViewBox: left click/drag picks a time; wheel and right drag zoom x; double-click resets."""

    def __init__(self):
        super().__init__(enableMenu=False)
        self.setMouseEnabled(x=True, y=False)
        self.picked = _Relay()

    def mouseClickEvent(self, ev) -> None:
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            if ev.double():
                self.picked.reset.emit()
            else:
                self.picked.time.emit(self.mapSceneToView(ev.scenePos()).x())
            return
        if ev.button() == Qt.MouseButton.RightButton:
            ev.accept()
            self.picked.menu.emit(ev.screenPos().toPoint())
            return
        super().mouseClickEvent(ev)

    def mouseDragEvent(self, ev, axis=None) -> None:
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self.picked.time.emit(self.mapSceneToView(ev.scenePos()).x())
            return
        super().mouseDragEvent(ev, axis)


class _Relay(QObject):
    time = Signal(float)  # x in the plot's time base
    reset = Signal()
    menu = Signal(QPoint)  # a right click, at this point of the screen


class OverlayViewBox(pg.ViewBox):
    """A further unit's ViewBox on top of the main one: it lets every mouse event through."""

    def __init__(self):
        super().__init__(enableMenu=False)
        self.setMouseEnabled(x=False, y=False)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(False)

    def wheelEvent(self, ev, axis=None) -> None:
        ev.ignore()


class YAxis:
    """One unit's y-axis: its ViewBox, its axis item, its range kept steady while the data fits.

    ``room`` [px] is kept free above and below the data: an expectation's dot drawn on the curve's highest
    point was cut in half at the top edge of a short plot, whose 8 % margin was two or three pixels.
    """

    def __init__(self, unit: str, vb: pg.ViewBox, axis: pg.AxisItem):
        self.unit = unit
        self.vb = vb
        self.axis = axis
        self.room = 0.0
        self.own: tuple[float, float] | None = None  # the range :meth:`fit` chose, before align_zeros widened it

    def _set(self, y0: float, y1: float) -> None:
        self.own = (y0, y1)
        self.vb.setYRange(y0, y1, padding=0)

    def clear(self) -> None:
        """No data to fit: the flat signal's range about zero, so that no run's range is left behind on an empty
        plot (its ticks read as values); the first data grows it at once."""
        self.own = (-1.0, 1.0)
        if tuple(self.vb.viewRange()[1]) != (-1.0, 1.0):
            self.vb.setYRange(-1.0, 1.0, padding=0)

    def fit(self, lo: float, hi: float) -> None:
        """Fit the range to [lo, hi] with a margin, kept while the data fills it well.

        A range that moved every frame would redraw the axis every frame: it grows at once when the
        data leaves it and shrinks only when the data fills less than half of it. A flat signal gets
        a range of a tenth of its size (or one unit around zero), not a millionth; so does one that only
        wanders by rounding (a spread under FLAT_SPAN display units: a yaw rate of 1e-10 deg/s, a force of
        4e-7 N left by a decay towards zero), which would otherwise fill the plot with its noise. A spread
        under NARROW_SHARE of the values' size is shown at that share, about its middle. These tests are made on
        the range it chose last, not on the one on show, which :func:`align_zeros` may have widened.
        """
        if not (np.isfinite(lo) and np.isfinite(hi)):
            return
        fresh = self.own is None  # a new axis on a ViewBox that shows a range align_zeros may have widened: set anew
        (y0, y1) = self.own if self.own is not None else self.vb.viewRange()[1]
        height = max(float(self.vb.height()), 1.0)
        room = min(self.room, height / 4)
        if hi - lo < max(1e-9 * max(abs(lo), abs(hi)), FLAT_SPAN):
            half = max(0.1 * abs(hi), 1.0) if abs(hi) < 1e3 else 0.1 * abs(hi)
            lo, hi = lo - half, hi + half
            if not fresh and y0 <= lo and hi <= y1 and (y1 - y0) <= 4.0 * (hi - lo):
                return
            self._set(lo, hi)
            return
        least = NARROW_SHARE * max(abs(lo), abs(hi))
        if hi - lo < least:  # a small wander on a large value: shown about its middle, at 1% of the value
            middle = 0.5 * (lo + hi)
            lo, hi = middle - 0.5 * least, middle + 0.5 * least
        kept = room * (y1 - y0) / height  # the room, in the units of the range on show
        if not fresh and y0 <= lo - kept and hi + kept <= y1 and (hi - lo) >= 0.5 * (y1 - y0):
            return
        pad = max(0.08 * (hi - lo), room * (hi - lo) / (height - 2 * room))
        self._set(lo - pad, hi + pad)


def zero_heights(ranges: list[tuple[float, float]]) -> list[tuple[float, float]] | None:
    """Ranges (y0, y1) of a plot's axes with their zeros at one height; None where fewer than two ranges hold zero
    at different heights. A range that does not hold zero (an engine's 800 to 6,000 rpm) is returned as it is.

    Two signed channels on one plot (the yaw rate in deg/s and the steering angle in deg) are read against each other
    by their signs: with each axis fitted alone, the steer's 0 sat at the top where the yaw rate read +5 deg/s.
    Each range that holds zero is widened on one side only. With zero at the shares s_lo <= s_hi of their heights
    (from the bottom), the height z = s_hi / (1 + s_hi - s_lo) widens the two extremes alike, by 1 + s_hi - s_lo,
    and every other range less: no range more than twice (one all above zero, one all below)."""
    shares = [-y0 / (y1 - y0) if y0 <= 0.0 <= y1 and y1 > y0 else None for y0, y1 in ranges]
    held = [z for z in shares if z is not None]
    if len(held) < 2 or max(held) - min(held) < 1e-9:
        return None
    z = max(held) / (1.0 + max(held) - min(held))
    out = []
    for (y0, y1), share in zip(ranges, shares, strict=True):
        if share is None or share == z:
            out.append((y0, y1))
        elif share < z:  # zero lower on this axis than at z: more room below it
            out.append((-z * y1 / (1.0 - z), y1))
        else:
            out.append((y0, -y0 * (1.0 - z) / z))
    return out


def align_zeros(axes: list[YAxis]) -> None:
    """Show a plot's axes at the ranges they were fitted to (:meth:`YAxis.fit`), those that hold zero widened to put
    it at one height (:func:`zero_heights`). The same fitted ranges give the same ranges on show: no axis is set
    again while its data fits."""
    fitted = [axis for axis in axes if axis.own is not None]  # an axis not fitted yet takes no part
    if len(fitted) < 2:
        return
    own = [axis.own for axis in fitted]
    shown = zero_heights(own) or own
    for axis, (y0, y1) in zip(fitted, shown, strict=True):
        if tuple(axis.vb.viewRange()[1]) != (y0, y1):
            axis.vb.setYRange(y0, y1, padding=0)


def delta_pen(colour, index: int) -> QPen:
    """The pen of the differences of a row's ``index``-th channel, taken from the pinned run of ``colour``."""
    dashes = DELTA_STYLES[index % len(DELTA_STYLES)][1]
    return pg.mkPen(colour, width=1, dash=list(dashes) if dashes else None)


def delta_style_name(index: int) -> str:
    return DELTA_STYLES[index % len(DELTA_STYLES)][0]


def sample_colour(differences: list[tuple[QColor, str]]) -> QColor:
    """The colour of the line samples of a row showing B\u2212A: the pinned run's while it is the only one, else the
    text's (each run's colour is then in the plots' key, and in an export's title)."""
    return QColor(differences[0][0]) if len(differences) == 1 else QColor(*TEXT)


def sample_height(ascent: float) -> int:
    """[px] The height a line sample stands in on a line of text, from the baseline up: as tall as a small letter or
    so (an exported title's colour squares are as tall)."""
    return max(round(ascent * 0.7), 3)


def draw_sample(painter: QPainter, x: float, baseline: float, height: int, pen: QPen) -> None:
    """A line sample of ``pen``, SAMPLE_LENGTH long from x, across the middle of ``height`` above ``baseline`` (on a
    pixel's middle): in a row's title on screen (:func:`sample_html`) and in an exported plot's title."""
    y = math.floor(baseline - height / 2) + 0.5
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(pen)
    painter.drawLine(QPointF(x, y), QPointF(x + SAMPLE_LENGTH, y))
    painter.restore()


_samples: dict[tuple, str] = {}  # the <img> of each pen's sample, drawn once


def sample_html(pen: QPen, height: int, dpr: float) -> str:
    """A line sample as an image in a label's rich text: ``height`` [px] tall, standing on the baseline as the text
    does (a line no taller than before), the line across its middle."""
    key = (pen.color().rgba(), tuple(pen.dashPattern()) if pen.style() != Qt.PenStyle.SolidLine else (), height, dpr)
    html = _samples.get(key)
    if html is None:
        image = QImage(round(SAMPLE_LENGTH * dpr), round(height * dpr), QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(dpr)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        draw_sample(painter, 0.0, height, height, pen)
        painter.end()
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        data = base64.b64encode(bytes(buffer.data())).decode("ascii")
        html = _samples[key] = f"<img src='data:image/png;base64,{data}' width='{SAMPLE_LENGTH}' height='{height}'>"
    return html


class RowTitle(QLabel):
    """A plot's title: rich text in one or more forms, the longest first. It shows the longest form that fits its
    width and asks for the shortest's width as its least, so that the longer form never widens the dock (a row of B
    \u2212 A names each channel with "B\u2212A" after it, and without where that does not fit: the toggle beside says
    it). With one form it is a QLabel."""

    def __init__(self):
        super().__init__()
        self.setTextFormat(Qt.TextFormat.RichText)
        self.forms: list[str] = []
        self._widths: list[int] = []
        self._asked: list[str] = []  # the forms as given, before the ones no narrower were left out
        self._ruler: QLabel | None = None  # measures a form as the label would

    def set_forms(self, forms: list[str]) -> None:
        if forms != self._asked:
            self._asked = list(forms)
            self.forms, self._widths = self._narrowing(forms)
            self.updateGeometry()
        self._choose()

    def _narrowing(self, forms: list[str]) -> tuple[list[str], list[int]]:
        """The forms each narrower than the one before, with their widths: a shorter form that is no narrower (two
        short names' "x +1 more" beside "x y") is left out, and the least width asked for is the narrowest's."""
        if len(forms) < 2:
            return list(forms), []
        kept, widths = [], []
        for form in forms:
            width = self._measure(form)
            if not widths or width < widths[-1]:
                kept.append(form)
                widths.append(width)
        return kept, (widths if len(kept) > 1 else [])

    def _measure(self, form: str) -> int:
        if self._ruler is None:
            self._ruler = QLabel()
            self._ruler.setTextFormat(Qt.TextFormat.RichText)
        self._ruler.setFont(self.font())
        self._ruler.setContentsMargins(self.contentsMargins())
        self._ruler.setText(form)
        return self._ruler.sizeHint().width()

    def _choose(self) -> None:
        shown = self.forms[0] if self.forms else ""
        for form, width in zip(self.forms, self._widths, strict=False):
            shown = form
            if width <= self.width():
                break
        if shown != self.text():
            self.setText(shown)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's
        hint = super().sizeHint()
        return QSize(self._widths[0], hint.height()) if self._widths else hint

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's
        hint = super().minimumSizeHint()
        return QSize(self._widths[-1], hint.height()) if self._widths else hint

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's
        super().resizeEvent(event)
        if self._widths:
            self._choose()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt's
        super().changeEvent(event)
        if self._asked and event.type() == QEvent.Type.FontChange:  # the forms' widths change with the font
            self.forms, self._widths = self._narrowing(self._asked)
            self.updateGeometry()
            self._choose()


def fewer(parts: list[str], gap: str) -> list[str]:
    """A plot title's forms, the longest first: every channel, then fewer and how many more ("+3 more"), then only how
    many. The title asks for its shortest form's width at least (RowTitle): with every name as its one form, a plot
    of seven channels asked for 619 px, every plot of the panel grew past its 489 px dock, and their right ends (the
    newest seconds, the right axis, the row's buttons) were cut off."""
    forms = ["&nbsp;" + gap.join(parts[:k]) + ("" if k == len(parts) else f"{gap}+{len(parts) - k} more")
             for k in range(len(parts), 0, -1)]
    return forms + ([f"&nbsp;{len(parts)} channels"] if len(parts) > 1 else [])


def _short(value: float) -> str:
    text = f"{value:.0f}" if abs(value) >= 1000 else f"{value + 0.0:.3g}"
    return "0" if text in ("-0", "-0.0") else text


class PlotRow(QWidget):
    """One plot with a channel menu, an export menu, and the marks of the time cursor and the script."""

    channels_changed = Signal()
    export_requested = Signal(str)  # "png", "svg" or "csv"
    watch_requested = Signal(str)  # a channel to pin in the watch list

    def __init__(self, panel, channels: list[str]):
        super().__init__(panel)
        self._panel = panel
        self.vb = CursorViewBox()
        self.plot = pg.PlotWidget(background="w", viewBox=self.vb, axisItems={"left": FittedAxis("left"),
                                                                             "right": FittedAxis("right"),
                                                                             "bottom": LabelAxis("bottom")})
        self.plot.setMinimumHeight(36)
        self.plot.leaveEvent = self._on_leave
        item = self.plot.getPlotItem()
        self.grid = style_plot(item)
        # The panel sets both ranges before each repaint; auto-ranging at paint time would
        # change the axes mid-paint and paint every plot twice.
        item.disableAutoRange()
        item.getAxis("left").setWidth(AXIS_WIDTH)
        # The time axis' end labels ("0" at the newest frame, at the plot's right edge) reach half their width
        # past the axis; pyqtgraph hides any label that does, so the right end was never labelled.
        item.getAxis("bottom").setStyle(hideOverlappingLabels=self.plot.fontMetrics().horizontalAdvance(END_LABEL) // 2 + 2)
        self.cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen((120, 120, 120), style=Qt.PenStyle.DotLine))
        self.now = pg.InfiniteLine(pos=0.0, angle=90, movable=False, pen=pg.mkPen((200, 0, 0), width=1))
        self.readout = pg.TextItem(color=(20, 20, 20), anchor=(0, 0), fill=pg.mkBrush(255, 255, 255, 190))
        for extra in (self.cursor, self.now, self.readout):
            item.addItem(extra, ignoreBounds=True)
            extra.setVisible(False)
        self.readout.setZValue(50)
        self.marks: list[pg.GraphicsObject] = []  # expectations, edits: redrawn when they change
        self.values_shown = True  # the expectations' bounds and worst values (False while the plot shows B - A)
        # While the plot shows B - A (the compare overlay's toggle, a run pinned): each pinned run drawn, its colour
        # and its name, the differences' curves in its colour; empty while the plot shows its channels. Set with
        # show_differences (the title shows each channel's line style then).
        self.differences: list[tuple[QColor, str]] = []
        # (id of its axis, first and last time [s] of the run, lowest and highest value): the expectations'
        # bounds and dots, fitted in with the curves
        self.mark_extents: list[tuple[int, float, float, float, float]] = []
        self.channel_button = QToolButton()
        self.channel_button.setText("channels")
        self.channel_button.setToolTip("choose the channels of this plot")
        self.channel_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self.channel_button)
        self.channel_button.setMenu(self.menu)
        self.search = QLineEdit()
        self.search.setPlaceholderText("search channels")
        self.search.textChanged.connect(self._fill_menu)
        self._search_action = QWidgetAction(self.menu)
        self._search_action.setDefaultWidget(self.search)
        self.menu.addAction(self._search_action)
        self.menu.aboutToShow.connect(lambda: QTimer.singleShot(0, self._focus_search))
        self.watch_menu = QMenu("watch", self.menu)  # this plot's channels, to pin in the watch list
        self.watch_menu.setToolTipsVisible(True)
        self.watch_menu.aboutToShow.connect(lambda: self._fill_watch_menu(self.watch_menu))
        self.vb.picked.menu.connect(self._on_right_click)
        self.export_button = QToolButton()
        self.export_button.setText("export")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        export_menu = QMenu(self.export_button)
        for kind, text in (("png", "Plot as PNG\u2026"), ("svg", "Plot as SVG\u2026"), ("csv", "Data as CSV\u2026")):
            export_menu.addAction(text, lambda k=kind: self.export_requested.emit(k))
        self.export_button.setMenu(export_menu)
        for button in (self.channel_button, self.export_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 6, 0)  # room for the right axis' label at the dock's edge
        layout.setSpacing(0)
        head = QHBoxLayout()
        head.setContentsMargins(2, 0, 2, 0)
        self.title = RowTitle()
        head.addWidget(self.title, 1)
        # A plot too short for two tick labels says its range here instead ("3800 .. 5000 rpm").
        self.range_readout = ElidedLabel()
        self.range_readout.setStyleSheet("color: #555;")
        self.range_readout.setVisible(False)
        head.addWidget(self.range_readout)
        head.addWidget(self.channel_button)
        head.addWidget(self.export_button)
        self.head = head  # other widgets (the compare overlay's B - A toggle) join the title row here
        layout.addLayout(head)
        layout.addWidget(self.plot, 1)
        self.curves: dict[str, KnownBoundsCurve] = {}
        self.decimators: dict[str, Decimator] = {}
        self.units: dict[str, str] = {}  # channel -> display unit
        self.axes: list[YAxis] = [YAxis("", self.vb, item.getAxis("left"))]
        self._reserved: tuple[int, int] | None = None  # (right axes kept room for, right axes drawn)
        self.x_range: tuple[float, float] | None = None
        self._infos: list[ChannelInfo] = []
        item.getViewBox().sigResized.connect(self._sync_overlays)
        self.set_channels(channels)

    # -- the channel menu --------------------------------------------------------------------------

    def build_menu(self, infos: list[ChannelInfo]) -> None:
        self._infos = list(infos)
        self._fill_menu()

    def _focus_search(self) -> None:
        """The search box focused with its text selected: typing replaces the last search (it was appended to it, and
        "speed_kmhfy_front" matched nothing)."""
        self.search.setFocus()
        self.search.selectAll()

    def _fill_menu(self, *args) -> None:
        """Channels grouped by subsystem; with search text, the matching ones in one list."""
        for action in self.menu.actions():
            if action is not self._search_action:
                self.menu.removeAction(action)
                if action.menu() is self.watch_menu:
                    continue  # kept: added again below
                if action.menu() is not None:
                    action.menu().deleteLater()
                action.deleteLater()
        text = self.search.text().strip().lower()
        if text:
            matches = [i for i in self._infos if text in i.name.lower() or text in i.doc.lower()]
            for info in matches:
                self.menu.addAction(self._channel_action(info, self.menu))
            if not matches:
                self.menu.addAction("(no channel matches)").setEnabled(False)
        else:
            groups: dict[str, QMenu] = {}
            for info in self._infos:
                group = channel_group(info.name)
                if group not in groups:
                    groups[group] = self.menu.addMenu(group)
                groups[group].addAction(self._channel_action(info, groups[group]))
        self.menu.addSeparator()
        self.menu.addMenu(self.watch_menu)  # last: pin one of this plot's channels in the watch list

    def _channel_action(self, info: ChannelInfo, parent) -> QAction:
        unit = self._panel.unit_of(info)
        action = QAction(f"{info.name} [{unit}]" if unit else info.name, parent, checkable=True)
        action.setChecked(info.name in self.curves)
        action.setToolTip(info.doc)
        action.setData(info.name)
        action.toggled.connect(lambda on, name=info.name: self._toggle(name, on))
        return action

    def _fill_watch_menu(self, menu: QMenu) -> None:
        menu.clear()
        for name in self.curves:
            menu.addAction(f"watch {name}", lambda n=name: self.watch_requested.emit(n))
        if not self.curves:
            menu.addAction("(no channel on this plot)").setEnabled(False)

    def context_menu(self) -> QMenu:
        """The right-click menu of the plot: pin one of its channels in the watch list."""
        menu = QMenu(self)
        self._fill_watch_menu(menu)
        return menu

    def _on_right_click(self, at: QPoint) -> None:
        self._context = self.context_menu()  # kept: a popup with no owner would go at once
        self._context.popup(at)

    def channel_actions(self) -> list[QAction]:
        out = []
        for action in self.menu.actions():
            if action.menu() is self.watch_menu:
                continue
            if action.menu() is not None:
                out += action.menu().actions()
            elif action.data():
                out.append(action)
        return out

    def _toggle(self, name: str, on: bool) -> None:
        names = [n for n in self.curves if n != name] + ([name] if on else [])
        self.set_channels(names)
        self.channels_changed.emit()

    # -- channels and axes -------------------------------------------------------------------------

    def set_channels(self, names: list[str]) -> None:
        infos = {i.name: i for i in self._panel.infos()}
        names = list(dict.fromkeys(self._panel.stand_in(n) for n in names))
        names = [n for n in names if n in infos]
        for name in list(self.curves):
            curve = self.curves.pop(name)
            curve.getViewBox() and curve.getViewBox().removeItem(curve)
        self.decimators = {n: self.decimators.get(n, Decimator()) for n in names}
        self.units = {n: self._panel.unit_of(infos[n]) for n in names}
        units = list(dict.fromkeys(self.units.values())) or [""]
        self._make_axes(units[:MAX_AXES])
        if len(units) > MAX_AXES:  # the units past the last axis share it: its label names them all, not its own alone
            shared = ", ".join(u or "(1)" for u in units[MAX_AXES - 1:])
            self.axes[-1].axis.setLabel(shared)
            self.axes[-1].axis.setToolTip(f"{shared}: drawn on one scale (a plot has {MAX_AXES} axes)")
        for i, name in enumerate(names):
            colour = COLOURS[i % len(COLOURS)]
            # One-pixel pens draw as one path; wider ones as thousands of separate segments.
            # Antialiased: an aliased 1-px polyline drops pixels on steep stretches.
            curve = KnownBoundsCurve(pen=pg.mkPen(colour, width=1), name=name, antialias=True)
            curve.setSkipFiniteCheck(True) if hasattr(curve, "setSkipFiniteCheck") else None
            self.axis_of(name).vb.addItem(curve)
            self.curves[name] = curve
        self._show_title()
        for action in self.channel_actions():
            action.blockSignals(True)
            action.setChecked(action.data() in self.curves)
            action.blockSignals(False)

    def show_differences(self, differences: list[tuple[QColor, str]]) -> None:
        """The plot shows B - A from these pinned runs (colour, name), or its channels (none)."""
        if differences != self.differences:
            self.differences = list(differences)
            self._show_title()

    def _show_title(self) -> None:
        """The channels, each after a square in its curve's colour; while the plot shows B - A, each channel's
        differences after a sample of their line style (the curves' colours are the pinned runs'), "B\u2212A" after
        each name where the title has the room."""
        names = list(self.curves)
        tip = ""
        if not names:
            forms = ["&nbsp;(no channel: pick some)"]
        elif self.differences:
            colour = sample_colour(self.differences)
            height = sample_height(self.title.fontMetrics().ascent())
            dpr = self.title.devicePixelRatioF()
            samples = [sample_html(delta_pen(colour, i), height, dpr) for i in range(len(names))]
            forms = ["&nbsp;" + "&nbsp;&nbsp;&nbsp;".join(f"{sample}&nbsp;{n}&nbsp;{DELTA_TEXT}"
                                                          for sample, n in zip(samples, names, strict=True))]
            forms += fewer([f"{sample}&nbsp;{n}" for sample, n in zip(samples, names, strict=True)], "&nbsp;&nbsp;&nbsp;")
            tip = (f"{DELTA_TEXT}: the run on show minus each pinned run, in that run's colour; "
                   + ", ".join(f"{n} {delta_style_name(i)}" for i, n in enumerate(names)))
        else:
            forms = fewer([f"<span style='color:rgb{self.curves[n].opts['pen'].color().getRgb()[:3]}'>&#9632;</span> {n}"
                           for n in names], "&nbsp;&nbsp;")
            tip = ", ".join(names) if len(names) > 1 else ""
        self.title.set_forms(forms)
        self.title.setToolTip(tip)

    def axis_of(self, name: str) -> YAxis:
        unit = self.units.get(name, "")
        for axis in self.axes:
            if axis.unit == unit:
                return axis
        return self.axes[-1]

    def _make_axes(self, units: list[str]) -> None:
        """The main axis takes the first unit; each further one an overlay ViewBox and a right axis."""
        item = self.plot.getPlotItem()
        for extra in self.axes[1:]:
            item.scene().removeItem(extra.vb)
            if extra.axis is item.getAxis("right"):
                item.hideAxis("right")
            else:
                item.layout.removeItem(extra.axis)
                item.scene().removeItem(extra.axis)
        self.axes = [YAxis(units[0], self.vb, item.getAxis("left"))]
        self._reserved = None
        item.setLabel("left", units[0] or "")
        for i, unit in enumerate(units[1:]):
            vb = OverlayViewBox()
            item.scene().addItem(vb)
            vb.setXLink(self.vb)
            if i == 0:
                item.showAxis("right")
                axis = item.getAxis("right")
                style_axis(axis)
                axis.setTickPen()  # the axis' own pen again, after a blank one
                axis.setStyle(showValues=True)
                axis.showLabel(True)
                axis.setWidth(AXIS_WIDTH)
            else:
                axis = FittedAxis("right")
                style_axis(axis)
                axis.setWidth(AXIS_WIDTH)
                item.layout.addItem(axis, 2, 3 + i)
            axis.linkToView(vb)
            axis.setLabel(unit or "(1)")
            self.axes.append(YAxis(unit, vb, axis))
        for y_axis in self.axes:
            y_axis.vb.sigYRangeChanged.connect(self._update_range_readout)
            y_axis.vb.sigResized.connect(self._update_range_readout)
        self._sync_overlays()
        self._update_range_readout()

    def _update_range_readout(self, *args) -> None:
        """The y range of each axis too short to label twice, in the title row."""
        parts = []
        for y_axis in self.axes:
            axis = y_axis.axis
            short = isinstance(axis, FittedAxis) and y_axis.vb.height() < 2 * axis.line_height()
            if short and y_axis.vb.height() > 0:
                y0, y1 = y_axis.vb.viewRange()[1]
                parts.append(f"{_short(y0)} .. {_short(y1)} {y_axis.unit}".rstrip())
        text = ";  ".join(parts)
        if text != self.range_readout.full_text():
            self.range_readout.setText(text)
            self.range_readout.setVisible(bool(text))

    def reserve_right(self, slots: int) -> None:
        """Keep room for ``slots`` right axes, drawn or blank, so that every plot of the panel has
        the same plot area and their time axes line up to the pixel."""
        have = len(self.axes) - 1
        if self._reserved == (slots, have):
            return
        self._reserved = (slots, have)
        item = self.plot.getPlotItem()
        if have == 0:
            if slots == 0:
                item.hideAxis("right")
                return
            item.showAxis("right")
            axis = item.getAxis("right")  # blank: no ticks, no values, no label
            axis.setStyle(showValues=False)
            axis.setPen(pg.mkPen(0, 0, 0, 0))
            axis.setTickPen(None)  # no pen (pyqtgraph gives a transparent tick pen its alpha back)
            axis.showLabel(False)
            axis.setWidth(AXIS_WIDTH * slots)
            return
        self.axes[-1].axis.setWidth(AXIS_WIDTH * max(slots - have + 1, 1))

    def _sync_overlays(self, *args) -> None:
        rect: QRectF = self.vb.sceneBoundingRect()
        for axis in self.axes[1:]:
            axis.vb.setGeometry(rect)
            axis.vb.linkedViewChanged(self.vb, axis.vb.XAxis)

    def channels(self) -> list[str]:
        return list(self.curves)

    # -- the crosshair -----------------------------------------------------------------------------

    def _on_leave(self, event) -> None:
        self._panel.show_cursor(None)

    def clear_marks(self) -> None:
        for mark in self.marks:
            mark.getViewBox() and mark.getViewBox().removeItem(mark)
        self.marks = []

    def add_mark(self, mark, axis: YAxis | None = None) -> None:
        (axis or self.axes[0]).vb.addItem(mark, ignoreBounds=True)
        self.marks.append(mark)
        if getattr(mark, "carbench_shift", False):
            mark.setVisible(self.values_shown)

    def show_values(self, shown: bool) -> None:
        """Show or hide the marks that stand at a value of a channel (an expectation's bound, its worst value): they
        mean nothing on a plot of differences. The time marks (windows, edits) stay."""
        self.values_shown = shown
        for mark in self.marks:
            if getattr(mark, "carbench_shift", False):
                mark.setVisible(shown)
