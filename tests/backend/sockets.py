"""Opening a websocket through Channels' communicator as a browser sees it.

The server accepts every socket and closes the ones it refuses with a close code, so a
browser can read why (4401, 4403, 4404); `open_socket` tells the two apart by the first
thing the server sends, and leaves it in place for the caller when it is not a close."""

from __future__ import annotations

from channels.testing import WebsocketCommunicator

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
