"""Two runs side by side: the parameter diff, verdict flips, per-channel differences and the first divergence.

A :class:`Run` is one car's telemetry with what made it (parameters, dt, verdicts, stamp): from a
replay (:func:`run_of`) or from a telemetry CSV that carbench wrote (:func:`read_csv_run`).
:func:`compare` lines two runs up frame by frame; runs of different dt are compared on the coarser
run's frame times with the finer run linearly interpolated (the timestep-invariance check). Every
value it reports is in the channel's display unit (degrees for angles).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from physics import CarParams, ChannelInfo, channel_infos, channel_names
from physics.telemetry import channels_of
from physics.units import display_of
from workbench.output.files import atomic_writer
from workbench.output.telemetry_log import split_header_cell
from workbench.runs.replay import ReplayResult, Verdict
from workbench.runs.stamp import Stamp, program_stamp

ATOL = 1e-9
RTOL = 1e-9
LENGTH_UNITS = ("m", "px")


class CompareError(ValueError):
    """Two runs that cannot be compared (or a file that is no run); the message says which and why."""


def display_unit(info: ChannelInfo) -> tuple[str, float]:
    """The unit a channel is shown in and the factor from its SI value (physics.units: degrees for angles)."""
    return display_of(info)


@dataclass
class Run:
    """One car's telemetry (SI, per frame) and what made it."""

    label: str
    unit: str  # the preset's unit of length
    dt: float
    data: dict[str, np.ndarray]  # channel -> values per frame
    params: CarParams | None = None  # at frame 0 (None for a CSV)
    verdicts: list[Verdict] | None = None  # None when not known (a CSV)
    stamp: Stamp | None = None
    script: str | None = None  # the source of the script whose run it is, when one drove it (a replay, its edits)
    changes: tuple[tuple[int, CarParams], ...] = ()  # (frame, the parameters from it on): a script's [[set]], an edit

    @property
    def frames(self) -> int:
        return len(self.data["t"])

    @property
    def infos(self) -> list[ChannelInfo]:
        """The channels the run has, in carbench's order (a CSV of an earlier release lacks the channels added since)."""
        return [info for info in channel_infos(self.unit) if info.name in self.data]

    def distance(self) -> np.ndarray:
        """Distance travelled by the reference point up to each frame, in the preset's unit."""
        x, y = self.data["x"], self.data["y"]
        steps = np.hypot(np.diff(x), np.diff(y))
        return np.concatenate([[0.0], np.cumsum(steps)])


def run_of(result: ReplayResult, label: str | None = None) -> Run:
    """The run of one replayed script."""
    p = result.program
    names = result.log.names
    matrix = result.log.matrix(result.car, p.frames)
    data = {name: np.array(matrix[:, i]) for i, name in enumerate(names)}
    text = label or f"{p.name} ({p.script.source}) on {p.preset}, dt {p.dt:.6g} s"
    return Run(text, p.params.model.unit, p.dt, data, p.params, list(result.verdicts), program_stamp(p),
               p.script.source, tuple(p.param_changes))


MAX_CSV_BYTES = 1024**3
"""A telemetry CSV larger than this is refused unread."""

MAX_CSV_FRAMES = 2_000_000
"""Most frames compare reads of a telemetry CSV (as of a script's run, compare_command.MAX_FRAMES): 4.6 hours at
1/120 s, 1.6 GB of values for carbench's 103 channels. A CSV that carbench writes of the largest size compare reads
(1 GiB) holds about 1.6 million frames; the limit bounds what a file of short cells (``0,0,...``, some five million
lines in 1 GiB) would take."""

MAX_CSV_LINE_BYTES = 64 * 1024
"""The longest line compare reads of a telemetry CSV (carbench's are under 3 kB)."""

_COUNT_BLOCK = 1024 * 1024  # bytes read at a time to count a CSV's lines

MAX_CSV_VALUE = 1e300  # a CSV value's size: a difference of two (2e300) in a display unit (x 57.3) stays finite


