"""No request body is read past `MAX_REQUEST_BODY_BYTES`, declared or streamed: the ASGI
application answers 413 in the API's error shape before Django spools it to disk."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator

from config.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


def _scope(headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/auth/token/",
        "raw_path": b"/api/auth/token/",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), *headers],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }


async def _answer(communicator: ApplicationCommunicator) -> tuple[int, dict[str, Any]]:
    start = await communicator.receive_output(5)
    body = await communicator.receive_output(5)
    return start["status"], json.loads(body["body"])


def _run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(scenario())


def test_a_declared_length_over_the_limit_is_refused_unread(settings: Any) -> None:
    settings.MAX_REQUEST_BODY_BYTES = 1000
    _run(_declared_too_long)


async def _declared_too_long() -> None:
    communicator = ApplicationCommunicator(
        application, _scope([(b"content-length", b"5000000000")])
    )

    status, body = await _answer(communicator)

    assert status == 413
    assert body["error"]["code"] == "request-too-large"
    assert "1000 bytes" in body["error"]["message"]


def test_a_streamed_body_is_cut_off_once_it_passes_the_limit(settings: Any) -> None:
    settings.MAX_REQUEST_BODY_BYTES = 1000
    _run(_streamed_too_long)


async def _streamed_too_long() -> None:
    communicator = ApplicationCommunicator(application, _scope([]))
    for _ in range(3):
        await communicator.send_input(
            {"type": "http.request", "body": b"x" * 600, "more_body": True}
        )

    status, body = await _answer(communicator)

    assert status == 413
    assert body["error"]["code"] == "request-too-large"


def test_a_body_within_the_limit_reaches_the_api(settings: Any) -> None:
    settings.MAX_REQUEST_BODY_BYTES = 1000
    _run(_within_the_limit)


async def _within_the_limit() -> None:
    payload = json.dumps({"username": "nobody", "password": "wrong"}).encode()
    communicator = ApplicationCommunicator(
        application,
        _scope(
            [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ]
        ),
    )
    await communicator.send_input({"type": "http.request", "body": payload, "more_body": False})

    status, body = await _answer(communicator)

    assert status == 400
    assert body["error"]["code"] != "request-too-large"
