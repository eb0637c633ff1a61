"""The Sweep dock: pick parameters ("Sweep this" on the parameter panel), set ranges, run the loaded
script over them off the GUI thread, and see where it passes; clicking a point or cell picks that car."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QPointF, QSize, Qt, QThread, Signal
from PySide6.QtGui import QFontMetrics, QValidator
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from physics import ParamError
from workbench.gui.charts import heat_colours, pass_boundary
from workbench.gui.elided_label import ElidedLabel
from workbench.gui.number_spin import NumberSpin, not_a_number, quoted
from workbench.gui.param_panel import format_number
from workbench.gui.plot_style import pretty_unit, style_axis
from workbench.gui.session_model import SessionModel
from workbench.runs.replay import batch_key
from workbench.runs.sweep import SweepError, SweepResult, display, plan_sweep, run_sweep
from workbench.runs.sweep_axes import whole_numbered
from workbench.scripts.format import exact_digits
from workbench.scripts.program import Program

MAX_AXES = 2  # the dock draws a line (one axis) or a heatmap (two)
DOCK_CARS = 10_000  # a sweep from the window stays interactive; bigger ones belong to `carbench sweep`
TEST_PIECE = 16  # cars a handling test's sweep in the dock runs at once, its series included (progress, Cancel, memory)
MARKED_CELLS = 400  # up to this many cells each shows a pass or fail mark
CHART_MIN = 72  # [px] the chart's least height: with the form above it, one axis fits the dock at 1024x640
HEATMAP_MIN = 170  # [px] a heatmap's: a 12 x 12 grid in the 40 px left at 1024x640 was a strip, its boundary unseen
# and its ticks over each other (the dock scrolls to it instead)
SPIN_MIN = 64  # [px] a range box's least width (its range's text, 1e9 with four decimals, would take 150)


class SweepChart(pg.PlotWidget):
    """The outcome chart. It asks for no more than its least height: the dock's scroll area sizes the form
    by its size hints, and pyqtgraph's 480 px made the form taller than the dock (the chart cut at the bottom);
    asking for little, it gets what the form leaves of the dock's height."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._left = ""
        self.getPlotItem().getViewBox().sigResized.connect(self._fit_left_label)

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.minimumHeight())

    def set_left_label(self, text: str) -> None:
        """The vertical axis' title, elided to the chart's height (pyqtgraph would cut it at both ends)."""
        self._left = text
        self._fit_left_label()

    def _fit_left_label(self, *args) -> None:
        if not self._left:  # no sweep drawn: the axis stays hidden (pyqtgraph's setLabel shows it)
            return
        label = self.getPlotItem().getAxis("left").label  # a text item: its document's margins go round the text
        margin = 2 * label.document().documentMargin() + 4
        room = max(int(self.getPlotItem().getViewBox().height() - margin), 0)
        metrics = QFontMetrics(label.font())
        text = self._left
        if metrics.horizontalAdvance(text) > room and " (" in text:
            text = text.split(" (", 1)[0]  # "margin (\u2265 0 passes)" -> "margin": the dashed zero line says the rest
        if metrics.horizontalAdvance(text) > room and "." in text.split(" [")[0]:
            text = text.split(".", 1)[1]  # "body.cg_height [m]" -> "cg_height [m]": the parameter's own name
        if metrics.horizontalAdvance(text) > room and " [" in text:
            name, unit = text.split(" [", 1)  # the unit is kept whole: the name gives way
            text = metrics.elidedText(name, Qt.TextElideMode.ElideRight,
                                      max(room - metrics.horizontalAdvance(f" [{unit}"), 0)) + f" [{unit}"
        self.setLabel("left", metrics.elidedText(text, Qt.TextElideMode.ElideRight, room))
        placed(self.getPlotItem().getAxis("left"))


def placed(axis: pg.AxisItem) -> None:
    """Centre an axis' title on it again after its text changed: pyqtgraph places the title only when the axis is
    resized, for the text it had then. The left title, elided as the chart shrinks (the view box is resized after the
    axis), stood where the text before would have been centred: at 1500x950 '… [m]' ran off the chart's top
    ('[m' left), and with the chart grown again the whole 'body.wheelbase [m]' sat low, off its centre."""
    axis.resizeEvent()


def kpi_limits_met(result: SweepResult) -> np.ndarray:
    """Per car, whether it fails no KPI's limit (a handling test's sweep; every car where there are none): the chart's
    marks show a car past a limit as failing, as the summary counts it."""
    passed = result.kpi_passed
    if passed is None or not len(passed):
        return np.ones(result.plan.cars, dtype=bool)
    return ~(passed == 0.0).any(axis=0)


