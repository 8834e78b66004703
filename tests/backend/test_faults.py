"""Faults in the services the product stands on, with services of the test's own: a
`redis-server` on a free port, started, killed and started again here, and `manage.py
serve` on it and the test database.

- Redis restarted under live co-editing: both clients end at the stored revision and
  document within 5 s of Redis coming back, whatever was lost in between; no edit the
  server committed is lost; later edits reach everyone again.
- Redis restarted under a watched run: the run finishes or fails, never hangs, and its
  watcher sees how it ended.
- A worker killed in the middle of a run: the run is FAILED within seconds, and the next
  run runs on the worker `serve` starts again.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connections
from rest_framework.authtoken.models import Token
from websockets.asyncio.client import ClientConnection, connect

from compiler.edits import Edit, apply_edit
from pipelines.models import Pipeline, PipelineEdit
from runs.models import Run
from tests.backend.factories import Team, make_team
from tests.backend.private_redis import PrivateRedis, private_redis_server
from tests.backend.runs_support import (
    ENDED,
    follow,
    make_runnable_version,
    run_status,
    runnable_document,
    serving,
    wait_for,
)
from tests.backend.test_live_server import Http

pytestmark = pytest.mark.django_db(transaction=True)

HEARTBEAT_SECONDS = 1
HEARTBEAT_TIMEOUT = 4
RESYNC_SECONDS = 5.0
"""How soon after Redis is back every client must show the stored state."""


@pytest.fixture(scope="module")
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateRedis]:
    with private_redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture(scope="module")
def server(
    django_db_setup: None, django_db_blocker: Any, private_redis: PrivateRedis
) -> Iterator[str]:
    with serving(
        django_db_blocker,
        REDIS_URL=private_redis.url,
        RUN_EXECUTOR="local",
        RUN_HEARTBEAT_SECONDS=str(HEARTBEAT_SECONDS),
        RUN_HEARTBEAT_TIMEOUT=str(HEARTBEAT_TIMEOUT),
    ) as host:
        yield host


def token_of(team: Team, role: str) -> str:
    user = team.user(role)
    assert user is not None
    return str(Token.objects.get_or_create(user=user)[0].key)


# Co-editing ------------------------------------------------------------------------------------


class Editor:
    """A co-editing client that keeps the document as the protocol says: from snapshots
    (and replacements), applying every `edit_applied` in revision order."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.revision = -1
        self.document: dict[str, Any] = {}
        self.applied: set[str] = set()
        """The opIds the server said it applied, of anyone's edits."""
        self.rejected: set[str] = set()

    async def take(self, timeout: float) -> bool:
        """Read what arrives within `timeout` seconds; False if the socket closed."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                text = await asyncio.wait_for(self.socket.recv(), timeout=left)
            except TimeoutError:
                return True
            self._receive(json.loads(text))
        return True

    def _receive(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind in ("snapshot", "document_replaced"):
            self.revision, self.document = message["revision"], message["document"]
        elif kind == "edit_applied":
            self.applied.add(message["opId"])
            if message["revision"] == self.revision + 1:
                self.document, _ = apply_edit(self.document, Edit.from_json(message["edit"]))
                self.revision = message["revision"]
        elif kind == "edit_rejected":
            self.rejected.add(message["opId"])

    async def edit(self, op_id: str, field: str, value: Any) -> None:
        edit = {"kind": "set_field", "element": "node", "nodeId": 2, "field": field, "value": value}
        message = {"type": "edit", "opId": op_id, "baseRevision": self.revision, "edit": edit}
        await self.socket.send(json.dumps(message))


async def joined(server: str, pipeline_id: int, token: str) -> Editor:
    socket = await connect(
        f"ws://{server}/ws/pipelines/{pipeline_id}/?deltas=2",
        additional_headers={"Authorization": f"Token {token}"},
    )
    editor = Editor(socket)
    while editor.revision < 0:
        await editor.take(1)
    return editor


def stored_and_closed(pipeline_id: int) -> tuple[int, dict[str, Any], list[str]]:
    """`stored`, from a thread of its own: its connection must not outlive it (PostgreSQL
    would keep the test database from being dropped)."""
    try:
        return stored(pipeline_id)
    finally:
        connections.close_all()


async def until_both_at(first: Editor, second: Editor, revision: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while (first.revision, second.revision) != (revision, revision):
        left = deadline - time.monotonic()
        assert left > 0, f"at {first.revision} and {second.revision}, not {revision}"
        await asyncio.gather(first.take(min(left, 0.2)), second.take(min(left, 0.2)))


def stored(pipeline_id: int) -> tuple[int, dict[str, Any], list[str]]:
    pipeline = Pipeline.objects.get(pk=pipeline_id)
    fields = [
        str(operation["field"])
        for operation in PipelineEdit.objects.filter(pipeline=pipeline)
        .order_by("revision")
        .values_list("operation", flat=True)
    ]
    return pipeline.revision, pipeline.document, fields


def test_co_editors_resync_after_a_redis_restart_and_lose_no_committed_edit(
    server: str, private_redis: PrivateRedis
) -> None:
    team = make_team()
    pipeline_id = team.pipeline.pk
    ada_token, bob_token = token_of(team, "editor"), token_of(team, "owner")

    async def scenario() -> None:
        ada = await joined(server, pipeline_id, ada_token)
        bob = await joined(server, pipeline_id, bob_token)
        for n in range(3):
            await ada.edit(f"before-{n}", f"ui.before{n}", n)
            await ada.take(0.3)
        await bob.take(0.3)
        assert ada.revision == bob.revision == 3

        private_redis.kill()
        # Edits go on while Redis is away: the database holds them.
        await ada.edit("during-ada", "ui.ada", "away")
        await bob.edit("during-bob", "ui.bob", "away")
        await asyncio.gather(ada.take(1.5), bob.take(1.5))
        private_redis.start()
        back = time.monotonic()

        revision, document, _ = await asyncio.to_thread(stored_and_closed, pipeline_id)
        while (ada.revision, bob.revision) != (revision, revision):
            assert time.monotonic() - back < RESYNC_SECONDS, (
                f"clients at {ada.revision} and {bob.revision}, the pipeline at {revision}"
            )
            await asyncio.gather(ada.take(0.2), bob.take(0.2))
        assert ada.document == bob.document == document

        # Every edit is in the stored document, or its author heard why not.
        ui = document["nodes"][1]["ui"]
        for op_id, field, value in (("during-ada", "ada", "away"), ("during-bob", "bob", "away")):
            assert ui.get(field) == value or op_id in ada.rejected | bob.rejected
        # Edits go on: the next one reaches both (its broadcast, or a resync if the
        # subscriptions were not back yet), and once they are, broadcasts arrive at once.
        await bob.edit("after", "ui.after", True)
        await until_both_at(ada, bob, revision + 1, RESYNC_SECONDS)
        await ada.edit("after-2", "ui.after2", True)
        await until_both_at(ada, bob, revision + 2, 1.0)
        assert ada.document["nodes"][1]["ui"]["after"] is True
        assert bob.document == ada.document
        await ada.socket.close()
        await bob.socket.close()

    asyncio.run(scenario())
    revision, _, fields = stored(pipeline_id)
    assert len(fields) == revision  # one stored edit per revision: nothing half-written


# Runs ------------------------------------------------------------------------------------------


def test_a_watched_run_ends_across_a_redis_restart(
    server: str, private_redis: PrivateRedis
) -> None:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, document=runnable_document(to=3_000_000))
    token = token_of(team, "editor")
    http = Http(server, token)
    status, run = http.call("POST", f"/api/pipelines/{team.pipeline.pk}/runs/", {"version": 2})
    assert status == 201, run
    wait_for(lambda: run_status(run["id"]) == "RUNNING", 60, "the run starting")

    async def watch() -> dict[str, Any]:
        async with connect(
            f"ws://{server}/ws/runs/{run['id']}/",
            additional_headers={"Authorization": f"Token {token}"},
        ) as socket:
            state = json.loads(await asyncio.wait_for(socket.recv(), timeout=10))["run"]
            private_redis.kill()
            await asyncio.sleep(2)
            private_redis.start()
            deadline = time.monotonic() + 90
            while state["status"] not in ENDED:
                left = deadline - time.monotonic()
                assert left > 0, f"the run hung in {state['status']}"
                message = json.loads(await asyncio.wait_for(socket.recv(), timeout=left))
                if message["type"] == "snapshot":
                    state = message["run"]
                elif message["type"] == "run_update":
                    state.update({k: v for k, v in message["run"].items()})
            return state

    ended = asyncio.run(watch())
    # It did not even fail: events published while Redis was away are lost, what they
    # would have said is inferred at the end.
    assert (ended["status"], ended["error"]) == ("FINISHED", None)
    assert run_status(run["id"]) == "FINISHED"
    status, detail = http.call("GET", f"/api/runs/{run['id']}/")
    assert {subtask["state"] for subtask in detail["subtasks"]} == {"FINISHED"}


def test_while_redis_is_away_the_api_answers_and_says_what_cannot_be_done(
    server: str, private_redis: PrivateRedis
) -> None:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner)  # version 2
    http = Http(server, token_of(team, "editor"))
    private_redis.kill()
    try:
        # Reads and writes that need only the database work.
        status, pipeline = http.call("GET", f"/api/pipelines/{team.pipeline.pk}/")
        assert status == 200 and pipeline["revision"] == 0
        status, _ = http.call("PATCH", f"/api/pipelines/{team.pipeline.pk}/", {"name": "Renamed"})
        assert status == 200
        # Signing in needs the attempt counts: refused, saying why (never a 500).
        status, body = Http(server).call(
            "POST", "/api/auth/token/", {"username": team.editor.username, "password": "x"}
        )
        assert (status, body["error"]["code"]) == (503, "unavailable")
        # A run cannot reach a worker: it is FAILED at once, saying why, not left queued.
        status, run = http.call("POST", f"/api/pipelines/{team.pipeline.pk}/runs/", {"version": 2})
        assert status == 201 and run["status"] == "FAILED", run
        assert run["error"].startswith("the run could not be queued for a worker")
    finally:
        private_redis.start()


def test_a_run_whose_only_worker_dies_fails_soon(server: str) -> None:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner)  # version 2
    make_runnable_version(pipeline=team.pipeline, document=runnable_document(to=50_000_000))
    http = Http(server, token_of(team, "editor"))
    status, run = http.call("POST", f"/api/pipelines/{team.pipeline.pk}/runs/", {"version": 3})
    assert status == 201, run
    wait_for(lambda: run_status(run["id"]) == "RUNNING", 60, "the run starting")
    worker = Run.objects.get(pk=run["id"]).worker
    os.kill(int(worker.rsplit(":", 1)[1]), signal.SIGKILL)
    # Nobody reads the run meanwhile: the check in `serve`'s own process fails it.
    seconds = wait_for(lambda: run_status(run["id"]) == "FAILED", 30, "failing the lost run")
    assert seconds <= HEARTBEAT_TIMEOUT + 2 * HEARTBEAT_SECONDS + 1
    lost = Run.objects.get(pk=run["id"])
    assert lost.error.startswith(f"lost worker: {worker} stopped reporting")
    # `serve` starts another worker, which runs the next run.
    status, again = http.call("POST", f"/api/pipelines/{team.pipeline.pk}/runs/", {"version": 2})
    assert status == 201, again
    wait_for(lambda: run_status(again["id"]) == "FINISHED", 60, "the next run")
    state, _ = asyncio.run(follow(server, token_of(team, "editor"), again["id"]))
    assert state["status"] == "FINISHED"
