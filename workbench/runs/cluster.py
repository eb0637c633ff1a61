"""Where a batch of independent chunks runs: in this process, on a local Dask cluster of worker
processes (``--workers N``), or on an existing Dask cluster (``--scheduler tcp://HOST:PORT``).

Dask's ``distributed`` is an optional extra (``pip install "carbench[cluster]"``); carbench writes no
scheduler or pool of its own. Results always come back in the order of the chunks, so a run's output
does not depend on where it ran.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from workbench.signals import Terminated
from workbench.streams import quiet_stderr

MAX_WORKERS = 64
OPEN_FILES_BASE = 16  # files a local cluster's process keeps open (the scheduler, its loop, this process's own) ...
OPEN_FILES_PER_WORKER = 16  # ... and per worker (its nanny's pipes and connections): a sweep ran clean with 1, 2, 3
# and 4 workers at 32, 48, 56 and 68 open files; below, the nannies failed to start with a traceback each (1 worker
# at 28, 2 at 44, 3 at 36), or the sweep ran printing tracebacks (2 at 40), or hung printing them (4 at 60)
CONNECT_TIMEOUT = 10.0  # [s] to reach a scheduler given with --scheduler


class ClusterError(ValueError):
    """The cluster options cannot be used here; the message names the option and what to do."""


Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], list]
"""Applies a function to every chunk and returns the results in chunk order."""


def check_options(workers: int | None, scheduler: str | None) -> None:
    """ClusterError for options that cannot work, before anything runs."""
    if workers is not None and scheduler is not None:
        raise ClusterError("--workers and --scheduler: give one or the other")
    if workers is not None and (isinstance(workers, bool) or not 1 <= workers <= MAX_WORKERS):
        raise ClusterError(f"--workers {workers}: must be between 1 and {MAX_WORKERS}")
    if scheduler is not None and not scheduler.strip():
        raise ClusterError("--scheduler: the address is empty")
    if workers is not None or scheduler is not None:
        distributed()
    if workers is not None:
        _open_files_for(workers)


def open_files_needed(workers: int) -> int:
    """How many files this process must be allowed to open for a local cluster of ``workers``."""
    return OPEN_FILES_BASE + OPEN_FILES_PER_WORKER * workers


def _open_files_for(workers: int) -> None:
    """Raise this process's limit of open files (``ulimit -n``'s soft limit, never past its hard one) to what a local
    cluster of ``workers`` needs; ClusterError, before anything runs, where the hard limit is below that (Dask's
    nannies failed to start with a traceback each, or ran on printing them, or hung)."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return
    need = open_files_needed(workers)
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return
    infinite = resource.RLIM_INFINITY
    if soft == infinite or soft >= need:
        return
    if hard == infinite or hard >= need:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (need if hard != infinite and hard < 1024 else max(need, 1024),
                                                        hard))
            return
        except (OSError, ValueError):  # not raised after all: what this process may open is its soft limit
            most = soft
    else:
        most = max(soft, hard)  # the hard limit, below what the cluster needs
    raise ClusterError(f"--workers {workers}: a local Dask cluster of {workers} worker{'s' if workers != 1 else ''} "
                       f"needs about {need} open files, and this process may open {most} (ulimit -n); raise the "
                       f"limit (ulimit -n {max(need, 1024)}) or run without --workers")


def distributed():
    """The ``distributed`` module, or ClusterError naming the extra that installs it."""
    try:
        return importlib.import_module("distributed")
    except ImportError as exc:
        raise ClusterError('--workers/--scheduler need Dask\'s "distributed": pip install "carbench[cluster]"') from exc


def _in_process(fn, chunks):
    return [fn(chunk) for chunk in chunks]


