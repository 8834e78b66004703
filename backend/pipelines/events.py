"""Every message of the co-editing websocket protocol, and the one publisher.

Inbound messages (client -> server) and outbound ones (server -> client) are
typed models that reject unknown fields; `docs/COEDITING.md` documents them. They are
the one source of these shapes: the browser's types (`frontend/src/api/generated/`)
are generated from their JSON Schema by `make wire`. Only `publish_to_pipeline` (for writes,
`publish_after_commit`) sends to a pipeline's group: it serialises a message once and
every consumer forwards the same text, so a broadcast costs one encoding, not one per
client. Apps built on pipelines (reviews) send their own messages to the same clients
through it too: those are declared on `PipelineGroupMessage`, in their app's `events.py`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from pydantic import Field, TypeAdapter

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


class EditRequest(WireMessage):
    type: Literal["edit"]
    opId: str = Field(min_length=1, max_length=100)
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
    role: str
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
