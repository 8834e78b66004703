"""Fail early, and clearly, when Redis is not where `REDIS_URL` says."""

from __future__ import annotations

import redis


class RedisUnavailable(RuntimeError):
    pass


def require_redis(url: str, *, timeout: float = 2.0) -> None:
    try:
        redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout).ping()
    except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
        raise RedisUnavailable(
            f"Redis does not answer at {url} ({error}).\n"
            "StreamGraph Studio needs Redis for live co-editing and its task queue.\n"
            "Start one, e.g. `redis-server --daemonize yes --port 6379`\n"
            "(or `docker run -p 6379:6379 redis:7`), or point REDIS_URL at yours."
        ) from error
