"""The workbench window: the car view in the centre, docks for plots, parameters, telemetry and recorder."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QByteArray, QCoreApplication, QEvent, QObject, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDockWidget,
    QFileDialog,
    QFrame,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QUndoView,
    QVBoxLayout,
    QWidget,
)

from physics import ParamError, PresetError
from physics.presets import cars_dir, scripts_dir
from workbench.gui.analog_driving import install_analog_driving
from workbench.gui.car_view import CarView
from workbench.gui.collector import pace_collection
from workbench.gui.compare_dock import install_compare
from workbench.gui.driving_keys import DrivingKeys
from workbench.gui.elided_label import ElidedLabel
from workbench.gui.keymap import COMMAND_SHORTCUTS, help_html
from workbench.gui.kpi_dock import install_kpis
from workbench.gui.param_panel import ParamPanel
from workbench.gui.plot_panel import EXPORT_FILTERS, PlotPanel
from workbench.gui.recorder_panel import RecorderPanel
from workbench.gui.session_model import SPEEDS, SessionModel, recording_car
from workbench.gui.sweep_dock import SweepDock, program_with
from workbench.gui.telemetry_panel import TelemetryPanel
from workbench.gui.undo import PresetCommand, describe
from workbench.gui.watch_dock import WatchList
from workbench.names import path_problem
from workbench.runs.live import LiveSession
from workbench.scripts.format import ScriptError

OUTPUT_SUFFIXES = (".toml", ".csv", ".png", ".svg", ".mcap", ".json", ".html", ".txt", ".jpg", ".jpeg", ".pdf",
                   ".tsv", ".xlsx", ".dat", ".bmp", ".gif", ".ini", ".yaml", ".yml")
"""The suffixes of the files the window writes, and others a name may end in by mistake: refused for another kind."""
LEFT_SHARE = 0.26  # of the window's width, the parameter dock's at first (and after "Reset layout")
RIGHT_SHARE = 0.35  # the plots' and the recorder's
TICK_MS = 16  # the window's one timer: steps what is due at the fixed dt, then repaints once
SETTINGS_VERSION = 1


FIRST_SIZE = (1500, 900)  # [px] the window's size on a first start, where the screen has room for it


def first_size(room: tuple[int, int] | None) -> QSize:
    """The window's size on a first start: FIRST_SIZE, or the screen's free area (``room``: its width and height)
    where that is smaller. It opened 1500 x 900 on a 1024 x 640 screen, its right docks and status bar off it."""
    width, height = FIRST_SIZE
    if room is not None:
        width, height = min(width, room[0]), min(height, room[1])
    return QSize(width, height)


def _screen_room(window=None) -> tuple[int, int] | None:
    """The free area of ``window``'s screen (the primary screen's without one), or None off screen (the offscreen
    platform's 800 x 600 is no one's screen)."""
    if QGuiApplication.platformName() in ("offscreen", "minimal"):
        return None
    screen = window.screen() if window is not None else QGuiApplication.primaryScreen()
    if screen is None:
        return None
    room = screen.availableGeometry()
    return room.width(), room.height()


class _KeysSafeBox(QMessageBox):
    """A QMessageBox that holds the keyboard focus itself once shown, none of its buttons (see keys_safe_question)."""

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.setFocus(Qt.FocusReason.OtherFocusReason)  # QMessageBox focuses its default button, whatever its policy


def keys_safe_question(parent, title: str, text: str, buttons, default) -> QMessageBox:
    """A question box whose buttons take no keyboard focus: a question that comes up as the user drives (Record
    over an unsaved recording) got the driving keys, and Space (the handbrake) pressed its focused button (Save, a
    file dialog; or, focus moved by an arrow key, Discard). Enter still answers the default, Escape cancels."""
    box = _KeysSafeBox(QMessageBox.Icon.Question, title, text, buttons, parent)
    box.setDefaultButton(default)
    for button in box.buttons():
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.setText(button.text().replace("&", ""))  # no mnemonic: N (step) answered No, and removed a crash file
    return box


class MainWindow(QMainWindow):
    """carbench's main window; ``settings`` defaults to the user's QSettings for carbench."""

    def __init__(self, session: LiveSession | None = None, settings: QSettings | None = None,
                 start_timer: bool = True):
        super().__init__()
        pace_collection()  # Python's cycle collector from the GUI thread's event loop only (workbench.gui.collector)
        self.setWindowTitle("carbench")
        self.settings = settings if settings is not None else QSettings("carbench", "carbench")
        self._create_model(session or LiveSession("sedan"))
        self._create_central()
        self._create_docks()
        self._create_actions()
        self._create_menus()
        self.comparer = install_compare(self)  # references, ghost cars, overlays, the Compare dock
        self.kpis = install_kpis(self)  # the KPI dock, the course in the car view, the Scripts menu
        self._default_layout = self.saveState()  # what View > Reset layout restores
        self._create_status_bar()
        self._read_settings()
        self._install_key_filter()
        self.analog = install_analog_driving(self)  # controllers, mouse steering: the Controls menu
        if start_timer:
            self.start_timer()

    # -- construction (table of contents above) --------------------------------------------------

    def _create_model(self, session: LiveSession) -> None:
        self.model = SessionModel(session, self)
        self.model.preset_loaded.connect(self._on_preset_loaded)
        self.model.script_loaded.connect(lambda name: self._remember_car_and_script())
        self.model.params_changed.connect(self._on_params_changed)
        self.model.stepped.connect(self._on_stepped)
        self.model.running_changed.connect(self._on_running_changed)
        self.model.recording_changed.connect(self._on_recording_changed)
        self.model.view_frame_changed.connect(self._on_view_frame_changed)
        self.model.edit_refused.connect(lambda text: self.show_message(text, 6000))

    def _create_central(self) -> None:
        self.car_view = CarView(self.model, self)
        self.setCentralWidget(self.car_view)

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        self._docks.append(dock)
        return dock

    def _create_docks(self) -> None:
        self.plots = PlotPanel(self.model)
        self.params = ParamPanel(self.model)
        self.telemetry = TelemetryPanel(self.model)
        self.recorder = RecorderPanel(self.model)
        self.watch = WatchList(self.model, self.plots)
        self._shares: dict[str, float] = {}  # dock name -> share of the window's width to keep
        self._docks: list[QDockWidget] = []
        self._closed = False
        self._saved_file: tuple[object, Path] | None = None  # the last recording as saved, and the file it went to
        self._share_timer = QTimer(self)
        self._share_timer.setSingleShot(True)
        self._share_timer.timeout.connect(self._apply_shares)
        # Docks keep their share of the width as the window grows (Qt alone gives all new room to the
        # car view): a watcher of the window's resizes and of separator drags applies them.
        self._resize_watch = DockShares(self)
        self.plots_dock = self._dock("Plots", "plots", self.plots, Qt.DockWidgetArea.RightDockWidgetArea)
        self.params_dock = self._dock("Parameters", "parameters", self.params, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.telemetry_dock = self._dock("Telemetry", "telemetry", self.telemetry,
                                         Qt.DockWidgetArea.LeftDockWidgetArea)
        self.recorder_dock = self._dock("Recorder", "recorder", self.recorder, Qt.DockWidgetArea.RightDockWidgetArea)
        self.watch_dock = self._dock("Watch", "watch", self.watch, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.plots.watch_requested.connect(self.watch_channel)
        self.plots.export_requested.connect(self.export_plot_dialog)
        self.resize(first_size(_screen_room()))
        self.reset_layout()
        self._create_sweep_dock()  # after the first arrangement: tabbed behind the recorder once
        self.params.save_requested.connect(self.save_preset_dialog)
        self.params.load_requested.connect(self.load_preset_dialog)
        self.params.reference_file_requested.connect(self.pick_reference_dialog)
        self.recorder.save_requested.connect(self.save_recording_dialog)
        # Stop compiles the recording to replay on a thread of its own (the window's thread waited 0.1 to 0.7 s for a
        # 30-minute recording's when the panel called the model's stop_recording, which compiles)
        self.recorder.stop_requested.connect(self.stop_recording)
        self.recorder.record_requested.connect(self.record)
        self.recorder.load_requested.connect(self.load_script_dialog)
        self.recorder.replay_requested.connect(self.replay)
        self.model.undo_stack.guard = self._before_history_step

    def reset_layout(self) -> None:
        """The docks where they start: parameters and telemetry tabbed on the left, plots over the
        recorder on the right, each side a share of the window's width (the car view the rest).

        Once the window is built this restores the layout saved then: taking tabbed docks out and
        putting them back would leave Qt's old tab bars on show.
        """
        default = getattr(self, "_default_layout", None)
        if default is not None:
            for dock in self._docks + [getattr(self, "compare_dock", None), getattr(self, "kpi_dock", None)]:
                if dock is not None:
                    dock.setFloating(False)
                    dock.show()
            self.restoreState(default)
        else:
            self._arrange_docks()
        self._sweep_placed = False  # where it starts: tabbed behind the recorder when next shown
        self.recorder_dock.raise_()
        self.params_dock.raise_()
        width, height = self.width(), self.height()
        self._shares = {"parameters": LEFT_SHARE, "telemetry": LEFT_SHARE, "watch": LEFT_SHARE, "plots": RIGHT_SHARE,
                        "recorder": RIGHT_SHARE}
        self.resizeDocks([self.params_dock, self.plots_dock], [int(LEFT_SHARE * width), int(RIGHT_SHARE * width)],
                         Qt.Orientation.Horizontal)
        self.resizeDocks([self.plots_dock, self.recorder_dock], [int(0.64 * height), int(0.36 * height)],
                         Qt.Orientation.Vertical)

    def _arrange_docks(self) -> None:
        left, right = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea
        for dock, area in ((self.params_dock, left), (self.telemetry_dock, left), (self.watch_dock, left),
                           (self.plots_dock, right), (self.recorder_dock, right)):
            dock.setFloating(False)
            self.removeDockWidget(dock)
            self.addDockWidget(area, dock)
            dock.show()
        self.splitDockWidget(self.plots_dock, self.recorder_dock, Qt.Orientation.Vertical)
        self.tabifyDockWidget(self.params_dock, self.telemetry_dock)
        self.tabifyDockWidget(self.params_dock, self.watch_dock)

    def _side_docks(self) -> list[QDockWidget]:
        # The docks made by _dock (never findChildren: during teardown it would wrap dying objects).
        sides = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea)
        return [d for d in self._docks if not d.isHidden() and not d.isFloating() and self.dockWidgetArea(d) in sides]

    def _on_show(self, dock: QDockWidget) -> bool:
        """Whether ``dock`` is on show in the window: a dock tabbed away stays "visible" to Qt, moved out of the
        window (x = -867), so its own x made a column of its own beside the one on show."""
        return dock.isVisible() and self.rect().intersects(dock.geometry())

    def _apply_shares(self) -> None:
        if self._closed:
            return
        # One dock per side column is enough (its tab mates and the docks stacked with it follow);
        # naming several of one column makes resizeDocks weigh them against each other.
        chosen, columns = [], set()
        for dock in self._side_docks():
            column = (self.dockWidgetArea(dock), dock.x())
            if dock.objectName() in self._shares and column not in columns and self._on_show(dock):
                columns.add(column)
                chosen.append(dock)
        if chosen:
            self.resizeDocks(chosen, [max(int(self._shares[d.objectName()] * self.width()), 1) for d in chosen],
                             Qt.Orientation.Horizontal)
            if hasattr(self, "_resize_watch"):
                self._resize_watch.forget_press()

    def dock_columns(self) -> list[tuple[int, int, int]]:
        """Where the columns of docks on show stand now: each one's area, left edge and width (the same whichever of
        a column's tabs is on show)."""
        return sorted({(self.dockWidgetArea(d).value, d.x(), d.width()) for d in self._side_docks() if self._on_show(d)})

    def keep_shares(self) -> None:
        """Take the docks' present widths as the shares to keep (after the user moved a separator). A dock tabbed
        behind another takes the share of the one on show in its column: its own width is the one it had when it
        was last on show (at another window size, or before the drag), and it would give the column that width
        the next time it is on show and the window is resized."""
        if self.width() <= 0:
            return
        docks = self._side_docks()
        shares = {d.objectName(): d.width() / self.width() for d in docks if self._on_show(d)}
        for dock in docks:
            if not self._on_show(dock):
                shown = next((t for t in self.tabifiedDockWidgets(dock) if self._on_show(t) and not t.isFloating()),
                             None)
                if shown is not None:  # the Compare or KPIs dock too, tabbed with the parameters
                    shares[dock.objectName()] = shown.width() / self.width()
                elif dock.objectName() in self._shares:
                    shares[dock.objectName()] = self._shares[dock.objectName()]
        self._shares = shares

    def watch_channel(self, name: str) -> None:
        """Pin channel ``name`` in the watch list and bring the list up."""
        self.watch.pin(name)
        self.watch_dock.show()
        self.watch_dock.raise_()

    def _create_sweep_dock(self) -> None:
        self.sweep = SweepDock(self.model)
        # In a scroll area, so the dock's form never sets the window's minimum height (1024x640 fits).
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.sweep)
        self.sweep_dock = self._dock("Sweep", "sweep", scroll, Qt.DockWidgetArea.RightDockWidgetArea)
        # Hidden until asked for ("Sweep this", View > Sweep), then tabbed behind the recorder: tabbed
        # at start-up, Qt leaves a second, stale tab bar of the pair over the status bar.
        self.sweep_dock.hide()
        # View > Sweep shows it where "Sweep this" does, tabbed behind the recorder the first time: shown where Qt
        # had put it, it was stacked under the recorder, its chart 20 px tall and its Run button scrolled away.
        self._sweep_placed = False  # tabbed behind the recorder once; then (or restored) where the user puts it
        self.sweep_dock.toggleViewAction().triggered.connect(lambda on: on and self._place_sweep_dock())
        self.params.sweep_requested.connect(self._on_sweep_requested)
        self.sweep.car_chosen.connect(self._on_sweep_car_chosen)

    def _on_sweep_requested(self, path: str) -> None:
        self.show_sweep_dock()
        self.sweep.add_axis(path)

    def _place_sweep_dock(self) -> None:
        """The first time it is shown, the Sweep dock goes behind the recorder, tabbed, and comes to the front."""
        if not self._sweep_placed and not self.sweep_dock.isFloating() \
                and self.sweep_dock not in self.tabifiedDockWidgets(self.recorder_dock):
            self.tabifyDockWidget(self.recorder_dock, self.sweep_dock)
        self._sweep_placed = True
        self.sweep_dock.raise_()

    def show_sweep_dock(self) -> None:
        """Show the Sweep dock, tabbed behind the recorder the first time (later where the user put it)."""
        if not self.sweep_dock.isVisible():
            self._place_sweep_dock()
        self.sweep_dock.show()
        self.sweep_dock.raise_()

    def _on_sweep_car_chosen(self, values: dict) -> None:
        """A car picked on the Sweep dock's chart: the run on show is pinned as the reference, the car's
        values become parameter edits (undoable) and the script replays on them."""
        session = self.model.session
        program = session.program_to_replay()  # (a recording just stopped, once compiled: it is the one swept)
        if program is None:
            return
        try:  # the car takes the values, or nothing moves (no reference pinned for a car not loaded)
            problem = session.edit_problem(values, replay_ends=True)
            if problem:
                raise ValueError(problem)
            chosen = program_with(program, values)
        except (ParamError, ValueError) as exc:
            self.show_error("Car not loaded", str(exc))
            return
        if session.replaying:
            session.replaying = False  # a replay in progress ends here: the chosen car replays instead
        # The chosen car replays the script from frame 0: an earlier frame on show is left for the newest, not driven
        # on from, as an edit there would be (which asked about the last recording, pinned the run "before frame N"
        # beside the run pinned here, and on the question's Cancel left that pin and the dock's ring on a car not
        # loaded).
        self.model.set_view_frame(None)
        self.comparer.pin_current()
        try:  # all at once, one step of the history (checked above: this only fails if something moved since)
            self.model.set_params(values, "sweep car: " + ", ".join(
                describe(path, value, session.params.info(path)) for path, value in values.items()))
        except (ParamError, ValueError) as exc:
            self.show_error("Car not loaded", str(exc))
            return
        session.program = chosen
        recording = session.recording
        self.model.replay()
        self.model.keep_as_edits()  # the car's values are edits, asked about on closing (replay() took them as the script's)
        # The replay ends a recording running, which is kept to save; Replay says so, and so does a car chosen here
        # (a click on the chart while driving on from the script's replay stopped the recording without a word).
        said = self._recording_stopped() if recording else ""
        if said:
            self.show_message(said, 10000)

    def _action(self, text: str, slot, shortcut: str | None = None, checkable: bool = False) -> QAction:
        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setCheckable(checkable)
        action.triggered.connect(slot)
        return action

    def _close_help(self) -> None:
        if self.help_action.isChecked():
            self.help_action.trigger()  # unchecked, and the overlay hidden as by F1

    def _create_actions(self) -> None:
        self.open_preset_action = self._action("Open preset\u2026", self.load_preset_dialog, "Ctrl+O")
        self.save_preset_action = self._action("Save preset as\u2026", self.save_preset_dialog, "Ctrl+S")
        self.load_script_action = self._action("Load script\u2026", self.load_script_dialog, "Ctrl+L")
        # As the Recorder's Record and Stop, and enabled as they are: Record while a recording runs is no action
        self.record_action = self._action("Record", self.record)
        self.stop_recording_action = self._action("Stop recording", self.stop_recording)
        self.model.recording_changed.connect(self._update_record_actions)
        self._update_record_actions()
        self.save_recording_action = self._action("Save recording\u2026", self.save_recording_dialog, "Ctrl+R")
        for changed in (self.model.recording_changed, self.model.preset_loaded, self.model.script_loaded,
                        self.model.recording_saved, self.model.running_changed, self.model.replay_changed):
            changed.connect(self._update_save_recording_action)  # (the signals the Recorder's Save follows)
        self._update_save_recording_action()
        self.export_mcap_action = self._action("Export telemetry as MCAP\u2026", self.export_mcap_dialog)
        self.export_csv_action = self._action("Export telemetry as CSV\u2026", self.export_telemetry_dialog, "Ctrl+E")
        self.quit_action = self._action("Quit", self.close, "Ctrl+Q")
        self.pause_action = self._action("Pause", self.model.toggle_running, COMMAND_SHORTCUTS["pause"], True)
        self.step_action = self._action("Single step", self.model.single_step, COMMAND_SHORTCUTS["step"])
        self.back_action = self._action("Step back", lambda: self.model.step_frames(-1), COMMAND_SHORTCUTS["back"])
        self.forward_action = self._action("Step forward", lambda: self.model.step_frames(1),
                                           COMMAND_SHORTCUTS["forward"])
        self.reset_action = self._action("Reset car", self.reset_car, COMMAND_SHORTCUTS["reset"])
        self.undo_action = self._action("Undo", self.undo, "Ctrl+Z")
        self.redo_action = self._action("Redo", self.redo, "Ctrl+Shift+Z")
        self.history_action = self._action("Edit history\u2026", self.show_history)
        stack = self.model.undo_stack
        stack.canUndoChanged.connect(self.undo_action.setEnabled)
        stack.canRedoChanged.connect(self.redo_action.setEnabled)
        stack.undoTextChanged.connect(lambda text: self.undo_action.setText(f"Undo {text}".strip()))
        stack.redoTextChanged.connect(lambda text: self.redo_action.setText(f"Redo {text}".strip()))
        self.undo_action.setEnabled(False)
        self.redo_action.setEnabled(False)
        self.follow_action = self._action("Follow camera", self.car_view.set_follow, COMMAND_SHORTCUTS["follow"],
                                          True)
        self.follow_action.setChecked(True)
        self.help_action = self._action("Keyboard help overlay", self.car_view.show_help, COMMAND_SHORTCUTS["help"],
                                        True)
        # Escape closes the overlay too, as a key shown over the view is expected to; only while it is shown, so that
        # Escape keeps its other uses (a value half typed) the rest of the time.
        self.close_help_action = self._action("Close the keyboard help", self._close_help, "Escape")
        self.close_help_action.setEnabled(False)
        self.help_action.toggled.connect(self.close_help_action.setEnabled)
        self.addAction(self.close_help_action)
        self.keys_action = self._action("Keyboard controls\u2026", self.show_keys)
        self.reset_layout_action = self._action("Reset layout", self.reset_layout)
        for action in (self.pause_action, self.step_action, self.back_action, self.forward_action, self.reset_action,
                       self.follow_action, self.help_action, self.undo_action, self.redo_action):
            self.addAction(action)  # shortcuts work wherever the focus is in the window

    def _create_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        # The shipped presets beside Open preset, and Quit last (the submenu came after Quit, at the menu's foot).
        presets_menu = QMenu("Shipped presets", file_menu)
        for path in sorted(cars_dir().glob("*.toml")):
            presets_menu.addAction(path.stem, lambda p=path: self.load_preset(p))
        for action in (self.open_preset_action, presets_menu.menuAction(), self.save_preset_action, None,
                       self.load_script_action, self.record_action, self.stop_recording_action,
                       self.save_recording_action, None, self.export_csv_action,
                       self.export_mcap_action, None, self.quit_action):
            file_menu.addSeparator() if action is None else file_menu.addAction(action)
        edit = bar.addMenu("&Edit")
        for action in (self.undo_action, self.redo_action, self.history_action):
            edit.addAction(action)
        sim = bar.addMenu("&Simulation")
        for action in (self.pause_action, self.step_action, self.back_action, self.forward_action, self.reset_action):
            sim.addAction(action)
        speeds = sim.addMenu("Speed")
        for s in SPEEDS:
            speeds.addAction(f"x{s:g}", lambda s=s: self.model.set_speed(s))
        view = self.view_menu = bar.addMenu("&View")
        for dock in (self.plots_dock, self.params_dock, self.telemetry_dock, self.watch_dock, self.recorder_dock,
                     self.sweep_dock):
            view.addAction(dock.toggleViewAction())
        view.addAction(self.reset_layout_action)
        view.addSeparator()
        view.addAction(self.follow_action)
        view.addAction(self.help_action)
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.keys_action)

    def _create_status_bar(self) -> None:
        # Messages go here, in their own slot: they never overlap the rest, and they are elided at their end to the
        # slot's width again at every resize (the whole message in the tooltip).
        self.status_message = ElidedLabel()
        self.status_message.setMinimumWidth(40)
        self._message_timer = QTimer(self)
        self._message_timer.setSingleShot(True)
        self._message_timer.timeout.connect(self.status_message.clear)
        self.status_time = QLabel()
        self.status_rtf = QLabel()
        self.status_preset = QLabel()
        self.status_state = QLabel()
        bar = self.statusBar()
        bar.addWidget(self.status_message, 1)
        for w in (self.status_time, self.status_rtf, self.status_preset, self.status_state):
            bar.addPermanentWidget(w)
        self._update_status()

    def show_message(self, text: str, ms: int = 4000) -> None:
        """A passing message in the status bar (elided to its slot; the full text in the tooltip)."""
        self.status_message.setText(text)
        self.status_message.set_tip(text)
        self._message_timer.start(ms)

    def _read_settings(self) -> None:
        s = self.settings
        if s.value("version", type=int) == SETTINGS_VERSION:
            # Each kept only if it is the bytes Qt saved: a line blanked or edited by hand (a string) stopped the window
            # from starting at all (restoreGeometry(str) raised); restoreState says itself when bytes are not a state.
            geometry = s.value("geometry")
            if isinstance(geometry, (QByteArray, bytes)):
                self.restoreGeometry(geometry)
            state = s.value("window_state")
            if isinstance(state, (QByteArray, bytes)) and self.restoreState(state, SETTINGS_VERSION):
                # shown where it was left, hidden or not, once it had been placed
                self._sweep_placed = self.sweep_dock.isVisibleTo(self) or s.value("sweep_placed", False, type=bool)
            try:
                plots = json.loads(s.value("plots", "[]"))
                if plots:
                    self.plots.set_channel_sets(plots)
            except (TypeError, ValueError):
                pass
            window = s.value("plot_window", type=float)
            if window:
                self.plots.window.setValue(window)
            follow = s.value("follow", type=bool)
            if follow is not None:
                self.follow_action.setChecked(bool(follow))
                self.car_view.set_follow(bool(follow))
            speed = s.value("speed", 1.0, type=float)
            if speed in SPEEDS:
                self.model.set_speed(speed)
            try:
                self.params.set_folded(json.loads(s.value("folded", "[]")))
            except (TypeError, ValueError):
                pass
            try:
                watched = json.loads(s.value("watch", "[]"))
                if isinstance(watched, list):
                    self.watch.set_channels(watched)
            except (TypeError, ValueError):
                pass

    def write_settings(self) -> None:
        s = self.settings
        s.setValue("version", SETTINGS_VERSION)
        s.setValue("geometry", self.saveGeometry())
        s.setValue("window_state", self.saveState(SETTINGS_VERSION))
        s.setValue("sweep_placed", self._sweep_placed)
        s.setValue("plots", json.dumps(self.plots.channel_sets()))
        s.setValue("plot_window", self.plots.window.value())
        s.setValue("follow", self.follow_action.isChecked())
        s.setValue("speed", self.model.speed)
        s.setValue("folded", json.dumps(sorted(self.params.folded)))
        s.setValue("watch", json.dumps(self.watch.names))
        session = self.model.session
        s.setValue("last_preset", str(session.preset.path) if session.preset.path else session.preset.name)
        program = session.program_to_replay()  # (a recording stopped just before closing: its compile is over)
        s.setValue("last_script", program.script.source if program is not None else "")
        s.sync()

    def restore_last_session(self) -> None:
        """Open the preset and script of the last run (when they still load; else stay as is)."""
        preset = self.settings.value("last_preset", "", type=str)
        script = self.settings.value("last_script", "", type=str)
        try:
            if script and Path(script).is_file():
                self.model.load_script(script)
            elif preset:
                self.model.load_preset(preset)
                self.model.undo_stack.clear()  # the car the window opened on is not a step to undo
        except (ScriptError, PresetError):
            pass

    def _install_key_filter(self) -> None:
        self._keys = DrivingKeys(self.model, self)

    def start_timer(self) -> None:
        """Start the window's one timer, which steps the car (made without it: ``start_timer=False``)."""
        self._last_tick = time.perf_counter()
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self._on_tick)
        self.timer.start(TICK_MS)

    # -- the timer ---------------------------------------------------------------------------------

    def _on_tick(self) -> None:
        now = time.perf_counter()
        elapsed, self._last_tick = now - self._last_tick, now
        self.analog.pump()
        self.model.tick(elapsed)

    # -- model events ------------------------------------------------------------------------------

    def _on_stepped(self) -> None:
        if self.model.text_due:
            self._update_status()

    def _on_view_frame_changed(self, frame: int) -> None:
        self._update_status()

    def _remember_car_and_script(self) -> None:
        """The preset and the script file on show, written to the settings as they come in (a start reopens them): kept
        only by a clean exit, a crash's restart opened the sedan whatever car had been driven."""
        session = self.model.session
        self.settings.setValue("last_preset", str(session.preset.path) if session.preset.path else session.preset.name)
        program = session.program
        source = program.script.source if program is not None else ""
        # (a recording is no file to reopen: the start opens its car, as after a clean exit)
        self.settings.setValue("last_script", source if source and Path(source).is_file() else "")
        self.settings.sync()

    def _on_preset_loaded(self, name: str) -> None:
        self._remember_car_and_script()
        self._update_status()
        note = self._recording_kept_note()
        if note:
            self.show_message(note, 15000)

    def _recording_kept_note(self) -> str:
        """What to say when another car comes in while the last recording, of the car before, is not saved: it is
        kept, and Save writes it with that car (it did so without a word, the car on show another)."""
        session = self.model.session
        script = session.last_recording
        if script is None or not session.recording_unsaved or not self.model.recording_of_another_car():
            return ""
        car = recording_car(script)
        return (f"the recording made on {car} ({script.duration:.1f} s) is kept, not saved: Save recording writes it, "
                f"with {car}")

    def _update_record_actions(self, *_) -> None:
        recording = self.model.session.recording
        self.record_action.setEnabled(not recording)
        self.stop_recording_action.setEnabled(recording)

    def _update_save_recording_action(self, *_) -> None:
        """File > Save recording names the recording it writes (the Recorder's line under its Save says it too)."""
        words = self.model.recording_to_save()
        self.save_recording_action.setText(f"Save recording ({words})\u2026" if words else "Save recording\u2026")
        session = self.model.session  # enabled as the Recorder's Save is: a recording running or one to save
        self.save_recording_action.setEnabled(session.recording or session.last_recording is not None)

    def _on_params_changed(self, path: str) -> None:
        self._update_status()

    def _on_running_changed(self, running: bool) -> None:
        self.pause_action.setChecked(not running)
        self._update_status()

    def _on_recording_changed(self, recording: bool) -> None:
        self._update_status()

    def _update_status(self) -> None:
        s = self.model.session
        k = max(self.model.shown_frame(), 0)
        self.status_time.setText(f"t = {k * s.dt:8.3f} s   frame {k:6d}")
        rtf = self.model.real_time_factor()
        self.status_rtf.setText(f"real time x{rtf:4.2f}" if rtf > 0 else "real time  --  ")
        modified = "  *modified*" if self.model.modified else ""
        self.status_preset.setText(f"preset {s.preset.name}{modified}")
        state = "recording" if s.recording else "replaying" if s.replaying else ""
        state += "" if self.model.running else (" paused" if state else "paused")
        self.status_state.setText(state.strip())
        self.setWindowTitle(f"carbench \u2014 {s.preset.name}{' *' if self.model.modified else ''}")

    # -- files -------------------------------------------------------------------------------------

    def ask_save_path(self, title: str, start: str, filters: str, suffix: str) -> str:
        """A file name to write, from the save dialog: ``suffix`` added to a name typed without one, or whose last
        point is part of the name ("sedan.v2"; a preset saved as "mine" was not listed by the Load dialog's *.toml
        filter); a name ending in another file kind's suffix (OUTPUT_SUFFIXES) is refused with why (a PNG went into
        "wrong.csv"). "" when cancelled or refused.

        The name is checked first and only then is the user asked whether to replace a file of that name: the
        dialog's own question is off (it asked to replace an existing "old.csv" in the MCAP dialog, which was then
        refused for not being .mcap; and it asked about the name typed, not the one written with the suffix)."""
        path, _ = QFileDialog.getSaveFileName(self, title, start, filters, "",
                                              QFileDialog.Option.DontConfirmOverwrite)
        if not path:
            return ""
        if Path(path).name.rstrip("."):  # a name typed ending in a point: the point is the suffix's ("trail." was
            path = path.rstrip(".")  # written "trail..toml", and "trail.toml." "trail.toml.toml")
        given = Path(path).suffix.lower()
        if given not in OUTPUT_SUFFIXES:  # none, or a part of the name ("sedan.v2")
            path += suffix
        elif given != suffix:
            self.show_error(title, f"{path}: this is written as a {suffix} file; give it a name ending in {suffix}")
            return ""
        if os.path.lexists(path) and not self.ask_yes_no(title, f"{path} already exists. Replace it?"):
            return ""
        return path

    def show_error(self, title: str, message: str) -> None:
        QMessageBox.warning(self, title, message)

    def load_preset(self, path: str | Path) -> bool:
        """Load a preset; a bad file shows its message and keeps the current car. A recording running is asked about
        first, then unsaved parameter edits, as closing asks (Save, Discard or Cancel): another car ends the recording
        (it ended without a word, kept unsaved)."""
        # A file that cannot be loaded is refused before anything is asked: the recording's question came first, and
        # a Save stopped it for a car that never came.
        from workbench.runs.live import named_preset

        try:
            named_preset(path)
        except PresetError as exc:
            self.show_error("Preset not loaded", str(exc))
            return False
        # Both questions first, then what they ask for: a Cancel of the second (or a file not chosen) leaves the
        # recording running and unsaved, as a Cancel of the first does (it was saved and stopped before the second).
        recording = QMessageBox.StandardButton.Discard
        if self.model.session.recording:
            recording = self.ask_recording("load another preset")
            if recording not in (QMessageBox.StandardButton.Save, QMessageBox.StandardButton.Discard):
                return False
        if not self._confirm_discard("load another preset"):
            return False
        if recording == QMessageBox.StandardButton.Save and not self._save_recording_asked():
            return False
        # (discarded: let go as the car changes; a bad file keeps the car, and the recording runs on)
        let_go = self.model.session.recording and recording == QMessageBox.StandardButton.Discard
        try:
            self.model.load_preset(path, let_go=let_go)
        except PresetError as exc:
            self.show_error("Preset not loaded", str(exc))
            return False
        return True

    def _recording_ends(self, doing: str) -> str | None:
        """The recording running, which ``doing`` ends, asked about (Save, Discard or Cancel): "saved" (saved, and so
        stopped), "discard" (the caller lets it go as it ends it), or None to leave everything as it is (Cancel, or a
        Save whose file was not chosen or could not be written)."""
        answer = self.ask_recording(doing)
        if answer == QMessageBox.StandardButton.Save:
            return "saved" if self._save_recording_asked() else None
        if answer == QMessageBox.StandardButton.Discard:
            return "discard"
        return None

    def _before_history_step(self, command, undo: bool) -> bool:
        """The undo stack's guard (UndoStack.guard): an undo or redo of a preset load while a recording runs ends the
        recording, so it is asked about first, as opening a preset asks (Save, Discard or Cancel); False (Cancel, or
        a save not made) leaves the step not taken and the recording running. It ended without a word."""
        if not isinstance(command, PresetCommand) or not self.model.session.recording:
            return True
        ended = self._recording_ends("load another preset")
        if ended == "discard":
            self.model.let_go_recording()  # (the car it goes back to is loaded: nothing can fail after this)
        return ended is not None

    def last_folder(self, key: str, default: str | Path | None = None) -> str:
        """Where a file dialog opens: the folder of the last file of its kind, else ``default`` (else $HOME)."""
        folder = self.settings.value(key, "", type=str)
        if folder and Path(folder).is_dir():
            return folder
        return str(default if default is not None else Path.home())

    def remember_folder(self, key: str, path: str | Path) -> None:
        self.settings.setValue(key, str(Path(path).resolve().parent))

    def preset_folder(self) -> str:
        """Where the preset dialogs open: the folder of the last preset saved (or opened), else the shipped ones."""
        folder = self.settings.value("preset_folder", "", type=str)
        return folder if folder and Path(folder).is_dir() else str(cars_dir())

    def load_preset_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open preset", self.preset_folder(), "Presets (*.toml)")
        if path and self.load_preset(path):
            self.remember_folder("preset_folder", path)

    def pick_reference_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Compare with preset", self.preset_folder(), "Presets (*.toml)")
        if path:
            self.set_reference(path)

    def set_reference(self, path: str | Path) -> bool:
        from physics import load_preset

        try:
            self.params.set_reference(load_preset(path))
        except PresetError as exc:
            self.show_error("Preset not loaded", str(exc))
            return False
        return True

    def output_problem(self, path: str | Path, what: str, preset_too: bool = False) -> str | None:
        """Why ``path`` may not be written by ``what`` ("Save preset", "Export telemetry" ...), or None: a folder, a
        device or a missing folder, as on the command line, and never over what is loaded (the script, its preset,
        the preset on show, a shipped preset or script), which the file dialog's "replace?" alone let through. ``preset_too``:
        the preset on show may be saved over (Save preset, when it is the user's own file)."""
        from workbench.output.files import OutputPathError, check_output_file, same_file

        session = self.model.session
        program = session.program_to_replay()  # (a recording just stopped is the loaded script once compiled)
        on_show = session.preset.path
        loaded = [("the preset on show", None if preset_too else on_show)]
        if program is not None:
            own = program.preset_path
            loaded += [("the loaded script", Path(program.script.source)),
                       ("the loaded script's preset", None if preset_too and own == on_show else own)]
        try:
            target = check_output_file(path, what)
        except OutputPathError as exc:
            return str(exc)
        for name, source in loaded:
            if source is not None and Path(source).exists() and same_file(target, source):
                return f"{what} {target}: is {name}; choose another name"
        shipped = [*cars_dir().glob("*.toml"), *scripts_dir().glob("*.toml")]
        if target.exists() and any(same_file(target, file) for file in shipped):
            return f"{what} {target}: is a preset or script shipped with carbench; choose another name"
        return None

    def write_output(self, path: str | Path, what: str, failed: str, write, preset_too: bool = False) -> bool:
        """``write()`` the output ``path`` once :meth:`output_problem` lets it; a refusal, or the OSError it ends in,
        shown under the title ``failed``. False when nothing was written."""
        problem = self.output_problem(path, what, preset_too)
        if problem:
            self.show_error(failed, problem)
            return False
        try:
            write()
        except OSError as exc:
            self.show_error(failed, f"{path}: {path_problem(exc)}")
            return False
        return True

    def save_preset(self, path: str | Path) -> bool:
        try:
            if not self.write_output(path, "Save preset", "Preset not saved", lambda: self.model.save_preset(path),
                                     preset_too=True):
                return False
        except (ParamError, PresetError) as exc:
            self.show_error("Preset not saved", f"{path}: {exc}")
            return False
        self.settings.setValue("preset_folder", str(Path(path).resolve().parent))
        self.show_message(f"saved {path}", 4000)
        return True

    def save_preset_dialog(self) -> bool:
        start = str(Path(self.preset_folder() if self.settings.contains("preset_folder") else Path.home())
                    / f"{self.model.session.preset.name}-tuned.toml")
        path = self.ask_save_path("Save preset as", start, "Presets (*.toml)", ".toml")
        return self.save_preset(path) if path else False

    def load_script(self, path: str | Path) -> bool:
        """Load a script (and its preset) into the recorder; a bad script shows why and changes nothing.

        A script of the car on show (the same preset file) keeps the parameter edits, without asking;
        one of another car asks first.
        """
        from workbench.scripts.format import load_script as read_script
        from workbench.scripts.program import script_preset_path

        try:
            script = read_script(path)
        except ScriptError as exc:  # a script that cannot be read loses nothing: refused before anything is asked
            self.show_error("Script not loaded", str(exc))
            return False
        try:
            current = self.model.session.preset.path
            same_car = current is not None and script_preset_path(script) == current
        except ScriptError:
            same_car = False  # the load below says why
        lost = ""
        if same_car and self.model.modified:
            try:
                lost = self.model.edits_lost_to(script)
            except (ScriptError, PresetError):
                pass  # the load below says why, with nothing asked first
        keep: bool | dict = same_car
        if lost:  # some edits are not kept on the same car either: asked about as for another car
            answer = self.ask_unsaved(f"load a script that {lost}")
            if answer == QMessageBox.StandardButton.Save:
                keep = self.model.edits()  # taken now: saved, the car on show is the saved preset file's
                if not self.save_preset_dialog():
                    return False
            elif answer != QMessageBox.StandardButton.Discard:
                return False
        elif not same_car and not self._confirm_discard("load a script"):
            return False
        recording = self.model.session.recording
        try:
            self.model.load_script(path, keep_edits=keep)
            self.remember_folder("script_folder", path)
        except (ScriptError, PresetError) as exc:
            self.show_error("Script not loaded", str(exc))
            return False
        from workbench.runs.stamp import recording_note

        said = [self.model.kept_edits_note()]
        note = recording_note(self.model.session.program)
        if note:  # a recording made with another carbench, dt or parameters: it may replay otherwise
            said.append(note.removeprefix("note: "))
        if recording:
            said.append(self._recording_stopped())
        else:
            said.append(self._recording_kept_note())  # (said as the car came in, and then written over)
        if any(said):
            self.show_message("; ".join(s for s in said if s), 15000)
        return True

    def _recording_stopped(self) -> str:
        """What to say of a recording that ran until a script came in (or its replay began): it stopped, and is
        kept (it stopped silently; it is asked about before it could be lost, as Record and Close ask)."""
        script = self.model.session.last_recording
        if self.model.session.recording or script is None:
            return ""
        return f"the recording stopped ({script.duration:.1f} s, not saved yet: File \u2192 Save recording)"

    def replay(self) -> bool:
        """Replay the loaded script from its start; it drives with its own parameters, so ask first where those are
        not the ones on show. A script that starts with them (a recording made with the edits, a test's script run
        with them) keeps them: nothing is asked, and they stay unsaved edits (Discard had left them on show and
        driving, and the close then asked nothing)."""
        program = self.model.session.program_to_replay()
        if program is None:
            return False
        keeps = program.params == self.model.session.params
        edited = self.model.modified
        if not keeps and not self._confirm_discard("replay the script"):
            return False
        recording = self.model.session.recording
        self.model.replay()
        if keeps and edited:
            self.model.keep_as_edits()
            self._update_status()  # the title's and the status bar's "modified" at once
        said = self._recording_stopped() if recording else ""
        if said:
            self.show_message(said, 10000)
        return True

    def load_script_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load script", self.last_folder("script_folder", scripts_dir()),
                                              "Scripts (*.toml)")
        if path:
            self.load_script(path)

    def save_recording(self, path: str | Path) -> bool:
        script = self.model.session.last_recording
        if script is None:
            self.show_error("Nothing to save", "Record something first (Record, drive, Stop).")
            return False
        name = Path(path).stem
        try:
            if not self.write_output(path, "Save recording", "Recording not saved",
                                     lambda: replace(script, name=name).save(path)):
                return False
        except ScriptError as exc:  # larger than a script may be: kept, not saved
            self.show_error("Recording not saved", str(exc))
            return False
        self.model.recording_saved_as(name)  # saved as my_drive, it is called my_drive
        self._saved_file = (self.model.session.last_recording, Path(path).absolute())
        self.remember_folder("recording_folder", path)
        self.show_message(f"saved {path}", 4000)
        return True

    def stop_recording(self) -> bool:
        """Stop: the recording is kept as the last one at once, and becomes the script to replay once compiled, away
        from this thread (:meth:`SessionModel.stop_recording_soon`); False when nothing was recording."""
        return self.model.stop_recording_soon() is not None

    def record(self) -> bool:
        """Record: a new recording from rest, once the last one, when it was never saved, is saved or let go. Not while
        one runs (the Recorder's Record and File > Record are disabled then): Stop ends it, R restarts it."""
        if self.model.session.recording:
            self.show_message("a recording is running: Stop ends it (R restarts it)", 4000)
            return False
        if not self._confirm_recording("record again"):
            return False
        self.model.discard_last_recording()  # (answered Discard where it is still unsaved)
        self.model.start_recording()
        return True

    def save_recording_dialog(self) -> bool:
        session = self.model.session
        if not session.recording and session.last_recording is None:
            # Said before the file dialog: File > Save recording (Ctrl+R) with nothing recorded asked for a file name
            # first and only then said there was nothing to save (the Recorder's Save is disabled then).
            self.show_error("Nothing to save", "Record something first (Record, drive, Stop).")
            return False
        # The file first, as a question's Save does (_save_recording_asked): a recording running stops only once a
        # file is chosen. Stopped before the dialog, a cancelled one left it stopped, and what was driven after went
        # unrecorded without a word.
        return self._save_recording_asked()

    def _ask_recording_path(self) -> str:
        start = str(Path(self.last_folder("recording_folder")) / "recording.toml")
        return self.ask_save_path("Save recording", start, "Scripts (*.toml)", ".toml")

    def _save_recording_asked(self) -> bool:
        """The Save of a question about the recording (before a close, a new recording, another preset): the file is
        chosen first, and a recording running stops only once it is (and may be written there), so that a file
        dialog cancelled leaves everything as it was, the recording running (it stopped, and the preset was not
        loaded). Whether it was saved."""
        # Paused while the file is chosen: the window's timer steps the car inside the dialog's own event loop, and
        # a recording running took in the seconds spent choosing a folder (199 frames for 30 driven). Driving goes on
        # as it was once the dialog closes.
        running = self.model.running
        self.model.set_running(False)
        try:
            path = self._ask_recording_path()
            if not path:
                return False
            problem = self.output_problem(path, "Save recording")
            if problem:
                self.show_error("Recording not saved", problem)
                return False
            if self.model.session.recording:
                self.stop_recording()
            return self.save_recording(path)
        finally:
            self.model.set_running(running)

    def export_telemetry(self, path: str | Path) -> bool:
        """Every channel of every frame of the history as CSV (as ``carbench replay --csv`` writes it)."""
        log = self.model.session.log
        if not self.write_output(path, "Export telemetry", "Telemetry not exported", lambda: log.write_csv(path)):
            return False
        self.show_message(f"wrote {log.frames} frames to {path}", 4000)
        return True

    def export_telemetry_dialog(self) -> bool:
        start = str(Path(self.last_folder("export_folder")) / "telemetry.csv")
        path = self.ask_save_path("Export telemetry", start, "CSV (*.csv)", ".csv")
        if path and self.export_telemetry(path):
            self.remember_folder("export_folder", path)
            return True
        return False

    def export_plot_dialog(self, row, kind: str) -> bool:
        """A plot as PNG, SVG or CSV, its dialog opening where the last export went (as the telemetry's do)."""
        start = str(Path(self.last_folder("export_folder")) / self.plots.export_name(row, kind))
        path = self.ask_save_path("Export plot", start, EXPORT_FILTERS[kind], f".{kind}")
        if not path:
            return False
        if not self.write_output(path, "Export plot", "Plot not exported", lambda: self.plots.export(row, kind, path)):
            return False
        self.remember_folder("export_folder", path)
        self.show_message(f"exported {path}", 4000)
        return True

    def export_mcap(self, path: str | Path) -> bool:
        """The history so far as MCAP (Foxglove, PlotJuggler)."""
        from workbench.output.mcap_log import write_session_mcap

        if not self.write_output(path, "Export MCAP", "Telemetry not exported",
                                 lambda: write_session_mcap(self.model.session, path)):
            return False
        self.show_message(f"exported {path}", 4000)
        return True

    def export_mcap_dialog(self) -> bool:
        start = str(Path(self.last_folder("export_folder")) / "telemetry.mcap")
        path = self.ask_save_path("Export telemetry as MCAP", start, "MCAP (*.mcap)", ".mcap")
        if path and self.export_mcap(path):
            self.remember_folder("export_folder", path)
            return True
        return False

    def show_keys(self) -> None:
        QMessageBox.information(self, "Keyboard controls", help_html())

    # -- commands ----------------------------------------------------------------------------------

    def reset_car(self) -> bool:
        """R: back to rest at the origin; during a recording, only once the user agrees to restart it."""
        if self.model.session.recording and not self.ask_yes_no(
                "Restart the recording?",
                f"Resetting the car restarts the recording ({self.model.session.log.frames} frames so far are lost)."):
            return False
        self.model.reset()
        analog = getattr(self, "analog", None)
        if analog is not None:  # every control back to the keys
            analog.arbiter.release()
        return True

    def ask_yes_no(self, title: str, text: str) -> bool:
        """A yes/no question (R during a recording), No the default; the driving keys answer nothing (Left, then
        Space, answered Yes and restarted the recording)."""
        box = keys_safe_question(self, title, text, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                 QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def undo(self) -> None:
        self._undo_redo(self.model.undo_stack.undo, "undo")

    def redo(self) -> None:
        self._undo_redo(self.model.undo_stack.redo, "redo")

    def _undo_redo(self, do, what: str) -> bool:
        """One step back or forward through the edit history, checked before the stack moves; whether it moved."""
        if self.model.session.replaying:
            self.show_message(f"nothing to {what} while the script replays", 4000)
            return False
        # The change is checked before the stack moves: on the frame's car with an earlier frame on show (the drive goes
        # on from it first), else on the car as it is (a refusal inside the command is said too, but the stack's index
        # has moved by then).
        stack = self.model.undo_stack
        command = stack.command(stack.index() - 1 if what == "undo" else stack.index())
        changes = getattr(command, "before" if what == "undo" else "after", None)
        if isinstance(changes, dict):
            try:
                self.model.go_on_for(changes)  # with an earlier frame on show: checked there, and driven on from it
            except ValueError as exc:
                self.show_message(f"cannot {what}: {exc}", 6000)
                return False
            problem = self.model.session.edit_problem(changes) if self.model.view_frame is None else None
            if problem:
                self.show_message(f"cannot {what} {command.text()}: {problem}", 6000)
                return False
        before = stack.index()
        do()
        return stack.index() != before

    def go_to_history(self, index: int) -> None:
        """Step through the edit history to entry ``index`` (0: the preset as loaded), each step checked as Ctrl+Z
        and Ctrl+Shift+Z check theirs; stops at the first the car refuses, which is said."""
        stack = self.model.undo_stack
        index = min(max(index, 0), stack.count())
        while stack.index() != index:
            back = stack.index() > index
            if not self._undo_redo(stack.undo if back else stack.redo, "undo" if back else "redo"):
                return

    def show_history(self) -> None:
        """The undo stack as a list; clicking an entry goes back (or forward) to it."""
        if getattr(self, "_history", None) is None:
            self._history = QDialog(self)
            self._history.setWindowTitle("Edit history")
            layout = QVBoxLayout(self._history)
            view = QUndoView(self.model.undo_stack)
            view.setEmptyLabel("(the preset as loaded)")
            # QUndoView's own click undoes and redoes through the stack itself, past _undo_redo's checks (a step the
            # car refuses moved the stack's index all the same): its clicks and keys go through go_to_history instead.
            view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self._history_clicks = _HistoryClicks(view, self.go_to_history)
            view.viewport().installEventFilter(self._history_clicks)
            layout.addWidget(view)
            # While the script replays (and owns the parameters), or an earlier frame is on show (where one step drives
            # on from it, checked on its car first: Ctrl+Z does that), the list is only shown.
            note = QLabel()
            note.setWordWrap(True)
            layout.addWidget(note)

            def follow(*_) -> None:
                why = ("The script sets the parameters while it replays: the history can be gone through when it is "
                       "over." if self.model.session.replaying else
                       "An earlier frame is on show: Ctrl+Z and Ctrl+Shift+Z go on from it, a step at a time; the "
                       "list can be gone through from the newest frame." if self.model.view_frame is not None else "")
                view.setEnabled(not why)
                note.setText(why)
                note.setVisible(bool(why))

            for changed in (self.model.replay_changed, self.model.view_frame_changed, self.model.preset_loaded,
                            self.model.script_loaded):
                changed.connect(follow)
            follow()
            self._history.resize(360, 420)
        self._history.show()
        self._history.raise_()
        # The keyboard to it, so that Escape closes it: with no window manager (Xvfb) nothing activates a new window
        # and the list, which has no button, stayed open over the window whatever was pressed.
        self._history.activateWindow()

    # -- closing -----------------------------------------------------------------------------------

    def _confirm_discard(self, doing: str) -> bool:
        """Ask before unsaved parameter edits are lost; True to go ahead."""
        if not self.model.modified:
            return True
        answer = self.ask_unsaved(doing)
        if answer == QMessageBox.StandardButton.Save:
            return self.save_preset_dialog()
        return answer == QMessageBox.StandardButton.Discard

    def ask_unsaved(self, doing: str) -> QMessageBox.StandardButton:
        return self._save_discard_cancel("Unsaved parameters", f"The parameters of {self.model.session.preset.name} "
                                         f"have unsaved changes. Save them before you {doing}?")

    def _save_discard_cancel(self, title: str, text: str) -> QMessageBox.StandardButton:
        """The question of something unsaved: Save (the default), Discard or Cancel."""
        return QMessageBox.StandardButton(keys_safe_question(self, title, text, QMessageBox.StandardButton.Save
                                                             | QMessageBox.StandardButton.Discard
                                                             | QMessageBox.StandardButton.Cancel,
                                                             QMessageBox.StandardButton.Save).exec())

    def _confirm_recording(self, doing: str) -> bool:
        """Ask before a recording is lost, one in progress or one stopped and not saved since; True to go ahead
        (after saving it, when asked to)."""
        session = self.model.session
        if (not session.recording and not (session.recording_unsaved and session.last_recording is not None)
                and self._saved_file_gone() is None):
            return True
        answer = self.ask_recording(doing)
        if answer == QMessageBox.StandardButton.Save:
            return self._save_recording_asked()
        return answer == QMessageBox.StandardButton.Discard

    def _saved_file_gone(self) -> Path | None:
        """The file the last recording was saved to, where that file is no longer there (deleted or moved by another
        program since): the recording is then only in this window, as an unsaved one is. None otherwise."""
        if self._saved_file is None:
            return None
        script, path = self._saved_file
        if script is not self.model.session.last_recording or self.model.session.recording:
            return None  # another recording since: that one is what is at stake
        return None if path.exists() else path

    def ask_recording(self, doing: str) -> QMessageBox.StandardButton:
        session = self.model.session
        if session.recording:
            title, text = "Recording in progress", f"A recording is running ({session.log.frames} frames so far)."
        elif not session.recording_unsaved and (gone := self._saved_file_gone()) is not None:
            script = session.last_recording
            title, text = "Recording file gone", (f"The last recording ({script.duration:.1f} s on "
                                                  f"{recording_car(script)}) was saved as {gone}, which is no longer "
                                                  "there (deleted or moved).")
            return self._save_discard_cancel(title, f"{text} Save it again before you {doing}?")
        else:
            script = session.last_recording
            title = "Recording not saved"
            text = ("The last recording has not been saved." if script is None else
                    f"The last recording ({script.duration:.1f} s on {recording_car(script)}) has not been saved.")
        return self._save_discard_cancel(title, f"{text} Save it before you {doing}?")

    def showEvent(self, event) -> None:
        super().showEvent(event)
        # Once the layout has settled after the first show: on a 1024 x 640 screen a first start opened 1,029 px wide
        # (the layout's least width while it was built, 1,015 once shown), its right docks' buttons off the screen.
        QTimer.singleShot(0, self, lambda: self.fit_screen(_screen_room(self)))

    def fit_screen(self, room: tuple[int, int] | None) -> None:
        """The window's size within its screen's free area (``room``: its width and height, None off screen), frame
        included, as far as its least size allows; where it stands is the window manager's (and restoreGeometry's),
        and so is a maximised or full-screen window."""
        if room is None or self.isMaximized() or self.isFullScreen():
            return
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)  # the docks' least widths as shown
        frame = self.frameGeometry().size() - self.size()
        least = self.minimumSizeHint().expandedTo(self.minimumSize())
        width = max(min(self.width(), room[0] - frame.width()), least.width())
        height = max(min(self.height(), room[1] - frame.height()), least.height())
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)

    def closeEvent(self, event) -> None:
        if not self._confirm_recording("close") or not self._confirm_discard("close"):
            event.ignore()
            return
        if hasattr(self, "timer"):
            self.timer.stop()
        self.model.session.compile_over()  # a recording stopped just before: its compile's thread ends first
        self.sweep.shutdown()
        self.write_settings()
        self._keys.uninstall()
        self.analog.shutdown()
        self._closed = True
        event.accept()


