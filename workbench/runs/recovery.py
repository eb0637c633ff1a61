"""Crash recovery, headless: what of a live session is worth saving, and saving, finding and restoring it.

The window saves a recovery file every few seconds while there is something to lose: the running
recording and parameter edits not yet saved as a preset. A clean exit deletes it. A file whose
process is gone (a crash, a kill, a power cut) is an orphan, offered for restoring at the next start.
Each process writes its own file (``recovery-<pid>.json``), so two windows never mix their files.

The file is JSON lines (format version 2): a head (the car and dt), then what was at stake. A running
recording is a journal: its head (preset, stamp, road, driver) once, then at each save the entries
it added since the last one, appended. A save costs what was recorded in the last few seconds, not
the whole drive (rebuilding a 30-minute recording took most of a second, on the window's thread,
every 3 s). Anything else is written whole, atomically, when it changes. A crash during an append
can only cut the last line short; a reader drops that line and keeps the saves before it.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from physics import CarParams, ParamError, PresetError, check_dt
from workbench.output.files import atomic_write_text
from workbench.scripts.format import Script, ScriptError, Setting, parse_script
from workbench.scripts.limits import MAX_SCRIPT_BYTES, LimitError, read_limited_text
from workbench.scripts.recorder import JournalMark, Recorder, params_diff

FORMAT = "carbench-recovery"
VERSION = 2  # JSON lines, a running recording journaled (version 1: one JSON document, still read)
SAVE_EVERY = 3.0  # seconds between two saves while something could be lost
MAX_RECOVERY_BYTES = 16 * MAX_SCRIPT_BYTES  # a journal is about 1.35 times its recording's script: 4 times the script
# limit refused the journal of a 5-hour drive, and the file was removed with it
MAX_SAVED_AT = 32503680000.0  # [s since 1970] the year 3000: a time the window can say (1e300 failed in describe())


class RecoveryError(ValueError):
    """A recovery file that cannot be used; the message names the file and the reason."""


class RecoveryTooLarge(RecoveryError):
    """A recovery file larger than carbench reads one: kept aside, not removed (it holds a whole drive)."""


@dataclass(frozen=True)
class Recovery:
    """What a crash would lose: the car (preset reference and unsaved edits) and the running recording."""

    preset: str  # a shipped preset's name or a preset file's path
    dt: float
    params: dict[str, Any] = field(default_factory=dict)  # unsaved edits, by dotted path
    recording: Script | None = None  # the recording so far, as a script that replays it
    saved_at: float = 0.0  # seconds since the epoch
    pid: int = 0
    # What the file held that its car refuses and was left out when it was read, a line each (an edit of a parameter
    # the car does not have, a string for a number, a gear it does not have): said in the question to restore
    dropped: tuple[str, ...] = ()

    @property
    def frames(self) -> int:
        """Frames of the recording (0 when there is none)."""
        return 0 if self.recording is None else int(round(self.recording.duration / self.recording.dt))

    def describe(self) -> str:
        """One line for the question the window asks."""
        parts = []
        if self.recording is not None:
            parts.append(f"a recording of {self.recording.duration:.1f} s on {self.recording.preset}")
        if self.params:
            parts.append(f"{len(self.params)} unsaved parameter edit{'s' if len(self.params) != 1 else ''} "
                         f"of {self.preset}")
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.saved_at)) if self.saved_at else "earlier"
        return f"{' and '.join(parts) or 'nothing'} (saved {when})"

    def to_text(self) -> str:
        """The whole file (what :func:`from_text` reads back)."""
        lines = [_head(self.pid, self.preset, self.dt), {"saved_at": self.saved_at, "params": self.params}]
        if self.recording is not None:
            lines.append({"recording": self.recording.to_toml()})
        return _lines(lines)


def _head(pid: int, preset: str, dt: float) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "pid": pid, "preset": preset, "dt": dt}


def _lines(docs: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(doc, allow_nan=False) + "\n" for doc in docs)


def capture(session, pid: int | None = None, now: float | None = None) -> Recovery | None:
    """What ``session`` (a LiveSession) would lose now: unsaved edits, and the recording running or the last one
    stopped and never saved; None when nothing."""
    from workbench.runs.live import preset_reference

    edits = params_diff(session.preset.params, session.params) if session.modified else {}
    recording = None
    description = "restored after carbench closed unexpectedly"
    if session.recorder is not None and session.recorder.frames > 0:
        recording = session.recorder.script("recovered", description=description)
    elif getattr(session, "recording_unsaved", False) and session.last_recording is not None:  # stopped, not saved
        recording = replace(session.last_recording, name="recovered", description=description)
    if not edits and recording is None:
        return None
    return Recovery(preset_reference(session.preset), session.dt, edits, recording,
                    time.time() if now is None else now, os.getpid() if pid is None else pid)


def from_text(text: str, source: str) -> Recovery:
    """Parse and validate a recovery file's text; RecoveryError names ``source`` and the reason."""
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):
        whole = None
    if isinstance(whole, dict) and whole.get("format") == FORMAT and whole.get("version") == 1:
        return _from_v1(whole, source)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # after the last line's newline
    elif len(lines) > 1:
        lines.pop()  # no newline after it: a line a crash cut short, and the saves before it stand
    if not lines:
        raise RecoveryError(f"{source}: not a recovery file: it is empty")
    docs = []
    for n, line in enumerate(lines, 1):
        try:
            doc = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise RecoveryError(f"{source}: line {n}: not a recovery file: {exc}") from None
        if not isinstance(doc, dict):
            raise RecoveryError(f"{source}: line {n}: not a carbench recovery file" if n == 1 else
                                f"{source}: line {n}: not a table")
        docs.append(doc)
    head = docs[0]
    if head.get("format") != FORMAT:
        raise RecoveryError(f"{source}: not a carbench recovery file")
    if head.get("version") != VERSION:
        raise RecoveryError(f"{source}: recovery format version {head.get('version')!r}, this carbench reads "
                            f"{VERSION} and 1")
    params, saved_at, recording, head_toml, entries = {}, 0.0, None, None, []
    for n, doc in enumerate(docs[1:], 2):
        if "params" in doc:
            params = doc["params"]
        if "saved_at" in doc:
            saved_at = doc["saved_at"]
        if "recording" in doc:
            recording = doc["recording"]
        if "recorder" in doc:
            head_toml = doc["recorder"]
        if "frames" in doc:
            if head_toml is None:
                raise RecoveryError(f"{source}: line {n}: entries of a recording with no `recorder` line before them")
            entries.append({k: v for k, v in doc.items() if k not in ("saved_at", "params")})
    pid, preset, dt = head.get("pid", 0), head.get("preset"), head.get("dt")
    base = _checked(source, preset, dt, params, pid, saved_at)
    script = None
    if head_toml is not None:
        script = _journaled(head_toml, entries, source)
    elif recording is not None:
        script = _recording(recording, source)
    return _without_refused(replace(base, recording=script))


