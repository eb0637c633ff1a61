"""SIGTERM and SIGHUP end a headless command the way Ctrl-C does: the exception unwinds, every staged
or half-written output is removed on the way out, and the exit code is 128 + the signal's number."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator

HANDLED = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None)


class Terminated(BaseException):
    """A SIGTERM or SIGHUP raised in the main thread (a BaseException, like KeyboardInterrupt)."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signum}")
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def _raise(signum, frame):
    raise Terminated(signum)


@contextlib.contextmanager
def signals_as_exceptions() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise :class:`Terminated` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {}
    for signum in HANDLED:
        with contextlib.suppress(OSError, ValueError):
            saved[signum] = signal.signal(signum, _raise)
    try:
        yield
    finally:
        for signum, handler in saved.items():
            with contextlib.suppress(OSError, ValueError, TypeError):
                signal.signal(signum, handler)


def restore_default_signals() -> None:
    """SIGTERM and SIGHUP back to their defaults (before a window's event loop takes over)."""
    for signum in HANDLED:
        with contextlib.suppress(OSError, ValueError):
            signal.signal(signum, signal.SIG_DFL)


def deferring(call: Callable) -> Callable:
    """``call`` with SIGINT, SIGTERM and SIGHUP held until it returns, then acted on.

    A chart is drawn by Qt, which calls back into Python; an exception raised inside such a callback
    aborts the process, so the signal is raised only once the drawing is over.
    """

    def wrapped(*args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            return call(*args, **kwargs)
        pending: list[int] = []
        signums = (signal.SIGINT, *HANDLED)
        saved = {}
        for signum in signums:
            with contextlib.suppress(OSError, ValueError):
                saved[signum] = signal.signal(signum, lambda n, f: pending.append(n))
        try:
            return call(*args, **kwargs)
        finally:
            for signum, handler in saved.items():
                with contextlib.suppress(OSError, ValueError, TypeError):
                    signal.signal(signum, handler)
            if pending:
                if pending[0] == signal.SIGINT:
                    raise KeyboardInterrupt
                raise Terminated(pending[0])

    return wrapped
