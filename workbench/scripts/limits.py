"""Limits on every size a user can type: script files, durations, timesteps and the memory a replay needs.

A replay allocates its telemetry up front (every channel of every frame), so a duration of 1e9 s or
a dt of 1e-12 s would otherwise end in an allocation failure, or in hours of swapping. Each limit is
checked before anything is allocated or run, and the refusal says what was asked and what is allowed.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

MAX_SCRIPT_BYTES = 16 * 1024 * 1024
"""A script file larger than this is refused unread (a recorded hour is about 1 MB of TOML)."""

MAX_DURATION = 24 * 3600.0
"""Longest script [s]: one day of simulated driving."""

MIN_DT = 1e-5
"""Smallest timestep [s] (100 kHz); the model's upper limit is physics.simulation.MAX_DT."""

DEFAULT_MAX_MEMORY = 2 * 1024**3
"""Default telemetry budget of one run [bytes] (``--max-memory``)."""

MAX_MEMORY_LIMIT = 1024**5
"""The largest ``--max-memory`` taken [bytes]: 1 PiB, past any machine's memory (a typed 1e290T was taken)."""

MAX_HUNT_CARS = 10_000
"""Most random scripts ``carbench hunt`` runs per preset (one batch)."""

MAX_HUNT_SECONDS = 600.0
"""Longest random script of ``carbench hunt`` [s]."""

CHANNEL_BYTES = 8  # every channel is float64
INPUT_BYTES_PER_FRAME = 2 * (8 + 4 + 4 * 8 + 1 + 8)  # a program's input arrays and the replay's copy of them


class LimitError(ValueError):
    """A size beyond its limit; the message names what was asked and what is allowed."""


def check_regular_file(path: str | os.PathLike, what: str = "script", max_bytes: int = MAX_SCRIPT_BYTES) -> Path:
    """``path`` when it is a regular file no larger than ``max_bytes``; LimitError (or FileNotFoundError) otherwise.

    Devices (``/dev/zero``), FIFOs and sockets are refused before they are opened: reading them
    would never end or would block.
    """
    path = Path(path)
    _check_info(path, path.stat(), what, max_bytes)  # FileNotFoundError for a missing file: the caller words that one
    return path


def open_regular(path: str | os.PathLike, what: str = "script", max_bytes: int = MAX_SCRIPT_BYTES):
    """``path`` opened for reading (binary) when it is a regular file no larger than ``max_bytes``, as
    :func:`check_regular_file` says; checked again on the file opened, which is opened without waiting for a writer:
    a file swapped for a FIFO after the check (an editor's save, another program) would have blocked the read for
    good, and one swapped for a device read without end."""
    path = check_regular_file(path, what, max_bytes)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        _check_info(path, os.fstat(fd), what, max_bytes)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _check_info(path: Path, info: os.stat_result, what: str, max_bytes: int) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise LimitError(f"{path}: is a directory, not a {what} file")
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device" if stat.S_ISCHR(info.st_mode)
                or stat.S_ISBLK(info.st_mode) else "a socket" if stat.S_ISSOCK(info.st_mode) else "a special file")
        raise LimitError(f"{path}: is {kind}, not a regular {what} file")
    if info.st_size > max_bytes:
        raise LimitError(too_large(path, info.st_size, max_bytes, what))


def too_large(path: str | os.PathLike, size: int, limit: int, what: str) -> str:
    """The refusal of a file of ``size`` bytes over ``limit``: in binary units, or in exact bytes where the
    rounded sizes would read the same ("1 GiB is larger than ... (1 GiB)")."""
    if format_bytes(size) != format_bytes(limit):
        return f"{path}: {format_bytes(size)} is larger than a {what} file may be ({format_bytes(limit)})"
    return f"{path}: {size:,} bytes is larger than a {what} file may be ({limit:,} bytes, {format_bytes(limit)})"