class SweepWorker(QObject):
    """Runs one sweep on a worker thread; tells progress, the result, or that it was cancelled."""

    progressed = Signal(int, int)  # cars done, cars
    finished = Signal(object)  # SweepResult, None when cancelled, or why it could not run

    def __init__(self, plan, chunk: int):
        super().__init__()
        self.plan = plan
        self.chunk = chunk
        self.cancel_requested = False

    def _progress(self, done: int, cars: int, steps: int, total: int, seconds: float) -> None:
        self.progressed.emit(int(cars * steps / total) if total else done, cars)

    def run(self) -> None:
        from workbench.manoeuvres.catalogue import fitting
        from workbench.manoeuvres.manoeuvre_command import inapplicable
        from workbench.manoeuvres.runner import Car
        from workbench.manoeuvres.sweep_kpis import run_test_sweep
        from workbench.scripts.format import ScriptError

        cancelled = lambda: self.cancel_requested  # noqa: E731
        try:
            # A handling test's script is swept as `carbench sweep` sweeps it: each car through the test, judged on the
            # standard's limits too (its expectations alone passed a car past FMVSS 126's yaw-rate ratio).
            program = self.plan.program
            test = fitting(program.script)
            if test is None:
                result = run_sweep(self.plan, chunk=self.chunk, progress=self._progress, cancelled=cancelled)
            else:
                why = inapplicable(test, Car(program.params, program.preset))
                if why:
                    raise SweepError(why)
                # Pieces of a few cars: each car runs the test's series (every speed of the lane change); 400 cars of the
                # lane change in one piece (the command's up to 512) held 5.7 GB, told their progress once, at the end,
                # and heard a Cancel only after it.
                result = run_test_sweep(self.plan, chunk=TEST_PIECE, progress=self._progress, cancelled=cancelled)
        except (SweepError, ValueError, ScriptError) as exc:  # the dock says why; the thread always finishes
            result = str(exc)
        except Exception as exc:  # noqa: BLE001 - said in the dock, or Run stayed disabled with nothing said
            result = f"the sweep failed: {type(exc).__name__}: {exc}"
        self.finished.emit(result)


class TypedCheck:
    """A box of the dock that takes a typed value as a whole, at Return or on leaving the box, and says why it puts
    its value back when the text is none it can take (``refused``). With keyboard tracking each prefix in range was
    taken as it was typed, and a text the box could not take then reverted to it without a word: "1e309" left the
    mass's from at 1000 kg (its "1e3"), "1,5" at 1 kg, "-5" and "nan" at the value before; and the count box dropped
    the key that took it past 100 ("500" read 50)."""

    refused: Signal

    def _setup_typing(self) -> None:
        self.setKeyboardTracking(False)
        self.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToPreviousValue)

    def _unit(self) -> str:
        return self.suffix().strip()

    def _why_not(self, number: str) -> str:
        """Why the box cannot take ``number`` (its text without the unit)."""
        try:
            value = float(number)
        except ValueError:
            value = math.nan
        if not number or not math.isfinite(value):
            return not_a_number(number)
        unit = f" {self._unit()}" if self._unit() else ""
        return (f"{exact_digits(value)}{unit} is outside the {format_number(self.minimum())} to "
                f"{format_number(self.maximum())}{unit} the box takes")

    def _check_typed(self) -> bool:
        """Whether the text typed is refused (said through ``refused``)."""
        text = self.lineEdit().text()
        fixed = self.fixup(text)
        if self.validate(fixed if isinstance(fixed, str) else text, 0)[0] == QValidator.State.Acceptable:
            return False
        number = self._number(text)
        self.refused.emit(f"{self._why_not(number)}; kept {self.textFromValue(self.value())}{self.suffix()}")
        return True

    def _show_value(self) -> None:
        """The value kept, on show again in place of the text refused."""
        self.lineEdit().setText(f"{self.prefix()}{self.textFromValue(self.value())}{self.suffix()}")

    def keyPressEvent(self, event) -> None:
        refused = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self._check_typed()
        super().keyPressEvent(event)
        if refused:
            self._show_value()
            self.selectAll()

    def focusOutEvent(self, event) -> None:
        refused = self._check_typed()
        super().focusOutEvent(event)
        if refused:
            self._show_value()


class RangeSpin(TypedCheck, NumberSpin):
    """A from or to box: its value written as the parameter panel writes it (format_number: "1120 kg" beside the
    panel's "1600 kg", where the box's one decimal wrote "1120.0 kg")."""

    refused = Signal(str)

    def __init__(self):
        super().__init__()
        self._setup_typing()

    def textFromValue(self, value: float) -> str:
        return format_number(value)


