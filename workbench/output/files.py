"""Writing files safely: atomically (a crash or a full disk never leaves half a file), with the mode
the umask gives any new file, and only to paths checked before anything runs."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO


class OutputPathError(ValueError):
    """An output path that cannot or must not be written; the message names the option and the reason."""


MAX_NAME_BYTES = 200  # an output's name: its staged name adds a dot, ".cb", a process id, a machine's tag, a random
# part and ".staged" or ".replaced" (237 bytes at the most with a 7-digit process id)

_STAGED = re.compile(r"\.(?P<name>.+)\.cb(?P<pid>[0-9]+)-(?P<host>[0-9a-f]{8})[0-9a-f]{8}"
                     r"(?P<stage>\.tmp|\.staged|\.replaced)", re.DOTALL)


def _host_tag() -> str:
    """Eight hex digits of this machine's boot, its name and its process-id namespace: a process id means a process
    only there (a folder shared with another machine or container holds names whose numbers are not this one's
    processes). The boot's random id tells apart machines of one name (cloned images, "localhost"), whose root
    namespaces have the same number."""
    import socket
    import zlib

    try:
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        namespace = 0
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            boot = f.read().strip()
    except OSError:
        boot = ""
    return format(zlib.crc32(f"{boot}:{socket.gethostname()}:{namespace}".encode()), "08x")


_HOST = _host_tag()


def _stage_name(name: str, stage: str) -> str:
    """The hidden name under which this process stages (``.tmp``, ``.staged``) a file or folder ``name``, or sets the
    file it replaces aside (``.replaced``): ``.NAME.cb<pid>-<host><random>.staged``, so that one a killed process left
    (SIGKILL cannot be caught) is known as carbench's, and by whom, when the same name is written again."""
    return f".{name}.cb{os.getpid()}-{_HOST}{secrets.token_hex(4)}{stage}"


def _own_staged(name: str) -> bool:
    """Whether ``name`` is one this process staged an output under (``.staged``, :class:`StagedOutputs`)."""
    found = _STAGED.fullmatch(name)
    return (found is not None and found["stage"] == ".staged" and found["host"] == _HOST
            and int(found["pid"]) == os.getpid())


def _alive(pid: int, host: str = _HOST) -> bool:
    if host != _HOST:  # another machine's or container's process: whether it runs cannot be told from here
        return True
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # another user's process (EPERM), or a number no process has: left alone
        return True
    return True


def clean_stale(folder: str | os.PathLike, name: str) -> None:
    """Remove what a carbench process that no longer runs staged for ``name`` in ``folder`` (killed with SIGKILL, or a
    power loss, between staging an output and moving it into place); a file it had set aside to replace is put back
    where nothing took its place. What a running process stages is left alone, and so is any other hidden file."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for entry in entries:
        found = _STAGED.fullmatch(entry)
        if found is None or found["name"] != name or _alive(int(found["pid"]), found["host"]):
            continue
        path, target = Path(folder) / entry, Path(folder) / name
        if found["stage"] == ".replaced" and _put_back(path, target):
            continue
        _remove(path)


def _put_back(aside: Path, target: Path) -> bool:
    """A file set aside by a writer that died back at ``target``, where nothing has taken its place: linked there,
    which never replaces a file written meanwhile (a rename would), then its set-aside name removed. Where the
    folder takes no links, renamed after a check. False where ``target`` exists (the set-aside copy is stale)."""
    try:
        os.link(aside, target, follow_symlinks=False)
    except FileExistsError:
        return False
    except OSError:
        try:
            if os.path.lexists(target):
                return False
            os.rename(aside, target)
        except OSError:
            return False
        return True
    with contextlib.suppress(OSError):
        os.unlink(aside)
    return True


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


# The system's own files, never written into: a process's open files (/dev/stdout is a link to /proc/self/fd/1, a
# link to the file or pipe the shell gave it) and the kernel's. /dev's devices are not regular files, refused as
# such; its folders that are (/dev/shm) take outputs as any other.
PSEUDO_ROOTS = ("/proc", "/sys")


DEVICES = "/dev"  # the devices' own folder: no output is written into it (its folders that are folders, /dev/shm, are
# not refused: a RAM disk takes outputs as any folder)


def _devices_folder(folder: str | os.PathLike) -> bool:
    """Whether ``folder`` is (or leads to) the devices' folder itself, where root may create files (os.access says
    so): a sweep's --out /dev wrote /dev/sweep.csv among the devices."""
    real = _realpath(folder)
    return os.path.abspath(folder) == DEVICES or (real is not None and real == DEVICES)


