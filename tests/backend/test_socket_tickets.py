"""No lasting secret in a websocket's URL: a browser opens each socket with a single-use
ticket asked over REST, which stands on the credential it was asked with; API tokens
expire; and what servers log has credentials in URLs redacted.

Sockets through the full ASGI stack with the real channel layer and database."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client as HttpClient
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import SocketTicket
from accounts.tokens import MAX_LIVE_TICKETS
from config.asgi import application
from config.logs import RedactSecrets, redact
from tests.backend.factories import PASSWORD, Team, client_for, make_team
from tests.backend.sockets import open_socket, run

pytestmark = pytest.mark.django_db(transaction=True)


def ticket_of(client: Any) -> str:
    response = client.post("/api/auth/socket-ticket/")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["expiresIn"] == 60
    return str(body["ticket"])


async def open_with(path: str, **kwargs: Any) -> tuple[bool, int | None, WebsocketCommunicator]:
    communicator = WebsocketCommunicator(application, path, **kwargs)
    opened, code = await open_socket(communicator)
    return opened, code, communicator


async def closed_with(communicator: WebsocketCommunicator) -> int:
    while True:
        output = await communicator.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return int(output["code"])


@pytest.fixture
def team() -> Team:
    return make_team()


@pytest.mark.both_databases
def test_a_ticket_opens_one_socket_once(team: Team) -> None:
    ticket = ticket_of(team.client("viewer"))
    path = f"/ws/pipelines/{team.pipeline.pk}/?ticket={ticket}"
    # Only a digest is kept: the ticket itself is nowhere in the database.
    assert not SocketTicket.objects.filter(digest=ticket).exists()

    async def scenario() -> None:
        opened, code, first = await open_with(path)
        assert (opened, code) == (True, None)
        await first.disconnect()
        assert (await open_with(path))[:2] == (False, 4401)  # used up

    run(scenario)
    assert SocketTicket.objects.count() == 0


def test_an_expired_or_unknown_ticket_is_signed_out(team: Team) -> None:
    ticket = ticket_of(team.client("viewer"))
    SocketTicket.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    async def scenario() -> None:
        path = f"/ws/pipelines/{team.pipeline.pk}/?ticket="
        assert (await open_with(path + ticket))[:2] == (False, 4401)
        assert (await open_with(path + "made-up"))[:2] == (False, 4401)

    run(scenario)


def test_asking_for_a_ticket_takes_a_signed_in_user() -> None:
    response = APIClient().post("/api/auth/socket-ticket/")
    assert response.status_code == 401


def test_a_user_holds_a_bounded_number_of_unused_tickets(team: Team) -> None:
    client = team.client("viewer")
    for _ in range(MAX_LIVE_TICKETS):
        ticket_of(client)

    refused = client.post("/api/auth/socket-ticket/")

    assert refused.status_code == 429
    assert "100 unused socket tickets" in refused.json()["error"]["message"]
    assert team.client("editor").post("/api/auth/socket-ticket/").status_code == 201


def test_a_socket_opened_with_a_ticket_closes_when_its_token_is_revoked(team: Team) -> None:
    client = team.client("editor")
    ticket = ticket_of(client)

    async def scenario() -> None:
        opened, _, socket = await open_with(f"/ws/pipelines/{team.pipeline.pk}/?ticket={ticket}")
        assert opened
        signed_out = await database_sync_to_async(client.delete)("/api/auth/token/")
        assert signed_out.status_code == 204
        assert await closed_with(socket) == 4401

    run(scenario)


def test_a_ticket_asked_in_a_session_follows_that_session(team: Team) -> None:
    browser = HttpClient()
    assert browser.login(username="vera", password=PASSWORD)
    response = browser.post("/api/auth/socket-ticket/")
    assert response.status_code == 201, response.content
    ticket = response.json()["ticket"]

    async def scenario() -> None:
        opened, _, socket = await open_with(f"/ws/pipelines/{team.pipeline.pk}/?ticket={ticket}")
        assert opened
        await database_sync_to_async(browser.logout)()
        assert await closed_with(socket) == 4401

    run(scenario)


@pytest.mark.both_databases
def test_an_expired_token_signs_in_nowhere_and_signing_in_gives_a_new_one(
    team: Team, settings: Any
) -> None:
    token = Token.objects.create(user=team.viewer)
    Token.objects.filter(pk=token.pk).update(created=timezone.now() - timedelta(days=31))
    client = client_for(None)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")

    refused = client.get("/api/auth/me/")
    assert refused.status_code == 401
    assert "expired" in refused.json()["error"]["message"]

    async def scenario() -> None:
        headers = [(b"authorization", f"Token {token.key}".encode())]
        opened = await open_with(f"/ws/pipelines/{team.pipeline.pk}/", headers=headers)
        assert opened[:2] == (False, 4401)

    run(scenario)

    signed_in = APIClient().post(
        "/api/auth/token/", {"username": "vera", "password": PASSWORD}, format="json"
    )
    assert signed_in.status_code == 200
    assert signed_in.json()["token"] != token.key
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Token {signed_in.json()['token']}")
    assert fresh.get("/api/auth/me/").status_code == 200
    settings.API_TOKEN_MAX_AGE_SECONDS = 1  # a setting, read at each request
    Token.objects.filter(user=team.viewer).update(created=timezone.now() - timedelta(seconds=2))
    assert fresh.get("/api/auth/me/").status_code == 401


@pytest.mark.parametrize(
    ("line", "redacted"),
    [
        ("/ws/runs/1/?ticket=abc&deltas=2", "/ws/runs/1/?ticket=[redacted]&deltas=2"),
        ("/ws/pipelines/7/?deltas=2&token=9f8e7d", "/ws/pipelines/7/?deltas=2&token=[redacted]"),
        ('GET /api/x/?password=hunter2 HTTP/1.1"', 'GET /api/x/?password=[redacted] HTTP/1.1"'),
        ("/ws/runs/1/?deltas=2", "/ws/runs/1/?deltas=2"),
    ],
)
def test_credentials_in_urls_are_redacted_from_log_lines(line: str, redacted: str) -> None:
    assert redact(line) == redacted


def test_the_servers_websocket_lines_are_logged_without_the_ticket() -> None:
    # As uvicorn logs a socket it accepts (its `uvicorn.error` logger, at INFO).
    record = logging.LogRecord(
        "uvicorn.error",
        logging.INFO,
        __file__,
        1,
        '%s - "WebSocket %s" [accepted]',
        ("127.0.0.1:50000", "/ws/inbox/?ticket=s3cr3t"),
        None,
    )
    logger = logging.getLogger("uvicorn.error")
    assert any(isinstance(f, RedactSecrets) for f in logger.filters)  # config.asgi did it
    assert logger.filter(record)
    assert "s3cr3t" not in record.getMessage()
    assert "ticket=[redacted]" in record.getMessage()
