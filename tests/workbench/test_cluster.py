"""Chunks run in process or on Dask, with the results in chunk order either way."""

from __future__ import annotations

import builtins
import os
import signal
import subprocess
import sys

import pytest

from workbench.runs import cluster


def square(x):
    return x * x


def test_in_process_keeps_the_order():
    with cluster.mapper() as run:
        assert run(square, [3, 1, 2]) == [9, 1, 4]


@pytest.mark.parametrize(("workers", "scheduler", "reason"), [
    (0, None, "between 1 and"), (cluster.MAX_WORKERS + 1, None, "between 1 and"), (True, None, "between 1 and"),
    (2, "tcp://127.0.0.1:1", "one or the other"), (None, " ", "empty"),
])
def test_bad_options_are_refused(workers, scheduler, reason):
    with pytest.raises(cluster.ClusterError, match=reason):
        cluster.check_options(workers, scheduler)


def test_without_distributed_the_message_names_the_extra(monkeypatch):
    real_import = builtins.__import__

    def no_distributed(name, *args, **kwargs):
        if name.split(".")[0] == "distributed":
            raise ImportError("no module named distributed")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(cluster.importlib, "import_module", lambda name: no_distributed(name))
    with pytest.raises(cluster.ClusterError, match=r'carbench\[cluster\]'):
        cluster.check_options(2, None)


def test_an_unreachable_scheduler_is_a_clean_error(monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
    with pytest.raises(cluster.ClusterError, match="cannot connect"), cluster.mapper(scheduler="tcp://127.0.0.1:9"):
        pass


def test_a_server_that_is_no_dask_scheduler_is_said_to_be_none(monkeypatch):
    """An HTTP server at --scheduler: its reply read as a Dask message's length, "MemoryError: Unable to allocate
    3.07 EiB", said as the cluster's failure to run the sweep."""
    import socket
    import threading

    pytest.importorskip("distributed")
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 5.0)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def answer():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2.0)
                try:
                    conn.recv(65536)
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 10)
                except OSError:
                    pass

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        with pytest.raises(cluster.ClusterError) as caught, cluster.mapper(scheduler=address):
            pass
    finally:
        stop.set()
        thread.join(2.0)
        server.close()
    assert str(caught.value).startswith(f"--scheduler {address}: "), caught.value
    assert "MemoryError" not in str(caught.value)


def test_a_local_cluster_of_two_workers_keeps_the_order():
    with cluster.mapper(workers=2) as run:
        assert run(square, list(range(10))) == [x * x for x in range(10)]


def test_a_local_cluster_beside_another_on_the_dashboards_port_warns_of_nothing():
    # Two sweeps on local clusters at once (or a user's own Dask): the first holds port 8787. The scheduler's HTTP
    # server used to take 8787 even without a dashboard and warn on stderr that it was in use.
    import socket
    import warnings

    pytest.importorskip("distributed")
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        holder.bind(("0.0.0.0", 8787))
        holder.listen()
    except OSError:  # already held by someone else: the same collision
        pass
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with cluster.mapper(workers=1) as run:
                assert run(square, [2, 3]) == [4, 9]
    finally:
        holder.close()
    assert not [w for w in caught if "already in use" in str(w.message)], [str(w.message) for w in caught]


def _held_signals(status: str) -> set[int]:
    """The signals a process ignores or blocks (either way never acts on), from its /proc/PID/status text."""
    mask = 0
    for field in ("SigIgn:", "SigBlk:"):
        mask |= int(next(line.split()[1] for line in status.splitlines() if line.startswith(field)), 16)
    return {s for s in range(1, 65) if mask >> (s - 1) & 1}


@pytest.mark.skipif(not hasattr(signal, "SIGHUP") or not os.path.exists("/proc/self/status"),
                    reason="POSIX signals read from /proc")
def test_the_local_clusters_processes_and_the_resource_tracker_start_holding_hangups(monkeypatch):
    """A closed terminal's SIGHUP reaches the whole process group: the workers and multiprocessing's resource
    tracker must outlive it until this process has closed them (a tracker dead of it was started again on
    the way out and printed a KeyError traceback per semaphore)."""
    from multiprocessing import resource_tracker

    seen = []
    monkeypatch.setattr(resource_tracker, "ensure_running",
                        lambda: seen.append(signal.pthread_sigmask(signal.SIG_BLOCK, set())))
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGHUP)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    with cluster._children_hold_hangups():
        child = subprocess.run([sys.executable, "-c", "print(open('/proc/self/status').read())"],
                               capture_output=True, text=True, check=True)
    assert {signal.SIGINT, signal.SIGHUP} <= _held_signals(child.stdout)
    assert len(seen) == 1 and {signal.SIGINT, signal.SIGHUP} <= seen[0]  # the tracker, if started here, holds them
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGHUP)) == before  # this process's put back
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == mask


HELD_CTRL_C = """
import os, signal, sys
from workbench.runs import cluster
try:
    with cluster._children_hold_hangups():
        os.kill(os.getpid(), signal.SIGINT)  # a Ctrl-C while the workers start
        print("held", flush=True)
except KeyboardInterrupt:
    print("interrupted when the block ended", flush=True)
    sys.exit(0)
print("lost", flush=True)
"""


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_a_ctrl_c_while_the_local_cluster_starts_is_acted_on_when_it_has_started():
    """SIGINT was ignored while the workers started (so that they inherit it ignored): a Ctrl-C in those seconds
    was lost and the run went on. It is held and delivered when the block ends. (In a fresh interpreter: a test
    runner's own threads would take the signal at once.)"""
    done = subprocess.run([sys.executable, "-c", HELD_CTRL_C], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines() == ["held", "interrupted when the block ended"], (done.stdout, done.stderr)
