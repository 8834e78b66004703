"""Reading what a websocket client sends: bounded, then JSON, then the typed message.

Both sockets read every message through `read_inbound`: a message larger than
`WEBSOCKET_MAX_MESSAGE_BYTES` is refused unread (the ASGI server closes the connection only
far above that, so the client hears why), the text goes through `config.json_input` (depth,
finite numbers), and the value through the socket's pydantic models. Each refusal is an
`ApplicationError` the consumer sends back in the one error shape, with the socket open
(a consumer that can tell which request a refused message was answers that request).
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.conf import settings
from pydantic import TypeAdapter, ValidationError

from config.errors import ApplicationError, MalformedJson
from config.json_input import UnstorableText, read_json

T = TypeVar("T")


class InvalidMessage(ApplicationError):
    """A message refused; `value` is what it parsed to, if it was JSON a consumer can read
    (to answer the request it was, as an edit's `opId`), else None."""

    code = "invalid-message"

    def __init__(self, message: str, *, value: Any = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.value = value


def read_inbound(data: str | bytes | None, adapter: TypeAdapter[T]) -> T:
    """The message in `data`; `InvalidMessage` (`invalid-message`, or `message-too-large`)
    saying what is wrong and where."""
    raw = b"" if data is None else data
    limit: int = settings.WEBSOCKET_MAX_MESSAGE_BYTES
    # A character is at least one byte and at most four: encode only when it can matter.
    size = len(raw)
    if isinstance(raw, str) and size <= limit < 4 * size:
        size = len(raw.encode("utf-8"))
    if size > limit:
        raise InvalidMessage(
            f"The message is {size:,} bytes; at most {limit:,} bytes are read.",
            code="message-too-large",
        )
    try:
        value = read_json(raw, what="The message")
    except UnstorableText as error:
        raise InvalidMessage(error.message, fields=error.fields, value=error.value) from error
    except MalformedJson as error:
        raise InvalidMessage(error.message) from error
    try:
        return adapter.validate_python(value)
    except ValidationError as error:
        raise _invalid(error, value) from error


def _invalid(error: ValidationError, value: Any) -> InvalidMessage:
    fields: dict[str, list[str]] = {}
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"]) or "message"
        fields.setdefault(where, []).append(str(problem["msg"]))
    where, messages = next(iter(fields.items()), ("message", ["invalid message"]))
    return InvalidMessage(f"{where}: {messages[0]}", fields=fields, value=value)
