"""A Wayland compositor answers, but Qt's Wayland platform plugin cannot load its system libraries: no window.

Qt then aborts the process ("Could not load the Qt platform plugin "wayland"", exit 134), so the probe that runs
before Qt says so, naming the libraries, and ``carbench`` runs the headless demo. The compositor is a Unix socket
that only listens: no display or compositor is needed.
"""

from __future__ import annotations

import ctypes
import os
import socket
import tempfile

import pytest

from workbench import cli, display
from workbench.display import DisplayProbe, probe_display

MISSING = "libcarbench-no-such-library.so.0"


@pytest.fixture
def compositor():
    """A listening Unix socket standing for a compositor: the environment that names it."""
    with tempfile.TemporaryDirectory(prefix="cbw") as runtime:  # short: a socket's path has at most 107 bytes
        path = os.path.join(runtime, "wayland-test")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            server.bind(path)
            server.listen()
            yield {"WAYLAND_DISPLAY": "wayland-test", "XDG_RUNTIME_DIR": runtime}


def _loadable(library: str) -> bool:
    try:
        ctypes.CDLL(library)
    except OSError:
        return False
    return True


def test_a_compositor_whose_plugin_cannot_load_is_no_display(compositor, monkeypatch):
    monkeypatch.setattr(display, "WAYLAND_LIBRARIES", {"libc.so.6": "libc6", MISSING: "carbench-missing"})
    probe = probe_display(compositor, platform="linux")
    assert probe.platform is None
    assert MISSING in probe.reason and "sudo apt install carbench-missing" in probe.reason
    assert "libc.so.6" not in probe.reason and "WAYLAND_DISPLAY=wayland-test" in probe.reason


def test_a_compositor_whose_plugin_loads_is_used(compositor, monkeypatch):
    monkeypatch.setattr(display, "WAYLAND_LIBRARIES", {"libc.so.6": "libc6"})
    assert probe_display(compositor, platform="linux") == DisplayProbe("wayland")


# What PySide6 6.x's Qt/plugins/platforms/libqwayland.so and its libQt6WaylandClient.so.6 need (readelf -d)
# besides Qt's own libraries and the C and C++ runtimes.
PLUGIN_NEEDS = ("libwayland-client.so.0", "libwayland-cursor.so.0", "libxkbcommon.so.0", "libGL.so.1")


def test_the_probe_agrees_with_the_loader_here(compositor):
    """On this machine: wayland only where every library the plugin needs loads (one without libwayland-cursor0,
    with a compositor's socket, was chosen wayland and Qt aborted)."""
    missing = [library for library in PLUGIN_NEEDS if not _loadable(library)]
    probe = probe_display(compositor, platform="linux")
    assert probe.platform == (None if missing else "wayland"), probe
    assert all(library in probe.reason for library in missing), probe
    assert set(PLUGIN_NEEDS) <= set(display.WAYLAND_LIBRARIES)


def test_with_x11_beside_it_the_probe_falls_back_to_x11(compositor, monkeypatch):
    monkeypatch.setattr(display, "WAYLAND_LIBRARIES", {MISSING: "carbench-missing"})
    monkeypatch.setattr(display, "x11_problem", lambda name, timeout=display.TIMEOUT: None)  # a live X server
    assert probe_display({**compositor, "DISPLAY": ":0"}, platform="linux") == DisplayProbe("xcb")


def test_an_x11_session_loads_nothing_for_wayland(monkeypatch):
    def loaded():
        raise AssertionError("the Wayland plugin's libraries were looked for in an X11 session")

    monkeypatch.setattr(display, "missing_wayland_libraries", loaded)
    monkeypatch.setattr(display, "x11_problem", lambda name, timeout=display.TIMEOUT: None)
    assert probe_display({"DISPLAY": ":0"}, platform="linux") == DisplayProbe("xcb")


def test_carbench_says_why_in_one_line_and_runs_the_demo(compositor, monkeypatch, capsys):
    monkeypatch.setattr(display, "WAYLAND_LIBRARIES", {MISSING: "carbench-missing"})
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    for name, value in compositor.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(cli.sys, "platform", "linux")
    ran = []
    monkeypatch.setattr(cli, "_demo", lambda: ran.append("demo") or cli.EXIT_OK)
    monkeypatch.setattr(cli, "_gui", lambda *args: pytest.fail("the window was opened: Qt would abort"))
    assert cli.main([]) == cli.EXIT_OK
    said = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert ran == ["demo"]
    assert len(said) == 1 and said[0].startswith("carbench: ") and MISSING in said[0], said
    assert "headless demo" in said[0]
