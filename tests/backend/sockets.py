"""Opening a websocket through Channels' communicator as a browser sees it.

The server accepts every socket and closes the ones it refuses with a close code, so a
browser can read why (4401, 4403, 4404); `open_socket` tells the two apart by the first
thing the server sends, and leaves it in place for the caller when it is not a close."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections

TIMEOUT = 5


async def open_socket(communicator: WebsocketCommunicator) -> tuple[bool, int | None]:
    """(True, None) if the socket stays open; (False, close code) if it is refused."""
    connected, code = await communicator.connect(timeout=TIMEOUT)
    if not connected:
        return False, code
    first = await communicator.receive_output(timeout=TIMEOUT)
    if first["type"] == "websocket.close":
        return False, first.get("code")
    # Put it back at the front, ahead of anything that came after it.
    queue = communicator.output_queue
    rest = [queue.get_nowait() for _ in range(queue.qsize())]
    for output in (first, *rest):
        queue.put_nowait(output)
    return True, None


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    """Run a test's async scenario, then close the database connections its consumers
    opened from the thread Channels runs sync code in."""

    async def main() -> None:
        try:
            await scenario()
        finally:
            await database_sync_to_async(connections.close_all)()

    asyncio.run(main())
