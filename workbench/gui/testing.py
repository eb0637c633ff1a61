"""pytest plugin for testing with the carbench window (registered as the ``carbench`` pytest11 plugin).

Fixtures (they need pytest-qt; Qt is imported only when a fixture is used):

- ``carbench_settings``: a QSettings file in the test's temporary folder.
- ``carbench_window``: a shown MainWindow on the sedan, its timer stopped so that nothing moves
  unless the test steps it. Mark a test ``@pytest.mark.carbench_preset("parking")`` for another car
  and ``@pytest.mark.carbench_script("braking_stop")`` (a shipped name or a path) to have a script
  loaded; a test can also take a ``carbench_script`` fixture argument (override the fixture).
  Message boxes never block: errors are collected in ``window.shown_errors`` and the questions about
  unsaved parameters and an unsaved recording are answered "Discard" (replace ``window.ask_unsaved`` or
  ``window.ask_recording`` to answer otherwise).
  ``window.hold(keys, seconds)`` and ``window.press(key)`` send real key events to the car view (the window made
  the active one first, as a click on it does). A relative path in a marker is the test file's folder's where
  the file is there, else the working directory's.

After a test, the carbench windows it registered with qtbot are deleted once closed (pytest-qt only
schedules that with ``deleteLater``); other widgets are left to pytest-qt.

When a test that used ``carbench_window`` fails, a PNG of the window at that moment is saved in the
test's ``tmp_path`` and named in the failure report; ``--carbench-screenshots=DIR`` keeps one for
every test that used ``carbench_window``, passing or not, in DIR.

With no display (none set, or one that no longer answers) the plugin runs Qt offscreen, so the
same tests run on a build machine; set ``QT_QPA_PLATFORM`` yourself to choose otherwise.

Helpers: :func:`drive` replays a script through the window frame by frame, exactly as the GUI does,
repainting about every 30 ms of wall time (every 0.25 s offscreen; ``realtime=True`` to watch it at the script's
pace), and
returns its verdicts with the run (channels in display units, the stamp; ``assert driven.passed,
driven.failures()`` fails with the failed expectations as ``carbench replay`` prints them); :func:`hold` steps the
window's model a number of frames with keys held, without key events.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from workbench.display import probe_display
from workbench.gui.qt_messages import QT_MESSAGES_ALLOWED
from workbench.output.files import same_preset_file


def use_offscreen_without_a_display() -> bool:
    """Set QT_QPA_PLATFORM=offscreen when no window could open here (and it is not set); True if it did."""
    if os.environ.get("QT_QPA_PLATFORM") or probe_display().platform is not None:
        return False
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    return True


REPAINT_EVERY = 0.03  # [s] of wall time between repaints in drive(): the frames in between are stepped unseen
REPAINT_UNSEEN = 0.25  # [s] the same offscreen, where no one watches: a repaint took about as long as the 30 ms of
# frames between two, half of a driven test's time
MIN_CHUNK = 8  # frames per repaint at least, however slow a repaint is
SCREENSHOT_KEY = pytest.StashKey[Path]()


def pytest_addoption(parser) -> None:
    parser.addoption("--carbench-screenshots", metavar="DIR", default=None,
                     help="carbench: keep a PNG of the window at the end of every test that used carbench_window")


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "carbench_preset(name): the preset the carbench_window fixture opens")
    config.addinivalue_line("markers", "carbench_script(name_or_path): a script the carbench_window fixture loads")
    _check_screenshot_folder(config.getoption("--carbench-screenshots", None))
    use_offscreen_without_a_display()  # before pytest-qt creates the application


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args) -> None:
    _model_not_rewritten(early_config)  # before a conftest imports the model


OWN_PACKAGES = ("physics", "workbench", "presets")  # the packages of carbench's distribution


def _model_not_rewritten(config) -> None:
    """carbench's own modules imported as they are, not through pytest's assertion rewriting (all but the few this
    plugin imports as it loads). pytest rewrites the asserts of every module of a distribution that brings a plugin
    (it cannot tell a plugin's helpers from the rest), and where Python writes no bytecode
    (``PYTHONDONTWRITEBYTECODE``), or on a fresh checkout, it does so again in every process: the model and the
    workbench, some 240 modules, cost each pytest process about 2.6 s (of 12.6 s to collect this project's suite), a
    test that starts pytest in a process of its own too. The asserts in them guard the code's own invariants; a test's
    asserts are rewritten as before. Only the hook's set of marked names is touched, where this pytest has it, and
    only for a package found beside this plugin's (another distribution's package of the same name keeps its
    rewriting)."""
    import importlib.util

    marked = getattr(config.pluginmanager.rewrite_hook, "_must_rewrite", None)
    if not isinstance(marked, set):
        return
    root = Path(__file__).resolve().parents[2]  # the folder that holds the workbench package
    for name in OWN_PACKAGES:
        if name not in marked:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        origin = spec.origin if spec is not None else None
        if origin and Path(origin).resolve().is_relative_to(root):
            marked.discard(name)


def _check_screenshot_folder(folder: str | None) -> None:
    """--carbench-screenshots DIR refused up front, as a usage error, where no PNG could be written: a DIR under a
    file ended the run with an INTERNALERROR at the first test (the tests run before it lost), and a DIR not writable
    kept nothing without a word."""
    if not folder:
        return
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise pytest.UsageError(f"--carbench-screenshots {folder}: cannot make the folder: "
                                f"{exc.strerror or exc}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise pytest.UsageError(f"--carbench-screenshots {folder}: the folder is not writable")


def pytest_collection_modifyitems(config, items) -> None:
    """Every test that drives Qt (it uses qtbot or carbench_window) fails on a Qt warning not allowed above,
    unless it says otherwise with its own qt_log_level_fail marker or the project sets pytest-qt's
    ``qt_log_level_fail`` itself, in its configuration file or with ``-o`` (the plugin loads for every project of the
    environment: a project's own ``qt_log_level_fail = NO`` was overridden)."""
    own_level = _own_log_level(config)
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "qtbot" not in names and "carbench_window" not in names:
            continue
        if not own_level and item.get_closest_marker("qt_log_level_fail") is None:
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
        item.add_marker(pytest.mark.qt_log_ignore(*QT_MESSAGES_ALLOWED, extend=True))


def _own_log_level(config, name: str = "qt_log_level_fail") -> bool:
    """Whether the project sets pytest-qt's ``qt_log_level_fail`` itself, with ``-o`` or in its configuration file
    (its value cannot say: pytest-qt's default, NO, is also what a project sets to let warnings pass; and pytest 9
    deprecates reading the file's table through the config)."""
    import configparser
    import tomllib

    overrides = getattr(config.option, "override_ini", None) or ()
    if any(str(o).split("=", 1)[0].strip() == name for o in overrides):
        return True
    path = getattr(config, "inipath", None)
    if path is None:
        return False
    try:
        if path.suffix == ".toml":
            with open(path, "rb") as handle:
                table = tomllib.load(handle).get("tool", {}).get("pytest", {})
            return name in table.get("ini_options", {}) or name in table
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(path, encoding="utf-8")
        return any(parser.has_section(section) and parser.has_option(section, name)
                   for section in ("pytest", "tool:pytest"))
    except (OSError, ValueError, configparser.Error):  # unreadable: as pytest would have said by now
        return False


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item):
    """Delete the carbench windows a test registered with qtbot once pytest-qt has closed them. pytest-qt's
    ``deleteLater`` waits for an event loop that a test run never returns to, so every window of every test
    stayed alive (thousands of widgets, with their event filters) and slowed each later test in the process.
    Only a MainWindow whose close went through (a window that refused to close is left as it is) and only the
    deletion posted to it are processed; other widgets a test registered are left to pytest-qt."""
    windows = []
    registered = [ref() for ref, _ in getattr(item, "qt_widgets", ())]
    if any(w is not None for w in registered):
        from workbench.gui.main_window import MainWindow

        windows = [w for w in registered if isinstance(w, MainWindow)]
    failing = False
    try:
        return (yield)
    except BaseException:
        failing = True  # the teardown's own error is the one reported, not one of the deletion's after it
        raise
    finally:
        try:
            if windows:
                _delete_closed_checked(windows, report=not failing)
        finally:
            _collect_due()


def _delete_closed_checked(windows, report: bool = True) -> None:
    """:func:`_delete_closed`, failing the test's teardown with an exception a slot raised meanwhile (the deletion
    runs after pytest-qt's capture of the teardown: such an exception was printed and the test passed)."""
    try:
        from pytestqt.exceptions import capture_exceptions, format_captured_exceptions
    except ImportError:  # pytest-qt is what made the windows; without its helpers, delete them as before
        _delete_closed(windows)
        return
    with capture_exceptions() as exceptions:
        _delete_closed(windows)
    if exceptions and report:
        pytest.fail("while the plugin deleted the window:\n" + format_captured_exceptions(exceptions), pytrace=False)


def _collect_due() -> None:
    """Between tests, with no Qt call on the stack: the cycle collection Python's thresholds say is due, where a
    window turned automatic collection off (workbench.gui.collector); a test's event loop may not have run its timer."""
    import sys

    collector = sys.modules.get("workbench.gui.collector")
    if collector is not None:
        collector.collect_due()


def _delete_closed(windows) -> None:
    from PySide6.QtCore import QCoreApplication, QEvent
    from shiboken6 import isValid

    if QCoreApplication.instance() is None:
        return
    for window in windows:
        if isValid(window) and getattr(window, "_closed", False):  # not deleted yet, and its close went through
            QCoreApplication.sendPostedEvents(window, QEvent.Type.DeferredDelete)


def _save_window(window, path: Path) -> Path | None:
    """A PNG of the window as it is now, or None when it could not be taken (the window already gone, or the folder
    not writable)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return path if window.grab().save(str(path), "PNG") else None
    except (RuntimeError, OSError):  # the C++ window was deleted; the folder went meanwhile
        return None


def _screenshot_name(nodeid: str) -> str:
    """A file name for a test's screenshot: its id with what a file name cannot hold replaced, and a short hash of the
    whole id, so that ids that differ only there ("a b", "a_b", "a/b") keep a PNG each."""
    import hashlib

    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in nodeid)[-140:]
    return f"{safe}-{hashlib.sha256(nodeid.encode()).hexdigest()[:8]}.png"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test that used carbench_window gets a screenshot of the window at the failing moment."""
    outcome = yield
    report = outcome.get_result()
    window = getattr(item, "_carbench_window", None)
    if window is None or report.when != "call":
        return
    keep = item.config.getoption("--carbench-screenshots")
    shot = None
    if report.failed:
        tmp = item.funcargs.get("tmp_path")
        folder = Path(tmp) if tmp is not None else Path(item.config.rootpath) / ".carbench-screenshots"
        shot = _save_window(window, folder / "carbench-failure.png")
        if shot is not None:
            report.sections.append(("carbench", f"screenshot of the window when the test failed: {shot}"))
    if keep:
        kept = _save_window(window, Path(keep) / _screenshot_name(item.nodeid))
        if kept is None:
            report.sections.append(("carbench", f"screenshot not kept: could not write into {keep}"))
        elif shot is None:
            report.sections.append(("carbench", f"screenshot: {kept}"))


@pytest.fixture
def carbench_settings(tmp_path):
    """A QSettings file of its own in the test's ``tmp_path``: what the window remembers (its layout, the last preset)
    never comes from another test nor reaches the user's settings."""
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "carbench-settings.ini"), QSettings.Format.IniFormat)


