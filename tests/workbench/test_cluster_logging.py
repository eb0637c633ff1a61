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
    import logging

    monkeypatch.delenv(NAME, raising=False)
    seen = []

    class Keep(logging.Handler):
        def emit(self, record):
            seen.append((record.name, record.getMessage()))

    nanny, memory = logging.getLogger("distributed.nanny"), logging.getLogger("distributed.nanny.memory")
    handler = Keep(level=logging.WARNING)
    nanny.addHandler(handler)
    try:
        with cluster._quiet_local_workers():
            with cluster._quiet_local_workers():  # a second cluster at once
                pass
            nanny.warning("Restarting worker (status=%s)", "running")  # the first cluster still runs
            nanny.warning("Worker process still alive after %.1f seconds, killing", 3.0)
            memory.warning("Worker %s exceeded 95%% memory budget. Restarting...", "w1")
        nanny.warning("Restarting worker (status=%s)", "closing")
    finally:
        nanny.removeHandler(handler)
    assert seen == [("distributed.nanny", "Worker process still alive after 3.0 seconds, killing"),
                    ("distributed.nanny.memory", "Worker w1 exceeded 95% memory budget. Restarting..."),
                    ("distributed.nanny", "Restarting worker (status=closing)")]
