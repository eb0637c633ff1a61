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


def test_the_nannies_in_this_process_say_only_errors_while_a_local_cluster_runs(monkeypatch):
    import logging

    monkeypatch.delenv(NAME, raising=False)
    nanny = logging.getLogger("distributed.nanny")
    before = nanny.level
    with cluster._quiet_local_workers():
        assert not nanny.isEnabledFor(logging.WARNING) and nanny.isEnabledFor(logging.ERROR)
        with cluster._quiet_local_workers():
            assert not nanny.isEnabledFor(logging.WARNING)
        assert not nanny.isEnabledFor(logging.WARNING)  # the first cluster still runs
    assert nanny.level == before
