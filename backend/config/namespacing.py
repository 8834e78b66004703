"""Names in the shared Redis, scoped to the database a process serves.

Several StreamGraph Studio processes may share one Redis while serving different
databases: a developer's `make run`, a test run, the end-to-end suite's server. Their
pipeline 1 is not the same pipeline, so everything the project keeps or publishes in
Redis (presence, websocket groups, run channels and control keys, Celery's runs queue,
Django's cache) is named under the namespace of the database being served. Two
processes on the same database share it, which is what lets a web server and a worker
talk. `REDIS_NAMESPACE` sets it explicitly.

The namespace is worked out on each call, not once at start-up: the test runner swaps
the database for a test database after settings are read.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

import redis
from django.conf import settings
from django.db import connections


def redis_namespace() -> str:
    """`REDIS_NAMESPACE`, or a short name derived from the default database's identity."""
    explicit: str = settings.REDIS_NAMESPACE
    if explicit:
        return explicit
    database = connections["default"].settings_dict
    identity = "|".join(str(database.get(key) or "") for key in ("ENGINE", "HOST", "PORT", "NAME"))
    return _namespace_of(identity)


def cache_key(key: str, key_prefix: str, version: int) -> str:
    """Django's cache `KEY_FUNCTION`: the key under this database's namespace."""
    return f"{redis_namespace()}:cache:{key_prefix}:{version}:{key}"


@lru_cache(maxsize=16)
def _namespace_of(identity: str) -> str:
    # Group names of the channel layer allow letters, digits, '-', '_' and '.'.
    return "studio-" + hashlib.sha1(identity.encode()).hexdigest()[:10]


def _glob_escaped(text: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


def forget_namespace(namespace: str, client: redis.Redis) -> int:
    """Delete what `namespace` holds in Redis: its own keys (presence, cache, the queued
    runs) and Celery's bindings of its runs queue. For a database that is gone, such as a
    test database; returns how many keys were deleted."""
    name = _glob_escaped(namespace)
    patterns = (f"{name}[:.]*", f"_kombu.binding.{name}.*", f"_kombu.binding_permanent.{name}.*")
    deleted = 0
    for pattern in patterns:
        batch = list(client.scan_iter(match=pattern, count=1000))
        if batch:
            deleted += int(client.delete(*batch))
    return deleted
