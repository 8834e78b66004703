"""A bound on every HTTP request body, before Django reads any of it.

Django's ASGI handler reads a whole body into a temporary file before a view sees it, so
without a bound a client could fill the disk with one request. This middleware refuses a
body whose `Content-Length` is over the limit at once, and stops reading a chunked one as
soon as it passes it, answering 413 in the API's error shape either way. Each endpoint still
holds its own body to its own, smaller limit (`DATA_UPLOAD_MAX_MEMORY_SIZE`, the savepoint
upload's `SAVEPOINT_MAX_BYTES`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from config.errors import ApplicationError, error_payload

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Any, Any, Any], Awaitable[None]]
"""An ASGI application (Django's handler types its arguments more narrowly)."""


class RequestTooLarge(ApplicationError):
    status_code = 413
    code = "request-too-large"


class _BodyTooLarge(Exception):
    pass


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(send: Send, limit: int) -> None:
    error = RequestTooLarge(
        f"The request body is larger than {limit} bytes ({limit / 1024 / 1024:g} MB)."
    )
    body = json.dumps(error_payload(error)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": error.status_code,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def limit_request_bodies(app: App, *, limit: Callable[[], int]) -> App:
    """`app` with every HTTP request body bounded by `limit()` bytes."""

    async def bounded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        most = limit()
        declared = _declared_length(scope)
        if declared is not None and declared > most:
            await _refuse(send, most)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > most:
                    raise _BodyTooLarge
            return message

        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await app(scope, counted, tracked)
        except _BodyTooLarge:
            # Django reads the body before it answers, so nothing has been sent yet.
            if not started:
                await _refuse(send, most)

    return bounded
