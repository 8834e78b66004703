"""The inbox websocket, `ws/inbox/`: a nudge whenever what waits for the signed-in user may
have changed (`reviews.inbox`), so the home page's inbox is read again at once instead of on
a timer. It carries no content: the browser reads the inbox over REST, which checks access
as every read does. As a `MemberSocket` it follows its user's credential (closed when they
sign out) and their workspaces (a membership added, changed or removed is a nudge too).
Close codes (`accounts.sockets`): 4401 not signed in, 4403 a page of another origin.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from accounts.sockets import MemberSocket
from config.errors import ApplicationError
from config.socket_input import read_inbound
from reviews.events import INBOX_INBOUND, InboxChanged
from reviews.inbox import inbox_group, inbox_scope

_CHANGED = InboxChanged().model_dump_json()


class InboxConsumer(MemberSocket[frozenset[tuple[int, str]]]):
    joined_inbox: bool = False

    async def load_access(self) -> frozenset[tuple[int, str]]:
        # Everyone signed in has an inbox, in no workspace or many.
        return await database_sync_to_async(inbox_scope)(user_id=self.user.pk)

    async def joined(self) -> None:
        group = inbox_group(self.user.pk)
        await self.best_effort(
            "joining the inbox's group", self.channel_layer.group_add(group, self.channel_name)
        )
        self.joined_inbox = True
        await self.send(text_data=_CHANGED)

    async def left(self) -> None:
        if self.joined_inbox:
            await self.best_effort(
                "leaving the inbox's group",
                self.channel_layer.group_discard(inbox_group(self.user.pk), self.channel_name),
            )

    async def access_updated(self, previous: frozenset[tuple[int, str]]) -> None:
        await self.send(text_data=_CHANGED)

    async def inbox_changed(self, event: dict[str, Any]) -> None:
        """Group message: something that waits for this user changed."""
        if not self.closed:
            await self.send(text_data=_CHANGED)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.joined_inbox or self.closed:
            return
        try:
            read_inbound(text_data if text_data is not None else bytes_data, INBOX_INBOUND)
        except ApplicationError:
            return  # nothing to answer but a nudge, and a bad message earns none
        # The only request: resync.
        if await self.recheck_access():
            await self.send(text_data=_CHANGED)
