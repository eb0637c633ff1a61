"""The parameter panel, generated from the parameter dataclasses: a collapsible group per subsystem
(its title counts the modified values), a slider and a value box with limits and units per value,
modified values marked, a reference preset to compare with, search, reset and save.

A value box is edited ImGui-style: drag across it to change the value (Shift x10, Alt x0.1, Escape
puts the value back), double-click or Ctrl+click to type; a drag is one step of the undo history.
Right-click a row for reset, copy path, sweep and compare."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import count
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPalette
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QScrollArea,
    QSlider,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from physics import CarParams, ParamError, ParamInfo, Preset, PresetError, load_preset
from physics.presets import preset_names
from physics.units import display_of
from workbench.gui.elided_label import ElidedLabel
from workbench.gui.number_spin import NumberSpin, not_a_number
from workbench.gui.plot_style import pretty_unit
from workbench.gui.session_model import SessionModel
from workbench.scripts.format import exact_digits

SLIDER_STEPS = 1000
FIXED_WHILE_DRIVING = ("model.kind", "model.unit", "model.reference")
SIGNIFICANT = 5  # every number in the panel: five significant digits, trailing zeros dropped
SPIN_WIDTH = (84, 114)  # [px] the value boxes' common width: what the widest text needs, within these
REFERENCE_WIDTH = 36  # [px] the reference value's column (elided; the tooltip has it whole)
NAME_WIDTH = 104  # [px] the name column's least width (a longer name is elided there; its tooltip has the path)
SLIDER_ROOM = 40  # [px] a wider panel gives the names its width until the sliders are this much wider than their least
# (at 96 a full-HD window cut "damping_front_share" with its slider 144 px wide; at 40 every name is whole there)
MARK = "  \u25cf"  # after a modified value's name
ITEM_LABELS = {"gearbox.ratios": ("1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th")}
ROW_NAMES = {"gearbox.reverse": "reverse (R)"}
DRAG_PIXELS = 200  # [px] a drag this long (no modifier) crosses about the parameter's usual span
DRAG_THRESHOLD = 3  # [px] a press that moves less is a click, not a drag
COARSE, FINE = 10.0, 0.1  # the drag step's factor with Shift, with Alt
MODIFIED_STYLE = "color: #b35900;"
GROUP_STYLE = "QToolButton { border: none; font-weight: bold; }"
_drags = count(1)
PROBLEM_SHOWN_MS = 12_000  # [ms] why an edit was refused stays this long under the panel


def _factor(info: ParamInfo) -> float:
    return display_of(info)[1]


def _shown_unit(info: ParamInfo) -> str:
    return pretty_unit(display_of(info)[0])


def nice_step(width: float) -> float:
    """The largest 1, 2 or 5 times a power of ten that is at most ``width`` (``width`` > 0)."""
    power = 10.0 ** math.floor(math.log10(width))
    for m in (5.0, 2.0, 1.0):
        if m * power <= width * (1 + 1e-9):
            return m * power
    return power


def drag_step(info: ParamInfo, span: tuple[float, float]) -> float:
    """The change per pixel of a drag (display units): the span over ``DRAG_PIXELS``, made a round number.
    A whole number moves by at least one per 20 px."""
    width = (span[1] - span[0]) * _factor(info) / DRAG_PIXELS
    step = nice_step(width) if width > 0 else 0.01
    return max(step, 0.05) if info.kind is int else step


def format_number(value: float) -> str:
    """The panel's one number format: ``SIGNIFICANT`` significant digits, no trailing zeros, never -0."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    decimals = max(0, SIGNIFICANT - 1 - math.floor(math.log10(abs(value))))
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def unused(info: ParamInfo, params: CarParams) -> bool:
    """Parameters the car has no use for (hidden): the clutch pedal without a clutch, 001's handbrake
    swap on a dynamic car, tyres on a kinematic one."""
    group, key = info.path.split(".", 1)
    if group == "pedals" and key.startswith("clutch") and not params.manual:
        return True
    if info.path in ("steering.handbrake_wheelbase", "brakes.handbrake_speed") and params.kind == "dynamic":
        return True
    return group == "tyres" and params.kind == "kinematic"


def pass_wheel_on(widget: QWidget, event) -> None:
    """Hand a wheel event to the scroll area the widget sits in (it scrolls, the widget stays put)."""
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractScrollArea):
        parent = parent.parentWidget()
    if parent is None:
        event.ignore()
        return
    QApplication.sendEvent(parent.viewport(), event)
    event.accept()


class FocusedWheel:
    """Mixin for an editor that the mouse wheel edits only once it has the focus (else the panel scrolls)."""

    def wheelEvent(self, event) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            pass_wheel_on(self, event)


class WheelSafeSpin(FocusedWheel, NumberSpin):
    """A spin box that the mouse wheel edits only once it has the focus (else the panel scrolls), and that reads
    exponent notation as typed (workbench.gui.number_spin)."""

    def __init__(self):
        super().__init__()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # Values are kept exactly (Qt rounds a value to the box's decimals; 323 keeps every double above 1e-308, where
        # 10 turned 1e-11 into 0, and 1/60 into 0.0166666667); textFromValue rounds what is shown.
        self.setDecimals(323)
        self.setAlignment(Qt.AlignmentFlag.AlignRight)

    def textFromValue(self, value: float) -> str:
        return format_number(value)


