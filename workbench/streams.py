"""carbench's stdout and stderr: what a command prints, and what happens when a stream cannot take it.

- stdout carries a command's result. It is written and flushed before the run's files move into
  place (:func:`emit`), so a full or closed stdout fails the run with nothing written: exit 2 and
  one line on stderr. A reader that went away (``| head``) is a BrokenPipeError, let through.
- stderr carries carbench's one-line messages and progress. A full or closed stderr never changes
  what a run does or its exit code: what it cannot take is dropped (:class:`TolerantStream`).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import sys
from typing import TextIO


class StdoutError(Exception):
    """stdout is full or closed: the output could not be printed."""


class TolerantStream:
    """A text stream that passes everything to ``inner`` and drops what ``inner`` cannot take.

    Installed as ``sys.stderr`` while a command runs, so that every message to stderr, carbench's own
    and its libraries' (numba, Dask, the first compile's notice), is guarded in one place.
    """

    def __init__(self, inner: TextIO):
        self.inner = inner

    def write(self, text: str) -> int:
        try:
            return self.inner.write(text)
        except (OSError, ValueError):
            return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.inner.flush()

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


class ClosedStdout(io.TextIOBase):
    """``sys.stdout`` where file descriptor 1 was closed (``>&-``): the first write is a StdoutError.

    File descriptor 1 itself is held open on /dev/null, so that no file the command opens can take its
    number and receive the output meant for stdout.
    """

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not text:
            return 0
        raise StdoutError("cannot write to stdout: it is closed")


def stdout_refusal(stream: TextIO | None = None) -> str | None:
    """Why stdout (or ``stream``) is known now to take nothing of a command's result, or None.

    Two stdouts are known before anything is written: a closed one (:class:`ClosedStdout`), and the character
    device /dev/full (``> /dev/full``), recognised by its device number, which fails every write with ENOSPC. A
    pipe, a file or a terminal cannot be known full in advance (a disk frees up, a reader reads), and a probe write
    would put a byte into the result: those fail on the write itself, as before (:func:`emit`)."""
    stream = sys.stdout if stream is None else stream
    if isinstance(stream, ClosedStdout):
        return "cannot write to stdout: it is closed"
    try:
        mine, full = os.fstat(stream.fileno()), os.stat("/dev/full")
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None  # not a file (a test's capture), or no /dev/full on this system
    if stat.S_ISCHR(mine.st_mode) and stat.S_ISCHR(full.st_mode) and mine.st_rdev == full.st_rdev:
        return f"cannot write to stdout: {os.strerror(errno.ENOSPC)} (it is /dev/full)"
    return None


def check_stdout(stream: TextIO | None = None) -> None:
    """StdoutError now where stdout is known to take nothing (:func:`stdout_refusal`): a command with a long run
    calls it once its inputs and output paths are checked, before the run, so that a result with nowhere to go
    costs no minutes of work (a bad input is still told first)."""
    reason = stdout_refusal(stream)
    if reason:
        raise StdoutError(reason)


# Control characters (a newline or an escape sequence in a file name, a script's text) as Python writes them in a
# string's repr: a message stays one line, and a name cannot pass for another line of carbench's or move the cursor.
_CONTROLS = {c: repr(chr(c))[1:-1] for c in (*range(0x20), *range(0x7F, 0xA0))}
_CONTROLS.update({0x2028: "\\u2028", 0x2029: "\\u2029"})  # line and paragraph separators
# Bidirectional formatting (a right-to-left override in a script's name reordered the rest of its line on a terminal,
# the verdict table's bounds and values among it): written as their code points too.
_CONTROLS.update({c: f"\\u{c:04x}" for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))})


def one_line(text: object) -> str:
    """``text`` as one line: its control characters (newlines, tabs, carriage returns, escapes) written as ``\\n``,
    ``\\t``, ``\\r``, ``\\x1b``, and first, as in the files' contents (:func:`workbench.names.printable`), a
    backslash as two and a file name's byte that is not UTF-8 as ``\\xe9``: a name with a newline in it
    (``a\\nb.toml``) is told from one with a backslash and an n typed in it (``a\\\\nb.toml``)."""
    from workbench.names import printable

    return printable(str(text)).translate(_CONTROLS)


def say(message: object, stream: TextIO | None = None) -> None:
    """One ``carbench: `` line on stderr (or ``stream``), as :func:`one_line`; nothing at all where it cannot take it."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(f"carbench: {one_line(message)}", file=sys.stderr if stream is None else stream, flush=True)


def stdout_to_devnull() -> None:
    """Point file descriptor 1 at /dev/null: the interpreter's own flush at exit must not fail again
    (it would change the exit code to 120)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def flush_stdout(stream: TextIO | None = None) -> None:
    """Flush stdout (or ``stream``); StdoutError when it is full or closed. BrokenPipeError passes."""
    stream = sys.stdout if stream is None else stream
    try:
        stream.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:
        raise _refused(stream, exc) from None


def emit(text: str, stream: TextIO | None = None) -> None:
    """Print ``text`` and a newline on stdout (or ``stream``) and flush it: a command's result, written
    before its files move into place. StdoutError when stdout is full or closed, in :func:`stdout_refusal`'s words
    where it is known to take nothing (every command says ``> /dev/full`` alike)."""
    stream = sys.stdout if stream is None else stream
    check_stdout(stream)
    try:
        stream.write(text + "\n")
    except BrokenPipeError:
        raise
    except StdoutError:
        raise
    except (OSError, ValueError) as exc:
        raise _refused(stream, exc) from None
    flush_stdout(stream)


def _refused(stream: TextIO, exc: OSError | ValueError) -> StdoutError:
    """The StdoutError for a stdout that refused a write or a flush; sys.stdout is pointed at /dev/null first, so
    the interpreter's own flush at exit does not fail again."""
    if stream is sys.stdout:
        stdout_to_devnull()
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return StdoutError(f"cannot write to stdout: {reason}")


@contextlib.contextmanager
def quiet_stderr():
    """File descriptor 2 pointed at /dev/null for the block: libraries that print their own complaints
    there (libpng's 'Write Error' on a full disk, Dask's scheduler on the way down) would put them
    before carbench's one line."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):
        yield
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