class CountSpin(TypedCheck, QSpinBox):
    """The values box: a whole number from 2 to 100, a number past them kept in the box until Return says why."""

    refused = Signal(str)

    def __init__(self):
        super().__init__()
        self._setup_typing()

    def validate(self, text: str, pos: int):
        state, text, pos = super().validate(text, pos)
        if state == QValidator.State.Invalid:
            # Kept as typed, refused with why at Return: "500" (its last key was dropped: 50), and "2.5", "1e2",
            # "1_0", "0x10", whose keys QSpinBox dropped as they came (25, 12, 10, 010 swept without a word).
            state = QValidator.State.Intermediate
        return state, text, pos

    def fixup(self, text: str) -> str:
        return text

    def _number(self, text: str) -> str:
        return text.strip()

    def _why_not(self, number: str) -> str:
        if number.isascii() and number.isdigit():  # ("²²²" is digits to isdigit, and no number to float)
            many = number if len(number) <= 9 else f"{float(number):.3g}"  # (400 nines held: not all of them)
            return (f"{many} values: the dock takes {self.minimum()} to {self.maximum()} a parameter "
                    "(more: carbench sweep on the command line)")
        return f"{quoted(number)} is not a whole number" if number else "nothing typed"


class AxisRow:
    """One swept parameter: from, to and count, in its display unit."""

    def __init__(self, dock: SweepDock, path: str, value: float, unit: str, factor: float, lo, hi,
                 lo_open: bool = False, hi_open: bool = False):
        self.path, self.unit, self.factor = path, unit, factor
        shown = value * factor
        span = abs(shown) * 0.3 or 1.0
        self.label = ElidedLabel(path, Qt.TextElideMode.ElideMiddle)
        self.start, self.stop = RangeSpin(), RangeSpin()
        # the value to five significant digits (840 kg, 0.7), as the panel writes it: more only widened the boxes
        decimals = min(max(4 - math.floor(math.log10(abs(shown))), 0), 4) if shown else 4
        for spin, v in ((self.start, shown - span), (self.stop, shown + span)):
            spin.setMinimumWidth(SPIN_MIN)
            spin.setDecimals(decimals)
            spin.setRange(*_allowed(lo, hi, lo_open, hi_open, factor, decimals))
            spin.setValue(v)
            if unit:
                spin.setSuffix(f" {pretty_unit(unit)}")
        self.count = CountSpin()
        self.count.setMinimumWidth(SPIN_MIN - 16)
        self.count.setRange(2, 100)
        self.count.setValue(7)
        for box, which in ((self.start, "from"), (self.stop, "to"), (self.count, "values")):
            box.refused.connect(lambda why, which=which: dock.refuse_typed(f"{path} {which}: {why}"))
            box.valueChanged.connect(dock.forget_refusal)
        self.remove = QToolButton()
        self.remove.setText("\u2715")
        self.remove.setToolTip(f"stop sweeping {path}")
        self.remove.clicked.connect(lambda: dock.remove_axis(path))

    @property
    def widgets(self) -> list[QWidget]:
        return [self.label, self.start, self.stop, self.count, self.remove]

    def spec(self) -> str:
        return f"{self.path}={self.start.value()!r}:{self.stop.value()!r}:{self.count.value()}"


