"""Telling the worker that drives a run to cancel it: a message on the run's control channel,
in the Redis of run events (`RUN_EVENTS_URL`), where the worker listens.

The worker also reads the run's status every second, so a message lost while Redis was
away only delays the cancel.
"""

from __future__ import annotations

import logging
from functools import cache

import redis
from django.conf import settings

logger = logging.getLogger(__name__)

CANCEL = b"cancel"


def cancel_channel(run_key: str) -> str:
    return f"run-control:{run_key}"


@cache
def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.RUN_EVENTS_URL, socket_timeout=2, socket_connect_timeout=2)


def request_cancel(run_key: str) -> None:
    try:
        _client().publish(cancel_channel(run_key), CANCEL)
    except (redis.RedisError, OSError):
        logger.warning("could not tell the worker of run %s to cancel; it will see it", run_key)
