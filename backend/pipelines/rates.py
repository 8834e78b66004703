"""How often a user may ask a socket for a fresh snapshot (`resync`): a snapshot of a large
pipeline is megabytes of JSON and a compile, so asking in a loop would slow everyone's
edits. Counted per user over all their sockets and server processes, in Redis, by minute
(`SOCKET_RESYNCS_PER_MINUTE`). Snapshots the server sends on its own (after a gap, a
reconnect) are not counted. Without Redis the count is skipped: a resync is what a client
needs most when something went wrong."""

from __future__ import annotations

import logging
import time

from django.conf import settings
from redis.exceptions import RedisError

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
