"""The watch list: channels pinned as compact live rows, each its value at the frame on show and its
minimum and maximum over the plots' visible time window, in the channel's display unit.

A row reads the session's history as the plots do (``log.column``, a view); the window's minimum and
maximum are reductions over a view of it, so a frame allocates nothing the size of the history.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from physics.telemetry import channels_of
from workbench.gui.plot_panel import display_unit, format_value
from workbench.gui.session_model import SessionModel

COLUMNS = ("channel", "value", "min", "max", "unit", "")
REMOVE = 5  # the column of the remove buttons
NO_VALUE = "\u2013"


def watch_text(value: float) -> str:
    """A row's number: four significant digits; within 1e-6 of zero it reads 0 (a car at rest turns at
    0 deg/s, not at -9.1e-07)."""
    return format_value(0.0 if abs(value) < 1e-6 else value)


class WatchList(QWidget):
    """Pinned channels, one live row each; ``channels_changed`` when one is pinned or removed."""

    channels_changed = Signal()

    def __init__(self, model: SessionModel, plots, parent=None):
        super().__init__(parent)
        self._model = model
        self._plots = plots  # the plot panel: its visible time window (plots.view, absolute seconds)
        self.names: list[str] = []
        self._texts: list[list[str]] = []  # what each row's cells show now (set again only on change)
        self._names_for: tuple[object, frozenset[str]] = (None, frozenset())  # (the params, the channels it computes)
        self._offered: frozenset[str] = frozenset()  # the channels the picker offers
        self.picker = QComboBox()
        self.picker.setToolTip("a channel to watch")
        self.picker.setMinimumContentsLength(10)
        self.picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.add = QToolButton()
        self.add.setText("watch")
        self.add.setToolTip("add the channel to the watch list")
        self.add.clicked.connect(lambda: self.pin(self.picker.currentData()))
        for w in (self.picker, self.add):
            w.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        bar.addWidget(self.picker, 1)
        bar.addWidget(self.add)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(20)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)  # sized by _fit_columns
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a long channel name gives way, not a number
        for c in (1, 2, 3):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(REMOVE, QHeaderView.ResizeMode.Fixed)
        header.setMinimumSectionSize(20)
        self.table.setColumnWidth(REMOVE, 24)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # it fits its dock
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setAlternatingRowColors(True)
        self.hint = QLabel("Pin a channel: pick it above, or from a plot's channel menu or right-click.")
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: #666; padding: 4px;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self.hint)
        layout.addWidget(self.table, 1)
        self._fill_picker()
        model.stepped.connect(self.update_rows)
        model.view_frame_changed.connect(lambda frame: self.update_rows())
        model.preset_loaded.connect(self._on_preset_loaded)
        # An edit may change what the car computes (model.traction): its rows at once, while paused too
        model.params_changed.connect(lambda path: self._on_params_changed())
        plots.window.valueChanged.connect(lambda value: self.update_rows())

    # -- the list ----------------------------------------------------------------------------------

    def _infos(self) -> dict:
        return {i.name: i for i in self._model.session.log.infos}

    def _computed(self) -> list:
        """The channels the car on show computes (the Telemetry table's list): no engine speed on a car
        without an engine, no corner loads on a single-track car."""
        return channels_of(self._model.session.params)

    def _computed_names(self) -> frozenset[str]:
        """:meth:`_computed`'s names, worked out again only when the car's parameters change (each frame reads it)."""
        params = self._model.session.params
        if self._names_for[0] is not params:
            self._names_for = (params, frozenset(i.name for i in channels_of(params)))
        return self._names_for[1]

    def _on_params_changed(self) -> None:
        if self._computed_names() != self._offered:
            self._fill_picker()  # the picker offers what the edited car computes
        self.update_rows()

    def _fill_picker(self) -> None:
        self._offered = self._computed_names()
        self.picker.clear()
        for info in self._computed():
            unit = display_unit(info)[0]
            self.picker.addItem(f"{info.name} [{unit}]" if unit else info.name, info.name)

    def pin(self, name: str | None) -> bool:
        """Add channel ``name`` (a channel of the car on show, not already watched); True if added."""
        if not name or name in self.names or name not in self._computed_names():
            return False
        self.names.append(name)
        self._rebuild()
        self.channels_changed.emit()
        return True

    def remove(self, name: str) -> None:
        if name in self.names:
            self.names.remove(name)
            self._rebuild()
            self.channels_changed.emit()

    def set_channels(self, names: list[str]) -> None:
        """The list as ``names`` (those the car on show has; for restoring it from the settings)."""
        infos = self._infos()
        self.names = [n for n in dict.fromkeys(names) if isinstance(n, str) and n in infos]
        self._rebuild()

    def _rebuild(self) -> None:
        infos = self._infos()
        for r in range(self.table.rowCount()):  # the old rows' buttons go now, not when Qt deletes them
            button = self.table.cellWidget(r, REMOVE)
            if button is not None:
                button.hide()
        self.table.setRowCount(0)
        self.table.setRowCount(len(self.names))
        self._texts = [["", "", "", ""] for _ in self.names]
        for r, name in enumerate(self.names):
            item = QTableWidgetItem(name)
            info = infos.get(name)
            if info is not None:
                item.setToolTip(f"{name}: {info.doc}")  # the whole name where the column elides it
            self.table.setItem(r, 0, item)
            for c in (1, 2, 3):
                cell = QTableWidgetItem("")
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, cell)
            unit = QTableWidgetItem(display_unit(info)[0] if info is not None else "")
            unit.setForeground(QColor(110, 110, 110))
            self.table.setItem(r, 4, unit)
            button = QToolButton()
            button.setText("\u00d7")
            button.setAutoRaise(True)
            button.setToolTip(f"stop watching {name}")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(lambda checked=False, n=name: self.remove(n))
            self.table.setCellWidget(r, REMOVE, button)
        self.hint.setVisible(not self.names)
        self._fit_columns()
        self.update_rows()

    NUMBER_TEXT = "-0.0000000"  # the widest of watch_text's numbers (four significant digits: "-0.003216", "-1.234e+05")

    def _fit_columns(self) -> None:
        """The channel names' column as wide as its longest name, but never so wide that the value, min and max
        columns are narrower than a number: in a narrow dock (1024 x 640) the column of names took its whole width
        and "-0.003216" read "-0.0032..."; a name is elided in the middle instead."""
        metrics = self.table.fontMetrics()
        number = metrics.horizontalAdvance(self.NUMBER_TEXT) + 12
        header = self.table.horizontalHeader()
        # The header's own title too ("channel", in the header's font, with room for its margins): sized for short
        # names alone ("rpm"), the column cut it at both ends.
        title = self.table.horizontalHeaderItem(0)
        titled = header.fontMetrics().horizontalAdvance(title.text()) + 2 * header.style().pixelMetric(
            QStyle.PixelMetric.PM_HeaderMargin) + 8 if title is not None else 0
        wanted = max([metrics.horizontalAdvance(name) + 16 for name in self.names] + [titled])
        room = self.table.viewport().width() - header.sectionSize(4) - self.table.columnWidth(REMOVE) - 3 * number
        header.resizeSection(0, max(48, min(wanted, room)))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_columns()

    def _on_preset_loaded(self, name: str) -> None:
        self._fill_picker()
        self._rebuild()  # a channel the new car lacks shows no value (and comes back with a car that has it)

    # -- every frame -------------------------------------------------------------------------------

    def window_frames(self) -> tuple[int, int]:
        """Frames [start, end) of the plots' visible time window (as the plots draw it)."""
        log, dt = self._model.session.log, self._model.session.dt
        a, b = self._plots.view
        return max(0, int(math.floor(a / dt))), min(log.frames, int(math.ceil(b / dt)) + 1)

    def values(self, name: str) -> tuple[float, float, float, str] | None:
        """(value at the frame on show, min and max over the plots' window, unit), in the display unit."""
        log = self._model.session.log
        info = self._infos().get(name)
        k = self._model.shown_frame()
        # a channel the car on show does not compute has no value (it read a constant: "rpm 0" on the kinematic car)
        if info is None or k < 0 or log.frames == 0 or name not in self._computed_names():
            return None
        unit, factor = display_unit(info)
        column = log.column(name)
        start, end = self.window_frames()
        shown = column[start:end] if end > start else column[k:k + 1]  # a view: nothing copied
        return float(column[k]) * factor, float(shown.min()) * factor, float(shown.max()) * factor, unit

    def update_rows(self) -> None:
        if not self.names or not self.isVisible():
            return  # a tab behind another: brought up to date when shown
        for r, name in enumerate(self.names):
            got = self.values(name)
            if got is None:
                texts = [NO_VALUE, NO_VALUE, NO_VALUE]
            else:
                value, lo, hi, _ = got
                texts = [watch_text(v) for v in (value, lo, hi)]
            row = self._texts[r]
            for c, text in enumerate(texts, start=1):
                if row[c] != text:
                    row[c] = text
                    self.table.item(r, c).setText(text)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.update_rows()

    def cell(self, name: str, column: str) -> str:
        """The text a row shows in ``column`` ("value", "min", "max" or "unit")."""
        return self.table.item(self.names.index(name), COLUMNS.index(column)).text()
