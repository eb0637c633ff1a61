"""SIGTERM, SIGHUP and SIGQUIT (Ctrl-\\) end a headless command the way Ctrl-C does: the exception unwinds, every staged
or half-written output is removed on the way out, and the exit code is 128 + the signal's number.

A signal's exception must not be raised inside a ctypes callback, a weak reference's callback or a finaliser: Python
prints "Exception ignored ..." and carries on, and the command would run to its end as if nothing had come.
numba's first compile runs Python inside such callbacks (llvmlite's object-cache hooks), so a signal
that arrives while Python code of llvmlite is on the stack is held and sent again a moment later,
until it lands where its exception can unwind.
"""

from __future__ import annotations

import contextlib
import inspect
import signal
import threading
import weakref
from collections.abc import Callable, Iterator

HANDLED = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None),
                            getattr(signal, "SIGQUIT", None)) if s is not None)


class Terminated(BaseException):
    """A SIGTERM, SIGHUP or SIGQUIT raised in the main thread (a BaseException, like KeyboardInterrupt)."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signum}")
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


CALLBACK_MODULES = ("llvmlite", "weakref")
"""Packages whose Python code runs inside callbacks that swallow an exception raised in them: ctypes callbacks
(llvmlite's), and weak references' callbacks (``WeakValueDictionary``'s ``remove``, ``weakref.finalize``): a SIGTERM
that landed in one during numba's first compile printed "Exception ignored in ..." and the command ran on."""

RETRY_SECONDS = 0.05
"""How soon a signal held inside a callback is sent again."""


def _in_callback(frame) -> bool:
    """Whether ``frame`` (where a signal's handler runs) is inside Python code whose exceptions are swallowed: a
    callback of CALLBACK_MODULES, an object's finaliser (``__del__``), or any weak reference's callback (a function
    called with its dead reference: numba's ``_on_type_disposal``, where a SIGTERM during a cold compile under load
    printed "Exception ignored in ..." and the replay ran to its end and exited 0)."""
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if any(module == m or module.startswith(f"{m}.") for m in CALLBACK_MODULES) or frame.f_code.co_name == "__del__":
            return True
        if _dead_reference_callback(frame):
            return True
        frame = frame.f_back
    return False


def _dead_reference_callback(frame) -> bool:
    """Whether ``frame`` is a weak reference's callback: a function called with a weak reference whose object is gone
    (the one thing Python calls such a callback with), as its first argument, or its second after ``self`` (a bound
    method), or among ``*args`` (a partial's or a catch-all's). The reference is asked through ReferenceType itself, not
    a subclass's own ``__call__``."""
    code = frame.f_code
    names = code.co_varnames[:min(code.co_argcount, 2)]
    values = [frame.f_locals.get(name) for name in names]
    if code.co_flags & inspect.CO_VARARGS:
        extra = frame.f_locals.get(code.co_varnames[code.co_argcount + code.co_kwonlyargcount])
        if isinstance(extra, tuple):
            values.extend(extra[:2])
    return any(isinstance(v, weakref.ReferenceType) and weakref.ReferenceType.__call__(v) is None for v in values)


def _send_again(signum: int) -> None:
    """Send ``signum`` to this process again, if our handler still takes it (else it is over)."""
    with contextlib.suppress(OSError, ValueError):
        if signal.getsignal(signum) is _raise:
            signal.raise_signal(signum)


def _raise(signum, frame):
    if _in_callback(frame):  # raised here it would be swallowed: held, and sent again in a moment
        timer = threading.Timer(RETRY_SECONDS, _send_again, (signum,))
        timer.daemon = True
        timer.start()
        return
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


@contextlib.contextmanager
def signals_as_exceptions() -> Iterator[None]:
    """While the block runs, SIGTERM, SIGHUP and SIGQUIT raise :class:`Terminated`, and SIGINT KeyboardInterrupt,
    never inside a ctypes callback (main thread only). A SIGINT that is ignored (a background job) stays so."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {}
    for signum in HANDLED:
        with contextlib.suppress(OSError, ValueError):
            saved[signum] = signal.signal(signum, _raise)
    with contextlib.suppress(OSError, ValueError):
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            saved[signal.SIGINT] = signal.signal(signal.SIGINT, _raise)
    try:
        yield
    finally:
        for signum, handler in saved.items():
            with contextlib.suppress(OSError, ValueError, TypeError):
                signal.signal(signum, handler)


def restore_default_signals() -> None:
    """SIGTERM, SIGHUP and SIGQUIT back to their defaults (before a window's event loop takes over)."""
    for signum in HANDLED:
        with contextlib.suppress(OSError, ValueError):
            signal.signal(signum, signal.SIG_DFL)


@contextlib.contextmanager
def held_signals(after: str = "") -> Iterator[None]:
    """SIGINT, SIGTERM, SIGHUP and SIGQUIT held while the block runs, then acted on (main thread only; elsewhere the block
    just runs): raised as KeyboardInterrupt or :class:`Terminated`, whose ``after`` says what the block had done
    ("" for nothing worth saying). Where the block raises, its exception goes on and the signal is dropped (the
    command ends either way). A signal the process ignores (a background job's SIGINT) stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    saved = {}
    for signum in (signal.SIGINT, *HANDLED):
        with contextlib.suppress(OSError, ValueError):
            if signal.getsignal(signum) is not signal.SIG_IGN:
                saved[signum] = signal.signal(signum, lambda n, f: pending.append(n))
    try:
        yield
    except BaseException:
        # the block's own failure goes on (a commit that failed, with its reason): the command ends with it, and a
        # signal that came meanwhile is not said as if the block had done its work
        pending.clear()
        raise
    finally:
        for signum, handler in saved.items():
            with contextlib.suppress(OSError, ValueError, TypeError):
                signal.signal(signum, handler)
        if pending:
            exc = KeyboardInterrupt() if pending[0] == signal.SIGINT else Terminated(pending[0])
            exc.after = after
            raise exc


def deferring(call: Callable) -> Callable:
    """``call`` with SIGINT, SIGTERM and SIGHUP held until it returns, then acted on.

    A chart is drawn by Qt, which calls back into Python; an exception raised inside such a callback
    aborts the process, so the signal is raised only once the drawing is over.
    """

    def wrapped(*args, **kwargs):
        with held_signals():
            return call(*args, **kwargs)

    return wrapped
