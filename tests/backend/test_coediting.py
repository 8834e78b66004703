"""Live co-editing through the full ASGI stack (auth, routing, consumer), the real
Redis channel layer and the real database, with Channels' communicator."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token

from compiler.liveplan import apply_plan_delta
from config.asgi import application
from pipelines.editing import document_live_plan
from pipelines.models import Pipeline, PipelineEdit
from tests.backend.factories import Team, make_team
from tests.backend.sockets import open_socket, run

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 5


class Client:
    """One websocket connection and the messages it received."""

    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.communicator = communicator

    async def receive(self, message_type: str | None = None) -> dict[str, Any]:
        """The next message (of `message_type`, skipping others such as presence)."""
        while True:
            message = json.loads(await self.communicator.receive_from(timeout=TIMEOUT))
            if message_type is None or message["type"] == message_type:
                return message

    async def send(self, message: dict[str, Any]) -> None:
        await self.communicator.send_to(text_data=json.dumps(message))

    async def edit(self, op_id: str, base: int, edit: dict[str, Any]) -> dict[str, Any]:
        await self.send({"type": "edit", "opId": op_id, "baseRevision": base, "edit": edit})
        while True:
            message = await self.receive()
            if message.get("opId") == op_id:
                return message

    async def close(self) -> None:
        await self.communicator.disconnect()


async def connect(
    pipeline_id: int,
    user: User | None,
    *,
    query: str | None = None,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> tuple[bool, int | None, WebsocketCommunicator]:
    headers = list(headers or [])
    if user is not None:
        headers.append((b"authorization", f"Token {await token_of(user)}".encode()))
    if query is None:
        query = "?deltas=2"
    communicator = WebsocketCommunicator(
        application, f"/ws/pipelines/{pipeline_id}/{query}", headers=headers
    )
    connected, code = await open_socket(communicator)
    return connected, code, communicator


async def join(team: Team, role: str) -> tuple[Client, dict[str, Any]]:
    connected, code, communicator = await connect(team.pipeline.pk, team.user(role))
    assert connected, code
    client = Client(communicator)
    return client, await client.receive("snapshot")


@pytest.fixture
def team() -> Team:
    return make_team()


def set_field(node: int, field: str, value: Any) -> dict[str, Any]:
    return {"kind": "set_field", "element": "node", "nodeId": node, "field": field, "value": value}


async def stored(pipeline_id: int) -> tuple[int, dict[str, Any]]:
    def read() -> tuple[int, dict[str, Any]]:
        # The working copy is the snapshot with the edits stored after it: read in a thread.
        pipeline = Pipeline.objects.get(pk=pipeline_id)
        return pipeline.revision, pipeline.document

    return await database_sync_to_async(read)()


@pytest.mark.parametrize(("role", "close_code"), [("anonymous", 4401), ("non-member", 4404)])
def test_strangers_are_turned_away(team: Team, role: str, close_code: int) -> None:
    async def scenario() -> None:
        connected, code, _ = await connect(team.pipeline.pk, team.user(role))
        assert not connected and code == close_code

    run(scenario)


def test_bad_token_and_foreign_origin_count_as_anonymous(team: Team) -> None:
    async def scenario() -> None:
        connected, code, _ = await connect(
            team.pipeline.pk, None, headers=[(b"authorization", b"Token nope")]
        )
        assert (connected, code) == (False, 4401)
        # A token in the URL is not read: servers log URLs.
        token = await token_of(team.owner)
        connected, code, _ = await connect(team.pipeline.pk, None, query=f"?token={token}")
        assert (connected, code) == (False, 4401)
        connected, code, _ = await connect(
            team.pipeline.pk, None, query="", headers=[(b"origin", b"https://evil.example")]
        )
        assert (connected, code) == (False, 4401)

    run(scenario)


def test_unknown_pipeline_is_not_found(team: Team) -> None:
    async def scenario() -> None:
        connected, code, _ = await connect(999_999, team.owner)
        assert (connected, code) == (False, 4404)

    run(scenario)


def test_join_gets_document_revision_plan_and_presence(team: Team) -> None:
    async def scenario() -> None:
        alice, first = await join(team, "editor")
        assert first["revision"] == 0
        assert first["document"] == team.pipeline.document
        assert first["plan"] == document_live_plan(document=team.pipeline.document)
        assert [p["user"]["username"] for p in first["presence"]] == ["eddie"]
        bob, second = await join(team, "viewer")
        names = sorted(p["user"]["username"] for p in second["presence"])
        assert names == ["eddie", "vera"]
        joined = await alice.receive("presence")
        while joined["client"]["user"]["username"] != "vera":
            joined = await alice.receive("presence")
        assert joined["client"]["role"] == "viewer"
        await bob.close()
        left = await alice.receive("presence_left")
        assert left["clientId"] == second["you"]["clientId"]
        await alice.close()

    run(scenario)


@pytest.mark.both_databases
def test_an_edit_reaches_everyone_with_the_plan_delta(team: Team) -> None:
    async def scenario() -> None:
        alice, snapshot = await join(team, "editor")
        bob, _ = await join(team, "owner")
        applied = await alice.edit("op-1", 0, set_field(4, "parallelism", 5))
        assert applied["type"] == "edit_applied" and applied["revision"] == 1
        assert applied["rebased"] is False
        seen_by_bob = await bob.receive("edit_applied")
        assert seen_by_bob == applied
        revision, document = await stored(team.pipeline.pk)
        assert revision == 1 and document["nodes"][3]["parallelism"] == 5
        expected_plan = document_live_plan(document=document)
        plan = apply_plan_delta(snapshot["plan"], applied["planDelta"])
        assert plan == expected_plan
        # The sink can no longer chain: the FORWARD edge now crosses parallelism.
        assert any(d["code"] == "edge.forward-parallelism" for d in plan["diagnostics"])
        await alice.close()
        await bob.close()

    run(scenario)


def test_a_broken_chain_moves_ids_by_xor_and_older_pages_get_a_snapshot(team: Team) -> None:
    async def scenario() -> None:
        alice, snapshot = await join(team, "editor")
        # A page loaded before compact deltas does not ask for them.
        connected, code, communicator = await connect(team.pipeline.pk, team.owner, query="")
        assert connected, code
        older = Client(communicator)
        await older.receive("snapshot")
        applied = await alice.edit("op-1", 0, set_field(2, "chainingStrategy", "HEAD"))
        nodes = applied["planDelta"]["nodes"]
        assert nodes["xor"][0]["field"] == "operatorId" and nodes["xor"][0]["keys"] == [[1, 4]]
        _, document = await stored(team.pipeline.pk)
        expected = document_live_plan(document=document)
        assert apply_plan_delta(snapshot["plan"], applied["planDelta"]) == expected
        again = await older.receive("snapshot")
        assert again["revision"] == 1 and again["plan"] == expected
        # An edit whose delta has neither reaches the older page as it is.
        renamed = await alice.edit("op-2", 1, set_field(2, "params.fn", "x + 1"))
        assert (await older.receive("edit_applied"))["opId"] == renamed["opId"]
        await alice.close()
        await older.close()

    run(scenario)


async def token_of(user: User) -> str:
    token, _ = await database_sync_to_async(Token.objects.get_or_create)(user=user)
    return str(token.key)


def test_a_layout_of_every_node_is_one_revision(team: Team) -> None:
    async def scenario() -> None:
        alice, snapshot = await join(team, "editor")
        moves = [
            {"nodeId": node["id"], "x": 100 * position, "y": 40}
            for position, node in enumerate(snapshot["document"]["nodes"])
        ]
        applied = await alice.edit("layout", 0, {"kind": "move_nodes", "moves": moves})
        assert applied["revision"] == 1
        assert applied["planDelta"] == {}  # positions change no plan
        revision, document = await stored(team.pipeline.pk)
        assert revision == 1
        assert [(n["ui"]["x"], n["ui"]["y"]) for n in document["nodes"]] == [
            (move["x"], move["y"]) for move in moves
        ]
        await alice.close()

    run(scenario)


def test_an_operator_kind_and_its_parameters_change_in_one_edit(team: Team) -> None:
    async def scenario() -> None:
        alice, snapshot = await join(team, "editor")
        before = snapshot["document"]["nodes"][1]
        change = {"kind": "set_operator", "nodeId": before["id"], "operator": "filter"}
        applied = await alice.edit("op", 0, {**change, "params": {"predicate": "x > 1"}})
        assert applied["revision"] == 1
        _, document = await stored(team.pipeline.pk)
        after = document["nodes"][1]
        assert (after["operator"], after["params"]) == ("filter", {"predicate": "x > 1"})
        assert {k: v for k, v in after.items() if k not in ("operator", "params")} == {
            k: v for k, v in before.items() if k not in ("operator", "params")
        }
        await alice.close()

    run(scenario)


def test_a_node_and_its_edge_are_one_revision_and_follow_the_id_it_gets(team: Team) -> None:
    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        bob, _ = await join(team, "owner")
        await bob.edit("b1", 0, {"kind": "add_node", "node": {"id": 5, "name": "Theirs"}})
        # Made on revision 0, when id 5 was free: the node gets 6, and the edge goes to it.
        mine = {"kind": "add_node", "node": {"id": 5, "name": "Mine"}, "edge": {"source": 2}}
        applied = await alice.edit("a1", 0, mine)
        assert applied["type"] == "edit_applied"
        assert applied["revision"] == 2 and applied["rebased"] is True
        assert applied["edit"]["node"]["id"] == 6
        assert applied["edit"]["edge"] == {
            "partitioner": None,
            "exchangeMode": "UNDEFINED",
            "typeNumber": 0,
            "sideOutputTag": None,
            "source": 2,
        }
        revision, document = await stored(team.pipeline.pk)
        assert revision == 2
        assert (document["edges"][-1]["source"], document["edges"][-1]["target"]) == (2, 6)
        await alice.close()
        await bob.close()

    run(scenario)


@pytest.mark.both_databases
def test_a_stale_independent_edit_is_rebased(team: Team) -> None:
    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        bob, _ = await join(team, "owner")
        await alice.edit("a1", 0, set_field(2, "name", "Parse"))
        applied = await bob.edit("b1", 0, {"kind": "move_node", "nodeId": 3, "x": 10, "y": 20})
        assert applied["type"] == "edit_applied"
        assert applied["revision"] == 2 and applied["rebased"] is True
        _, document = await stored(team.pipeline.pk)
        assert document["nodes"][1]["name"] == "Parse"
        assert document["nodes"][2]["ui"] == {"x": 10, "y": 20}
        await alice.close()
        await bob.close()

    run(scenario)


def test_a_conflicting_stale_edit_is_rejected_and_changes_nothing(team: Team) -> None:
    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        bob, _ = await join(team, "owner")
        await alice.edit("a1", 0, set_field(2, "parallelism", 3))
        before = await stored(team.pipeline.pk)
        rejected = await bob.edit("b1", 0, set_field(2, "parallelism", 4))
        assert rejected["type"] == "edit_rejected" and rejected["reason"] == "conflict"
        assert rejected["revision"] == 1
        assert "'parallelism' of node 2 was changed in revision 1" in rejected["error"]["message"]
        assert await stored(team.pipeline.pk) == before
        count = await database_sync_to_async(PipelineEdit.objects.count)()
        assert count == 1
        await alice.close()
        await bob.close()

    run(scenario)


@pytest.mark.both_databases
@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (set_field(2, "name", "Parse \ud800"), "edit.value"),
        (set_field(2, "params.pa\x00th", "x"), "edit.field"),
        ({**set_field(2, "params", {"pa\x00th": "x"})}, "edit.value.pa\\u0000th"),
    ],
)
def test_text_no_database_stores_is_a_rejected_edit_and_the_socket_stays(
    team: Team, edit: dict[str, Any], where: str
) -> None:
    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        before = await stored(team.pipeline.pk)
        rejected = await alice.edit("bad", 0, edit)
        assert rejected["type"] == "edit_rejected" and rejected["reason"] == "invalid"
        assert rejected["revision"] == 0
        assert rejected["error"]["code"] == "invalid-message"
        assert f"at {where}," in rejected["error"]["message"]
        assert await stored(team.pipeline.pk) == before
        # The socket is still open, and the next edit applies.
        applied = await alice.edit("good", 0, set_field(2, "name", "Parse \U0001f600"))
        assert applied["type"] == "edit_applied"
        await alice.close()

    run(scenario)


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        ({"kind": "remove_node", "nodeId": 77}, "edit.unknown-node"),
        (
            {"kind": "connect", "edge": {"source": 1, "target": 4, "partitioner": "DIAGONAL"}},
            "invalid-document",
        ),
        ({"kind": "teleport"}, "edit.kind"),
    ],
)
def test_an_invalid_edit_is_rejected_with_its_location(
    team: Team, edit: dict[str, Any], code: str
) -> None:
    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        before = await stored(team.pipeline.pk)
        rejected = await alice.edit("x", 0, edit)
        assert rejected["type"] == "edit_rejected" and rejected["reason"] == "invalid"
        assert rejected["error"]["code"] == code
        assert rejected["error"]["diagnostics"]
        assert await stored(team.pipeline.pk) == before
        await alice.close()

    run(scenario)


def test_viewers_cannot_edit(team: Team) -> None:
    async def scenario() -> None:
        vera, _ = await join(team, "viewer")
        rejected = await vera.edit("v1", 0, set_field(2, "name", "Mine"))
        assert rejected["reason"] == "forbidden"
        assert await stored(team.pipeline.pk) == (0, team.pipeline.document)
        await vera.close()

    run(scenario)


def test_presence_selection_is_broadcast(team: Team) -> None:
    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        bob, snapshot = await join(team, "owner")
        await bob.send(
            {"type": "presence", "selection": {"nodes": [2, 3]}, "cursor": {"x": 1.5, "y": 2}}
        )
        while True:
            update = await alice.receive("presence")
            if (
                update["client"]["clientId"] == snapshot["you"]["clientId"]
                and (update["client"]["selection"]["nodes"])
            ):
                break
        assert update["client"]["selection"]["nodes"] == [2, 3]
        assert update["client"]["cursor"] == {"x": 1.5, "y": 2.0}
        await alice.send({"type": "resync"})
        fresh = await alice.receive("snapshot")
        selected = {p["clientId"]: p["selection"]["nodes"] for p in fresh["presence"]}
        assert selected[snapshot["you"]["clientId"]] == [2, 3]
        await alice.close()
        await bob.close()

    run(scenario)


def test_malformed_messages_get_an_error_not_a_disconnect(team: Team) -> None:
    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        await alice.communicator.send_to(text_data="{not json")
        error = await alice.receive("error")
        assert error["error"]["code"] == "invalid-message"
        # An edit the model refuses is answered as that edit, so the client takes it back.
        await alice.send(
            {"type": "edit", "opId": "1", "baseRevision": 0, "edit": {}, "extra": True}
        )
        rejected = await alice.receive("edit_rejected")
        assert (rejected["opId"], rejected["reason"]) == ("1", "invalid")
        assert "extra" in json.dumps(rejected["error"]["fields"])
        await alice.send({"type": "presence", "cursor": "here"})
        error = await alice.receive("error")
        assert "cursor" in json.dumps(error["error"]["fields"])
        applied = await alice.edit("ok", 0, set_field(2, "name", "Still here"))
        assert applied["type"] == "edit_applied"
        await alice.close()

    run(scenario)


def test_an_edit_beyond_the_size_limit_is_rejected(team: Team, settings: Any) -> None:
    settings.PIPELINE_MAX_NODES = 4

    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        rejected = await alice.edit("big", 0, {"kind": "add_node", "node": {"name": "Fifth"}})
        assert rejected["type"] == "edit_rejected" and rejected["reason"] == "invalid"
        assert rejected["error"]["code"] == "document-too-large"
        assert await stored(team.pipeline.pk) == (0, team.pipeline.document)
        await alice.close()

    run(scenario)


def test_a_rest_update_reaches_co_editors_and_stale_edits_conflict(team: Team) -> None:
    from pipelines.services import pipeline_update
    from tests.backend.factories import make_document

    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        replacement = make_document(parallelism=3)
        await database_sync_to_async(pipeline_update)(
            pipeline=team.pipeline, actor=team.owner, document=replacement
        )
        replaced = await alice.receive("document_replaced")
        assert replaced["revision"] == 1 and replaced["document"] == replacement
        assert replaced["plan"] == document_live_plan(document=replacement)
        rejected = await alice.edit("late", 0, set_field(2, "name", "Too late"))
        assert rejected["reason"] == "conflict"
        assert "after revision 0 are not all stored" in rejected["error"]["message"]
        assert "the document was replaced" in rejected["error"]["message"]
        await alice.close()

    run(scenario)


def test_a_saved_version_is_announced_to_everyone_on_the_pipeline(team: Team) -> None:
    from pipelines.services import version_create

    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        viewer, _ = await join(team, "viewer")
        await database_sync_to_async(version_create)(
            pipeline=team.pipeline, actor=team.owner, message="Widen the total"
        )
        for client in (alice, viewer):
            saved = await client.receive("version_saved")
            assert saved == {
                "type": "version_saved",
                "number": 2,  # the team's pipeline comes with version 1
                "revision": 0,
                "message": "Widen the total",
                "user": {"id": team.owner.pk, "username": team.owner.username},
            }
            await client.close()

    run(scenario)


def test_a_started_run_is_announced_to_everyone_on_the_pipeline(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    from runs import services as run_services
    from tests.backend.runs_support import make_runnable_version

    queued: list[int] = []

    class Queue:  # the Celery task; running it is tests/backend/test_runs_execution.py's
        @staticmethod
        def apply_async(args: tuple[int], queue: str) -> None:
            queued.append(args[0])

    monkeypatch.setattr(run_services, "execute_run", Queue)
    make_runnable_version(pipeline=team.pipeline, author=team.owner)  # version 2

    async def scenario() -> None:
        viewer, _ = await join(team, "viewer")
        run = await database_sync_to_async(run_services.run_start)(
            pipeline=team.pipeline, actor=team.editor, version=2
        )
        started = await viewer.receive("run_started")
        assert started == {
            "type": "run_started",
            "run": run.pk,
            "version": 2,
            "user": {"id": team.editor.pk, "username": team.editor.username},
        }
        assert queued == [run.pk]
        await viewer.close()

    run(scenario)


def test_a_browser_session_cookie_signs_in(team: Team) -> None:
    from django.conf import settings as django_settings
    from django.test import Client as HttpClient

    browser = HttpClient()
    browser.force_login(team.editor)
    session = browser.cookies[django_settings.SESSION_COOKIE_NAME].value
    cookie = f"{django_settings.SESSION_COOKIE_NAME}={session}".encode()

    async def scenario() -> None:
        site = [(b"cookie", cookie), (b"host", b"127.0.0.1:8000")]
        headers = [*site, (b"origin", b"http://127.0.0.1:8000")]
        connected, code, communicator = await connect(
            team.pipeline.pk, None, query="", headers=headers
        )
        assert connected, code
        snapshot = await Client(communicator).receive("snapshot")
        assert snapshot["you"]["user"]["username"] == "eddie"
        await communicator.disconnect()
        # The same cookie from a page of another origin is refused, and told so.
        foreign = [*site, (b"origin", b"https://evil.example")]
        connected, code, _ = await connect(team.pipeline.pk, None, query="", headers=foreign)
        assert (connected, code) == (False, 4403)

    run(scenario)


# Bounded input ---------------------------------------------------------------------------


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_non_finite_number_is_refused_on_an_open_socket(team: Team, number: str) -> None:
    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        text = (
            '{"type": "edit", "opId": "nan", "baseRevision": 0, "edit": {"kind": "set_field", '
            '"element": "node", "nodeId": 2, "field": "ui.x", "value": ' + number + "}}"
        )
        await alice.communicator.send_to(text_data=text)
        error = await alice.receive("error")
        assert error["error"]["code"] == "invalid-message"
        assert "not a JSON number" in error["error"]["message"]
        assert f"byte offset {text.index(number)}" in error["error"]["message"]
        assert await stored(team.pipeline.pk) == (0, team.pipeline.document)
        applied = await alice.edit("after", 0, set_field(2, "ui.x", 1.5))
        assert applied["type"] == "edit_applied"
        await alice.close()

    run(scenario)


def test_a_message_beyond_the_limit_is_refused_unread(team: Team, settings: Any) -> None:
    settings.WEBSOCKET_MAX_MESSAGE_BYTES = 10_000

    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        edit = set_field(2, "params.fn", "x" * 20_000)
        await alice.send({"type": "edit", "opId": "big", "baseRevision": 0, "edit": edit})
        error = await alice.receive("error")
        assert error["error"]["code"] == "message-too-large"
        assert "at most 10,000 bytes" in error["error"]["message"]
        assert await stored(team.pipeline.pk) == (0, team.pipeline.document)
        await alice.close()

    run(scenario)


def test_edits_cannot_grow_a_document_beyond_what_rest_can_save(team: Team, settings: Any) -> None:
    # A stored document must always fit in a request again: edits are held to the same
    # byte limit as REST, however they add up.
    from pipelines.documents import document_bytes

    settings.PIPELINE_MAX_DOCUMENT_BYTES = document_bytes(team.pipeline.document) + 3_000

    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        revision, outcome = 0, None
        for n in range(100):
            outcome = await alice.edit(f"grow-{n}", revision, set_field(2, f"ui.n{n}", "y" * 400))
            if outcome["type"] != "edit_applied":
                break
            revision = outcome["revision"]
        assert outcome is not None and outcome["type"] == "edit_rejected"
        assert outcome["error"]["code"] == "document-too-large"
        assert 5 <= revision < 10
        stored_revision, document = await stored(team.pipeline.pk)
        assert stored_revision == revision
        assert document_bytes(document) <= settings.PIPELINE_MAX_DOCUMENT_BYTES
        await alice.close()

    run(scenario)
    response = team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/",
        {"document": Pipeline.objects.get(pk=team.pipeline.pk).document},
        format="json",
    )
    assert response.status_code == 200


@pytest.mark.parametrize(
    "selection",
    [
        {"nodes": list(range(1_001))},
        {"edges": [[1, 2, 0, 0]] * 1_001},
        {"edges": [[1, 2, 0, 0, 9]]},
        {"nodes": [2**40]},
    ],
)
def test_presence_beyond_its_limits_is_refused_not_broadcast(
    team: Team, selection: dict[str, Any]
) -> None:
    async def scenario() -> None:
        alice, snapshot = await join(team, "editor")
        bob, _ = await join(team, "viewer")
        await alice.send({"type": "presence", "selection": selection})
        error = await alice.receive("error")
        assert error["error"]["code"] == "invalid-message"
        assert error["error"]["message"].startswith("presence.selection.")
        await alice.send({"type": "presence", "selection": {"nodes": [2]}})
        while (seen := await bob.receive("presence"))["client"]["selection"]["nodes"] == []:
            pass  # the joins
        assert seen["client"]["clientId"] == snapshot["you"]["clientId"]
        assert seen["client"]["selection"]["nodes"] == [2]  # the refused one never came
        await alice.close()
        await bob.close()

    run(scenario)


@pytest.mark.both_databases
def test_snapshots_asked_for_are_limited_per_user_and_the_socket_stays(
    team: Team, settings: Any
) -> None:
    settings.SOCKET_RESYNCS_PER_MINUTE = 2

    async def scenario() -> None:
        alice, _ = await join(team, "editor")
        again, _ = await join(team, "editor")  # the same user's other page counts too
        await alice.send({"type": "resync"})
        await alice.receive("snapshot")
        await again.send({"type": "resync"})
        await again.receive("snapshot")
        await alice.send({"type": "resync"})
        refused = await alice.receive("error")
        assert refused["error"]["code"] == "too-many-resyncs"
        assert "At most 2 snapshots a minute" in refused["error"]["message"]
        # Every change still arrives, and edits still apply.
        applied = await alice.edit("still", 0, set_field(2, "name", "Parse"))
        assert applied["type"] == "edit_applied"
        await alice.close()
        await again.close()

    run(scenario)
