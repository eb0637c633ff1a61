"""A number box that takes a number as it is typed, exponent included.

QDoubleSpinBox's own validator knows only fixed notation: it drops the keys it refuses, so typing
``1e3`` into it gave 13. :class:`NumberSpin` takes what Python's ``float`` reads (``1e3``, ``2.5E-4``,
``.5``, ``-0``), within the box's range, with its prefix and suffix (a unit) around it, and writes its
value with a point whatever the locale; any other text (on its way to a number, ``1e``, ``-``, ``.``; out of
range; or no number, ``12x``, ``nan``) is intermediate, kept as typed for the box's owner to refuse with its
reason, and leaving the box puts the value it had back. Where the locale
writes a decimal comma, a comma typed where the point goes is taken as the point; elsewhere commas are read only
as thousands separators in whole groups (``1,500``), and any other comma is refused.
"""

from __future__ import annotations

import math
import re

from PySide6.QtCore import QLocale
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QDoubleSpinBox

_TYPING = re.compile(r"[+-]?(\d*\.?\d*)([eE][+-]?\d*)?")
"""Every text on the way to a number in Python's notation (and some that never get there, such as "e5")."""


_GROUPED = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?")
"""A number written in thousands with commas (where the point is the decimal point)."""


TYPED_SHOWN = 24  # [characters] of a refused text that its refusal quotes


def quoted(text: str) -> str:
    """A text typed into a box, as the refusal of it quotes it: whole up to TYPED_SHOWN characters, else its start
    and its length. Quoted whole, a key held down (400 nines) made a line that no word wrap could break, and the
    window grew to 3,700 px wide to show it."""
    if len(text) <= TYPED_SHOWN:
        return repr(text)
    return f"{text[:TYPED_SHOWN - 4]!r}\u2026 ({len(text)} characters)"


def not_a_number(text: str) -> str:
    """Why ``text``, typed into a number box, is refused as no number: quoted (:func:`quoted`), with what a comma
    means here where it holds one; "nothing typed" for an empty text."""
    if not text:
        return "nothing typed"
    what = f"{quoted(text)} is not a finite number"
    if "," in text:
        what += (" (a comma is the decimal point here, and there are no thousands separators)" if decimal_comma() else
                 " (the decimal point is a point, and commas only separate whole thousands)")
    return what


def decimal_comma() -> bool:
    """Whether the locale writes a decimal comma (where a comma typed in a box is its point)."""
    return QLocale().decimalPoint() == ","


class NumberSpin(QDoubleSpinBox):
    """A QDoubleSpinBox that reads exponent notation too (see the module's docstring)."""

    def _number(self, text: str) -> str:
        prefix, suffix = self.prefix(), self.suffix()
        if prefix and text.startswith(prefix):
            text = text[len(prefix):]
        # The unit, once, and once more where it was typed with the number ("1600 kg" over the selected "1600" of
        # "1600 kg": "1600 kg kg" was refused as no number).
        unit, text = suffix.strip(), text.strip()
        for _ in range(2):
            if unit and text.endswith(unit):
                text = text[:-len(unit)].strip()
        return text

    def validate(self, text: str, pos: int):
        if "," in text:
            # Where the locale writes a decimal comma (a German keyboard's keypad gives one) it is the point this box
            # writes: dropped as an invalid key, "1,5" read 15. Elsewhere a comma is more likely a thousands
            # separator ("1,500"): neither guessed nor dropped, the text is left unfinished, and Return says why.
            if "." not in text and decimal_comma():
                text = text.replace(",", ".")
            else:
                return QValidator.State.Intermediate, text, pos  # (fixup reads a whole grouping: "1,500")
        number = self._number(text)
        if not _TYPING.fullmatch(number):
            # Kept as typed, to be refused with its reason: dropped as invalid keys, "2x0y0" was taken as 200, and
            # "abc" or "nan" vanished without a word.
            return QValidator.State.Intermediate, text, pos
        try:
            value = float(number)
        except ValueError:
            return QValidator.State.Intermediate, text, pos
        if not math.isfinite(value):
            return QValidator.State.Intermediate, text, pos
        if self.minimum() <= value <= self.maximum():
            return QValidator.State.Acceptable, text, pos
        return QValidator.State.Intermediate, text, pos

    def fixup(self, text: str) -> str:
        """A number in thousands (``1,500``, ``12,000.5``) without its separators; any other text as it is, to be
        refused: Qt's own fixup dropped every comma, and "1,5" read 15."""
        if _GROUPED.fullmatch(self._number(text)):
            return text.replace(",", "")
        return text

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
