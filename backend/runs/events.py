"""Every message of the run monitor websocket, `ws/runs/<id>/`, and the one publisher.

A client gets a `snapshot` (the run as `GET /api/runs/<id>/` shows it, with the
sequence number `seq` it reflects), then one `run_update` per journal entry after it,
in order, each with the next `seq`: nothing lost, nothing twice. Messages are typed
models that reject unknown fields; `docs/RUNTIME.md` documents them and `make wire`
generates the browser's types from them. Only `publish_to_run` (and `RunPublisher`, the
same for a worker thread) sends to a run's group: a message is encoded once and every
consumer forwards the text.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from pydantic import ConfigDict, Field, RootModel, TypeAdapter

from audit.events import Recorded
from compiler.model import Partitioner, ResultPartitionType, RuntimeMode
from config.messages import ErrorBody, UserRef, WireMessage, ts_type
from runs.models import RunStatus
from runtime.events import ExecutionState
from runtime.stages import Handoff, StageStatus

# Inbound ------------------------------------------------------------------------------


class RunResyncRequest(WireMessage):
    """Ask for a fresh snapshot."""

    type: Literal["resync"]


Inbound = Annotated[RunResyncRequest, Field(discriminator="type")]
INBOUND = TypeAdapter(Inbound)


# Outbound -----------------------------------------------------------------------------


IsoTime = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
"""A time as ISO 8601 text (`runs.journal.iso`)."""


class Attempt(WireMessage):
    """One attempt of one subtask. Times are seconds since the epoch."""

    attempt: int
    """0-based; a Spark task retry is a new attempt."""
    state: ExecutionState
    recordsIn: int
    recordsOut: int
    startTime: float | None
    """Null until known."""
    endTime: float | None
    """Null until known."""
    error: str | None
    """Why the attempt failed."""
    failedNode: int | None = None
    """The StreamNode id of the operator `error` is about (`runtime.events.node_named_in`);
    absent from runs stored before it was recorded."""


class Subtask(Attempt):
    """A subtask (ExecutionVertex): its current attempt's figures, and every attempt."""

    vertex: str
    """The JobVertexID."""
    subtask: int
    """0-based subtask index."""
    name: str
    """Flink's `Name (i/p)`."""
    keyGroups: tuple[int, int]
    """Inclusive key-group range [start, end]."""
    attempts: list[Attempt]
    """Every attempt, oldest first."""


class Vertex(WireMessage):
    """A JobVertex: its subtasks' aggregate status (Flink's rules), counts and records."""

    id: str
    """The JobVertexID."""
    name: str
    parallelism: int
    maxParallelism: int
    status: ExecutionState
    """Flink's aggregate vertex status."""
    statusCounts: Annotated[
        dict[ExecutionState, int], ts_type("Readonly<Record<ExecutionState, number>>")
    ]
    """Subtasks per state, every state named."""
    recordsIn: int
    recordsOut: int
    startTime: float | None
    endTime: float | None


class SinkOutput(WireMessage):
    """What one subtask of a sink received."""

    node: int
    """The sink's node id."""
    vertex: str
    subtask: int
    records: int
    preview: list[str]
    """The first records, as text."""
    truncated: bool
    """More records were written than previewed."""
    files: list[str]
    """Files written, relative to the workspace's data folder."""


class OperatorRef(WireMessage):
    node: int
    """The StreamNode id."""
    name: str


class RunStage(WireMessage):
    """One stage of the run: a Spark stage (the local executor: one vertex)."""

    number: int
    """1-based: the order the stages began in once the executor reported them
    (`RunExecution.stagesReported`), else the order the plan implies."""
    vertices: list[str]
    """The JobVertexIDs whose subtasks it runs: one, or every vertex without outputs."""
    edge: int | None
    """For a stage that runs no vertex: the StreamEdge whose records it shuffles once more."""
    reads: list[OperatorRef] = Field(default_factory=list)
    """The file sources whose files it reads, on a data location of another scheme than
    `file:`: a stage of its own, before the vertex that reads them."""
    writes: list[OperatorRef] = Field(default_factory=list)
    """The file sinks whose parts it writes, on a data location of another scheme than
    `file:`: the last stage."""
    after: list[int]
    """The stages whose output it reads: it begins once they have finished."""
    status: StageStatus
    stageId: int | None
    """Spark's stage id (the local executor: the vertex's position); null until reported."""
    attempts: int
    submitted: float | None
    """Seconds since the epoch."""
    completed: float | None


class RunExchange(WireMessage):
    """One StreamEdge: the exchange Flink plans for it, and how the executor moved it."""

    edge: int
    """The StreamEdge's index in the version's document."""
    source: OperatorRef
    target: OperatorRef
    partitioner: Partitioner
    resultPartitionType: ResultPartitionType | None
    """Flink's planned result partition type of the JobEdge; null for a chained edge,
    which Flink runs inside one task with no exchange."""
    handoff: Handoff
    """`in-task`: a call inside one task; `shuffle`: written whole to Spark's shuffle files
    by the producer's stage, read once it finished; `shuffle-twice`: shuffled again by a
    stage of its own; `in-memory`: held whole until its consumer ran (local executor)."""
    producerStage: int
    consumerStage: int


