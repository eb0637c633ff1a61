"""Python's cycle collection once a window exists: off automatically (a collection inside a Qt call that holds a
signal-slot lock froze a window for good), run from the GUI thread's event loop instead."""

from __future__ import annotations

import gc
import weakref

from PySide6.QtCore import QObject

from workbench.gui import collector


class _Holder(QObject):
    """A QObject kept only by a reference cycle through its Python wrapper."""


def _cycle() -> weakref.ref:
    holder = _Holder()
    holder.me = holder  # the cycle: only the collector frees it
    return weakref.ref(holder)


def test_a_window_turns_automatic_collection_off_and_its_timer_collects_cycles(carbench_window, qtbot):
    assert collector.paced() and not gc.isenabled()
    gone = _cycle()
    ballast = [[k] for k in range(20 * gc.get_threshold()[0])]  # far past the threshold of a collection
    assert gone() is not None  # no automatic collection inside whatever ran: it waits for the event loop
    qtbot.waitUntil(lambda: gone() is None, timeout=60_000)  # the timer's check collected it
    assert ballast


def test_between_tests_the_plugin_collects_what_is_due(carbench_window):
    assert collector.paced()
    gone = _cycle()
    ballast = [[k] for k in range(20 * gc.get_threshold()[0])]
    assert gone() is not None
    collector.collect_due()  # what the plugin runs after each test, with no Qt call on the stack
    assert gone() is None and ballast
