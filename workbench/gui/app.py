"""Starting the workbench window."""

from __future__ import annotations

import functools
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from physics import PresetError
from physics.kernel import COMPILE_SECONDS
from workbench.streams import one_line

NOTICE_AFTER = 1.0  # [s] a compile still running after this gets a window saying so (loading a cached one: ~0.5 s)


def run_app(preset: str | None = None, script: str | None = None) -> int:
    """Open the window on ``preset`` (default sedan), optionally with a script loaded; returns the exit code."""
    from PySide6.QtWidgets import QApplication

    from physics import default_kernel, prepare
    from workbench.gui.main_window import MainWindow
    from workbench.names import NameRuleError, load_named_preset
    from workbench.runs.live import LiveSession
    from workbench.scripts.format import ScriptError

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("carbench")
    app.setOrganizationName("carbench")
    try:
        car = load_named_preset(preset or "sedan")  # a bad preset is said at once, not after a first compile
    except (PresetError, NameRuleError) as exc:
        print(f"carbench: {exc}", file=sys.stderr)
        return 2
    kernel = default_kernel()
    session = LiveSession(car)
    window = MainWindow(session, start_timer=False)  # nothing steps the car until the timer runs
    if preset is None and script is None:
        window.restore_last_session()
    if script:
        try:
            window.model.load_script(script)
        except (ScriptError, PresetError) as exc:
            print(f"carbench: {exc}", file=sys.stderr)
            return 2
        shown = window.model.session.preset
        if preset is not None and shown.path != car.path:
            # A script drives its own car: the --preset given was replaced by it without a word.
            print(f"carbench: {one_line(f'--preset {preset}: the script {script} drives its own car, {shown.name}; ')}"
                  "give one of the two (carbench replay SCRIPT --preset NAME replays a script on another car)",
                  file=sys.stderr)
            window.close()
            return 2
    # The first run's compile of the block the car on show needs (the preset's, or the last session's or the
    # script's, which may be of the other kind), with the notice, before its first frame: not on the first frame in
    # the window's thread (7 s of a frozen window, and no word why).
    compile_showing_progress(app, functools.partial(kernel.compile, prepare(window.model.session.params).records))
    window.start_timer()
    window.show()
    window.car_view.setFocus()
    compile_the_rest()
    keeper = _keep_recovery(window)
    code = app.exec()
    keeper.discard()  # a clean exit: nothing to recover next time
    return code


def _keep_recovery(window):
    """Offer what a crashed run left, then keep this run's recovery file every few seconds."""
    from workbench.gui.recovery import RecoveryKeeper, offer_restore
    from workbench.runs.recovery import RecoveryStore

    store = RecoveryStore()
    offer_restore(window, store)
    return RecoveryKeeper(window, store)


REST = ("import os, sys; getattr(os, 'nice', lambda n: 0)(10); "
        "sys.path.insert(0, sys.argv[1]) if sys.argv[1] not in sys.path else None; "
        "from physics import default_kernel; default_kernel().compile()")
"""What :func:`compile_the_rest` runs: every block of the kernel, compiled or loaded from the cache, at a low priority
where the system has one (os.nice: not on Windows), from the folder ``argv[1]`` that holds the window's own carbench
(put first on the path unless it is on it already: an installed carbench's site-packages stays after the standard
library, where a backport's module of a standard name would otherwise come first)."""
_rest: list[subprocess.Popen] = []  # the processes started, held until they end (a dropped one warns when collected)


def compile_the_rest() -> subprocess.Popen | None:
    """Compile the kernel's other blocks (physics.kernel.KINDS) into the cache in a process of their own while the
    window runs, so that a preset of the other kind (four wheels after a single-track car, or the other way) opens
    at once: its block is then loaded from the cache, in well under a second, instead of compiled for several
    seconds in the window's thread. A process, not a thread: numba holds one lock over every compile and cache load
    in a process, and the window, which loads small compiled functions of its own as it opens, waited on it until
    the compile ended (a black window for 3 s). Started at every start: which blocks the cache holds, only a load
    tells (a command-line run compiles its car's block alone), and with both there it loads them and ends (1-2 s of
    CPU at a low priority). What it prints is dropped (a second "compiling" line); if it fails, the run that needs
    the block compiles it as before and says what goes wrong."""
    import physics

    # The same interpreter and environment (numba's cache folder: physics.jit) as the window's, and the same carbench:
    # the folder it was imported from first (a source checkout run as `python -m workbench`, or another carbench
    # installed beside it), and -P: not the working folder, where a physics.py of the user's would come first.
    root = str(Path(physics.__file__).resolve().parents[1])
    try:
        process = subprocess.Popen([sys.executable, "-P", "-c", REST, root], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:  # no process to be had (no interpreter's path, no memory to fork): the window runs without it
        return None
    _rest[:] = [p for p in _rest if p.poll() is None] + [process]
    return process


def compile_showing_progress(app, compile_model: Callable[[], object], notice_after: float = NOTICE_AFTER):
    """Run ``compile_model`` (the model's first compile, or its load from the cache) in a thread; once it has taken
    ``notice_after`` seconds, show a small window saying what is happening, with a busy bar and the seconds so far,
    until it ends. Returns what ``compile_model`` returned and raises what it raised.

    A first run compiles the car model's block for its car for about COMPILE_SECONDS before the workbench can open:
    without this the user, started from a launcher, saw nothing at all for that long. The window answers (moves, repaints) meanwhile:
    the compile holds Python's lock most of the time, and lets the event loop run between its steps.
    """
    done: dict = {}

    def work():
        try:
            done["value"] = compile_model()
        except BaseException as exc:  # handed to the caller's thread below
            done["error"] = exc

    worker = threading.Thread(target=work, name="carbench-compile", daemon=True)
    began = time.monotonic()
    worker.start()
    worker.join(notice_after)
    if worker.is_alive():
        notice = notice_class()(began)
        notice.show()
        try:
            while worker.is_alive():
                app.processEvents()
                worker.join(0.03)
        finally:
            notice.close()
            notice.deleteLater()
    if "error" in done:
        raise done["error"]
    return done.get("value")


@functools.cache
def notice_class():
    """The window :func:`compile_showing_progress` shows while the model compiles (a class made on first use, so
    that importing this module needs no Qt)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QLabel, QProgressBar, QVBoxLayout, QWidget

    class _CompileNotice(QWidget):
        """What the first run is doing before the workbench opens: compiling the car model, once."""

        def __init__(self, began: float):
            super().__init__()
            self.setWindowTitle("carbench")
            self._began = began
            text = QLabel(f"Compiling the car model, once (about {max(COMPILE_SECONDS.values())} s on a 2-core "
                          "machine, longer on a slow one). Later starts load it in under a second.")
            text.setWordWrap(True)
            bar = QProgressBar()
            bar.setRange(0, 0)  # busy: how far the compile is, numba does not say
            bar.setTextVisible(False)
            self.elapsed = QLabel()
            layout = QVBoxLayout(self)
            layout.addWidget(text)
            layout.addWidget(bar)
            layout.addWidget(self.elapsed)
            self.resize(480, 110)
            screen = QGuiApplication.primaryScreen()
            if screen is not None:  # in the middle of the screen, where the workbench will open
                self.move(screen.availableGeometry().center() - self.rect().center())
            self._tick()
            self._timer = QTimer(self)
            self._timer.timeout.connect(self._tick)
            self._timer.start(500)

        def _tick(self) -> None:
            self.elapsed.setText(f"{time.monotonic() - self._began:.0f} s")

    return _CompileNotice