def make_window(preset: str = "sedan", settings=None):
    """A MainWindow on ``preset`` whose timer does not run and whose own dialogs never block: an error is kept in
    ``window.shown_errors`` (title, message); a yes/no question (R during a recording) in ``window.asked`` and
    answered ``window.answer_yes`` (False, the dialog's default, unless a test sets it); the keyboard help in
    ``window.asked`` too; Save / Discard / Cancel answered Discard. (The file dialogs are answered by
    ``carbench_window``.)"""
    from PySide6.QtWidgets import QMessageBox

    from workbench.gui.main_window import MainWindow
    from workbench.runs.live import LiveSession

    window = MainWindow(LiveSession(preset), settings=settings, start_timer=False)
    window.shown_errors = []
    window.asked = []
    window.answer_yes = False
    window.show_error = lambda title, message: window.shown_errors.append((title, message))
    window.ask_unsaved = lambda doing: QMessageBox.StandardButton.Discard
    window.ask_recording = lambda doing: QMessageBox.StandardButton.Discard

    def ask_yes_no(title: str, text: str) -> bool:
        window.asked.append((title, text))
        return window.answer_yes

    window.ask_yes_no = ask_yes_no
    window.show_keys = lambda: window.asked.append(("Keyboard controls", ""))
    return window


