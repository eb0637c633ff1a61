"""Input scripts (SPEC 4): the TOML format people write and the recorder writes, parsed strictly.

A script is data: what the driver does (``[[hold]]`` keys over [from, to), ``[[set]]`` settings
at a time, ``[[track]]`` an analog control's value frame by frame) and what must be true (``[[expect]]``). Parsing checks the structure; compiling a
script against a car (``workbench.scripts.program``) checks what needs the car (channels, gears, params).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from physics import ANALOG, KEYS, channel_names
from physics.presets import scripts_dir
from physics.simulation import MAX_DT
from physics.toml_text import MAX_KEY_PARTS, beyond_a_float, long_key_line, read_float, shown_literal
from workbench.output.files import atomic_write_text
from workbench.runs.stamp import Stamp, stamp_from_table
from workbench.scripts import toml_writer
from workbench.scripts.driver_format import DriverSpec, FormatError, RobotSpec, parse_driver, parse_robot
from workbench.scripts.limits import MAX_DURATION, MIN_DT, LimitError, read_limited_text
from workbench.scripts.surfaces import Surface, check_surfaces, parse_surface
from workbench.scripts.track import Track, check_tracks, parse_track

SCRIPT_KEYS = ("name", "preset", "duration", "dt", "frames", "description", "manoeuvre")
ON_FRAME = 1e-6  # [frames] how far `duration` may be off `frames` * dt (a time written with 17 digits is within 1e-12)
MAX_BOUND = 1e300  # an [[expect]] bound or a [[measure]] threshold: times a display factor (57.3 for degrees) it stays finite
SET_KEYS = ("at", "gear", "release", "params") + ANALOG
HOLD_KEYS = ("keys", "from", "to")
GEAR_KEYS = ("gear_up", "gear_down")  # refused for a car without a gearbox, like [[set]] gear
EXPECT_KEYS = ("channel", "at", "from", "to", "min", "max", "name")
MEASURE_KEYS = ("name", "channel", "at", "from", "to", "reduce", "first_time_above", "first_time_below")
REDUCERS = ("min", "max", "mean", "final")
CROSSINGS = ("first_time_above", "first_time_below")
MONITOR_KEYS = ("name", "tolerance")
ANALOG_RANGES = {"steer": (-1.0, 1.0), "throttle_pedal": (0.0, 1.0), "brake_pedal": (0.0, 1.0),
                 "clutch_pedal": (0.0, 1.0)}


class ScriptError(ValueError):
    """A script that cannot be used; the message names the file, the entry and the reason.

    ``str()`` is the message as the window shows it, ``raw`` as a printer that escapes it takes it (the command line's
    lines, workbench.streams.one_line): the same text, but where the message quotes a name that is not UTF-8, which
    ``str()`` holds escaped already (Qt drops a lone surrogate) and ``raw`` as it is (escaped twice otherwise)."""

    def __init__(self, message: str, raw: str | None = None):
        super().__init__(message)
        self.raw = message if raw is None else raw


@dataclass(frozen=True)
class Hold:
    """Keys held over the frames of [start, end)."""

    keys: tuple[str, ...]
    start: float
    end: float


@dataclass(frozen=True)
class Setting:
    """Discrete settings from frame ``at`` on: a gear, analog overrides, releases, parameter changes."""

    at: float
    gear: int | None = None
    analog: dict[str, float] = field(default_factory=dict)
    release: tuple[str, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Expect:
    """A channel held between bounds at one frame (``at``) or on every frame of [start, end)."""

    channel: str
    at: float | None = None
    start: float | None = None
    end: float | None = None
    min: float | None = None
    max: float | None = None
    name: str | None = None

    def label(self) -> str:
        """How the verdict table names this expectation."""
        if self.name:
            return self.name
        when = f"at {self.at:g} s" if self.at is not None else f"over {self.start:g}..{self.end:g} s"
        return f"{self.channel} {when}"

    def bound_text(self, compact: bool = False, scale: float = 1.0) -> str:
        """The bound in words: ">= 9 and <= 12", or with ``compact`` "9 .. 12" (times ``scale``: a display unit)."""
        lo = None if self.min is None else self.min * scale
        hi = None if self.max is None else self.max * scale
        if compact and lo is not None and hi is not None:
            return f"{lo:g} .. {hi:g}"
        parts = []
        if lo is not None:
            parts.append(f">= {lo:g}")
        if hi is not None:
            parts.append(f"<= {hi:g}")
        return " and ".join(parts)


@dataclass(frozen=True)
class Measure:
    """A number taken from a channel at one frame (``at``) or over the frames of [start, end).

    ``reduce`` is min, max, mean or final (the value), or first_time_above / first_time_below
    (the script time [s] of the first frame of the window where the channel reaches
    ``threshold``: >= for above, <= for below; None when it never does). Values and thresholds
    are in the channel's unit, as [[expect]]'s bounds are.
    """

    name: str
    channel: str
    reduce: str = "final"
    threshold: float | None = None
    at: float | None = None
    start: float | None = None
    end: float | None = None

    @property
    def is_time(self) -> bool:
        """Whether the value is a time [s] rather than the channel's value."""
        return self.reduce in CROSSINGS

    def how(self, scale: float = 1.0, unit: str = "") -> str:
        """The reduction in words: "max over 0..20 s", "first time above 100 in 0..20 s"; the threshold times
        ``scale``, with ``unit`` (a channel's display unit)."""
        when = f"at {self.at:g} s" if self.at is not None else f"{self.start:g}..{self.end:g} s"
        if self.is_time:
            shown = f"{self.threshold * scale:g}" + (f" {unit}" if unit else "")
            return f"first time {self.reduce.rsplit('_', 1)[1]} {shown}, {when}"
        if self.at is not None:
            return when
        return f"{self.reduce} over {when}"