def _under_pseudo_root(place: str) -> bool:
    return any(place == root or place.startswith(root + os.sep) for root in PSEUDO_ROOTS)


def _pseudo(path: str | os.PathLike) -> bool:
    """Whether ``path``, any link on the way from it to a file, or where it leads is among the system's own files
    (:data:`PSEUDO_ROOTS`), through links of its folders too."""
    here = os.path.abspath(path)
    for _ in range(40):  # each link on the way (/dev/stdout leads through /proc/self/fd/1 to the shell's file)
        if _under_pseudo_root(here):
            return True
        try:
            if not os.path.islink(here):
                break
            here = os.path.abspath(os.path.join(os.path.dirname(here), os.readlink(here)))
        except (OSError, ValueError):
            break
    real = _realpath(path)
    return real is not None and _under_pseudo_root(real)


def through_links(path: str | os.PathLike) -> Path:
    """Where an output at ``path`` is written: ``path`` itself, or the file a link there leads to (written through the
    link, as a shell's ``>`` does; renaming over the link would replace the user's link with a file)."""
    target = Path(path)
    if not target.is_symlink():
        return target
    return Path(os.path.realpath(target))


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, binary: bool = False) -> Iterator[IO]:
    """A file handle whose content replaces ``path`` only when the block ends without an error.

    Written through a temporary file in the same folder and a rename; the folder must exist. A link at ``path`` is
    written through (:func:`through_links`). A name :class:`StagedOutputs` gave this process is already a temporary
    name of its own: written in place (created, never over another file), removed if the block fails.
    """
    target = through_links(path)
    folder = target.parent if str(target.parent) else Path(".")
    if _own_staged(target.name):
        # A name StagedOutputs gave this process (its commit moves it into place, its rollback removes it): written
        # in place. Staged again under a temporary name of its own, an output named with the MAX_NAME_BYTES it may
        # have passed a file name's 255 bytes ('File name too long' for a --csv or --mcap name of 194 bytes).
        tmp = str(target)
    else:
        clean_stale(folder, target.name)
        tmp = str(folder / _stage_name(target.name, ".tmp"))
    mode = _mode_for(target)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        if tmp != str(target):
            os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (the folder must exist); a file name's bytes that are not UTF-8 in it
    (workbench.names.writable) as ``\\xe9``, not an error after the run."""
    from workbench.names import writable

    with atomic_writer(path) as handle:
        handle.write(writable(text))
    return Path(path)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (the folder must exist)."""
    with atomic_writer(path, binary=True) as handle:
        handle.write(data)
    return Path(path)


