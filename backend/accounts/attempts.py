"""A limit on password guessing: sign-in and registration attempts per client address.

A person signs in or registers a few times; guessing a password takes thousands of
tries. So every registration counts, and every sign-in that fails; once an address
has `AUTH_ATTEMPTS_PER_MINUTE` of one kind within the current minute, further
attempts of that kind are refused (429, `Retry-After`) until the minute ends. A
refused sign-in is refused even with the right password, so a guesser learns nothing
from it. Successful sign-ins never count: a whole office behind one address can sign
in at nine o'clock.

The counts live in Django's cache, which is Redis: every server process sees the
same ones, and they outlive none of it by more than two minutes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import Final

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from redis.exceptions import RedisError
from rest_framework.exceptions import Throttled
from rest_framework.request import Request

from config.errors import ServiceUnavailable

_WINDOW_SECONDS: Final = 60


class Attempt(StrEnum):
    SIGN_IN = "sign-in"
    REGISTER = "register"


_REFUSALS: Final = {
    Attempt.SIGN_IN: "Too many failed sign-ins from your address.",
    Attempt.REGISTER: "Too many registrations from your address.",
}


def client_address(request: HttpRequest | Request) -> str:
    """The client's address: the peer's, or the one a trusted proxy saw
    (`config.proxies.TrustedProxyMiddleware` has put it in `REMOTE_ADDR`)."""
    return str(request.META.get("REMOTE_ADDR", "")) or "unknown"


def _counter(kind: Attempt, address: str, now: float) -> tuple[str, float]:
    """The cache key of this minute's count, and the seconds left in the minute."""
    window = int(now // _WINDOW_SECONDS)
    return f"auth-attempts:{kind}:{address}:{window}", _WINDOW_SECONDS - now % _WINDOW_SECONDS


@contextmanager
def _counts() -> Iterator[None]:
    """The counts are in Redis. Without them nobody signs in or registers (the limit fails
    closed: guessing must not get easier when Redis is away), with a 503 saying so."""
    try:
        yield
    except (RedisError, OSError) as error:
        raise ServiceUnavailable(
            "Signing in and registering are unavailable for a moment (the attempt counts "
            "cannot be read); try again in a few seconds."
        ) from error


def ensure_allowed(kind: Attempt, address: str) -> None:
    """Raise `Throttled` if `address` has used up this minute's attempts of `kind`
    (`ServiceUnavailable` if the counts cannot be read)."""
    limit: int = settings.AUTH_ATTEMPTS_PER_MINUTE
    key, remaining = _counter(kind, address, time.time())
    with _counts():
        used = cache.get(key, 0)
    if used >= limit:
        wait = math.ceil(remaining)
        raise Throttled(wait=wait, detail=f"{_REFUSALS[kind]} Try again in {wait} s.")


def record(kind: Attempt, address: str) -> None:
    """Count one attempt of `kind` from `address` in the current minute."""
    key, _ = _counter(kind, address, time.time())
    with _counts():
        # Kept for two windows, so a count read just before its minute ends is still there.
        cache.add(key, 0, timeout=2 * _WINDOW_SECONDS)
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr: this attempt starts a new count
            cache.set(key, 1, timeout=2 * _WINDOW_SECONDS)
