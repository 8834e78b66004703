"""Cursors of paginated lists: opaque text a list answers as `next` and takes back as
`cursor`. Lists ordered by time page by key (keyset), never by offset, so a page does not
shift when something new arrives; the cursor is the key of the last item served."""

from __future__ import annotations

import re
from typing import Final

from config.converters import MAX_ID
from config.errors import InvalidRequest

CURSOR_PATTERN: Final = "^[A-Za-z0-9_=-]{1,200}$"
"""What any cursor looks like (base64url), as the schema says it."""
DEFAULT_LIMIT: Final = 50
MAX_LIMIT: Final = 200
_ID = re.compile(r"^[0-9]{1,19}$")


def bad_cursor() -> InvalidRequest:
    return InvalidRequest(
        "cursor: not a cursor this list gave; start again without one.",
        code="invalid-cursor",
        fields={"cursor": ["Not a cursor this list gave; start again without one."]},
    )


def id_cursor(value: int) -> str:
    """The cursor after an item of a list ordered by id, newest first."""
    return str(value)


def read_id_cursor(text: str | None) -> int | None:
    """The id a cursor of `id_cursor` names; None without one; a 400 for anything else."""
    if text is None:
        return None
    if not _ID.match(text) or int(text) > MAX_ID:
        raise bad_cursor()
    return int(text)
