"""The mapping dialog: every axis and button of a controller, live, and what each one drives.

Per axis: its raw reading, the control it drives, inversion, dead zone, curve and exponent, its
calibrated range (Calibrate, move the control through its whole travel, Done) and the value it
gives the car now. Per button: whether it is down and its action. Every change applies at once and
is saved for the controller's GUID (every controller of that model on this computer).
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from physics import ANALOG
from workbench.controllers.mapping import (
    BUTTON_ACTIONS,
    CURVES,
    EXPONENTS,
    MAX_DEAD_ZONE,
    AxisMapping,
    Calibrator,
    MappingError,
)
from workbench.gui.controller_input import ControllerInput

REFRESH_MS = 33  # the live values, about 30 times a second
NONE = "\u2014"  # the combo entry for "drives nothing"
AXIS_COLUMNS = ("axis", "raw", "drives", "invert", "dead zone", "curve", "exponent", "range", "value")


class LevelBar(QWidget):
    """A reading as a bar from its rest point: from 0 out to either side on a range that holds 0 (a stick, steer), from
    the low end otherwise (a trigger), or from where a control rests (:meth:`setRest`: a wheel's pedal at one end of
    a range centred on 0). A progress bar filled a centred stick at rest half way, as if pushed half way. The text
    (the value, or ``format``) is drawn over a light fill, so it reads wherever the bar ends."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._low, self._high, self._value, self._format = 0, 100, 0, "%v"
        self._rest: int | None = None
        self._inverted = False

    def setRange(self, low: int, high: int) -> None:  # noqa: N802 (Qt's spelling, as QProgressBar's)
        self._low, self._high = int(low), max(int(high), int(low) + 1)
        self.setValue(self._value)
        self.update()  # the rest point and the fill move with the range

    def setRest(self, rest: int | None) -> None:  # noqa: N802
        """The reading at rest, where the bar grows from (None: 0 if the range holds it, else the low end): a
        wheel's pedal reads the low (or, inverted, the high) end of a range centred on 0."""
        self._rest = None if rest is None else int(rest)
        self.update()

    def setInvertedAppearance(self, inverted: bool) -> None:  # noqa: N802 (QProgressBar's spelling)
        """Grow towards the left for higher values: a steer reading, positive to the left (the model's sign, ISO
        8855's), drawn the way the wheel turns. Filled to the right, a stick pushed left read +0.097 with its bar
        to the right of centre, and the HUD drew the same steer to the left."""
        if bool(inverted) != self._inverted:
            self._inverted = bool(inverted)
            self.update()

    def invertedAppearance(self) -> bool:  # noqa: N802
        return self._inverted

    def setValue(self, value: int) -> None:  # noqa: N802
        value = min(max(int(value), self._low), self._high)
        if value != self._value:
            self._value = value
            self.update()

    def setFormat(self, text: str) -> None:  # noqa: N802
        if text != self._format:
            self._format = text
            self.update()

    def value(self) -> int:
        return self._value

    def minimum(self) -> int:
        return self._low

    def text(self) -> str:
        return self._format.replace("%v", str(self._value))

    def origin(self) -> int:
        """The value the bar grows from: its rest (:meth:`setRest`), else 0 where the range holds it, else its low
        end."""
        if self._rest is not None:
            return min(max(self._rest, self._low), self._high)
        return 0 if self._low < 0 < self._high else self._low

    def _x(self, value: int, width: int) -> int:
        x = round((value - self._low) / (self._high - self._low) * width)
        return width - x if self._inverted else x

    def filled(self, width: int) -> tuple[int, int]:
        """The filled span's left edge and width in pixels, inside a bar ``width`` wide."""
        a, b = sorted((self._x(self.origin(), width), self._x(self._value, width)))
        return a, b - a

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(120, self.fontMetrics().height() + 8)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(60, self.fontMetrics().height() + 6)

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        palette = self.palette()
        frame = self.rect().adjusted(0, 0, -1, -1)
        painter.fillRect(frame, palette.color(QPalette.ColorRole.Base))
        inner = frame.adjusted(1, 1, 0, 0)
        left, width = self.filled(inner.width())
        fill = QColor(palette.color(QPalette.ColorRole.Highlight))
        fill.setAlpha(110)
        painter.fillRect(QRect(inner.left() + left, inner.top(), width, inner.height()), fill)
        painter.setPen(palette.color(QPalette.ColorRole.Mid))
        if self._low < self.origin() < self._high:  # a rest point inside: a tick at each edge, clear of the text
            middle = inner.left() + self._x(self.origin(), inner.width())
            tick = max(inner.height() // 5, 2)
            painter.drawLine(middle, inner.top(), middle, inner.top() + tick)
            painter.drawLine(middle, inner.bottom() - tick, middle, inner.bottom())
        painter.drawRect(frame)
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        painter.drawText(frame, Qt.AlignmentFlag.AlignCenter, self.text())
        painter.end()


class _AxisRow:
    """The widgets of one axis's row."""

    def __init__(self, dialog: ControllerDialog, grid: QGridLayout, row: int, axis: str, span: tuple[int, int]):
        self.axis, self.span = axis, span
        self.raw = LevelBar()
        self.raw.setRange(*span)
        self.control = QComboBox()
        self.control.addItems([NONE, *ANALOG])
        self.invert = QCheckBox()
        self.dead_zone = QDoubleSpinBox()
        self.dead_zone.setRange(0.0, 100 * MAX_DEAD_ZONE)
        self.dead_zone.setSuffix(" %")
        self.dead_zone.setDecimals(1)
        self.curve = QComboBox()
        self.curve.addItems(CURVES)
        self.exponent = QDoubleSpinBox()
        self.exponent.setRange(*EXPONENTS)
        self.exponent.setSingleStep(0.1)
        self.calibrate = QPushButton("Calibrate")
        self.calibrate.setCheckable(True)
        self.range = QLabel()
        self.value = LevelBar()
        self.calibrator: Calibrator | None = None
        widgets = (QLabel(axis), self.raw, self.control, self.invert, self.dead_zone, self.curve, self.exponent)
        for column, widget in enumerate(widgets):
            grid.addWidget(widget, row, column)
        cell = QWidget()
        box = QHBoxLayout(cell)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.calibrate)
        box.addWidget(self.range)
        grid.addWidget(cell, row, len(widgets))
        grid.addWidget(self.value, row, len(widgets) + 1)
        for signal in (self.control.currentTextChanged, self.invert.toggled, self.dead_zone.valueChanged,
                       self.curve.currentTextChanged, self.exponent.valueChanged):
            signal.connect(lambda *_: dialog._on_axis_edited(self))
        self.calibrate.toggled.connect(lambda on: dialog._on_calibrate(self, on))

    def show(self, mapping: AxisMapping | None) -> None:
        """Put ``mapping`` (None: drives nothing) into the widgets without echoing it back."""
        widgets = (self.control, self.invert, self.dead_zone, self.curve, self.exponent)
        for w in widgets:
            w.blockSignals(True)
        self.control.setCurrentText(NONE if mapping is None else mapping.control)
        m = mapping or AxisMapping(self.axis, "steer", low=self.span[0], high=self.span[1])
        self.invert.setChecked(m.invert)
        self.dead_zone.setValue(100 * m.dead_zone)
        self.curve.setCurrentText(m.curve)
        self.exponent.setValue(m.exponent)
        for w in widgets:
            w.blockSignals(False)
        for w in widgets[1:] + (self.calibrate,):
            w.setEnabled(mapping is not None)
        self.exponent.setEnabled(mapping is not None and m.curve == "power")
        self.range.setText(f"{m.low} .. {m.high}")
        self.value.setRange(-1000 if mapping is not None and m.control == "steer" else 0, 1000)
        self.value.setInvertedAppearance(mapping is not None and m.control == "steer")  # positive steer is left
        # a pedal's raw reading grows from the end it rests at (its mapped value is 0 there); a stick's from 0
        pedal = mapping is not None and m.control != "steer"
        self.raw.setRest((m.high if m.invert else m.low) if pedal else None)

    def edited(self, low: int, high: int) -> AxisMapping | None:
        control = self.control.currentText()
        if control == NONE:
            return None
        return AxisMapping(self.axis, control, self.invert.isChecked(), self.dead_zone.value() / 100,
                           self.curve.currentText(), self.exponent.value(), low, high)