def _csv_lines(path: Path, handle):
    """(line number, text) of each line of ``handle`` that is not blank, read one line at a time; CompareError for
    a line longer than MAX_CSV_LINE_BYTES, text that is not UTF-8, or a file that grew past MAX_CSV_BYTES."""
    from workbench.scripts.limits import format_bytes

    consumed = 0
    for number, raw in enumerate(iter(lambda: handle.readline(MAX_CSV_LINE_BYTES + 1), b""), 1):
        if len(raw) > MAX_CSV_LINE_BYTES:
            raise CompareError(f"{path}: line {number}: longer than {format_bytes(MAX_CSV_LINE_BYTES)}; not a "
                               "telemetry CSV written by carbench")
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise CompareError(f"{path}: not UTF-8 text (byte {consumed + exc.start})") from None
        consumed += len(raw)
        if consumed > MAX_CSV_BYTES:  # it grew after the check
            raise _grown(path)
        line = line.removesuffix("\n").removesuffix("\r")
        if line.strip():
            yield number, line


def _grown(path: Path) -> CompareError:
    """The refusal of a CSV that grew past MAX_CSV_BYTES after its size was checked."""
    from workbench.scripts.limits import format_bytes

    return CompareError(f"{path}: larger than a telemetry CSV file may be ({MAX_CSV_BYTES:,} bytes, "
                        f"{format_bytes(MAX_CSV_BYTES)})")


def _count_lines(path: Path, handle) -> int:
    """How many lines ``handle`` holds (a last one without its newline counted), read in blocks."""
    lines = size = 0
    last = b"\n"
    for block in iter(lambda: handle.read(_COUNT_BLOCK), b""):
        size += len(block)
        if size > MAX_CSV_BYTES:  # it grew after the check
            raise _grown(path)
        lines += block.count(b"\n")
        last = block[-1:]
    return lines + (last != b"\n")


def read_csv_run(path: str | Path) -> Run:
    """A telemetry CSV that carbench wrote (``replay --csv``), as a run.

    carbench's CSV is recognised by its header row: the channel list of a car in metres or in pixels, in
    carbench's order (which also tells the unit), or, as an earlier release wrote it, that list less channels added
    since (:func:`_header_unit`); every value a finite number. The file is read a line at a time (at most
    MAX_CSV_FRAMES frames), so what it takes in memory is its values' own.
    """
    from workbench.names import path_problem
    from workbench.scripts.limits import LimitError, open_regular

    path = Path(path)
    try:
        with open_regular(path, "telemetry CSV", MAX_CSV_BYTES) as handle:
            # Counted first, so that the values go straight into one array of their size: the file is never held
            # whole, as text or as lines, and the values are not copied.
            rows = _count_lines(path, handle) - 1  # the header's line is not a frame
            if rows > MAX_CSV_FRAMES:  # refused now, not after a minute of reading the values of two million lines
                raise CompareError(f"{path}: {rows:,} lines of frames, more than the {MAX_CSV_FRAMES:,} frames compare "
                                   "reads of a telemetry CSV (4.6 hours at 1/120 s; the limit of a script's run too)")
            handle.seek(0)
            return _read_csv(path, _csv_lines(path, handle), min(rows, MAX_CSV_FRAMES))
    except FileNotFoundError:
        raise CompareError(f"{path}: no such file") from None
    except LimitError as exc:
        raise CompareError(str(exc)) from None
    except OSError as exc:
        raise CompareError(f"{path}: cannot be read: {path_problem(exc)}") from None


