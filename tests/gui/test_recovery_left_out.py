"""The question to restore after a crash says what of the file its car refuses, before anything is restored."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from workbench.gui.recovery import SHOWN_LEFT_OUT, _ask
from workbench.runs.recovery import Recovery


def asked(monkeypatch, recovery: Recovery) -> str:
    shown = []

    class Box:  # the question, answered without showing it (a modal box would wait for a click)
        def __init__(self, parent, title, text, buttons, default):
            shown.append(text)

        def exec(self):
            return int(QMessageBox.StandardButton.Yes.value)

    monkeypatch.setattr("workbench.gui.main_window.keys_safe_question", Box)
    assert _ask(None, recovery)
    (text,) = shown
    return text


def test_the_question_lists_what_the_car_refuses(monkeypatch):
    lines = ("recording's edit of tyres.wings at 0.183 s left out: the sedan car has no such parameter",
             "recording's edit of tyres.mu at 0.200 s left out: expected a number, got str 'x'")
    text = asked(monkeypatch, Recovery("sedan", 0.01, {"tyres.mu": 0.9}, dropped=lines))
    assert "Restore 1 unsaved parameter edit of sedan" in text
    assert "Left out (the car refuses them):\n\u2022 " + lines[0] + "\n\u2022 " + lines[1] in text
    many = tuple(f"unsaved edit of a.b{i} left out: the sedan car has no such parameter" for i in range(12))
    text = asked(monkeypatch, Recovery("sedan", 0.01, dropped=many))
    assert text.count("\u2022") == SHOWN_LEFT_OUT + 1 and f"and {12 - SHOWN_LEFT_OUT} more" in text
    assert "Left out" not in asked(monkeypatch, Recovery("sedan", 0.01, {"tyres.mu": 0.9}))


def test_the_question_speaks_of_a_recording_only_where_there_is_one(monkeypatch):
    from workbench.scripts.format import parse_script

    text = asked(monkeypatch, Recovery("sedan", 0.01, {"tyres.mu": 0.9}))
    assert "recording" not in text  # only an edit to restore: no word of a recording (a review found one)
    script = parse_script('[script]\nname = "r"\npreset = "sedan"\nduration = 1.0\n', "<recovery>")
    text = asked(monkeypatch, Recovery("sedan", 0.01, {}, recording=script))
    assert "A restored recording can be replayed or saved from the recorder." in text
