"""The question to restore after a crash says what of the file its car refuses, before anything is restored."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QMessageBox

from workbench.gui.recovery import offer_restore
from workbench.runs.live import LiveSession
from workbench.runs.recovery import RecoveryStore


def test_the_question_lists_what_the_car_refuses_and_the_rest_is_restored(carbench_window, tmp_path, monkeypatch):
    s = LiveSession("sedan")
    s.start_recording()
    for _ in range(20):
        s.step({"throttle"})
    store = RecoveryStore(tmp_path, pid=999_999_996)  # a process that does not exist: an orphan
    store.keep(s)
    with open(store.path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"frames": 30, "sets": [[22, None, {"tyres.wings": 1.0}],
                                                        [24, None, {"tyres.mu": "x"}]]}) + "\n")
    shown = []

    class Box:  # the question, answered Yes without showing it (a modal box would wait for a click)
        def __init__(self, parent, title, text, buttons, default):
            shown.append(text)

        def exec(self):
            return int(QMessageBox.StandardButton.Yes.value)

    monkeypatch.setattr("workbench.gui.main_window.keys_safe_question", Box)
    restored = offer_restore(carbench_window, RecoveryStore(tmp_path))
    (text,) = shown
    assert "Left out (the car refuses them):" in text
    assert "tyres.wings" in text and "no such parameter" in text and "expected a number, got str 'x'" in text
    session = carbench_window.model.session
    assert restored is not None and session.last_recording is restored.recording
    assert session.program is not None and session.program.frames == 30  # it compiles: replayable and savable
    assert "2 things the car refuses left out" in carbench_window.status_message.toolTip()
