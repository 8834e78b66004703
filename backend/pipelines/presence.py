"""Who is looking at a pipeline: one Redis hash per pipeline, shared by all server processes.

Each connection stores its `PresenceEntry` with the time it was last refreshed.
Consumers refresh their entry every `HEARTBEAT_SECONDS` and remove it when the
socket closes; entries of a server process that died are ignored (and pruned)
once they are older than `STALE_SECONDS`.
"""

from __future__ import annotations

import asyncio
import json
import time
import weakref
from typing import cast

from django.conf import settings
from redis.asyncio import Redis

from config.namespacing import redis_namespace
from pipelines.events import PresenceEntry

HEARTBEAT_SECONDS = 15
STALE_SECONDS = 45
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Redis] = weakref.WeakKeyDictionary()


def _redis() -> Redis:
    """One connection pool per event loop (an asyncio client cannot cross loops)."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        client = _clients[loop] = Redis.from_url(settings.REDIS_URL)
    return client


def _key(pipeline_id: int) -> str:
    return f"{redis_namespace()}:presence:{pipeline_id}"


async def presence_put(*, pipeline_id: int, entry: PresenceEntry) -> None:
    record = json.dumps({"seen": time.time(), "entry": entry.model_dump(mode="json")})
    redis = _redis()
    await redis.hset(_key(pipeline_id), entry.clientId, record)  # type: ignore[misc]
    await redis.expire(_key(pipeline_id), STALE_SECONDS * 4)


async def presence_remove(*, pipeline_id: int, client_id: str) -> None:
    await _redis().hdel(_key(pipeline_id), client_id)  # type: ignore[misc]


async def presence_list(*, pipeline_id: int) -> list[PresenceEntry]:
    raw = cast(dict[bytes, bytes], await _redis().hgetall(_key(pipeline_id)))  # type: ignore[misc]
    now = time.time()
    entries: list[PresenceEntry] = []
    stale: list[bytes] = []
    for client_id, value in raw.items():
        record = json.loads(value)
        if now - record["seen"] > STALE_SECONDS:
            stale.append(client_id)
        else:
            entries.append(PresenceEntry.model_validate(record["entry"]))
    if stale:
        await _redis().hdel(_key(pipeline_id), *stale)  # type: ignore[misc]
    return sorted(entries, key=lambda e: e.clientId)
