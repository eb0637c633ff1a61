"""The recorder: record, stop, save, load, replay, pause, single step, speed, timeline and verdicts."""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from physics import channel_infos
from workbench.gui.elided_label import ElidedLabel
from workbench.gui.plot_panel import display_unit, format_value
from workbench.gui.session_model import SPEEDS, SessionModel

NAME_SHARE = 0.3  # of the verdict table's width at least for the names, where the columns do not all fit whole
VERDICT_ROWS = 4  # verdicts the table always has room for (the plots above give way; 1024x640 fits)
COLUMNS = ("", "expectation", "bound", "measured", "worst at")
MARK = QColor(230, 120, 0)


def display_bound(expect, factor: float) -> str:
    """An expectation's bound in the channel's display unit ("0.5 .. 2", ">= 9")."""
    lo = None if expect.min is None else format_value(expect.min * factor)
    hi = None if expect.max is None else format_value(expect.max * factor)
    if lo is not None and hi is not None:
        return f"{lo} .. {hi}"
    return f">= {lo}" if lo is not None else f"<= {hi}"


def _halves(needs: tuple[int, int], room: int) -> tuple[int, int]:
    """``room`` px shared by two columns that need ``needs``: each its need where both fit, else half each, one that
    needs less than half giving the rest to the other."""
    if sum(needs) <= room:
        return needs
    if needs[0] <= room // 2:
        return needs[0], room - needs[0]
    if needs[1] <= room // 2:
        return room - needs[1], needs[1]
    return room // 2, room - room // 2


def share_by_texts(texts: tuple[int, int], heads: tuple[int, int], room: int) -> tuple[int, int]:
    """The widths of two columns sharing ``room`` px by what they hold: their texts' widths (``texts``) first, then
    what is left towards their headers' (``heads``). A column with nothing in it yet gives its room to the other's
    texts: at 1024x640, before a replay, the empty "measured" kept its header's 71 px while each pending bound was
    cut to ">= ..."; "measured" had been given its header whole before the bounds had their texts."""
    first = _halves(texts, room)
    more = _halves((max(heads[0] - first[0], 0), max(heads[1] - first[1], 0)), room - sum(first))
    return first[0] + more[0], first[1] + more[1]


