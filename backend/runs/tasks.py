"""Celery tasks of runs: take an id, call one service.

`execute_run` goes to the runs queue of the database (`run_queue`); `manage.py serve` (and
`manage.py worker`, on any host) starts a worker that consumes it with a thread pool, so the
runs of one worker process share its one Spark session. Several workers may share a queue.
Each worker also runs the reaper of lost runs (`runs.reaper`).
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from config.namespacing import redis_namespace
from runs.execution import run_execute
from runtime.clusters import DEFAULT


def run_queue(cluster: str = DEFAULT) -> str:
    """The queue of a cluster's runs: `RUN_QUEUE`, or the runs queue of the database served
    (a worker of another database sharing the Redis must not take them: ids repeat), with
    `.<cluster>` for clusters other than the default. Each worker process takes one
    cluster's queue, so it keeps one Spark session for one master."""
    base = settings.RUN_QUEUE or f"{redis_namespace()}.runs"
    return base if cluster == DEFAULT else f"{base}.{cluster}"


@shared_task(
    name="runs.execute_run",
    ignore_result=True,
    # Acknowledged when it ends, and with a prefetch of one (the setting), a busy worker
    # holds no queued run back from an idle one. Redelivered after its worker died, or
    # after Redis' visibility timeout, it finds the run no longer queued and does nothing.
    acks_late=True,
    soft_time_limit=settings.RUN_SOFT_TIME_LIMIT,
    time_limit=settings.RUN_TIME_LIMIT,
)
def execute_run(run_id: int) -> None:
    run_execute(
        run_id=run_id,
        soft_time_limit=settings.RUN_SOFT_TIME_LIMIT,
        time_limit=settings.RUN_TIME_LIMIT,
    )
