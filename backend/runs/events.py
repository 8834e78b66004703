"""Every message of the run monitor websocket, `ws/runs/<id>/`, and the one publisher.

A client gets a `snapshot` (the run as `GET /api/runs/<id>/` shows it, with the
sequence number `seq` it reflects), then one `run_update` per journal entry after it,
in order, each with the next `seq`: nothing lost, nothing twice. Messages are typed
models that reject unknown fields; `docs/RUNTIME.md` documents them and the frontend
mirrors them. Only `publish_to_run` (and `RunPublisher`, the same for a worker thread)
sends to a run's group: a message is encoded once and every consumer forwards the text.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    model_serializer,
)

from pipelines.events import ErrorBody


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


State = Literal[
    "CREATED",
    "SCHEDULED",
    "DEPLOYING",
    "INITIALIZING",
    "RUNNING",
    "FINISHED",
    "CANCELING",
    "CANCELED",
    "FAILED",
]
"""Flink's ExecutionState names."""
Status = Literal["QUEUED", "CREATED", "RUNNING", "CANCELING", "FINISHED", "FAILED", "CANCELED"]
"""A run's status (`runs.models.RunStatus`)."""


# Inbound ------------------------------------------------------------------------------


class ResyncRequest(_Message):
    """Ask for a fresh snapshot."""

    type: Literal["resync"]


Inbound = Annotated[ResyncRequest, Field(discriminator="type")]
INBOUND = TypeAdapter(Inbound)


# Outbound -----------------------------------------------------------------------------


class Attempt(_Message):
    """One attempt of one subtask. Times are seconds since the epoch."""

    attempt: int
    state: State
    recordsIn: int
    recordsOut: int
    startTime: float | None
    endTime: float | None
    error: str | None
    failedNode: int | None = None
    """The StreamNode id of the operator `error` is about (`runtime.events.node_named_in`);
    absent from runs stored before it was recorded."""


class Subtask(Attempt):
    """A subtask (ExecutionVertex): its current attempt's figures, and every attempt."""

    vertex: str
    subtask: int
    name: str
    keyGroups: tuple[int, int]
    attempts: list[Attempt]


class Vertex(_Message):
    """A JobVertex: its subtasks' aggregate status (Flink's rules), counts and records."""

    id: str
    name: str
    parallelism: int
    maxParallelism: int
    status: State
    statusCounts: dict[State, int]
    recordsIn: int
    recordsOut: int
    startTime: float | None
    endTime: float | None


class SinkOutput(_Message):
    node: int
    vertex: str
    subtask: int
    records: int
    preview: list[str]
    truncated: bool
    files: list[str]


class UserRef(_Message):
    id: int
    username: str


class RunFields(_Message):
    """The run's own fields that change while it runs; an update carries the changed ones."""

    status: Status | None = None
    error: str | None = None
    startedAt: str | None = None
    finishedAt: str | None = None
    worker: str | None = None
    sinks: list[SinkOutput] | None = None
    details: dict[str, Any] | None = None

    @model_serializer(mode="wrap")
    def _only_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A field left out is unchanged; a field given as null was cleared.
        data: dict[str, Any] = handler(self)
        return {name: value for name, value in data.items() if name in self.model_fields_set}


class RunDetail(_Message):
    """A run as `GET /api/runs/<id>/` shows it."""

    id: int
    pipeline: int
    version: int
    """The version number."""
    status: Status
    cluster: str
    """The cluster profile it runs on, by name (`runtime.clusters`)."""
    parameters: dict[str, Any]
    startedBy: UserRef | None
    createdAt: str
    startedAt: str | None
    finishedAt: str | None
    heartbeatAt: str | None
    worker: str | None
    error: str | None
    sinks: list[SinkOutput]
    details: dict[str, Any]
    seq: int
    """The last journal entry this state includes."""
    vertices: list[Vertex]
    subtasks: list[Subtask]


class Snapshot(_Message):
    type: Literal["snapshot"] = "snapshot"
    seq: int
    run: RunDetail


class RunUpdate(_Message):
    """One journal entry: apply it to the state of `seq - 1`.

    `run` holds only the run's fields that changed (a field absent is unchanged);
    `vertices` and `subtasks` the entries that changed, whole, to replace by `id` /
    (`vertex`, `subtask`)."""

    type: Literal["run_update"] = "run_update"
    seq: int
    run: RunFields
    vertices: list[Vertex]
    subtasks: list[Subtask]


class ErrorMessage(_Message):
    type: Literal["error"] = "error"
    error: ErrorBody


Outbound = Snapshot | RunUpdate | ErrorMessage


def run_update(seq: int, changes: dict[str, Any]) -> RunUpdate:
    """The message for a journal entry's `changes` (`runs.journal`)."""
    return RunUpdate(
        seq=seq,
        run=RunFields(**changes.get("run", {})),
        vertices=changes.get("vertices", []),
        subtasks=changes.get("subtasks", []),
    )


def run_group(run_key: str) -> str:
    """A run's channel-layer group, named by its key (unique across databases, as its
    Redis channels are), not its id."""
    return f"run.{run_key}"


GROUP_EVENT = "run.message"
"""The channel-layer event type consumers handle (`RunConsumer.run_message`)."""


def encode(message: Outbound) -> str:
    return message.model_dump_json()


def _group_event(message: Outbound) -> dict[str, Any]:
    event: dict[str, Any] = {"type": GROUP_EVENT, "text": encode(message)}
    if isinstance(message, RunUpdate):
        event["seq"] = message.seq
    return event


async def publish_to_run_async(run_key: str, message: Outbound) -> None:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("CHANNEL_LAYERS is not configured")
    await layer.group_send(run_group(run_key), _group_event(message))


def publish_to_run(run_key: str, message: Outbound) -> None:
    """Send `message` to every client of the run with this key (from synchronous code)."""
    async_to_sync(publish_to_run_async)(run_key, message)


class RunPublisher:
    """`publish_to_run` for a thread that publishes many messages (a run's worker).

    `async_to_sync` would start an event loop, and the channel layer a Redis
    connection, per message; this keeps one loop, so one connection, until `close`.
    """

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()

    def publish(self, run_key: str, message: Outbound) -> None:
        self._loop.run_until_complete(publish_to_run_async(run_key, message))

    def close(self) -> None:
        # The channel layer hooks `close` to flush its connections for this loop.
        self._loop.close()