@dataclass(frozen=True)
class MonitorCheck:
    """An invariant monitor (``workbench.runs.monitors``) that must hold on every frame of the script."""

    name: str
    tolerance: float | None = None


@dataclass(frozen=True)
class Script:
    """A parsed script; ``source`` names where it came from (a path or a description)."""

    name: str
    preset: str
    duration: float
    dt: float | None = None
    description: str = ""
    sets: tuple[Setting, ...] = ()
    holds: tuple[Hold, ...] = ()
    expects: tuple[Expect, ...] = ()
    source: str = "<script>"
    measures: tuple[Measure, ...] = ()
    monitors: tuple[MonitorCheck, ...] = ()
    recorded: Stamp | None = None  # a recording's stamp: what it was recorded with
    tracks: tuple[Track, ...] = ()  # per-frame values of analog controls (workbench.scripts.track)
    surfaces: tuple[Surface, ...] = ()  # patches of road under the tyres (workbench.scripts.surfaces)
    driver: DriverSpec | None = None  # [driver]: the closed-loop driver
    robot: RobotSpec | None = None  # [robot]: the open-loop steering robot
    manoeuvre: str | None = None  # [script] manoeuvre: the handling test whose KPIs this run gives
    # [script] frames: the run is the frames before `duration` (a recording of N frames: duration N * dt, frames N);
    # None: the frame at t = duration is one too (frames 0 .. duration / dt), as a script written by hand has it
    frames: int | None = None

    def to_document(self) -> dict[str, Any]:
        """The script as a TOML-ready dict (what :func:`parse_script` reads back identically)."""
        head: dict[str, Any] = {"name": self.name, "preset": self.preset, "duration": self.duration}
        if self.dt is not None:
            head["dt"] = self.dt
        if self.frames is not None:
            head["frames"] = self.frames
        if self.description:
            head["description"] = self.description
        if self.manoeuvre:
            head["manoeuvre"] = self.manoeuvre
        doc: dict[str, Any] = {"script": head}
        if self.driver is not None:
            doc["driver"] = self.driver.to_table()
        if self.robot is not None:
            doc["robot"] = self.robot.to_table()
        if self.sets:
            doc["set"] = [_setting_table(s) for s in self.sets]
        if self.holds:
            doc["hold"] = [{"keys": list(h.keys), "from": h.start, "to": h.end} for h in self.holds]
        if self.tracks:
            doc["track"] = [t.to_table() for t in self.tracks]
        if self.surfaces:
            doc["surface"] = [s.to_table() for s in self.surfaces]
        if self.expects:
            doc["expect"] = [_expect_table(e) for e in self.expects]
        if self.measures:
            doc["measure"] = [_measure_table(m) for m in self.measures]
        if self.monitors:
            doc["monitor"] = [{"name": m.name, **({} if m.tolerance is None else {"tolerance": m.tolerance})}
                              for m in self.monitors]
        if self.recorded is not None:
            doc["recorded"] = self.recorded.to_table()
        return doc

    def to_toml(self) -> str:
        return toml_writer.dumps(self.to_document())

    def file_text(self, path: str | Path, before: str = "") -> str:
        """``before`` and the script's TOML, as a file at ``path`` holds them; ScriptError where the script names a
        file whose name is not UTF-8 (its bytes read as lone surrogates: a preset ``car\\xe9.toml``), which a
        UTF-8 file cannot name so that it is found again (UnicodeEncodeError out of the save, a traceback)."""
        text = before + self.to_toml()
        _utf8(text, path)
        return text

    def save(self, path: str | Path) -> Path:
        """Write the script atomically; ScriptError, and nothing written, where it would be larger than carbench
        reads a script (MAX_SCRIPT_BYTES): a 40-minute recording was saved, then refused by every command."""
        from workbench.scripts.limits import MAX_SCRIPT_BYTES, format_bytes

        text = self.to_toml()
        size = len(_utf8(text, path))
        if size > MAX_SCRIPT_BYTES:
            raise ScriptError(f"{path}: {format_bytes(size)} is larger than a script may be "
                              f"({format_bytes(MAX_SCRIPT_BYTES)}): not saved; a shorter recording (stop it and "
                              "start another) stays within it")
        return atomic_write_text(path, text)