def _read_csv(path: Path, lines, rows: int) -> Run:
    """:func:`read_csv_run` from the file's lines that are not blank, (number in the file, text), after the header at
    most ``rows`` of them (the file's lines but one, less any blank)."""
    first = next(lines, None)
    if first is None:
        raise CompareError(f"{path}: empty; not a telemetry CSV written by carbench")
    cells = [split_header_cell(c) for c in first[1].split(",")]
    header = [name for name, _ in cells]
    unit = _header_unit(header)
    if unit is None:
        raise CompareError(f"{path}: not a telemetry CSV written by carbench (its header row is not "
                           "carbench's channel list)")
    infos = {info.name: info for info in channel_infos(unit)}
    for name, shown in cells:
        if shown is not None and shown != infos[name].unit:
            raise CompareError(f"{path}: column {name} is in {shown}, carbench writes it in "
                               f"{infos[name].unit or 'no unit'}")
    width = len(header)
    values = np.empty((max(rows, 0), width))
    frames = 0
    block: list[tuple[int, list[str]]] = []  # the lines of the frames not checked yet: their numbers and cells
    first_line = 0  # the first frame's line in the file
    for number, line in lines:
        if frames == len(values):  # it grew after the count (which read_csv_run held to MAX_CSV_FRAMES)
            raise CompareError(f"{path}: changed while it was read")
        texts = line.split(",")
        if len(texts) != width:
            raise CompareError(f"{path}: line {number}: {len(texts)} values for {width} channels")
        try:
            values[frames] = [float(cell) for cell in texts]
        except ValueError:
            j, cell = next((j, c) for j, c in enumerate(texts) if not _number(c))
            raise CompareError(f"{path}: line {number}, column {header[j]}: {cell.strip()[:40]!r} is not a number; "
                               "not a telemetry CSV written by carbench") from None
        if _STRAY.search(line):  # float() took it, but carbench writes none of these
            j, cell = next((j, c) for j, c in enumerate(texts) if _STRAY.search(c))
            raise CompareError(f"{path}: line {number}, column {header[j]}: {cell[:40]!r} is not a number as carbench "
                               "writes one; not a telemetry CSV written by carbench")
        if not frames:
            first_line = number
        frames += 1
        block.append((number, texts))
        if len(block) == _CHECK_BLOCK:
            _check_values(path, header, values[frames - len(block):frames], block)
            block.clear()
    _check_values(path, header, values[frames - len(block):frames], block)
    if not frames:
        raise CompareError(f"{path}: holds no frame")
    if frames < len(values):  # blank lines: the array shortened in place, not copied
        values.resize((frames, width), refcheck=False)
    data = {name: values[:, i] for i, name in enumerate(header)}
    t = data["t"]
    if t[0] != 0.0:  # runs are lined up by their frames from t = 0: a cut or shifted file would be compared askew
        raise CompareError(f"{path}: line {first_line}: the time column starts at {t[0]:.6g} s; a telemetry CSV of "
                           "carbench starts at 0")
    dt = float(t[1] - t[0]) if len(t) > 1 else 1.0
    if len(t) > 1 and dt <= 0:
        raise CompareError(f"{path}: the time column does not advance: its first two frames are at t = {t[0]:.6g} and "
                           f"{t[1]:.6g} s")
    off = np.flatnonzero(~np.isclose(np.diff(t), dt, rtol=1e-6, atol=1e-12))
    if len(off):
        k = int(off[0]) + 1  # frames counted from 0, as carbench counts them
        raise CompareError(f"{path}: the time column does not advance by a fixed dt: frame {k} (t = {t[k]:.6g} s) "
                           f"follows t = {t[k - 1]:.6g} s, where frames 0 and 1 are {dt:.6g} s apart")
    return Run(str(path), unit, dt, data)


ADDED_SINCE = {"throttle_applied": "0.3.23"}
"""The channels a release added, with the release: a CSV written before it has the list without them."""


def _header_unit(header: list[str]) -> str | None:
    """The unit of length of a CSV whose header row names ``header``: the one of LENGTH_UNITS whose channel list it is,
    in order, less none or some of the channels added since (ADDED_SINCE: a CSV of an earlier release; compare leaves
    those out). None for any other header. Only those may be missing: the pixels list is the metres one less
    speed_kmh, and a pixels CSV of bare names read as metres."""
    if len(set(header)) != len(header):
        return None
    for unit in LENGTH_UNITS:
        names = channel_names(unit)
        if header == [name for name in names if name in header] and set(names) - set(header) <= set(ADDED_SINCE):
            return unit
    return None


