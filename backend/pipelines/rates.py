"""How often a user may ask for the reads that cost the server most, per minute and over all
their sockets and server processes (counted in the shared cache, Redis):

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

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError
from rest_framework.exceptions import Throttled

logger = logging.getLogger(__name__)


def _over_limit(kind: str, user_id: int, limit: int) -> int | None:
    """Count one `kind` of the user this minute; the seconds until the next minute when the
    count passes `limit`, else None."""
    now = time.time()
    key = f"{kind}:{user_id}:{int(now // 60)}"
    try:
        # Kept for two windows, so a count read just before its minute ends is still there.
        cache.add(key, 0, timeout=120)
        used = int(cache.incr(key))
    except (RedisError, OSError, ValueError) as error:
        logger.warning("%s count of user %s skipped: %s", kind, user_id, error)
        return None
    return max(1, 60 - int(now % 60)) if used > limit else None


async def resync_allowed(*, user_id: int) -> bool:
    """Count one asked-for snapshot of the user; False when they asked too often."""
    limit = settings.SOCKET_RESYNCS_PER_MINUTE
    return await sync_to_async(_over_limit)("resyncs", user_id, limit) is None


def too_many_resyncs_message() -> str:
    limit = settings.SOCKET_RESYNCS_PER_MINUTE
    return (
        f"At most {limit} snapshots a minute may be asked for: wait a moment before asking "
        "again (the socket still sends every change)."
    )


def ensure_rescale_allowed(*, user_id: int) -> None:
    """Count one rescale simulation of the user; `Throttled` (429, with the seconds to wait)
    past `RESCALES_PER_MINUTE`."""
    limit = settings.RESCALES_PER_MINUTE
    wait = _over_limit("rescales", user_id, limit)
    if wait is not None:
        raise Throttled(
            wait=wait,
            detail=f"At most {limit} rescale simulations a minute: try again in {wait} s.",
        )