def _utf8(text: str, path: str | Path) -> bytes:
    """A script file's ``text`` as UTF-8; ScriptError where it holds a name that is not (see :meth:`Script.file_text`),
    naming its line."""
    from workbench.names import printable

    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        line = exc.object[:exc.start].count("\n")
        said = exc.object.splitlines()[line].strip()

        def message(quoted: str) -> str:
            return (f"{path}: not written: a name in it is not UTF-8 (`{quoted}`): a file name's bytes, which a script "
                    "cannot hold; rename that file")

        # escaped for the window (Qt drops a lone surrogate); as it is for a line the command line escapes once
        raise ScriptError(message(printable(said)), raw=message(said)) from None


def _setting_table(s: Setting) -> dict[str, Any]:
    table: dict[str, Any] = {"at": s.at}
    if s.gear is not None:
        table["gear"] = s.gear
    table.update(s.analog)
    if s.release:
        table["release"] = list(s.release)
    if s.params:
        table["params"] = dict(s.params)
    return table


def _expect_table(e: Expect) -> dict[str, Any]:
    table: dict[str, Any] = {}
    if e.name:
        table["name"] = e.name
    table["channel"] = e.channel
    if e.at is not None:
        table["at"] = e.at
    else:
        table["from"], table["to"] = e.start, e.end
    if e.min is not None:
        table["min"] = e.min
    if e.max is not None:
        table["max"] = e.max
    return table


def exact_digits(value: float) -> str:
    """A number refused against a limit, in as few digits as tell it from every other (``0.05000000001``, where
    ``:g`` wrote "0.05 s must be in [1e-05, 0.05] s")."""
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


def shipped_script_names() -> list[str]:
    """Names of the scripts in ``presets/scripts`` (file stems)."""
    return sorted(p.stem for p in scripts_dir().glob("*.toml"))


def number_problem(exc: BaseException) -> str:
    """The reason a TOML value could not be read, in words (a number, or a value nested past Python's recursion)."""
    if isinstance(exc, RecursionError):  # "maximum recursion depth exceeded", as the scripts' own reading says it
        return "nested too deeply"
    text = str(exc)
    if "integer string conversion" in text:
        return "a number of more than 4,300 digits"
    return text


