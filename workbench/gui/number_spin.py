"""A number box that takes a number as it is typed, exponent included.

QDoubleSpinBox's own validator knows only fixed notation: it drops the keys it refuses, so typing
``1e3`` into it gave 13. :class:`NumberSpin` takes what Python's ``float`` reads (``1e3``, ``2.5E-4``,
``.5``, ``-0``), within the box's range, with its prefix and suffix (a unit) around it, and writes its
value with a point whatever the locale; a text on its way to a number (``1e``, ``-``, ``.``) or out of
range is intermediate, as in Qt's own, and leaving the box puts the value it had back. A comma typed
where the point goes is taken as the point.
"""

from __future__ import annotations

import math
import re

from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QDoubleSpinBox

_TYPING = re.compile(r"[+-]?(\d*\.?\d*)([eE][+-]?\d*)?")
"""Every text on the way to a number in Python's notation (and some that never get there, such as "e5")."""


class NumberSpin(QDoubleSpinBox):
    """A QDoubleSpinBox that reads exponent notation too (see the module's docstring)."""

    def _number(self, text: str) -> str:
        prefix, suffix = self.prefix(), self.suffix()
        if prefix and text.startswith(prefix):
            text = text[len(prefix):]
        if suffix and text.endswith(suffix):
            text = text[:-len(suffix)]
        elif suffix.strip() and text.endswith(suffix.strip()):
            text = text[:-len(suffix.strip())]
        return text.strip()

    def validate(self, text: str, pos: int):
        if "," in text and "." not in text:
            # A decimal comma (a German keyboard's keypad gives one) is the point this box writes: dropped as an
            # invalid key, "1,5" read 15.
            text = text.replace(",", ".")
        number = self._number(text)
        if not _TYPING.fullmatch(number):
            return QValidator.State.Invalid, text, pos
        try:
            value = float(number)
        except ValueError:
            return QValidator.State.Intermediate, text, pos
        if not math.isfinite(value):
            return QValidator.State.Intermediate, text, pos
        if self.minimum() <= value <= self.maximum():
            return QValidator.State.Acceptable, text, pos
        return QValidator.State.Intermediate, text, pos

    def valueFromText(self, text: str) -> float:
        if self._number(text) == self._number(self.textFromValue(self.value())):
            # The text on show, given back unchanged (Return in a box typed nothing into): the value it stands for,
            # not that value rounded to the digits shown (a steering lock of 0.55 rad came back as 0.5500056).
            return self.value()
        try:
            value = float(self._number(text))
        except ValueError:
            return self.value()
        # To the box's decimals, as it shows the value and as Qt's own reading keeps it.
        # (+ 0.0: "-0" is 0, not a negative zero kept as the car's value)
        return round(value, self.decimals()) + 0.0 if math.isfinite(value) else self.value()

    def textFromValue(self, value: float) -> str:
        # With a point whatever the locale: the box reads what float() reads (a German locale's "1092,0" not).
        return f"{value:.{self.decimals()}f}"
