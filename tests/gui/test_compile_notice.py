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


def test_the_window_opens_after_its_cars_block_and_compiles_the_other_behind_it(qapp, monkeypatch, tmp_path):
    """``carbench --preset sedan_single_track``: the single-track block is compiled (or loaded) before the window, in
    the notice's thread; once the window shows, every block in a process of its own (physics.kernel.KINDS), which
    leaves them in the cache, so that a four-wheel preset opened later loads its block instead of compiling it in the
    window's thread."""
    from PySide6.QtCore import QSettings

    import physics
    from physics.kernel import kinds_of
    from workbench.gui import main_window

    real = physics.default_kernel()
    calls = []
    made = []
    window_class = main_window.MainWindow

    class Watched:
        def compile(self, params=None):
            calls.append((kinds_of(params), threading.current_thread().name, any(w.isVisible() for w in made)))
            return real.compile(params)

    def window(session):
        made.append(window_class(session, QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)))
        return made[-1]

    started = []
    rest = app.compile_the_rest

    def compile_the_rest():
        started.append(any(w.isVisible() for w in made))
        started.append(rest())
        return started[-1]

    monkeypatch.setattr(physics, "default_kernel", Watched)
    monkeypatch.setattr(main_window, "MainWindow", window)
    monkeypatch.setattr(app, "compile_the_rest", compile_the_rest)
    monkeypatch.setattr(QApplication, "exec", lambda self: 0)  # the event loop returns at once
    monkeypatch.setenv("CARBENCH_RECOVERY_DIR", str(tmp_path / "recovery"))
    try:
        assert app.run_app(preset="sedan_single_track") == 0
        assert calls == [(("two",), "carbench-compile", False)]
        shown, process = started
        assert shown and process.wait(timeout=300) == 0  # every block compiled, or loaded, and the process gone
    finally:
        for w in made:
            w.close()
            w.deleteLater()