class DragSpin(WheelSafeSpin):
    """A value box edited ImGui-style: a horizontal drag changes the value by ``pixel_step`` per pixel
    (Shift x10, Alt x0.1, within the box's range); Escape during the drag puts the value back;
    double-click or Ctrl+click types a value (then the box is an ordinary spin box until the typing ends).

    It shows the value as it goes and says what happens through its signals; the value box never
    emits ``valueChanged`` for a drag (the editor sends the edits, with one merge key per drag)."""

    drag_started = Signal()
    dragged = Signal(float)  # the value now shown (display units)
    drag_ended = Signal(bool)  # True: kept; False: cancelled with Escape (the value before is shown again)
    menu_requested = Signal(QPoint)  # a right-click, at this global position
    typed_out_of_range = Signal(float)  # a number typed past the box's range (display units): the box reverts
    typed_not_a_number = Signal(str)  # a text that is no finite number ("-", "1e309"): the box reverts

    def __init__(self, pixel_step: float, whole: bool = False):
        super().__init__()
        self.pixel_step = pixel_step
        self.whole = whole  # a whole number (0/1 switches, counts): the drag moves in whole steps
        self.setButtonSymbols(QDoubleSpinBox.ButtonSymbols.NoButtons)  # the box is the drag handle
        self.typing = False
        self.dragging = False
        self._press_x: float | None = None  # the left button is down on the box (global x)
        self._last_x = 0.0
        self._start = 0.0  # the value before the drag
        self._exact = 0.0  # the dragged value before rounding
        self.lineEdit().installEventFilter(self)
        self.editingFinished.connect(self.stop_typing)
        self._show_mode()

    # -- modes -------------------------------------------------------------------------------------

    def _show_mode(self) -> None:
        shape = Qt.CursorShape.IBeamCursor if self.typing else Qt.CursorShape.SizeHorCursor
        self.lineEdit().setCursor(shape)
        self.setCursor(shape)

    def start_typing(self) -> None:
        """Type a value: the text is selected, Return (or leaving the box) applies it."""
        self._press_x = None
        self.typing = True
        self._show_mode()
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        self.selectAll()

    def stop_typing(self) -> None:
        if self.typing:
            self.typing = False
            self.lineEdit().deselect()
            self._show_mode()

    def _check_typed(self) -> None:
        """A number typed past the range is refused by the box, which puts its value back: say so (it reverted
        without a word, while a value the model refuses says why). The text on show, unchanged, is the value the box
        holds (its digits rounded: "2" for a maximum of 1.999999998), not a number typed past the range."""
        number = self._number(self.lineEdit().text())
        if number == self._number(self.textFromValue(self.value())):
            return
        try:
            value = float(number)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):  # reverted without a word
            self.typed_not_a_number.emit(number)
        elif not self.minimum() <= value <= self.maximum():
            self.typed_out_of_range.emit(value)

    def keyPressEvent(self, event) -> None:
        # Whether typing was started with a double-click or the box took the keys after a single click (a value in
        # range is taken either way; one past it or no number was put back without a word after a single click).
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._check_typed()
        super().keyPressEvent(event)

    def focusOutEvent(self, event) -> None:
        if self.typing or self.lineEdit().isModified():
            self._check_typed()
        super().focusOutEvent(event)
        self.stop_typing()

    # -- the drag ----------------------------------------------------------------------------------

    def _rounded(self, value: float) -> float:
        if self.whole:
            value = float(round(value))
        else:
            decimals = max(0, -math.floor(math.log10(self.pixel_step * FINE)))
            value = round(value, decimals)
        return min(max(value, self.minimum()), self.maximum())

    def _move_to(self, x: float, modifiers) -> None:
        scale = COARSE if modifiers & Qt.KeyboardModifier.ShiftModifier else (
            FINE if modifiers & Qt.KeyboardModifier.AltModifier else 1.0)
        self._exact += (x - self._last_x) * self.pixel_step * scale
        self._exact = min(max(self._exact, self.minimum()), self.maximum())
        self._last_x = x
        value = self._rounded(self._exact)
        if value != self.value():
            with QSignalBlocker(self):
                self.setValue(value)
            self.dragged.emit(self.value())

    def _end_drag(self, keep: bool) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        self.dragging = False
        self._press_x = None
        if not keep:
            with QSignalBlocker(self):
                self.setValue(self._start)
        self.drag_ended.emit(keep)

    def cancel_drag(self) -> None:
        """Escape: the value before the drag comes back."""
        if self.dragging:
            self._end_drag(False)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is not self.lineEdit():  # the application, while a drag lasts: Escape ends it
            if kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) and self.dragging \
                    and event.key() == Qt.Key.Key_Escape:
                event.accept()
                self.cancel_drag()
                return True
            return False
        if self.typing:
            return False
        left = Qt.MouseButton.LeftButton
        if kind == QEvent.Type.MouseButtonDblClick and event.button() == left:
            self.start_typing()
            return True
        if kind == QEvent.Type.MouseButtonPress and event.button() == left:
            if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                self.start_typing()
                return True
            self._press_x = self._last_x = event.globalPosition().x()
            self.setFocus(Qt.FocusReason.MouseFocusReason)
            return True
        if kind == QEvent.Type.MouseMove and self._press_x is not None and event.buttons() & left:
            x = event.globalPosition().x()
            if not self.dragging:
                if abs(x - self._press_x) < DRAG_THRESHOLD:
                    return True
                self.dragging = True
                self._start = self._exact = self.value()
                app = QApplication.instance()
                if app is not None:
                    app.installEventFilter(self)
                self.drag_started.emit()
            self._move_to(x, event.modifiers())
            return True
        if kind == QEvent.Type.MouseButtonRelease and event.button() == left:
            if self.dragging:
                self._end_drag(True)
            self._press_x = None
            return True
        if kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease):
            return event.button() == Qt.MouseButton.MiddleButton  # no pasting into the box
        return False

    def contextMenuEvent(self, event) -> None:
        if self.typing:
            super().contextMenuEvent(event)  # cut, copy, paste while typing
            return
        self.menu_requested.emit(event.globalPos())
        event.accept()


class WheelSafeSlider(FocusedWheel, QSlider):
    """A slider that the mouse wheel moves only once it has the focus."""

    def __init__(self):
        super().__init__(Qt.Orientation.Horizontal)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


class WheelSafeCombo(FocusedWheel, QComboBox):
    def __init__(self):
        super().__init__()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


