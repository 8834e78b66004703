"""The co-editing websocket, `ws/pipelines/<id>/`: authenticate, join, validate, forward.

The consumer holds no business logic: edits go to `pipelines.editing` (which checks the
role under the pipeline's row lock), presence to `pipelines.presence`, and everything
pipeline-wide is published by `pipelines.events`. As a `MemberSocket` it follows the
user's access while open: a demoted editor's socket turns read-only and is told so
(`access_changed`); a removed or signed-out user's is closed. Close codes
(`accounts.sockets`): 4401 not signed in, 4403 a page of another origin, 4404 no such
pipeline for this user (also when it is in a workspace the user is not, or no longer, in).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async

from accounts.sockets import CLOSE_NOT_FOUND, MemberSocket
from config.errors import ApplicationError
from config.json_input import storable
from config.messages import ErrorBody
from config.socket_input import InvalidMessage, read_inbound
from pipelines import presence
from pipelines.access import PipelineAccess, pipeline_access
from pipelines.editing import pipeline_apply_edit, pipeline_cached_model, pipeline_live_model
from pipelines.events import (
    INBOUND,
    OP_ID_MAX,
    AccessChanged,
    EditRejected,
    EditRequest,
    ErrorMessage,
    Outbound,
    PresenceChanged,
    PresenceEntry,
    PresenceLeft,
    PresenceRequest,
    Snapshot,
    UserRef,
    encode,
    pipeline_group,
    publish_to_pipeline_async,
)
from pipelines.rates import resync_allowed, too_many_resyncs_message

COMPACT_DELTAS = "2"
"""`?deltas=` of a client that applies plan deltas with `rename` and `xor`."""

SYNC_SECONDS = 1.0
"""How often a socket compares its client's revision with the stored one."""


