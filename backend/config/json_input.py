"""The one reader of JSON that comes from outside: REST bodies, websocket messages, imports.

Python's `json` accepts what the rest of the system cannot hold, so this refuses it first,
with the byte offset where it is:

- nesting deeper than `MAX_DEPTH` (the recursive parser itself, `copy.deepcopy`, the
  database adapters and the compiler all recurse: 1,000 levels in 2 KB would reach
  Python's recursion limit in one of them), checked before any recursive code sees it;
- `NaN`, `Infinity` and `-Infinity`, which are not JSON numbers, and numbers too large
  for a float (`1e999`): PostgreSQL refuses them in a document, and a browser's
  `JSON.parse` cannot read them back.

Size is bounded by whoever hands the text over (`DATA_UPLOAD_MAX_MEMORY_SIZE` for REST,
the websocket consumers' message limit, `compile_plan`'s file limit).
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any, Final

from config.errors import MalformedJson

MAX_DEPTH: Final = 64
"""Arrays and objects inside each other. A streamgraph/v1 document needs about 8 (a
collection source's records inside its `params`, inside a node, inside `nodes`)."""

_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRINGS = re.compile(_STRING, re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_BRACKET_OR_STRING = re.compile(rf"{_STRING}|[\[\]{{}}]", re.DOTALL)
_STRING_OR_TOKEN = re.compile(rf"{_STRING}|(-?Infinity|NaN|[-+0-9.eE]+)", re.DOTALL)
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class _NotANumber(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NotANumber(name)


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):  # 1e999 reads as infinity
        raise _NotANumber(text)
    return number


def read_json(data: str | bytes, *, what: str = "The request body") -> Any:
    """The JSON value in `data`; `MalformedJson` saying what is wrong and at which byte."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as error:
        raise MalformedJson(
            f"{what} is not UTF-8: byte offset {error.start} cannot be decoded."
        ) from error
    _check_depth(text, what)
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except _NotANumber as error:
        offset = _constant_offset(text, str(error))
        raise MalformedJson(
            f"{what} holds {error}, which is not a JSON number (byte offset {offset}); "
            "numbers must be finite."
        ) from error
    except json.JSONDecodeError as error:
        offset = _byte_offset(text, error.pos)
        raise MalformedJson(
            f"{what} is not valid JSON: {error.msg} at line {error.lineno} column "
            f"{error.colno} (byte offset {offset})."
        ) from error
    except (ValueError, RecursionError) as error:  # e.g. an integer of over 4,300 digits
        raise MalformedJson(f"{what} is not valid JSON: {error}.") from error


def _check_depth(text: str, what: str) -> None:
    # Cheap first: fewer openings than the limit cannot nest deeper than it.
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    if max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) <= MAX_DEPTH:
        return
    depth = 0
    for match in _BRACKET_OR_STRING.finditer(text):
        opening = text[match.start()]
        if opening in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                offset = _byte_offset(text, match.start())
                raise MalformedJson(
                    f"{what} nests arrays and objects deeper than {MAX_DEPTH} levels "
                    f"(byte offset {offset})."
                )
        elif opening in "]}":
            depth -= 1


def _constant_offset(text: str, token: str) -> int:
    """Where `token` (NaN, Infinity or a number too large for a float) first stands outside
    a string."""
    for match in _STRING_OR_TOKEN.finditer(text):
        if match.group(1) == token:
            return _byte_offset(text, match.start(1))
    return 0


def _byte_offset(text: str, position: int) -> int:
    return len(text[:position].encode("utf-8"))