class NumberEditor(QWidget):
    """Slider + spin box for one number (or one entry of a list), in display units."""

    edited = Signal(float, str)  # new value in model units, and the merge key of a slider drag ("" for none)
    refused = Signal(str)  # why a typed value was not taken (the box shows the value it had)

    def __init__(self, info: ParamInfo, value: float, label: str = "", parent=None):
        super().__init__(parent)
        self.info = info
        self.factor = _factor(info)
        lo, hi = _bounds(info)
        self.span = editor_span(info, value)
        self.spin = DragSpin(drag_step(info, self.span), whole=info.kind is int)
        self.spin.setToolTip(f"{info.path}: drag across to change ({format_number(self.spin.pixel_step)} per pixel, "
                             "Shift \u00d710, Alt \u00d70.1, Escape undoes the drag); double-click or "
                             "Ctrl+click to type; right-click for more")
        # An open bound (mass > 0) is kept out by a hair, relative to the bound itself.
        self.spin.setRange((lo + (1e-9 * max(abs(lo), 1.0) if info.lo_open else 0.0)) * self.factor,
                           (hi - (1e-9 * max(abs(hi), 1.0) if info.hi_open else 0.0)) * self.factor)
        step = (self.span[1] - self.span[0]) * self.factor / 100.0 or 0.1
        self.spin.setSingleStep(float(format_number(step)))
        unit = _shown_unit(info)
        if unit:
            self.spin.setSuffix(f" {unit}")
        self.spin.setKeyboardTracking(False)
        self.slider = WheelSafeSlider()
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setMinimumWidth(24)
        self._drag = ""
        self._value = value  # the model value on show
        self._before: float | None = None  # the model value before the value box's drag (once it moved)
        self.slider.sliderPressed.connect(self._on_slider_pressed)
        self.slider.sliderReleased.connect(self._on_slider_released)
        self.spin.valueChanged.connect(self._on_spin_changed)
        self.spin.drag_started.connect(self._on_slider_pressed)
        self.spin.dragged.connect(self._on_spin_dragged)
        self.spin.drag_ended.connect(self._on_spin_drag_ended)
        self.spin.typed_out_of_range.connect(self._on_typed_out_of_range)
        self.spin.typed_not_a_number.connect(self._on_typed_not_a_number)
        self.slider.valueChanged.connect(self._on_slider_changed)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        if label:  # a list's entry ("1st", "R"): a narrow tag, so a list row is hardly wider than the others
            layout.setSpacing(3)
            tag = QLabel(label)
            tag.setFixedWidth(24)
            grey_text(tag, "#555")
            layout.addWidget(tag)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self.show_value(value)

    def show_value(self, value: float) -> None:
        """Show a model value without emitting ``edited`` (no echo back to the model)."""
        self._value = value
        with QSignalBlocker(self.spin), QSignalBlocker(self.slider):
            self.spin.setValue(value * self.factor)
            lo, hi = self.span
            share = (value - lo) / (hi - lo) if hi > lo else 0.0
            self.slider.setValue(int(round(min(max(share, 0.0), 1.0) * SLIDER_STEPS)))

    def _on_slider_pressed(self) -> None:
        self._drag = f"{self.info.path}#{next(_drags)}"

    def _on_slider_released(self) -> None:
        self._drag = ""

    def _on_typed_out_of_range(self, shown: float) -> None:
        from workbench.runs.sweep_axes import range_problem

        unit = _shown_unit(self.info)
        # The model's own range where it refuses the value; else the box's (an open bound is kept out by a hair).
        why = range_problem(self.info, shown / self.factor) or (
            f"the box takes {self.spin.minimum():.5g} to {self.spin.maximum():.5g} {unit}".rstrip())
        self.refused.emit(f"{self.info.path} = {exact_digits(shown)} {unit}".rstrip() + f": {why}; not changed")

    def _on_typed_not_a_number(self, text: str) -> None:
        self.refused.emit(f"{self.info.path}: {not_a_number(text)}; not changed")

    def _on_spin_changed(self, shown: float) -> None:
        self.edited.emit(shown / self.factor, "")

    def _on_spin_dragged(self, shown: float) -> None:
        if self._before is None:
            self._before = self._value
        with QSignalBlocker(self.slider):
            lo, hi = self.span
            share = (shown / self.factor - lo) / (hi - lo) if hi > lo else 0.0
            self.slider.setValue(int(round(min(max(share, 0.0), 1.0) * SLIDER_STEPS)))
        self.edited.emit(shown / self.factor, self._drag)

    def _on_spin_drag_ended(self, kept: bool) -> None:
        if not kept and self._before is not None:
            # The value before, under the drag's merge key: its history step comes to nothing and goes.
            self.edited.emit(self._before, self._drag)
        self._before = None
        self._drag = ""

    def set_modified(self, modified: bool) -> None:
        """Mark the value box itself when its value differs from the preset's."""
        font = self.spin.font()
        if font.bold() != modified:
            font.setBold(modified)
            self.spin.setFont(font)
        self.spin.setProperty("modified", modified)

    def _on_slider_changed(self, position: int) -> None:
        lo, hi = self.span
        value = lo + (hi - lo) * position / SLIDER_STEPS
        shown = float(format_number(value * self.factor))
        self.edited.emit(shown / self.factor, self._drag)


def _bounds(info: ParamInfo) -> tuple[float, float]:
    return (info.lo if info.lo is not None else -1e9, info.hi if info.hi is not None else 1e9)


def editor_span(info: ParamInfo, value: float) -> tuple[float, float]:
    """The values a number's slider spans (model units): the parameter's usual span within its range, or for a value
    outside it one around the value."""
    lo, hi = _bounds(info)
    span = info.span
    if span is None or not span[0] <= value <= span[1]:
        # The span is for SI cars; a pixel car's lengths (or an unusual value) get one around the value.
        reach = max(abs(value), 1.0)
        span = (0.0 if value >= 0 else -2.0 * reach, 2.0 * reach if value >= 0 else 0.0)
    return (max(span[0], lo), min(span[1], hi))


def box_text_width(metrics: QFontMetrics, info: ParamInfo, value: float) -> int:
    """Pixels a value box needs to show ``value``, or either end of its slider, with the unit."""
    factor, unit = _factor(info), _shown_unit(info)
    suffix = f" {unit}" if unit else ""
    texts = [format_number(v * factor) + suffix for v in (*editor_span(info, value), value)]
    return max(metrics.horizontalAdvance(t) for t in texts) + 12  # frame and margins


def row_name(info: ParamInfo) -> str:
    """The name a parameter's row shows: its path without the group."""
    return ROW_NAMES.get(info.path, info.path.split(".", 1)[1])


def shown_number(info: ParamInfo, value: Any) -> str:
    """A parameter's value in its display unit, without the unit (a choice as it is)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, list, tuple)):
        return str(value)
    factor = _factor(info)
    items = value if isinstance(value, (list, tuple)) else [value]
    return ", ".join(format_number(v * factor) for v in items)


def shown_value(info: ParamInfo, value: Any) -> str:
    """A parameter's value as the panel shows it: in its display unit, with the unit."""
    if isinstance(value, bool) or not isinstance(value, (int, float, list, tuple)):
        return str(value)
    return f"{shown_number(info, value)} {_shown_unit(info)}".rstrip()


def grey_text(label: QLabel, colour: str) -> None:
    """``label``'s text in ``colour``, through its palette: a style sheet of its own on each of the some 120 labels a
    panel builds had Qt polish every one through its style-sheet style, about 13 of the 277 ms a sedan's window took to
    build (offscreen, three rounds of 12 windows)."""
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText, QColor(colour))
    label.setPalette(palette)