def resolve_script(name_or_path: str | Path) -> Path:
    """The file a script argument means (workbench.names: an existing regular file, else a shipped name).

    ScriptError, saying which rule applied, when it names neither.
    """
    from workbench.names import NameRuleError, resolve_script_name

    try:
        return resolve_script_name(name_or_path)
    except NameRuleError as exc:
        raise ScriptError(str(exc)) from None


def _measure_table(m: Measure) -> dict[str, Any]:
    table: dict[str, Any] = {"name": m.name, "channel": m.channel}
    if m.at is not None:
        table["at"] = m.at
    else:
        table["from"], table["to"] = m.start, m.end
    if m.is_time:
        table[m.reduce] = m.threshold
    elif m.at is None or m.reduce != "final":
        table["reduce"] = m.reduce
    return table


def load_script(path: str | Path) -> Script:
    """Read and parse a script file; ScriptError names the file on any problem.

    Only a regular file of at most ``limits.MAX_SCRIPT_BYTES`` is read (never a device or a FIFO).
    """
    path = Path(path)
    try:
        text = read_limited_text(path, "script")
    except FileNotFoundError:
        hint = "" if path.parent != Path(".") else f" (the shipped scripts are: {', '.join(shipped_script_names())})"
        raise ScriptError(f"{path}: no such script file{hint}") from None
    except LimitError as exc:
        raise ScriptError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise ScriptError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ScriptError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    return parse_script(text, str(path))


def parse_script(text: str, source: str = "<script>") -> Script:
    """Parse script TOML strictly: bad TOML (with its line), unknown keys, bad times and values are refused."""
    line = long_key_line(text)
    if line is not None:  # before tomllib, whose time grows with the square of a key's length
        raise ScriptError(f"{source}: line {line}: a dotted key of more than {MAX_KEY_PARTS} parts")
    try:
        # a byte-order mark some editors write
        doc = tomllib.loads(text.removeprefix("\ufeff"), parse_float=read_float)
    except tomllib.TOMLDecodeError as exc:
        raise ScriptError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ScriptError(f"{source}: not valid TOML: nested too deeply") from None
    except (ValueError, OverflowError) as exc:  # an integer of thousands of digits
        raise ScriptError(f"{source}: not valid TOML: {number_problem(exc)}") from None
    beyond = beyond_a_float(doc)
    if beyond is not None:
        where, typed = beyond
        raise ScriptError(f"{source}: {where}: {shown_literal(typed)} is beyond a floating-point number's range")
    return _Parser(source).document(doc)


def _unknown_manoeuvre(name: str) -> str | None:
    """Why ``name`` (a script's ``[script] manoeuvre``) names no handling test, listing the tests, or None: the names
    the catalogue takes (a test's own, or its shipped script's), as a sweep and the window's KPI dock take them."""
    # Imported here: the catalogue's tests read their shipped scripts with this module, at import
    from workbench.manoeuvres.catalogue import manoeuvre

    try:
        manoeuvre(name)
    except KeyError as exc:
        return exc.args[0]
    return None


