"""How a Celery worker that executes runs is started: one command line for `serve` and tests.

The worker uses a pool of threads, not processes: every run it executes at once shares
the process's one Spark session (starting one costs seconds and most of a gigabyte).
"""

from __future__ import annotations

import sys

from django.conf import settings

from runs.tasks import run_queue


def worker_command(*, concurrency: int | None = None, loglevel: str = "INFO") -> list[str]:
    """A Celery worker for the default queue and the runs queue (`run_queue`)."""
    threads = settings.RUN_WORKER_CONCURRENCY if concurrency is None else concurrency
    return [
        sys.executable, "-m", "celery", "-A", "config", "worker",
        "--loglevel", loglevel,
        "--queues", f"celery,{run_queue()}",
        "--pool", "threads", "--concurrency", str(threads),
    ]  # fmt: skip
