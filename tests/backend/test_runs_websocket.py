"""The run monitor websocket through the full ASGI stack, the real Redis channel layer and
the real database: a snapshot, then every journal entry once, in order."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connections, transaction
from redis.exceptions import ConnectionError as RedisConnectionError

from runs.events import (
    RunPublisher,
    RunSnapshot,
    publish_to_run_async,
    run_group,
    run_update,
)
from runs.journal import append, run_fields, run_monitor
from runs.models import Run, RunStatus
from runs.selectors import run_detail
from runtime.events import ExecutionState, SubtaskEvent
from tests.backend.factories import Team, make_team
from tests.backend.runs_support import apply, connect, make_run, make_runnable_version, watch
from tests.backend.sockets import run

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 5
S = ExecutionState


@pytest.fixture
def team() -> Team:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner)
    return team


@pytest.fixture
def active(team: Team) -> Run:
    return make_run(version=team.pipeline.versions.get(number=2), status=RunStatus.RUNNING)


def record(run_id: int, events: list[SubtaskEvent], **fields: Any) -> int:
    """Store one journal entry the way a worker does (published after commit)."""
    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=run_id)
        before = run_fields(locked)
        for name, value in fields.items():
            setattr(locked, name, value)
        monitor = run_monitor(locked)
        body = monitor.changes_json(monitor.apply(events))
        return append(
            locked,
            before=before,
            vertices=body["vertices"],
            subtasks=body["subtasks"],
            events=events,
        )


def event(run: Run, vertex: int, subtask: int, state: S, **kwargs: Any) -> SubtaskEvent:
    return SubtaskEvent(run.vertices[vertex]["id"], subtask, 0, state, 1.0, **kwargs)


@pytest.mark.parametrize(("role", "close_code"), [("anonymous", 4401), ("non-member", 4404)])
def test_strangers_are_turned_away(team: Team, active: Run, role: str, close_code: int) -> None:
    async def scenario() -> None:
        connected, code, _ = await connect(active.pk, team.user(role))
        assert (connected, code) == (False, close_code)
        connected, code, _ = await connect(999_999, team.owner)
        assert (connected, code) == (False, 4404)

    run(scenario)


def test_a_viewer_gets_the_snapshot_then_each_change(team: Team, active: Run) -> None:
    async def scenario() -> None:
        client, snapshot = await watch(active.pk, team.viewer)
        expected = await database_sync_to_async(run_detail)(run_id=active.pk)
        assert snapshot == RunSnapshot(seq=0, run=expected).model_dump(mode="json")
        assert snapshot["seq"] == 0 and snapshot["run"]["status"] == "RUNNING"

        await database_sync_to_async(record)(
            active.pk, [event(active, 0, 0, S.RUNNING, records_out=7)]
        )
        update = await client.receive()
        assert update["type"] == "run_update" and update["seq"] == 1
        assert update["run"] == {}
        assert [(s["subtask"], s["state"], s["recordsOut"]) for s in update["subtasks"]] == [
            (0, "RUNNING", 7)
        ]
        assert [v["status"] for v in update["vertices"]] == ["RUNNING"]

        await database_sync_to_async(record)(
            active.pk, [event(active, 0, 0, S.FINISHED)], status=RunStatus.CANCELING
        )
        update = await client.receive()
        assert update["seq"] == 2 and update["run"] == {"status": "CANCELING"}
        assert await client.nothing_more()
        await client.close()

    run(scenario)


def test_entries_already_in_the_snapshot_are_not_sent_again(team: Team, active: Run) -> None:
    async def scenario() -> None:
        await database_sync_to_async(record)(active.pk, [event(active, 0, 0, S.RUNNING)])
        client, snapshot = await watch(active.pk, team.editor)
        assert snapshot["seq"] == 1
        # The entry arrives late (published before this client joined, delivered after).
        stale = run_update(1, {"run": {}, "vertices": [], "subtasks": []})
        await publish_to_run_async(active.key, stale)
        await database_sync_to_async(record)(active.pk, [event(active, 1, 0, S.RUNNING)])
        update = await client.receive()
        assert update["seq"] == 2
        assert await client.nothing_more()
        await client.close()

    run(scenario)


def test_a_missed_entry_is_read_from_the_journal(team: Team, active: Run) -> None:
    def record_unpublished(run_id: int) -> None:
        # Stored, but its publication never reaches this client.
        with transaction.atomic():
            locked = Run.objects.select_for_update().get(pk=run_id)
            append(locked, before=run_fields(locked), publish=lambda key, message: None)

    async def scenario() -> None:
        client, _ = await watch(active.pk, team.editor)
        await database_sync_to_async(record_unpublished)(active.pk)
        await database_sync_to_async(record)(
            active.pk, [event(active, 2, 1, S.FAILED, error="boom")]
        )
        first, second = await client.receive(), await client.receive()
        assert (first["seq"], second["seq"]) == (1, 2)
        assert second["subtasks"][0]["error"] == "boom"
        await client.close()

    run(scenario)


def test_resync_sends_a_fresh_snapshot_and_bad_messages_an_error(team: Team, active: Run) -> None:
    async def scenario() -> None:
        client, _ = await watch(active.pk, team.owner)
        await database_sync_to_async(record)(active.pk, [event(active, 0, 0, S.RUNNING)])
        assert (await client.receive())["seq"] == 1
        await client.communicator.send_to(text_data=json.dumps({"type": "resync"}))
        snapshot = await client.receive()
        assert (snapshot["type"], snapshot["seq"]) == ("snapshot", 1)
        assert snapshot["run"]["subtasks"][0]["state"] == "RUNNING"
        await client.communicator.send_to(text_data=json.dumps({"type": "cancel"}))
        error = await client.receive()
        assert error["type"] == "error" and error["error"]["code"] == "invalid-message"
        await client.close()

    run(scenario)


def test_a_watched_run_whose_worker_is_lost_fails(
    team: Team, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.RUN_HEARTBEAT_SECONDS = 0.2
    settings.RUN_HEARTBEAT_TIMEOUT = 1
    monkeypatch.setattr("runs.services.control.request_cancel", lambda key: None)
    stalled = make_run(version=team.pipeline.versions.get(number=2), status=RunStatus.RUNNING)

    async def scenario() -> None:
        client, snapshot = await watch(stalled.pk, team.viewer)
        assert snapshot["run"]["status"] == "RUNNING"
        update = await client.receive()  # within about a second, nobody else watching
        assert update["seq"] == 1 and update["run"]["status"] == "FAILED"
        assert update["run"]["error"].startswith("lost worker")
        assert {s["state"] for s in update["subtasks"]} == {"CANCELED"}
        await client.close()

    run(scenario)


def test_a_run_socket_whose_group_cannot_be_joined_reads_the_journal(
    team: Team, active: Run, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Redis dropped the connection just as the run's group was joined (a restart): the
    # socket stays open and follows the run from the journal, as it does while Redis is away.
    settings.RUN_HEARTBEAT_SECONDS = 0.2
    from channels_redis.pubsub import RedisPubSubLoopLayer

    join = RedisPubSubLoopLayer.group_add

    async def failing(layer: Any, group: str, channel: str) -> None:
        if group == run_group(active.key):
            raise RedisConnectionError("Connection closed by server.")
        await join(layer, group, channel)

    monkeypatch.setattr(RedisPubSubLoopLayer, "group_add", failing)

    async def scenario() -> None:
        client, snapshot = await watch(active.pk, team.viewer)
        assert snapshot["seq"] == 0
        await database_sync_to_async(record)(active.pk, [event(active, 0, 0, S.RUNNING)])
        update = await client.receive()
        assert update["type"] == "run_update" and update["seq"] == 1
        await client.close()

    run(scenario)


def test_clients_joining_while_the_run_changes_miss_nothing_and_get_nothing_twice(
    team: Team, active: Run
) -> None:
    """Entries are written while clients connect: every client ends with the same state
    as the database, having received each entry after its snapshot exactly once."""
    entries = 40
    states = [S.SCHEDULED, S.DEPLOYING, S.RUNNING, S.FINISHED]

    def writer(started: threading.Event) -> None:
        publisher = RunPublisher()
        rng = random.Random(7)
        try:
            started.set()
            for i in range(entries):
                vertex = rng.randrange(3)
                subtask = 0 if vertex == 0 else rng.randrange(2)
                state = states[min(i // 10, 3)]
                events = [event(active, vertex, subtask, state, records_in=i)]
                with transaction.atomic():
                    locked = Run.objects.select_for_update().get(pk=active.pk)
                    monitor = run_monitor(locked)
                    body = monitor.changes_json(monitor.apply(events))
                    append(
                        locked,
                        before=run_fields(locked),
                        vertices=body["vertices"],
                        subtasks=body["subtasks"],
                        events=events,
                        publish=publisher.publish,
                    )
                threading.Event().wait(rng.uniform(0, 0.01))
        finally:
            publisher.close()
            connections.close_all()

    async def one_client(delay: float) -> dict[str, Any]:
        await asyncio.sleep(delay)
        client, snapshot = await watch(active.pk, team.viewer)
        state = snapshot["run"]
        seqs = []
        while state["seq"] < entries:
            update = await client.receive()
            assert update["type"] == "run_update"
            seqs.append(update["seq"])
            apply(state, update)
        assert seqs == list(range(snapshot["seq"] + 1, entries + 1))
        await client.close()
        return state

    async def scenario() -> None:
        started = threading.Event()
        thread = threading.Thread(target=writer, args=(started,))
        thread.start()
        started.wait()
        states = await asyncio.gather(*(one_client(i * 0.03) for i in range(8)))
        await asyncio.to_thread(thread.join)
        final = await database_sync_to_async(run_detail)(run_id=active.pk)
        assert final is not None and final["seq"] == entries
        for state in states:
            assert state["subtasks"] == final["subtasks"]
            assert state["vertices"] == final["vertices"]

    run(scenario)