def _realpath(path: str | os.PathLike) -> str | None:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError, RuntimeError):
        return None


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether ``a`` and ``b`` are one file: the same path through links, or the same inode (hard links)."""
    ra, rb = _realpath(a), _realpath(b)
    if ra is not None and ra == rb:
        return True
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def same_preset_file(a: str | os.PathLike | None, b: str | os.PathLike | None) -> bool:
    """Whether two presets' paths name one file (:func:`same_file`); None is a preset built in code, the same only as
    another None."""
    if a is None or b is None:
        return a is b
    return same_file(a, b)


def _looked_at(path: Path, option: str, call):
    """``call()``, with an unusable path (too long, a loop of links, a deleted working folder) as OutputPathError."""
    try:
        return call()
    except OSError as exc:
        from workbench.names import path_problem

        raise OutputPathError(f"{option} {path}: cannot be used: {path_problem(exc)}") from None


def _check_cwd(path: Path, option: str) -> None:
    if not path.is_absolute():
        try:
            os.getcwd()
        except FileNotFoundError:
            raise OutputPathError(f"{option} {path}: the working folder no longer exists") from None


def _no_folder(folder: Path) -> str:
    """Why an output cannot go into ``folder``, which is not a folder: missing, or a file (a path through a file)."""
    if folder.exists():
        return f"{folder} is a file, not a folder"
    return f"the folder {folder} does not exist"


def check_output_file(path: str | os.PathLike | None, option: str, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """``path`` as a Path, or OutputPathError when it could not be written or would overwrite an input.

    Call it for every output before anything runs, so a bad path never costs a run or leaves some
    outputs written and others not. The folder must exist (it is never created). ``inputs`` are
    every file the command reads and every other output it writes; they are compared through links.
    """
    if path is None or not str(path).strip():
        raise OutputPathError(f"{option}: the output path is empty")
    if "\0" in str(path):
        raise OutputPathError(f"{option} {path!r}: a path cannot contain a NUL character")
    if str(path) == "-":  # a file called "-" in the working folder, where "-" means stdout to most commands
        raise OutputPathError(f"{option} -: the output is a file, not stdout; name one")
    target = Path(path)
    _check_cwd(target, option)
    if _looked_at(target, option, lambda: target.is_dir()):
        raise OutputPathError(f"{option} {target}: is a directory, not a file")
    if _looked_at(target, option, lambda: target.exists() and not target.is_file()):
        raise OutputPathError(f"{option} {target}: is not a regular file")
    if target.is_symlink() and not target.exists():
        raise OutputPathError(f"{option} {target}: is a link to nothing (or a loop of links)")
    real = through_links(target)  # a link is written through: the file it leads to is replaced, the link stays
    folder = real.parent if str(real.parent) else Path(".")
    pseudo = _pseudo(target)  # its links and where they lead: ``real`` too
    if pseudo and os.path.lexists(target):  # a file there, or a link (/dev/stdout) through /proc
        raise OutputPathError(f"{option} {target}: is a device or system file, not a regular file"
                              + (f" (a link to {real})" if real != target else ""))
    if not folder.is_dir():
        raise OutputPathError(f"{option} {target}: {_no_folder(folder)}")
    if _devices_folder(folder):
        raise OutputPathError(f"{option} {target}: the folder {folder} holds the system's devices; no output is "
                              "written there")
    if pseudo:
        # Nothing there yet, so no device or system file (what /proc/x.csv was called): a folder of the kernel's, where
        # no file can be made (os.access tells root it may write there)
        inside = _realpath(folder)
        through = inside is not None and not _under_pseudo_root(os.path.abspath(folder))  # a folder of the user's
        raise OutputPathError(f"{option} {target}: the folder {folder}" + (f" (which leads to {inside})" if through else "")
                              + f" is among the system's own files ({', '.join(PSEUDO_ROOTS)}), where no file "
                              "can be created")
    if not os.access(folder, os.W_OK):
        raise OutputPathError(f"{option} {target}: the folder {folder} is not writable"
                              + (f" (it is a link to {real})" if real != target else ""))
    if real.is_file() and not os.access(real, os.W_OK):
        # Replaced by a rename, which the folder allows: a file its owner made read-only was written over (as the shell
        # and cp refuse to)
        raise OutputPathError(f"{option} {target}: the file is read-only (write-protected); carbench does not replace "
                              "it" + (f" (it is a link to {real})" if real != target else ""))
    for name, whose in ((target.name, ""), (real.name, f" of the file it links to ({real})")):
        # the output is staged beside the file a link leads to, under a name made of that file's
        if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
            raise OutputPathError(f"{option} {target}: the name{whose} is longer than {MAX_NAME_BYTES} bytes (carbench "
                                  "keeps room beside it for the name it stages the output under)")
    for source in inputs:
        if same_file(target, source):
            raise OutputPathError(f"{option} {target}: is one of the inputs or another output ({source}); "
                                  "refusing to overwrite it")
    return target


def check_output_dir(path: str | os.PathLike | None, option: str, inputs: Iterable[str | os.PathLike] = (),
                     writes: Callable[[str], bool] = lambda name: True, folders: Iterable[str] = ()) -> Path:
    """An output folder: it may exist (as a folder) or be created in an existing parent; never an input.

    ``writes(name)`` tells whether the command may write a file of that name into the folder; an
    input (or another output) that is such a file in the folder, through links or not, is refused,
    and so is anything already there under such a name that a file could not replace (a folder, a
    device, a dangling link): it would fail only when the outputs move in, after the whole run.
    ``folders`` are names the command writes as folders (merged into a folder already there).
    """
    if path is None or not str(path).strip():
        raise OutputPathError(f"{option}: the output folder is empty")
    if str(path) == "-":  # as for a file: "-" is stdout to most commands, and a folder called "-" a surprise
        raise OutputPathError(f"{option} -: the output is a folder, not stdout; name one")
    target = Path(path)
    _check_cwd(target, option)
    if _pseudo(target):  # root may write (os.access says so) where nothing can be made: refused after the whole run
        raise OutputPathError(f"{option} {target}: is among the system's own files ({', '.join(PSEUDO_ROOTS)}), "
                              "not a folder for outputs")
    if _devices_folder(target):
        raise OutputPathError(f"{option} {target}: holds the system's devices, not a folder for outputs")
    if not os.path.lexists(target) and _devices_folder(target.parent if str(target.parent) else Path(".")):
        raise OutputPathError(f"{option} {target}: would be made in {DEVICES}, which holds the system's devices")
    if _looked_at(target, option, lambda: target.exists() and not target.is_dir()):
        raise OutputPathError(f"{option} {target}: exists and is not a folder")
    if target.is_symlink() and not target.exists():
        raise OutputPathError(f"{option} {target}: is a link to nothing (or a loop of links)")
    parent = target.parent if str(target.parent) else Path(".")
    if not target.exists() and not parent.is_dir():
        raise OutputPathError(f"{option} {target}: {_no_folder(parent)}")
    if not os.access(target if target.exists() else parent, os.W_OK):
        raise OutputPathError(f"{option} {target}: not writable")
    if len(target.name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        raise OutputPathError(f"{option} {target}: the name is longer than {MAX_NAME_BYTES} bytes (carbench keeps "
                              "room beside it for the name it stages the output under)")
    sources = list(inputs)
    for source in sources:
        if same_file(target, source):
            raise OutputPathError(f"{option} {target}: is one of the inputs or another output ({source}); "
                                  "refusing to write over it")
    real = _realpath(target)
    for source in sources:
        where = _realpath(source)
        inside = where is not None and real is not None and os.path.dirname(where) == real
        if inside and writes(os.path.basename(where)):
            raise OutputPathError(f"{option} {target}: would overwrite {source}, one of the inputs or another "
                                  "output, inside it")
    if target.is_dir():
        subfolders = set(folders)
        for name in sorted(_looked_at(target, option, lambda: os.listdir(target))):
            if not writes(name):
                continue
            if any(same_file(target / name, source) for source in sources):
                raise OutputPathError(f"{option} {target}: would overwrite {target / name}, a link to one of "
                                      "the inputs")
            entry = target / name
            if name in subfolders:
                if os.path.lexists(entry) and not _real_dir(entry):  # a link is not merged into: refused now,
                    # not when the outputs move in after the whole run
                    raise OutputPathError(f"{option} {target}: would write the folder {entry}, which exists and "
                                          f"is {'a link' if entry.is_symlink() else 'not a folder'}")
                locked = _read_only_file(entry) if _real_dir(entry) else None
                if locked is not None:  # merged into by renames, which would replace it as any other of its files
                    raise OutputPathError(f"{option} {target}: would write into the folder {entry}, which holds a "
                                          f"read-only (write-protected) file, {locked}; carbench does not replace it")
                continue
            if entry.is_symlink() and not any(same_file(entry, source) for source in sources):
                # A file of the folder's is replaced by a rename, which replaces the link itself: not written
                # through it (as an output named on the command line is), and the link was lost without a word
                raise OutputPathError(f"{option} {target}: would replace {name} inside it, which is a link (to "
                                      f"{os.readlink(entry)}); remove it or choose another folder")
            try:
                check_output_file(entry, option, sources)
            except OutputPathError as exc:
                raise OutputPathError(f"{option} {target}: would write {name} inside it, but "
                                      f"{str(exc).removeprefix(f'{option} ')}") from None
    return target


def _real_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def _read_only_file(folder: Path) -> Path | None:
    """A regular file in ``folder`` or its subfolders (not through links) that the user may not write, or None."""
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            path = Path(root) / name
            if path.is_file() and not path.is_symlink() and not os.access(path, os.W_OK):
                return path
    return None


def _moves(staged: Path, target: Path) -> list[tuple[Path, Path]]:
    """The renames that merge the folder ``staged`` into the existing folder ``target``: a file replaces its
    namesake, a folder is merged into its namesake folder (a second run into the same ``--out`` keeps the
    first run's other files and replaces those it writes again)."""
    out = []
    for entry in sorted(os.listdir(staged)):
        source, destination = staged / entry, target / entry
        if _real_dir(source) and _real_dir(destination):
            out += _moves(source, destination)
        else:
            out.append((source, destination))
    return out


def _check_move(source: Path, destination: Path) -> None:
    """The OSError ``os.rename(source, destination)`` would end in (a file onto a folder, a folder onto a
    file or a non-empty folder), raised before anything has moved."""
    try:
        info = os.lstat(destination)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode) and not (_real_dir(source) and not os.listdir(destination)):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(destination))
    if _real_dir(source) and not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(destination))


