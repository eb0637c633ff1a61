"""`carbench devices` (SPEC 5): the controllers SDL2 sees with their axes and buttons, headless; one line and
exit 2 where SDL2 cannot be loaded; and the replay path never loads SDL2."""

from __future__ import annotations

import ctypes.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.controllers import sdl

REPO = Path(__file__).resolve().parents[2]


def test_devices_lists_each_controller_with_its_axes_buttons_and_starting_mapping(capsys, virtual_gamepad,
                                                                                  virtual_wheel):
    virtual_gamepad.set_button("start", True)
    virtual_wheel.set_axis(0, -12345)
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("SDL 2.") and ": 2 devices" in out.splitlines()[0]
    assert "1. carbench virtual gamepad  (gamepad, GUID ff00" in out
    assert "axes (6): leftx 0, lefty 0, rightx 0, righty 0, lefttrigger 0, righttrigger 0" in out
    assert "start (down)" in out and "leftx -> steer" in out and "righttrigger -> throttle_pedal" in out
    assert "2. carbench virtual wheel  (wheel, GUID" in out
    assert "axes (4): axis 0 -12345, axis 1 32767, axis 2 32767, axis 3 32767" in out
    assert "hat 0 left" in out and "axis 3 -> clutch_pedal" in out and "button 0 -> gear_up" in out


def test_devices_json(capsys, virtual_gamepad):
    assert main(["devices", "--json"]) == 0
    (pad,) = json.loads(capsys.readouterr().out)["devices"]
    assert pad["kind"] == "gamepad" and len(pad["guid"]) == 32
    assert {a["name"]: a["range"] for a in pad["axes"]}["lefttrigger"] == [0, 32767]
    assert pad["default_mapping"]["buttons"]["a"] == "handbrake"


def test_devices_with_nothing_plugged_in(capsys):
    assert main(["devices"]) == 0
    assert "no game controller, wheel or joystick is plugged in" in capsys.readouterr().out


@pytest.mark.parametrize(("error", "reason"), [(ModuleNotFoundError("No module named 'sdl2'", name="sdl2"),
                                                "pysdl2 is not installed"),
                                               (RuntimeError("could not find any library for SDL2"),
                                                "the SDL2 library cannot be loaded")])
def test_devices_without_sdl2_says_why_in_one_line(capsys, monkeypatch, error, reason):
    def fail():
        raise error

    monkeypatch.setattr(sdl, "_import_sdl2", fail)
    assert main(["devices"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(f"carbench: devices: {reason}")
    assert captured.err.count("\n") == 1


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120,
                          env={**os.environ, **env}, stdin=subprocess.DEVNULL)


@pytest.mark.skipif(ctypes.util.find_library("SDL2") is not None, reason="this machine has a system SDL2 library")
def test_devices_where_the_library_is_missing(tmp_path):
    # pysdl2 installed, but neither pysdl2-dll nor a system SDL2: what pysdl2 alone gives
    code = ("import sys\nclass _No:\n    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'sdl2dll': raise ImportError('not installed here')\n"
            "sys.meta_path.insert(0, _No())\nfrom workbench.cli import main\nsys.exit(main(['devices']))\n")
    done = run_python(code, PYSDL2_DLL_PATH=str(tmp_path))  # an empty folder
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("carbench: devices: the SDL2 library cannot be loaded (could not find any library")


def test_the_replay_path_never_loads_sdl2():
    code = ("import contextlib, io, sys\nfrom workbench.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    codes = [main(['replay', 'clutch_coast', 'full_lock_left']), main(['presets']),\n"
            "             main(['compare', 'presets/scripts/clutch_coast.toml', '--vs-preset', 'manual003'])]\n"
            "assert codes == [0, 0, 0], codes\n"
            "print('SDL:', sorted(m for m in sys.modules if m.split('.')[0] in ('sdl2', 'sdl2dll')))\n")
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert "SDL: []" in done.stdout


def _attach(sdl_lib, joystick_type: int, name: bytes, axes: int = 2, buttons: int = 2):
    """A virtual joystick of SDL's ``joystick_type``; returns (its device index, its name buffer SDL keeps)."""
    desc = sdl_lib.SDL_VirtualJoystickDesc()
    desc.version = sdl_lib.SDL_VIRTUAL_JOYSTICK_DESC_VERSION
    desc.type = joystick_type
    desc.naxes, desc.nbuttons = axes, buttons
    keep = ctypes.c_char_p(name)
    desc.name = keep
    return sdl_lib.SDL_JoystickAttachVirtualEx(ctypes.byref(desc)), keep


def test_every_kind_sdl_reports_is_named_as_sdl_names_it(capsys):
    """SDL_JoystickType counts from 1 (GAMECONTROLLER) to 9 (THROTTLE): a "joystick" sat at the third place of the
    kinds, and an arcade stick was named a joystick, a flight stick an arcade stick ... a throttle an arcade pad."""
    lib = sdl.load_sdl()
    sdl._init(lib, lib.SDL_INIT_JOYSTICK)
    kinds = {"ARCADE_STICK": "arcade stick", "FLIGHT_STICK": "flight stick", "DANCE_PAD": "dance pad",
             "GUITAR": "guitar", "DRUM_KIT": "drum kit", "ARCADE_PAD": "arcade pad", "THROTTLE": "throttle",
             "UNKNOWN": "joystick"}
    attached = [_attach(lib, getattr(lib, f"SDL_JOYSTICK_TYPE_{t}"), f"kind {t}".encode()) for t in kinds]
    try:
        assert main(["devices", "--json"]) == 0
        listed = {d["name"]: d["kind"] for d in json.loads(capsys.readouterr().out)["devices"]}
        assert {f"kind {t}": kind for t, kind in kinds.items()} == {n: k for n, k in listed.items()
                                                                     if n.startswith("kind ")}
    finally:
        for index, _ in reversed(attached):
            lib.SDL_JoystickDetachVirtual(index)
        lib.SDL_QuitSubSystem(lib.SDL_INIT_JOYSTICK)
