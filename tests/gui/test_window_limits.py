"""The window's loaders refuse what the command line refuses (devices, FIFOs, huge files, runaway
scripts) with the message, and keep what was loaded and driven."""

from __future__ import annotations

import os

import pytest

from physics.presets import scripts_dir
from workbench.gui.testing import hold

HEAD = '[script]\nname = "w"\npreset = "sedan"\n'


def make(kind, tmp_path):
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo.toml")
        return tmp_path / "fifo.toml", "is a FIFO"
    if kind == "dir":
        (tmp_path / "d.toml").mkdir()
        return tmp_path / "d.toml", "is a directory"
    if kind == "big":
        with open(tmp_path / "big.toml", "wb") as f:
            f.truncate(17 * 1024 * 1024)
        return tmp_path / "big.toml", "larger than a script file may be"
    if kind == "device":
        return "/dev/zero", "is a device"
    texts = {"duration-1e9": (HEAD + "duration = 1e9\n", "longer than a script may be"),
             "dt-1e-12": (HEAD + "duration = 2.0\ndt = 1e-12\n", "[script] dt"),
             "over-budget": (HEAD + "duration = 80000.0\n", "memory budget")}
    text, words = texts[kind]
    (tmp_path / f"{kind}.toml").write_text(text)
    return tmp_path / f"{kind}.toml", words


@pytest.mark.parametrize("kind", ["device", "fifo", "dir", "big", "duration-1e9", "dt-1e-12", "over-budget"])
def test_the_script_loader_refuses_and_keeps_the_drive(carbench_window, tmp_path, kind):
    path, words = make(kind, tmp_path)
    hold(carbench_window, {"throttle"}, 60)
    session = carbench_window.model.session
    before = (session.preset.name, session.log.frames, session.program)
    assert carbench_window.load_script(path) is False
    title, message = carbench_window.shown_errors[-1]
    assert str(path) in message and words in message and "\n" not in message
    assert (session.preset.name, session.log.frames, session.program) == before


@pytest.mark.parametrize("kind, words", [("device", "not a regular file"), ("fifo", "not a regular file"),
                                         ("dir", "is a directory")])
def test_the_preset_loader_refuses_special_files(carbench_window, tmp_path, kind, words):
    path, _ = make(kind, tmp_path)
    assert carbench_window.load_preset(path) is False
    assert words in carbench_window.shown_errors[-1][1]
    assert carbench_window.model.session.preset.name == "sedan"


def test_a_script_with_a_byte_order_mark_loads(carbench_window, tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + (scripts_dir() / "braking_stop.toml").read_bytes())
    assert carbench_window.load_script(path), carbench_window.shown_errors