class ControllerDialog(QDialog):
    """Controls > Controllers and wheels: the mapping of each controller plugged in, edited live."""

    def __init__(self, controllers: ControllerInput, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Controllers and wheels")
        self.setObjectName("controller_dialog")
        self.controllers = controllers
        self.rows: list[_AxisRow] = []
        self.buttons: dict[str, tuple[QLabel, QComboBox]] = {}
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.device_box = QComboBox()
        self.device_box.currentIndexChanged.connect(lambda _: self._build())
        top.addWidget(QLabel("Controller:"))
        top.addWidget(self.device_box, 1)
        layout.addLayout(top)
        self.about = QLabel()
        self.about.setWordWrap(True)
        layout.addWidget(self.about)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        layout.addWidget(self.scroll, 1)
        self.problem = QLabel()
        self.problem.setStyleSheet("color: #a40000")
        self.problem.setWordWrap(True)  # a refused saved mapping names its settings file: a long path widened the dialog
        layout.addWidget(self.problem)
        bottom = QDialogButtonBox(QDialogButtonBox.StandardButton.RestoreDefaults | QDialogButtonBox.StandardButton.Close)
        self.restore = bottom.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        self.restore.setToolTip("Put the mapping of the controller on show back to its defaults")
        self.restore.clicked.connect(self.restore_defaults)
        bottom.rejected.connect(self.close)
        layout.addWidget(bottom)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.update_values)
        controllers.devices_changed.connect(self._fill_devices)
        self._shown = None  # the controller whose rows are on show
        self._fill_devices()
        self.resize(980, 560)

    # -- which controller ----------------------------------------------------------------------------

    def device(self):
        index = self.device_box.currentIndex()
        devices = self.controllers.devices
        return devices[index] if 0 <= index < len(devices) else None

    def _fill_devices(self) -> None:
        """The list of controllers again (one came or went): the one on show stays on show, its rows as they are
        (a calibration going on goes on), unless it is the one that went."""
        current = self._shown  # not the box's index: the list under it has changed
        self.device_box.blockSignals(True)
        self.device_box.clear()
        devices = self.controllers.devices
        self.device_box.addItems([d.info.label for d in devices])
        if current in devices:
            self.device_box.setCurrentIndex(devices.index(current))
        self.device_box.blockSignals(False)
        if current is None or self.device() is not current:
            self._build()

    def _build(self) -> None:
        """The rows for the controller chosen (or a line saying there is none)."""
        self.rows, self.buttons = [], {}
        self.problem.clear()
        body = QWidget()
        layout = QVBoxLayout(body)
        device = self._shown = self.device()
        self.restore.setEnabled(device is not None)  # with no controller there is no mapping to put back
        if device is None:
            why = self.controllers.unavailable
            self.about.setText(f"Controllers cannot be used here: {why}." if why else
                               "No controller is plugged in. Plug one in: it appears here and in the status bar.")
            self.scroll.setWidget(body)
            return
        info = device.info
        self.about.setText(f"GUID {info.guid}, {len(info.axes)} axes, {len(info.buttons)} buttons. Changes apply at "
                           "once and are kept for every controller of this model. Steer: the right end of an axis "
                           "steers right; pedals: 0 at rest (invert a pedal that reads high at rest).")
        mapping = self.controllers.mapping(device)
        # A saved mapping that was not usable: the default is on show, and the first edit saves over it (keeping it
        # beside); it was said only in the status bar, for 6 s.
        self.problem.setText(self.controllers.refused.get(info.guid, ""))
        axes = QGroupBox("Axes")
        grid = QGridLayout(axes)
        for column, title in enumerate(AXIS_COLUMNS):
            grid.addWidget(QLabel(f"<b>{title}</b>"), 0, column)
        for row, axis in enumerate(info.axes, 1):
            line = _AxisRow(self, grid, row, axis, info.axis_range(axis))
            line.show(mapping.axis_for(axis))
            self.rows.append(line)
        layout.addWidget(axes)
        buttons = QGroupBox("Buttons")
        grid = QGridLayout(buttons)
        for i, name in enumerate(info.buttons):
            down, action = QLabel("\u25cb"), QComboBox()
            action.addItems([NONE, *BUTTON_ACTIONS])
            action.setCurrentText(mapping.buttons.get(name, NONE))
            action.currentTextChanged.connect(lambda text, name=name: self._on_button_edited(name, text))
            row, column = divmod(i, 3)
            grid.addWidget(QLabel(name), row, 3 * column)
            grid.addWidget(down, row, 3 * column + 1)
            grid.addWidget(action, row, 3 * column + 2)
            self.buttons[name] = (down, action)
        layout.addWidget(buttons)
        layout.addStretch(1)
        self.scroll.setWidget(body)
        self.update_values()

    # -- edits ---------------------------------------------------------------------------------------

    def _on_axis_edited(self, row: _AxisRow) -> None:
        device = self.device()
        mapping = self.controllers.mapping(device)
        old = mapping.axis_for(row.axis)
        low, high = (old.low, old.high) if old is not None else row.span
        try:
            updated = mapping.with_axis(row.edited(low, high), row.axis)
        except MappingError as exc:
            self.problem.setText(f"{row.axis}: {exc}")
            row.show(old)  # the row says what the mapping has: it kept the refused choice on show
            return
        self.problem.clear()  # an edit that went through: an earlier refusal is over
        self.controllers.set_mapping(device, updated)
        for line in self.rows:  # another axis may have given its control up
            line.show(updated.axis_for(line.axis))

    def _on_button_edited(self, button: str, action: str) -> None:
        device = self.device()
        mapping = self.controllers.mapping(device)
        self.problem.clear()
        self.controllers.set_mapping(device, mapping.with_button(button, None if action == NONE else action))

    def _on_calibrate(self, row: _AxisRow, on: bool) -> None:
        """Calibrate starts watching the axis; Done takes the range it went through."""
        self.problem.clear()
        if on:
            row.calibrator = Calibrator()
            row.calibrate.setText("Done")
            return
        row.calibrate.setText("Calibrate")
        calibrator, row.calibrator = row.calibrator, None
        device = self.device()
        mapping = self.controllers.mapping(device)
        current = mapping.axis_for(row.axis)
        if calibrator is None or current is None:
            return
        try:
            updated = mapping.with_axis(current.calibrated(*calibrator.result(current.control == "steer")), row.axis)
        except MappingError as exc:
            self.problem.setText(f"{row.axis}: {exc}")
            row.show(current)  # the range it had
            return
        self.controllers.set_mapping(device, updated)
        row.show(updated.axis_for(row.axis))

    def restore_defaults(self) -> None:
        device = self.device()
        if device is not None:
            self.controllers.reset_mapping(device)
            self._build()

    # -- live values ---------------------------------------------------------------------------------

    def update_values(self) -> None:
        """Show every axis's raw and mapped value and every button's state now."""
        device = self.device()
        if device is None:
            return
        self.controllers.refresh()
        mapping = self.controllers.mapping(device)
        raw, pressed = device.axes(), device.pressed()
        for row in self.rows:
            value = raw.get(row.axis, 0)
            row.raw.setValue(min(max(value, row.span[0]), row.span[1]))
            if row.calibrator is not None:
                row.calibrator.feed(value)
                row.range.setText(f"{row.calibrator.low} .. {row.calibrator.high}")
            axis = mapping.axis_for(row.axis)
            mapped = axis.apply(value) if axis is not None else None
            row.value.setValue(0 if mapped is None else round(1000 * mapped))
            row.value.setFormat(NONE if mapped is None else f"{mapped:+.3f}" if axis.control == "steer"
                                else f"{mapped:.3f}")
        for name, (down, _) in self.buttons.items():
            down.setText("\u25cf" if name in pressed else "\u25cb")

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._timer.start(REFRESH_MS)

    def hideEvent(self, event) -> None:
        self._timer.stop()
        super().hideEvent(event)

    def closeEvent(self, event) -> None:
        self._timer.stop()
        super().closeEvent(event)