class PipelineConsumer(MemberSocket[PipelineAccess]):
    entry: PresenceEntry | None = None
    revision: int = -1
    """The revision this socket's client has: its snapshot's, then every edit forwarded."""
    _heartbeat: asyncio.Task[None] | None = None
    _in_step: asyncio.Task[None] | None = None

    @property
    def pipeline_id(self) -> int:
        return int(self.scope["url_route"]["kwargs"]["pipeline_id"])

    async def load_access(self) -> PipelineAccess | None:
        return await database_sync_to_async(pipeline_access)(
            user=self.user, pipeline_id=self.pipeline_id
        )

    async def joined(self) -> None:
        self.entry = PresenceEntry(
            clientId=uuid.uuid4().hex,
            user=UserRef(id=self.user.pk, username=self.user.get_username()),
            role=self.access.role,
        )
        await self.best_effort(
            "joining the pipeline's group",
            self.channel_layer.group_add(pipeline_group(self.pipeline_id), self.channel_name),
        )
        await self.announce_presence()
        await self.send_snapshot()
        self._heartbeat = asyncio.create_task(self._refresh_presence())
        self._in_step = asyncio.create_task(self._keep_in_step())

    async def access_updated(self, previous: PipelineAccess) -> None:
        """A role went up or down: the client (read-only or not) and everyone's presence."""
        if self.entry is None:
            return
        self.entry = self.entry.model_copy(update={"role": self.access.role})
        await self.announce_presence()
        await self.send_message(AccessChanged(you=self.entry, canEdit=self.access.can_edit))

    async def left(self) -> None:
        for task in (self._heartbeat, self._in_step):
            if task is not None:
                task.cancel()
        await self.best_effort(
            "leaving the pipeline's group",
            self.channel_layer.group_discard(pipeline_group(self.pipeline_id), self.channel_name),
        )
        if self.entry is not None:
            client_id = self.entry.clientId
            await self.best_effort(
                "removing presence",
                presence.presence_remove(pipeline_id=self.pipeline_id, client_id=client_id),
            )
            await self.best_effort(
                "announcing a departure",
                publish_to_pipeline_async(self.pipeline_id, PresenceLeft(clientId=client_id)),
            )

    async def announce_presence(self) -> None:
        """Store this connection's presence entry and tell everyone (best effort)."""
        assert self.entry is not None
        await self.best_effort(
            "storing presence",
            presence.presence_put(pipeline_id=self.pipeline_id, entry=self.entry),
        )
        await self.best_effort(
            "announcing presence",
            publish_to_pipeline_async(self.pipeline_id, PresenceChanged(client=self.entry)),
        )

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.entry is None or self.closed:
            return
        try:
            message = read_inbound(text_data if text_data is not None else bytes_data, INBOUND)
        except InvalidMessage as error:
            await self.refuse(error)
            return
        except ApplicationError as error:
            await self.send_message(ErrorMessage(error=ErrorBody.of(error)))
            return
        if isinstance(message, EditRequest):
            await self.handle_edit(message)
        elif isinstance(message, PresenceRequest):
            self.entry = self.entry.model_copy(
                update={"selection": message.selection, "cursor": message.cursor}
            )
            await self.announce_presence()
        elif not await resync_allowed(user_id=self.user.pk):
            refused = ErrorBody(code="too-many-resyncs", message=too_many_resyncs_message())
            await self.send_message(ErrorMessage(error=refused))
        elif await self.recheck_access():  # a snapshot is a read: of what they may still read
            await self.send_snapshot()

    async def refuse(self, error: InvalidMessage) -> None:
        """Answer a message that cannot be read: an edit (its `opId` readable) as a rejected
        edit, so the client takes it back and says why; anything else as an error."""
        value = error.value
        op_id = (
            value.get("opId") if isinstance(value, dict) and value.get("type") == "edit" else None
        )
        if not isinstance(op_id, str) or not 0 < len(op_id) <= OP_ID_MAX or not storable(op_id):
            await self.send_message(ErrorMessage(error=ErrorBody.of(error)))
            return
        revision = await database_sync_to_async(_stored_revision)(self.pipeline_id)
        rejected = EditRejected(
            opId=op_id, reason="invalid", revision=revision or 0, error=ErrorBody.of(error)
        )
        await self.send_message(rejected)

    async def handle_edit(self, request: EditRequest) -> None:
        assert self.entry is not None
        if not self.access.can_edit:  # a courtesy: the service checks the role itself
            await self.send_message(
                EditRejected(
                    opId=request.opId,
                    reason="forbidden",
                    revision=request.baseRevision,
                    error=ErrorBody(
                        code="permission-denied",
                        message="viewers cannot edit; ask an owner for the editor role",
                    ),
                )
            )
            return
        outcome = await database_sync_to_async(pipeline_apply_edit)(
            pipeline_id=self.pipeline_id,
            user=self.user,
            base_revision=request.baseRevision,
            edit=request.edit,
            op_id=request.opId,
            client_id=self.entry.clientId,
        )
        if outcome.applied is None:
            assert outcome.reason is not None and outcome.error is not None
            await self.send_message(
                EditRejected(
                    opId=request.opId,
                    reason=outcome.reason,
                    revision=outcome.revision,
                    error=outcome.error,
                )
            )
            if outcome.reason == "forbidden":
                await self.recheck_access()  # the role changed: tell the client, or close
        # An applied edit reaches this client through the group, like everyone else.

    async def send_snapshot(self) -> None:
        assert self.entry is not None
        snapshot = await database_sync_to_async(_snapshot_data)(self.pipeline_id)
        if snapshot is None:
            await self.close_with(CLOSE_NOT_FOUND)
            return
        revision, document, plan = snapshot
        others = await self.best_effort(
            "reading presence", presence.presence_list(pipeline_id=self.pipeline_id)
        )
        self.revision = revision
        await self.send_message(
            Snapshot(
                pipeline=self.pipeline_id,
                revision=revision,
                document=document,
                plan=plan,
                presence=others if others is not None else [self.entry],
                you=self.entry,
            )
        )

    @property
    def compact_deltas(self) -> bool:
        """Whether the client applies plan deltas with `rename` and `xor` (it says so in
        its socket's address, `?deltas=2`; a page loaded before them does not)."""
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        return query.get("deltas") == [COMPACT_DELTAS]

    async def pipeline_message(self, event: dict[str, Any]) -> None:
        """A message published to the pipeline's group: forward its text as is, or a
        snapshot to a client that could not apply its plan delta."""
        if self.closed:
            return
        if event.get("compact") and not self.compact_deltas:
            await self.send_snapshot()
            return
        await self.send(text_data=event["text"])
        self.revision = max(self.revision, event.get("revision", self.revision))

    async def send_message(self, message: Outbound) -> None:
        if not self.closed:
            await self.send(text_data=encode(message))

    async def _refresh_presence(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            while True:
                await asyncio.sleep(presence.HEARTBEAT_SECONDS)
                if self.entry is not None:
                    await self.best_effort(
                        "refreshing presence",
                        presence.presence_put(pipeline_id=self.pipeline_id, entry=self.entry),
                    )

    async def _keep_in_step(self) -> None:
        """Send the client a snapshot when a revision stored in the database has not
        reached it for longer than a message takes: a broadcast was lost (Redis was away),
        and this client would otherwise never hear of a change committed there."""
        lag = Lag()
        with contextlib.suppress(asyncio.CancelledError):
            while not self.closed:
                await asyncio.sleep(SYNC_SECONDS)
                stored = await database_sync_to_async(_stored_revision)(self.pipeline_id)
                if stored is None:
                    await self.close_with(CLOSE_NOT_FOUND)
                    return
                if lag.lost(stored=stored, delivered=self.revision, now=time.monotonic()):
                    # The others may have lost this connection's presence with Redis too.
                    await self.announce_presence()
                    await self.send_snapshot()


@dataclass(slots=True)
class Lag:
    """Whether a client missed a broadcast: a revision it was behind at one check and has
    still not reached `SYNC_SECONDS` later. Being behind at every check is no sign of it:
    while edits stream in, the stored revision is usually one ahead of what has reached the
    client, a newer one each time (sending a snapshot then cost a large pipeline's
    co-editors tens of milliseconds on every edit in flight)."""

    since: float | None = None
    awaited: int = 0
    """The stored revision when the client was first seen behind."""

    def lost(self, *, stored: int, delivered: int, now: float) -> bool:
        if stored <= delivered:
            self.since = None
        elif self.since is None or delivered >= self.awaited:
            self.since, self.awaited = now, stored  # a new gap, or the last one closed
        elif now - self.since >= SYNC_SECONDS:
            self.since = None
            return True
        return False


def _stored_revision(pipeline_id: int) -> int | None:
    from pipelines.models import Pipeline

    return Pipeline.objects.filter(pk=pipeline_id).values_list("revision", flat=True).first()


def _snapshot_data(pipeline_id: int) -> tuple[int, dict[str, Any], dict[str, Any]] | None:
    from pipelines.models import Pipeline

    revision = _stored_revision(pipeline_id)
    if revision is None:
        return None
    model = pipeline_cached_model(pipeline_id=pipeline_id, revision=revision)
    if model is None:
        # Snapshot, its revision and the current one read together: one consistent row.
        pipeline = Pipeline.objects.filter(pk=pipeline_id).first()
        if pipeline is None:
            return None
        revision = pipeline.revision
        model = pipeline_live_model(pipeline_id=pipeline_id, revision=revision, pipeline=pipeline)
    return revision, model.document, model.plan
