"""How often a user may ask for the reads that cost the server most, per minute and over all
their sockets and server processes (counted in Redis):

- a fresh snapshot from a socket (`resync`, `SOCKET_RESYNCS_PER_MINUTE`): megabytes of JSON
  and a compile for a large pipeline. Snapshots the server sends on its own (after a gap, a
  reconnect) are not counted;
- a rescale simulation (`RESCALES_PER_MINUTE`): seconds of work for a large pipeline.

Without Redis the counts are skipped: a resync is what a client needs most when something
went wrong.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError
from rest_framework.exceptions import Throttled

from config.namespacing import redis_namespace
from pipelines.presence import redis_client

logger = logging.getLogger(__name__)


async def resync_allowed(*, user_id: int) -> bool:
    """Count one asked-for snapshot of the user; False when they asked too often."""
    minute = int(time.time() // 60)
    key = f"{redis_namespace()}:resyncs:{user_id}:{minute}"
    try:
        redis = redis_client()
        count = int(await redis.incr(key))
        if count == 1:
            await redis.expire(key, 120)
    except (RedisError, OSError) as error:
        logger.warning("resync count of user %s skipped: %s", user_id, error)
        return True
    return count <= settings.SOCKET_RESYNCS_PER_MINUTE


def too_many_resyncs_message() -> str:
    limit = settings.SOCKET_RESYNCS_PER_MINUTE
    return (
        f"At most {limit} snapshots a minute may be asked for: wait a moment before asking "
        "again (the socket still sends every change)."
    )


def ensure_rescale_allowed(*, user_id: int) -> None:
    """Count one rescale simulation of the user; `Throttled` (429, with the seconds to wait)
    past `RESCALES_PER_MINUTE`."""
    now = time.time()
    key = f"rescales:{user_id}:{int(now // 60)}"
    try:
        cache.add(key, 0, timeout=120)
        used = int(cache.incr(key))
    except (RedisError, OSError, ValueError) as error:
        logger.warning("rescale count of user %s skipped: %s", user_id, error)
        return
    limit = settings.RESCALES_PER_MINUTE
    if used > limit:
        wait = max(1, 60 - int(now % 60))
        raise Throttled(
            wait=wait,
            detail=f"At most {limit} rescale simulations a minute: try again in {wait} s.",
        )
