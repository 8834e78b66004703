"""Every message of the co-editing websocket protocol, and the one publisher.

Inbound messages (client -> server) and outbound ones (server -> client) are
typed models that reject unknown fields; `docs/COEDITING.md` documents them. They are
the one source of these shapes: the browser's types (`frontend/src/api/generated/`)
are generated from their JSON Schema by `make wire`. Only `publish_to_pipeline` (for writes,
`publish_after_commit`) sends to a pipeline's group: it serialises a message once and
every consumer forwards the same text, so a broadcast costs one encoding, not one per
client. Apps built on pipelines (reviews) send their own messages to the same clients
through it too: those are declared on `PipelineGroupMessage`, in their app's `events.py`.

The REST bodies of this app that are wire models live here too (the rescale simulator's and
the version diff's state verdict, at the end), documented in the OpenAPI schema by the
same models.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from pydantic import Field, TypeAdapter

from accounts.models import Role
from compiler.liveplan import compact_delta
from compiler.rescale import ProblemCode, ProblemSeverity, Scope
from compiler.state.restore import FailureCode, WarningCode
from compiler.state.verdict import OperatorVerdict
from config.messages import ErrorBody, UserRef, WireMessage, ts_type
from config.namespacing import redis_namespace

# Inbound ------------------------------------------------------------------------------


NodeIdNumber = Annotated[int, Field(ge=0, le=2**31 - 1)]
"""A StreamNode id (a Java int in Flink)."""
SELECTION_LIMIT = 1_000
"""Selected nodes (and edges) a presence message names: everyone receives each one, so a
larger selection is shown to others by its first ones (the editor sends at most these)."""


class Selection(WireMessage):
    nodes: list[NodeIdNumber] = Field(default_factory=list, max_length=SELECTION_LIMIT)
    edges: list[tuple[NodeIdNumber, NodeIdNumber, NodeIdNumber, NodeIdNumber]] = Field(
        default_factory=list, max_length=SELECTION_LIMIT
    )
    """Edge keys: [source, target, typeNumber, k]."""


class Cursor(WireMessage):
    x: float = Field(allow_inf_nan=False)
    y: float = Field(allow_inf_nan=False)


OP_ID_MAX = 100
"""Characters of an edit's `opId`."""


class EditRequest(WireMessage):
    type: Literal["edit"]
    opId: str = Field(min_length=1, max_length=OP_ID_MAX)
    """Chosen by the client; echoed in `edit_applied` / `edit_rejected`."""
    baseRevision: int = Field(ge=0, le=2**63 - 1)
    """The document revision the client saw when it made the edit."""
    edit: Annotated[dict[str, Any], ts_type("Edit")]
    """A `compiler.edits.Edit` in its JSON form."""


class PresenceRequest(WireMessage):
    type: Literal["presence"]
    selection: Selection = Field(default_factory=Selection)
    cursor: Cursor | None = None


class ResyncRequest(WireMessage):
    type: Literal["resync"]


Inbound = Annotated[EditRequest | PresenceRequest | ResyncRequest, Field(discriminator="type")]
INBOUND = TypeAdapter(Inbound)


# Outbound -----------------------------------------------------------------------------


class PresenceEntry(WireMessage):
    clientId: str
    user: UserRef
    role: Role
    selection: Selection = Field(default_factory=Selection)
    cursor: Cursor | None = None


class Snapshot(WireMessage):
    type: Literal["snapshot"] = "snapshot"
    pipeline: int
    revision: int
    document: Annotated[dict[str, Any], ts_type("StreamGraphDocument")]
    plan: Annotated[dict[str, Any], ts_type("LivePlan")]
    """`liveplan/v1` of `document`; after the compiler's diagnostics come those that would
    stop a run, marked `"stage": "run"`, then the warnings about stateful operators
    without a uid or uidHash, marked `"stage": "state"`
    (`pipelines.editing.document_live_plan`)."""
    presence: list[PresenceEntry]
    you: PresenceEntry


class EditApplied(WireMessage):
    type: Literal["edit_applied"] = "edit_applied"
    revision: int
    """The revision this edit produced; the previous one is `revision - 1`."""
    clientId: str
    user: UserRef
    opId: str
    edit: Annotated[dict[str, Any], ts_type("Edit")]
    """The edit as applied (e.g. with the id assigned to a new node)."""
    rebased: bool
    """True when it was made against an older revision and applied over newer edits."""
    planDelta: Annotated[dict[str, Any], ts_type("PlanDelta")]
    """`compiler.liveplan.plan_delta` from the plan of `revision - 1` to this revision's.
    A client whose plan is not at `revision - 1` sends `resync`."""


class EditRejected(WireMessage):
    type: Literal["edit_rejected"] = "edit_rejected"
    opId: str
    reason: Literal["conflict", "invalid", "forbidden"]
    revision: int
    """The current revision: rebase on it (or resync) and retry."""
    error: ErrorBody


