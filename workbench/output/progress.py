"""A progress bar on stderr for long replays: only on a terminal, and only once a run has taken a while."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import TextIO

SHOW_AFTER = 2.0  # seconds: shorter replays never draw a bar
WIDTH = 30


class ProgressBar:
    """A replay listener that draws ``[#####.....]  42%  1,234,567 / 2,900,000 frames`` on one line.

    ``total_frames`` counts car-frames: a batch of 3 cars over 1,000 frames is 3,000.

    Nothing is drawn unless ``stream`` is a terminal and the run has lasted ``SHOW_AFTER`` seconds;
    the line is erased when the run ends, so what follows (the verdict table) starts clean.
    """

    def __init__(self, total_frames: int, stream: TextIO | None = None, clock=time.monotonic,
                 show_after: float = SHOW_AFTER):
        self.total = max(total_frames, 1)
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.start = clock()
        self.show_after = show_after
        self.enabled = _is_terminal(self.stream)
        self.drawn = False
        self._done_before = 0  # car-frames of the batches already finished
        self._batch: tuple[int, ...] = ()
        self._batch_frames = 0

    def __call__(self, members: Sequence[int], log, done: int) -> None:
        """Frames ``done`` of the batch of programs ``members`` (each of its cars counts)."""
        if tuple(members) != self._batch:  # a new batch started
            self._done_before += self._batch_frames
            self._batch = tuple(members)
        self._batch_frames = done * len(members)
        self.update(self._done_before + self._batch_frames)

    def update(self, done: int) -> None:
        if not self.enabled or self.clock() - self.start < self.show_after:
            return
        share = min(done / self.total, 1.0)
        filled = int(share * WIDTH)
        bar = "#" * filled + "." * (WIDTH - filled)
        self.stream.write(f"\rcarbench: replaying [{bar}] {share:4.0%}  {done:,} / {self.total:,} frames")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.drawn = False


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