def _from_v1(doc: dict[str, Any], source: str) -> Recovery:
    """A version-1 file (one JSON document, the recording whole), as carbench 0.3 wrote them."""
    base = _checked(source, doc.get("preset"), doc.get("dt"), doc.get("params", {}), doc.get("pid", 0),
                    doc.get("saved_at", 0.0))
    recording = doc.get("recording")
    return _without_refused(replace(base, recording=None if recording is None else _recording(recording, source)))


def _car(reference: str) -> CarParams | None:
    """The parameters of the preset ``reference`` names (a shipped name or a path), or None where it does not load
    (restoring then says why, and keeps the file aside)."""
    from workbench.names import NameRuleError, load_named_preset

    try:
        return load_named_preset(reference).params
    except (PresetError, NameRuleError, OSError, ValueError):
        return None


class _CarSoFar:
    """The car a recovery file's edits make, one after another from ``car`` (the preset ``name``), each checked as
    the model checks a car where a script compiles or the window takes an edit: each value by its parameter's own rule
    (:meth:`value`), then what the values make (:meth:`take`): each changed group's own rule (body.lr below the
    wheelbase), the rules across groups (CarParams.check: a four-wheel car's front wheels at full lock, its least yaw
    inertia, ...), the same kind of car as ``car`` (swap_problem), a gearbox the parameter record holds
    (record_problem) and, under a road of ``surfaces``, a car that still feels it (road_lost).

    A drag while driving journals an edit a frame (1,200 in 10 s), so no car is rebuilt from a document as
    CarParams.with_values rebuilds one (about 5 ms): a car is made by replacing its changed groups (tens of
    microseconds with its checks)."""

    def __init__(self, car: CarParams, name: str, surfaces: tuple = ()):
        self.name = name
        self._start = car
        self._car = car  # the car as last made and checked
        self._surfaces = tuple(surfaces)
        self._infos = {info.path: info for info in car.infos()}

    @property
    def gearbox(self):
        return self._car.gearbox

    def value(self, path: str, value: Any) -> tuple[Any, str | None]:
        """(``value`` as its parameter takes it, None), or (None, why the car refuses it on its own): a parameter it
        does not have, a value of the wrong kind (a string for a number) or out of its range."""
        info = self._infos.get(path)
        if info is None:
            return None, f"the {self.name} car has no such parameter"
        try:
            return info.check(value), None
        except ParamError as exc:
            return None, str(exc)

    def take(self, values: dict[str, Any]) -> str:
        """Make the car with ``values`` (path -> the value as :meth:`value` gives it) from the one so far: "", or why
        the model refuses the car they make (then nothing changes)."""
        from workbench.scripts.program import record_problem
        from workbench.scripts.surfaces import road_lost

        changes: dict[str, dict[str, Any]] = {}
        for path, value in values.items():
            group, key = path.split(".", 1)
            changes.setdefault(group, {})[key] = value
        try:
            parts = {}
            for group, keys in changes.items():
                parts[group] = part = replace(getattr(self._car, group), **keys)
                check = getattr(part, "check", None)
                problem = check(self._car.model.unit) if check is not None else None
                if problem:
                    return f"{group}.{problem}"  # as the preset loader says it
            updated = replace(self._car, **parts)
            problem = (updated.check() or self._start.swap_problem(updated)
                       or ("gearbox" in changes and record_problem(updated))
                       or road_lost(self._surfaces, self._car, updated))
        except (ParamError, ValueError, TypeError, ArithmeticError) as exc:  # a rule these values break as it is worked
            return str(exc) or type(exc).__name__
        if problem:
            return problem
        self._car = updated
        return ""

    def take_in_turn(self, values: dict[str, tuple[Any, Any]]) -> tuple[dict[str, Any], dict[str, str]]:
        """Take ``values`` (path -> (the value as read, as :meth:`value` gives it)) one at a time, a value refused
        tried again after the others (a wheelbase shortened before the centre of mass is moved forward): (the values
        taken, as read, in the order they could be; path -> why, for each one refused in the end)."""
        pending, taken, why = list(values.items()), {}, {}
        while pending:
            waiting = []
            for path, (value, checked) in pending:
                problem = self.take({path: checked})
                if problem:
                    waiting.append((path, (value, checked)))
                    why[path] = problem
                else:
                    taken[path] = value
                    why.pop(path, None)
            if len(waiting) == len(pending):
                break
            pending = waiting
        return taken, why


