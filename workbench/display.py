"""Whether a window can open here: the display named by the environment is probed before Qt starts.

Qt aborts the whole process (exit 134) when ``DISPLAY`` or ``WAYLAND_DISPLAY`` names a display
that is gone, before any Python code can catch it. So ``carbench`` connects to the display's
socket itself first, with a short timeout, and falls back to the headless demo with the reason.
It does the same when Qt's Wayland platform plugin could not load here (a system library it needs
is missing: Qt aborts then too), naming the libraries. Headless: no Qt import here.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import socket
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass

TIMEOUT = 1.0  # seconds for one connection attempt

# The system libraries Qt's Wayland platform plugin loads (PySide6's Qt/plugins/platforms/libqwayland.so and the
# libQt6WaylandClient it links, besides Qt's own libraries and the C and C++ runtimes), with the Debian packages
# that have them. Where one is missing Qt aborts the process ("Could not load the Qt platform plugin "wayland""),
# as it does for a display that is gone: a machine with a compositor's socket but no libwayland-cursor0 did.
WAYLAND_LIBRARIES = {"libwayland-client.so.0": "libwayland-client0", "libwayland-cursor.so.0": "libwayland-cursor0",
                     "libxkbcommon.so.0": "libxkbcommon0", "libGL.so.1": "libgl1"}


@dataclass(frozen=True)
class DisplayProbe:
    """``platform``: the Qt platform that can open a window ("xcb", "wayland", "native"), or None with ``reason``."""

    platform: str | None
    reason: str = ""


def probe_display(env: Mapping[str, str] | None = None, platform: str | None = None,
                  timeout: float = TIMEOUT) -> DisplayProbe:
    """Find out, without Qt, whether a window could be shown with this environment."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    qpa = env.get("QT_QPA_PLATFORM", "").split(":")[0]
    if qpa in ("offscreen", "minimal", "vnc"):
        return DisplayProbe(None, f"no display found (QT_QPA_PLATFORM={qpa} shows no window)")
    if platform in ("darwin", "win32"):
        return DisplayProbe("native")
    wayland, x11 = env.get("WAYLAND_DISPLAY", ""), env.get("DISPLAY", "")
    if not wayland and not x11:
        return DisplayProbe(None, "no display found (neither DISPLAY nor WAYLAND_DISPLAY is set)")
    reasons = []
    if wayland and qpa in ("", "wayland"):
        problem = wayland_problem(wayland, env.get("XDG_RUNTIME_DIR", ""), timeout)
        if problem is None and platform == "linux":
            problem = wayland_plugin_problem(wayland)
        if problem is None:
            return DisplayProbe("wayland")
        reasons.append(problem)
    if x11 and qpa in ("", "xcb"):
        problem = x11_problem(x11, timeout)
        if problem is None:
            return DisplayProbe("xcb")
        reasons.append(problem)
    if not reasons:
        return DisplayProbe(None, f"QT_QPA_PLATFORM={qpa} names no display that is set")
    return DisplayProbe(None, "; ".join(reasons))


def wayland_problem(name: str, runtime_dir: str, timeout: float = TIMEOUT) -> str | None:
    """None when a Wayland compositor listens at ``name``; else why not."""
    path = name if os.path.isabs(name) else os.path.join(runtime_dir, name)
    if not os.path.isabs(path):
        return f"WAYLAND_DISPLAY={name}: XDG_RUNTIME_DIR is not set, so its socket cannot be found"
    problem = _connect(socket.AF_UNIX, path, timeout)
    return None if problem is None else f"WAYLAND_DISPLAY={name}: no compositor answers at {path} ({problem})"


def missing_wayland_libraries() -> list[str]:
    """The libraries of :data:`WAYLAND_LIBRARIES` the dynamic loader cannot load here (by their file names)."""
    missing = []
    for library in WAYLAND_LIBRARIES:
        try:
            ctypes.CDLL(library)
        except OSError:
            missing.append(library)
    return missing


def wayland_plugin_problem(name: str) -> str | None:
    """None when Qt's Wayland platform plugin could load its system libraries; else why not, naming them and their
    Debian packages. Loading them is a dlopen each, no subprocess; asked only when a compositor answers."""
    missing = missing_wayland_libraries()
    if not missing:
        return None
    packages = " ".join(WAYLAND_LIBRARIES[library] for library in missing)
    return (f"WAYLAND_DISPLAY={name}: Qt's Wayland plugin cannot load here ({', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing; on Debian or Ubuntu: sudo apt install {packages})")


def x11_problem(display: str, timeout: float = TIMEOUT) -> str | None:
    """None when an X server answers at ``display`` (and accepts us, where libxcb can tell); else why not."""
    host, sep, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not sep or not number.isdigit():
        return f"DISPLAY={display}: not a display name like :0 or host:0"
    if host in ("", "unix") or host.startswith("/"):
        path = f"/tmp/.X11-unix/X{number}"
        problem = _connect(socket.AF_UNIX, "\0" + path, timeout) if sys.platform == "linux" else "no"
        if problem is not None:
            problem = _connect(socket.AF_UNIX, path, timeout)
    else:
        problem = _connect(socket.AF_INET6 if ":" in host else socket.AF_INET, (host, 6000 + int(number)), timeout)
    if problem is not None:
        return f"DISPLAY={display}: no X server answers ({problem})"
    refused = _xcb_refuses(display, timeout)
    return None if refused is None else f"DISPLAY={display}: {refused}"


def _connect(family: int, address, timeout: float) -> str | None:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(address)
    except (OSError, ValueError) as exc:
        return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return None


_XCB_ERRORS = {1: "the connection failed", 2: "an extension is missing", 3: "out of memory",
               4: "a request was too long", 5: "the display could not be parsed", 6: "no such screen"}


def _xcb_refuses(display: str, timeout: float) -> str | None:
    """Why the X server refuses a connection (e.g. authorisation), when libxcb is there to ask; else None."""
    name = ctypes.util.find_library("xcb")
    if name is None:
        return None
    outcome: list[str | None] = []

    def attempt() -> None:
        try:
            xcb = ctypes.CDLL(name)
            xcb.xcb_connect.restype = ctypes.c_void_p
            xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
            xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
            xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
            conn = xcb.xcb_connect(display.encode(), None)
            error = xcb.xcb_connection_has_error(conn)
            xcb.xcb_disconnect(conn)
            outcome.append(None if error == 0 else f"the X server refused the connection "
                                                   f"({_XCB_ERRORS.get(error, f'error {error}')})")
        except (OSError, AttributeError):
            outcome.append(None)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        return "the X server does not answer"
    return outcome[0] if outcome else None
