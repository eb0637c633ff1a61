"""The Compare dock: the pinned references, and the run on show against the first of them.

It lists the parameter diff, every verdict side by side with the flips marked, and the first
divergence; clicking the divergence moves the time cursor there. :func:`install_compare` adds
the dock, the toolbar, the keys, the ghost cars and the plot overlays to a main window.
"""

from __future__ import annotations

import math
import re

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyledItemDelegate,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from physics import ParamError
from workbench.gui.ghosts import GhostCars
from workbench.gui.plot_overlay import PlotOverlay
from workbench.gui.plot_panel import display_unit, format_value
from workbench.gui.plot_style import pretty_unit
from workbench.gui.references import Comparer
from workbench.runs.compare import CompareError, Comparison, compare

PIN_KEY = "B"
DRIVE_ON_KEY = "D"
MIN_VALUE_WIDTH = 60  # [px] the least width of the A and B columns, values elided in it
FLIPPED = "\u2260"  # before a verdict that B flipped (not only in red)
CELL_MARGIN = 16  # [px] a cell's text margins and focus frame, beside its text


class LinkLabel(QLabel):
    """Text that acts as a button (a click or Space/Return emits ``clicked``) but wraps to its width:
    a push button's text never wraps, and the divergence's line set the window's minimum width."""

    clicked = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)

    def click(self) -> None:
        self.clicked.emit()

    def mouseReleaseEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.clicked.emit()
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.clicked.emit()
            return
        super().keyPressEvent(event)