class ParamRow:
    """The widgets of one parameter: name label, editor(s), reset button, reference value."""

    def __init__(self, panel: ParamPanel, grid: QGridLayout, row: int, info: ParamInfo, value: Any):
        self.panel = panel
        self.info = info
        self.name = row_name(info)
        self.label = ElidedLabel(self.name, Qt.TextElideMode.ElideMiddle)
        unit = _shown_unit(info)
        self.label.set_tip(f"{info.path}{f' [{unit}]' if unit else ''}: {info.doc}\nallowed: {info.allowed()}")
        self.reset = QToolButton()
        self.reset.setText("\u21ba")
        self.reset.setToolTip(f"reset {info.path} to the preset's value")
        self.reset.clicked.connect(lambda: panel.reset_param(info.path))
        self.reference = QLabel()
        self.reference.setFixedWidth(REFERENCE_WIDTH)
        grey_text(self.reference, "#777")
        self.reference.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.widgets: list[QWidget] = [self.label, self.reset, self.reference]
        grid.addWidget(self.label, row, 0)
        for widget in (self.label, self.reference):  # right-click anywhere on the row: its menu
            widget.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            widget.customContextMenuRequested.connect(
                lambda pos, w=widget: panel.row_menu(info.path, w, pos))
        self.editors: list[QWidget] = []
        if info.choices:
            combo = WheelSafeCombo()
            combo.addItems(list(info.choices))
            combo.setCurrentText(value)
            combo.setToolTip(self.label.toolTip())
            if info.path in FIXED_WHILE_DRIVING:
                combo.setEnabled(False)
                combo.setToolTip(f"{info.path} is fixed while driving (the state means something else "
                                 "with another value): edit the preset file to change it")
            combo.currentTextChanged.connect(lambda text: panel.edit(info.path, text))
            self.editors.append(combo)
            grid.addWidget(combo, row, 1)
            self.widgets.append(combo)
        elif info.kind is list:
            box = QWidget()
            column = QVBoxLayout(box)
            column.setContentsMargins(0, 0, 0, 0)
            column.setSpacing(1)
            labels = ITEM_LABELS.get(info.path, ())
            for i, item in enumerate(value):
                editor = NumberEditor(info, item, labels[i] if i < len(labels) else f"#{i + 1}")
                editor.edited.connect(lambda v, key, i=i: panel.edit_item(info.path, i, v, key))
                editor.refused.connect(panel.show_problem)
                self._menu_on(editor)
                self.editors.append(editor)
                column.addWidget(editor)
            grid.addWidget(box, row, 1)
            self.widgets.append(box)
        else:
            editor = NumberEditor(info, value)
            editor.edited.connect(lambda v, key: panel.edit(info.path, v, key))
            editor.refused.connect(panel.show_problem)
            self._menu_on(editor)
            self.editors.append(editor)
            grid.addWidget(editor, row, 1)
            self.widgets.append(editor)
        grid.addWidget(self.reset, row, 2)
        grid.addWidget(self.reference, row, 3)

    def _menu_on(self, editor: NumberEditor) -> None:
        path, panel = self.info.path, self.panel
        editor.spin.menu_requested.connect(lambda at: panel.row_menu(path, editor.spin, editor.spin.mapFromGlobal(at)))
        editor.slider.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        editor.slider.customContextMenuRequested.connect(lambda pos: panel.row_menu(path, editor.slider, pos))

    def show(self, value: Any, base: Any, reference: Any) -> None:
        for i, editor in enumerate(self.editors):
            if isinstance(editor, QComboBox):
                with QSignalBlocker(editor):
                    editor.setCurrentText(value)
            else:
                editor.show_value(value[i] if self.info.kind is list else value)
                if self.info.kind is list:
                    editor.set_modified(not isinstance(base, (list, tuple)) or i >= len(base) or value[i] != base[i])
                else:
                    editor.set_modified(value != base)
        self.modified = value != base
        self.differs = value != reference
        font = self.label.font()
        if font.bold() != self.modified:  # a font or style sheet set again, even the same, polishes the label again
            font.setBold(self.modified)
            self.label.setFont(font)
        self.label.set_full_text(self.name, MARK if self.modified else "")
        style = MODIFIED_STYLE if self.modified else ""
        if self.label.styleSheet() != style:
            self.label.setStyleSheet(style)
        self.reset.setEnabled(self.modified)
        if reference is None:
            self.reference.setText("\u2014")
            self.reference.setToolTip("the reference preset has no such parameter")
        else:
            # In the display unit, as the editors show the value (a lock of 0.698 rad reads 40 deg, not 0.6...).
            text = shown_number(self.info, reference) if self.differs else ""
            self.reference.setText(self.reference.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight,
                                                                           REFERENCE_WIDTH))
            self.reference.setToolTip(f"reference ({self.panel.reference_preset.name}): "
                                      f"{shown_value(self.info, reference)}")

    def focusable(self) -> list[QWidget]:
        """The row's widgets that Tab reaches, in order."""
        widgets: list[QWidget] = []
        for editor in self.editors:
            widgets += [editor.slider, editor.spin] if isinstance(editor, NumberEditor) else [editor]
        return [w for w in [*widgets, self.reset] if w.focusPolicy() & Qt.FocusPolicy.TabFocus]

    def set_visible(self, visible: bool) -> None:
        for w in self.widgets:
            if w.isHidden() == visible:  # shown or hidden only when it changes: each call costs a show or hide
                w.setVisible(visible)


ROW_SPACING = 6  # [px] between rows where the style has no one spacing for them
REST_AFTER_MS = 2000  # [ms] after the panel is shown, its rows not in view are built, one group a turn of the loop
KEPT_PANELS = 5  # other sets of parameters whose rows are kept (with the one on show: the shipped presets' six)


def _drop_typing(content: QWidget) -> None:
    """A value half typed in ``content`` (its box has the keyboard focus) dropped, not applied: hiding the box would
    take its focus away, which applies what it holds, and by then the panel shows another car."""
    focused = QApplication.focusWidget()
    if focused is None or not content.isAncestorOf(focused):
        return
    chain = []
    widget = focused
    while widget is not None and widget is not content:
        chain.append(widget)
        widget = widget.parentWidget()
    blockers = [QSignalBlocker(w) for w in chain]
    try:
        focused.clearFocus()
    finally:
        for blocker in blockers:
            blocker.unblock()
    for widget in chain:
        if isinstance(widget, DragSpin):
            widget.stop_typing()  # the value it shows is set again when its rows come back (_refresh)


