"""Two Celery workers on one cluster's queue, as `docker/compose.yaml` runs them (the one
`serve` starts in `web` and the `worker` container): two `manage.py run_worker` processes
whose profile differs only in `host`, on the session's standalone cluster. Each run is
driven by the worker that took it, from that worker's own Spark application, and the
applications share the cluster's cores because the profile caps each (`spark.cores.max`);
without the cap the first would hold every core and the second get no executor."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runs.models import Run
from runs.services import run_start
from tests.backend.factories import make_team
from tests.backend.runs_support import make_runnable_version, run_workers, wait_for
from tests.backend.spark_cluster import StandaloneCluster

# Two workers claim runs with PostgreSQL's row locks, as in production (SQLite takes none).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_only]

CLUSTER = "shared"
RUNS = 4


def _profile(cluster: StandaloneCluster, root: Path, host: str) -> str:
    return json.dumps(
        {
            CLUSTER: {
                "master": cluster.master_url,
                "host": host,
                "python": sys.executable,
                "sparkConf": {
                    "spark.cores.max": 1,
                    "spark.executor.cores": 1,
                    "spark.executor.memory": "512m",
                    "spark.executorEnv.PYTHONPATH": str(root / "executor-path"),
                },
            }
        }
    )


@pytest.fixture
def two_workers(
    spark_cluster: StandaloneCluster,
    django_db_blocker: Any,
    tmp_path: Path,
    settings: Any,
) -> Iterator[list[int]]:
    """The two workers' process ids, once both wait for runs; the test's settings have the
    same profile, so it queues runs where they take them."""
    (tmp_path / "executor-path").mkdir()
    settings.SPARK_CLUSTERS = json.loads(_profile(spark_cluster, tmp_path, "127.0.0.1"))
    environment = {
        "RUN_EXECUTOR": "spark",
        "RUN_WORKER_CONCURRENCY": "1",
        "RUNTIME_DATA_DIR": str(tmp_path / "data"),
        "RUNTIME_CACHE_DIR": str(tmp_path / "cache"),
    }
    # Both on loopback here; in compose each advertises its own service name.
    environments = [
        {**environment, "SPARK_CLUSTERS": _profile(spark_cluster, tmp_path, host)}
        for host in ("127.0.0.1", "localhost")
    ]
    with run_workers(django_db_blocker, environments, cluster=CLUSTER) as processes:
        yield [process.pid for process in processes]


def test_runs_of_one_cluster_are_shared_by_its_workers_each_with_its_application(
    two_workers: list[int], spark_cluster: StandaloneCluster
) -> None:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner)  # version 2
    ids = [
        run_start(pipeline=team.pipeline, actor=team.owner, version=2, cluster=CLUSTER).pk
        for _ in range(RUNS)
    ]

    def ended() -> bool:
        statuses = Run.objects.filter(pk__in=ids).values_list("status", flat=True)
        return all(status in ("FINISHED", "FAILED", "CANCELED") for status in statuses)

    wait_for(ended, 240, "the runs' ends")
    runs = list(Run.objects.filter(pk__in=ids))
    assert {(run.status, run.error) for run in runs} == {("FINISHED", "")}
    # Both workers took runs, and each drove its runs from an application of its own.
    pids = {int(run.worker.rpartition(":")[2]) for run in runs}
    assert pids == set(two_workers)
    drivers = {(run.worker, run.details["applicationId"]) for run in runs}
    applications = {application for _, application in drivers}
    assert len(drivers) == len(applications) == 2
    active = {app["id"]: app["cores"] for app in spark_cluster.state()["activeapps"]}
    assert [active[application] for application in applications] == [1, 1]