def _shown(path: str) -> str:
    """A parameter's path in a line: a short printable name as itself, else its repr cut to 40 characters."""
    if path.isprintable() and len(path) <= 60 and " " not in path:
        return path
    text = repr(path)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _without_refused(recovery: Recovery) -> Recovery:
    """``recovery`` without what its car refuses, each thing left out said in a line (``dropped``): an unsaved edit,
    and a recording's parameter edit or gear. They were accepted when the file was read, and the restored recording
    failed later, at its replay or its save's replay; the file's car (a preset file edited since, or a carbench whose
    rules changed) or the file itself (damaged) may be at fault, and the rest of the drive is kept. A value is left
    out where its parameter refuses it, and where the car it makes with the edits before it is one the model refuses
    (a lock and a track that turn a front wheel past 80 deg), as restoring or replaying would refuse it."""
    dropped: list[str] = []
    params = recovery.params
    car = _car(recovery.preset) if params else None
    if car is not None:
        # Restored one at a time (restore: set_param), each on the car the ones before made: kept in an order that
        # goes, without those the car refuses
        so_far = _CarSoFar(car, _preset_name(recovery.preset))
        lines: dict[str, str] = {}
        checked: dict[str, tuple[Any, Any]] = {}
        for path, value in params.items():
            taken, reason = so_far.value(path, value)
            if reason:
                lines[path] = reason
            else:
                checked[path] = (value, taken)
        params, refused = so_far.take_in_turn(checked)
        lines.update(refused)
        dropped += [f"unsaved edit of {_shown(path)} left out: {lines[path]}" for path in recovery.params
                    if path in lines]
    recording = recovery.recording
    if recording is not None and recording.sets:
        recording = _recording_without_refused(recording, dropped)
    if not dropped:
        return recovery
    return replace(recovery, params=params, recording=recording, dropped=tuple(dropped))