class VertexEngine(WireMessage):
    """What ran one JobVertex (`runtime.events.VertexEngine`)."""

    vertex: str
    """The JobVertexID."""
    engine: Literal["sql", "python"]
    """`sql`: Spark SQL in the JVM (`runtime.spark.sqlpath`); `python`: its generated
    Python chain."""
    reason: str | None
    """For `python` on Spark: why the vertex did not run as SQL."""


class RunExecution(WireMessage):
    """How the run executes, beside Flink's plan (`runtime.stages`): every source reads
    its whole input, stages run in their order, exchanges are moved as `handoff` says,
    whatever the pipeline's planned `runtimeMode` (Flink would run STREAMING with its
    exchanges pipelined, BATCH with blocking ones)."""

    executor: Literal["spark", "local"]
    runtimeMode: RuntimeMode
    sources: list[OperatorRef]
    stagesReported: bool
    """True once the stages are those the executor reported, in the order they began;
    false while they are the plan's."""
    stages: list[RunStage]
    exchanges: list[RunExchange]
    """Every StreamEdge, in document order."""
    engines: list[VertexEngine] = Field(default_factory=list)
    """Per vertex, in plan order, what ran it, once the executor reported (empty before,
    and for runs that ended before it did)."""


class SparkApplication(WireMessage):
    """The Spark application that executes a run: its worker's session, which the worker's
    other runs share, and the links of its cluster profile (`runtime.clusters`)."""

    id: str
    """Spark's application id (`app-...` on a standalone cluster, `local-...` on a local
    master)."""
    uiUrl: str | None
    """The application in a Spark UI; null when the cluster profile has no `uiUrl`."""
    historyUrl: str | None
    """The application in a Spark History Server; null when the profile has no
    `historyUrl`."""


class RunFields(WireMessage):
    """The run's own fields that change while it runs; an update carries the changed ones:
    a field left out is unchanged, a field given as null was cleared (`encode` sends only
    the fields given)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=False)

    status: RunStatus | None = None
    canceledBy: UserRef | None = None
    error: str | None = None
    startedAt: IsoTime | None = None
    finishedAt: IsoTime | None = None
    worker: str | None = None
    sinks: list[SinkOutput] | None = None
    details: Annotated[dict[str, Any], ts_type("JsonObject")] | None = None
    eventsProblem: str | None = None
    execution: RunExecution | None = None
    spark: SparkApplication | None = None


class RunSummary(WireMessage):
    """A run as lists show it (`runs.selectors.run_summary`). Times are ISO 8601."""

    id: int
    pipeline: int
    version: int
    """The version number."""
    status: RunStatus
    cluster: str
    """The cluster profile it runs on, by name (`runtime.clusters`)."""
    parameters: Annotated[dict[str, Any], ts_type("JsonObject")]
    startedBy: UserRef | None
    createdAt: IsoTime
    startedAt: IsoTime | None
    finishedAt: IsoTime | None
    heartbeatAt: IsoTime | None
    worker: str | None
    """The worker process that drives it."""
    error: str | None


class RunSummaries(RootModel[list[RunSummary]]):
    """`GET /api/pipelines/<id>/runs/`: newest first."""


class RunDetail(RunSummary):
    """A run as `GET /api/runs/<id>/` shows it, and the websocket's snapshot carries it."""

    canceledBy: UserRef | None
    """Who canceled it (the run is CANCELING or CANCELED, and `error` is null: a cancel is
    not a failure); null when no user did."""

    sinks: list[SinkOutput]
    details: Annotated[dict[str, Any], ts_type("JsonObject")]
    """Facts from the executor (`applicationId`, `executor`, ...)."""
    eventsProblem: str | None
    """Why live subtask states are not arriving, once the worker noticed: executors whose
    events do not reach the run's Redis (the run goes on; what they did is known at its
    end). Null while events arrive."""
    execution: RunExecution | None
    """How it executes beside Flink's plan; null until a worker planned it."""
    spark: SparkApplication | None
    """Null until a worker has started Spark for it, and with the local executor."""
    seq: int
    """The last journal entry this state includes."""
    vertices: list[Vertex]
    """In plan order."""
    subtasks: list[Subtask]
    """In plan order: per vertex, subtask 0 first."""


class RunSnapshot(WireMessage):
    type: Literal["snapshot"] = "snapshot"
    seq: int
    run: RunDetail


class RunUpdate(WireMessage):
    """One journal entry: apply it to the state of `seq - 1`.

    `run` holds only the run's fields that changed (a field absent is unchanged);
    `vertices` and `subtasks` the entries that changed, whole, to replace by `id` /
    (`vertex`, `subtask`)."""

    type: Literal["run_update"] = "run_update"
    seq: int
    run: RunFields
    vertices: list[Vertex]
    subtasks: list[Subtask]


class RunErrorMessage(WireMessage):
    type: Literal["error"] = "error"
    error: ErrorBody


Outbound = RunSnapshot | RunUpdate | RunErrorMessage


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
    if isinstance(message, RunUpdate):
        unchanged = set(RunFields.model_fields) - message.run.model_fields_set
        return message.model_dump_json(exclude={"run": unchanged})
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


# The audit record ---------------------------------------------------------------------------


class RunRefusedRecord(Recorded):
    """The review gate refused to run a version (the audit record; no run was created)."""

    kind: Literal["run_refused"] = "run_refused"
    version: int
    code: str
    reason: str