def _file_dialogs(monkeypatch, window) -> None:
    """Qt's file dialogs answered without a dialog: ``window.file_answer`` (a path; "" is Cancel, the default),
    each call kept in ``window.asked`` as (its caption, "file")."""
    from PySide6.QtWidgets import QFileDialog

    window.file_answer = ""

    def answer(parent=None, caption="", *args, **kwargs):
        window.asked.append((caption, "file"))
        return str(window.file_answer), ""

    for name in ("getOpenFileName", "getSaveFileName"):
        monkeypatch.setattr(QFileDialog, name, staticmethod(answer))


@pytest.fixture
def carbench_script(request):
    """The script carbench_window loads: the ``carbench_script`` marker's, else none (override to choose)."""
    marker = request.node.get_closest_marker("carbench_script")
    return _marker_argument(marker, "a script's shipped name or path", request) if marker else None


def _marker_argument(marker, what: str, request=None) -> str:
    """The one argument of a carbench marker as a string, or a usage error naming the marker (it was an IndexError).
    A relative path is the test file's folder's where the file is there (with ``request``), else left as it is: the
    working directory's, or a shipped name."""
    if (len(marker.args) != 1 or marker.kwargs or not isinstance(marker.args[0], (str, os.PathLike))
            or not os.fspath(marker.args[0])):
        given = ", ".join([repr(a) for a in marker.args] + [f"{k}={v!r}" for k, v in marker.kwargs.items()])
        raise pytest.UsageError(f"@pytest.mark.{marker.name}(...) takes one argument, {what}, not as a keyword; "
                                f"got ({given})")
    argument = os.fspath(marker.args[0])
    path = Path(argument)
    test_file = getattr(request, "path", None) if request is not None else None
    if not path.is_absolute() and test_file is not None:
        beside = Path(test_file).parent / path
        if beside.is_file():
            return str(beside)
    return argument


