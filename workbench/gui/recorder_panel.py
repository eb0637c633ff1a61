"""The recorder: record, stop, save, load, replay, pause, single step, speed, timeline and verdicts."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.session_model import SPEEDS, SessionModel

PASS = QColor(198, 239, 206)
FAIL = QColor(255, 199, 206)
PENDING = QColor(235, 235, 235)


class RecorderPanel(QWidget):
    """Controls for recording and replaying input scripts, and the loaded script's expectations."""

    save_requested = Signal()
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
        self.timeline = QSlider(Qt.Orientation.Horizontal)
        self.timeline.setRange(0, 0)
        self.timeline.setToolTip("scrub to see the car and the plots at any past frame")
        self.live = QPushButton("Live")
        self.live.setToolTip("back to the newest frame")
        self.position = QLabel()
        self.state = QLabel()
        self.verdicts = QTreeWidget()
        self.verdicts.setHeaderLabels(["", "expectation", "channel", "bound", "measured"])
        self.verdicts.setRootIsDecorated(False)
        self.verdicts.setAlternatingRowColors(False)
        for w in (self.record, self.stop, self.save, self.load, self.replay, self.pause, self.step, self.speed,
                  self.timeline, self.live):
            w.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        grid = QGridLayout()
        for i, w in enumerate((self.record, self.stop, self.save, self.load)):
            grid.addWidget(w, 0, i)
        for i, w in enumerate((self.replay, self.pause, self.step, self.speed)):
            grid.addWidget(w, 1, i)
        scrub = QHBoxLayout()
        scrub.addWidget(self.timeline, 1)
        scrub.addWidget(self.live)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(grid)
        layout.addLayout(scrub)
        layout.addWidget(self.position)
        layout.addWidget(self.state)
        layout.addWidget(self.verdicts, 1)

        self.record.clicked.connect(model.start_recording)
        self.stop.clicked.connect(model.stop_recording)
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
        self._on_script_loaded("")
        self._update_state()
        self._on_stepped()

    # -- model events ------------------------------------------------------------------------------

    def _on_stepped(self) -> None:
        if not self._model.text_due:
            return
        log = self._model.session.log
        with QSignalBlocker(self.timeline):
            self.timeline.setRange(0, max(log.frames - 1, 0))
            self.timeline.setValue(self._model.shown_frame())
        self._update_position()
        self._update_verdicts()

    def _on_view_frame_changed(self, frame: int) -> None:
        with QSignalBlocker(self.timeline):
            self.timeline.setValue(self._model.shown_frame())
        self._update_position()

    def _on_running_changed(self, running: bool) -> None:
        self.pause.setText("Pause" if running else "Resume")
        self._update_state()

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
            for expect in program.script.expects:
                item = QTreeWidgetItem(["pending", expect.label(), expect.channel, expect.bound_text(compact=True), ""])
                item.setToolTip(1, expect.label())
                self.verdicts.addTopLevelItem(item)
            for column in range(5):
                self.verdicts.resizeColumnToContents(column)
        self.replay.setEnabled(program is not None)
        self._update_verdicts()
        self._update_state()

    def _on_timeline_moved(self, frame: int) -> None:
        self._model.set_running(False)
        self._model.set_view_frame(frame)

    # -- display -----------------------------------------------------------------------------------

    def _update_position(self) -> None:
        k = self._model.shown_frame()
        dt = self._model.session.dt
        shown = "live" if self._model.view_frame is None else "scrubbed"
        self.position.setText(f"frame {max(k, 0)}  t = {max(k, 0) * dt:.3f} s  ({shown})")

    def _update_state(self) -> None:
        s = self._model.session
        parts = []
        if s.recording:
            parts.append("<b style='color:#c00'>\u25cf recording</b>")
        if s.replaying:
            parts.append(f"<b>\u25b6 replaying {s.program.name}</b>")
        elif s.program is not None:
            parts.append(f"script: {s.program.name}")
        if not self._model.running:
            parts.append("paused")
        self.state.setText(" \u2014 ".join(parts) if parts else "driving")
        self.stop.setEnabled(s.recording)
        self.save.setEnabled(s.last_recording is not None)

    def _update_verdicts(self) -> None:
        verdicts = self._model.session.verdicts()
        for i, verdict in enumerate(verdicts):
            item = self.verdicts.topLevelItem(i)
            if item is None:
                continue
            if verdict is None:
                colour, status, measured = PENDING, "pending", ""
            else:
                colour = PASS if verdict.passed else FAIL
                status = "PASS" if verdict.passed else "FAIL"
                measured = f"{verdict.measured:.4g} {verdict.unit}".rstrip()
            item.setText(0, status)
            item.setText(4, measured)
            item.setToolTip(4, measured)
            for column in range(5):
                item.setBackground(column, QBrush(colour))