def _recording_without_refused(script: Script, dropped: list[str]) -> Script:
    """``script`` (a recording) without the parameter edits and gears its car refuses, each added to ``dropped``: its
    [[set]] entries taken in time order, as its compile takes them, each gear on the car so far and each set's
    parameters together on it (where the car they make is refused, one at a time: those it refuses are left out)."""
    car = _car(script.preset)
    if car is None:
        return script
    so_far = _CarSoFar(car, _preset_name(script.preset), script.surfaces)
    sets: list[Setting | None] = list(script.sets)
    changed = False
    for j in sorted(range(len(sets)), key=lambda j: script.sets[j].at):  # (as compile_script takes them)
        setting = script.sets[j]
        lines: dict[str, str] = {}
        checked: dict[str, tuple[Any, Any]] = {}
        for path, value in setting.params.items():
            taken, reason = so_far.value(path, value)
            if reason:
                lines[path] = reason
            else:
                checked[path] = (value, taken)
        gear, gearbox = setting.gear, so_far.gearbox  # (the car so far: before this set's edits, as compile checks it)
        top = None if gearbox is None else len(gearbox.ratios)
        if gear is not None and (top is None or not -1 <= gear <= top):
            has = "has no gearbox" if top is None else f"has gears -1 (reverse) .. {top}"
            dropped.append(f"recording's gear {gear} at {setting.at:.3f} s left out: the {so_far.name} car {has}")
            gear = None
        params = {path: value for path, (value, _) in checked.items()}
        if checked and so_far.take({path: taken for path, (_, taken) in checked.items()}):
            params, refused = so_far.take_in_turn(checked)
            lines.update(refused)
        dropped += [f"recording's edit of {_shown(path)} at {setting.at:.3f} s left out: {lines[path]}"
                    for path in setting.params if path in lines]
        if gear == setting.gear and len(params) == len(setting.params):
            continue
        changed = True
        keep = gear is not None or params or setting.analog or setting.release
        sets[j] = replace(setting, gear=gear, params=params) if keep else None
    return replace(script, sets=tuple(s for s in sets if s is not None)) if changed else script


def _preset_name(reference: str) -> str:
    return Path(reference).stem if reference.endswith(".toml") or "/" in reference else reference


