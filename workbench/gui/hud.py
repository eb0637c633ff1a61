"""The car view's head-up display: speed, gear, engine speed, the pedals, the handbrake and the steering angle."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QWidget

# The pedals' bars, and the handbrake's (its channel is 1 while it is pulled), each under its initial.
PEDALS = (("throttle", QColor(44, 160, 44)), ("brake", QColor(204, 0, 0)), ("clutch_pedal", QColor(52, 101, 164)),
          ("handbrake", QColor(230, 130, 0)))
BACKGROUND = QColor(255, 255, 255, 215)


STOPPED_RPM = 1.0  # [rpm] without a ``stalled`` channel: an engine turning slower than this has stalled
MARGIN = 8  # [px] inside the HUD's frame, left of the texts
BAR = 36  # [px] the steering bar's length (the HUD fits between a 1024 x 640 window's axes)
GAP = 8  # [px] between the steering angle's text and its bar ("+40.0 deg" is wider than "-88.8 deg": it touched)
HEIGHT = 77  # [px] the pedals' initials clear of the bottom edge
PEDAL, PEDAL_GAP = 11, 3  # [px] a pedal's bar and the gap between two
# The HUD is as wide as its usual texts need (as lines() writes them), so that it fits a small car view
# between the axes (236 px, as it was, covered the y labels at 1024x640); a rarer, longer line (a stalled
# engine's) is drawn in a smaller font to fit.
WIDEST = ("gear 6   8888 rpm",)
COMPACT_SPEED = 1.3  # the compact HUD's speed, in the HUD's font size times this (the full one's: 1.7)
COMPACT_MARGIN = 6  # [px]
COMPACT_ROW = 16  # [px] the gear's line and the steering's
COMPACT_HEIGHT = 58  # [px] with a gear line
COMPACT_PEDAL, COMPACT_GAP = 9, 2  # [px] a pedal's bar in the compact HUD, and the gap between two


def _closer(text: str) -> str:
    """A line of the compact HUD: its words two spaces apart, not three ("gear 1  1000 rpm")."""
    return text.replace("   ", "  ")


def gear_text(gear: float) -> str:
    g = int(round(gear))
    return "R" if g < 0 else "N" if g == 0 else str(g)


class Hud(QWidget):
    """Painted, not laid out: a repaint costs a few text runs and rectangles.

    ``set_compact(True)`` gives a smaller HUD for a small car view (the car view asks for it where the full one would
    take most of its plot area's width: at 1024x640 the full HUD, 214 x 77 px, spanned all of a 218 px wide plot area):
    the speed in a smaller font, the steering angle in degrees beside its bar, the pedals' bars shorter and narrower.
    It says what the full one says, in 163 x 58 px (163 x 42 on a car without a gearbox, which has no gear line).
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.values: dict[str, float] = {}
        self.unit = "m"
        self.manual = True
        self.lock = 0.5
        self.compact = False
        self._big = QFont(self.font())
        self._big.setPointSizeF(self.font().pointSizeF() * 1.7)
        self._big.setBold(True)
        self._mid = QFont(self.font())  # the compact HUD's speed
        self._mid.setPointSizeF(self.font().pointSizeF() * COMPACT_SPEED)
        self._mid.setBold(True)
        metrics = self.fontMetrics()
        self._column = max([QFontMetrics(self._big).horizontalAdvance("188 km/h")]
                           + [metrics.horizontalAdvance(t) for t in WIDEST]
                           + [max(metrics.horizontalAdvance(f"steer {sign}88.8 deg") for sign in "+-") + GAP + BAR])
        self._pedals_x = MARGIN + self._column + 6
        self._compact_column = max([QFontMetrics(self._mid).horizontalAdvance("188 km/h")]
                                   + [metrics.horizontalAdvance(_closer(t)) for t in WIDEST]
                                   + [max(metrics.horizontalAdvance(f"{sign}88.8\u00b0") for sign in "+-") + GAP + BAR])
        self._size()

    def set_compact(self, compact: bool) -> None:
        """The small HUD (True) or the full one."""
        if compact != self.compact:
            self.compact = compact
            self._size()
            self.update()

    def full_size(self) -> tuple[int, int]:
        """The full HUD's width and height [px]."""
        return self._pedals_x + len(PEDALS) * PEDAL + (len(PEDALS) - 1) * PEDAL_GAP + 5, HEIGHT

    def _size(self) -> None:
        if not self.compact:
            self.setFixedSize(*self.full_size())
            return
        self._compact_pedals_x = COMPACT_MARGIN + self._compact_column + 6
        rows = COMPACT_ROW if self.manual else 0
        self.setFixedSize(self._compact_pedals_x + len(PEDALS) * COMPACT_PEDAL + (len(PEDALS) - 1) * COMPACT_GAP + 4,
                          COMPACT_HEIGHT - COMPACT_ROW + rows)

    def show_frame(self, values: dict[str, float], unit: str, manual: bool, lock: float) -> None:
        self.values, self.unit, self.lock = values, unit, lock
        if manual != self.manual:
            self.manual = manual
            self._size()
        self.update()

    def lines(self) -> tuple[str, str, str]:
        """The three texts of the HUD (also what a test reads)."""
        v = self.values
        if not v:
            return "", "", ""
        speed = f"{v['speed_kmh']:.0f} km/h" if self.unit == "m" and "speed_kmh" in v else f"{v['speed']:.0f} {self.unit}/s"
        speed = speed.replace("-0 ", "0 ")
        gear = f"gear {gear_text(v['gear'])}   {v['rpm']:.0f} rpm" if self.manual else ""
        if self.manual and (v["stalled"] > 0.5 if "stalled" in v else v.get("rpm", 1.0) < STOPPED_RPM):
            gear = f"gear {gear_text(v['gear'])}   STALLED (S starts)"
        steer = f"steer {math.degrees(v['steer']) + 0.0:+.1f} deg"
        return speed, gear, steer

    def bars(self) -> list[tuple[str, QColor, float]]:
        """The bars drawn right of the texts, left to right: each pedal's (the clutch on a car with one) and the
        handbrake's, with its level from 0 to 1."""
        shown = [p for p in PEDALS if self.manual or p[0] != "clutch_pedal"]
        return [(name, colour, max(0.0, min(1.0, self.values.get(name, 0.0)))) for name, colour in shown]

    def _fitted(self, text: str, column: float | None = None) -> QFont:
        """The HUD's font, made smaller if ``text`` would not fit the texts' column in it."""
        column = self._column if column is None else column
        width = self.fontMetrics().horizontalAdvance(text)
        if width <= column:
            return self.font()
        font = QFont(self.font())
        ratio = column / width * 0.97
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * ratio)
        else:
            font.setPixelSize(max(int(font.pixelSize() * ratio), 1))
        return font

    def _steer_share(self) -> float:
        return max(-1.0, min(1.0, self.values["steer"] / self.lock)) if self.lock > 0 else 0.0

    def paintEvent(self, event) -> None:
        if not self.values:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.fillRect(self.rect(), BACKGROUND)
        painter.setPen(QPen(QColor(150, 150, 150)))
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        if self.compact:
            self._paint_compact(painter)
        else:
            self._paint_full(painter)
        painter.end()

    def _paint_full(self, painter: QPainter) -> None:
        speed, gear, steer = self.lines()
        painter.setPen(QColor(20, 20, 20))
        painter.setFont(self._big)
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        painter.drawText(QRectF(MARGIN, 2, self._column, 30), left, speed)
        painter.setFont(self.font())
        painter.setFont(self._fitted(gear))
        painter.drawText(QRectF(MARGIN, 32, self._column, 18), left, gear)
        painter.setFont(self.font())
        painter.drawText(QRectF(MARGIN, 51, self._column, 18), left, steer)
        # The steering angle as a bar about the centre, full lock at either end (at the texts' right edge).
        share = self._steer_share()
        centre = MARGIN + self._column - BAR / 2
        painter.fillRect(QRectF(centre - BAR / 2, 62, BAR, 3), QColor(210, 210, 210))
        painter.fillRect(QRectF(centre, 59, -BAR / 2 * share, 9), QColor(117, 80, 123))
        for i, (name, colour, level) in enumerate(self.bars()):
            x = self._pedals_x + i * (PEDAL + PEDAL_GAP)
            painter.fillRect(QRectF(x, 8, PEDAL, 52), QColor(225, 225, 225))
            painter.fillRect(QRectF(x, 8 + 52 * (1 - level), PEDAL, 52 * level), colour)
            painter.drawText(QRectF(x - 4, 60, PEDAL + 8, 14), Qt.AlignmentFlag.AlignCenter, name[0].upper())

    def _paint_compact(self, painter: QPainter) -> None:
        speed, gear, steer = self.lines()
        column, left = self._compact_column, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        painter.setPen(QColor(20, 20, 20))
        painter.setFont(self._mid)
        painter.drawText(QRectF(COMPACT_MARGIN, 1, column, 22), left, speed)
        y = 23
        if self.manual:
            gear = _closer(gear)
            painter.setFont(self._fitted(gear, column))
            painter.drawText(QRectF(COMPACT_MARGIN, y, column, COMPACT_ROW), left, gear)
            y += COMPACT_ROW
        painter.setFont(self.font())
        angle = steer.removeprefix("steer ").removesuffix(" deg") + "\u00b0"  # "+31.5°"
        painter.drawText(QRectF(COMPACT_MARGIN, y, column, COMPACT_ROW), left, angle)
        # the steering bar right of its angle, full lock at either end
        start = COMPACT_MARGIN + max(self.fontMetrics().horizontalAdvance(f"{s}88.8\u00b0") for s in "+-") + GAP
        length = COMPACT_MARGIN + column - start
        centre = start + length / 2
        mid = y + COMPACT_ROW / 2
        painter.fillRect(QRectF(start, mid - 1, length, 3), QColor(210, 210, 210))
        painter.fillRect(QRectF(centre, mid - 4, -length / 2 * self._steer_share(), 9), QColor(117, 80, 123))
        bottom = self.height() - 15  # the pedals' initials under their bars
        for i, (name, colour, level) in enumerate(self.bars()):
            x = self._compact_pedals_x + i * (COMPACT_PEDAL + COMPACT_GAP)
            tall = bottom - 5
            painter.fillRect(QRectF(x, 5, COMPACT_PEDAL, tall), QColor(225, 225, 225))
            painter.fillRect(QRectF(x, 5 + tall * (1 - level), COMPACT_PEDAL, tall * level), colour)
            painter.drawText(QRectF(x - 4, bottom, COMPACT_PEDAL + 8, 14), Qt.AlignmentFlag.AlignCenter,
                             name[0].upper())
