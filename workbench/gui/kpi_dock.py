"""The KPI dock: the handling test's KPIs of the run on show beside each pinned reference's, and the Bode chart.

When the loaded script names a handling test (``[script] manoeuvre``), the dock computes that test's
KPIs (workbench.manoeuvres) from the session's run and from every reference's; it recomputes when a
replay ends, when the Compare dock's background re-run after an edit is adopted, and when a reference
is pinned or unpinned. A frequency-response run also draws its yaw-rate gain and phase against
frequency, one curve per run. :func:`install_kpis` adds the dock and the Scripts menu (run a
manoeuvre, load a script, load a shipped one) to a main window.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMenu,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from physics.presets import scripts_dir
from workbench.gui.course_overlay import CourseOverlay
from workbench.gui.plot_style import pretty_unit, style_plot
from workbench.gui.recorder_panel import FAIL, PASS
from workbench.gui.references import Comparer
from workbench.gui.session_model import recording_car
from workbench.manoeuvres.catalogue import CATALOGUE, fitting
from workbench.manoeuvres.kpi import Kpi, RunData
from workbench.scripts.format import ScriptError

ON_SHOW = QColor(31, 119, 180)
NAMES_LEAST = 120  # [px] the KPIs' names' column at least
HINT = "Run a manoeuvre (Scripts > Run manoeuvre) for its KPIs."


def run_data(run, script) -> RunData:
    """A compare Run (the session's, or a reference's) as the KPIs read it."""
    return RunData(run.data, run.dt, run.params, script)


def kpis_of(test, run, script, name: str = "this run") -> list[Kpi] | str:
    """The test's KPIs of ``run`` (``name`` in the table), or why there are none."""
    try:
        return test.kpis(run_data(run, script))
    except (KeyError, IndexError, ValueError, AttributeError, ZeroDivisionError) as exc:
        return f"{name}: no KPIs ({type(exc).__name__}: {exc})"


def cut_short(run, name: str, program, replaying: bool = False) -> str:
    """Why ``run`` has no KPIs when it stops before its script's end ("" when it does not): a run pinned during a
    replay, or the replay on show before it ends. Such a run was judged as if it were whole: the sine with dwell's
    read "no KPIs for this run (IndexError: index 83 is out of bounds for axis 0 with size 83)", one such row a run
    with no name to tell which, and the steady-state circle's 60% gave a maximum lateral acceleration of 4.9 m/s\u00b2
    where the whole run reaches 8.7."""
    if run.frames >= program.frames:
        return ""
    at = float(run.data["t"][-1]) if run.frames else 0.0
    of = f"{at:.2f} s of the script's {program.script.duration:g} s"
    if replaying:
        return f"{name}: replaying, at {of}; its KPIs come when the replay ends"
    return f"{name}: no KPIs, the run stops at {of}; a test's KPIs are of a whole run (replayed to its end)"


class WrappedNames(QStyledItemDelegate):
    """The names' column's rows as tall as their wrapped text: a QTreeView asks its delegate for a row's height
    with no width, and a name wrapped onto two lines showed its first line alone ("steady lateral ..."). A row
    spanning the whole width (why a run has no KPIs) wraps at the viewport's width. ``natural`` gives the
    unwrapped size (a name's whole width, the column's as it would be with room)."""

    def __init__(self, tree: QTreeWidget):
        super().__init__(tree)
        self.tree = tree
        self.natural = False

    def sizeHint(self, option, index):
        if self.natural:
            return super().sizeHint(option, index)
        item = self.tree.itemFromIndex(index)
        spanned = item is not None and item.isFirstColumnSpanned()
        sized = QStyleOptionViewItem(option)
        width = self.tree.viewport().width() if spanned else self.tree.columnWidth(0)
        sized.rect = QRect(0, 0, max(width, 1), max(option.fontMetrics.height(), 1))
        return super().sizeHint(sized, index)