_CHECK_BLOCK = 256  # frames of a CSV whose values are checked at once
# What float() reads in a number but carbench never writes (repr of a float64): an underscore between digits ("1_0"
# read as 10), spaces about it, digits of other scripts ("\u0661" read as 1).
_STRAY = re.compile(r"[^0-9A-Za-z.+\-,]")


def _check_values(path: Path, header: list[str], values: np.ndarray, lines: list[tuple[int, list[str]]]) -> None:
    """CompareError naming the first value of ``values`` (the frames of ``lines``: their numbers in the file and
    cells) that is not finite or is beyond MAX_CSV_VALUE."""
    usable = np.abs(values) <= MAX_CSV_VALUE  # False for nan and inf too
    if usable.all():
        return
    k, j = np.argwhere(~usable)[0]
    number, texts = lines[k]
    cell = texts[j].strip()[:40]
    why = ("is not finite" if any(word in cell.lower() for word in ("inf", "nan")) else
           "is beyond 1e300 (its difference or its display unit would overflow)")
    raise CompareError(f"{path}: line {number}, column {header[j]}: {cell!r} {why}; "
                       "not a telemetry CSV written by carbench")


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class ParamRow:
    path: str
    a: Any  # None: the car of A has no such parameter
    b: Any
    unit: str


@dataclass(frozen=True)
class EditRow:
    """A parameter one run changed part-way (a script's [[set]], an edit in the window), in display units."""

    run: str  # "A" or "B"
    frame: int
    time: float  # [s]
    path: str
    before: Any
    after: Any
    unit: str
    beyond: bool = False  # made past the frames compared (the other run had ended): it changed none of them


@dataclass(frozen=True)
class VerdictRow:
    label: str
    a: Verdict | None
    b: Verdict | None

    @property
    def flipped(self) -> bool:
        return self.a is not None and self.b is not None and self.a.passed != self.b.passed


@dataclass(frozen=True)
class ChannelRow:
    """The largest difference of one channel over the compared frames (display unit)."""

    name: str
    unit: str
    delta: float  # b - a where |b - a| is largest
    frame: int
    time: float
    a: float
    b: float


@dataclass(frozen=True)
class Divergence:
    """The first frame where a channel differs beyond atol + rtol * |a|, and every channel that does there."""

    frame: int
    time: float
    channels: tuple[ChannelRow, ...]


MOTION = ("x", "y", "heading", "vx", "vy", "yaw_rate")  # the car's motion: where it is, which way, how it moves
LEFT_OUT_SHOWN = 6  # channels named in the text's line of those not compared


