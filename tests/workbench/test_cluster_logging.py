"""The local cluster's workers log only what is critical while carbench runs them; the user's setting wins."""

import os

from workbench.runs import cluster

NAME = "DASK_LOGGING__DISTRIBUTED"


def test_the_setting_lasts_while_any_local_cluster_runs(monkeypatch):
    monkeypatch.delenv(NAME, raising=False)
    with cluster._quiet_local_workers():
        assert os.environ[NAME] == "critical"
        with cluster._quiet_local_workers():  # a second cluster at once
            assert os.environ[NAME] == "critical"
        assert os.environ[NAME] == "critical"  # the first still runs
    assert NAME not in os.environ


def test_a_users_own_setting_wins_and_stays(monkeypatch):
    monkeypatch.setenv(NAME, "warning")
    with cluster._quiet_local_workers():
        assert os.environ[NAME] == "warning"
    assert os.environ[NAME] == "warning"


def test_the_nannies_in_this_process_drop_only_their_restart_line_while_a_local_cluster_runs(monkeypatch):
    """The loggers' own filters, asked directly: what other tests did to levels and handlers does not matter."""
    import logging

    monkeypatch.delenv(NAME, raising=False)

    def record(name, msg, *args):
        return logging.LogRecord(name, logging.WARNING, __file__, 1, msg, args, None)

    restart = record("distributed.nanny", "Restarting worker (status=%s)", "running")
    alive = record("distributed.nanny", "Worker process still alive after %.1f seconds, killing", 3.0)
    memory = record("distributed.nanny.memory", "Worker %s exceeded 95%% memory budget. Restarting...", "w1")
    nanny, memory_logger = logging.getLogger("distributed.nanny"), logging.getLogger("distributed.nanny.memory")
    assert nanny.filter(restart)
    with cluster._quiet_local_workers():
        with cluster._quiet_local_workers():  # a second cluster at once
            pass
        assert not nanny.filter(restart)  # the first cluster still runs
        assert nanny.filter(alive) and memory_logger.filter(memory)
    assert nanny.filter(restart)


def test_the_scheduler_in_this_process_drops_only_its_lost_results_line_while_a_local_cluster_runs(monkeypatch):
    """A SIGTERM to the process group after some chunks were done: the scheduler's warning that removing the killed
    workers lost computed tasks came before carbench's one line."""
    import logging

    monkeypatch.delenv(NAME, raising=False)

    def record(msg):
        return logging.LogRecord("distributed.scheduler", logging.WARNING, __file__, 1, msg, (), None)

    lost = record("Removing worker 'tcp://127.0.0.1:38531' caused the cluster to lose already computed task(s), "
                  "which will be recomputed elsewhere: {'run_chunk-1'} (stimulus_id='handle-worker-cleanup-1')")
    other = record("Received heartbeat from unregistered worker 'tcp://127.0.0.1:1'.")
    scheduler = logging.getLogger("distributed.scheduler")
    assert scheduler.filter(lost)
    with cluster._quiet_local_workers():
        assert not scheduler.filter(lost) and scheduler.filter(other)
    assert scheduler.filter(lost)
