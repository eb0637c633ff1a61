"""Qt's own messages that say nothing about carbench: the pytest plugin lets them pass, the bench keeps them quiet."""

# Qt's own messages that say nothing about carbench, each with why it is harmless. Any other warning
# Qt logs during a GUI test fails it (pytest-qt's qt_log_level_fail), as an exception raised inside a
# Qt slot, timer or event handler already does (pytest-qt's exception capture).
QT_MESSAGES_ALLOWED = (
    # The offscreen and minimal platforms have no window manager to pass size hints to.
    r"This plugin does not support propagateSizeHints\(\)",
    # The offscreen platform has no screen to raise or activate a window on, and no keyboard or mouse for a
    # popup (a combo box's list, a menu) to grab.
    r"This plugin does not support (raise|requestActivate)\(\)",
    r"This plugin does not support grabbing the (keyboard|mouse)",
    r"QWindow::requestActivate\(\)",
)