@dataclass
class Comparison:
    a: Run
    b: Run
    atol: float
    rtol: float
    grid: str  # how the frames were lined up, in words
    t: np.ndarray  # the compared frame times [s]
    a_values: dict[str, np.ndarray]  # display units, on the compared frame times
    b_values: dict[str, np.ndarray]
    params: list[ParamRow] = field(default_factory=list)  # at the start
    edits: list[EditRow] = field(default_factory=list)  # made part-way through either run, A's first
    verdicts: list[VerdictRow] = field(default_factory=list)
    channels: list[ChannelRow] = field(default_factory=list)  # channels that differ at all
    divergence: Divergence | None = None
    # The first divergence of the car's motion (MOTION), where it comes later than the first divergence: an edit of
    # the road's friction moves its own channels (mu_front) at frame 0, the car only once the grip is asked for.
    motion: Divergence | None = None
    span_note: str | None = None  # the runs cover different time spans
    # Whose frames the compared frames are, and so the frame numbers given: "" both runs' (the same dt), else "A" or
    # "B", the run of the longer dt whose frame times the other was interpolated to.
    frames_of: str = ""
    # Channels one of the cars has and the other does not (physics.channels_of: a single-track car lacks the corners, a
    # car without an engine its speed), which read a constant there: not compared, and said so.
    left_out: list[str] = field(default_factory=list)

    def frame_text(self, frame: int) -> str:
        """"frame 259", or with runs of two dts "B's frame 259" (the frames compared are that run's)."""
        return f"{self.frames_of}'s frame {frame}" if self.frames_of else f"frame {frame}"

    def frame_in(self, run: str, time: float) -> int:
        """The frame of run ``run`` ("A" or "B") at compared time ``time`` [s]: the window shows a divergence on the
        run on show, whose frames are not those compared when its dt is the shorter."""
        own = self.a if run == "A" else self.b
        return int(round(time / own.dt))

    @property
    def flips(self) -> list[VerdictRow]:
        return [v for v in self.verdicts if v.flipped]

    @property
    def agree(self) -> bool:
        return self.divergence is None and not self.flips and self.span_note is None

    def units(self) -> dict[str, str]:
        return {info.name: display_unit(info)[0] for info in self.a.infos}

    # -- output ----------------------------------------------------------------------------------

    def text(self) -> str:
        lines = [f"A: {self.a.label}, {self.a.frames} frames", f"B: {self.b.label}, {self.b.frames} frames",
                 f"compared on {self.grid} ({len(self.t)} frames); tolerance {self.atol:g} + {self.rtol:g} * |a|"]
        if self.span_note:
            lines.append(self.span_note)
        if self.left_out:
            shown = ", ".join(self.left_out[:LEFT_OUT_SHOWN]) + (
                f" and {len(self.left_out) - LEFT_OUT_SHOWN} more" if len(self.left_out) > LEFT_OUT_SHOWN else "")
            lines.append(f"not compared: {len(self.left_out)} channel{'s' if len(self.left_out) != 1 else ''} one of "
                         f"the runs does not have ({shown})")
        lines.append("")
        if self.a.params is not None and self.b.params is not None:
            start = " at the start" if self.edits else ""
            if self.params:
                lines.append(f"parameters{start} (A -> B):")
                lines += _columns([(r.path, f"{_v(r.a)} -> {_v(r.b)}", r.unit) for r in self.params])
            else:
                lines.append(f"parameters{start}: the same")
            if self.edits:
                lines.append("parameters changed part-way:")
                lines += _columns([(r.run, f"at {r.time:.4f} s (frame {r.frame})", r.path,
                                    f"{_v(r.before)} -> {_v(r.after)}", r.unit,
                                    "(past the compared frames)" if r.beyond else "") for r in self.edits])
            lines.append("")
        if self.verdicts:
            lines.append("expectations (A, B):")
            lines += _columns([("PASS" if r.a and r.a.passed else "FAIL" if r.a else "-",
                                "PASS" if r.b and r.b.passed else "FAIL" if r.b else "-",
                                "FLIP" if r.flipped else "", r.label) for r in self.verdicts])
            lines.append("")
        if self.channels:
            lines.append("largest difference per channel (B - A):")
            lines += _columns([(r.name, f"{r.delta + 0.0:+.6g} {r.unit}".rstrip(),
                                f"at {r.time:.4f} s ({self.frame_text(r.frame)})",
                                f"{r.a + 0.0:.6g} -> {r.b + 0.0:.6g}") for r in self.channels])  # + 0.0: no "-0"
        else:
            lines.append("every channel is the same on every compared frame")
        lines.append("")
        if self.divergence is not None:
            d = self.divergence
            lines.append(f"first divergence: {self.frame_text(d.frame)} (t = {d.time:.6g} s), in {len(d.channels)} "
                         f"channel{'s' if len(d.channels) != 1 else ''}:")
            lines += _columns([(r.name, f"{r.a + 0.0:.10g} -> {r.b + 0.0:.10g} {r.unit}".rstrip()) for r in d.channels])
            if self.motion is not None:
                m = self.motion
                lines.append(f"the motion first diverges: {self.frame_text(m.frame)} (t = {m.time:.6g} s), in "
                             + ", ".join(r.name for r in m.channels))
        else:
            lines.append("no divergence beyond the tolerance")
        lines.append("")
        flips = len(self.flips)
        lines.append("the runs agree" if self.agree else
                     f"the runs differ ({flips} verdict flip{'s' if flips != 1 else ''}"
                     + (f", first divergence at {self.divergence.time:.6g} s" if self.divergence else "") + ")")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        shown = {info.name: display_unit(info) for info in self.a.infos}

        def verdict(v: Verdict | None):  # in the channel's display unit, as every other value here
            if v is None:
                return None
            unit, factor = shown.get(v.expect.channel, (v.unit, 1.0))
            return {"passed": v.passed, "measured": None if v.measured is None else v.measured * factor, "unit": unit,
                    "frame": v.frame, "time": v.time}

        def row(r: ChannelRow):
            return {"channel": r.name, "unit": r.unit, "delta": r.delta, "frame": r.frame, "time": r.time,
                    "a": r.a, "b": r.b}

        return {
            "agree": self.agree,
            "a": {"label": self.a.label, "dt": self.a.dt, "frames": self.a.frames,
                  "stamp": self.a.stamp.to_table() if self.a.stamp else None},
            "b": {"label": self.b.label, "dt": self.b.dt, "frames": self.b.frames,
                  "stamp": self.b.stamp.to_table() if self.b.stamp else None},
            "grid": self.grid, "frames": len(self.t), "frames_of": self.frames_of or "both", "atol": self.atol,
            "rtol": self.rtol,
            "span_note": self.span_note,
            "left_out": list(self.left_out),
            "params": [{"path": r.path, "a": r.a, "b": r.b, "unit": r.unit} for r in self.params],
            "edits": [{"run": r.run, "frame": r.frame, "time": r.time, "path": r.path, "before": r.before,
                       "after": r.after, "unit": r.unit, "beyond": r.beyond} for r in self.edits],
            "expectations": [{"label": r.label, "a": verdict(r.a), "b": verdict(r.b), "flipped": r.flipped}
                             for r in self.verdicts],
            "channels": [row(r) for r in self.channels],
            "divergence": None if self.divergence is None else {
                "frame": self.divergence.frame, "time": self.divergence.time,
                "channels": [row(r) for r in self.divergence.channels]},
            "motion_divergence": None if self.motion is None else {
                "frame": self.motion.frame, "time": self.motion.time,
                "channels": [row(r) for r in self.motion.channels]},
        }

    def csv_text(self) -> str:
        """Per compared frame: t, then ``name.a``, ``name.b``, ``name.delta`` for every channel, each column with
        its display unit in brackets as a telemetry CSV's header has it (``heading.a [deg]``, ``gear.a``)."""
        handle = io.StringIO()
        self.write_csv_rows(handle)
        return handle.getvalue()

    def write_csv_rows(self, handle: IO[str]) -> None:
        """:meth:`csv_text` into ``handle``, a block of frames at a time (a long comparison is never held whole as
        text, nor as a matrix of its three columns per channel)."""
        names = [n for n in self.a_values if n != "t" and n not in self.left_out]
        units = self.units()

        def cell(name: str, unit: str) -> str:
            return f"{name} [{unit}]" if unit else name

        header = [cell("t", units.get("t", "s"))] + [cell(f"{n}.{part}", units.get(n, "")) for n in names
                                                      for part in ("a", "b", "delta")]
        handle.write(",".join(header) + "\n")
        for first in range(0, len(self.t), _CSV_BLOCK):
            block = slice(first, first + _CSV_BLOCK)
            columns = [self.t[block]]
            for n in names:
                a, b = self.a_values[n][block], self.b_values[n][block]
                columns += [a, b, b - a]
            handle.write("".join(",".join(map(repr, row)) + "\n" for row in np.column_stack(columns).tolist()))

    def write_csv(self, path: str | Path) -> Path:
        with atomic_writer(path) as handle:
            self.write_csv_rows(handle)
        return Path(path)