def activate(window, timeout: float = 5.0) -> None:
    """Make ``window`` the active window, as a user's click on it does, and wait (at most ``timeout`` seconds) until
    it is: its shortcut keys and driving keys go nowhere otherwise. A window shown on a display with no window
    manager (Xvfb) does not become active by itself; a dialog closed, or a window a test opened, may have taken the
    activation since."""
    from PySide6.QtCore import QDeadlineTimer
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()  # what a load posted first (it takes the activation away once handled)
    window.activateWindow()
    window.raise_()
    deadline = QDeadlineTimer(int(timeout * 1000))
    while not window.isActiveWindow() and not deadline.hasExpired():
        QApplication.processEvents()
        time.sleep(0.005)


@pytest.fixture
def carbench_window(qtbot, carbench_settings, carbench_script, request, monkeypatch):
    """A shown MainWindow on the sedan (the ``carbench_preset`` marker's car), the ``carbench_script`` marker's script
    loaded, its timer stopped, the active window: see the module's docstring. Deleted after the test."""
    marker = request.node.get_closest_marker("carbench_preset")
    window = make_window(_marker_argument(marker, "a preset's name or path", request) if marker else "sedan",
                         carbench_settings)
    _file_dialogs(monkeypatch, window)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    window.hold = lambda keys, seconds: hold_keys(window, keys, seconds)
    window.press = lambda key: press_key(window, key)
    if carbench_script is not None:
        car = window.model.session.preset
        _load(window, carbench_script)
        shown = window.model.session.preset
        if marker is not None and not same_preset_file(shown.path, car.path):
            # As `carbench --preset X --script Y`: a script drives its own car, and the marker's was dropped unsaid.
            raise pytest.UsageError(f"@pytest.mark.carbench_preset({marker.args[0]!r}): the script "
                                    f"{carbench_script} drives its own car, {shown.name}; give one of the two")
    # Active, as a window the user clicks on: on a display with no window manager (xvfb-run) the window was shown
    # inactive and hold() drove nothing; loading a script of another car left it inactive offscreen.
    activate(window)
    if not window.isActiveWindow():
        raise AssertionError("the carbench window did not become the active window within 5 s")
    request.node._carbench_window = window
    yield window
    request.node._carbench_window = None