class _Rows(QWidget):
    """The widget of a panel's rows. Tab (or Backtab) inside it first builds the rows not built yet, so that the
    keyboard reaches every row in order."""

    def __init__(self, panel: ParamPanel):
        super().__init__()
        self.setObjectName("rows")
        self._build_rest = panel.build_rest

    def focusNextPrevChild(self, next_: bool) -> bool:
        self._build_rest()
        return super().focusNextPrevChild(next_)


@dataclass
class _Built:
    """The rows built for one set of parameters: their widget and what the panel knows of them."""
    content: QWidget
    rows: dict
    groups: dict
    grids: dict  # group -> its grid
    members: dict  # group -> its parameters' ParamInfos
    pending: dict  # group -> True: its rows are not built yet
    spin_width: int
    sizes: _Sizes
    name_most: int
    name_least: int
    infos: list


@dataclass
class _Sizes:
    """What a row's widgets measure, taken from one of each kind built and thrown away: the rows of a group not built
    yet take the height they will have, and the columns the widths, so nothing moves when they are built."""
    number: int  # [px] a number row's height
    item: int  # a list's entry's height (1 px apart)
    choice: int  # a choice row's height
    editor: int  # the editors' column: its least width
    reset: int  # the reset buttons' column
    spacing: int  # between rows