class Timeline(QSlider):
    """The history as a slider: a click jumps to the frame under the mouse; edits and ``[[set]]`` events
    are ticks above the groove."""

    def __init__(self):
        super().__init__(Qt.Orientation.Horizontal)
        self.marks: list[int] = []  # frames

    def _track(self) -> tuple[float, int]:
        """Where the handle's centre can travel: its leftmost x and the length of the travel [px]."""
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        groove = self.style().subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                             QStyle.SubControl.SC_SliderGroove, self)
        handle = self.style().subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                             QStyle.SubControl.SC_SliderHandle, self)
        return groove.x() + handle.width() / 2, int(max(groove.width() - handle.width(), 1))

    def _frame_at(self, x: float) -> int:
        left, span = self._track()
        return QStyle.sliderValueFromPosition(self.minimum(), self.maximum(), int(round(x - left)), span)

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.setValue(self._frame_at(event.position().x()))
            self.setSliderDown(True)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if self.isSliderDown():
            self.setValue(self._frame_at(event.position().x()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self.isSliderDown():
            self.setSliderDown(False)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def x_of(self, frame: int) -> float:
        left, span = self._track()
        return left + QStyle.sliderPositionFromValue(self.minimum(), self.maximum(), frame, span)

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if not self.marks or self.maximum() <= self.minimum():
            return
        painter = QPainter(self)
        painter.setPen(QPen(MARK, 2))
        for frame in self.marks:
            if self.minimum() <= frame <= self.maximum():
                x = self.x_of(frame)
                painter.drawLine(int(x), 0, int(x), 5)
        painter.end()

PASS = QColor(198, 239, 206)
FAIL = QColor(255, 199, 206)
PENDING = QColor(235, 235, 235)


class RecorderPanel(QWidget):
    """Controls for recording and replaying input scripts, and the loaded script's expectations."""

    save_requested = Signal()
    record_requested = Signal()  # the window starts the recording, after asking about an unsaved one
    stop_requested = Signal()  # the window stops it (its script to replay compiled off the window's thread)
    load_requested = Signal()
    replay_requested = Signal()

    def __init__(self, model: SessionModel, parent=None):
        super().__init__(parent)
        self._model = model
        self.record = QPushButton("\u25cf Record")
        self.record.setToolTip("start recording from rest at the origin")
        self.stop = QPushButton("\u25a0 Stop")
        self.save = QPushButton("Save\u2026")
        self.save.setToolTip("save the last recording as a script")
        self.load = QPushButton("Load script\u2026")
        self.replay = QPushButton("\u25b6 Replay")
        self.replay.setToolTip("replay the loaded script, or the recording just made, from its start")
        self.pause = QPushButton("Pause")
        self.step = QPushButton("Step")
        self.step.setToolTip("advance one frame (pauses)")
        self.speed = QComboBox()
        for s in SPEEDS:
            self.speed.addItem(f"x{s:g}", s)
        self.speed.setCurrentIndex(SPEEDS.index(1.0))
        self.speed.setToolTip("simulation speed relative to real time")
        self.timeline = Timeline()
        self.timeline.setRange(0, 0)
        self.timeline.setToolTip("scrub to see the car and the plots at any past frame")
        self.live = QPushButton("Live")
        self.live.setToolTip("back to the newest frame")
        # Where the time cursor is and what the recorder does, on one line, the latter elided (whole in its
        # tooltip): at 1024x640 each line taken from the verdict table is one verdict fewer on show.
        self.position = QLabel()
        self.state = ElidedLabel()
        # Which recording Save writes, once one has stopped: its name, length, car and whether it was saved (another
        # preset opened since left Save writing the recording of the car before, and nothing said so).
        self.to_save = ElidedLabel()
        self.to_save.setVisible(False)
        # Elided too: "not judged: the keys drive ..." as a plain label was the dock's least width (411 px), and a
        # script driven with the keys held the window at 1,058 px on a 1024 px screen.
        self.summary = ElidedLabel()
        self.verdicts = QTreeWidget()
        self.verdicts.setHeaderLabels(list(COLUMNS))
        for column, name in enumerate(COLUMNS):
            self.verdicts.headerItem().setToolTip(column, name)  # whole where a narrow table elides the header
        self.verdicts.setRootIsDecorated(False)
        self.verdicts.setAlternatingRowColors(False)
        self.verdicts.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.verdicts.setMinimumHeight(48)
        self.verdicts.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a click on a verdict left the arrow keys here
        self.verdicts.setToolTip("double-click a row: the time cursor goes to its worst value")
        header = self.verdicts.header()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(24)
        header.setTextElideMode(Qt.TextElideMode.ElideRight)  # a header narrower than its name: clipped ("mea") before
        for column in range(len(COLUMNS)):
            # The names give way (elided, whole in the tooltip); the numbers always keep their room.
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch if column == 1
                                        else QHeaderView.ResizeMode.ResizeToContents)
        self.verdicts.itemDoubleClicked.connect(self._on_verdict_double_clicked)
        self.verdicts.viewport().installEventFilter(self)
        for w in (self.record, self.stop, self.save, self.load, self.replay, self.pause, self.step, self.speed,
                  self.timeline, self.live):
            w.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # Tight rows: at 1024x640 the verdict table gets what the controls leave of about 200 px.
        grid = QGridLayout()
        grid.setVerticalSpacing(2)
        for i, w in enumerate((self.record, self.stop, self.save, self.load)):
            grid.addWidget(w, 0, i)
        for i, w in enumerate((self.replay, self.pause, self.step, self.speed)):
            grid.addWidget(w, 1, i)
        scrub = QHBoxLayout()
        scrub.addWidget(self.timeline, 1)
        scrub.addWidget(self.live)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        layout.addLayout(grid)
        layout.addLayout(scrub)
        where = QHBoxLayout()
        where.setSpacing(4)
        where.addWidget(self.position)
        where.addWidget(QLabel("\u2014"))
        where.addWidget(self.state, 1)
        layout.addLayout(where)
        layout.addWidget(self.to_save)
        layout.addWidget(self.summary)
        layout.addWidget(self.verdicts, 1)

        self.record.clicked.connect(self.record_requested)
        self.stop.clicked.connect(self.stop_requested)
        self.save.clicked.connect(self.save_requested)
        self.load.clicked.connect(self.load_requested)
        self.replay.clicked.connect(self.replay_requested)
        self.pause.clicked.connect(model.toggle_running)
        self.step.clicked.connect(model.single_step)
        self.speed.currentIndexChanged.connect(lambda i: model.set_speed(self.speed.itemData(i)))
        self.timeline.valueChanged.connect(self._on_timeline_moved)
        self.live.clicked.connect(lambda: (model.set_view_frame(None), model.set_running(True)))
        model.stepped.connect(self._on_stepped)
        model.view_frame_changed.connect(self._on_view_frame_changed)
        model.running_changed.connect(self._on_running_changed)
        model.recording_changed.connect(self._on_recording_changed)
        model.script_loaded.connect(self._on_script_loaded)
        model.replay_changed.connect(self._on_replay_changed)
        model.speed_changed.connect(self._on_speed_changed)
        model.preset_loaded.connect(self._on_preset_loaded)
        model.params_changed.connect(self._on_params_changed)
        model.recording_saved.connect(lambda name: self._update_state())
        self._on_script_loaded("")
        self._update_state()
        self._on_stepped()

    # -- model events ------------------------------------------------------------------------------

    def _on_stepped(self) -> None:
        if not self._model.text_due:
            return
        self._update_marks()  # (a re-run of the script adopted: its edits' marks gone)
        log = self._model.session.log
        with QSignalBlocker(self.timeline):
            self.timeline.setRange(0, max(log.frames - 1, 0))
            self.timeline.setValue(self._model.shown_frame())
        self._update_position()
        self._update_verdicts()

    def _on_params_changed(self, path: str) -> None:
        self._update_marks()

    def _update_marks(self) -> None:
        marks = [frame for frame, _ in self._model.edit_marks]
        session = self._model.session
        if session.program is not None and session.replayed:
            marks += [int(round(s.at / session.dt)) for s in session.program.script.sets]
        if marks != self.timeline.marks:
            self.timeline.marks = marks
            self.timeline.update()

    def _on_view_frame_changed(self, frame: int) -> None:
        with QSignalBlocker(self.timeline):
            self.timeline.setValue(self._model.shown_frame())
        self._update_position()

    def _on_running_changed(self, running: bool) -> None:
        self.pause.setText("Pause" if running else "Resume")
        self._update_state()
        self._update_position()

    def _on_recording_changed(self, recording: bool) -> None:
        self._update_state()

    def _on_replay_changed(self, replaying: bool) -> None:
        self._update_state()
        self._update_verdicts()

    def _on_speed_changed(self, speed: float) -> None:
        with QSignalBlocker(self.speed):
            self.speed.setCurrentIndex(SPEEDS.index(speed) if speed in SPEEDS else SPEEDS.index(1.0))

    def _on_preset_loaded(self, name: str) -> None:
        self._on_stepped()
        self._update_state()

    def _on_script_loaded(self, name: str) -> None:
        self.verdicts.clear()
        program = self._model.session.program
        if program is not None:
            units = {i.name: display_unit(i) for i in channel_infos(self._model.session.params.model.unit)}
            for expect in program.script.expects:
                unit, factor = units[expect.channel]
                bound = f"{display_bound(expect, factor)} {unit}".rstrip()
                item = QTreeWidgetItem(["pending", expect.label(), bound, "", ""])
                item.setToolTip(1, f"{expect.label()}\nchannel: {expect.channel}")
                item.setToolTip(2, f"{expect.channel} {expect.bound_text(scale=factor)} {unit}".rstrip())  # one unit
                self.verdicts.addTopLevelItem(item)
        self.replay.setEnabled(program is not None)
        rows = min(self.verdicts.topLevelItemCount(), VERDICT_ROWS)
        height = self.verdicts.header().sizeHint().height() + 2 * self.verdicts.frameWidth()
        height += rows * (self.verdicts.sizeHintForRow(0) if rows else 0)
        self.verdicts.setMinimumHeight(max(height, 48))
        self._update_verdicts()
        self._update_state()

    def _on_timeline_moved(self, frame: int) -> None:
        self._model.set_running(False)
        self._model.set_view_frame(frame)

    # -- display -----------------------------------------------------------------------------------

    def _update_position(self) -> None:
        k = self._model.shown_frame()
        dt = self._model.session.dt
        shown = "scrubbed" if self._model.view_frame is not None else "live" if self._model.running else "paused"
        self.position.setText(f"frame {max(k, 0)}  t = {max(k, 0) * dt:.3f} s  ({shown})")

    def _update_state(self) -> None:
        s = self._model.session
        parts = []
        if s.recording:
            parts.append("\u25cf recording")
        if s.replaying:
            parts.append(f"\u25b6 replaying {s.program.name}")
        elif s.program is not None:
            parts.append(f"script: {s.program.name}")
        self.state.setText(" \u2014 ".join(parts) if parts else "driving")  # (paused or not: the position says)
        self.state.setStyleSheet("font-weight: bold;" + (" color: #c00;" if s.recording else "")
                                 if s.recording or s.replaying else "")
        # Record while a recording runs asked whether to save it "before you record again" and, answered Discard,
        # threw the take away and started over from rest: a second press of Record, meant as Stop or by mistake, lost
        # the drive. A recording running is ended by Stop (or Save, which stops and saves it); R restarts it, asking.
        self.record.setEnabled(not s.recording)
        self.record.setToolTip("a recording is running: Stop ends it (R restarts it)" if s.recording
                               else "start recording from rest at the origin")
        self.stop.setEnabled(s.recording)
        # As File > Save recording: a recording running is stopped and saved (it was disabled during a first
        # recording, with nothing stopped before it, though its tooltip said so and the menu did it).
        self.save.setEnabled(s.recording or s.last_recording is not None)
        self._update_to_save()

    def _update_to_save(self) -> None:
        """The line that says which recording Save writes, and the Save button's tooltip: the recording just made
        while it runs; once it stopped, that one, on the car it was driven with, whatever car is on show since."""
        model = self._model
        words = model.recording_to_save()
        other = model.recording_of_another_car()
        if model.session.recording:
            self.save.setToolTip("stop the recording running and save it as a script")
        elif words:
            on_show = model.session.preset.name
            self.save.setToolTip(f"save the last recording as a script: {words}"
                                 + (f" (not {on_show}, the car on show: it is saved with the car it was driven with)"
                                    if other else ""))
        else:
            self.save.setToolTip("save the last recording as a script")
        text = f"Save: {words}" + (" — not the car on show" if other else "") if words else ""
        self.to_save.setText(text)
        self.to_save.set_tip(self.save.toolTip() if words else "")
        self.to_save.setStyleSheet("color: #b35c00; font-weight: bold;" if other else "")
        self.to_save.setVisible(bool(words))

    def _update_verdicts(self) -> None:
        session = self._model.session
        verdicts = session.verdicts()
        units = {i.name: display_unit(i) for i in session.log.infos}
        counts = {"pass": 0, "fail": 0, "pending": 0}
        # With the script loaded but the keys driving (after a reset, say), its expectations are not judged at all:
        # "pending" said they would be, at 30 s as at 0.
        unjudged = session.program is not None and not session.replayed and session.log.frames > 0
        for i, verdict in enumerate(verdicts):
            item = self.verdicts.topLevelItem(i)
            if item is None:
                continue
            if verdict is None:
                colour, status, measured, when = PENDING, "not judged" if unjudged else "pending", "", ""
                counts["pending"] += 1
            else:
                colour = PASS if verdict.passed else FAIL
                status = "PASS" if verdict.passed else "FAIL"
                counts["pass" if verdict.passed else "fail"] += 1
                unit, factor = units[verdict.expect.channel]
                measured = f"{format_value(verdict.measured * factor)} {unit}".rstrip()
                when = f"{verdict.time:.3f} s"
            item.setText(0, status)
            item.setText(3, measured)
            item.setText(4, when)
            item.setToolTip(3, f"{measured}, worst at {when}" if when else measured)
            item.setData(4, Qt.ItemDataRole.UserRole, None if verdict is None else verdict.frame)
            for column in range(len(COLUMNS)):
                item.setBackground(column, QBrush(colour))
        if verdicts and unjudged:
            self.summary.setText("not judged: the keys drive, not the script (Replay runs and judges it)")
        elif verdicts:
            self.summary.setText(f"{counts['pass']} pass \u00b7 {counts['fail']} fail \u00b7 {counts['pending']} pending")
        self.summary.setVisible(bool(verdicts))
        self._fit_columns()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_columns()

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.verdicts.viewport():
            self._fit_columns()  # the vertical scroll bar came or went
        return super().eventFilter(watched, event)

    def _fit_columns(self) -> None:
        """Every column on show. The status and "worst at" always whole (at least as wide as their header and
        their texts); where the rest does not fit whole (a 1024 px screen) the names keep NAME_SHARE of the width
        and "bound" and "measured" share what is left by what they hold (:func:`share_by_texts`): their texts first,
        then their headers, elided beyond it (their numbers first, whole in their tooltips). "worst at" used to be
        hidden below 480 px, its header gone: the table read as cut off at "measured"."""
        table = self.verdicts
        header = table.header()
        table.setColumnHidden(4, False)

        def need(column: int) -> int:
            return max(table.sizeHintForColumn(column), header.sectionSizeHint(column))

        width = table.viewport().width()
        floor = math.ceil(NAME_SHARE * width)
        room = width - need(0) - need(4) - floor  # for "bound" and "measured"
        wanted = need(2), need(3)
        if sum(wanted) <= room:
            for column in (2, 3):
                header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
            return
        sizes = share_by_texts((table.sizeHintForColumn(2), table.sizeHintForColumn(3)),
                               (header.sectionSizeHint(2), header.sectionSizeHint(3)), max(room, 0))
        for column, size in zip((2, 3), sizes, strict=True):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            table.setColumnWidth(column, max(size, header.minimumSectionSize()))

    def _on_verdict_double_clicked(self, item: QTreeWidgetItem, column: int) -> None:
        frame = item.data(4, Qt.ItemDataRole.UserRole)
        if frame is not None:
            self._model.set_running(False)
            self._model.set_view_frame(int(frame))

