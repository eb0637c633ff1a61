"""The window's number boxes (workbench.gui.number_spin): a typed exponent, a point whatever the locale, and the
box's decimals."""

from PySide6.QtCore import QLocale
from PySide6.QtGui import QValidator

from workbench.gui.number_spin import NumberSpin


def _box(qtbot, decimals: int = 2) -> NumberSpin:
    box = NumberSpin()
    qtbot.addWidget(box)
    box.setDecimals(decimals)
    box.setRange(0.0, 5000.0)
    box.setSuffix(" kg")
    return box


def test_a_box_writes_and_reads_a_point_under_a_comma_locale(qtbot):
    """Under a German locale Qt writes "1092,00 kg", which float() does not read: every key typed into such a box
    was refused."""
    before = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.German, QLocale.Country.Germany))
    try:
        box = _box(qtbot)
        box.setValue(1092.0)
        assert box.text() == "1092.00 kg"
        assert box.validate(box.text(), 0)[0] == QValidator.State.Acceptable
        box.lineEdit().setText("1.2e3 kg")
        box.interpretText()
        assert box.value() == 1200.0
    finally:
        QLocale.setDefault(before)


def test_a_typed_value_keeps_the_boxs_decimals_and_its_range(qtbot):
    box = _box(qtbot)
    box.lineEdit().setText("0.005 kg")
    box.interpretText()
    assert box.value() == 0.01 and box.text() == "0.01 kg"  # what it shows is what it holds
    for text, state in (("1e", QValidator.State.Intermediate), ("-", QValidator.State.Intermediate),
                        ("6e3 kg", QValidator.State.Intermediate), ("inf", QValidator.State.Intermediate),
                        ("nan", QValidator.State.Intermediate), ("12x", QValidator.State.Intermediate),
                        ("  42 kg", QValidator.State.Acceptable), ("42kg", QValidator.State.Acceptable)):
        assert box.validate(text, 0)[0] == state, text


def test_the_boxs_own_unit_typed_with_the_number_is_taken(qtbot):
    """Typing "1600 kg" over the selected number of "1600 kg" gave "1600 kg kg", refused as "not a finite number"."""
    box = _box(qtbot)
    for text in ("1600 kg kg", "1600 kg kg ", "1600kg kg", "1600 kg"):
        assert box.validate(text, 0)[0] == QValidator.State.Acceptable, text
        box.lineEdit().setText(text)
        box.interpretText()
        assert box.value() == 1600.0, text
    assert box.validate("1600 lb kg", 0)[0] == QValidator.State.Intermediate  # another unit is no number here