class KpiDock(QWidget):
    """KPI table (run on show, then each reference) and, for a frequency response, the Bode chart."""

    def __init__(self, comparer: Comparer, parent: QWidget | None = None):
        super().__init__(parent)
        self.comparer = comparer
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)  # at the top when alone
        self.tree = QTreeWidget()
        self.tree.setRootIsDecorated(False)
        # Read, never typed into: a click on a row kept the focus here, and the arrows then moved the selection while
        # the car no longer answered them (driving_keys leaves the keys to an item view with the focus).
        self.tree.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # A name the column cannot hold goes on over two lines, not cut ("yaw-rate peak response..." at a 350 px
        # dock): each row as tall as its name needs.
        self.tree.setWordWrap(True)
        self.tree.setUniformRowHeights(False)
        self.names = WrappedNames(self.tree)
        self.tree.setItemDelegateForColumn(0, self.names)
        self.gain = pg.PlotWidget(background="w")
        self.phase = pg.PlotWidget(background="w")
        # "yaw rate / road-wheel angle [1/s]" ran past the chart's height, its unit cut off: the tooltip says it whole
        self.gain.setToolTip("gain of yaw rate over road-wheel angle [1/s], against frequency")
        self.phase.setToolTip("phase of yaw rate against road-wheel angle [deg], against frequency")
        for plot, label in ((self.gain, "gain [1/s]"), (self.phase, "phase [deg]")):
            item = plot.getPlotItem()
            style_plot(item)
            item.setLabel("left", label)
            item.setLabel("bottom", "frequency [Hz]")
            plot.setMinimumHeight(140)
            plot.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.status)
        layout.addWidget(self.tree, 2)
        layout.addWidget(self.gain, 1)
        layout.addWidget(self.phase, 1)
        self.rows: list[tuple[str, list[str]]] = []  # (KPI label, value per column), for tests and screenshots
        model = comparer.model
        comparer.references.changed.connect(self.update_kpis)
        comparer.rerun_adopted.connect(self.update_kpis)
        model.replay_changed.connect(lambda on: on or self.update_kpis())
        model.script_loaded.connect(lambda name: self.update_kpis())
        self.update_kpis()

    def update_kpis(self) -> None:
        session = self.comparer.model.session
        program = session.program_to_replay()  # (a recording just stopped, once compiled)
        try:
            test = fitting(program.script) if program is not None else None
            unfit = None
        except ScriptError as exc:  # a tagged script whose run the test cannot take its KPIs from
            test, unfit = None, str(exc)
        self.tree.clear()
        self.rows = []
        for plot in (self.gain, self.phase):
            plot.clear()
            plot.setVisible(False)
        # With no handling test, only the hint: an empty table showed a stray column header ("1").
        self.tree.setVisible(test is not None)
        if test is None:
            self.status.setText(HINT if unfit is None else f"No KPIs: {unfit}")
            return
        refs = self.comparer.references.items
        columns = [("on show", ON_SHOW)] + [(r.name, r.colour) for r in refs]
        runs = [session.whole_run("on show") if session.log.frames else None] + [r.run for r in refs]
        results = [("nothing on show" if run is None or run.frames <= 1 else
                    f"{name}: not a run of {program.script.name} (no KPIs of {test.name})"
                    if run.script != program.script.source else
                    cut_short(run, name, program, replaying=i == 0 and session.replaying)
                    or self._judged(test, run, name, program.script))
                   for i, ((name, _), run) in enumerate(zip(columns, runs, strict=True))]
        self.status.setText(pretty_unit(f"{test.title} ({test.standard}); single-run KPIs of {program.script.name} "
                                        f"on {recording_car(program.script)}. \u201ccarbench manoeuvre {test.name}\u201d "
                                        "runs the whole procedure."))
        self.tree.setColumnCount(len(columns) + 2)
        self.tree.setHeaderLabels(["KPI"] + [c for c, _ in columns] + ["limit"])
        for i, (_, colour) in enumerate(columns):
            self.tree.headerItem().setForeground(i + 1, colour)
        from workbench.manoeuvres.kpi import CONDITIONS

        keys: dict[str, Kpi] = {}
        for r in results:
            for k in () if isinstance(r, str) else r:
                keys.setdefault(k.key, k)
        for key, first in keys.items():
            cells, own = [], []
            for r in results:
                k = None if isinstance(r, str) else next((x for x in r if x.key == key), None)
                own.append(k)
                verdict = "" if k is None or k.passed is None else (" PASS" if k.passed else " FAIL")
                cells.append("-" if k is None else pretty_unit(k.text()) + verdict)  # "m/s\u00b2", not "m/s^2"
            item = QTreeWidgetItem(self.tree, [first.label, *cells, pretty_unit(first.limit or "")])
            for c, text in enumerate(cells, 1):  # a verdict in the Recorder's colours
                if text.endswith((" PASS", " FAIL")):
                    item.setBackground(c, PASS if text.endswith("PASS") else FAIL)
            item.setToolTip(0, f"{first.label}: {first.clause}".strip())
            for c, k in enumerate(own, 1):  # each run's own note (what its figure is of, or why it has none)
                if k is not None and k.note:
                    item.setToolTip(c, pretty_unit(k.note))
            if key == CONDITIONS:  # what a run did not meet, said under the row (it was in a tooltip at most)
                for (name, _), k in zip(columns, own, strict=True):
                    if k is not None and k.passed is False and k.note:
                        why = QTreeWidgetItem(item, [pretty_unit(f"{name}: {k.note}")])
                        why.setFirstColumnSpanned(True)
                        why.setToolTip(0, why.text(0))
                item.setExpanded(True)
            self.rows.append((first.label, cells))
        for r in results:
            if isinstance(r, str):  # why a run has no KPIs: the row's whole width, not the names' column
                item = QTreeWidgetItem(self.tree, [r])
                item.setFirstColumnSpanned(True)
                item.setToolTip(0, r)
        self.names.natural = True  # each name's whole width
        for c in range(len(columns) + 2):
            self.tree.resizeColumnToContents(c)
        self.names.natural = False
        self._names_width = self.tree.columnWidth(0)
        self._fit_names()
        if test.name == "iso7401_sweep":
            # only the runs the table judged: a car the test does not apply to (or a run of another script) has no
            # curve, as "carbench manoeuvre" gives it none
            self._draw_bode(test, [None if isinstance(r, str) else run for r, run in zip(results, runs, strict=True)],
                            columns, program.script)

    @staticmethod
    def _judged(test, run, name: str, script):
        """A run's KPIs as ``carbench manoeuvre`` gives them: why not, for a car the test does not apply to (a
        kinematic car's "understeer gradient"), and no verdicts, with a row saying why, for a run that did not meet
        the test's conditions (the sine with dwell's PASS on a car that never reached 80 km/h)."""
        from workbench.manoeuvres.manoeuvre_command import (
            inapplicable,
            judged,
            lag_condition,
            lag_kpis,
            steer_lag,
            unmet_verdicts,
        )
        from workbench.manoeuvres.runner import Car

        if run.params is not None:
            why = inapplicable(test, Car(run.params, name))
            if why:
                return f"{name}: not run: {why}"
        kpis = kpis_of(test, run, script, name)
        if isinstance(kpis, str):
            return kpis
        unmet = unmet_verdicts(test, script, run.verdicts)
        lag = (steer_lag(script.robot, run.data["t"], run.data["steer"], run.dt, run.params.steering.rate)
               if script.robot is not None and run.params is not None and "steer" in run.data else None)
        behind = lag_condition(test, lag)  # a steering robot the car's steering could not follow: not the test's input
        if behind:
            unmet = ["; ".join([*unmet, behind])]
        return judged(test, kpis, unmet) + ([] if lag is None else lag_kpis(test, Car(run.params, name), [lag]))

    def _fit_names(self) -> None:
        """The KPIs' names give way so that every run's value shows (at their whole width the references' values
        were past a 390 px dock's edge): a name the narrower column cannot hold wraps onto a second line, its row
        taller (elided, "yaw-rate peak response...", it could not be read at a 350 px dock), whole in its tooltip
        too."""
        names = getattr(self, "_names_width", 0)
        if not names or self.tree.isHidden():
            return
        last = self.tree.columnCount() - 1  # stretched to the edge: what it needs, not what it has
        values = sum(self.tree.columnWidth(c) for c in range(1, last))
        values += max(self.tree.sizeHintForColumn(last), self.tree.header().sectionSizeHint(last))
        room = self.tree.viewport().width() - values
        self.tree.setColumnWidth(0, min(names, max(room, NAMES_LEAST)))
        self.tree.doItemsLayout()  # the rows' heights for the names' width and the viewport's (the view keeps the old)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_names()

    def showEvent(self, event) -> None:  # its tab raised: the width it has now
        super().showEvent(event)
        self._fit_names()

    def _draw_bode(self, test, runs, columns, script) -> None:
        drawn = False
        for run, (name, colour) in zip(runs, columns, strict=True):
            if run is None or run.frames < 2:
                continue
            try:
                b = test.bode(run_data(run, script))
            except (KeyError, ValueError, IndexError):
                continue
            pen = pg.mkPen(colour, width=2, style=Qt.PenStyle.SolidLine if name == "on show" else Qt.PenStyle.DashLine)
            self.gain.plot(b["frequency"], b["gain"], pen=pen)
            self.phase.plot(b["frequency"], np.degrees(np.unwrap(np.radians(b["phase"]))), pen=pen)
            drawn = True
        for plot in (self.gain, self.phase):
            plot.setVisible(drawn)