def hold(window, keys: Iterable[str] | str, frames: int) -> None:
    """Step the window's model ``frames`` frames (a whole number: not seconds, as ``window.hold`` takes) with
    ``keys`` held (the model's own presses, no key events: see :func:`hold_keys` for those), then release them."""
    import numbers

    if isinstance(frames, bool) or not isinstance(frames, numbers.Integral) or frames < 1:
        raise ValueError(f"hold: frames must be a whole number of frames, 1 or more, not {frames!r} (window.hold "
                         "takes seconds)")
    keys = _key_names(keys)
    for key in keys:
        _key_of(key)  # a name that is no driving key, refused before anything is held
    model = window.model
    for key in keys:
        model.press(key)
    model.advance(frames)
    for key in keys:
        model.release(key)
    model.refresh()


def _load(window, script: str | Path) -> None:
    """Load ``script`` (a path or a shipped name) in the window, as File > Load script does; AssertionError with the
    window's reason where it is refused (a missing file too, which raised a ScriptError of its own before the window
    saw it; now in ``window.shown_errors`` as any refused file)."""
    from workbench.scripts.format import ScriptError

    try:
        path = _script_path(script)
    except ScriptError as exc:
        window.show_error("Script not loaded", str(exc))
        raise AssertionError(f"script not loaded: {exc}") from None
    if not window.load_script(path):
        raise AssertionError(f"script not loaded: {window.shown_errors[-1][1] if window.shown_errors else script}")


def _script_path(script: str | Path) -> Path:
    """A script file or a shipped script's name (``"braking_stop"``), as ``carbench replay`` takes it."""
    from workbench.scripts.format import resolve_script

    return resolve_script(script)


def _key_names(keys: Iterable[str] | str) -> list[str]:
    """Driving keys' names as given to hold(): a list of them, or one name alone."""
    return [keys] if isinstance(keys, str) else list(keys)


def _key_of(name: str):
    from workbench.gui.keymap import DRIVING_KEYS

    for key, control in DRIVING_KEYS.items():
        if control == name:
            return key
    raise ValueError(f"{name!r} is no driving key: one of {', '.join(sorted(set(DRIVING_KEYS.values())))}")


def _send(window, key, press: bool) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    (QTest.keyPress if press else QTest.keyRelease)(window.car_view, Qt.Key(key))


HOLD_MAX = 3600.0  # [s] the longest hold(): an hour of driving (1e7 s ran for minutes and ended in a MemoryError)


def hold_keys(window, keys: Iterable[str] | str, seconds: float) -> None:
    """Press ``keys`` (driving controls: "throttle", "left", ...; one name alone is one key) on the car view as real
    key events, step the window ``seconds`` of simulated time (at least one frame), and release them, whatever
    happens meanwhile. The window is made the active one first, as a user's click on it does: on a display, keys sent
    while a dialog of the window or another window was active drove nothing. ``seconds`` must be more than 0 and at
    most HOLD_MAX (a negative or nan one drove a frame, an inf one left the keys held for the rest of the test)."""
    import math
    import numbers

    from PySide6.QtWidgets import QApplication

    codes = [_key_of(k) for k in _key_names(keys)]
    if (isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or not math.isfinite(seconds)
            or not 0.0 < seconds <= HOLD_MAX):
        raise ValueError(f"hold: seconds must be more than 0 and at most {HOLD_MAX:g}, not {seconds!r}")
    if not window.isActiveWindow():
        activate(window)
    window.car_view.setFocus()
    for code in codes:
        _send(window, code, True)
    try:
        QApplication.processEvents()
        window.model.advance(max(1, round(seconds / window.model.session.dt)))
    finally:
        for code in codes:
            _send(window, code, False)
        QApplication.processEvents()
        window.model.refresh()


def press_key(window, key: str) -> None:
    """One tap of a driving key on the car view (pressed for one frame), as real key events."""
    hold_keys(window, [key], window.model.session.dt)