_CSV_BLOCK = 256  # frames of a comparison's CSV made into text at a time


def _v(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value + 0.0:g}" if isinstance(value, float) else str(value)  # + 0.0: no "-0"


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _scaled(value: Any, factor: float) -> Any:
    if factor == 1.0 or isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value * factor
    if isinstance(value, (list, tuple)):
        return [_scaled(v, factor) for v in value]
    return value


def param_diff(a: CarParams, b: CarParams) -> list[ParamRow]:
    """Every parameter whose value differs between the two cars (or that only one of them has), in display units."""
    infos_a = {i.path: i for i in a.infos()}
    infos_b = {i.path: i for i in b.infos()}
    rows = []
    for path in dict.fromkeys([*infos_a, *infos_b]):
        va = a.get(path) if path in infos_a else None
        vb = b.get(path) if path in infos_b else None
        if va != vb:
            info = infos_a.get(path) or infos_b[path]
            unit, factor = display_of(info)
            rows.append(ParamRow(path, _scaled(va, factor), _scaled(vb, factor), unit))
    return rows


def edit_rows(run: Run, name: str, t: np.ndarray) -> list[EditRow]:
    """Every parameter ``run`` changed part-way, one row per parameter and change; ``beyond`` marks those made past
    the compared frames (``t``), where the other run had ended."""
    rows, params = [], run.params
    end = float(t[-1]) if len(t) else -1.0
    for frame, changed in run.changes:
        time = frame * run.dt
        if params is not None:
            rows += [EditRow(name, frame, time, r.path, r.a, r.b, r.unit, time > end + 1e-9)
                     for r in param_diff(params, changed)]
        params = changed
    return rows