@contextlib.contextmanager
def mapper(workers: int | None = None, scheduler: str | None = None) -> Iterator[Mapper]:
    """A :data:`Mapper` for the given options; the cluster (if any) is closed when the block ends."""
    check_options(workers, scheduler)
    if workers is None and scheduler is None:
        yield _in_process
        return
    dd = distributed()
    with contextlib.ExitStack() as stack:
        try:
            if scheduler is not None:
                client = stack.enter_context(_connect(dd, scheduler))
            else:
                stack.enter_context(_quiet_local_workers())
                with _children_hold_hangups():
                    # No dashboard; the scheduler's HTTP server (health checks) still starts, on 8787 unless told: on
                    # a free local port instead, so that another cluster holding 8787 prints no warning of ours.
                    cluster = stack.enter_context(dd.LocalCluster(n_workers=workers, threads_per_worker=1,
                                                                  processes=True, dashboard_address=None,
                                                                  scheduler_kwargs={"dashboard_address":
                                                                                    "127.0.0.1:0"}))
                client = stack.enter_context(dd.Client(cluster))
        except (KeyboardInterrupt, Terminated):
            _quiet_dask()  # the cluster is closed on the way out without its warnings
            with quiet_stderr():
                stack.close()
            raise

        def run(fn, chunks):
            with warnings.catch_warnings():
                # A long script's chunks are large: Dask's five-line "Sending large graph of size 18.55 MiB ... may
                # cause some slowdown" came with every such sweep, beside carbench's own lines
                warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
                futures = client.map(fn, list(chunks), pure=False)
            return client.gather(futures)

        try:
            yield run
        except (KeyboardInterrupt, Terminated):
            _quiet_dask()  # the cluster is closed on the way out without its warnings
            with quiet_stderr():
                stack.close()
            raise


_quieted = 0  # local clusters running with the workers' logging set by carbench
_quieted_lock = threading.Lock()


@contextlib.contextmanager
def _quiet_local_workers() -> Iterator[None]:
    """The local cluster's worker processes log only what is critical while the block runs.

    They read this when they start (and when a nanny restarts one); a user's own setting wins. The
    scheduler lives in this process, so what a worker logs at a lower level is either a task's
    failure, which reaches this process as the task's exception, or the worker losing its scheduler,
    which happens when this process closes the cluster: after Ctrl-C a heartbeat in flight ends in
    "Failed to communicate with scheduler" and a page of CommClosedError, beside carbench's one line.
    The setting is taken away when the last local cluster that set it closes.

    The nannies and the scheduler live in this process, and while a local cluster runs their loggers drop one
    message each: the nanny's "Restarting worker" and the scheduler's "Removing worker ... lose already computed
    task(s)". A signal to the process group (Ctrl-C, SIGTERM, SIGHUP from a closed
    terminal) reaches the workers too, and a nanny that sees its worker die says so before this
    process's own handler has closed the cluster. Everything else they say still shows, the reason a
    worker was restarted (its memory, from ``distributed.nanny.memory``) among it.
    """
    import logging

    global _quieted
    name = "DASK_LOGGING__DISTRIBUTED"
    nanny = logging.getLogger("distributed.nanny")
    scheduler = logging.getLogger("distributed.scheduler")
    with _quieted_lock:
        if _quieted == 0 and name in os.environ:  # the user's
            mine = False
        else:
            mine = True
            if _quieted == 0:
                nanny.addFilter(_no_restart_lines)
                scheduler.addFilter(_no_lost_results_lines)
            _quieted += 1
            os.environ[name] = "critical"
    try:
        yield
    finally:
        if mine:
            with _quieted_lock:
                _quieted -= 1
                if _quieted == 0:
                    os.environ.pop(name, None)
                    nanny.removeFilter(_no_restart_lines)
                    scheduler.removeFilter(_no_lost_results_lines)


def _no_restart_lines(record) -> bool:
    """A logging filter: False (drop it) for a nanny's "Restarting worker" line."""
    return not str(record.msg).startswith("Restarting worker")


def _no_lost_results_lines(record) -> bool:
    """A logging filter: False (drop it) for the scheduler's "Removing worker ... caused the cluster to lose already
    computed task(s)": a signal to the process group that kills the workers after some chunks are done makes one a
    worker before this process's own handler closes the cluster (a chunk lost otherwise is run again, its result the
    same, and a worker's death has the nanny's own line)."""
    return "lose already computed task" not in str(record.msg)


