"""The telemetry panel: every channel with its live value and unit, like an ImGui debug window."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QSize, Qt
from PySide6.QtGui import QColor, QFontDatabase
from PySide6.QtWidgets import QDockWidget, QHeaderView, QMainWindow, QTabBar, QTableView, QVBoxLayout, QWidget

from physics.telemetry import channels_of
from workbench.gui.plot_panel import display_unit
from workbench.gui.session_model import SessionModel

COLUMNS = ("channel", "value", "unit")
WHOLE_NUMBERS = {"gear", "handbrake", "wheelspin"}


class TelemetryTable(QAbstractTableModel):
    """Rows of (channel, value, unit) for the frame on show; values in display units."""

    def __init__(self, model: SessionModel, parent=None):
        super().__init__(parent)
        self._model = model
        self._infos = []
        self._units: list[tuple[str, float]] = []
        self.values: list[float | None] = []  # None: no frame to show
        self.reload()

    def reload(self) -> None:
        self.beginResetModel()
        shown = {i.name for i in channels_of(self._model.session.params)}  # what this car computes
        self._infos = [i for i in self._model.session.log.infos if i.name in shown]
        self._units = [display_unit(i) for i in self._infos]
        self.values = [0.0] * len(self._infos)
        self.endResetModel()
        self.update()

    def update(self) -> None:
        log = self._model.session.log
        k = self._model.shown_frame()
        if k >= 0:
            row = log.frame(k)
            self.values = [row[i.name] * factor for i, (_, factor) in zip(self._infos, self._units, strict=True)]
        else:  # no frame yet (a recording restarted while paused): no values, not the last run's left standing
            self.values = [None] * len(self._infos)
        if self._infos:
            self.dataChanged.emit(self.index(0, 1), self.index(len(self._infos) - 1, 1))

    def names(self) -> list[str]:
        return [i.name for i in self._infos]

    def value(self, name: str) -> float | None:
        """The shown value of channel ``name`` (display unit); None with no frame to show."""
        return self.values[self.names().index(name)]

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 (Qt's own signature)
        return 0 if parent.isValid() else len(self._infos)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008 (Qt's own signature)
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        info = self._infos[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                return info.name
            if index.column() == 1:
                value = self.values[index.row()]
                if value is None:
                    return ""
                text = f"{value:7.0f}" if info.name in WHOLE_NUMBERS else f"{value:12.4f}"
                return text.replace("-", " ") if text.strip("- 0.") == "" else text  # no "-0.0000": a zero
            return self._units[index.row()][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return info.doc
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 2:
            return QColor(110, 110, 110)
        return None


def tab_bar_of(dock: QDockWidget) -> QTabBar | None:
    """The tab bar of the main window that has a tab for ``dock`` (docks tabbed together), or None."""
    window = dock.parentWidget()
    if not isinstance(window, QMainWindow) or dock.isFloating():
        return None
    title = dock.windowTitle()
    for bar in window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
        if not bar.isHidden() and any(bar.tabText(i) == title for i in range(bar.count())):
            return bar
    return None


class TelemetryPanel(QWidget):
    """The channels' table. Tabbed with other docks, it is at least as wide as their tab bar needs for every tab's name
    whole (see :meth:`minimumSizeHint`)."""

    def __init__(self, model: SessionModel, parent=None):
        super().__init__(parent)
        self._model = model
        self._tabs_width = 0  # [px] the tab bar this panel's dock is tabbed in needs, 0 when it is in none
        self._watched = None  # the main window whose layout changes are watched for that
        self.table = TelemetryTable(model, self)
        self.view = QTableView()
        self.view.setModel(self.table)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(18)
        self.view.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.view.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.view.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.view.setAlternatingRowColors(True)
        self.view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        model.stepped.connect(self._on_stepped)
        model.view_frame_changed.connect(self._on_view_frame_changed)
        model.preset_loaded.connect(self._on_preset_loaded)

    def minimumSizeHint(self) -> QSize:
        """Wide enough for the names on its dock's tab bar: the docks tabbed together take the widest of their least
        widths, and with the parameters' alone (363 px on manual003) the left docks' five tabs (367 px) were cut to
        "Paramet\u2026", "Teleme\u2026", "Wat\u2026", "Comp\u2026" at 1024x640."""
        hint = super().minimumSizeHint()
        return QSize(max(hint.width(), self._tabs_width), hint.height())

    def _measure_tabs(self) -> None:
        dock = self.parentWidget()
        try:
            bar = tab_bar_of(dock) if isinstance(dock, QDockWidget) else None
            width = bar.sizeHint().width() if bar is not None else 0
        except RuntimeError:  # the window is being deleted
            return
        if width != self._tabs_width:
            self._tabs_width = width
            self.updateGeometry()

    def _watch_window(self) -> None:
        window = self.window()
        if window is not self._watched and isinstance(window, QMainWindow):
            if self._watched is not None:
                self._watched.removeEventFilter(self)
            self._watched = window
            window.installEventFilter(self)
        self._measure_tabs()

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ParentChange:
            self._watch_window()
        return super().event(event)

    def eventFilter(self, watched, event) -> bool:
        # The window lays its docks out again when a tab is added, moved or renamed: the tab bar's width is read then.
        if event.type() == QEvent.Type.LayoutRequest and watched is self._watched:
            self._measure_tabs()
        return super().eventFilter(watched, event)

    def _on_stepped(self) -> None:
        if self._model.text_due:
            self.table.update()

    def _on_view_frame_changed(self, frame: int) -> None:
        self.table.update()

    def _on_preset_loaded(self, name: str) -> None:
        self.table.reload()
