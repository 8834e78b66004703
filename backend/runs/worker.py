"""How a Celery worker that executes runs is started: one command line for `serve` and tests.

The worker uses a pool of threads, not processes: every run it executes at once shares
the process's one Spark session (starting one costs seconds and most of a gigabyte).
"""

from __future__ import annotations

import sys

from django.conf import settings

from runs.tasks import run_queue
from runtime.clusters import DEFAULT


def worker_command(
    *, cluster: str = DEFAULT, concurrency: int | None = None, loglevel: str = "INFO"
) -> list[str]:
    """A Celery worker for one cluster's runs queue (`run_queue`; the default cluster's
    worker also takes Celery's default queue). One process per cluster: its runs share the
    process's one Spark session, started for that cluster's master and never restarted."""
    threads = settings.RUN_WORKER_CONCURRENCY if concurrency is None else concurrency
    queues = f"celery,{run_queue()}" if cluster == DEFAULT else run_queue(cluster)
    return [
        sys.executable, "-m", "celery", "-A", "config", "worker",
        "--hostname", f"{cluster}@%h",
        "--loglevel", loglevel,
        "--queues", queues,
        "--pool", "threads", "--concurrency", str(threads),
    ]  # fmt: skip
