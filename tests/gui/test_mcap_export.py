"""The window's File > Export telemetry as MCAP: the history so far, read back with mcap's reader."""

from __future__ import annotations

import json

from mcap.reader import make_reader
from PySide6.QtCore import Qt

from physics.presets import scripts_dir
from workbench.gui.testing import drive


def _topics(path):
    with open(path, "rb") as f:
        out: dict[str, list] = {}
        for _, channel, message in make_reader(f).iter_messages():
            out.setdefault(channel.topic, []).append(json.loads(message.data))
        return out


def test_export_writes_the_driven_history(carbench_window, qtbot, tmp_path):
    window = carbench_window
    assert window.export_mcap_action in window.menuBar().actions()[0].menu().actions()
    window.car_view.setFocus()
    qtbot.keyPress(window.car_view, Qt.Key.Key_Up)
    window.model.advance(120)
    qtbot.keyRelease(window.car_view, Qt.Key.Key_Up)
    assert window.export_mcap(tmp_path / "drive.mcap")
    topics = _topics(tmp_path / "drive.mcap")
    frames = topics["/session/telemetry"]
    log = window.model.session.log
    assert len(frames) == log.frames == 120
    assert [f["speed"] for f in frames] == log.column("speed").tolist()
    assert topics["/session/parameters"][0]["stamp"]["preset"] == "sedan"
    assert "/session/verdicts" not in topics  # nothing replayed, nothing judged


def test_export_after_a_replay_carries_its_verdicts(carbench_window, tmp_path):
    script = scripts_dir() / "clutch_coast.toml"
    verdicts = drive(carbench_window, script, chunk=24)
    assert carbench_window.export_mcap(tmp_path / "replay.mcap")
    topics = _topics(tmp_path / "replay.mcap")
    assert len(topics["/clutch-coast/verdicts"]) == len(verdicts)
    assert all(v["passed"] for v in topics["/clutch-coast/verdicts"])
