"""A ghost's name too long for its room drops its bracketed qualifiers one at a time, the last first (every qualifier
went at once: "ref 1 (before frame 300) [driven, no script]" read "ref 1" where "ref 1 (before frame 300)" fitted)."""

from PySide6.QtGui import QFont, QFontMetrics

from workbench.gui.ghosts import shortened


def test_qualifiers_go_one_at_a_time_the_last_first(qapp):
    metrics = QFontMetrics(QFont())
    name = "ref 1 (before frame 300) [driven, no script]"
    width = metrics.horizontalAdvance
    assert shortened(name, width(name), metrics) == name
    one_less = "ref 1 (before frame 300)"
    for room in (width(name) - 1, width(one_less)):
        assert shortened(name, room, metrics) == one_less, room
    assert shortened(name, width(one_less) - 1, metrics) == "ref 1"
    assert shortened(name, width("ref 1"), metrics) == "ref 1"
    cut = shortened(name, width("ref 1") - 1, metrics)  # then the name itself, cut at its end
    assert cut.endswith("\u2026") and width(cut) <= width("ref 1") - 1
    # a qualifier in the middle of a name goes as well, the words around it kept apart
    assert shortened("ref (a b c) two", width("ref two"), metrics) == "ref two"
    assert shortened("[only a qualifier]", 30, metrics).endswith("\u2026")


def test_another_scripts_name_goes_before_the_note_that_there_is_one(qapp):
    metrics = QFontMetrics(QFont())
    name = "ref 2 (before frame 1170) [other script: iso7401_step]"
    assert shortened(name, metrics.horizontalAdvance(name), metrics) == name
    short = "ref 2 (before frame 1170) [other script]"
    assert shortened(name, metrics.horizontalAdvance(short), metrics) == short
    # then as any name: the last qualifier first
    assert shortened(name, metrics.horizontalAdvance(short) - 1, metrics) == "ref 2 (before frame 1170)"
