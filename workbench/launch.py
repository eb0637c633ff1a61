"""The ``carbench`` command's entry point: the first of carbench's code to run, before its modules load.

A Ctrl-C while the command's own modules were still loading (the first quarter second) printed a bare
KeyboardInterrupt traceback, where a Ctrl-C later says "carbench: interrupted" and exits 130 (workbench.cli): this
module imports nothing of carbench's until :func:`entry` runs, and takes the interrupt there.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

INTERRUPTED = 130  # the shell's code for a command Ctrl-C stopped (128 + SIGINT), as workbench.cli's


def entry(argv: Sequence[str] | None = None) -> int:
    """Load the command line and run it (workbench.cli.entry); a Ctrl-C while it loads exits as one later does."""
    try:
        from workbench.cli import entry as command
    except KeyboardInterrupt:
        return interrupted()
    except RuntimeError as exc:  # an interrupt inside a class body's __set_name__ comes wrapped in one (Python 3.11)
        if isinstance(exc.__cause__, KeyboardInterrupt):
            return interrupted()
        raise
    return command(argv)


def interrupted() -> int:
    """Say so on stderr, as workbench.cli does, and give the exit code."""
    try:
        print("carbench: interrupted", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):  # a closed or full stderr: the exit code says it
        pass
    return INTERRUPTED
