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


def _run_app(monkeypatch, tmp_path, settings: dict | None = None, **kwargs):
    """run_app with its event loop returning at once: (its exit code, the compiles asked of the kernel as (the kinds,
    the thread, whether the window was shown or its timer running), whether the other blocks' process was started
    and the window then shown, and that process)."""
    from PySide6.QtCore import QSettings

    import physics
    import physics.kernel
    from physics.kernel import kinds_of
    from workbench.gui import main_window

    real = physics.default_kernel()
    calls, made, started = [], [], []
    window_class = main_window.MainWindow

    def busy():
        return any(w.isVisible() or getattr(w, "timer", None) is not None for w in made)

    class Watched:
        def compile(self, params=None):
            calls.append((kinds_of(params), threading.current_thread().name, busy()))
            return real.compile(params)

    stored = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    for key, value in (settings or {}).items():
        stored.setValue(key, value)
    stored.sync()

    def window(session, start_timer=True):
        made.append(window_class(session, QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat),
                                 start_timer=start_timer))
        return made[-1]

    rest = app.compile_the_rest

    def compile_the_rest():
        started.append((busy(), rest()))
        return started[-1][1]

    monkeypatch.setattr(physics, "default_kernel", Watched)
    monkeypatch.setattr(main_window, "MainWindow", window)
    monkeypatch.setattr(app, "compile_the_rest", compile_the_rest)
    monkeypatch.setattr(QApplication, "exec", lambda self: 0)  # the event loop returns at once
    monkeypatch.setenv("CARBENCH_RECOVERY_DIR", str(tmp_path / "recovery"))
    try:
        return app.run_app(**kwargs), calls, started
    finally:
        for w in made:
            w.close()
            w.deleteLater()


def test_the_window_opens_after_its_cars_block_and_compiles_the_other_behind_it(qapp, monkeypatch, tmp_path):
    """``carbench --preset sedan_single_track``, a first run: the single-track block is compiled (or loaded) before
    the window, in the notice's thread; once the window shows, every block in a process of its own
    (physics.kernel.KINDS), which leaves them in the cache, so that a four-wheel preset opened later loads its block
    instead of compiling it in the window's thread."""
    code, calls, started = _run_app(monkeypatch, tmp_path, preset="sedan_single_track")
    assert code == 0
    assert calls == [(("two",), "carbench-compile", False)]  # before the window shows or its timer runs
    ((shown, process),) = started
    assert shown and process.wait(timeout=300) == 0  # every block compiled, or loaded, and the process gone


def test_a_script_of_the_other_kind_has_its_block_before_the_first_frame(qapp, monkeypatch, tmp_path):
    """``carbench --script abs_in_a_bend.toml`` (a single-track car) on the sedan's start: the script's car had its
    block compiled on the first frame, in the window's thread, with no notice (7 s of a frozen window); then the
    sedan's block was compiled first for nothing. The script's car's block alone, with the notice, before the timer."""
    from physics.presets import scripts_dir

    code, calls, started = _run_app(monkeypatch, tmp_path, script=str(scripts_dir() / "abs_in_a_bend.toml"))
    assert code == 0
    assert calls == [(("two",), "carbench-compile", False)]
    assert len(started) == 1 and started[0][1].wait(timeout=300) == 0  # every start fills the cache behind it


def test_the_last_sessions_car_of_the_other_kind_has_its_block_before_the_first_frame(qapp, monkeypatch, tmp_path):
    """Plain ``carbench`` after a session on a single-track car: the window opens on that car, and its block is the
    one compiled, before the timer runs."""
    code, calls, _ = _run_app(monkeypatch, tmp_path, settings={"last_preset": "sedan_single_track"})
    assert code == 0
    assert calls == [(("two",), "carbench-compile", False)]


def test_a_process_that_cannot_start_leaves_the_window_to_run_without_it(monkeypatch):
    """A fork that fails (no memory, an interpreter with no path) raised out of run_app and the window never opened."""

    def refused(*args, **kwargs):
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(app.subprocess, "Popen", refused)
    assert app.compile_the_rest() is None


def test_a_preset_the_script_replaces_is_refused_in_one_line(qapp, monkeypatch, tmp_path, capsys):
    """``carbench --preset tail_happy --script iso4138_circle``: the script loaded its own car, the sedan, and the
    --preset given was dropped without a word. Now one line and exit 2 (the same preset as the script's opens, below)."""
    from physics.presets import scripts_dir

    script = str(scripts_dir() / "iso4138_circle.toml")
    code, calls, _ = _run_app(monkeypatch, tmp_path, preset="tail_happy", script=script)
    err = capsys.readouterr().err
    assert code == 2 and calls == []
    assert err.startswith(f"carbench: --preset tail_happy: the script {script} drives its own car, sedan; ")
    assert err.count("\n") == 1


def test_a_preset_the_same_as_the_scripts_opens_the_window(qapp, monkeypatch, tmp_path):
    from physics.presets import scripts_dir

    code, _, started = _run_app(monkeypatch, tmp_path, preset="sedan", script=str(scripts_dir() / "iso4138_circle.toml"))
    assert code == 0
    for _, process in started:
        assert process.wait(timeout=300) == 0
