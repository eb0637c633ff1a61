"""One rule for naming a script or a car preset, used by every command that takes one.

- An existing regular file wins (through links).
- A name with no extension and no folder part that is not an existing regular file is looked up
  among the shipped ones (``braking_stop``, ``sedan``), even when a folder of that name is here.
- Anything else (a folder, a FIFO, a device, a missing path) is refused, and the refusal says which
  rule applied.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

KINDS = ("script", "preset")


class NameRuleError(ValueError):
    """A script or preset argument that names nothing usable; the message says which rule applied."""


def shipped_dir(kind: str) -> Path:
    from physics.presets import cars_dir, scripts_dir

    return scripts_dir() if kind == "script" else cars_dir()


def shipped_names(kind: str) -> list[str]:
    return sorted(p.stem for p in shipped_dir(kind).glob("*.toml"))


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def path_problem(exc: OSError) -> str:
    """A short reason for an OSError on a path (too long, a loop of links, a deleted working folder)."""
    if exc.errno == errno.ENAMETOOLONG:
        return "the name is too long for this file system"
    if exc.errno == errno.ELOOP:
        return "a loop of symbolic links"
    return exc.strerror or str(exc)


def _stat(text: str):
    """os.stat of ``text``, None when nothing is there; NameRuleError for a path that cannot be looked at."""
    try:
        return os.stat(text)
    except FileNotFoundError:
        if not os.path.isabs(text):
            try:
                os.getcwd()
            except FileNotFoundError:
                raise NameRuleError(f"{text}: the working folder no longer exists") from None
        return None
    except NotADirectoryError:
        return None
    except OSError as exc:
        raise NameRuleError(f"{text}: cannot be looked at: {path_problem(exc)}") from None


def is_bare_name(text: str) -> bool:
    """A name that may mean a shipped file: no extension and no folder part."""
    return bool(text.strip()) and os.sep not in text and "/" not in text and not Path(text).suffix \
        and text not in (".", "..")


def resolve_name(text: str | os.PathLike, kind: str) -> Path:
    """The file a ``kind`` ("script" or "preset") argument means, by the rule above; NameRuleError otherwise."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    text = os.fspath(text)
    if not text.strip():
        raise NameRuleError(f"{text!r}: an empty {kind} name; the shipped {kind}s are: "
                            f"{', '.join(shipped_names(kind))}")
    if "\0" in text:
        raise NameRuleError(f"{text!r}: a {kind} name cannot contain a NUL character")
    info = _stat(text)
    if info is not None and stat.S_ISREG(info.st_mode):
        return Path(text)  # an existing regular file wins
    if is_bare_name(text):
        shipped = shipped_dir(kind) / f"{text}.toml"
        if shipped.is_file():
            return shipped
        here = f"{text} is {_kind_of(info.st_mode)} here, and " if info is not None else ""
        raise NameRuleError(f"{text}: {here}no such {kind} file or shipped {kind} (a name without an extension "
                            f"is looked up among the shipped {kind}s: {', '.join(shipped_names(kind))})")
    if info is not None:
        raise NameRuleError(f"{text}: is {_kind_of(info.st_mode)}, not a regular file (an existing regular file "
                            f"is read as the {kind}; anything else is refused)")
    hint = ""
    stem = Path(text).stem
    if Path(text).suffix == ".toml" and Path(text).parent == Path(".") and stem in shipped_names(kind):
        hint = f" (the shipped {kind} is named without the extension: {stem})"
    elif "/" not in text:
        hint = f" (the shipped {kind}s are: {', '.join(shipped_names(kind))})"
    raise NameRuleError(f"{text}: no such {kind} file{hint}")


def resolve_script_name(text: str | os.PathLike) -> Path:
    return resolve_name(text, "script")


def resolve_preset_name(text: str | os.PathLike) -> Path:
    return resolve_name(text, "preset")


