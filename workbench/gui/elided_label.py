"""A one-line label that gives way: it asks for its whole text's width but accepts less, and then elides."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QLabel, QWidget

MIN_CHARS = 6  # the least a label shrinks to: about this many characters and the ellipsis


class ElidedLabel(QLabel):
    """Plain text on one line, elided to the width the layout gives it (``mode``: where the dots go).

    ``suffix`` (a mark such as " \u25cf") is never elided. When the text is cut and no tooltip was set with
    :meth:`set_tip`, the tooltip is the whole text. A plain QLabel would make its whole text the layout's
    minimum width instead, so one long name could widen a dock, or the window.
    """

    def __init__(self, text: str = "", mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._mode = mode
        self._full = text
        self._suffix = ""
        self._tip = ""
        self._elide()

    def full_text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:
        self.set_full_text(text)

    def set_full_text(self, text: str, suffix: str = "") -> None:
        if (text, suffix) != (self._full, self._suffix):
            self._full, self._suffix = text, suffix
            self.updateGeometry()
        self._elide()

    def clear(self) -> None:
        """No text and no tooltip of its own (QLabel.clear left the whole text to come back at the next resize)."""
        self._tip = ""
        self.set_full_text("")

    def set_tip(self, tip: str) -> None:
        """A tooltip of its own (else the whole text, when it is cut)."""
        self._tip = tip
        self._elide()

    def is_elided(self) -> bool:
        return self.text() != self._full + self._suffix

    def needed_width(self) -> int:
        """Pixels the whole text (and suffix) needs, margins included."""
        return self.fontMetrics().horizontalAdvance(self._full + self._suffix) + 2 * self.margin() + 2

    def sizeHint(self) -> QSize:
        return QSize(self.needed_width(), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        least = metrics.horizontalAdvance(self._full[:MIN_CHARS] + "\u2026" + self._suffix) + 2 * self.margin() + 2
        return QSize(min(least, self.needed_width()), super().minimumSizeHint().height())

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        room = self.contentsRect().width() - 2 * self.margin() - metrics.horizontalAdvance(self._suffix)
        if metrics.horizontalAdvance(self._full) <= room:
            shown = self._full
        else:
            shown = metrics.elidedText(self._full, self._mode, max(room, 0))
        QLabel.setText(self, shown + self._suffix)
        self.setToolTip(self._tip or (self._full if shown != self._full else ""))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # a bold name is wider
            self.updateGeometry()
            self._elide()
