"""Test set-up shared by every layer: Qt runs offscreen unless CARBENCH_TEST_DISPLAY=1 asks for a screen."""

import os

import pytest

if os.environ.get("CARBENCH_TEST_DISPLAY") != "1":
    os.environ["QT_QPA_PLATFORM"] = "offscreen"

# Controllers: SDL2 runs with no video or audio device (the suite only uses its joystick support),
# and the tests that need a controller attach a virtual one (SDL_JoystickAttachVirtualEx).
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def _virtual(kind: str):
    from workbench.controllers.sdl import VirtualDevice

    device = VirtualDevice(kind)
    yield device
    device.detach()


@pytest.fixture
def virtual_gamepad():
    """A standard gamepad that exists only in this process, at rest; unplugged after the test."""
    yield from _virtual("gamepad")


@pytest.fixture
def virtual_wheel():
    """A wheel (4 axes: wheel, throttle, brake, clutch; 8 buttons; a hat) at rest; unplugged after the test."""
    yield from _virtual("wheel")


@pytest.fixture(autouse=True)
def _sigint_as_in_a_terminal():
    """Each test sees SIGINT as a terminal gives it (Ctrl-C raises KeyboardInterrupt), also when the suite
    was started as a background job, which inherits SIGINT ignored: carbench leaves an ignored SIGINT
    ignored, and the tests of Ctrl-C (in process and in the processes they start) would see no signal."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item):
    """After a Qt test, delete everything it left for deleteLater (its closed windows and dialogs, pyqtgraph's
    items): no test here keeps a widget past its own, and what stays alive slows every later test in the worker
    (a cold run of the suite took 507 s of CPU with this and 624 s with the carbench plugin's narrower deletion
    alone, which leaves a user's own widgets to pytest-qt)."""
    try:
        return (yield)
    finally:
        if "qtbot" in getattr(item, "fixturenames", ()):
            from PySide6.QtCore import QCoreApplication, QEvent

            if QCoreApplication.instance() is not None:
                QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


# One process per block of the kernel (physics.kernel.KINDS), by a preset that needs it: the two compile side by side.
COMPILE = ("import sys; from physics import default_kernel, load_preset, prepare; "
           "default_kernel().compile(prepare(load_preset(sys.argv[1]).params).records)")
COMPILE_PRESETS = ("sedan", "sedan_single_track")  # the four-wheel block first: it takes the longer


def pytest_configure(config):
    """With xdist, the controller compiles the model's kernel once before the workers start: each worker then loads
    it from the cache instead of every worker compiling it (two compiles of about 20 s on a 2-core machine where
    one suffices). Its two blocks compile at once, in a process each (on the 2-core machine here, both blocks in
    13.7 s against 21.7 s one after the other; numba writes each cache file whole and renames it). Nothing changes
    for a test: a failed compile here is compiled again where it is needed, and the tests of a cold start use
    caches of their own."""
    import subprocess
    import sys

    if hasattr(config, "workerinput") or os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return
    workers = getattr(config.option, "numprocesses", None)
    if not workers or workers in (0, "0"):
        return
    runs = [subprocess.Popen([sys.executable, "-c", COMPILE, preset], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for preset in COMPILE_PRESETS]
    for run in runs:
        try:
            run.wait(timeout=600)
        except subprocess.TimeoutExpired:
            run.kill()
            run.wait()


@pytest.fixture(autouse=True)
def _no_modal_question(monkeypatch):
    """A question box shown modally in a test fails it at once: it waited for a click that never comes, and the
    whole suite hung (tests answer through the window's ask_* hooks, or replace the box)."""
    try:
        from PySide6.QtWidgets import QMessageBox
    except ImportError:  # a layer of tests without Qt
        yield
        return

    def refused(self, *args, **kwargs):
        raise AssertionError(f"a modal question in a test would wait for a click for ever: {self.text()!r}")

    def refused_static(*args, **kwargs):  # QMessageBox.question and its kind make and run their box in C++
        raise AssertionError(f"a modal message box in a test would wait for a click for ever: {args[1:3]!r}")

    monkeypatch.setattr(QMessageBox, "exec", refused)
    for name in ("question", "warning", "information", "critical", "about"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(refused_static))
    yield
