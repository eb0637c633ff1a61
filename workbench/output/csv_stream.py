"""CSV files written while a replay runs: each script's rows go out as its frames are made.

A long replay then never holds its CSV text in memory (only the telemetry itself), and every file
is written atomically: it appears, complete, only when the replay has finished without an error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

from workbench.output.files import atomic_writer
from workbench.output.telemetry_log import TelemetryLog


class CsvStreams(contextlib.ExitStack):
    """One CSV per program (``paths[i]`` for program i, frames ``frames[i]``); use as a replay listener.

    >>> with CsvStreams(paths, [p.frames for p in programs]) as csv:
    ...     results = replay(programs, csv)
    """

    def __init__(self, paths: Sequence[Path], frames: Sequence[int]):
        super().__init__()
        self.paths = list(paths)
        self.frames = list(frames)
        self.written = [0] * len(self.paths)
        self._handles: list = []

    def __enter__(self) -> CsvStreams:
        super().__enter__()
        self._handles = [self.enter_context(atomic_writer(path)) for path in self.paths]
        self._headers = [False] * len(self.paths)
        return self

    def __call__(self, members: Sequence[int], log: TelemetryLog, done: int) -> None:
        for car, i in enumerate(members):
            handle = self._handles[i]
            if not self._headers[i]:
                handle.write(log.csv_header())
                self._headers[i] = True
            self.written[i] = log.write_csv_rows(handle, car, self.written[i], min(done, self.frames[i]))