def install_kpis(window) -> KpiDock:
    """Add the KPI dock (tabbed with the Compare dock), its View toggle and the Scripts menu to ``window``."""
    dock_widget = KpiDock(window.comparer)
    dock = QDockWidget("KPIs", window)
    dock.setObjectName("kpis")
    dock.setWidget(dock_widget)
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
    window.tabifyDockWidget(window.compare_dock, dock)
    window.params_dock.raise_()
    window.kpi_dock = dock
    window.course_overlay = CourseOverlay(window.car_view, window.model)
    if getattr(window, "view_menu", None) is not None:
        window.view_menu.insertAction(getattr(window, "reset_layout_action", None), dock.toggleViewAction())
    scripts = window.menuBar().addMenu("S&cripts")
    help_menu = next((a for a in window.menuBar().actions() if a.text() == "&Help"), None)
    if help_menu is not None:  # Help last, as the Controls menu keeps it (Scripts came after it)
        window.menuBar().insertMenu(help_menu, scripts)
    runs = scripts.addMenu("Run manoeuvre")
    for test in CATALOGUE.values():  # "4 m/s^2" written as the window writes a unit: "4 m/s\u00b2"
        runs.addAction(pretty_unit(f"{test.title} ({test.standard})"), lambda t=test: run_manoeuvre(window, t.script))
    scripts.addSeparator()
    scripts.addAction(window.load_script_action)
    scripts.addMenu(shipped_scripts_menu(window, scripts))
    window.scripts_menu = scripts
    return dock_widget