@contextlib.contextmanager
def _children_hold_hangups() -> Iterator[None]:
    """Processes started in the block hold SIGINT and SIGHUP (blocked: never acted on); this process gets them when
    the block ends.

    Ctrl-C in a terminal sends SIGINT to the whole process group, and a closed terminal SIGHUP: the local
    cluster's workers would each die of it with a page of tracebacks while this process shuts them down
    anyway; they are closed by their nannies here. The same holds for multiprocessing's resource tracker,
    started here if it is not running yet: it ignores SIGINT and SIGTERM itself but not SIGHUP, and once it
    was dead this process's semaphores, unregistered on the way out, started a new one that printed a
    KeyError traceback for each.

    The signals are blocked in this thread for the block: a child inherits the blocked mask across fork and exec
    (and the threads started here, the scheduler's among them), and a Ctrl-C or hangup while the workers start (a
    second or two) waits, pending, and is delivered when the block ends (or at once, through a thread of this
    process started before it). They were ignored here before, and a Ctrl-C in those seconds was lost. Where
    signal masks do not exist (Windows), they are ignored as before.
    """
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {s for s in (signal.SIGINT, getattr(signal, "SIGHUP", None)) if s is not None}
    mask = getattr(signal, "pthread_sigmask", None)
    saved: dict = {}
    before = None
    try:
        if mask is not None:
            before = mask(signal.SIG_BLOCK, held)
        else:
            for sig in held:
                saved[sig] = signal.signal(sig, signal.SIG_IGN)
    except (OSError, ValueError):
        _restore(saved)
        yield
        return
    try:
        if os.name == "posix":  # (the tracker is POSIX's; Windows has none)
            from multiprocessing import resource_tracker

            resource_tracker.ensure_running()  # with the signals above held, unless it runs already
            if before is not None:  # starting the tracker, multiprocessing unblocks SIGINT (and SIGTERM) after it
                mask(signal.SIG_BLOCK, held)
        yield
    finally:
        _restore(saved)
        if before is not None:
            mask(signal.SIG_SETMASK, before)  # a signal held meanwhile is delivered here


def _restore(saved: dict) -> None:
    import signal

    for sig, handler in saved.items():
        with contextlib.suppress(OSError, ValueError, TypeError):
            signal.signal(sig, handler)


def _connect(dd, scheduler: str):
    """A Client of the scheduler at ``scheduler``, or ClusterError within CONNECT_TIMEOUT (plus a second).

    A port that accepts a connection but never answers (not a Dask scheduler) would otherwise keep
    the handshake waiting for good, so the connection is made in a thread that is given up on.
    """

    with contextlib.suppress(Exception):
        import dask

        dask.config.set({"distributed.comm.timeouts.connect": f"{CONNECT_TIMEOUT:g}s"})
    outcome: dict[str, Any] = {}

    def connect():
        try:
            outcome["client"] = dd.Client(scheduler, timeout=CONNECT_TIMEOUT)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=connect, name="carbench-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_TIMEOUT + 1.0)
    if thread.is_alive():
        _quiet_dask()
        raise ClusterError(f"--scheduler {scheduler}: no answer within {CONNECT_TIMEOUT:g} s "
                           "(is a Dask scheduler listening there?)")
    error = outcome.get("error")
    if error is not None:
        if isinstance(error, (OSError, TimeoutError, ValueError)):
            raise ClusterError(f"--scheduler {scheduler}: cannot connect ({error})") from error
        if isinstance(error, MemoryError):
            # Another server's reply (an HTTP one's "HTTP/1.1 400 ...") read as a Dask message's length: it said
            # "MemoryError: Unable to allocate 3.07 EiB".
            raise ClusterError(f"--scheduler {scheduler}: what answers there is no Dask scheduler (its reply did "
                               "not read as Dask's)") from error
        raise error
    return outcome["client"]


def _quiet_dask() -> None:
    import logging
    import warnings

    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    warnings.filterwarnings("ignore")