def _set_aside(path: Path) -> Path:
    """Rename ``path`` to a hidden name beside it (so that a failed commit can put it back)."""
    aside = path.with_name(_stage_name(path.name, ".replaced"))
    os.rename(path, aside)
    return aside


def _remove(path: Path) -> None:
    import shutil

    with contextlib.suppress(OSError):
        if _real_dir(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)


def _keep_mode(source: Path, destination: Path) -> None:
    """A file that replaces another takes its mode (a file the user made private stays private; through a link, the
    mode of the file it points to), as :func:`atomic_writer`'s do; a new one keeps the mode the umask gave it.
    ``source`` is a staged file of this process's own."""
    with contextlib.suppress(OSError):
        if stat.S_ISREG(os.stat(destination).st_mode) and stat.S_ISREG(os.lstat(source).st_mode):
            os.chmod(source, _mode_for(destination))


class StagedOutputs:
    """Every output of a run, staged beside its target and moved into place only when all are complete.

    >>> with StagedOutputs() as staged:
    ...     write_csv(staged.file(csv)); write_report(staged.folder(report))
    ...     staged.commit()          # nothing of a failed run (an exception, a signal) stays behind

    A staged file is a hidden name in the target's folder (so the move is a rename); a staged folder is
    a hidden folder beside a new target, or inside an existing one (its files are then moved in).
    """

    def __init__(self):
        self._files: list[tuple[Path, Path]] = []
        self._folders: list[tuple[Path, Path, bool]] = []
        self._replaced: list[tuple[Path, set[str], Callable[[Path], bool] | None]] = []
        self.not_removed: list[tuple[Path, str]] = []  # replaced files the commit could not remove, and why (the
        # sweep says so; a report's or hunt's leftover chart is only clutter)
        self.committed = False

    def __enter__(self) -> StagedOutputs:
        return self

    def __exit__(self, *exc) -> None:
        if not self.committed:
            self.discard()

    def file(self, target: str | os.PathLike) -> Path:
        target = through_links(target)  # staged beside the file a link leads to, and renamed over that file
        folder = target.parent if str(target.parent) else Path(".")
        clean_stale(folder, target.name)
        tmp = folder / _stage_name(target.name, ".staged")  # the writer creates it, with the mode the umask gives
        self._files.append((tmp, target))
        return tmp

    def folder(self, target: str | os.PathLike) -> Path:
        target = Path(target)
        existed = target.is_dir()
        where = target if existed else (target.parent if str(target.parent) else Path("."))
        clean_stale(where, target.name)
        tmp = where / _stage_name(target.name, ".staged")
        tmp.mkdir(0o700)
        self._folders.append((tmp, target, existed))
        return tmp

    def replaces(self, folder: str | os.PathLike, names: Iterable[str],
                 still: Callable[[Path], bool] | None = None) -> None:
        """Files of ``folder`` that an earlier run wrote and this one's outputs replace: those of ``names`` the commit
        does not write again are removed after it (a report's charts of a script or test no longer in it), where
        ``still(path)``, asked again just before, says they are still what made them removable."""
        self._replaced.append((Path(folder), set(names), still))

    def commit(self) -> None:
        """Move every staged output into place, all or none; then remove what they replace (:meth:`replaces`).

        Every destination is checked before anything moves; a move that still fails moves back what had moved and
        puts back the files it replaced, then raises. A signal (Ctrl-C, SIGTERM, SIGHUP) is held until the commit is
        over, the removal of what was replaced included, then raised: in the middle of the renames it left a replaced
        file under its hidden name with nothing in its place, and after them the rest of the old files hidden.
        """
        from workbench.signals import held_signals

        with held_signals(after="the outputs were already in place"):
            self._commit()

    def _commit(self) -> None:
        moves = [(tmp, target) for tmp, target in self._files if os.path.lexists(tmp)]
        # A folder new when the run began may be there now (another run into it finished first): merged into, as
        # one there from the start is (renamed onto it, the move failed after the whole run, "Is a directory").
        self._folders = [(tmp, target, existed or _real_dir(target)) for tmp, target, existed in self._folders]
        for tmp, target, existed in self._folders:
            if existed:
                moves += _moves(tmp, target)
            else:
                os.chmod(tmp, 0o777 & ~_umask())
                moves.append((tmp, target))
        for source, destination in moves:
            _check_move(source, destination)
        for source, destination in moves:
            _keep_mode(source, destination)
        done: list[tuple[Path, Path, Path | None]] = []
        try:
            for source, destination in moves:
                aside = _set_aside(destination) if os.path.lexists(destination) else None
                done.append((source, destination, aside))
                os.rename(source, destination)
        except BaseException:
            for source, destination, aside in reversed(done):
                with contextlib.suppress(OSError):
                    if not os.path.lexists(source):
                        os.rename(destination, source)
                    if aside is not None:
                        os.rename(aside, destination)
            raise
        for _, _, aside in done:
            if aside is not None:
                _remove(aside)
        for tmp, _, existed in self._folders:
            if existed:
                _remove(tmp)  # only the emptied folders of the merge are left in it
        self.committed = True
        written = set()  # the files moved in, by their inode: on a case-blind file system "A.png" is "a.png"
        for _, destination in moves:
            with contextlib.suppress(OSError):
                info = os.lstat(destination)
                written.add((info.st_dev, info.st_ino))
        for folder, names, still in self._replaced:
            for name in sorted(names):
                old = folder / name
                try:
                    info = os.lstat(old)
                except OSError:
                    continue  # gone already
                if stat.S_ISREG(info.st_mode) and (info.st_dev, info.st_ino) not in written \
                        and (still is None or still(old)):
                    try:
                        os.unlink(old)
                    except OSError as exc:  # only clutter is left; the caller says so
                        self.not_removed.append((old, exc.strerror or str(exc)))

    def left_behind(self, what: str = "an earlier run's chart") -> list[str]:
        """A line for each earlier output :meth:`commit` could not remove (the new outputs are in place: only clutter
        is left), naming it (in its folder, which the caller names) and why."""
        return [f"could not remove {what} {path.name}: {why}" for path, why in self.not_removed]

    def move_problem(self, exc: OSError) -> str:
        """Why :meth:`commit` failed, with the path it failed at (as the user named it, not its staging name)."""
        why = exc.strerror or str(exc)
        return f"{self.shown(str(exc.filename))}: {why}" if exc.filename else why

    def shown(self, text: str) -> str:
        """``text`` (an error message) with every staged path replaced by the target it stands for."""
        for tmp, target in [*self._files, *((tmp, target) for tmp, target, _ in self._folders)]:
            text = text.replace(str(tmp), str(target))
        return text

    def discard(self) -> None:
        import shutil

        for tmp, _ in self._files:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for tmp, _, _ in self._folders:
            shutil.rmtree(tmp, ignore_errors=True)