class CompareDock(QWidget):
    """References with their colours (unpin any), alignment, and the comparison with the first reference."""

    def __init__(self, comparer: Comparer, parent: QWidget | None = None):
        super().__init__(parent)
        self.comparer = comparer
        self.comparison: Comparison | None = None
        self._names_width = 0  # [px] the names under the groups need
        self._leaf_widths: list[tuple[QTreeWidgetItem, int]] = []  # [px] each name's last part alone ("\u2026name")
        self.pin_button = QPushButton(f"Pin run ({PIN_KEY})")
        self.pin_button.setToolTip("keep the run on show as a reference (up to four)")
        self.pin_button.clicked.connect(comparer.pin_current)
        self.drive_button = QPushButton(f"Drive from here ({DRIVE_ON_KEY})")
        self.drive_button.setToolTip("go on live from the frame on show; what came after is kept as a reference")
        self.drive_button.clicked.connect(comparer.drive_from_here)
        self.align = QComboBox()
        self.align.addItems(["align by time", "align by distance"])
        self.align.currentIndexChanged.connect(self._on_align_changed)
        self.refs_layout = QVBoxLayout()
        self.refs_layout.setContentsMargins(0, 0, 0, 0)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.divergence = LinkLabel()
        self.divergence.setStyleSheet("color: #a40000;")
        self.divergence.clicked.connect(self._on_divergence_clicked)
        self.divergence.setVisible(False)
        self.motion = LinkLabel()
        self.motion.setStyleSheet("color: #a40000;")
        self.motion.clicked.connect(self._on_motion_clicked)
        self.motion.setVisible(False)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(3)
        self._value_widths = [0, 0]  # columns A and B as wide as their texts (see _fit_names)
        # ... and at least as wide as the numbers of the rows on show need, elided after them (value_floor): each
        # row's group and its two widths
        self._number_floors: list[tuple[QTreeWidgetItem, list[int]]] = []
        self.tree.setHeaderLabels(["", "A (reference)", "B (on show)"])
        self.tree.header().setStretchLastSection(False)  # the widths are set in _fit_names
        self.tree.setRootIsDecorated(True)
        self.tree.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a click on a row left the arrow keys here, not with the car
        # Elided in the middle, a value keeps its unit; a parameter's name gives up its group first (NameElision):
        # at the right, body.wheelbase and body.wheel_inertia_front both read "body.whee...", and in the middle
        # engine.idle_rpm and engine.peak_rpm both "engi..._rpm" (the whole text is in each cell's tooltip).
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.tree.setItemDelegateForColumn(0, NameElision(self.tree))
        self.tree.itemExpanded.connect(self._fit_names)  # its rows' numbers on show: their room
        self.tree.itemCollapsed.connect(self._fit_names)
        self.tree.viewport().installEventFilter(self)
        for column in (1, 2):  # a value's numbers whole: "PASS -0.03836 ...", never "PASS -0....836 m/s2"
            self.tree.setItemDelegateForColumn(column, ValueElision(self.tree))
        top = QHBoxLayout()
        top.addWidget(self.pin_button)
        top.addWidget(self.drive_button)
        top.addWidget(self.align)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addLayout(self.refs_layout)
        layout.addWidget(self.status)
        layout.addWidget(self.divergence)
        layout.addWidget(self.motion)
        layout.addWidget(self.tree, 1)
        model = comparer.model
        comparer.references.changed.connect(self.update_comparison)
        comparer.rerun_adopted.connect(self.update_comparison)
        comparer.drove_on.connect(lambda frame: self.update_comparison())
        comparer.rerun.started.connect(self._on_rerun_started)
        model.running_changed.connect(self._on_running_changed)
        model.replay_changed.connect(lambda on: on or self.update_comparison())
        # Another car or script: compared again (the table kept the last car's parameters and spans, and a car in m
        # was said to be one in px).
        model.preset_loaded.connect(lambda name: self._on_car_changed())
        model.script_loaded.connect(lambda name: self._on_car_changed())
        self.update_comparison()

    def _on_car_changed(self) -> None:
        self.update_comparison()
        if self.comparer.model.running:
            self._grey_while_running()

    def _on_running_changed(self, running: bool) -> None:
        """Compared again on pause. While the car runs, B grows frame by frame: the table is as it was when last
        compared, and says so (greyed, with no divergence to jump to) instead of showing a verdict that no longer
        holds."""
        if not running:
            self.update_comparison()
        else:
            self._grey_while_running()

    def _grey_while_running(self) -> None:
        """While running: a comparison on show greyed and said to be as it was when last compared (at the last
        pause, or mid-run by a pin or an adopted re-run)."""
        if self.comparison is not None:
            self.tree.setEnabled(False)
            self.divergence.setVisible(False)
            self.motion.setVisible(False)
            self.status.setText("Running: the table is as it was when last compared; compared again when it pauses.")

    def _on_rerun_started(self) -> None:
        self.status.setText("Re-running the script from frame 0 with the edit\u2026")

    def _on_align_changed(self, index: int) -> None:
        self.comparer.align = "distance" if index == 1 else "time"
        self.comparer.references.changed.emit()

    def _on_divergence_clicked(self) -> None:
        if self.comparison is not None and self.comparison.divergence is not None:
            self._show_frame(self.comparison.divergence)

    def _on_motion_clicked(self) -> None:
        if self.comparison is not None and self.comparison.motion is not None:
            self._show_frame(self.comparison.motion)

    def _show_frame(self, divergence) -> None:
        """The run on show (B) paused at the divergence: at its own frame of that time (a reference of a longer dt
        gives the frames compared, which are not the run on show's)."""
        model = self.comparer.model
        model.set_running(False)
        model.set_view_frame(self.comparison.frame_in("B", divergence.time))

    def _show_divergence(self, link: LinkLabel, title: str, d, count: str = "") -> None:
        """A divergence as its link ("..., click to show it", the whole line its tooltip however it wraps) and as a
        group of the tree with each channel's A and B."""
        text = f"{title}: {self.comparison.frame_text(d.frame)}, t = {d.time:.4f} s{count} \u2014 click to show it"
        link.setText(text)
        link.setToolTip(text)
        link.setVisible(True)
        group = QTreeWidgetItem(self.tree, [f"{title}: {self.comparison.frame_text(d.frame)} (t = {d.time:.4f} s)"])
        for r in d.channels:
            QTreeWidgetItem(group, [r.name, _with_unit(f"{r.a + 0.0:.6g}", r.unit), _with_unit(f"{r.b + 0.0:.6g}", r.unit)])

    def _rebuild_refs(self) -> None:
        while self.refs_layout.count():
            item = self.refs_layout.takeAt(0)
            if item.widget() is not None:
                # Hidden now: out of the layout it stayed drawn where it was until the event loop deleted it, and a
                # row of the references stood over the tree after the list moved (an unpin button among them).
                item.widget().hide()
                item.widget().deleteLater()
        for i, ref in enumerate(self.comparer.references.items):
            row = QWidget()
            line = QHBoxLayout(row)
            line.setContentsMargins(0, 0, 0, 0)
            label = QLabel(f"<span style='color:{ref.colour.name()}'>- - &#9632;</span> {ref.name}"
                           f"{'  (A)' if i == 0 else ''}: {ref.run.frames} frames")
            unpin = QToolButton()
            unpin.setText("unpin")
            unpin.clicked.connect(lambda checked=False, i=i: self.comparer.references.unpin(i))
            line.addWidget(label, 1)
            line.addWidget(unpin)
            self.refs_layout.addWidget(row)

    def update_comparison(self) -> None:
        """Compare the run on show (B) with the first reference (A)."""
        self._rebuild_refs()
        self.tree.clear()
        self._number_floors = []  # (their groups are gone)
        self._leaf_widths = []
        self.tree.setEnabled(True)
        refs = self.comparer.references.items
        session = self.comparer.model.session
        self.comparison = None
        self.divergence.setVisible(False)
        self.motion.setVisible(False)
        if not refs:
            self.status.setText("Pin a run (B), edit a parameter or drive on from a past frame to compare.")
            return
        if session.log.frames == 0:
            self.status.setText("Nothing on show to compare yet.")
            return
        try:
            result = compare(refs[0].run, self.comparer.current_run("on show"))
        except CompareError as exc:
            self.status.setText(str(exc))
            return
        self.comparison = result
        flips = len(result.flips)
        # A run that only went on longer (or stopped sooner) than the other differs by that alone: the note says so.
        span = f"; {result.span_note}" if result.span_note else ""
        # Parameters changed part-way (an edit, a [[set]]) count beside those that differ from the start: a run edited
        # as it drove differs from its reference by them alone, where the start's "0 differ" said nothing did.
        edits = len(result.edits)
        changed = f", {edits} changed part-way" if edits else ""
        if result.agree:
            status = "B agrees with A on every frame"
        elif result.divergence is None and not flips and not result.params and not any(not r.beyond
                                                                                       for r in result.edits):
            # only longer or shorter: "B differs from A" said of a run that went on from where A was pinned
            status = f"B agrees with A where both ran; {result.span_note}; {result.grid}"
        else:
            status = (f"B differs from A ({len(result.params)} parameter{'s' if len(result.params) != 1 else ''}"
                      f"{' at the start' if edits else ''}{changed}, {flips} verdict "
                      f"flip{'s' if flips != 1 else ''}{span}); {result.grid}")
        self.status.setText(status)
        params = QTreeWidgetItem(self.tree, [f"parameters ({len(result.params)} differ{' at the start' if edits else ''})"])
        for r in result.params:
            QTreeWidgetItem(params, [r.path, _with_unit(_v(r.a), r.unit), _with_unit(_v(r.b), r.unit)])
        if edits:
            group = QTreeWidgetItem(self.tree, [f"changed part-way ({edits})"])
            for r in result.edits:
                text = (f"{r.run}, t = {r.time:.4f} s: {r.path} {_with_unit(_v(r.before), r.unit)} \u2192 "
                        f"{_with_unit(_v(r.after), r.unit)}{' (past the compared frames)' if r.beyond else ''}")
                item = QTreeWidgetItem(group, [text])
                item.setToolTip(0, f"{text} (frame {r.frame})")
                item.setFirstColumnSpanned(True)  # one line across the A and B columns: it is one run's change
        verdicts = QTreeWidgetItem(self.tree, [f"expectations ({flips} flip{'s' if flips != 1 else ''})"])
        units = {info.name: display_unit(info) for info in session.log.infos}
        for r in result.verdicts:
            item = QTreeWidgetItem(verdicts, [r.label, _verdict(r.a, units), _verdict(r.b, units)])
            if r.flipped:  # marked, red, and counted in the group's title
                item.setText(0, f"{FLIPPED} {r.label}")
                for c in range(3):
                    item.setForeground(c, Qt.GlobalColor.red)
        if result.divergence is not None:
            d = result.divergence
            self._show_divergence(self.divergence, "first divergence", d,
                                  f" ({len(d.channels)} channel{'s' if len(d.channels) != 1 else ''})")
            if result.motion is not None:  # the car itself moves apart later (a friction edit: its mu at frame 0)
                self._show_divergence(self.motion, "the motion first diverges", result.motion)
        largest = QTreeWidgetItem(self.tree, ["largest difference per channel (B \u2212 A)"])
        for r in result.channels:
            QTreeWidgetItem(largest, [r.name, _with_unit(f"{r.delta + 0.0:+.4g}", r.unit), f"at {r.time:.3f} s"])
        if result.left_out:  # channels one car has and the other does not (a preset of the other layout pinned)
            count = len(result.left_out)
            left = QTreeWidgetItem(self.tree, [f"not compared ({count} channel{'s' if count != 1 else ''} one car "
                                               "lacks)"])
            for name in result.left_out:
                item = QTreeWidgetItem(left, [name])
                item.setFirstColumnSpanned(True)
        params.setExpanded(True)
        if edits:
            group.setExpanded(True)
        verdicts.setExpanded(bool(result.flips))
        # A group's title spans the row, so the first column is sized to the names under it (see _fit_names), not
        # to the titles: sized to them it pushed A and B past a narrow dock's edge.
        root = self.tree.invisibleRootItem()
        for i in range(root.childCount()):
            root.child(i).setFirstColumnSpanned(True)
        names = [root.child(i).child(j) for i in range(root.childCount()) for j in range(root.child(i).childCount())
                 if not root.child(i).child(j).isFirstColumnSpanned()]  # a change part-way is a line of its own
        if names:
            for name in names:
                for column in range(3):  # the whole text, where the column elides it
                    name.setToolTip(column, name.text(column))
            # Measured on every row, the folded groups' too (Qt's resizeColumnToContents sees only the rows on
            # show: a group unfolded later had its values elided on a wide dock).
            metrics, header = self.tree.fontMetrics(), self.tree.header()
            indent = 2 * self.tree.indentation()  # a child's indentation, and room for the arrow
            self._names_width = max(metrics.horizontalAdvance(n.text(0)) for n in names) + indent + 12
            # The widest name with its group left out ("\u2026wheelbase", as elide_path shortens it): what a narrow
            # dock keeps of the names before A and B go down to their numbers ("\u2026wh\u2026ase" was cut further).
            self._leaf_widths = [(n.parent(), metrics.horizontalAdvance("\u2026" + n.text(0).rsplit(".", 1)[-1])
                                  + indent + 12) for n in names]
            self._value_widths = [max(max(metrics.horizontalAdvance(n.text(c)) for n in names) + CELL_MARGIN,
                                      header.sectionSizeFromContents(c).width()) for c in (1, 2)]
            self._number_floors = [(name.parent(), [math.ceil(value_floor(name.text(c), metrics.horizontalAdvance))
                                                     + _text_margins(self.tree) for c in (1, 2)]) for name in names]
            self._fit_names()
        if self.comparer.model.running:  # pinned, or a re-run adopted, mid-run: B runs on from here
            self._grey_while_running()

    def _fit_names(self) -> None:
        """A and B as wide as their values, and the names the rest, at most as wide as they are. On a narrow dock
        the names give way first, down to a third of the tree, then A and B share what is left (a text elided,
        whole in its tooltip): with every column as wide as its texts, B ran past the dock's edge behind a scroll
        bar. A and B are never narrower than the numbers of the rows on show, each value elided after its last number
        that fits (by :func:`elide_value`; in the middle, "PASS -0.03836 m/s\u00b2" read "PASS -0.\u2026836 m/s\u00b2"):
        a dock narrower than the names' third and those numbers scrolls sideways."""
        room = self.tree.viewport().width()
        if not self._names_width:  # nothing pinned yet: the headers spread over the whole width, not bunched left
            third = max(room // 3, MIN_VALUE_WIDTH)
            self.tree.setColumnWidth(0, third)
            self.tree.setColumnWidth(1, third)
            self.tree.setColumnWidth(2, max(room - 2 * third, MIN_VALUE_WIDTH))
            return
        a, b = self._value_widths
        names = min(self._names_width, room - a - b)
        floors = [max([0] + [f[c] for group, f in self._number_floors if group.isExpanded()]) for c in (0, 1)]
        if names < min(self._names_width, room // 3):
            # a third of the tree, or more where the last parts of the names on show need it and A and B keep their
            # numbers whole
            leaves = min(max([0] + [w for group, w in self._leaf_widths if group.isExpanded()]), self._names_width)
            names = max(min(self._names_width, room // 3), MIN_VALUE_WIDTH,
                        min(leaves, room - floors[0] - floors[1]))
            half = max((room - names) // 2, MIN_VALUE_WIDTH)
            # half each; one that needs less gives the rest to the other
            a, b = (a, max(room - names - a, half)) if a < half else (max(room - names - b, half), b) if b < half \
                else (half, half)
        if a < floors[0] or b < floors[1]:  # a number would be cut: the column gets the room, the tree scrolls
            a, b = max(a, floors[0]), max(b, floors[1])
        b = max(b, room - names - a)  # B takes what is left over (the last section does not stretch)
        self.tree.setColumnWidth(0, names)
        self.tree.setColumnWidth(1, a)
        self.tree.setColumnWidth(2, b)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_names()

    def showEvent(self, event) -> None:  # its tab raised: the width it has now
        super().showEvent(event)
        self._fit_names()

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.tree.viewport():
            self._fit_names()  # the vertical scroll bar came or went: B ran 14 px under it, behind a sideways one
        return super().eventFilter(watched, event)


def elide_path(text: str, width: float, advance) -> str:
    """A parameter's dotted name shortened to ``width`` (``advance(text)`` its width): whole where it fits, else its
    group cut short from the end ("eng\u2026.idle_rpm"), then without it ("\u2026idle_rpm"), then the last part elided
    in the middle. The end of a name is what tells a group's parameters apart."""
    if advance(text) <= width or "." not in text:
        return text
    group, name = text.rsplit(".", 1)
    for keep in range(len(group) - 1, 0, -1):
        shorter = f"{group[:keep]}\u2026.{name}"
        if advance(shorter) <= width:
            return shorter
    alone = f"\u2026{name}"
    if advance(alone) <= width:
        return alone
    for cut in range(1, len(name)):
        half = (len(name) - cut) // 2
        shorter = f"{name[:half]}\u2026{name[len(name) - (len(name) - cut - half):]}"
        if advance(shorter) <= width:
            return shorter
    return "\u2026"


NUMBER = re.compile(r"[0-9]")  # a word of a value with a digit in it is a number (or holds one: "[4.11,")


def _value_cuts(text: str) -> list[str]:
    """The shorter forms of a value, longest first, each cut after a number and ended with an ellipsis: "PASS -0.03836
    m/s\u00b2" gives "PASS -0.03836 \u2026"; a list "[4.11, 2.32, 1.54]" gives "[4.11, 2.32, \u2026" and "[4.11, \u2026"."""
    words = text.split(" ")
    return [" ".join(words[:i + 1]) + " \u2026" for i in range(len(words) - 2, -1, -1) if NUMBER.search(words[i])]


def value_floor(text: str, advance) -> float:
    """The least width [px] ``text`` can be shown in with its numbers whole (``advance(text)`` its width): its
    shortest cut after its first number (:func:`elide_value`), or the text whole; 0 for a text with no number (Qt
    may elide it anywhere)."""
    if not NUMBER.search(text):
        return 0.0
    cuts = _value_cuts(text)
    return min(advance(text), advance(cuts[-1])) if cuts else advance(text)


def elide_value(text: str, width: float, advance) -> str | None:
    """A value shortened to ``width`` px with its numbers whole: whole where it fits, else cut after its last number
    that fits and ended with an ellipsis (its unit, then its later numbers go). Elided in the middle, "PASS -0.03836
    m/s\u00b2" read "PASS -0.\u2026836 m/s\u00b2", a number that is not the value. None where not even its first number
    fits (the dock gives the column that much: CompareDock._fit_names)."""
    if advance(text) <= width:
        return text
    for cut in _value_cuts(text):
        if advance(cut) <= width:
            return cut
    return None


def _text_margins(tree: QTreeWidget) -> int:
    """[px] of a cell's width that its text does not get: the style's margin each side, and a pixel each side more
    (a text exactly as wide as what is left was still elided by Qt)."""
    return 2 * (tree.style().pixelMetric(tree.style().PixelMetric.PM_FocusFrameHMargin) + 1) + 2


class ValueElision(QStyledItemDelegate):
    """The Compare tree's A and B: a value with a number is shortened by :func:`elide_value` (its numbers whole), one
    without as Qt elides it, at its end."""

    def initStyleOption(self, option, index) -> None:
        super().initStyleOption(option, index)
        if option.rect.width() <= 0 or not NUMBER.search(option.text):
            option.textElideMode = Qt.TextElideMode.ElideRight
            return
        shown = elide_value(option.text, option.rect.width() - _text_margins(self.parent()),
                            option.fontMetrics.horizontalAdvance)
        option.text = shown if shown is not None else "\u2026"  # no part of a number: the whole is in the tooltip
        option.textElideMode = Qt.TextElideMode.ElideRight


class NameElision(QStyledItemDelegate):
    """The Compare tree's names: a parameter's dotted name elided by :func:`elide_path`; group titles and lines
    that span the row as Qt elides them."""

    def initStyleOption(self, option, index) -> None:
        super().initStyleOption(option, index)
        tree = self.parent()
        item = tree.itemFromIndex(index) if isinstance(tree, QTreeWidget) else None
        if item is None or item.isFirstColumnSpanned() or " " in option.text:
            return
        room = option.rect.width() - 2 * (tree.style().pixelMetric(tree.style().PixelMetric.PM_FocusFrameHMargin) + 1)
        option.text = elide_path(option.text, room, option.fontMetrics.horizontalAdvance)


def _with_unit(text: str, unit: str) -> str:
    """A value and its unit as the window shows units (powers as superscripts: "kg m\u00b2", not "kg m^2")."""
    return f"{text} {pretty_unit(unit)}" if unit and text != "-" else text


def _v(value) -> str:
    if value is None:
        return "-"
    return f"{value + 0.0:g}" if isinstance(value, float) else str(value)  # + 0.0: no "-0"


def _verdict(v, units: dict[str, tuple[str, float]]) -> str:
    """PASS or FAIL and the value measured, in the channel's display unit (as the recorder shows it)."""
    if v is None:
        return "-"
    unit, factor = units.get(v.expect.channel, ("", 1.0))
    return f"{'PASS' if v.passed else 'FAIL'} {format_value(v.measured * factor)} {unit}".rstrip()


def install_compare(window) -> Comparer:
    """Add comparing to ``window`` (a MainWindow): dock, toolbar, keys, ghost cars, plot overlays."""
    comparer = Comparer(window.model, window)
    comparer.confirm_recording = window._confirm_recording
    window.compare_dock_widget = CompareDock(comparer)
    dock = QDockWidget("Compare", window)
    dock.setObjectName("compare")
    dock.setWidget(window.compare_dock_widget)
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
    window.tabifyDockWidget(window.telemetry_dock, dock)
    window.params_dock.raise_()
    window.compare_dock = dock
    pin = QAction("Pin run", window)
    pin.setShortcut(QKeySequence(PIN_KEY))
    pin.setToolTip(f"Pin the run on show as a reference ({PIN_KEY})")
    pin.triggered.connect(comparer.pin_current)
    drive = QAction("Drive from here", window)
    drive.setShortcut(QKeySequence(DRIVE_ON_KEY))
    drive.setToolTip(f"Go on live from the frame on show ({DRIVE_ON_KEY})")
    drive.triggered.connect(comparer.drive_from_here)
    comparer.said.connect(lambda text: window.show_message(text, 6000))
    for action in (pin, drive):
        window.addAction(action)
    toolbar = window.addToolBar("Compare")
    toolbar.setObjectName("compare_toolbar")
    toolbar.addAction(pin)
    toolbar.addAction(drive)
    window.pin_action, window.drive_on_action = pin, drive
    view_menu = getattr(window, "view_menu", None)
    if view_menu is not None:
        # with the other docks' toggles, before Reset layout (it came after Follow camera and the help overlay)
        view_menu.insertAction(getattr(window, "reset_layout_action", None), dock.toggleViewAction())
    comparer.rerun.failed.connect(lambda message: window.show_error("Re-run failed", message))
    window.params.compare_requested.connect(lambda path: compare_with_reference(window, path))
    window.plot_overlay = PlotOverlay(window.plots, comparer)
    window.ghost_cars = GhostCars(window.car_view, comparer)
    return comparer


def compare_with_reference(window, path: str) -> bool:
    """"Compare with reference" on a parameter's row: the run on show is pinned (A), the parameter takes
    the reference preset's value (one undoable edit; with a script loaded it re-runs, B) and the
    Compare dock shows the two. False when the reference has no other value for it."""
    value = window.params.reference_value(path)
    if value is None or value == window.model.session.params.get(path):
        return False
    pinned = window.comparer.pin_current()
    try:
        window.model.set_param(path, value)
    except (ParamError, ValueError) as exc:
        window.show_error("Parameter not set", str(exc))
        return False
    window.compare_dock.show()
    window.compare_dock.raise_()
    window.show_message(f"{path} set to the reference's value"
                        + ("; the run before is pinned" if pinned else "; nothing ran yet to pin"), 6000)
    return True