class SweepDock(QWidget):
    """Sweeps of the loaded script over one or two parameters, with its outcome chart."""

    car_chosen = Signal(dict)  # {parameter path: value in SI} of the car clicked on the chart

    def __init__(self, model: SessionModel, parent=None):
        super().__init__(parent)
        self._model = model
        self.axes: dict[str, AxisRow] = {}
        self.result: SweepResult | None = None
        self._running_serial = self._result_serial = -1  # the session's script_serial when the sweep started
        self._cell: tuple[float, float] | None = None  # a heatmap's cell size, once drawn
        self.chosen: int | None = None  # the car picked on the chart (ringed)
        self._refused = ""  # why a box last put its value back (refuse_typed), until a box takes one or Run is clicked
        self._said_refused = ""  # that line, until a box takes a value
        self._thread: QThread | None = None
        self._worker: SweepWorker | None = None
        self._create_widgets()
        model.preset_loaded.connect(self._on_preset_loaded)
        model.script_loaded.connect(self._on_script_loaded)
        self._on_script_loaded("")

    # -- widgets -----------------------------------------------------------------------------------

    def _create_widgets(self) -> None:
        self.script_label = ElidedLabel()
        self.grid = QGridLayout()
        self.grid.setVerticalSpacing(2)
        # The columns' titles over the rows only: with no parameter they stood over nothing, spread across the dock
        # ("parameter from", "to" mid-way, "values" at its edge) above the hint.
        self.heads = [QLabel(f"<b>{text}</b>") for text in ("parameter", "from", "to", "values")]
        for col, head in enumerate(self.heads):
            self.grid.addWidget(head, 0, col)
            head.setVisible(False)
        self.grid.setColumnStretch(1, 1)
        self.grid.setColumnStretch(2, 1)
        self.hint = QLabel("Right-click a parameter in the Parameters dock and choose \u201cSweep this\u201d.")
        self.hint.setWordWrap(True)
        self.run_button = QPushButton("Run")
        self.run_button.clicked.connect(self.run)
        self._enable_run()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setFormat("%v / %m cars")
        self.progress.setVisible(False)  # while a sweep runs; the status says how it went
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.expect_choice = QComboBox()
        self.expect_choice.setToolTip("the expectation whose margin the heatmap shows")
        # as narrow as the dock: a long expectation's name is elided, not a sideways scroll
        self.expect_choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.expect_choice.setMinimumContentsLength(12)
        self.expect_choice.currentIndexChanged.connect(lambda _: self._draw())
        self.expect_choice.setVisible(False)  # shown with a heatmap, or with margins in several units
        self.plot = SweepChart(background="w")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setMinimumHeight(CHART_MIN)
        self.plot.getPlotItem().getAxis("left").setWidth(62)  # room for the tick labels and the title
        for side in ("left", "bottom"):  # dark text, and no SI prefix: a range of 0.385 m read as 400 (x0.001)
            style_axis(self.plot.getPlotItem().getAxis(side))
        self._chosen_mark: pg.ScatterPlotItem | None = None
        self.marks: list[pg.TextItem] = []  # a heatmap's pass and fail marks, one a cell
        view = self.plot.getPlotItem().getViewBox()
        view.sigResized.connect(self._fit_marks)
        view.sigRangeChanged.connect(self._fit_marks)
        self.plot.scene().sigMouseClicked.connect(self._on_plot_clicked)
        # The key to the margin lines, under the chart: inside it, a key covered the points of a short chart.
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setVisible(False)
        top = QHBoxLayout()
        top.addWidget(self.script_label, 1)
        top.addWidget(self.run_button)
        top.addWidget(self.cancel_button)
        outcome = QHBoxLayout()
        outcome.addWidget(self.status, 1)
        outcome.addWidget(self.progress, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addLayout(self.grid)
        layout.addWidget(self.hint)
        layout.addLayout(outcome)
        layout.addWidget(self.plot, 1)
        # Under the chart: what it shows (the heatmap's expectation, or the unit of the margins) and the key to it.
        # Above the chart, the choice pushed the chart out of the dock of a small window.
        under = QHBoxLayout()
        under.addWidget(self.expect_choice, 0, Qt.AlignmentFlag.AlignTop)
        under.addWidget(self.legend, 1)
        layout.addLayout(under)
        self._draw()

    # -- axes --------------------------------------------------------------------------------------

    def add_axis(self, path: str) -> bool:
        """Sweep ``path`` too (around its current value); refused with a reason beyond two axes."""
        if path in self.axes:
            return True
        params = self._model.session.params
        try:
            info = params.info(path)
        except ParamError as exc:
            self._say(str(exc))
            return False
        if info.kind not in (float, int) or info.choices:
            self._say(f"{path} is not a number and cannot be swept")
            return False
        if len(self.axes) >= MAX_AXES:
            self._say(f"the dock sweeps up to {MAX_AXES} parameters (more: carbench sweep on the command line)")
            return False
        unit, factor = display(info)
        row = AxisRow(self, path, float(params.get(path)), unit, factor, info.lo, info.hi, info.lo_open, info.hi_open)
        r = len(self.axes) + 1
        for col, widget in enumerate(row.widgets):
            self.grid.addWidget(widget, r, col)
        self.axes[path] = row
        if len(self.axes) == 2:
            for axis in self.axes.values():
                axis.count.setValue(min(axis.count.value(), 5))
        self.hint.setVisible(False)
        for head in self.heads:
            head.setVisible(True)
        self._enable_run()
        self._say("")
        return True

    def remove_axis(self, path: str) -> None:
        row = self.axes.pop(path, None)
        if row is None:
            return
        for widget in row.widgets:
            self.grid.removeWidget(widget)
            widget.hide()  # gone now, not where it was until the event loop gets round to deleting it
            widget.deleteLater()
        rows = list(self.axes.values())
        for r, axis in enumerate(rows, 1):
            for col, widget in enumerate(axis.widgets):
                self.grid.addWidget(widget, r, col)
        self.hint.setVisible(not self.axes)
        for head in self.heads:
            head.setVisible(bool(self.axes))
        if self._refused.startswith(f"{path} "):  # a refusal of its boxes went with them (it held the next Run back)
            self.forget_refusal()
        self._enable_run()

    # -- running -----------------------------------------------------------------------------------

    def program(self) -> Program | None:
        """The loaded script on the session's current car (its edits included) where the two fit."""
        session = self._model.session
        program = session.program_to_replay()  # (a recording just stopped, once compiled)
        if program is None:
            return None
        if not session.replaying and batch_key(session.params, program.dt) == batch_key(program.params, program.dt):
            return dataclasses.replace(program, params=session.params)
        return program

    @property
    def running(self) -> bool:
        return self._thread is not None

    def _enable_run(self) -> None:
        """Run is for a sweep of at least one parameter, none running: with none picked, a click on Run said again
        what the hint above it says."""
        self.run_button.setEnabled(bool(self.axes) and not self.running)
        self.run_button.setToolTip("sweep the loaded script over the parameters' values" if self.axes else
                                   "pick a parameter to sweep first: right-click it in the Parameters dock, "
                                   "\u201cSweep this\u201d")

    def run(self) -> bool:
        """Start the sweep on a worker thread; False (with the reason shown) when it cannot start."""
        if self.running:
            return False
        if self._refused:
            # A value typed into a box and refused as Run was clicked (leaving the box refused it): said, and not run
            # on the value the box went back to, which the user did not mean; a second Run sweeps what the boxes show.
            self._say(f"{self._refused}; not run: Run again sweeps the values the boxes show")
            self._refused = ""
            return False
        program = self.program()
        if program is None:
            self._say("load a script first (File \u2192 Load script)")
            return False
        if not self.axes:
            self._say("pick a parameter to sweep: right-click it in the Parameters dock, \u201cSweep this\u201d")
            return False
        if not program.script.expects:  # nothing to chart: every car "passed every expectation" of none
            self._say(f"{program.name} has no expectations: the dock charts each car's margin to them; add an "
                      "[[expect]] to the script (carbench sweep writes its measures too)")
            return False
        try:
            plan = plan_sweep(program, [a.spec() for a in self.axes.values()])
        except SweepError as exc:
            self._say(in_dock_words(str(exc), self.axes.values()))
            return False
        if plan.cars > DOCK_CARS:
            self._say(f"{plan.cars:,} cars: the dock runs up to {DOCK_CARS:,}")
            return False
        self._running_serial = self._model.session.script_serial  # which script this is (recordings share a name)
        self.progress.setRange(0, plan.cars)
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self._say(f"running {plan.cars} cars\u2026")
        self._thread = QThread(self)
        self._worker = SweepWorker(plan, chunk=plan.cars)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        self._worker.progressed.connect(self._on_progress)
        self._worker.finished.connect(self._on_finished)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self._thread.start()
        return True

    def cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel_requested = True
            self._say("cancelling after the cars in flight\u2026")

    def _on_progress(self, done: int, cars: int) -> None:
        self.progress.setValue(done)

    def _on_finished(self, result) -> None:
        thread = self._thread
        self._thread = self._worker = None
        if thread is not None:
            thread.quit()
            thread.wait()
            thread.deleteLater()
        self._enable_run()
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)
        if result is None:
            self._say("cancelled")
            return
        if isinstance(result, str):
            self._say(result)
            return
        self.result = result
        self._result_serial = self._running_serial
        self._say(self._summary(result))
        self._fill_choice()
        self._draw()
        self._show_chart()

    def _show_chart(self) -> None:
        """The chart scrolled into view in the dock's scroll area, where the dock is too short for it and the form
        above (a heatmap's height at 1024x640)."""
        from PySide6.QtWidgets import QScrollArea

        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QScrollArea):
            parent = parent.parentWidget()
        if parent is None:
            return
        # The chart's new least height laid out first (the layouts' posted requests, which the scroll area's range
        # follows), then the scroll: once, now (a connection to the range left armed scrolled the dock at a resize
        # long after the sweep). By the chart's own rectangle: ensureWidgetVisible asks a graphics view for its input
        # cursor's, which lies in view at its top, and scrolls nothing.
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        top = self.plot.mapTo(self, QPoint(0, 0)).y()
        bar = parent.verticalScrollBar()
        bottom = top + self.plot.height() - parent.viewport().height()
        bar.setValue(max(bar.value(), min(top, bottom)))

    def _summary(self, result) -> str:
        """The line under a sweep's chart: how many cars pass, and whether a click drives one (the chart may be of
        another script or car than the one loaded now)."""
        passing = int(result.all_passed.sum())
        stale = self._stale(result.plan)
        return (f"{passing} of {result.plan.cars} cars pass {result.passing_what} "
                f"({result.car_steps:,} car-steps in {_seconds(result.seconds)}); "
                + (f"{stale}." if stale else "click a point or cell to drive that car."))

    def _say_summary_again(self) -> None:
        """A script or car loaded after the sweep: its line is written again for what is loaded now. It went on
        saying "click a point or cell to drive that car" over a chart whose clicks were then refused, or named the
        script loaded before the last one ("... and r140-sine-with-dwell is loaded now" with split-mu-braking
        loaded)."""
        if self.result is not None and not self.running:
            self._say(self._summary(self.result))

    def _stale(self, plan) -> str:
        """Why a car of ``plan``'s chart cannot be driven now ("" when it can): another script or car is loaded than
        the one swept (the user loaded one while the sweep ran)."""
        session = self._model.session
        loaded = session.program_to_replay()
        swept = plan.program
        same = loaded is not None and (loaded.script.source, loaded.preset_path) == (swept.script.source,
                                                                                      swept.preset_path)
        # A script of no file (every recording is "<recording ...>") is told by the session's count of its scripts:
        # two recordings of one car had the same source, and a car swept on one drove the other.
        if same and swept.script.source.startswith("<") and session.script_serial != self._result_serial:
            same = False
        if same:
            return ""
        now = f"{loaded.name} is loaded now" if loaded is not None else "no script is loaded now"
        return f"this chart is of the sweep of {swept.name}, and {now}: run the sweep again"

    def _fill_choice(self) -> None:
        """What the choice under the chart offers: with two axes, each expectation (its heatmap); with one, each
        unit the margins are in, when there are several (never two units on one axis)."""
        plan = self.result.plan
        if len(plan.axes) == 2:
            items = [e.label() for e in plan.program.script.expects]
            tip = "the expectation whose margin the heatmap shows"
        else:
            items = [f"margins in {unit}" if unit else "margins without a unit"
                     for unit, _factor, _members in self.unit_groups()]
            tip = "the unit whose expectations' margins the chart shows: one unit on the axis at a time"
        with _blocked(self.expect_choice):
            self.expect_choice.clear()
            self.expect_choice.addItems(items)
        self.expect_choice.setToolTip(tip)

    def shutdown(self) -> None:
        """Stop a running sweep and wait for its thread (the window is closing)."""
        if self._worker is not None:
            self._worker.cancel_requested = True
        if self._thread is not None:
            self._thread.quit()
            self._thread.wait()

    # -- the chart ---------------------------------------------------------------------------------

    def _draw(self) -> None:
        self.plot.clear()
        self.marks = []
        self._cell = None
        self._chosen_mark = None
        self.chosen = None
        self.legend.setVisible(False)
        result = self.result
        item = self.plot.getPlotItem()
        if result is None:
            self.plot.set_left_label("")
        for side in ("left", "bottom"):  # before a sweep an empty grid of 0.2 .. 0.8 read as an outcome
            item.showAxis(side, result is not None)
        if result is None:
            self.plot.setMinimumHeight(CHART_MIN)
            waiting = pg.TextItem("each car's outcome shows here once the sweep has run", color="#777", anchor=(0.5, 0.5))
            waiting.setPos(0.5, 0.5)
            self.plot.addItem(waiting)
            item.vb.setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0), padding=0)  # (this turns auto-range off)
            return
        item.enableAutoRange()
        plan = result.plan
        self.plot.setMinimumHeight(HEATMAP_MIN if len(plan.axes) == 2 else CHART_MIN)
        self.plot.setLabel("bottom", pretty_unit(plan.axes[0].label))
        placed(item.getAxis("bottom"))
        self.expect_choice.setVisible(len(plan.axes) == 2 or len(self.unit_groups()) > 1)
        if len(plan.axes) == 1:
            self._draw_lines(result)
        else:
            self._draw_heatmap(result)

    def _draw_lines(self, result: SweepResult) -> None:
        from workbench.output.charts import PALETTE

        plan = result.plan
        x = plan.values[:, 0]
        unit, factor, members = self.shown_group()
        self.plot.set_left_label(f"margin [{unit}] (\u2265 0 passes)" if unit else "margin (\u2265 0 passes)")
        self.plot.addItem(pg.InfiniteLine(0.0, angle=0, pen=pg.mkPen("#444", style=Qt.PenStyle.DashLine)))
        keys = []
        expects = plan.program.script.expects
        kpis_ok = kpi_limits_met(result)
        whole = whole_numbered(plan.program.params, plan.axes[0].path)
        for e in members:
            expect = expects[e]
            colour = PALETTE[e % len(PALETTE)]
            margin = result.expect_margin[e] * factor  # in the channel's display unit
            name = f"{expect.label()} [{unit}]" if unit else expect.label()
            if not whole:  # a whole-number parameter's cars alone: there is no car between 0 and 1
                self.plot.plot(x, margin, pen=pg.mkPen(colour, width=2), name=name)
            passed = result.expect_passed[e] & kpis_ok  # hollow: a car that fails, here or on a KPI's limit

            def tip(x, y, data, name=name):
                return (f"car {data + 1}: {name}, margin {y:.4g}"
                        + ("" if kpis_ok[data] else "; fails a KPI's limit (the summary and sweep.csv say which)"))

            brushes = [pg.mkBrush(colour) if p else pg.mkBrush("w") for p in passed]
            points = pg.ScatterPlotItem(x, margin, size=9, brush=brushes, pen=pg.mkPen(colour), data=np.arange(len(x)),
                                        hoverable=True, tip=tip)
            points.sigClicked.connect(lambda _item, spots, _ev=None: self.choose_car(int(spots[0].data())))
            self.plot.addItem(points)
            keys.append(f"<span style='color:{colour}'>&#9632;</span>&nbsp;{_escape(name)}")
        self.plot.getPlotItem().enableAutoRange()
        self.legend.setText("&nbsp;&nbsp; ".join(keys))
        self.legend.setVisible(bool(keys))

    def _draw_heatmap(self, result: SweepResult) -> None:
        plan = result.plan
        e = max(self.expect_choice.currentIndex(), 0)
        self.plot.set_left_label(pretty_unit(plan.axes[1].label))
        if not len(result.expect_margin):
            return
        nx, ny = plan.shape
        margin = result.expect_margin[e].reshape(nx, ny)  # [i, j]: axis 0 value i, axis 1 value j
        x, y = plan.axes[0].values, plan.axes[1].values
        finite = margin[np.isfinite(margin)]
        half = float(np.abs(finite).max()) if finite.size else 1.0
        # Each cell by its own side of the bound, as `sweep --plot` draws it (gui.charts.heat_colours): a car passing
        # at a margin of exactly 0 was the yellow of neither side, and the boundary runs on the cells' edges between
        # a passing and a failing car (it was interpolated through cells).
        image = pg.ImageItem(heat_colours(margin, 0.0, -(half or 1.0), half or 1.0), levels=(0, 255))
        self._cell = ((x[-1] - x[0]) / (nx - 1), (y[-1] - y[0]) / (ny - 1))
        dx, dy = self._cell
        image.setRect(x[0] - dx / 2, y[0] - dy / 2, dx * nx, dy * ny)
        self.plot.addItem(image)
        edges = pass_boundary(margin.T, 0.0)  # (cell i, j centred on (i, j), i along the first axis)
        if len(edges):
            self.plot.addItem(pg.PlotCurveItem(x[0] + edges[:, 0] * dx, y[0] + edges[:, 1] * dy, connect="pairs",
                                               pen=pg.mkPen("#111", width=2)))
        if nx * ny > MARKED_CELLS:
            return
        passed = (result.expect_passed[e] & kpi_limits_met(result)).reshape(nx, ny)  # a KPI's limit failed: a cross
        for i in range(nx):
            for j in range(ny):
                text = pg.TextItem("\u2713" if passed[i, j] else "\u2717", color="#222", anchor=(0.5, 0.5))
                text.setPos(x[i], y[j])
                self.plot.addItem(text)
                self.marks.append(text)
        self._fit_marks()

    def _fit_marks(self, *args) -> None:
        """The heatmap's marks are shown while a cell holds one: at 1500x950 the docked chart gives a row of a 12 x 12
        sweep about 5 px, and each column's twelve marks ran together into a hatched bar over the colours."""
        if not self.marks or self._cell is None:
            return
        width, height = self.plot.getPlotItem().getViewBox().viewPixelSize()
        if not (width > 0 and height > 0):
            return
        metrics = QFontMetrics(self.marks[0].textItem.font())
        fits = bool(self._cell[0] / width >= metrics.horizontalAdvance("\u2717") + 4
                    and self._cell[1] / height >= metrics.height())  # (numpy's bool: setVisible refuses it)
        for mark in self.marks:
            if mark.isVisible() != fits:
                mark.setVisible(fits)

    def cell_position(self, car: int) -> QPointF:
        """Where car ``car`` is drawn, in the chart's data coordinates."""
        row = self.result.plan.values[car]
        if len(row) == 1:
            _unit, factor, members = self.shown_group()
            return QPointF(float(row[0]), float(self.result.expect_margin[members[0], car]) * factor if members else 0.0)
        return QPointF(float(row[0]), float(row[1]))

    def _on_plot_clicked(self, event) -> None:
        result = self.result
        if result is None or len(result.plan.axes) != 2 or event.button() != Qt.MouseButton.LeftButton:
            return
        if self._cell is None:  # nothing drawn to click on
            return
        point = self.plot.getPlotItem().vb.mapSceneToView(event.scenePos())
        x, y = result.plan.axes[0].values, result.plan.axes[1].values
        dx, dy = self._cell
        i, j = int(round((point.x() - x[0]) / dx)), int(round((point.y() - y[0]) / dy))
        if 0 <= i < len(x) and 0 <= j < len(y):
            self.choose_car(i * len(y) + j)

    def choose_car(self, car: int) -> None:
        """Emit ``car_chosen`` with car ``car``'s swept values (SI); refused with a message when the chart is of
        another script or car than the one loaded now (its values would drive a car they were not swept on)."""
        plan = self.result.plan
        stale = self._stale(plan)
        if stale:
            self._say(stale)
            return
        si = plan.si_values()[car]
        values = {a.path: float(v) for a, v in zip(plan.axes, si, strict=True)}
        shown = ", ".join(f"{a.path} = {format_number(v)} {pretty_unit(a.unit)}".rstrip()
                          for a, v in zip(plan.axes, plan.values[car], strict=True))
        self._say(f"car {car + 1}: {shown}")
        self.highlight(car)
        self.car_chosen.emit(values)

    def highlight(self, car: int) -> None:
        """Ring the chosen car's point (or cell) on the chart."""
        if self._chosen_mark is not None:
            self.plot.removeItem(self._chosen_mark)
        where = self.cell_position(car)
        self._chosen_mark = pg.ScatterPlotItem([where.x()], [where.y()], size=20, brush=None,
                                               pen=pg.mkPen("#111", width=2.5), symbol="o")
        self._chosen_mark.setZValue(20)
        self.plot.addItem(self._chosen_mark)
        self.chosen = car

    def margin_units(self) -> list[tuple[str, float]]:
        """Each expectation's display unit and its factor from SI (the margins are shown in it)."""
        from physics import channel_infos
        from workbench.gui.plot_panel import display_unit

        program = self.result.plan.program
        infos = {i.name: i for i in channel_infos(program.params.model.unit)}
        return [display_unit(infos[e.channel]) if e.channel in infos else ("", 1.0) for e in program.script.expects]

    def shown_group(self) -> tuple[str, float, list[int]]:
        """The unit group a one-parameter sweep's chart shows (the choice's), ("", 1.0, []) with no expectation."""
        groups = self.unit_groups()
        return groups[min(max(self.expect_choice.currentIndex(), 0), len(groups) - 1)] if groups else ("", 1.0, [])

    def unit_groups(self) -> list[tuple[str, float, list[int]]]:
        """The expectations by the display unit of their margins, in the script's order: (unit, factor from SI,
        expectation indices) for each unit."""
        groups: dict[str, tuple[str, float, list[int]]] = {}
        for e, (unit, factor) in enumerate(self.margin_units()):
            groups.setdefault(unit, (unit, factor, []))[2].append(e)
        return list(groups.values())

    # -- model events ------------------------------------------------------------------------------

    def _say(self, text: str) -> None:
        self.status.setText(text)

    def refuse_typed(self, text: str) -> None:
        """A box put its value back, the text typed being none it takes: why, in the dock's line."""
        self._refused = self._said_refused = text
        self._say(text)

    def forget_refusal(self, *_) -> None:
        """A box took a value: a refusal before it no longer stands in Run's way, nor in the dock's line."""
        self._refused = ""
        if self._said_refused and self.status.text().startswith(self._said_refused):
            self._say("")
        self._said_refused = ""

    def _on_script_loaded(self, name: str) -> None:
        program = self._model.session.program
        self.script_label.setText(f"script: {program.name}" if program is not None else
                                  "script: none loaded (File \u2192 Load script)")
        if self.result is None and not self.running and program is not None:
            self._say("")  # "load a script first", or a refusal of the last one, stayed under the script's name
        self._say_summary_again()

    def _on_preset_loaded(self, name: str) -> None:
        params = self._model.session.params
        for path in list(self.axes):
            try:
                params.info(path)
            except ParamError:
                self.remove_axis(path)
        self._say_summary_again()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _blocked:
    def __init__(self, widget):
        self.widget = widget

    def __enter__(self):
        self.widget.blockSignals(True)

    def __exit__(self, *exc):
        self.widget.blockSignals(False)


