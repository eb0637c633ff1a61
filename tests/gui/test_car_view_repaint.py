"""The car view repaints whole where the car it draws jumps: no piece of the old drawing is left on the screen."""

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from workbench.gui.testing import hold


class _Paints(QObject):
    """The regions a widget's paint events cover, in order."""

    def __init__(self):
        super().__init__()
        self.regions = []

    def eventFilter(self, watched, event):  # noqa: N802 - Qt's
        if event.type() == QEvent.Type.Paint:
            self.regions.append(event.region().boundingRect())
        return False


def test_a_run_changed_under_the_shown_frame_repaints_the_whole_view(carbench_window, qtbot):
    """Under Xvfb, an undo that ran the script again under the frame on show left the tip of the old velocity arrow
    beyond the new one (and an edit while driving on, a piece of the car where it had been): Qt repainted what it
    knew of the items' old places, not all the view. A redraw of a frame other than the next few of a run (here the
    same frame again, as after such an undo) now repaints all of the view."""
    window = carbench_window
    view = window.car_view
    view.set_follow(False)  # following, every frame moves the view and repaints it all anyway
    hold(window, ["throttle"], 60)
    paints = _Paints()
    view.viewport().installEventFilter(paints)
    whole = view.viewport().rect()
    QApplication.processEvents()  # what the hold left to paint, painted (the view's update requests are posted)
    QApplication.processEvents()
    paints.regions.clear()
    view.redraw()  # the same frame drawn again, as after an edit or an undo that ran the run again under it
    qtbot.waitUntil(lambda: whole in paints.regions, timeout=2000)
    view.viewport().removeEventFilter(paints)
