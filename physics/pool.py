"""The threads a batch's cars are shared among: the kernel's one compiled block, called on ranges of cars at once.

The block is compiled without the GIL (``nogil``), so Python threads run it side by side. Each car is advanced
by the same machine code whichever thread takes it, so a car's bits do not depend on the thread count or the
split. (numba's ``prange`` would compile the whole model a second time, for its parallel runtime: 7 to 11 s of
CPU more on the first batch.)

The threads are daemons, made on first use and kept (a forked child makes its own): a process that ends while a
batch runs on a thread of its own does not wait for it (the CLI and the window run theirs to the end or wait for
them). A call returns only once every range it handed out is done, even when the caller is interrupted (Ctrl-C,
SIGTERM): the cars' arrays are never written by a range still running after the call has gone. The caller runs
a range of its own and then any range no pool thread has started, so two threads' batches at once (a sweep
beside another) never leave a caller waiting on a queue.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable

MIN_CAR_FRAMES = 256
"""The least car-frames a thread is given: a range costs some 10 to 30 µs to hand to a thread and wake it, and
a car-frame 0.5 to 1.5 µs of work, so smaller shares would cost more than they save (a window's step of a few
cars runs in the calling thread)."""


class _Job:
    """One range handed out: run by whichever takes it first, a pool thread or the caller that made it."""

    __slots__ = ("call", "done", "error", "_taken")

    def __init__(self, call: Callable[[], None]):
        self.call = call
        self.done = threading.Event()
        self.error: BaseException | None = None
        self._taken = threading.RLock()  # owned by the thread that took it: asked again, that thread gets True

    def take(self) -> bool:
        """Whether this thread is the one to run it (the first to ask, and it again)."""
        return self._taken.acquire(blocking=False)

    def run(self) -> None:
        """On a pool thread: an error is kept for the caller."""
        try:
            self.call()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            self.error = exc
        finally:
            self.call = None  # a pool thread holds its last job until the next: not the batch's arrays with it
            self.done.set()

    def run_here(self) -> None:
        """In the caller: an error (a signal's included) is the caller's own."""
        try:
            self.call()
        finally:
            self.call = None
            self.done.set()

    def drop(self) -> None:
        """Taken and not run: the call that made it was interrupted before any thread started it."""
        self.call = None
        self.done.set()


def _first(kept: BaseException | None, new: BaseException) -> BaseException:
    """An interrupt (not an Exception) wins over an error; else the first stays."""
    if kept is None or (isinstance(kept, Exception) and not isinstance(new, Exception)):
        return new
    return kept


class _Pool:
    def __init__(self):
        self._reset()

    def _reset(self) -> None:
        """No threads and no jobs: a new pool, and what a forked child starts from (the parent's threads are not
        in it, and its queue and lock may have been taken mid-operation)."""
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def _ensure(self, count: int) -> None:
        with self._lock:
            while len(self._threads) < count:
                thread = threading.Thread(target=self._work, name=f"carbench-cars-{len(self._threads) + 1}",
                                          daemon=True)
                thread.start()
                self._threads.append(thread)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job.take():
                job.run()
            del job

    def run(self, calls: list[Callable[[], None]]) -> None:
        """Run ``calls``: the first in this thread, the others on the pool's threads; returns when all are done
        and raises what went wrong (an interrupt before any range's error, else the first error).

        Once its own call is done, the caller runs any range no pool thread has started yet (another caller's
        ranges may hold the pool's threads), and waits for the others. Interrupted (a signal raised in it, at any
        point), it starts no more ranges, waits for those running, and raises. No exception raised here keeps a
        range's arrays alive through its traceback.
        """
        jobs: list[_Job] = []
        failure: BaseException | None = None
        job = None
        try:
            self._ensure(len(calls) - 1)
            for call in calls[1:]:
                job = _Job(call)
                jobs.append(job)  # before it is queued: every queued job is one this call drops or waits for
                self._jobs.put(job)
            calls[0]()
            for job in jobs:
                if job.take():
                    job.run_here()
        except BaseException as exc:  # noqa: BLE001
            failure = exc
        while True:  # idempotent: a second signal in here starts it again
            try:
                for job in jobs:
                    if job.take() and not job.done.is_set():  # not started by a pool thread (or by this one)
                        job.drop()
                for job in jobs:
                    job.done.wait()
                break
            except BaseException as exc:  # noqa: BLE001
                failure = _first(failure, exc)
        try:
            for job in jobs:
                if job.error is not None:
                    failure = _first(failure, job.error)
                    job.error = None
            if failure is not None:
                raise failure
        finally:
            failure = job = None
            jobs.clear()


_POOL = _Pool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_POOL._reset)


def shares(cars: int, frames: int, threads: int) -> list[int]:
    """Where the ranges of ``cars`` cars start and end (``len`` = ranges + 1) for a block of ``frames`` frames on at
    most ``threads`` threads: equal shares (to a car), of about :data:`MIN_CAR_FRAMES` car-frames or more."""
    count = max(1, min(threads, cars, cars * frames // MIN_CAR_FRAMES))
    return [cars * j // count for j in range(count + 1)]


def across(block: Callable, threads: Callable[[], int]) -> Callable:
    """``block(args, inputs, out, dt, frame0, lo, hi)`` (advances cars lo to hi - 1) run with cars lo to hi - 1
    shared among ``threads()`` threads; the same signature, and an optional ``then(lo, hi)`` that each range's thread
    calls once its cars' frames are in ``out`` (a sweep reduces them there, on the threads that stepped them)."""

    def run(args, inputs, out, dt, frame0, lo, hi, then=None):
        bounds = shares(hi - lo, inputs.shape[0], threads())
        if len(bounds) == 2:
            block(args, inputs, out, dt, frame0, lo, hi)
            if then is not None:
                then(lo, hi)
            return
        _POOL.run([_share(block, args, inputs, out, dt, frame0, lo + a, lo + b, then)
                   for a, b in zip(bounds[:-1], bounds[1:], strict=True)])

    return run


def _share(block, args, inputs, out, dt, frame0, lo, hi, then=None) -> Callable[[], None]:
    if then is None:
        return lambda: block(args, inputs, out, dt, frame0, lo, hi)

    def call() -> None:
        block(args, inputs, out, dt, frame0, lo, hi)
        then(lo, hi)

    return call