class DocumentReplaced(WireMessage):
    """The working copy was replaced outside co-editing (REST update): start from this."""

    type: Literal["document_replaced"] = "document_replaced"
    revision: int
    document: Annotated[dict[str, Any], ts_type("StreamGraphDocument")]
    plan: Annotated[dict[str, Any], ts_type("LivePlan")]


class VersionSaved(WireMessage):
    """Someone saved the working copy as a version: clients refresh their history."""

    type: Literal["version_saved"] = "version_saved"
    number: int
    revision: int
    """The working copy's revision that was saved."""
    message: str
    user: UserRef


class RunStarted(WireMessage):
    """Someone queued a run of a version: clients refresh their run lists."""

    type: Literal["run_started"] = "run_started"
    run: int
    version: int
    user: UserRef


class AccessChanged(WireMessage):
    """This connection's role changed while it was open (an owner changed it): `you` with
    the new role; with `canEdit` false the client turns read-only."""

    type: Literal["access_changed"] = "access_changed"
    you: PresenceEntry
    canEdit: bool


class PresenceChanged(WireMessage):
    type: Literal["presence"] = "presence"
    client: PresenceEntry


class PresenceLeft(WireMessage):
    type: Literal["presence_left"] = "presence_left"
    clientId: str


class ErrorMessage(WireMessage):
    type: Literal["error"] = "error"
    error: ErrorBody


Outbound = (
    Snapshot
    | EditApplied
    | EditRejected
    | DocumentReplaced
    | VersionSaved
    | RunStarted
    | AccessChanged
    | PresenceChanged
    | PresenceLeft
    | ErrorMessage
)


class PipelineGroupMessage(WireMessage):
    """The base of the messages another app sends to everyone on a pipeline (`reviews.events`):
    only those, and this module's `Outbound`, go through `publish_to_pipeline`. Each has a
    `type` literal of its own; the browser's types come from that app's union."""


Broadcast = Outbound | PipelineGroupMessage
"""What may be sent to a pipeline's group."""


def pipeline_group(pipeline_id: int) -> str:
    return f"{redis_namespace()}.pipeline.{pipeline_id}"


GROUP_EVENT = "pipeline.message"
"""The channel-layer event type consumers handle (`PipelineConsumer.pipeline_message`)."""


def encode(message: Broadcast) -> str:
    return message.model_dump_json(exclude_none=False)


async def publish_to_pipeline_async(pipeline_id: int, message: Broadcast) -> None:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("CHANNEL_LAYERS is not configured")
    event: dict[str, Any] = {"type": GROUP_EVENT, "text": encode(message)}
    if isinstance(message, EditApplied | DocumentReplaced):
        # Consumers note the revision their client is at (a later one in the database
        # means a message was lost on the way, and the client gets a snapshot).
        event["revision"] = message.revision
    if isinstance(message, EditApplied) and compact_delta(message.planDelta):
        event["compact"] = True  # a snapshot instead for clients that cannot apply it
    await layer.group_send(pipeline_group(pipeline_id), event)


def publish_to_pipeline(pipeline_id: int, message: Broadcast) -> None:
    """Send `message` to every client of the pipeline (from synchronous code)."""
    async_to_sync(publish_to_pipeline_async)(pipeline_id, message)


def publish_after_commit(pipeline_id: int, message: Broadcast) -> None:
    """Send `message` to every client of the pipeline once this transaction commits.

    Best effort: with Redis away the message is lost, never the write it tells of; each
    consumer notices its client is behind the stored revision and sends it a snapshot.
    """
    transaction.on_commit(lambda: publish_to_pipeline(pipeline_id, message), robust=True)


# REST: the rescale simulator (`GET /api/pipelines/<id>/rescale/`) --------------------------

HexId = Annotated[str, Field(pattern="^[0-9a-f]{32}$")]
"""A JobVertexID as Flink prints it."""
KeyGroupRange = tuple[int, int]
"""Key groups `[first, last]`, both included."""


class BeforeAfter(WireMessage):
    before: int
    after: int


class BeforeMaybeAfter(WireMessage):
    before: int
    after: int | None
    """Null when the rescaled job does not compile."""


class KeyGroupRead(WireMessage):
    """Key groups a new subtask restores from the state of an old one."""

    subtask: int
    """The old subtask's index."""
    keyGroups: KeyGroupRange


class RescaledSubtask(WireMessage):
    index: int
    keyGroups: KeyGroupRange
    reads: list[KeyGroupRead]
    """In key-group order: the first 16 old subtasks it reads from."""
    readsFrom: int
    """How many old subtasks it reads from, listed or not."""
    kept: int
    """Key groups the old subtask of the same index held: state that stays local."""
    keptFraction: float
    """`kept` over the subtask's key groups (each key group counted as the same size)."""


class RescaleKept(WireMessage):
    """The least and most share of its key groups a new subtask keeps, over all of them."""

    least: float
    most: float


class RescaleMaxParallelism(WireMessage):
    keyGroups: int
    """The max parallelism the state was written with."""
    explicit: bool
    """Set on an operator or the job; false: derived by Flink from the parallelism."""
    derivedAfter: int | None
    """What Flink would derive at the new parallelism; null when it is set."""
    after: int | None
    """What the rescaled job runs with, restored; null when it cannot restore."""


