"""Writing files safely: atomically (a crash or a full disk never leaves half a file), with the mode
the umask gives any new file, and only to paths checked before anything runs."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO


class OutputPathError(ValueError):
    """An output path that cannot or must not be written; the message names the option and the reason."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _mode_for(target: Path) -> int:
    """The mode a new file gets from the umask, or the mode of the file being replaced."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, binary: bool = False) -> Iterator[IO]:
    """A file handle whose content replaces ``path`` only when the block ends without an error.

    Written through a temporary file in the same folder and a rename; the folder must exist.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        os.fchmod(fd, _mode_for(target))
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (the folder must exist)."""
    with atomic_writer(path) as handle:
        handle.write(text)
    return Path(path)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (the folder must exist)."""
    with atomic_writer(path, binary=True) as handle:
        handle.write(data)
    return Path(path)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_output_file(path: str | os.PathLike | None, option: str, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """``path`` as a Path, or OutputPathError when it could not be written or would overwrite an input.

    Call it for every output before anything runs, so a bad path never costs a run or leaves some
    outputs written and others not. The folder must exist (it is never created).
    """
    if path is None or not str(path).strip():
        raise OutputPathError(f"{option}: the output path is empty")
    target = Path(path)
    if target.is_dir():
        raise OutputPathError(f"{option} {target}: is a directory, not a file")
    if target.exists() and not target.is_file():
        raise OutputPathError(f"{option} {target}: is not a regular file")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise OutputPathError(f"{option} {target}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise OutputPathError(f"{option} {target}: the folder {folder} is not writable")
    for source in inputs:
        if _same_file(target, Path(source)) or target.resolve() == Path(source).resolve():
            raise OutputPathError(f"{option} {target}: is one of the inputs; refusing to overwrite it")
    return target


def check_output_dir(path: str | os.PathLike | None, option: str, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """An output folder: it may exist (as a folder) or be created in an existing parent; never an input."""
    if path is None or not str(path).strip():
        raise OutputPathError(f"{option}: the output folder is empty")
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise OutputPathError(f"{option} {target}: exists and is not a folder")
    parent = target.parent if str(target.parent) else Path(".")
    if not target.exists() and not parent.is_dir():
        raise OutputPathError(f"{option} {target}: the folder {parent} does not exist")
    if not os.access(target if target.exists() else parent, os.W_OK):
        raise OutputPathError(f"{option} {target}: not writable")
    for source in inputs:
        if _same_file(target, Path(source)):
            raise OutputPathError(f"{option} {target}: is one of the inputs")
    return target
