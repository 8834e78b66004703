"""The run monitor websocket, `ws/runs/<id>/`: authenticate, snapshot, then every change.

The consumer joins the run's group *before* it reads the snapshot, so every journal entry
committed after the snapshot reaches it; it forwards an entry only if its `seq` is the
next one. An older entry (already in the snapshot) is dropped; a newer one means an entry
was missed (published before the subscription took effect), and the missed entries are
read from the journal first. While the run is active, the consumer also catches up from
the journal every `RUN_HEARTBEAT_SECONDS` (an entry published while Redis was away), and
once the run's worker stopped beating it sends the run as the reaper will leave it
(`runs.selectors.run_progress`), writing nothing. As a `MemberSocket` it
follows the user's access while open: removed from the workspace or signed out, the
socket closes. Close codes (`accounts.sockets`): 4401 not signed in, 4403 a page of
another origin, 4404 no such run for this user.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings

from accounts.sockets import CLOSE_NOT_FOUND, MemberSocket
from config.errors import ApplicationError
from config.messages import ErrorBody
from config.socket_input import read_inbound
from pipelines.rates import resync_allowed, too_many_resyncs_message
from runs.events import (
    INBOUND,
    Outbound,
    RunDetail,
    RunErrorMessage,
    RunSnapshot,
    encode,
    run_group,
    run_update,
)
from runs.selectors import (
    RunAccess,
    RunProgress,
    run_access,
    run_detail,
    run_entries,
    run_progress,
)

FIRST_CATCH_UP_SECONDS = 0.5


class RunConsumer(MemberSocket[RunAccess]):
    group: str
    seq: int = -1
    """The last journal entry this client has (-1: no snapshot yet)."""
    joined_run: bool = False
    _lock: asyncio.Lock
    _watch: asyncio.Task[None] | None = None

    @property
    def run_id(self) -> int:
        return int(self.scope["url_route"]["kwargs"]["run_id"])

    async def load_access(self) -> RunAccess | None:
        return await database_sync_to_async(run_access)(user=self.user, run_id=self.run_id)

    async def joined(self) -> None:
        self._lock = asyncio.Lock()
        self.group = run_group(self.access.key)
        # Without Redis the socket still works: the watch below catches up from the journal.
        await self.best_effort(
            "joining the run's group", self.channel_layer.group_add(self.group, self.channel_name)
        )
        self.joined_run = True
        if await self.send_snapshot():
            self._watch = asyncio.create_task(self._watch_run())

    async def left(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        if self.joined_run:
            await self.best_effort(
                "leaving the run's group",
                self.channel_layer.group_discard(self.group, self.channel_name),
            )

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.joined_run or self.closed:
            return
        try:
            read_inbound(text_data if text_data is not None else bytes_data, INBOUND)
        except ApplicationError as error:
            await self.send_message(RunErrorMessage(error=ErrorBody.of(error)))
            return
        # The only request: resync, a read of what the user may still read, so often.
        if not await resync_allowed(user_id=self.user.pk):
            refused = ErrorBody(code="too-many-resyncs", message=too_many_resyncs_message())
            await self.send_message(RunErrorMessage(error=refused))
        elif await self.recheck_access():
            await self.send_snapshot()

    async def send_snapshot(self) -> bool:
        async with self._lock:
            detail = await database_sync_to_async(run_detail)(run_id=self.run_id)
            if detail is None:
                await self.close_with(CLOSE_NOT_FOUND)
                return False
            self.seq = detail["seq"]
            await self.send_message(RunSnapshot(seq=self.seq, run=RunDetail(**detail)))
        return True

    async def run_message(self, event: dict[str, Any]) -> None:
        """A journal entry published to the run's group: forward it if it is the next."""
        seq = event["seq"]
        async with self._lock:
            if self.closed or seq <= self.seq:
                return
            if seq > self.seq + 1:
                await self._catch_up(until=seq - 1)
            await self.send(text_data=event["text"])
            self.seq = seq

    async def send_message(self, message: Outbound) -> None:
        if not self.closed:
            await self.send(text_data=encode(message))

    async def _catch_up(self, until: int | None = None) -> None:
        """Send the stored entries after the last one sent (the caller holds the lock)."""
        entries = await database_sync_to_async(run_entries)(
            run_id=self.run_id, after=self.seq, until=until
        )
        for seq, changes in entries:
            await self.send_message(run_update(seq, changes))
            self.seq = seq

    async def _watch_run(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(FIRST_CATCH_UP_SECONDS)
            while not self.closed:
                async with self._lock:
                    await self._catch_up()
                progress = await database_sync_to_async(run_progress)(run_id=self.run_id)
                if progress is None or progress.status.is_terminal:
                    async with self._lock:
                        await self._catch_up()
                        if progress is not None:
                            await self._send_loss(progress)
                    return
                await asyncio.sleep(settings.RUN_HEARTBEAT_SECONDS)

    async def _send_loss(self, progress: RunProgress) -> None:
        """Send the entry the reaper will store for a run whose worker was lost, unless an
        entry was stored since (the reaper's own, sent by the catch-up)."""
        if progress.loss is not None and self.seq == progress.seq:
            await self.send_message(run_update(progress.seq + 1, progress.loss))
            self.seq = progress.seq + 1