class DockShares(QObject):
    """Watches the window: a change of its width re-applies the docks' shares just after; the end of a
    separator drag (a mouse release on the window itself, the docks' widths changed since the press) takes the
    new widths as the shares.

    A press and release that moved no separator take nothing: a click on the status bar or on a label (whose
    mouse events go on to the window) at 1024 x 640, where the docks stood at their least widths, took those
    widths as the shares, and the window grown again to 1500 x 900 kept the parameters 37% of its width and the
    car view squeezed to 27% (seen under Xvfb)."""

    def __init__(self, window: MainWindow):
        super().__init__(window)
        self._window = window
        self._pressed: list[tuple[int, int, int]] | None = None  # the dock columns at the press on the window
        self._keep = QTimer(self)
        self._keep.setSingleShot(True)
        self._keep.timeout.connect(self._keep_if_moved)
        self._again = QTimer(self)
        self._again.setSingleShot(True)
        self._again.timeout.connect(window._apply_shares)
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Resize and event.size().width() != event.oldSize().width():
            # Once the layout has taken the new size (it may take a pass of the event loop or two).
            self._pressed = None  # the widths change with the window, not by a drag
            self._window._share_timer.start(0)
            self._again.start(40)
        elif kind == QEvent.Type.MouseButtonPress:
            self._pressed = self._window.dock_columns()
        elif kind == QEvent.Type.MouseButtonRelease and self._pressed is not None:
            # Moved or not is decided now: a layout the window's own resize left pending may land before the timer
            # (a click just after a resize, or on a busy machine, read that as a drag). The widths are taken after
            # the release, which may place the separator once more.
            if self._pressed != self._window.dock_columns():
                self._keep.start(0)
            self._pressed = None
        return False

    def forget_press(self) -> None:
        """The window set the docks' widths itself (its shares applied after a resize): a press before that is no
        drag's start."""
        self._pressed = None

    def _keep_if_moved(self) -> None:
        self._window.keep_shares()


class _HistoryClicks(QObject):
    """The Edit history list's clicks: a press on an entry goes there through ``go(row)`` (checked steps), and the
    list's own handling of presses, drags and double clicks (which moves the stack unchecked) gets none of them."""

    def __init__(self, view, go: Callable[[int], None]):
        super().__init__(view)
        self._view, self._go = view, go

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            row = self._view.indexAt(event.position().toPoint()).row()
            if row >= 0:
                self._go(row)
            return True
        return kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease,
                        QEvent.Type.MouseButtonDblClick, QEvent.Type.MouseMove)
