"""Hypothesis against both websocket protocols: whatever a client sends, the socket stays
open, every message is answered in the protocol's shapes, and what is stored stays a
document the editor and REST can read back.

Through the full ASGI stack, the real Redis channel layer and the real database, one
connection per example: text that is not JSON, JSON that is no message, messages with
wrong fields, and well-formed edits of every kind with hostile values (deep, huge, NaN,
beyond 64 bits, unknown nodes and fields), sent in bursts without waiting.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter
from rest_framework.authtoken.models import Token

from compiler.diagnostics import structural_errors
from compiler.pipeline import compile_document
from config.asgi import application
from pipelines.documents import document_bytes
from pipelines.events import Outbound as PipelineOutbound
from pipelines.models import Pipeline, PipelineEdit
from runs.events import Outbound as RunOutbound
from runs.models import RunStatus
from tests.backend.factories import Team, make_team
from tests.backend.runs_support import make_run, make_runnable_version
from tests.backend.sockets import open_socket, run

# Bursts of edits meet PostgreSQL's row locks, as in production (SQLite takes none).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_only]

TIMEOUT = 5
QUIET = 0.15
"""Seconds without a message after which the server is done answering."""
PIPELINE_MESSAGES: TypeAdapter[Any] = TypeAdapter(PipelineOutbound)
RUN_MESSAGES: TypeAdapter[Any] = TypeAdapter(RunOutbound)

# Values -------------------------------------------------------------------------------------

numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, 1, 2, 3, 4, -1, 2**31, 2**63]),
)


def texts(max_size: int) -> st.SearchStrategy[str]:
    """Any code points, NUL and unpaired surrogates too: a browser can send them escaped."""
    return st.text(st.characters(exclude_categories=()), max_size=max_size)


json_values = st.recursive(
    st.none() | st.booleans() | numbers | texts(20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts(8), inner, max_size=4),
    max_leaves=12,
)
node_ids = st.one_of(st.integers(min_value=1, max_value=5), numbers, json_values)
fields = st.sampled_from(
    ["name", "parallelism", "maxParallelism", "uid", "uidHash", "operator", "params.fn",
     "ui.x", "ui.color", "chainingStrategy", "slotSharingGroup", "id", "partitioner",
     "key.fn", "defaultParallelism", "runtimeMode", "meta.notes", "", ".", "a..b", "format"]
)  # fmt: skip
edits = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(
            ["add_node", "remove_node", "move_node", "connect", "disconnect", "set_field", "nope"]
        )
    },
    optional={
        "element": st.sampled_from(["node", "edge", "config", "document", "x"]),
        "nodeId": node_ids,
        "edgeKey": st.lists(node_ids, max_size=5),
        "field": fields,
        "value": json_values,
        "x": numbers,
        "y": numbers,
        "node": st.one_of(
            json_values,
            st.fixed_dictionaries(
                {"name": texts(10)},
                optional={"id": node_ids, "operator": texts(10), "params": json_values},
            ),
        ),
        "edge": st.one_of(
            json_values,
            st.fixed_dictionaries(
                {"source": node_ids, "target": node_ids},
                optional={"partitioner": texts(10), "typeNumber": numbers},
            ),
        ),
    },
)
pipeline_messages = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("edit"), "opId": texts(120), "edit": edits},
        optional={"baseRevision": st.one_of(st.integers(0, 5), numbers)},
    ),
    st.fixed_dictionaries(
        {"type": st.just("presence")},
        optional={
            "selection": st.fixed_dictionaries(
                {}, optional={"nodes": st.lists(node_ids), "edges": st.lists(st.lists(node_ids))}
            ),
            "cursor": st.one_of(st.none(), json_values),
        },
    ),
    st.just({"type": "resync"}),
    st.dictionaries(texts(10), json_values, max_size=4),
)


def as_text(value: Any) -> st.SearchStrategy[str]:
    return st.just(json.dumps(value))


hostile_texts = st.one_of(
    texts(200),
    st.sampled_from(
        [
            "",
            "{",
            "[" * 2_000 + "]" * 2_000,
            '{"type": "resync", "x": NaN}',
            '{"type": "edit", "opId": "n", "baseRevision": 1e999, "edit": {}}',
            '{"type": "presence", "cursor": {"x": Infinity, "y": 0}}',
            '{"type": "edit", "opId": "' + "x" * 100_000 + '"}',
            "\x00",
            '{"type": "edit", "opId": "n", "baseRevision": 0, "edit": {"kind": "set_field", '
            '"element": "node", "nodeId": 2, "field": "name", "value": "\\ud800"}}',
            '{"type": "edit", "opId": "n", "baseRevision": 0, "edit": {"kind": "set_field", '
            '"element": "node", "nodeId": 2, "field": "params.k\\u0000", "value": 1}}',
        ]
    ),
)
sent = st.one_of(pipeline_messages.flatmap(as_text), hostile_texts)


# Driving a socket ------------------------------------------------------------------------------


async def received_until_quiet(communicator: WebsocketCommunicator) -> list[dict[str, Any]]:
    """Every message the server sends until it stays quiet; it must never close."""
    messages = []
    while not await communicator.receive_nothing(timeout=QUIET):
        output = await communicator.receive_output(timeout=TIMEOUT)
        assert output["type"] == "websocket.send", f"the server closed the socket: {output}"
        messages.append(json.loads(output["text"]))
    return messages


async def next_snapshot(communicator: WebsocketCommunicator) -> dict[str, Any]:
    """The next snapshot the server sends, however long a loaded machine takes to answer
    (a quiet moment is no sign that it is done); what comes before it must be valid."""
    while True:
        output = await communicator.receive_output(timeout=TIMEOUT)
        assert output["type"] == "websocket.send", f"the server closed the socket: {output}"
        message: dict[str, Any] = json.loads(output["text"])
        if message["type"] == "snapshot":
            return message
        PIPELINE_MESSAGES.validate_python(message)


async def send_text(communicator: WebsocketCommunicator, text: str) -> None:
    # As a frame, even an empty one (the communicator's `send_to` refuses those).
    await communicator.send_input({"type": "websocket.receive", "text": text})


def stored(pipeline_id: int) -> tuple[int, dict[str, Any], int]:
    pipeline = Pipeline.objects.get(pk=pipeline_id)
    edits = PipelineEdit.objects.filter(pipeline=pipeline).count()
    return pipeline.revision, pipeline.document, edits


@pytest.fixture
def team() -> Team:
    # One team for all the examples of a test: they only add to what it holds.
    return make_team()


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(burst=st.lists(sent, min_size=1, max_size=6))
def test_any_burst_of_messages_leaves_an_open_socket_and_a_readable_document(
    team: Team, burst: list[str], settings: Any
) -> None:
    settings.SOCKET_RESYNCS_PER_MINUTE = 1_000_000  # every example asks for one

    async def scenario() -> None:
        token = await database_sync_to_async(
            lambda: Token.objects.get_or_create(user=team.editor)[0].key
        )()
        communicator = WebsocketCommunicator(
            application,
            f"/ws/pipelines/{team.pipeline.pk}/",
            headers=[(b"authorization", f"Token {token}".encode())],
        )
        assert await open_socket(communicator) == (True, None)
        await received_until_quiet(communicator)  # the snapshot and presence
        for text in burst:
            await send_text(communicator, text)
        for message in await received_until_quiet(communicator):
            PIPELINE_MESSAGES.validate_python(message)
        await communicator.send_to(text_data='{"type": "resync"}')
        snapshot = await next_snapshot(communicator)
        revision, document, edits = await database_sync_to_async(stored)(team.pipeline.pk)
        assert (snapshot["revision"], snapshot["document"]) == (revision, document)
        assert edits == revision  # every revision is one stored edit
        assert not structural_errors(compile_document(document).diagnostics)
        assert document_bytes(document) <= 5 * 1024 * 1024
        json.dumps(document, allow_nan=False)  # what the database and browsers read back
        await communicator.disconnect()

    run(scenario)


run_requests = st.one_of(
    st.just({"type": "resync"}),
    st.dictionaries(texts(10), json_values, max_size=4),
).flatmap(as_text)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(burst=st.lists(st.one_of(run_requests, hostile_texts), min_size=1, max_size=6))
def test_the_run_socket_answers_anything_in_its_protocol(
    team: Team, burst: list[str], settings: Any
) -> None:
    settings.SOCKET_RESYNCS_PER_MINUTE = 1_000_000

    def a_run() -> tuple[int, str]:
        version = make_runnable_version(pipeline=team.pipeline, author=team.owner)
        run_id = make_run(version=version, status=RunStatus.RUNNING).pk
        return run_id, Token.objects.get_or_create(user=team.viewer)[0].key

    async def scenario() -> None:
        run_id, token = await database_sync_to_async(a_run)()
        communicator = WebsocketCommunicator(
            application,
            f"/ws/runs/{run_id}/",
            headers=[(b"authorization", f"Token {token}".encode())],
        )
        assert await open_socket(communicator) == (True, None)
        for text in burst:
            await send_text(communicator, text)
        for message in await received_until_quiet(communicator):
            RUN_MESSAGES.validate_python(message)
        await communicator.disconnect()

    run(scenario)
