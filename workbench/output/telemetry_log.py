"""Telemetry over time: every channel of every frame (or the channels a batch's consumers read), for one car or a
batch, with CSV export and a digest."""

from __future__ import annotations

import hashlib
import operator
from pathlib import Path
from typing import IO

import numpy as np

from physics import ChannelInfo, channel_infos
from physics.records import CHANNELS, TELEMETRY
from physics.telemetry import TelemetryFrame
from workbench.output.files import atomic_writer


class TelemetryLog:
    """Channels of a run, recorded frame by frame into one (frames, channels, N) float64 array.

    ``capacity`` frames are allocated up front and doubled when a live session outgrows them.
    """

    def __init__(self, length_unit: str, n: int = 1, capacity: int = 1024, channels=None):
        """``channels`` names the channels to keep (every channel when None): a batch that only some
        channels' consumers read stores those (:attr:`asked`, for ``Simulation.run(..., channels=)``)."""
        self.infos: list[ChannelInfo] = channel_infos(length_unit)
        if channels is not None:
            known = {c.name for c in self.infos}
            unknown = [name for name in channels if name not in known]
            if unknown:
                raise ValueError(f"unknown channel {unknown[0]!r}")
            wanted = set(channels)
            if not wanted:
                raise ValueError("channels: name at least one channel (None keeps every channel)")
            self.infos = [c for c in self.infos if c.name in wanted]
        self.names = [c.name for c in self.infos]
        self.asked: list[str] | None = None if channels is None else list(self.names)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.n = n
        self.frames = 0
        self._fetch = operator.attrgetter(*self.names)
        self._columns = np.array([CHANNELS.index(name) for name in self.names])
        self._data = np.zeros((max(capacity, 1), len(self.names), n))
        # One car's frame is a row of channels: the runs of channels that are consecutive in both orders
        # are copied as slices (a step's telemetry is logged without a new array).
        self._runs = _runs(self._columns)
        self._whole = list(self._columns) == list(range(len(CHANNELS)))
        self._rows = self._data.reshape(len(self._data), -1) if n == 1 else None

    def record(self, telemetry) -> int:
        """Append one frame (Simulation.step's telemetry, a record array of N cars); returns its index."""
        k = self.frames
        if k == len(self._data):
            grown = np.zeros((2 * k,) + self._data.shape[1:])
            grown[:k] = self._data
            self._data = grown
            self._rows = grown.reshape(len(grown), -1) if self.n == 1 else None
        rows = self._rows
        if rows is not None and type(telemetry) is TelemetryFrame:
            if self._whole:  # every channel, in record order (a preset in metres)
                rows[k] = telemetry.flat
            else:
                flat, row = telemetry.flat, rows[k]
                for out, into in self._runs:
                    row[out] = flat[into]
            self.frames = k + 1
            return k
        records = getattr(telemetry, "records", telemetry)
        if isinstance(records, np.ndarray) and records.dtype == TELEMETRY:
            self._data[k] = records.view(np.float64).reshape(self.n, len(CHANNELS)).T[self._columns]
        else:
            self._data[k] = self._fetch(telemetry)
        self.frames = k + 1
        return k

    def block(self, frames: int) -> np.ndarray:
        """A block for Simulation.run to fill (``channels=log.asked``); :meth:`commit` appends it: (frames, N)
        telemetry records, or float64 (frames, N, channels) when the log keeps only some channels."""
        if self.asked is not None:
            return np.empty((frames, self.n, len(self.asked)))
        return np.empty((frames, self.n), dtype=TELEMETRY)

    def commit(self, telemetry: np.ndarray) -> None:
        """Append every frame of a block (see :meth:`block`)."""
        frames = telemetry.shape[0]
        k = self.frames
        if k + frames > len(self._data):
            grown = np.zeros((max(2 * len(self._data), k + frames),) + self._data.shape[1:])
            grown[:k] = self._data[:k]
            self._data = grown
            self._rows = grown.reshape(len(grown), -1) if self.n == 1 else None
        if self.asked is not None:
            self._data[k:k + frames] = telemetry.transpose(0, 2, 1)
        else:
            values = telemetry.view(np.float64).reshape(frames, self.n, len(CHANNELS))
            self._data[k:k + frames] = values[:, :, self._columns].transpose(0, 2, 1)
        self.frames = k + frames

    def truncate(self, frames: int) -> None:
        """Forget every frame from ``frames`` on (a live session scrubbed back and driven on)."""
        self.frames = min(self.frames, max(frames, 0))

    def _end(self, frames: int | None) -> int:
        return self.frames if frames is None else min(frames, self.frames)

    def column(self, name: str, car: int = 0, frames: int | None = None) -> np.ndarray:
        """Channel ``name`` of car ``car`` over the recorded frames (a view)."""
        return self._data[:self._end(frames), self.index[name], car]

    def channel_block(self, name: str, frames: int | None = None) -> np.ndarray:
        """Channel ``name`` of every car over the recorded frames: a (frames, N) view."""
        return self._data[:self._end(frames), self.index[name], :]

    def frame(self, k: int, car: int = 0) -> dict[str, float]:
        """Every channel's value at frame ``k``."""
        return dict(zip(self.names, self._data[k, :, car].tolist(), strict=True))

    def matrix(self, car: int = 0, frames: int | None = None) -> np.ndarray:
        """(frames, channels) array in channel order (a view)."""
        return self._data[:self._end(frames), :, car]

    def digest(self, car: int = 0, frames: int | None = None) -> str:
        """SHA-256 over the bytes of every channel the log keeps: equal digests of two logs of the same channels
        mean bit-identical telemetry."""
        h = hashlib.sha256()
        for name in self.names:
            h.update(name.encode())
            h.update(np.ascontiguousarray(self.column(name, car, frames)).tobytes())
        return h.hexdigest()

    def csv_text(self, car: int = 0, frames: int | None = None) -> str:
        """One row per frame, one column per channel, header = channel names with their units
        (``speed [m/s]``; see :func:`csv_header_cells`); values (SI) round-trip exactly."""
        rows = [",".join(csv_header_cells(self.infos))]
        rows.extend(",".join(map(repr, row)) for row in self.matrix(car, frames).tolist())
        return "\n".join(rows) + "\n"

    def csv_header(self) -> str:
        return ",".join(csv_header_cells(self.infos)) + "\n"

    def write_csv_rows(self, handle: IO[str], car: int, start: int, stop: int) -> int:
        """Write the CSV rows of frames [start, stop) of car ``car`` to ``handle``; returns ``stop``.

        The same rows as :meth:`csv_text`, a block at a time, so a long replay streams its CSV.
        """
        stop = self._end(stop)
        for first in range(start, stop, 1024):
            block = self._data[first:min(first + 1024, stop), :, car].tolist()
            handle.write("".join(",".join(map(repr, row)) + "\n" for row in block))
        return max(stop, start)

    def write_csv(self, path: str | Path, car: int = 0, frames: int | None = None) -> Path:
        with atomic_writer(path) as handle:
            handle.write(self.csv_header())
            self.write_csv_rows(handle, car, 0, self._end(frames))
        return Path(path)


def _runs(columns: np.ndarray) -> list[tuple[slice, slice]]:
    """(log slice, record slice) pairs covering ``columns`` (the record index of each logged channel) in
    runs that are consecutive in both."""
    runs: list[tuple[slice, slice]] = []
    start = 0
    for i in range(1, len(columns) + 1):
        if i == len(columns) or columns[i] != columns[i - 1] + 1:
            runs.append((slice(start, i), slice(int(columns[start]), int(columns[i - 1]) + 1)))
            start = i
    return runs


def csv_header_cells(infos) -> list[str]:
    """A telemetry CSV's header: each channel's name and, where it has one, its unit: ``speed [m/s]``, ``gear``.

    The values are SI, as the model computes them (radians, not degrees); the unit says which.
    """
    return [f"{c.name} [{c.unit}]" if c.unit else c.name for c in infos]


def split_header_cell(cell: str) -> tuple[str, str | None]:
    """(name, unit or None) of a header cell written by :func:`csv_header_cells` (or a bare name)."""
    cell = cell.strip()
    if cell.endswith("]") and " [" in cell:
        name, _, unit = cell[:-1].partition(" [")
        return name, unit
    return cell, None
