"""The first run's compile, before the workbench opens, says so in a small window (workbench.gui.app)."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from workbench.gui import app
from workbench.gui.app import compile_showing_progress, notice_class


def _notices():
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, notice_class()) and w.isVisible()]


def test_a_long_compile_shows_a_notice_until_it_ends(qapp):
    release = threading.Event()
    seen = []

    def look():  # runs in the notice's event loop: the compile is held until the notice has been seen
        notices = _notices()
        if notices:
            seen.append(notices[0].elapsed.text())
            release.set()

    timer = QTimer()
    timer.timeout.connect(look)
    timer.start(20)
    try:
        result = compile_showing_progress(qapp, lambda: release.wait(30) and 12.5, notice_after=0.0)
    finally:
        timer.stop()
    assert result == 12.5  # what the compile returned
    assert seen and seen[0].endswith(" s")  # the notice was on show, with the seconds so far
    assert _notices() == []  # and it is gone once the compile ended


def test_a_quick_load_shows_nothing_and_an_error_reaches_the_caller(qapp, monkeypatch):
    monkeypatch.setattr(app, "notice_class", lambda: pytest.fail("a notice made for a load that ended in time"))
    assert compile_showing_progress(qapp, lambda: "cached", notice_after=60.0) == "cached"

    def broken():
        raise RuntimeError("numba says no")

    with pytest.raises(RuntimeError, match="numba says no"):
        compile_showing_progress(qapp, broken, notice_after=60.0)