class ParamPanel(QWidget):
    """Every parameter of the current car, editable while it drives."""

    save_requested = Signal()
    load_requested = Signal()
    sweep_requested = Signal(str)  # a parameter path: "Sweep this" on its row
    compare_requested = Signal(str)  # a parameter path: "Compare with reference" on its row
    reference_file_requested = Signal()  # "other file..." picked as the reference

    def __init__(self, model: SessionModel, parent=None):
        super().__init__(parent)
        self._model = model
        # Rows are built as their group comes into view (scrolled to, unfolded), or when all are needed (a search,
        # ``rows``, Tab): a car's 120 rows took 0.24 s of the 0.53 s a window took to build, show and close, where
        # about 30 are on show when it opens.
        self._rows: dict[str, ParamRow] = {}
        self._grids: dict[str, QGridLayout] = {}
        self._members: dict[str, list] = {}
        self._pending: dict[str, bool] = {}
        self._spin_width = SPIN_WIDTH[0]
        self._sizes: _Sizes | None = None
        self.groups: dict[str, tuple[QToolButton, QWidget]] = {}
        # The rows built for other cars' parameters, kept hidden to be shown again when such a car comes back (a
        # script on another preset and back again): building some 300 rows takes about 0.4 s, showing them again
        # a refresh of their values. Keyed by the parameters' ParamInfos (paths, units, ranges: the parking car's
        # pixels are not the teaching car's metres), the most recent last.
        self._kept: dict[tuple, _Built] = {}
        self._built_for: list | None = None
        self.folded: set[str] = set()
        self.reference_preset: Preset = model.session.preset
        reset_all = QPushButton("Reset all")
        reset_all.setToolTip("put every parameter back to the preset's value")
        reset_all.clicked.connect(lambda: self.reset(None))
        save = QPushButton("Save as\u2026")
        save.setToolTip("save the parameters as a preset file")
        save.clicked.connect(self.save_requested)
        load = QPushButton("Load\u2026")
        load.setToolTip("load a preset file")
        load.clicked.connect(self.load_requested)
        buttons = QHBoxLayout()
        buttons.addWidget(reset_all)
        buttons.addWidget(save)
        buttons.addWidget(load)
        self.search = QLineEdit()
        self.search.setPlaceholderText("search parameters")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._apply_filter)
        self.modified_only = QCheckBox("modified only")
        self.modified_only.setToolTip("show only the values that differ from the preset or the reference")
        self.modified_only.toggled.connect(self._apply_filter)
        filters = QHBoxLayout()
        filters.addWidget(self.search, 1)
        filters.addWidget(self.modified_only)
        self.reference = WheelSafeCombo()
        self.reference.setToolTip("the preset whose values are shown, in grey, beside those that differ")
        self.reference.activated.connect(self._on_reference_picked)
        reference = QHBoxLayout()
        reference.addWidget(QLabel("compare with"))
        reference.addWidget(self.reference, 1)
        # Elided to the panel's width: a long search (a line of a preset file pasted into it) made the line's whole
        # text the panel's least width, and the window grew past a 1024 px screen to show it.
        self.no_match = ElidedLabel()
        self.no_match.setStyleSheet("color: #666;")
        self.no_match.setVisible(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #a40000;")
        self.status.setVisible(False)
        # Why an edit was refused, for a while: it stayed up, over a value long since put back, while the car drove.
        self._status_timer = QTimer(self)
        self._status_timer.setSingleShot(True)
        self._status_timer.timeout.connect(lambda: self.status.setVisible(False))
        # The rows not in view are built a while after the panel shows, a group per turn of the event loop.
        self._rest_timer = QTimer(self)
        self._rest_timer.setSingleShot(True)
        self._rest_timer.timeout.connect(self._build_next)
        self._scroll = QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.viewport().installEventFilter(self)  # its width sets the names' column, its height the rows built
        self._scroll.verticalScrollBar().valueChanged.connect(self._fill_view)
        self._name_least = self._name_width = self._name_most = NAME_WIDTH
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(buttons)
        layout.addLayout(filters)
        layout.addLayout(reference)
        layout.addWidget(self.no_match)
        layout.addWidget(self._scroll, 1)
        # Under the rows: above them, its one or two lines coming and going moved every row by 18-35 px, and a click
        # aimed at one row as the line went landed on the next.
        layout.addWidget(self.status)
        model.preset_loaded.connect(self._on_preset_loaded)
        model.params_changed.connect(self._on_params_changed)
        self._fill_references()
        self._build()

    # -- construction ------------------------------------------------------------------------------

    def _fill_references(self) -> None:
        with QSignalBlocker(self.reference):
            self.reference.clear()
            ref = self.reference_preset
            self.reference.addItem(ref.name, "current")
            self.reference.setItemData(0, str(ref.path or ref.name), Qt.ItemDataRole.ToolTipRole)
            for name in preset_names():
                if name != ref.name:
                    self.reference.addItem(name, name)
            self.reference.addItem("other file\u2026", "file")
            self.reference.setCurrentIndex(0)

    @property
    def rows(self) -> dict[str, ParamRow]:
        """Every row of the car on show, by parameter path (those not built yet are built)."""
        self.build_rest()
        return self._rows

    def _build(self, infos: list | None = None) -> None:
        infos = self._shown_infos() if infos is None else infos
        kept = self._kept.pop(tuple(infos), None)  # before the rows on show join the kept ones
        self._keep_shown()
        if kept is not None:
            self._show_built(kept)
            return
        content = _Rows(self)
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self._rows = {}  # new dictionaries: the old ones stay with the rows kept
        self.groups = {}
        self._grids = {}
        self._members = {}
        self._pending = {}
        self._built_for = infos
        for group in dict.fromkeys(i.path.split(".")[0] for i in infos):
            header = QToolButton()
            header.setText(group)
            header.setCheckable(True)
            header.setChecked(group not in self.folded)
            header.setArrowType(Qt.ArrowType.DownArrow if group not in self.folded else Qt.ArrowType.RightArrow)
            header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            header.setStyleSheet(GROUP_STYLE)
            body = QWidget()
            grid = QGridLayout(body)
            grid.setContentsMargins(14, 0, 0, 4)
            grid.setColumnStretch(1, 1)
            grid.setHorizontalSpacing(4)
            self._grids[group] = grid
            self._members[group] = [i for i in infos if i.path.split(".")[0] == group]
            self._pending[group] = True
            header.toggled.connect(lambda on, g=group: self.set_group_open(g, on))
            column.addWidget(header)
            column.addWidget(body)
            # Shown or hidden once in the panel: before, still without a parent, it was shown as a window of its own
            # for an instant (on every car opened), which took the activation from the main window (offscreen its
            # shortcut keys then went nowhere).
            body.setVisible(group not in self.folded)
            self.groups[group] = (header, body)
        # One column width for the names in every group, so the editors line up: the widest name's (bold and
        # marked modified) where the panel has room for it, NAME_WIDTH at least (names elided in it).
        bold = QFont(self.font())
        bold.setBold(True)
        self._name_most = max((QFontMetrics(bold).horizontalAdvance(row_name(i) + MARK) + 6 for i in infos),
                              default=80)
        self._name_least = min(self._name_most, NAME_WIDTH)
        sizes = self._sizes = self._measure(infos)  # and the value boxes' common width
        for group, grid in self._grids.items():  # the columns as wide as the rows built will make them
            grid.setColumnMinimumWidth(1, sizes.editor)
            grid.setColumnMinimumWidth(2, sizes.reset)
            grid.setColumnMinimumWidth(3, REFERENCE_WIDTH)
            grid.setVerticalSpacing(sizes.spacing)  # as measured, whatever the style would give a pair of rows
            self.groups[group][1].setMinimumHeight(self._rows_height(group))
        self._set_name_width(self._name_least)
        column.addStretch(1)
        self._place(content)

    def _measure(self, infos: list) -> _Sizes:
        """The sizes of rows (:class:`_Sizes`), from one row's widgets of each kind made and thrown away (each of the
        choices of ``infos``: a choice's box is as wide as its longest choice); sets the value boxes' common width,
        what the widest text of any of them needs (built or not)."""
        params = self._model.session.params
        numbers = [i for i in infos if not i.choices]
        sample = next((i for i in numbers if i.kind is not list), numbers[0] if numbers else None)
        made: list[QWidget] = []
        editors = []
        if sample is not None:
            value = params.get(sample.path)
            value = value[0] if sample.kind is list else value
            # A list's entry (its tag before it, "1st"), measured whether or not this car has a list: rows kept
            # for another car take their heights from these sizes too.
            editors = [NumberEditor(sample, value), NumberEditor(sample, value, "1st")]
            made += editors
            metrics = editors[0].spin.fontMetrics()
            texts = [box_text_width(metrics, i, v) for i in numbers
                     for v in (params.get(i.path) if i.kind is list else [params.get(i.path)])]
            self._spin_width = min(max(texts + [SPIN_WIDTH[0]]), SPIN_WIDTH[1])
            for editor in editors:
                editor.spin.setFixedWidth(self._spin_width)
        reset = QToolButton()
        reset.setText("\u21ba")
        label = ElidedLabel("x")
        combos = []
        for info in infos:
            if info.choices:
                combo = WheelSafeCombo()
                combo.addItems(list(info.choices))
                combos.append(combo)
        made += [reset, label, *combos]
        for widget in made:
            widget.ensurePolished()
        rest = max(reset.sizeHint().height(), label.sizeHint().height())
        lists = any(i.kind is list for i in numbers)  # a list's tag widens the editors' column
        sizes = _Sizes(number=max([e.sizeHint().height() for e in editors[:1]] + [rest]),
                       item=max([e.sizeHint().height() for e in editors[1:]] + [0]),
                       choice=max([c.sizeHint().height() for c in combos] + [rest]),
                       editor=max([w.minimumSizeHint().width() for w in (*editors[:2 if lists else 1], *combos)]
                                  + [0]),
                       reset=reset.sizeHint().width(),
                       spacing=self.style().pixelMetric(QStyle.PixelMetric.PM_LayoutVerticalSpacing))
        if sizes.spacing < 0:  # a style that spaces each pair of controls its own way (macOS): one spacing here
            sizes.spacing = ROW_SPACING
        for widget in made:
            widget.deleteLater()
        return sizes

    def _rows_height(self, group: str) -> int:
        """The height a group's rows take once built (its body's)."""
        sizes = self._sizes
        heights = []
        params = self._model.session.params
        for info in self._members[group]:
            if info.choices:
                heights.append(sizes.choice)
            elif info.kind is list:
                n = len(params.get(info.path))
                heights.append(max(n * sizes.item + (n - 1), sizes.number))
            else:
                heights.append(sizes.number)
        return sum(heights) + sizes.spacing * max(len(heights) - 1, 0) + 4  # the grid's bottom margin

    def _place(self, content: QWidget) -> None:
        """``content`` (the rows) into the scroll area, fitted to the panel's width, with the current values."""
        self._scroll.setWidget(content)
        content.show()
        # Never a horizontal scroll bar: the dock is at least as wide as the rows.
        content.layout().activate()
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._fit_width()
        QTimer.singleShot(0, self._fit_width)  # again once the rows are polished (styles, fonts)
        self._refresh()  # and the rows in view built
        if self._pending and self.isVisible():
            self._rest_timer.start(REST_AFTER_MS)

    def _keep_shown(self) -> None:
        """Keep the rows on show, hidden (the panel their parent), for when their car comes back."""
        content = self._scroll.widget()
        if content is None:
            return
        _drop_typing(content)  # before its box loses the focus: taking the rows out of the scroll area hides them
        self._scroll.takeWidget()
        if self._built_for is None:
            content.deleteLater()
            return
        content.hide()
        content.setParent(self)
        key = tuple(self._built_for)
        replaced = self._kept.pop(key, None)
        if replaced is not None:
            replaced.content.deleteLater()
        self._kept[key] = _Built(content, self._rows, self.groups, self._grids, self._members, self._pending,
                                 self._spin_width, self._sizes, self._name_most, self._name_least, self._built_for)
        while len(self._kept) > KEPT_PANELS:
            oldest = self._kept.pop(next(iter(self._kept)))
            oldest.content.deleteLater()

    def _show_built(self, built: _Built) -> None:
        """Rows built before for these parameters, on show again with the current values and folds."""
        self._rows, self.groups, self._grids = built.rows, built.groups, built.grids
        self._members, self._pending, self._spin_width = built.members, built.pending, built.spin_width
        self._sizes = built.sizes
        self._name_most, self._name_least, self._built_for = built.name_most, built.name_least, built.infos
        for group in self.groups:
            self.set_group_open(group, group not in self.folded)
        self._set_name_width(self._name_least)
        self._place(built.content)

    def _set_name_width(self, width: int) -> None:
        self._name_width = width
        for row in self._rows.values():
            row.label.setFixedWidth(width)
        for grid in self._grids.values():
            grid.setColumnMinimumWidth(0, width)

    def _fit_width(self) -> None:
        """The panel's least width: its rows with the names at their least (never wider: a wide panel's
        longer names would hold the dock, and the window, at that width)."""
        content = self._scroll.widget()
        if content is None:
            return
        content.layout().activate()
        least = content.minimumSizeHint().width() - (self._name_width - self._name_least)
        # No row on show (a search that matches nothing) leaves the hint below the names' share: never negative
        # (Qt warned "setMinimumSize: Negative sizes").
        self._scroll.setMinimumWidth(max(least, 0) + self._scroll.verticalScrollBar().sizeHint().width()
                                     + 2 * self._scroll.frameWidth())
        self._fit_names()

    def _fit_names(self) -> None:
        """Widen the names' column into the width the sliders do not need (up to the widest name)."""
        content = self._scroll.widget()
        if content is None:
            return
        content.layout().activate()
        rest = content.minimumSizeHint().width() - self._name_width  # every column but the names, at its least
        room = self._scroll.viewport().width() - rest - SLIDER_ROOM
        width = min(max(room, self._name_least), self._name_most)
        if width != self._name_width:
            self._set_name_width(width)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self._scroll.viewport():
            self._fit_names()
            self._fill_view()
        return False

    def set_group_open(self, group: str, open_: bool) -> None:
        header, body = self.groups[group]
        with QSignalBlocker(header):
            header.setChecked(open_)
        header.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        body.setVisible(open_)
        (self.folded.discard if open_ else self.folded.add)(group)
        self._fill_view()  # opened, or folded: the groups below come up into the view

    def set_folded(self, groups) -> None:
        """Fold these groups (the others open); kept across preset loads and restarts."""
        self.folded = set(groups)
        for group in self.groups:
            self.set_group_open(group, group not in self.folded)

    # -- rows built as they come into view -----------------------------------------------------------

    def build_rest(self) -> None:
        """Build the rows not built yet (every group's)."""
        for group in list(self._pending):
            self._build_group(group)

    def _fill_view(self, *args) -> None:
        """Build the groups whose rows are in the scroll area's view (or above it), in order."""
        if not self._pending or self._scroll.widget() is None:
            return
        bottom = self._scroll.verticalScrollBar().value() + self._scroll.viewport().height()
        top = 0
        for group, (header, body) in self.groups.items():
            if header.isHidden():
                continue
            top += header.sizeHint().height() + 2
            if top > bottom:
                return
            if body.isHidden():
                continue
            if group in self._pending:
                self._build_group(group)
            top += body.sizeHint().height() + 2

    def _build_group(self, group: str) -> None:
        del self._pending[group]
        grid = self._grids[group]
        params = self._model.session.params
        rows = []
        for r, info in enumerate(self._members[group]):
            row = self._rows[info.path] = ParamRow(self, grid, r, info, params.get(info.path))
            row.label.setFixedWidth(self._name_width)
            for editor in row.editors:
                if isinstance(editor, NumberEditor):
                    editor.spin.setFixedWidth(self._spin_width)
            rows.append(row)
        self.groups[group][1].setMinimumHeight(0)
        base, ref = self._model.session.preset.params, self.reference_preset.params
        for row in rows:
            self._show_row(row, params, base, ref)
            row.set_visible(True)  # at once: a widget put into a panel on show is shown only by the event loop
        # Tab goes from the group's header through its rows (then on to the next header): rows made after the
        # window's other widgets came last in its focus chain, and Tab left the panel halfway down.
        previous = self.groups[group][0]
        for row in rows:
            for widget in row.focusable():
                QWidget.setTabOrder(previous, widget)
                previous = widget

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._pending and not self._rest_timer.isActive():
            self._rest_timer.start(REST_AFTER_MS)

    def _build_next(self) -> None:
        """One group more, while the window is idle, until every row is built (the keyboard reaches every row,
        Shift+Tab from outside the panel too)."""
        if not self._pending or not self.isVisible():
            return
        self._build_group(next(iter(self._pending)))
        if self._pending:
            self._rest_timer.start(0)  # one chain: another car's rows, or a show, start it again from here

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.build_rest()  # the rows waiting were measured in the font and style before
            for kept in self._kept.values():  # and other cars' rows kept: built again when their car comes back
                kept.content.deleteLater()
            self._kept.clear()

    def _rebuild_group(self, group: str) -> None:
        """A group's rows made again (the value boxes' width stays: a list's entries are one parameter's)."""
        _drop_typing(self.groups[group][1])
        grid = self._grids[group]
        for info in self._members[group]:
            for widget in self._rows.pop(info.path).widgets:  # later: one of them may be sending the signal
                grid.removeWidget(widget)
                widget.hide()
                widget.deleteLater()
        self._pending[group] = True
        self._build_group(group)

    def _show_row(self, row: ParamRow, params, base, ref) -> None:
        try:
            reference = ref.get(row.info.path)
        except (KeyError, AttributeError, ParamError):
            reference = None
        row.show(params.get(row.info.path), base.get(row.info.path), reference)

    def _refresh(self) -> None:
        params, base = self._model.session.params, self._model.session.preset.params
        ref = self.reference_preset.params
        for group in {path.split(".")[0] for path, row in self._rows.items()
                      if row.info.kind is list and len(row.editors) != len(params.get(path))}:
            self._rebuild_group(group)  # a list of another length (a script's [[set]]): an editor per entry
        for row in self._rows.values():
            self._show_row(row, params, base, ref)
        for group in self._pending:  # a list's length may have changed
            self.groups[group][1].setMinimumHeight(self._rows_height(group))
        for group, (header, _) in self.groups.items():
            modified = sum(params.get(i.path) != base.get(i.path) for i in self._members[group])
            header.setText(f"{group} ({modified} modified)" if modified else group)
            header.setStyleSheet(GROUP_STYLE + (f" QToolButton {{ {MODIFIED_STYLE} }}" if modified else ""))
        self._apply_filter()

    def _apply_filter(self, *args) -> None:
        text = self.search.text().strip().lower()
        only = self.modified_only.isChecked()
        if text or only:
            self.build_rest()
        shown_groups: dict[str, bool] = {group: True for group in self._pending}
        for path, row in self._rows.items():
            match = not text or text in path.lower() or text in row.name.lower() or text in row.info.doc.lower()
            visible = match and (not only or row.modified or row.differs)
            row.set_visible(visible)
            group = path.split(".")[0]
            shown_groups[group] = shown_groups.get(group, False) or visible
        found = any(shown_groups.values())
        typed = self.search.text().strip()
        if found:
            said, among = "", ""
        elif typed:
            said, among = f"no parameter matches \u201c{typed}\u201d", " among the modified ones" if only else ""
        else:  # "modified only" with nothing modified (it quoted an empty search: no parameter matches "")
            said, among = "no parameter is modified", ""
        self.no_match.set_full_text(said, among)
        self.no_match.setVisible(not found)
        for group, (header, body) in self.groups.items():
            visible = shown_groups.get(group, False)
            header.setVisible(visible)
            body.setVisible(visible and group not in self.folded)
        self._fill_view()

    # -- the reference -----------------------------------------------------------------------------

    def set_reference(self, preset: Preset) -> None:
        """Compare the parameters with ``preset`` (the loaded preset until the user picks another)."""
        self.reference_preset = preset
        self._fill_references()
        self._refresh()

    def _on_reference_picked(self, index: int) -> None:
        choice = self.reference.itemData(index)
        if choice == "file":
            self._fill_references()
            self.reference_file_requested.emit()
        elif choice != "current":
            try:
                self.set_reference(load_preset(choice))
            except PresetError as exc:
                self.show_problem(str(exc))

    # -- edits -------------------------------------------------------------------------------------

    def show_problem(self, text: str) -> None:
        # Its units as the panel writes them ("m/s\u00b2"): a refusal read "0 m/s\u00b2: ... <= 10000 m/s^2".
        text = pretty_unit(text)
        self.status.setText(text)
        self.status.setVisible(True)
        self.status.setToolTip(text)
        self._status_timer.start(PROBLEM_SHOWN_MS)

    def edit(self, path: str, value: Any, merge_key: str = "") -> bool:
        """Apply an edit from a widget; an invalid value is refused with its reason and the widget reverts."""
        return self._change(lambda: self._model.set_param(path, value, merge_key or None))

    def _change(self, change: Callable[[], None]) -> bool:
        """Make a change through the model; where it is refused, say why and show the values the car has. True when
        it was made."""
        try:
            change()
        except (ParamError, ValueError) as exc:
            self.show_problem(str(exc))
            self._refresh()
            return False
        self.status.setVisible(False)
        return True

    def edit_item(self, path: str, index: int, value: float, merge_key: str = "") -> bool:
        items = list(self._model.session.params.get(path))
        items[index] = value
        return self.edit(path, items, merge_key)

    def reset_param(self, path: str) -> bool:
        return self.reset([path])

    def reset(self, paths: list[str] | None) -> bool:
        """Put parameters (all when None) back to the preset's values; refused with its reason where the session
        refuses (a replay owns the parameters, or the values left would not make a car: lr past a reset wheelbase)."""
        return self._change(lambda: self._model.reset_params(paths))

    def row_menu(self, path: str, label: QWidget, pos) -> QMenu:
        """The right-click menu of a row: reset it to the preset's value, copy its dotted path, sweep it
        on the Sweep dock (a number), try the reference's value against the run on show (the Compare dock)."""
        row = self._rows.get(path) or self.rows[path]  # a right-click comes from a row built: the rest can wait
        info = row.info
        params, base = self._model.session.params, self._model.session.preset.params
        value = params.get(path)
        # Not the row's child: a modified row's label is orange by a style sheet, which a child menu took over (every
        # entry orange, as if each were a modified value). Gone once closed (one was kept per right-click).
        menu = QMenu(self)
        menu.aboutToHide.connect(menu.deleteLater)
        menu.setToolTipsVisible(True)
        reset = menu.addAction(f"Reset to preset ({shown_value(info, base.get(path))})", lambda: self.reset_param(path))
        reset.setEnabled(value != base.get(path))
        menu.addAction("Copy path", lambda: QApplication.clipboard().setText(path))
        sweep = menu.addAction("Sweep this", lambda: self.sweep_requested.emit(path))
        if info.choices or info.kind not in (float, int):
            sweep.setEnabled(False)
            sweep.setToolTip("only a number can be swept")
        reference = self.reference_value(path)
        ref_name = self.reference_preset.name
        compare = menu.addAction("Compare with reference", lambda: self.compare_requested.emit(path))
        if reference is None:
            compare.setEnabled(False)
            compare.setToolTip(f"the reference ({ref_name}) has no such parameter")
        elif reference == value:
            compare.setEnabled(False)
            compare.setToolTip(f"the reference ({ref_name}) has the same value")
        else:
            compare.setToolTip(f"pin the run on show, set {path} to {ref_name}'s {shown_value(info, reference)} "
                               "and compare the two on the Compare dock")
        menu.popup(label.mapToGlobal(pos))
        return menu

    def reference_value(self, path: str) -> Any:
        """The reference preset's value of ``path`` (None when it has no such parameter)."""
        try:
            return self.reference_preset.params.get(path)
        except (KeyError, AttributeError, ParamError):
            return None

    # -- model events ------------------------------------------------------------------------------

    def _shown_infos(self) -> list:
        params = self._model.session.params
        return [i for i in params.infos() if not unused(i, params)]

    def _on_preset_loaded(self, name: str) -> None:
        self.status.setVisible(False)
        self.reference_preset = self._model.session.preset
        self._fill_references()
        infos = self._shown_infos()
        if infos == self._built_for:
            self._refresh()  # the same rows (a script on the same car, the preset again): new values only
        else:
            self._build(infos)

    def _on_params_changed(self, path: str) -> None:
        self._refresh()