def _checked(source: str, preset: Any, dt: Any, params: Any, pid: Any, saved_at: Any) -> Recovery:
    if not isinstance(preset, str) or not preset:
        raise RecoveryError(f"{source}: `preset` must be a preset name or path")
    try:
        dt = check_dt(dt)
    except ValueError as exc:
        raise RecoveryError(f"{source}: {exc}") from None
    if not isinstance(params, dict) or not all(isinstance(k, str) and _is_value(v) for k, v in params.items()):
        raise RecoveryError(f"{source}: `params` must map parameter paths to numbers, strings or lists of numbers")
    if isinstance(pid, bool) or not isinstance(pid, int) or isinstance(saved_at, bool) \
            or not isinstance(saved_at, (int, float)) or not 0 <= saved_at < MAX_SAVED_AT:
        raise RecoveryError(f"{source}: `pid` and `saved_at` must be numbers (`saved_at` a time since 1970)")
    return Recovery(preset, dt, dict(params), None, float(saved_at), pid)


def _recording(text: Any, source: str) -> Script:
    if not isinstance(text, str):
        raise RecoveryError(f"{source}: `recording` must be a script's TOML text")
    try:
        return parse_script(text, f"{source} (recording)")
    except ScriptError as exc:
        raise RecoveryError(str(exc)) from None


def _journaled(head_toml: Any, entries: list[dict[str, Any]], source: str) -> Script:
    """The recording a journal holds: its head and entries put together, then read as any script is."""
    head = _recording(head_toml, source)
    try:
        recorder = Recorder.from_journal(head, entries)
        text = recorder.script(head.name, description=head.description).to_toml()
    except (ValueError, TypeError, OverflowError) as exc:  # an entry no recording makes: the file is damaged
        raise RecoveryError(f"{source} (recording): {exc}") from None
    return _recording(text, source)


def _is_value(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return math.isfinite(v)
    if isinstance(v, str):
        return True
    return isinstance(v, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)


def restore(target, recovery: Recovery) -> list[str]:
    """Put ``recovery`` into ``target``: its car and unsaved edits, and the recording as the last recording.

    ``target`` is a LiveSession, or anything with its ``load_preset``/``set_param`` and a ``session``
    (the window's SessionModel, so that its views hear of the change). Returns the problems met (an
    edit the car no longer accepts is skipped, not fatal); PresetError when the preset itself cannot
    be loaded (then nothing has changed).
    """
    target.load_preset(recovery.preset)
    session = getattr(target, "session", target)
    problems = []
    for path, value in recovery.params.items():
        try:
            target.set_param(path, value)
        except ValueError as exc:  # ParamError too
            problems.append(str(exc))
    if recovery.recording is not None:
        try:
            session.use_script(recovery.recording)
        except (ScriptError, PresetError) as exc:
            problems.append(f"the recording cannot be replayed here: {exc}")
        session.last_recording = recovery.recording
        session.recording_unsaved = True  # it lives only here now: closing the window asks about it
    return problems


def default_folder() -> Path:
    """Where recovery files live: $CARBENCH_RECOVERY_DIR, else $XDG_STATE_HOME/carbench, else ~/.local/state/carbench."""
    explicit = os.environ.get("CARBENCH_RECOVERY_DIR")
    if explicit:
        return Path(explicit)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "carbench"


PROCESS_STARTED = time.time()  # about when this process started (before the window, and before any save)


def _before_this_process(path: Path) -> bool:
    """Whether ``path`` was last written before this process started (a file of another process of the same pid)."""
    try:
        return os.stat(path).st_mtime < PROCESS_STARTED - 1.0
    except OSError:
        return False


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs: it exists and (where /proc says) is not a zombie, a process killed and not yet
    reaped by its parent, whose file was not offered."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    except OSError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            state = handle.read(4096).rpartition(")")[2].split()[:1]  # after the command's name, which may hold ")"
    except OSError:
        return True  # no /proc: as kill says
    return state != ["Z"]


@dataclass
class _Journal:
    """What the file holds of a recording being journaled: whose, up to where, with which car and edits."""

    recorder: Recorder
    mark: JournalMark
    head: tuple[str, float]
    params: dict[str, Any]
    frames: int
    file: tuple[int, int] = (-1, -1)  # the file's inode and size after this journal last wrote it