def verdict_rows(a: list[Verdict] | None, b: list[Verdict] | None) -> list[VerdictRow]:
    """Expectations of both runs matched by label (one script's own expectations line up one to one)."""
    if a is None and b is None:
        return []
    by_a = {v.expect.label(): v for v in a or []}
    by_b = {v.expect.label(): v for v in b or []}
    return [VerdictRow(label, by_a.get(label), by_b.get(label)) for label in dict.fromkeys([*by_a, *by_b])]


def stepwise(info) -> bool:
    """Whether a channel holds whole steps (the gear, an on/off flag such as ``wheelspin``): between two frames it is
    what the earlier one says, never a mix of two (interpolated, a gear read 2.424 and a flag 0.568)."""
    return info.name == "gear" or "(1) or" in info.doc


def _on_grid(run: Run, t: np.ndarray, exact: bool) -> dict[str, np.ndarray]:
    out = {}
    own_t = run.data["t"]
    for info in run.infos:
        values = run.data[info.name]
        if exact:
            values = values[:len(t)]
        elif stepwise(info):  # the frame at or before each time (within rounding of the times)
            values = values[np.clip(np.searchsorted(own_t, t + 1e-9 * max(run.dt, 1e-12), side="right") - 1, 0,
                                    len(own_t) - 1)]
        else:
            values = np.interp(t, own_t, values)
        _, factor = display_unit(info)
        out[info.name] = values * factor if factor != 1.0 else values  # the run's own, read and never written
    return out