def shipped_scripts_menu(window, parent: QMenu) -> QMenu:
    """Scripts > Shipped scripts: the scripts shipped with carbench (presets/scripts), as File > Shipped presets has
    the presets; picking one loads it as Load script does. The menu listed none, only "Load script..." (which opens
    their folder). They are grouped by the car they drive, one submenu a car (46 in one list ran off a 640 px
    screen), and read when the menu is first opened, not with every window."""
    menu = QMenu("Shipped scripts", parent)
    menu.aboutToShow.connect(lambda: fill_shipped_scripts(window, menu))
    return menu


def fill_shipped_scripts(window, menu: QMenu) -> None:
    """Fill ``menu`` (once) with the shipped scripts by car, each with its description as its tooltip."""
    from workbench.scripts.format import load_script

    if menu.actions():
        return
    groups: dict[str, list[tuple[Path, str]]] = {}
    for path in sorted(scripts_dir().glob("*.toml")):
        try:
            script = load_script(path)
        except ScriptError as exc:
            groups.setdefault("(unreadable)", []).append((path, str(exc)))
            continue
        car = recording_car(script)  # the car as the window names a preset
        tip = f"{script.description} ({script.duration:g} s on {car})" if script.description else f"{script.duration:g} s on {car}"
        groups.setdefault(car, []).append((path, tip))
    for car in sorted(groups):
        cars = menu.addMenu(car)
        cars.setToolTipsVisible(True)
        for path, tip in groups[car]:
            action = cars.addAction(path.stem, lambda p=path: window.load_script(p))
            action.setToolTip(tip)


def manoeuvre_folder(window) -> Path:
    """Where the window writes a manoeuvre's script fitted to the car on show: beside its settings file (a window
    of its own settings, as each test's, writes its own)."""
    return Path(window.settings.fileName()).parent / "manoeuvres"


def fitted_script(window, script: str) -> Path:
    """The manoeuvre's shipped script as ``carbench manoeuvre`` runs it on the car on show (Manoeuvre.script_for: its
    gear, say), naming that car's preset, written where the window can load it; the shipped script itself where the
    test does not run on that car (a car in pixels, a kinematic car's handling), or no file can be written."""
    from workbench.manoeuvres.manoeuvre_command import inapplicable
    from workbench.manoeuvres.runner import Car
    from workbench.output.files import OutputPathError

    shipped = scripts_dir() / f"{script}.toml"
    session = window.model.session
    preset = session.preset
    test = next((t for t in CATALOGUE.values() if t.script == script), None)
    if test is None or preset.path is None:
        return shipped
    car = Car(session.params, preset.name, preset.path)
    why = inapplicable(test, car)
    if why:
        window.show_message(f"{test.title} does not run on {preset.name} ({why}): run on its script's own car", 10000)
        return shipped
    from dataclasses import replace

    from workbench.runs.live import preset_reference

    fitted = replace(test.script_for(test.base_script(), car), preset=preset_reference(preset))
    folder = manoeuvre_folder(window)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return fitted.save(folder / f"{script}.toml")
    except (OSError, ScriptError, OutputPathError):
        return shipped


def run_manoeuvre(window, script: str) -> bool:
    """Run a manoeuvre's script on the car on show (its preset, its edits kept), as ``carbench manoeuvre`` fits it to
    that car, replayed, its KPIs shown (asking first about edits the script would lose). The shipped script itself,
    with its own car (the sedan), was loaded whatever car was on show: tail_happy's engineer got the sedan's KPIs."""
    if not window.load_script(fitted_script(window, script)):
        return False
    window.kpi_dock.show()
    window.kpi_dock.raise_()
    return window.replay()
