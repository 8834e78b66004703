"""Celery tasks of runs: take an id, call one service.

`execute_run` goes to the runs queue of the database (`run_queue`); `manage.py serve` starts
a worker that consumes it with a thread pool, so the runs of one worker process share its one
Spark session. Each worker also fails runs whose worker was lost (`run_mark_lost`), so
that happens even when the worker that died was the only one.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db import close_old_connections

from config.namespacing import redis_namespace
from runtime.clusters import DEFAULT

logger = logging.getLogger(__name__)


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
    soft_time_limit=settings.RUN_SOFT_TIME_LIMIT,
    time_limit=settings.RUN_TIME_LIMIT,
)
def execute_run(run_id: int) -> None:
    from runs.execution import run_execute

    run_execute(
        run_id=run_id,
        soft_time_limit=settings.RUN_SOFT_TIME_LIMIT,
        time_limit=settings.RUN_TIME_LIMIT,
    )


def reap_lost_runs_forever(stop: threading.Event, *, period: float) -> None:
    """Call `run_mark_lost` every `period` seconds until `stop` is set."""
    from runs.services import run_mark_lost

    while not stop.wait(period):
        try:
            close_old_connections()
            lost = run_mark_lost()
            if lost:
                logger.warning("runs %s lost their worker and were marked FAILED", lost)
        except Exception:
            logger.exception("checking for runs that lost their worker failed")


@worker_ready.connect
def _start_reaper(**kwargs: Any) -> None:
    thread = threading.Thread(
        target=reap_lost_runs_forever,
        args=(threading.Event(),),
        kwargs={"period": settings.RUN_HEARTBEAT_SECONDS},
        name="run-reaper",
        daemon=True,
    )
    thread.start()