def compare(a: Run, b: Run, atol: float = ATOL, rtol: float = RTOL) -> Comparison:
    """Line ``a`` and ``b`` up frame by frame and report what differs (CompareError for runs of other units)."""
    if a.unit != b.unit:
        raise CompareError(f"A ({a.label}) is a car in {a.unit}, B ({b.label}) a car in {b.unit}: "
                           "their channels cannot be compared")
    if a.dt == b.dt:
        n = min(a.frames, b.frames)
        t = np.array(a.data["t"][:n])
        grid, exact = "the frames of both (same dt)", True
    else:
        coarse = a if a.dt > b.dt else b
        end = min(a.data["t"][-1], b.data["t"][-1])
        t = np.array(coarse.data["t"][coarse.data["t"] <= end + 1e-12])
        grid = (f"{'A' if coarse is a else 'B'}'s frame times (dt {coarse.dt:.6g} s), "
                f"{'B' if coarse is a else 'A'} (dt {(b if coarse is a else a).dt:.6g} s) linearly interpolated")
        exact = False
    a_values = _on_grid(a, t, exact or a.dt > b.dt)
    b_values = _on_grid(b, t, exact or b.dt > a.dt)
    result = Comparison(a, b, atol, rtol, grid, t, a_values, b_values)
    if not exact:
        result.frames_of = "A" if coarse is a else "B"
    ends = (a.data["t"][-1], b.data["t"][-1])
    # Within half a frame the spans are one. A CSV of one frame has no dt of its own (read as 1 s): half of that let
    # it agree with a run of up to 0.5 s (a review of the command line); the other run's dt is the frame then.
    known = [r.dt for r in (a, b) if r.frames > 1]
    if abs(ends[0] - ends[1]) > 0.5 * max(known, default=0.0):
        result.span_note = (f"the runs cover different spans: A to {ends[0]:.6g} s, B to {ends[1]:.6g} s "
                            "(compared where both ran)")
    if a.params is not None and b.params is not None:
        result.params = param_diff(a.params, b.params)
        result.edits = edit_rows(a, "A", t) + edit_rows(b, "B", t)
    result.verdicts = verdict_rows(a.verdicts, b.verdicts)
    units = result.units()
    # A channel a car lacks reads a constant there (the single-track car's load_fl 0 against the four-wheel car's
    # 3,924 N): compared, it was a divergence at frame 0 of a run whose motion had not moved.
    # (Channels neither car has stay: they are the same constant in both.)
    if a.params is not None and b.params is not None:
        has_a, has_b = ({info.name for info in channels_of(run.params)} for run in (a, b))
        result.left_out = [name for name in a_values if (name in has_a) != (name in has_b)]
    # A CSV of an earlier release lacks the channels added since: those of one run only are not compared either.
    result.left_out += [name for name in a_values if name not in b_values and name not in result.left_out]
    result.left_out += [name for name in b_values if name not in a_values]

    def a_frame(j: int) -> int:  # the compared frame's number: both runs' (one dt), or the frames_of run's
        return j

    first = len(t)
    bad_masks = {}
    for name in a_values:
        if name == "t" or not len(t) or name in result.left_out:
            continue
        va, vb = a_values[name], b_values[name]
        delta = vb - va
        j = int(np.argmax(np.abs(delta)))
        if delta[j] != 0.0:
            result.channels.append(ChannelRow(name, units[name], float(delta[j]), a_frame(j), float(t[j]), float(va[j]),
                                              float(vb[j])))
        bad = np.abs(delta) > atol + rtol * np.abs(va)
        if bad.any():
            bad_masks[name] = bad
            first = min(first, int(np.argmax(bad)))

    def divergence_at(j: int, names) -> Divergence:
        frame = a_frame(j)
        rows = tuple(ChannelRow(name, units[name], float(b_values[name][j] - a_values[name][j]), frame, float(t[j]),
                                float(a_values[name][j]), float(b_values[name][j]))
                     for name in names if bad_masks[name][j])
        return Divergence(frame, float(t[j]), rows)

    if first < len(t):
        result.divergence = divergence_at(first, bad_masks)
        moved = [name for name in MOTION if name in bad_masks]
        if moved:
            j = min(int(np.argmax(bad_masks[name])) for name in moved)
            if j > first:
                result.motion = divergence_at(j, moved)
    return result


def edited_program(base, overrides: dict[str, Any]):
    """``base`` (a Program) with ``overrides`` set from frame 0, after the script's own frame-0 settings.

    What the window re-runs after a parameter edit; ScriptError when the car refuses a value.
    """
    from dataclasses import replace

    from workbench.scripts.format import Setting
    from workbench.scripts.program import compile_script

    script = base.script
    if overrides:
        script = replace(script, sets=script.sets + (Setting(0.0, params=dict(overrides)),))
    return compile_script(script, base.preset_path if base.preset_path is not None else base.preset, base.dt)


def run_from_log(log, params: CarParams, dt: float, label: str, verdicts: list[Verdict] | None = None,
                 stamp: Stamp | None = None, car: int = 0, script: str | None = None,
                 changes: tuple[tuple[int, CarParams], ...] = ()) -> Run:
    """A run from a telemetry log (copied: the log may go on); ``changes`` the parameters changed part-way."""
    data = {name: np.array(log.column(name, car)) for name in log.names}
    return Run(label, params.model.unit, dt, data, params, verdicts, stamp, script, tuple(changes))
