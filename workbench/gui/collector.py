"""Python's cyclic garbage collection, run in the GUI thread from the event loop, never inside a Qt call.

Python collects reference cycles whenever an allocation crosses its threshold: on whatever thread, inside whatever
call. Inside a Qt call that holds Qt's signal-slot locks, a collection that destroys a QObject kept only by a cycle
waits for a lock its own thread holds, and the window freezes for good. Seen in the test suite while a window was
built: pyqtgraph's ``addItem`` disconnects a signal, PySide's override lookup inside ``QObject::disconnect`` allocates,
the collection it triggers destroys a menu and its actions, and ``~QObject`` of an action waits in
``QBasicMutex::lockInternal`` (native stack read with ``py-spy dump --native``). A collection in another thread (a
background re-run or compile) could as well destroy a GUI object from the wrong thread.

So once the first window exists, automatic collection is off and pyqtgraph's ``GarbageCollector`` (made for this)
collects from a ``QTimer`` in the GUI thread, by the same generation thresholds as Python would; :func:`collect_due`
does the same at other safe points (the pytest plugin calls it between tests).
"""

from __future__ import annotations

import gc

INTERVAL_S = 0.25  # [s] between the timer's checks: a frame's garbage is a few hundred objects, a check is microseconds

_collector = None


def pace_collection():
    """Turn automatic collection off and collect from a timer in this (the GUI) thread from now on; once per process.
    Returns pyqtgraph's GarbageCollector doing it."""
    global _collector
    if _collector is None:
        from pyqtgraph.util.garbage_collector import GarbageCollector

        _collector = GarbageCollector(interval=INTERVAL_S)
    return _collector


def paced() -> bool:
    """Whether collection is paced by the GUI thread's timer (automatic collection off)."""
    return _collector is not None and not gc.isenabled()


def collect_due() -> None:
    """Collect what Python's thresholds say is due, now (a safe point: no Qt call on the stack); nothing when
    collection is not paced."""
    if _collector is not None:
        _collector.check()
