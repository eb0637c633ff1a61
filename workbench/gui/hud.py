"""The car view's head-up display: speed, gear, engine speed, the pedals and the steering angle."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QWidget

PEDALS = (("throttle", QColor(44, 160, 44)), ("brake", QColor(204, 0, 0)), ("clutch_pedal", QColor(52, 101, 164)))
BACKGROUND = QColor(255, 255, 255, 215)


STOPPED_RPM = 1.0  # [rpm] without a ``stalled`` channel: an engine turning slower than this has stalled


def gear_text(gear: float) -> str:
    g = int(round(gear))
    return "R" if g < 0 else "N" if g == 0 else str(g)


class Hud(QWidget):
    """Painted, not laid out: a repaint costs a few text runs and rectangles."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.values: dict[str, float] = {}
        self.unit = "m"
        self.manual = True
        self.lock = 0.5
        self._big = QFont(self.font())
        self._big.setPointSizeF(self.font().pointSizeF() * 1.7)
        self._big.setBold(True)
        self.setFixedSize(236, 74)

    def show_frame(self, values: dict[str, float], unit: str, manual: bool, lock: float) -> None:
        self.values, self.unit, self.manual, self.lock = values, unit, manual, lock
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

    def paintEvent(self, event) -> None:
        if not self.values:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.fillRect(self.rect(), BACKGROUND)
        painter.setPen(QPen(QColor(150, 150, 150)))
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        speed, gear, steer = self.lines()
        painter.setPen(QColor(20, 20, 20))
        painter.setFont(self._big)
        painter.drawText(QRectF(8, 2, 150, 30), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, speed)
        painter.setFont(self.font())
        painter.drawText(QRectF(8, 32, 150, 18), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, gear)
        painter.drawText(QRectF(8, 51, 150, 18), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, steer)
        # The steering angle as a bar about the centre, full lock at either end.
        share = max(-1.0, min(1.0, self.values["steer"] / self.lock)) if self.lock > 0 else 0.0
        painter.fillRect(QRectF(110, 62, 44, 3), QColor(210, 210, 210))
        painter.fillRect(QRectF(132, 59, -22 * share, 9), QColor(117, 80, 123))
        pedals = [p for p in PEDALS if self.manual or p[0] != "clutch_pedal"]
        for i, (name, colour) in enumerate(pedals):
            x = 170 + i * 21
            level = max(0.0, min(1.0, self.values.get(name, 0.0)))
            painter.fillRect(QRectF(x, 8, 14, 52), QColor(225, 225, 225))
            painter.fillRect(QRectF(x, 8 + 52 * (1 - level), 14, 52 * level), colour)
            painter.drawText(QRectF(x - 3, 60, 20, 14), Qt.AlignmentFlag.AlignCenter, name[0].upper())
        painter.end()