def _shown(value) -> str:
    """A value as a message shows it: its repr, cut to 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def first_repeat(names) -> tuple[int, int] | None:
    """The first name given twice, as (where it was first, where again), numbered from 1; None where none is (a
    dictionary of the first places: a list's index() per name took 75 s over 100,000 measures)."""
    first: dict[str, int] = {}
    for j, name in enumerate(names, 1):
        if name in first:
            return first[name], j
        first[name] = j
    return None


class _Parser:
    def __init__(self, source: str):
        self.source = source
        self.open_end = False  # [script] frames: the frame at t = duration is not one of the run's

    def fail(self, where: str, reason: str) -> ScriptError:
        return ScriptError(f"{self.source}: {where}: {reason}")

    def document(self, doc: dict[str, Any]) -> Script:
        unknown = [k for k in doc if k not in ("script", "set", "hold", "expect", "measure", "monitor", "recorded",
                                               "track", "driver", "robot", "surface")]
        if unknown and "script" not in doc and {"model", "body"} & set(doc):
            raise ScriptError(f"{self.source}: a car's parameters (a preset: [{unknown[0]}]), not a script; open it "
                              "as a preset (carbench --preset, or Open preset in the window's File menu)")
        if unknown:
            raise self.fail(unknown[0], "unknown table; a script has [script], [[set]], [[hold]], [[track]], "
                                        "[[expect]], [[measure]], [[monitor]], [[surface]], [driver], [robot] "
                                        "and, when recorded, [recorded]")
        head = doc.get("script")
        if isinstance(head, list):
            raise self.fail("[script]", "must be one table written [script], not an array [[script]]")
        if head is None:
            raise self.fail("[script]", "missing (it needs name, preset and duration)")
        if not isinstance(head, dict):
            raise self.fail("[script]", f"must be a table (name, preset and duration), got script = {_shown(head)}")
        self.known_keys(head, SCRIPT_KEYS, "[script]")
        for key in ("name", "preset", "duration"):
            if key not in head:
                raise self.fail("[script]", f"`{key}` is missing")
        name = self.text(head["name"], "[script] name")
        preset = self.text(head["preset"], "[script] preset")
        duration = self.number(head["duration"], "[script] duration")
        if duration <= 0:
            raise self.fail("[script] duration", f"{exact_digits(duration)} s: must be positive")
        if duration > MAX_DURATION:
            raise self.fail("[script] duration", f"{duration!r} s is longer than a script may be "
                                                 f"({MAX_DURATION:g} s, one day)")
        dt = None
        if "dt" in head:
            dt = self.number(head["dt"], "[script] dt")
            if not MIN_DT <= dt <= MAX_DT:
                raise self.fail("[script] dt", f"{exact_digits(dt)} s must be in [{MIN_DT:g}, {MAX_DT:g}] s")
        frames = self.frames_of(head, duration, dt) if "frames" in head else None
        description = self.text(head.get("description", ""), "[script] description", empty_ok=True)
        manoeuvre = self.text(head["manoeuvre"], "[script] manoeuvre") if "manoeuvre" in head else None
        if manoeuvre is not None:
            unknown_test = _unknown_manoeuvre(manoeuvre)
            if unknown_test:  # a typo: replay and the window took it (the KPI dock said "No KPIs"), a sweep refused it
                raise self.fail("[script] manoeuvre", unknown_test)
        self.duration = duration
        self.open_end = frames is not None
        try:
            driver = parse_driver(doc["driver"], duration) if "driver" in doc else None
            robot = parse_robot(doc["robot"], duration) if "robot" in doc else None
        except FormatError as exc:
            raise ScriptError(f"{self.source}: {exc}") from None
        if robot is not None and driver is not None and driver.path is not None:
            raise self.fail("[robot]", "the robot steers, so the driver cannot also follow a path: drop "
                                       "[driver.path] (the driver still holds the speed)")
        sets = tuple(self.setting(t, i) for i, t in enumerate(self.array(doc, "set"), 1))
        self.check_same_time(sets)
        holds = tuple(self.hold(t, i) for i, t in enumerate(self.array(doc, "hold"), 1))
        tracks = tuple(parse_track(self, t, i, dt, ANALOG_RANGES) for i, t in enumerate(self.array(doc, "track"), 1))
        check_tracks(self, tracks, sets, dt)
        if frames is not None:
            for i, track in enumerate(tracks, 1):
                if track.end(dt) > (frames - 1 + ON_FRAME) * dt:
                    raise self.fail(f"[[track]] #{i}", f"its last value's frame ({track.end(dt):g} s) is past the "
                                                       f"last of the script's {frames} frames ({(frames - 1) * dt:g} s)")
        surfaces = tuple(parse_surface(self, t, i) for i, t in enumerate(self.array(doc, "surface"), 1))
        check_surfaces(self, surfaces)
        expects = tuple(self.expect(t, i) for i, t in enumerate(self.array(doc, "expect"), 1))
        measures = tuple(self.measure(t, i) for i, t in enumerate(self.array(doc, "measure"), 1))
        repeat = first_repeat(m.name for m in measures)
        if repeat is not None:
            i, j = repeat
            raise self.fail(f"[[measure]] #{j}", f"name {measures[i - 1].name!r} is already used by [[measure]] #{i}")
        checks = tuple(self.monitor(t, i) for i, t in enumerate(self.array(doc, "monitor"), 1))
        repeat = first_repeat(check.name for check in checks)  # (the second's tolerance replaced the first's)
        if repeat is not None:
            i, j = repeat
            raise self.fail(f"[[monitor]] #{j}", f"monitor {checks[i - 1].name!r} is already checked by [[monitor]] "
                                                 f"#{i}; one entry per monitor")
        recorded = None
        if "recorded" in doc:
            if isinstance(doc["recorded"], list):
                raise self.fail("[recorded]", "must be one table written [recorded], not an array [[recorded]]")
            try:
                recorded = stamp_from_table(doc["recorded"])
            except ValueError as exc:
                raise ScriptError(f"{self.source}: {exc}") from None
        return Script(name, preset, duration, dt, description, sets, holds, expects, self.source,
                      measures=measures, monitors=checks, recorded=recorded, tracks=tracks, surfaces=surfaces, driver=driver,
                      robot=robot, manoeuvre=manoeuvre, frames=frames)

    def array(self, doc, name) -> list[dict]:
        entries = doc.get(name, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise self.fail(f"[[{name}]]", "must be an array of tables ([[" + name + "]] entries)")
        return entries

    def known_keys(self, table, allowed, where):
        for key in table:
            if key not in allowed:
                raise self.fail(where, f"unknown key `{key}`; allowed: {', '.join(allowed)}")

    def text(self, value, where, empty_ok=False) -> str:
        if not isinstance(value, str) or (not value and not empty_ok):
            raise self.fail(where, f"expected a non-empty string, got {value!r}")
        return value

    def number(self, value, where) -> float:
        try:
            ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
        except OverflowError:  # an integer too large for a float (TOML integers are unbounded)
            ok = False
        if not ok:
            raise self.fail(where, f"expected a finite number, got {_shown(value)}")
        return float(value)

    def bound(self, value, where) -> float:
        """A bound or threshold on a channel: a finite number whose display unit (x 57.3 for degrees) stays finite."""
        number = self.number(value, where)
        if abs(number) > MAX_BOUND:
            raise self.fail(where, f"{_shown(value)} is beyond {MAX_BOUND:g} (in its display unit it would overflow)")
        return number

    def frames_of(self, head, duration: float, dt: float | None) -> int:
        """``[script] frames``: the run's frame count, the frames before ``duration`` (duration / dt of them)."""
        value = head["frames"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail("[script] frames", f"must be a whole number of frames, 1 or more, got {_shown(value)}")
        if dt is None:
            raise self.fail("[script] frames", "needs [script] dt: the frames are of the script's dt")
        if abs(duration / dt - value) > ON_FRAME:
            raise self.fail("[script] frames", f"{value} frames of dt = {dt!r} s do not last the duration "
                                               f"({exact_digits(duration)} s, {duration / dt:.6g} frames): a run of "
                                               "`frames` is the frames before its duration")
        return value

    def time(self, table, key, where, *, end_ok: bool = True, frame: bool = False) -> float:
        """``table[key]``, a time in [0, duration] (``end_ok`` False: before the duration); ``frame``: the time of a
        frame of the run (one before the duration, where ``[script] frames`` leaves the frame at the duration out)."""
        t = self.number(table[key], f"{where} `{key}`")
        if t < 0:
            raise self.fail(where, f"`{key}` = {exact_digits(t)} is before the start (0 s)")
        if t > self.duration:
            raise self.fail(where, f"`{key}` = {exact_digits(t)} is past the script's duration ({exact_digits(self.duration)} s)")
        if t == self.duration and not end_ok:
            raise self.fail(where, f"`{key}` = {exact_digits(t)} is the script's end ({exact_digits(self.duration)} s): nothing is left after it")
        if t == self.duration and frame and self.open_end:
            raise self.fail(where, f"`{key}` = {exact_digits(t)} is the script's end ({exact_digits(self.duration)} s), "
                                   "which `frames` leaves out: its last frame is one dt before")
        return t

    def setting(self, table, i) -> Setting:
        where = f"[[set]] #{i}"
        self.known_keys(table, SET_KEYS, where)
        if "at" not in table:
            raise self.fail(where, "`at` is missing")
        at = self.time(table, "at", where, frame=True)
        gear = None
        if "gear" in table:
            value = table["gear"]
            if isinstance(value, bool) or not isinstance(value, int):
                raise self.fail(where, f"`gear` must be a whole number (-1 reverse, 0 neutral, 1..), got {value!r}")
            gear = value
        analog = {}
        for name in ANALOG:
            if name in table:
                value = self.number(table[name], f"{where} `{name}`")
                lo, hi = ANALOG_RANGES[name]
                if not lo <= value <= hi:
                    raise self.fail(where, f"`{name}` = {exact_digits(value)} is out of range {lo:g}..{hi:g}")
                analog[name] = value
        release = table.get("release", [])
        if not isinstance(release, list) or any(r not in ANALOG for r in release):
            raise self.fail(where, f"`release` must list analog controls among {', '.join(ANALOG)}, got {release!r}")
        clash = [r for r in release if r in analog]
        if clash:
            raise self.fail(where, f"`{clash[0]}` is both set and released")
        params = table.get("params", {})
        if not isinstance(params, dict):
            raise self.fail(where, "`params` must be a table of \"group.key\" = value")
        for key, value in params.items():
            if isinstance(value, dict):
                inner = next(iter(value), "key")
                raise self.fail(where, f"params: `{key}` reads as a table; quote the dotted name: "
                                       f"params = {{ \"{key}.{inner}\" = ... }}")
        if not (gear is not None or analog or release or params):
            raise self.fail(where, "sets nothing (give gear, an analog control, release or params)")
        return Setting(at, gear, analog, tuple(release), dict(params))

    def hold(self, table, i) -> Hold:
        where = f"[[hold]] #{i}"
        self.known_keys(table, HOLD_KEYS, where)
        for key in HOLD_KEYS:
            if key not in table:
                raise self.fail(where, f"`{key}` is missing")
        keys = table["keys"]
        if not isinstance(keys, list) or not keys:
            raise self.fail(where, f"`keys` must be a non-empty list of keys ({', '.join(KEYS)})")
        for key in keys:
            if key not in KEYS:
                raise self.fail(where, f"unknown key {key!r}; the keys are: {', '.join(KEYS)}")
        start = self.time(table, "from", where, end_ok=False)
        end = self.time(table, "to", where)
        if end <= start:
            raise self.fail(where, f"`to` ({exact_digits(end)}) is not after `from` ({exact_digits(start)})")
        return Hold(tuple(keys), start, end)

    def expect(self, table, i) -> Expect:
        where = f"[[expect]] #{i}"
        self.known_keys(table, EXPECT_KEYS, where)
        if "channel" not in table:
            raise self.fail(where, "`channel` is missing")
        channel = self.text(table["channel"], f"{where} channel")
        known = channel_names("m")
        if channel not in known:
            raise self.fail(where, f"unknown channel {channel!r}; the channels are: {', '.join(known)}")
        name = self.text(table["name"], f"{where} name") if "name" in table else None
        lo = self.bound(table["min"], f"{where} min") if "min" in table else None
        hi = self.bound(table["max"], f"{where} max") if "max" in table else None
        if lo is None and hi is None:
            raise self.fail(where, "needs `min`, `max` or both")
        if lo is not None and hi is not None and hi < lo:
            raise self.fail(where, f"`max` ({exact_digits(hi)}) is below `min` ({exact_digits(lo)})")
        if "at" in table:
            if "from" in table or "to" in table:
                raise self.fail(where, "give either `at` (one frame) or `from`/`to` (a window), not both")
            return Expect(channel, at=self.time(table, "at", where, frame=True), min=lo, max=hi, name=name)
        if "from" not in table or "to" not in table:
            raise self.fail(where, "needs `at` (one frame) or both `from` and `to` (a window)")
        start = self.time(table, "from", where, end_ok=False)
        end = self.time(table, "to", where)
        if end <= start:
            raise self.fail(where, f"`to` ({exact_digits(end)}) is not after `from` ({exact_digits(start)})")
        return Expect(channel, start=start, end=end, min=lo, max=hi, name=name)

    def measure(self, table, i) -> Measure:
        where = f"[[measure]] #{i}"
        self.known_keys(table, MEASURE_KEYS, where)
        for key in ("name", "channel"):
            if key not in table:
                raise self.fail(where, f"`{key}` is missing")
        name = self.text(table["name"], f"{where} name")
        channel = self.text(table["channel"], f"{where} channel")
        known = channel_names("m")
        if channel not in known:
            raise self.fail(where, f"unknown channel {channel!r}; the channels are: {', '.join(known)}")
        given = [k for k in ("reduce",) + CROSSINGS if k in table]
        if len(given) > 1:
            raise self.fail(where, f"give one reduction: `reduce`, `first_time_above` or `first_time_below`, "
                                   f"not {' and '.join(f'`{g}`' for g in given)}")
        reduce, threshold = "final", None
        if "reduce" in table:
            reduce = table["reduce"]
            if reduce not in REDUCERS:
                crossing = " (write first_time_above = VALUE)" if reduce in CROSSINGS else ""
                raise self.fail(where, f"`reduce` = {reduce!r} is not a reducer; the reducers are: "
                                       f"{', '.join(REDUCERS)}, or first_time_above / first_time_below = VALUE"
                                       f"{crossing}")
        elif given:
            reduce = given[0]
            threshold = self.bound(table[reduce], f"{where} {reduce}")
        if "at" in table:
            if "from" in table or "to" in table:
                raise self.fail(where, "give either `at` (one frame) or `from`/`to` (a window), not both")
            return Measure(name, channel, reduce, threshold, at=self.time(table, "at", where, frame=True))
        if "from" not in table or "to" not in table:
            raise self.fail(where, "needs `at` (one frame) or both `from` and `to` (a window)")
        if not given:
            raise self.fail(where, "a window needs a reduction: `reduce` = min, max, mean or final, "
                                   "or first_time_above / first_time_below = VALUE")
        start = self.time(table, "from", where, end_ok=False)
        end = self.time(table, "to", where)
        if end <= start:
            raise self.fail(where, f"`to` ({exact_digits(end)}) is not after `from` ({exact_digits(start)}): the window is empty")
        return Measure(name, channel, reduce, threshold, start=start, end=end)

    def check_same_time(self, sets: Sequence[Setting]) -> None:
        """Refuse two [[set]]s at the same time that give one input two values (a control set to two values, or set
        and released; two gears): the file's order settled it without a word, where one [[set]] that both sets and
        releases a control is refused. The same value twice is let be. Parameters are not inputs: of two [[set]]s at
        one time the later one's value holds, as a recording writes an edit made on its first frame after the edits
        it started with."""
        said: dict[tuple[float, str], tuple[int, object]] = {}
        for i, setting in enumerate(sets, 1):
            entries = [(name, ("set", value)) for name, value in setting.analog.items()]
            entries += [(name, ("released", None)) for name in setting.release]
            if setting.gear is not None:
                entries.append(("gear", ("set", setting.gear)))
            for what, value in entries:
                key = (setting.at, what)
                if key in said and said[key][1] != value:
                    j, other = said[key]
                    raise self.fail(f"[[set]] #{i}", f"{what} is {value[0]}"
                                                     f"{'' if value[1] is None else f' to {value[1]!r}'} at "
                                                     f"{exact_digits(setting.at)} s, where [[set]] #{j} "
                                                     f"{'releases it' if other[0] == 'released' else f'sets it to {other[1]!r}'}"
                                                     " at the same time: keep one")
                said.setdefault(key, (i, value))

    def monitor(self, table, i) -> MonitorCheck:
        from workbench.runs.monitors import names

        where = f"[[monitor]] #{i}"
        self.known_keys(table, MONITOR_KEYS, where)
        if "name" not in table:
            raise self.fail(where, "`name` is missing")
        name = self.text(table["name"], f"{where} name")
        if name not in names():
            raise self.fail(where, f"unknown monitor {name!r}; the monitors are: {', '.join(names())}")
        tolerance = None
        if "tolerance" in table:
            tolerance = self.number(table["tolerance"], f"{where} tolerance")
            if tolerance < 0:
                raise self.fail(where, f"`tolerance` = {exact_digits(tolerance)} must not be negative")
        return MonitorCheck(name, tolerance)
