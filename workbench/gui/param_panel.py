"""The parameter panel, generated from the parameter dataclasses: a collapsible group per subsystem,
a slider and a spin box with limits and units per value, modified values marked, reset and save."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from physics import ParamError, ParamInfo
from workbench.gui.session_model import SessionModel

SLIDER_STEPS = 1000
FIXED_WHILE_DRIVING = ("model.kind", "model.unit", "model.reference")
_DEG = 180.0 / math.pi


def _factor(info: ParamInfo) -> float:
    return _DEG if info.display in ("deg", "deg/s") else 1.0


def _shown_unit(info: ParamInfo) -> str:
    return info.display if info.display else info.unit


def _decimals(value: float, span: tuple[float, float]) -> int:
    """Decimals that show ``value`` exactly (to 1e-9) and resolve a thousandth of the slider span."""
    resolution = (span[1] - span[0]) / SLIDER_STEPS
    needed = max(1, -math.floor(math.log10(resolution)) if resolution > 0 else 1)
    for d in range(1, needed + 4):
        if abs(round(value, d) - value) <= 1e-9 * max(abs(value), 1.0):
            return min(max(d, needed), 8)
    return min(needed + 3, 8)


class NumberEditor(QWidget):
    """Slider + spin box for one number (or one entry of a list), in display units."""

    edited = Signal(float)  # new value in model units

    def __init__(self, info: ParamInfo, value: float, parent=None):
        super().__init__(parent)
        self.info = info
        self.factor = _factor(info)
        lo = info.lo if info.lo is not None else -1e9
        hi = info.hi if info.hi is not None else 1e9
        span = info.span
        if span is None or not span[0] <= value <= span[1]:
            # The span is for SI cars; a pixel car's lengths (or an unusual value) get one around the value.
            reach = max(abs(value), 1.0)
            span = (0.0 if value >= 0 else -2.0 * reach, 2.0 * reach if value >= 0 else 0.0)
        self.span = (max(span[0], lo), min(span[1], hi))
        decimals = _decimals(value * self.factor, (self.span[0] * self.factor, self.span[1] * self.factor))
        tiny = 10.0 ** -decimals
        self.spin = QDoubleSpinBox()
        self.spin.setDecimals(decimals)
        self.spin.setRange((lo + (tiny if info.lo_open else 0.0)) * self.factor,
                           (hi - (tiny if info.hi_open else 0.0)) * self.factor)
        self.spin.setSingleStep((self.span[1] - self.span[0]) * self.factor / 100.0 or 0.1)
        unit = _shown_unit(info)
        if unit:
            self.spin.setSuffix(f" {unit}")
        self.spin.setKeyboardTracking(False)
        self.spin.setMinimumWidth(110)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setMinimumWidth(80)
        self.spin.valueChanged.connect(self._on_spin_changed)
        self.slider.valueChanged.connect(self._on_slider_changed)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self.show_value(value)

    def show_value(self, value: float) -> None:
        """Show a model value without emitting ``edited`` (no echo back to the model)."""
        with QSignalBlocker(self.spin), QSignalBlocker(self.slider):
            self.spin.setValue(value * self.factor)
            lo, hi = self.span
            share = (value - lo) / (hi - lo) if hi > lo else 0.0
            self.slider.setValue(int(round(min(max(share, 0.0), 1.0) * SLIDER_STEPS)))

    def _on_spin_changed(self, shown: float) -> None:
        self.edited.emit(shown / self.factor)

    def _on_slider_changed(self, position: int) -> None:
        lo, hi = self.span
        value = lo + (hi - lo) * position / SLIDER_STEPS
        shown = round(value * self.factor, self.spin.decimals())
        self.edited.emit(shown / self.factor)


class ParamRow:
    """The widgets of one parameter: name label, editor(s), reset button."""

    def __init__(self, panel: ParamPanel, grid: QGridLayout, row: int, info: ParamInfo, value: Any):
        self.panel = panel
        self.info = info
        name = info.path.split(".", 1)[1]
        self.label = QLabel(name)
        self.label.setToolTip(f"{info.path}: {info.doc}\nallowed: {info.allowed()}")
        self.reset = QToolButton()
        self.reset.setText("\u21ba")
        self.reset.setToolTip(f"reset {info.path} to the preset's value")
        self.reset.clicked.connect(lambda: panel.reset_param(info.path))
        grid.addWidget(self.label, row, 0)
        if not info.choices and info.kind is not list:  # a number: it can be swept (the Sweep dock)
            self.label.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            self.label.customContextMenuRequested.connect(lambda pos: panel.row_menu(info.path, self.label, pos))
        self.editors: list[QWidget] = []
        if info.choices:
            combo = QComboBox()
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
        elif info.kind is list:
            box = QWidget()
            column = QVBoxLayout(box)
            column.setContentsMargins(0, 0, 0, 0)
            for i, item in enumerate(value):
                editor = NumberEditor(info, item)
                editor.edited.connect(lambda v, i=i: panel.edit_item(info.path, i, v))
                self.editors.append(editor)
                column.addWidget(editor)
            grid.addWidget(box, row, 1)
        else:
            editor = NumberEditor(info, value)
            editor.edited.connect(lambda v: panel.edit(info.path, v))
            self.editors.append(editor)
            grid.addWidget(editor, row, 1)
        grid.addWidget(self.reset, row, 2)

    def show(self, value: Any, base: Any) -> None:
        for i, editor in enumerate(self.editors):
            if isinstance(editor, QComboBox):
                with QSignalBlocker(editor):
                    editor.setCurrentText(value)
            else:
                editor.show_value(value[i] if self.info.kind is list else value)
        modified = value != base
        font = self.label.font()
        font.setBold(modified)
        self.label.setFont(font)
        self.label.setText(self.info.path.split(".", 1)[1] + ("  \u25cf" if modified else ""))
        self.label.setStyleSheet("color: #b35900;" if modified else "")
        self.reset.setEnabled(modified)


class ParamPanel(QWidget):
    """Every parameter of the current car, editable while it drives."""

    save_requested = Signal()
    load_requested = Signal()
    sweep_requested = Signal(str)  # a parameter path: "Sweep this" on its row

    def __init__(self, model: SessionModel, parent=None):
        super().__init__(parent)
        self._model = model
        self.rows: dict[str, ParamRow] = {}
        self.groups: dict[str, tuple[QToolButton, QWidget]] = {}
        reset_all = QPushButton("Reset all")
        reset_all.setToolTip("put every parameter back to the preset's value")
        reset_all.clicked.connect(lambda: self._model.reset_params(None))
        save = QPushButton("Save as preset\u2026")
        save.clicked.connect(self.save_requested)
        load = QPushButton("Load preset\u2026")
        load.clicked.connect(self.load_requested)
        buttons = QHBoxLayout()
        buttons.addWidget(reset_all)
        buttons.addWidget(save)
        buttons.addWidget(load)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #a40000;")
        self.status.setVisible(False)
        self._scroll = QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self._scroll, 1)
        model.preset_loaded.connect(self._on_preset_loaded)
        model.params_changed.connect(self._on_params_changed)
        self._build()

    def _build(self) -> None:
        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.rows.clear()
        self.groups.clear()
        params = self._model.session.params
        infos = params.infos()
        for group in dict.fromkeys(i.path.split(".")[0] for i in infos):
            header = QToolButton()
            header.setText(group)
            header.setCheckable(True)
            header.setChecked(True)
            header.setArrowType(Qt.ArrowType.DownArrow)
            header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            header.setStyleSheet("QToolButton { border: none; font-weight: bold; }")
            body = QWidget()
            grid = QGridLayout(body)
            grid.setContentsMargins(14, 0, 0, 4)
            grid.setColumnStretch(1, 1)
            members = [i for i in infos if i.path.split(".")[0] == group]
            for r, info in enumerate(members):
                self.rows[info.path] = ParamRow(self, grid, r, info, params.get(info.path))
            header.toggled.connect(lambda on, h=header, b=body: self._fold(h, b, on))
            column.addWidget(header)
            column.addWidget(body)
            self.groups[group] = (header, body)
        column.addStretch(1)
        self._scroll.setWidget(content)
        self._refresh()

    @staticmethod
    def _fold(header: QToolButton, body: QWidget, open_: bool) -> None:
        header.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        body.setVisible(open_)

    def _refresh(self) -> None:
        params, base = self._model.session.params, self._model.session.preset.params
        for path, row in self.rows.items():
            row.show(params.get(path), base.get(path))

    # -- edits -------------------------------------------------------------------------------------

    def edit(self, path: str, value: Any) -> bool:
        """Apply an edit from a widget; an invalid value is refused with its reason and the widget reverts."""
        try:
            self._model.set_param(path, value)
        except (ParamError, ValueError) as exc:
            self.status.setText(str(exc))
            self.status.setVisible(True)
            self._refresh()
            return False
        self.status.setVisible(False)
        return True

    def edit_item(self, path: str, index: int, value: float) -> bool:
        items = list(self._model.session.params.get(path))
        items[index] = value
        return self.edit(path, items)

    def reset_param(self, path: str) -> None:
        self._model.reset_params([path])

    def row_menu(self, path: str, label: QWidget, pos) -> QMenu:
        """The right-click menu of a number's row: "Sweep this" asks the Sweep dock to sweep it."""
        menu = QMenu(label)
        menu.addAction("Sweep this", lambda: self.sweep_requested.emit(path))
        menu.popup(label.mapToGlobal(pos))
        return menu

    # -- model events ------------------------------------------------------------------------------

    def _on_preset_loaded(self, name: str) -> None:
        self.status.setVisible(False)
        self._build()

    def _on_params_changed(self, path: str) -> None:
        self._refresh()
