"""ElidedLabel.clear() clears the whole text too (QLabel's clear left it, to come back elided at the next resize): a
status bar slot made of one can be cleared by a timer as a QLabel is."""

from workbench.gui.elided_label import ElidedLabel


def test_clear_takes_the_whole_text_and_the_tooltip(qtbot):
    label = ElidedLabel()
    qtbot.addWidget(label)
    text = "the recording stopped (12.3 s, not saved yet: File \u2192 Save recording)"
    label.setText(text)
    label.set_tip(text)
    label.resize(80, 20)
    label.show()
    assert label.is_elided() and label.toolTip() == text
    label.clear()
    label.resize(600, 20)  # a resize elides the whole text again: there is none
    assert (label.text(), label.full_text(), label.toolTip()) == ("", "", "")
    assert not label.is_elided()