def load_preset_file(path: str | os.PathLike):
    """The preset in the file ``path``, read as it is: a path the rule above has already chosen is never
    looked up again among the shipped presets (a local ``sedan`` file is that file, not the shipped sedan).

    PresetError with one line for anything wrong: not a regular file, too large, not UTF-8, not TOML,
    a key or value the schema refuses.
    """
    from physics import Preset, PresetError, parse_preset
    from physics.presets import MAX_PRESET_BYTES
    from workbench.scripts.limits import LimitError, read_limited_bytes

    path = Path(path)
    try:
        data = read_limited_bytes(path, "preset", MAX_PRESET_BYTES)
    except LimitError as exc:
        raise PresetError(str(exc)) from None
    except FileNotFoundError:
        raise PresetError(f"{path}: no such preset file") from None
    except OSError as exc:
        raise PresetError(f"{path}: cannot be read: {path_problem(exc)}") from None
    return Preset(name=path.stem, path=path, params=parse_preset(data, str(path)))


def load_named_preset(text: str | os.PathLike):
    """The preset a ``--preset`` argument names, loaded and checked against what the model can hold.

    PresetError (or NameRuleError) with one line for anything wrong: the name, the file, a number too
    long to read, more gears than the model has room for.
    """
    from physics import PresetError

    path = resolve_preset_name(text)
    try:
        preset = load_preset_file(path)
    except PresetError:
        raise
    except (ValueError, OverflowError, RecursionError) as exc:  # a 5,000-digit number, say
        from workbench.scripts.format import number_problem

        raise PresetError(f"{path}: not valid TOML: {number_problem(exc)}") from None
    from workbench.scripts.program import record_problem

    problem = record_problem(preset.params)
    if problem:
        raise PresetError(f"{path}: {problem}")
    return preset


def unique_names(names: list[str]) -> list[str]:
    """``names`` (each already made safe for where it goes: a file name, an MCAP topic, an HTML id) made unique in
    order: the second of a name gets ``-2``, the third ``-3``, never a name another of ``names`` has as its own (runs
    named "t1", "t1" and "t1-2" are "t1", "t1-3" and "t1-2": the second "t1" took "t1-2" and the run of that name
    "t1-2-2", and the file or topic called after a run was another's)."""
    out, used, own = [], set(), set(names)
    for name in names:
        candidate, n = name, 2
        while candidate in used or (candidate != name and candidate in own):
            candidate, n = f"{name}-{n}", n + 1
        used.add(candidate)
        out.append(candidate)
    return out


def printable(text: str) -> str:
    """``text`` (a file name, or a string of a JSON document that may hold one) as it can be written into a UTF-8
    file: a file name's bytes that are not UTF-8 (Python reads them as lone surrogates, ``sk\\udce9.toml``) as
    ``\\xe9``, and a backslash as two, so that a name with ``\\xe9`` typed in it is told from one with the byte
    (``\\\\xe9``); bytes that are UTF-8 under an ASCII locale (read as surrogates too) as the characters they spell.
    Any other text is given back as it is."""
    return writable(text.replace("\\", "\\\\"))


def writable(text: str) -> str:
    """``text`` (a whole file's content, whose backslashes are its own) as it can be written into a UTF-8 file: as
    :func:`printable`, but a backslash stays one."""
    # (a surrogate no file name's byte stands for, U+D800 to U+DC7F or U+DD00 to U+DFFF, written as \\udxxx first)
    text = _OTHER_SURROGATES.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


_OTHER_SURROGATES = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def printable_doc(doc):
    """A JSON-like document (dicts, lists, strings, numbers) with every string :func:`printable` (strict JSON has no
    lone surrogate, and a reader such as jq replaced it)."""
    if isinstance(doc, str):
        return printable(doc)
    if isinstance(doc, dict):
        return {printable_doc(k): printable_doc(v) for k, v in doc.items()}
    if isinstance(doc, (list, tuple)):
        return [printable_doc(v) for v in doc]
    return doc