def read_limited_bytes(path: str | os.PathLike, what: str = "script", max_bytes: int = MAX_SCRIPT_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``."""
    path = Path(path)
    with open_regular(path, what, max_bytes) as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew after the check
        raise LimitError(f"{path}: larger than a {what} file may be ({max_bytes:,} bytes, {format_bytes(max_bytes)})")
    return data


def read_limited_text(path: str | os.PathLike, what: str = "script", max_bytes: int = MAX_SCRIPT_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes`` (a byte-order mark is dropped)."""
    return read_limited_bytes(path, what, max_bytes).decode("utf-8-sig")


def telemetry_bytes(frames: int, channels: int, cars: int = 1) -> int:
    """What the telemetry of ``cars`` cars over ``frames`` frames takes in memory."""
    return frames * channels * cars * CHANNEL_BYTES


def run_bytes(frames: int, channels: int, cars: int = 1) -> int:
    """The telemetry plus the per-frame input arrays a replay of that size allocates."""
    return telemetry_bytes(frames, channels, cars) + frames * cars * INPUT_BYTES_PER_FRAME


def check_memory(frames: int, channels: int, cars: int = 1, budget: int = DEFAULT_MAX_MEMORY,
                 where: str = "", option: str | None = "--max-memory") -> None:
    """LimitError when a run of this size would not fit in ``budget`` bytes; the line names ``option`` as the way to
    raise the budget (None: the command has no such option, and the line names none)."""
    need = run_bytes(frames, channels, cars)
    if need > budget:
        who = f"{where}: " if where else ""
        cars_text = f" x {cars} cars" if cars > 1 else ""
        raise LimitError(f"{who}{frames:,} frames{cars_text} of {channels} channels would take "
                         f"{format_bytes(need)}, over the memory budget of {format_bytes(budget)} "
                         + (f"(shorten the script, raise dt, or raise {option})" if option else
                            "(shorten the script or raise dt)"))


def check_memory_total(frames: int, need: int, budget: int = DEFAULT_MAX_MEMORY, scripts: int = 1) -> None:
    """LimitError when a whole replay (``frames`` car-frames needing ``need`` bytes) exceeds ``budget``."""
    if need > budget:
        what = f"{scripts} scripts" if scripts > 1 else "the script"
        raise LimitError(f"replaying {what} takes {frames:,} frames of telemetry, {format_bytes(need)}, over the "
                         f"memory budget of {format_bytes(budget)} (replay fewer at once, or raise --max-memory)")


def format_bytes(n: float) -> str:
    """``n`` bytes in the largest binary unit that keeps it >= 1 (``2 GiB``, ``14.6 TiB``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A number as a user types one on the command line: ASCII digits, a point and an exponent (``0.005``, ``5e-3``,
``-2``). Python's ``float`` also reads other scripts' digits (``0.0\u0661`` as 0.01), underscores, spaces around it
and the words inf and nan, none of which a shell user means as a number; every option that takes a number is held
to this, as whole numbers are to workbench.cli.whole_number."""


_SUFFIXES = {"": 1, "b": 1, "k": 1024, "kb": 1000, "kib": 1024, "m": 1024**2, "mb": 1000**2, "mib": 1024**2,
             "g": 1024**3, "gb": 1000**3, "gib": 1024**3, "t": 1024**4, "tb": 1000**4, "tib": 1024**4}


_NOT_NUMBERS = re.compile(r"[+-]?(?:nan|infinity|inf)")  # words float() reads, which end in letters like a unit
_EXAMPLE = "a number of bytes, or one with K, M, G, T (e.g. 2G, 512M)"


def parse_bytes(text: str) -> int:
    """A size typed by a user: ``2G``, ``512MiB``, ``1.5GB``, ``1000000`` (bytes); ValueError when unreadable.

    The refusal says which part is wrong: no number at all, a number that is not one (``nanG``, ``1.2.3G``), one
    that is not finite (``infG``), the unit, or the size (zero or negative, under a byte, too large). The text is
    quoted as typed, not as a repr: the line's printer escapes it once (workbench.streams.one_line)."""
    raw = text.strip().lower().replace(" ", "")
    if not raw:
        raise ValueError(f"'{text}': an empty size; give {_EXAMPLE}")
    word = _NOT_NUMBERS.match(raw)
    if word and raw[word.end():] not in _SUFFIXES:
        word = None  # information, nan1G
    number = word.group(0) if word else raw.rstrip("abcdefghijklmnopqrstuvwxyz")
    suffix = raw[len(number):]
    if number in ("", "+", "-"):
        raise ValueError(f"'{text}': no number; give {_EXAMPLE}")
    if suffix not in _SUFFIXES:
        raise ValueError(f"'{text}': unknown unit '{suffix}'; use a number of bytes or K, M, G, T (KiB, MiB, GiB ...)")
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"'{text}': '{number}' is not a number; give {_EXAMPLE}") from None
    if value != value or not (word or DECIMAL.fullmatch(number)):
        raise ValueError(f"'{text}': '{number}' is not a number; give {_EXAMPLE}")
    if word:  # inf, -infinity: read by float(), but no size
        raise ValueError(f"'{text}': '{number}' is not a finite number; give {_EXAMPLE}")
    from physics.toml_text import underflows  # (here: the physics package is not loaded to start the command line)

    if value == float("inf") or underflows(number, value):
        raise ValueError(f"'{text}': '{number}' is beyond a floating-point number's range")  # 1e400, 1e-400 as typed
    if not value > 0:
        raise ValueError(f"'{text}': the size must be positive")
    size = value * _SUFFIXES[suffix]
    if size == float("inf"):  # 1e400, or 1e306T
        raise ValueError(f"'{text}': too large a size")
    if size < 1:  # 0.1, or 1e-300G: a budget of 0 bytes
        raise ValueError(f"'{text}': less than one byte")
    return int(size)