def _allowed(lo, hi, lo_open: bool, hi_open: bool, factor: float, decimals: int) -> tuple[float, float]:
    """A spin box's range for a parameter's allowed one, at the box's ``decimals``: its ends rounded inwards, and an
    open end one step in (a box that went down to 0.0 for a mass of at least 0.01 kg, or to the open 0 of a lock,
    took a value the sweep refused only when it ran)."""
    step = 10.0 ** -decimals
    low = -1e9 if lo is None else math.ceil(round(lo * factor / step, 6)) * step
    high = 1e9 if hi is None else math.floor(round(hi * factor / step, 6)) * step
    if lo is not None and lo_open and low <= lo * factor:
        low += step
    if hi is not None and hi_open and high >= hi * factor:
        high -= step
    return low, max(high, low)


def in_dock_words(text: str, axes) -> str:
    """A sweep's refusal as the dock shows it: the command line's ``--param PATH=LO:HI:N`` named by its parameter, and
    its LO and HI as the boxes' from and to."""
    for axis in axes:
        text = text.replace(f"--param {axis.spec()}: ", f"{axis.path}: ")
    return text.replace("HI (", "'to' (").replace("LO (", "'from' (")


def program_with(program: Program, values: dict[str, float]) -> Program:
    """``program`` on its car with ``values`` (SI) set, as a sweep runs that car: from the start, and through each of
    the script's parameter changes until a [[set]] takes a value to the script's own (workbench.runs.sweep.run_chunk).
    Set at the start alone, a [[set]] part-way put the script's whole car back, every value chosen with it."""
    from workbench.runs.sweep import swept_at

    paths = list(values)
    changes = tuple((k, params.with_values({paths[d]: values[paths[d]] for d in swept_at(program, paths, k)}))
                    for k, params in program.param_changes)
    return dataclasses.replace(program, params=program.params.with_values(values), param_changes=changes)


def _seconds(seconds: float) -> str:
    """A run's time as a person reads it: "12 ms" under a second (a small sweep's "0.0 s" says nothing), else "3.4 s"."""
    return f"{seconds * 1000:.0f} ms" if seconds < 0.9995 else f"{seconds:.1f} s"
