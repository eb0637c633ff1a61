"""Mouse steering: the mouse's horizontal position over the car view is the steering position.

The left edge of the view is full lock left, the right edge full lock right, the middle straight
ahead. While it is on, the left mouse button holds the throttle key and the right one the brake key
(the keyboard works as well), and the view does not pan, zoom or open its menu with the mouse (the
wheel still zooms). The steering position is rounded like a controller's (4 decimals), so a
recording stays short.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt

from workbench.controllers.mapping import DECIMALS

BUTTON_KEYS = {Qt.MouseButton.LeftButton: "throttle", Qt.MouseButton.RightButton: "brake"}
MOUSE_EVENTS = (QEvent.Type.MouseMove, QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease,
                QEvent.Type.MouseButtonDblClick)


def steer_at(x: float, width: float) -> float:
    """The steer (-1..1, positive left) for a mouse at ``x`` pixels across a view ``width`` pixels wide."""
    fraction = min(max(x / max(width, 1.0), 0.0), 1.0)
    return round(1.0 - 2.0 * fraction, DECIMALS) + 0.0


class MouseSteering(QObject):
    """Watches the car view's mouse while :attr:`enabled`; :meth:`source` and :meth:`keys` are read per frame."""

    def __init__(self, car_view, parent: QObject | None = None):
        super().__init__(parent)
        self._view = car_view
        self.enabled = False
        self.steer: float | None = None  # None until the mouse has been over the view
        self._held: set[str] = set()
        car_view.viewport().installEventFilter(self)

    def set_enabled(self, enabled: bool) -> None:
        self.enabled = bool(enabled)
        self.steer = None
        self._held.clear()
        self._view.viewport().setMouseTracking(self.enabled)
        box = self._view.getPlotItem().getViewBox()
        # The view keeps its wheel zoom: a drag cannot pan it, for the presses that would start one drive the car
        # (eventFilter takes them). Switching the view's mouse off for the drag took the wheel with it.
        box.setMenuEnabled(not self.enabled)

    def source(self) -> dict[str, float]:
        """The steer the mouse gives now (nothing while off, or before it was over the view)."""
        return {"steer": self.steer} if self.enabled and self.steer is not None else {}

    def keys(self) -> set[str]:
        return set(self._held) if self.enabled else set()

    def release_all(self) -> None:
        self._held.clear()

    def eventFilter(self, watched, event) -> bool:
        if not self.enabled or event.type() not in MOUSE_EVENTS:
            if self.enabled and event.type() == QEvent.Type.Leave:
                self._held.clear()  # a button released outside the view never reaches it
            return False
        self.steer = steer_at(event.position().x(), self._view.viewport().width())
        key = BUTTON_KEYS.get(event.button())
        if event.type() in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick) and key:
            self._held.add(key)
            self._view.setFocus()  # the keyboard drives beside the mouse
        elif event.type() == QEvent.Type.MouseButtonRelease and key:
            self._held.discard(key)
        return event.type() != QEvent.Type.MouseMove  # clicks drive the car; moves still reach the view
