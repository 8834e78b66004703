"""The background reaper: fails the runs whose worker was lost (`run_mark_lost`).

`manage.py serve` runs it in a thread of its own, and so does every Celery worker once it
is ready, so a run whose worker died is failed even when that worker was the only one.
Nothing else marks runs lost: reads show such a run as the reaper will leave it
(`runs.selectors.run_loss`) and write nothing.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery.signals import worker_ready
from django.conf import settings
from django.db import close_old_connections

from runs.services import run_mark_lost

logger = logging.getLogger(__name__)


def reap_lost_runs_forever(stop: threading.Event, *, period: float) -> None:
    """Call `run_mark_lost` every `period` seconds until `stop` is set."""
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
