"""The one reader of JSON that comes from outside: REST bodies, websocket messages, imports.

Python's `json` accepts what the rest of the system cannot hold, so this refuses it first,
with the byte offset where it is:

- nesting deeper than `MAX_DEPTH` (the recursive parser itself, `copy.deepcopy`, the
  database adapters and the compiler all recurse: 1,000 levels in 2 KB would reach
  Python's recursion limit in one of them), checked before any recursive code sees it;
- `NaN`, `Infinity` and `-Infinity`, which are not JSON numbers, and numbers too large
  for a float (`1e999`): PostgreSQL refuses them in a document, and a browser's
  `JSON.parse` cannot read them back;
- strings (values or keys) holding a character no database here stores: an unpaired
  surrogate (`"\ud800"`, which is no character at all; a browser makes one when it cuts
  an emoji in two) or NUL (`"\u0000"`, which PostgreSQL's text and JSON refuse), named by
  their path in the value.

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
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class _NotANumber(ValueError):
    pass


class UnstorableText(MalformedJson):
    """Valid JSON holding text no database stores; `value` is what it parsed to, so a
    socket can still say which request it refuses."""

    def __init__(self, message: str, *, fields: dict[str, list[str]], value: Any) -> None:
        super().__init__(message, fields=fields)
        self.value = value


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
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
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
    # Only an escape can put NUL or a lone surrogate in bytes: a raw NUL is not valid JSON
    # (a control character), a raw surrogate not valid UTF-8. Text handed over as `str` may
    # hold a raw surrogate, which a scan finds.
    raw_surrogate = isinstance(data, str) and _UNSTORABLE.search(text) is not None
    if "\\u" in text or raw_surrogate:
        problem = _unstorable(value, what)
        if problem is not None:
            message, fields = problem
            raise UnstorableText(message, fields=fields, value=value)
    return value


def _unstorable(value: Any, what: str) -> tuple[str, dict[str, list[str]]] | None:
    """What is wrong with the first string, value or key, that holds a character no
    database stores, and the field it is in; None when there is none."""
    pending: list[tuple[Any, str]] = [(value, "")]
    while pending:
        item, path = pending.pop()
        if isinstance(item, str):
            if (problem := _string_problem(item, path, what, key=False)) is not None:
                return problem
        elif isinstance(item, dict):
            for key, inner in reversed(item.items()):
                inner_path = f"{path}.{_shown(key)}" if path else _shown(key)
                if (problem := _string_problem(key, inner_path, what, key=True)) is not None:
                    return problem
                pending.append((inner, inner_path))
        elif isinstance(item, list):
            pending.extend((inner, f"{path}[{i}]") for i, inner in reversed(list(enumerate(item))))
    return None


def storable(text: str) -> bool:
    """Whether every database here stores `text` (and it can be sent back as JSON)."""
    return _UNSTORABLE.search(text) is None


def _shown(text: str) -> str:
    """`text` with the characters that cannot be stored (or sent back) as escapes."""
    return _UNSTORABLE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _string_problem(
    text: str, path: str, what: str, *, key: bool
) -> tuple[str, dict[str, list[str]]] | None:
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    character = ord(found.group())
    name = (
        "NUL (U+0000)"
        if character == 0
        else f"an unpaired surrogate (U+{character:04X}, half of a character)"
    )
    where = path or "the top level"
    role = "key" if key else "string"
    message = (
        f"{what} holds {name} in the {role} at {where}, character {found.start()}; it cannot "
        "be stored. Send text as whole characters, without NUL."
    )
    return message, {path or "body": [f"Holds {name}."]}


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