class RescaleVertexRef(WireMessage):
    id: HexId
    name: str


class RescaledVertex(WireMessage):
    """One JobVertex of the version, before and after the rescale."""

    id: HexId
    name: str
    head: int
    nodes: list[int]
    keyed: bool
    """Behind a keyBy: it holds keyed state."""
    followsDefault: bool
    """Its parallelism is the job's default (what a whole-job rescale changes)."""
    changed: bool
    parallelism: BeforeAfter
    maxParallelism: RescaleMaxParallelism
    restores: bool
    """Its state can be restored at the new parallelism."""
    movedKeyGroups: int | None
    """Key groups that change subtask, over all subtasks; null when it cannot restore."""
    keptFraction: RescaleKept | None
    """Null when it cannot restore."""
    subtasksShown: int
    """`before` and `after` describe the first this many subtasks of each side."""
    before: list[KeyGroupRange]
    """Per old subtask, the first `subtasksShown`."""
    after: list[RescaledSubtask]
    """Per new subtask, the first `subtasksShown`; empty when it cannot restore."""
    afterVertices: list[RescaleVertexRef]
    """The vertices its operators run in after the rescale."""


class RescaleProblem(WireMessage):
    code: ProblemCode
    severity: ProblemSeverity
    message: str
    vertex: HexId | None
    node: int | None


class RescalePin(WireMessage):
    """What sets the max parallelism every derived vertex shown has now, as one step."""

    edits: Annotated[list[dict[str, Any]], ts_type("Edit[]")]
    message: str


class RescalePage(WireMessage):
    """Which vertices an answer describes, in topological order."""

    offset: int
    limit: int
    total: int
    """Vertices in the scope: the one chosen, or every vertex of the job."""


class RescaleProblemCounts(WireMessage):
    """Problems over every vertex of the scope, listed or not."""

    error: int
    warning: int
    info: int


class RescaleChoice(WireMessage):
    """A JobVertex of the version that may be rescaled."""

    id: HexId
    name: str
    parallelism: int
    maxParallelism: int
    maxParallelismExplicit: bool


class RescaleSimulation(WireMessage):
    """`GET /api/pipelines/<id>/rescale/`: a vertex or the whole job restarted from a
    savepoint at another parallelism (`compiler.rescale`)."""

    pipeline: int
    version: int | None
    """Null: the working copy."""
    revision: int | None
    """The working copy's revision simulated; null for a version."""
    scope: Scope
    vertex: HexId | None
    parallelism: int
    defaultParallelism: BeforeAfter
    ok: bool
    """The rescaled job compiles."""
    restores: bool
    """Every vertex's state restores at its new parallelism, under the same ids."""
    slots: BeforeMaybeAfter
    subtasks: BeforeMaybeAfter
    page: RescalePage
    vertices: list[RescaledVertex]
    """The vertex chosen, or the job's vertices of the page, in topological order."""
    problems: list[RescaleProblem]
    """The whole job's and the page's vertices' problems, then other vertices' errors:
    at most 200 (`problemCounts` counts them all)."""
    problemCounts: RescaleProblemCounts
    pin: RescalePin | None
    """Null when every vertex shown sets its max parallelism."""
    choices: list[RescaleChoice]
    """Every vertex of the version, in topological order."""


# The version diff's state verdict (`GET /api/pipelines/<id>/diff/`, its `savepoint`) ---


class RestoreFailure(WireMessage):
    code: FailureCode
    operatorId: HexId
    """The ID Flink names: the operator's, or for `parallelism-above-max` the vertex's."""
    message: str
    """Flink's own words."""


class RestoreWarning(WireMessage):
    code: WarningCode
    message: str
    operatorId: HexId | None
    node: int | None


class OperatorStateVerdict(WireMessage):
    """What becomes of one stateful operator's state (`compiler.state.verdict`)."""

    node: int | None
    """Where the diff draws it: the operator that restores it, else the one that wrote it;
    for `new`, the operator of the newer version."""
    name: str
    operator: str
    oldOperatorId: HexId | None
    """The ID its state is saved under; null for `new`."""
    newOperatorId: HexId | None
    verdict: OperatorVerdict
    hasState: bool | None
    """Null: its state may be empty, which only the running job tells."""
    causes: list[str]


class StateSummary(WireMessage):
    kept: int
    lost: int
    refused: int
    new: int


class StateVerdict(WireMessage):
    """Would a savepoint of the older version restore into the newer one? The restore check
    of the newer version against the savepoint the older one would write."""

    basis: Literal["predicted"]
    restores: bool
    """Flink starts the newer version from it."""
    restoresAllowingNonRestoredState: bool
    verdict: str
    """The answer in one sentence, in the restore check's words."""
    failure: RestoreFailure | None
    warnings: list[RestoreWarning]
    summary: StateSummary
    operators: list[OperatorStateVerdict]
    """Every stateful operator: the older version's in its savepoint's order, then the
    newer version's that start empty."""