@dataclass(repr=False)
class DrivenRun(Sequence):
    """What :func:`drive` gives: the verdicts (a sequence of them) and the run.

    ``passed`` says whether every expectation passed, ``failures()`` the failed ones as ``carbench replay`` prints
    them (bound and value in the channel's display unit), for ``assert driven.passed, driven.failures()``.
    ``run.channel("speed_kmh")`` is a channel's values per frame in its display unit (degrees for angles),
    ``run.unit(name)`` that unit, ``run.t`` the frame times [s], ``stamp`` the run's stamp (as ``replay --json``
    gives it), ``frames`` and ``repaints`` how it was driven.
    """

    verdicts: list = field(default_factory=list)
    run: object = None
    frames: int = 0
    repaints: int = 0

    def __iter__(self):
        return iter(self.verdicts)

    def __len__(self) -> int:
        return len(self.verdicts)

    def __getitem__(self, i):
        return self.verdicts[i]

    def __repr__(self) -> str:
        failed = sum(not v.passed for v in self.verdicts)
        return (f"DrivenRun({len(self.verdicts)} verdicts, {failed} failed, {self.frames} frames, "
                f"{self.repaints} repaints)")

    @property
    def passed(self) -> bool:
        return all(v.passed for v in self.verdicts)

    def failures(self) -> str:
        """The failed expectations, one line each as ``carbench replay``'s table has them ("" when none failed)."""
        from physics import channel_infos
        from workbench.output.report import aligned, verdict_row

        # In the run's unit of length (metres for a DrivenRun made without a run): always the display units.
        infos = {info.name: info for info in channel_infos(self.run.unit if self.run is not None else "m")}
        return "\n".join(aligned([verdict_row(v, infos) for v in self.verdicts if not v.passed]))

    @property
    def stamp(self):
        return self.run.stamp

    @property
    def t(self):
        return self.run.data["t"]

    def _info(self, name: str):
        from physics import channel_infos

        for info in channel_infos(self.run.unit):
            if info.name == name:
                return info
        raise KeyError(f"no channel {name!r} in this run")

    def unit(self, name: str) -> str:
        from workbench.runs.compare import display_unit

        return display_unit(self._info(name))[0]

    def channel(self, name: str):
        from workbench.runs.compare import display_unit

        factor = display_unit(self._info(name))[1]
        return self.run.data[name] * factor



def default_repaint_every() -> float:
    """The wall time between drive()'s repaints unless a test says: REPAINT_EVERY on a screen, REPAINT_UNSEEN
    offscreen."""
    from PySide6.QtGui import QGuiApplication

    return REPAINT_UNSEEN if QGuiApplication.platformName() == "offscreen" else REPAINT_EVERY


def drive(window, script: str | Path, realtime: bool = False, repaint_every: float | None = None,
          chunk: int | None = None) -> DrivenRun:
    """Load ``script`` in the window and replay it to the end.

    Frames are stepped as fast as they come, the window repainted about every ``repaint_every`` seconds of
    wall time (by default 0.03 s on a screen, 0.25 s offscreen, where no one watches; the physics is the same at any
    pacing); ``realtime`` paces the frames at the script's dt
    instead, for a test to watch; ``chunk`` repaints after every ``chunk`` frames. Returns the verdicts (every window is over at the end) with the run: the
    window's own history, stepped by the same code path as ``carbench replay``.
    """
    import numbers

    from PySide6.QtWidgets import QApplication

    if repaint_every is None:
        repaint_every = default_repaint_every()
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, numbers.Integral) or chunk < 1):
        raise ValueError(f"drive: chunk must be a whole number of frames, 1 or more, not {chunk!r}")
    _load(window, script)
    if window.isVisible():
        activate(window)  # its shortcuts work after drive(), whatever took the activation before
    model = window.model
    model.replay()
    dt = model.session.dt
    began = time.perf_counter()
    frames = repaints = 0
    fixed = chunk is not None
    chunk = int(chunk) if fixed else MIN_CHUNK  # frames per repaint, fitted to repaint_every
    while model.session.replaying:
        last = time.perf_counter()
        if realtime:
            due = int((last - began) / dt) - frames
            if due > 0:
                frames += model.advance(due)
            time.sleep(min(dt, repaint_every))
        else:
            frames += model.advance(chunk)
            if not fixed:
                spent = max(time.perf_counter() - last, 1e-6)
                chunk = int(min(max(chunk * repaint_every / spent, MIN_CHUNK), 32 * chunk, 100_000))
        QApplication.processEvents()
        repaints += 1
    model.refresh()
    verdicts = model.session.verdicts()
    return DrivenRun(list(verdicts), model.session.whole_run(model.session.program.script.name
                                                            if model.session.program else "run"),
                     frames, repaints)
