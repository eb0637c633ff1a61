"""pytest plugin for testing with the carbench window (registered as the ``carbench`` pytest11 plugin).

Fixtures (they need pytest-qt; Qt is imported only when a fixture is used):

- ``carbench_settings``: a QSettings file in the test's temporary folder.
- ``carbench_window``: a shown MainWindow on the sedan, its timer stopped so that nothing moves
  unless the test steps it. Mark a test ``@pytest.mark.carbench_preset("parking")`` for another car.
  Message boxes never block: errors are collected in ``window.shown_errors`` and the question about
  unsaved parameters is answered "Discard" (replace ``window.ask_unsaved`` to answer otherwise).

With no display (none set, or one that no longer answers) the plugin runs Qt offscreen, so the
same tests run on a build machine; set ``QT_QPA_PLATFORM`` yourself to choose otherwise.

Helpers: :func:`drive` replays a script through the window frame by frame, exactly as the GUI does,
and returns its verdicts; :func:`hold` steps the window with keys held.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pytest

from workbench.display import probe_display


def use_offscreen_without_a_display() -> bool:
    """Set QT_QPA_PLATFORM=offscreen when no window could open here (and it is not set); True if it did."""
    if os.environ.get("QT_QPA_PLATFORM") or probe_display().platform is not None:
        return False
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    return True


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "carbench_preset(name): the preset the carbench_window fixture opens")
    use_offscreen_without_a_display()  # before pytest-qt creates the application


@pytest.fixture
def carbench_settings(tmp_path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "carbench-settings.ini"), QSettings.Format.IniFormat)


def make_window(preset: str = "sedan", settings=None):
    """A MainWindow on ``preset`` whose timer does not run and whose dialogs never block."""
    from PySide6.QtWidgets import QMessageBox

    from workbench.gui.main_window import MainWindow
    from workbench.runs.live import LiveSession

    window = MainWindow(LiveSession(preset), settings=settings, start_timer=False)
    window.shown_errors = []
    window.show_error = lambda title, message: window.shown_errors.append((title, message))
    window.ask_unsaved = lambda doing: QMessageBox.StandardButton.Discard
    return window


@pytest.fixture
def carbench_window(qtbot, carbench_settings, request):
    marker = request.node.get_closest_marker("carbench_preset")
    window = make_window(marker.args[0] if marker else "sedan", carbench_settings)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    yield window


def hold(window, keys: Iterable[str], frames: int) -> None:
    """Step the window ``frames`` frames with ``keys`` held (as if pressed on the keyboard), then release them."""
    model = window.model
    for key in keys:
        model.press(key)
    model.advance(frames)
    for key in keys:
        model.release(key)
    model.refresh()


def drive(window, script: str | Path, chunk: int = 2):
    """Load ``script`` in the window and replay it to the end, ``chunk`` frames per repaint.

    Returns the verdicts (all windows are over at the end). The telemetry is the window's own
    history (``window.model.session.log``), stepped by the same code path as ``carbench replay``.
    """
    from PySide6.QtWidgets import QApplication

    if not window.load_script(script):
        raise AssertionError(f"script not loaded: {window.shown_errors[-1][1] if window.shown_errors else script}")
    window.model.replay()
    while window.model.session.replaying:
        window.model.advance(chunk)
        QApplication.processEvents()
    window.model.refresh()
    return window.model.session.verdicts()