class RecoveryStore:
    """The recovery files in one folder: this process's own, and the orphans of processes that are gone."""

    def __init__(self, folder: str | os.PathLike | None = None, pid: int | None = None):
        self.folder = Path(folder) if folder is not None else default_folder()
        self.pid = os.getpid() if pid is None else pid
        self._last_text: str | None = None
        self._last_key: tuple | None = None  # what a whole file was written of (keep): unchanged, not written again
        self._journal: _Journal | None = None
        self._written = False  # whether this store has written its file (a file there before is another process's)
        # Orphans restored here while this store could not keep its own file (a full disk): removed once it keeps
        # what is at stake (or nothing is), so that a recording restored and then saved is not offered again.
        self.superseded: list[Path] = []

    @property
    def path(self) -> Path:
        return self.folder / f"recovery-{self.pid}.json"

    def keep(self, session, now: float | None = None) -> bool:
        """Keep what ``session`` (a LiveSession) would lose now; True when the file changed (:meth:`_keep`). Then
        the orphans it superseded go."""
        changed = self._keep(session, now)
        self._forget_superseded()
        return changed

    def _forget_superseded(self) -> None:
        for path in list(self.superseded):
            if self.remove(path) is None:
                self.superseded.remove(path)

    def _keep(self, session, now: float | None = None) -> bool:
        """Keep what ``session`` (a LiveSession) would lose now; True when the file changed.

        A recording (running, or stopped and not saved) is journaled: the file is written whole when
        the recording, the car or dt changes, and otherwise gets one line with what was recorded since
        the last save and the edits if they changed. Edits alone, or a restored recording, are written
        whole when they change. Nothing at stake removes the file.
        """
        now = time.time() if now is None else now
        from workbench.runs.live import preset_reference

        recorder = session.unsaved_recorder()
        if recorder is None:
            recording = session.last_recording if session.recording_unsaved else None  # as capture() takes it
            edits = params_diff(session.preset.params, session.params) if session.modified else {}
            if recording is None and not edits:
                return self.discard()
            # What the file would hold, without building it: a recording is the same while its entries are.
            key = (preset_reference(session.preset), session.dt, edits,
                   None if recording is None else (recording.holds, recording.sets, recording.tracks))
            if self._journal is None and key == self._last_key and self.path.exists():
                return False
            changed = self.save(capture(session, self.pid, now))
            self._last_key = key
            return changed
        edits = params_diff(session.preset.params, session.params) if session.modified else {}
        head = (preset_reference(session.preset), session.dt)
        journal = self._journal
        if journal is not None and journal.recorder is recorder and journal.head == head and self._as_left(journal):
            entry, mark = recorder.journal(journal.mark)
            if entry["frames"] == journal.frames and edits == journal.params:
                return False
            line: dict[str, Any] = {"saved_at": now}
            if edits != journal.params:
                line["params"] = edits
            try:
                with open(self.path, "a", encoding="utf-8") as handle:  # one line, written at once
                    handle.write(_lines([{**line, **entry}]))
                    handle.flush()
                    os.fsync(handle.fileno())
                    done = os.fstat(handle.fileno())
            except OSError:  # a part of the line may be in the file (a full disk): the next save writes it whole
                self._journal = None
                raise
            journal.mark, journal.params, journal.frames = mark, edits, entry["frames"]
            journal.file = (done.st_ino, done.st_size)
            return True
        entry, mark = recorder.journal()
        description = "restored after carbench closed unexpectedly"
        text = _lines([_head(self.pid, *head), {"saved_at": now, "params": edits},
                       {"recorder": recorder.head("recovered", description).to_toml()}, entry])
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, text)
        self._written = True
        self._journal = _Journal(recorder, mark, head, edits, entry["frames"], self._file_now())
        self._last_text = self._last_key = None
        return True

    def _file_now(self) -> tuple[int, int]:
        """This store's file's inode and size; (-1, -1) where it is not there."""
        try:
            st = self.path.stat()
        except OSError:
            return (-1, -1)
        return (st.st_ino, st.st_size)

    def _as_left(self, journal: _Journal) -> bool:
        """Whether the file is as ``journal`` last left it: there, the same file and as long. Truncated, removed or
        replaced by another program meanwhile, a line appended to it would follow a cut line or stand without its
        head (the next start skipped the file as unreadable, and the drive with it): it is written whole instead."""
        return journal.file != (-1, -1) and self._file_now() == journal.file

    def save(self, recovery: Recovery | None) -> bool:
        """Write (atomically) what a crash would lose, or remove the file when nothing; True when the file changed."""
        if recovery is None:
            return self.discard()
        same = replace(recovery, saved_at=0.0).to_text()  # what matters, whatever the time
        if same == self._last_text and self._journal is None and self.path.exists():
            return False
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, recovery.to_text())
        self._written = True
        self._last_text, self._journal = same, None
        return True

    def discard(self) -> bool:
        """Remove this process's file (a clean exit, or nothing left at stake); True when there was one. A file that
        cannot be removed (its folder made read-only meanwhile) is left: the next start offers it, and a clean exit
        must not end in a traceback."""
        self._last_text = self._last_key = self._journal = None
        self._forget_superseded()  # (nothing at stake, or a clean exit: what they held is not wanted either)
        if not self._written and _before_this_process(self.path):  # a crashed process's of the same pid: kept
            return False
        self._written = False
        try:
            self.path.unlink()
        except OSError:  # FileNotFoundError too
            return False
        return True

    def orphans(self) -> list[tuple[Path, Recovery | RecoveryError]]:
        """Files of processes that are gone, newest first; unreadable ones come back as their RecoveryError."""
        if not self.folder.is_dir():
            return []
        found: list[tuple[float, Path, Recovery | RecoveryError]] = []
        for path in self.folder.glob("recovery-*.json"):
            pid_text = path.stem.removeprefix("recovery-")
            if not pid_text.isdigit() or process_alive(int(pid_text)) and not (
                    int(pid_text) == self.pid and _before_this_process(path)):
                continue  # a running process's, or this one's own
            # This process's pid on a file older than this process: a crashed process's that had the same pid (pids
            # are reused). It was skipped, then overwritten by this process's first save or removed at its exit.
            try:
                item: Recovery | RecoveryError = from_text(read_limited_text(path, "recovery", MAX_RECOVERY_BYTES),
                                                           str(path))
            except LimitError as exc:
                item = RecoveryTooLarge(f"{path}: cannot be read: {exc}")
            except (OSError, UnicodeDecodeError) as exc:
                item = RecoveryError(f"{path}: cannot be read: {exc}")
            except RecoveryError as exc:
                item = exc
            except Exception as exc:  # noqa: BLE001 - a damaged file must never stop the window from starting
                item = RecoveryError(f"{path}: cannot be read: {type(exc).__name__}: {exc}")
            found.append((path.stat().st_mtime if path.exists() else 0.0, path, item))
        return [(path, item) for _, path, item in sorted(found, key=lambda f: f[0], reverse=True)]

    def set_aside(self, path: Path) -> Path:
        """Keep an orphan that cannot be restored here (too large, or its car) under a name no start offers again, and
        no earlier one's (``.kept``, ``.kept.1``, ...: a second one replaced the first); its path."""
        aside, n = path.with_name(f"{path.name}.kept"), 0
        while os.path.lexists(aside):
            n += 1
            aside = path.with_name(f"{path.name}.kept.{n}")
        os.rename(path, aside)
        return aside

    def remove(self, path: Path) -> str | None:
        """Forget an orphan (restored, or declined); why it could not be removed (a read-only folder), else None."""
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            return exc.strerror or str(exc)
        return None
