"""`carbench` with no arguments: the window where one can open, the headless demo (and why) where not."""

import ctypes.util

import pytest

from workbench import cli
from workbench.display import DisplayProbe


def test_no_display_runs_the_demo_and_says_so(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(cli.sys, "platform", "linux")
    assert cli.main([]) == cli.EXIT_OK
    captured = capsys.readouterr()
    assert "no display found" in captured.err and "running the headless demo" in captured.err
    assert "expectations:" in captured.out and "0 failed" in captured.out


def test_offscreen_counts_as_no_display(monkeypatch):
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert not cli.has_display()


@pytest.fixture
def x11(monkeypatch):
    monkeypatch.setattr(cli.sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)


def test_missing_x11_libraries_are_named_with_their_packages(x11, monkeypatch):
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None if name == "xcb-cursor" else f"lib{name}.so")
    assert cli.missing_x11_libraries() == ["libxcb-cursor0"]


def test_a_display_without_the_libraries_explains_and_runs_the_demo(x11, monkeypatch, capsys):
    monkeypatch.setattr(cli, "probe_display", lambda: DisplayProbe("xcb"))  # a live X server
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    opened = []
    monkeypatch.setattr(cli, "_demo", lambda: opened.append("demo") or cli.EXIT_OK)
    assert cli.main([]) == cli.EXIT_OK
    err = capsys.readouterr().err
    assert "sudo apt install libxcb-cursor0" in err and opened == ["demo"]


def test_a_wayland_session_that_falls_back_to_x11_is_checked_for_the_x11_libraries(x11, monkeypatch, capsys):
    # With WAYLAND_DISPLAY set the xcb check was skipped, also where the probe fell back to X11 (a compositor whose Qt
    # plugin cannot load): a missing xcb library then aborted Qt after all.
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-1")
    monkeypatch.setattr(cli, "probe_display", lambda: DisplayProbe("xcb"))
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None if name == "xcb-cursor" else f"lib{name}.so")
    opened = []
    monkeypatch.setattr(cli, "_demo", lambda: opened.append("demo") or cli.EXIT_OK)
    assert cli.main([]) == cli.EXIT_OK
    assert "sudo apt install libxcb-cursor0" in capsys.readouterr().err and opened == ["demo"]
    monkeypatch.delenv("QT_QPA_PLATFORM")  # Qt's own choice in a Wayland session: Wayland first, not checked here
    assert cli.missing_x11_libraries() == []
