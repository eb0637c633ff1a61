"""Where a batch of independent chunks runs: in this process, on a local Dask cluster of worker
processes (``--workers N``), or on an existing Dask cluster (``--scheduler tcp://HOST:PORT``).

Dask's ``distributed`` is an optional extra (``pip install "carbench[cluster]"``); carbench writes no
scheduler or pool of its own. Results always come back in the order of the chunks, so a run's output
does not depend on where it ran.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

MAX_WORKERS = 64
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
        if scheduler is not None:
            try:
                client = stack.enter_context(dd.Client(scheduler, timeout=CONNECT_TIMEOUT))
            except (OSError, TimeoutError) as exc:
                raise ClusterError(f"--scheduler {scheduler}: cannot connect ({exc})") from exc
        else:
            cluster = stack.enter_context(dd.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                          dashboard_address=None))
            client = stack.enter_context(dd.Client(cluster))

        def run(fn, chunks):
            futures = client.map(fn, list(chunks), pure=False)
            return client.gather(futures)

        yield run
