"""The whole backend through a real uvicorn server, used the way `curl` and a websocket
client would: token, workspace, pipeline, co-editing from two connections, versions,
and a diff that says which state a savepoint would lose."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from rest_framework.authtoken.models import Token
from websockets.asyncio.client import ClientConnection, connect

from config.asgi_server import free_port, uvicorn_command, wait_until_listening
from tests.backend.conftest import FAST_HASHERS
from tests.backend.factories import PASSWORD, make_document

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)


def _database_url() -> str:
    """The URL of the test database pytest-django created, for the server process."""
    settings = connection.settings_dict
    if settings["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings['NAME']}"
    host, port = settings.get("HOST") or "127.0.0.1", settings.get("PORT") or 5432
    user = settings.get("USER") or "postgres"
    return f"postgres://{user}@{host}:{port}/{settings['NAME']}"


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    port = free_port()
    with django_db_blocker.unblock():
        database_url = _database_url()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PYTHONPATH": os.pathsep.join([str(REPO / "backend"), str(REPO)]),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PASSWORD_HASHERS": ",".join(FAST_HASHERS),
    }
    process = subprocess.Popen(
        uvicorn_command(host="127.0.0.1", port=port),
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until_listening(process, host="127.0.0.1", port=port)
    except RuntimeError as error:
        process.kill()
        output = process.stdout.read().decode() if process.stdout else ""
        pytest.fail(f"uvicorn did not start ({error}):\n{output}")
    yield f"127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=10)


class Http:
    def __init__(self, host: str, token: str | None = None) -> None:
        self.host, self.token = host, token

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        request = urllib.request.Request(
            f"http://{self.host}{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={
                "Content-Type": "application/json",
                **({"Authorization": f"Token {self.token}"} if self.token else {}),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")


async def next_message(ws: ClientConnection, message_type: str) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
        if message["type"] == message_type:
            return message


def test_two_users_co_edit_version_and_diff_over_http_and_websockets(server: str) -> None:
    User.objects.create_user(username="alice", password=PASSWORD)
    User.objects.create_user(username="bob", password=PASSWORD)
    anonymous = Http(server)
    tokens = {}
    for name in ("alice", "bob"):
        status, body = anonymous.call(
            "POST", "/api/auth/token/", {"username": name, "password": PASSWORD}
        )
        assert status == 200, body
        tokens[name] = body["token"]
    alice, bob = Http(server, tokens["alice"]), Http(server, tokens["bob"])

    status, workspace = alice.call("POST", "/api/workspaces/", {"name": "Payments"})
    assert status == 201, workspace
    status, body = alice.call(
        "POST", f"/api/workspaces/{workspace['id']}/members/", {"username": "bob", "role": "editor"}
    )
    assert status == 201, body
    status, pipeline = alice.call(
        "POST",
        "/api/pipelines/",
        {
            "workspace": workspace["id"],
            "name": "Orders",
            "document": make_document(),
        },
    )
    assert status == 201, pipeline
    status, version = alice.call(
        "POST", f"/api/pipelines/{pipeline['id']}/versions/", {"message": "first"}
    )
    assert status == 201, version

    # The sockets open as the browser opens them: with a single-use ticket each.
    tickets = {}
    for name, client in (("alice", alice), ("bob", bob)):
        status, body = client.call("POST", "/api/auth/socket-ticket/")
        assert status == 201, body
        tickets[name] = body["ticket"]

    async def co_edit() -> None:
        url = f"ws://{server}/ws/pipelines/{pipeline['id']}/?deltas=2&ticket="
        async with (
            connect(url + tickets["alice"]) as ws_alice,
            connect(url + tickets["bob"]) as ws_bob,
        ):
            snapshot = await next_message(ws_alice, "snapshot")
            await next_message(ws_bob, "snapshot")
            # Bob sees Alice and selects the reduce; Alice sees his selection.
            await ws_bob.send(json.dumps({"type": "presence", "selection": {"nodes": [3]}}))
            while True:
                update = await next_message(ws_alice, "presence")
                if update["client"]["user"]["username"] == "bob" and update["client"]["selection"][
                    "nodes"
                ] == [3]:
                    break
            # Alice moves the sink to parallelism 8; it can no longer chain with the reduce.
            for op, field, value in (("p1", "partitioner", "REBALANCE"),):
                await ws_alice.send(
                    json.dumps(
                        {
                            "type": "edit",
                            "opId": op,
                            "baseRevision": snapshot["revision"],
                            "edit": {
                                "kind": "set_field",
                                "element": "edge",
                                "edgeKey": [3, 4, 0, 0],
                                "field": field,
                                "value": value,
                            },
                        }
                    )
                )
            applied = await next_message(ws_bob, "edit_applied")
            assert applied["user"]["username"] == "alice"
            await ws_bob.send(
                json.dumps(
                    {
                        "type": "edit",
                        "opId": "b1",
                        "baseRevision": applied["revision"],
                        "edit": {
                            "kind": "set_field",
                            "element": "node",
                            "nodeId": 4,
                            "field": "parallelism",
                            "value": 8,
                        },
                    }
                )
            )
            seen = await next_message(ws_alice, "edit_applied")
            while seen["opId"] != "b1":
                seen = await next_message(ws_alice, "edit_applied")
            assert seen["user"]["username"] == "bob" and seen["revision"] == 2
        # Closing both sockets cleans their presence up.

    asyncio.run(co_edit())

    status, version = bob.call(
        "POST", f"/api/pipelines/{pipeline['id']}/versions/", {"message": "wider sink"}
    )
    assert status == 201 and version["number"] == 2, version
    status, diff = bob.call("GET", f"/api/pipelines/{pipeline['id']}/diff/?from=1&to=2")
    assert status == 200, diff
    reduce = next(o for o in diff["savepoint"]["operators"] if o["node"] == 3)
    assert reduce["verdict"] == "lost"
    assert "chainable out-edges changed from 1 to 0" in " ".join(reduce["causes"])
    assert diff["savepoint"]["restores"] is False
    status, body = anonymous.call("GET", f"/api/pipelines/{pipeline['id']}/")
    assert status == 401 and body["error"]["code"]


@pytest.mark.parametrize(
    "path", ["/static/admin/css/base.css", "/static/rest_framework/css/default.css"]
)
def test_the_admin_and_browsable_api_get_their_css(server: str, path: str) -> None:
    with urllib.request.urlopen(f"http://{server}{path}", timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/css")
        assert len(response.read()) > 1000


def test_a_missing_static_file_is_404(server: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(f"http://{server}/static/admin/css/none.css", timeout=10)
    assert raised.value.code == 404


def test_the_server_believes_no_forwarded_address(server: str) -> None:
    # uvicorn would take X-Forwarded-For from a peer on 127.0.0.1 as the client's address;
    # then each guess could claim a new one and never be limited.
    User.objects.create_user(username="guessed", password=PASSWORD)
    statuses = []
    for n in range(45):  # two windows' worth, should the minute turn meanwhile
        request = urllib.request.Request(
            f"http://{server}/api/auth/token/",
            method="POST",
            data=json.dumps({"username": "guessed", "password": "wrong-guess"}).encode(),
            headers={"Content-Type": "application/json", "X-Forwarded-For": f"192.0.2.{n}"},
        )
        try:
            urllib.request.urlopen(request, timeout=10)
        except urllib.error.HTTPError as error:
            statuses.append(error.code)
    assert 429 in statuses
    assert set(statuses) == {400, 429}


def test_deep_nesting_on_the_anonymous_endpoint_is_a_small_json_400(server: str) -> None:
    # The sign-in endpoint: registrations from this address are counted by other tests too.
    body = '{"username": ' + "[" * 1_000 + "]" * 1_000 + "}"  # about 2 KB
    request = urllib.request.Request(
        f"http://{server}/api/auth/token/",
        method="POST",
        data=body.encode(),
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=10)

    answer = raised.value.read()
    assert raised.value.code == 400
    assert raised.value.headers["Content-Type"] == "application/json"
    assert json.loads(answer)["error"]["code"] == "malformed-json"
    assert len(answer) < 1_000


def test_clients_that_leave_together_leave_no_one_present(server: str) -> None:
    # Each departure is broadcast to the others while they close too: a socket that found
    # its client gone while forwarding one used to stop before its own cleanup, staying
    # present to everyone (and polling the database) for as long as the server ran.
    # A token of her own: the sign-ins of the tests before count against this address.
    token = Token.objects.create(user=User.objects.create_user(username="carol")).key
    carol = Http(server, token)
    status, workspace = carol.call("POST", "/api/workspaces/", {"name": "Leaving"})
    assert status == 201, workspace
    status, pipeline = carol.call(
        "POST",
        "/api/pipelines/",
        {"workspace": workspace["id"], "name": "Crowd", "document": make_document()},
    )
    assert status == 201, pipeline
    url = f"ws://{server}/ws/pipelines/{pipeline['id']}/?deltas=2"
    signed_in = {"Authorization": f"Token {token}"}

    async def present_after_all_left() -> list[dict[str, Any]]:
        crowd = [await connect(url, additional_headers=signed_in) for _ in range(16)]
        for ws in crowd:
            await next_message(ws, "snapshot")
        await asyncio.gather(*(ws.close() for ws in crowd))
        presence: list[dict[str, Any]] = []
        for _ in range(20):  # the server handles each close within moments
            async with connect(url, additional_headers=signed_in) as newcomer:
                presence = (await next_message(newcomer, "snapshot"))["presence"]
            if len(presence) == 1:
                break
            await asyncio.sleep(0.25)
        return presence

    presence = asyncio.run(present_after_all_left())
    assert len(presence) == 1, f"still present after leaving: {len(presence) - 1}"


@pytest.mark.postgres_only
def test_the_server_keeps_its_database_connections_between_requests(server: str) -> None:
    # Under ASGI each request's sync code runs on a thread of its own: connections kept
    # per thread were never reused, so every request opened one (and the old ones stayed
    # open until collected). The pool hands the same one to request after request.
    token = Token.objects.create(user=User.objects.create_user(username="dave")).key
    dave = Http(server, token)

    def server_connections() -> set[int]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            return {pid for (pid,) in cursor.fetchall()}

    seen = []
    for _ in range(20):
        status, workspaces = dave.call("GET", "/api/workspaces/")
        assert status == 200, workspaces
        seen.append(server_connections())
    assert seen[0], "the server held no connection between requests"
    opened = set().union(*seen) - seen[0]
    assert not opened, f"{len(opened)} connections opened for 19 requests"
