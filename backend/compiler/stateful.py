"""Which operators keep state in a savepoint.

`STATEFUL_KINDS` is the one list of operator kinds (matched as prefixes of a node's
`operator`) whose state Flink writes into a savepoint: source positions, keyed state and
timers, window contents, broadcast and operator state, sink writer and committer state.
The savepoint verdicts of `compiler.diff` and the state-loss check of
`compiler.statecheck` read it through `is_stateful`.
"""

from __future__ import annotations

from typing import Any

STATEFUL_KINDS: tuple[tuple[str, str], ...] = (
    ("source", "source state"),
    ("reduce", "keyed state"),
    ("sum", "keyed state"),
    ("min", "keyed state"),
    ("max", "keyed state"),
    ("count", "keyed state"),
    ("aggregate", "keyed state"),
    ("window", "window state"),
    ("keyed_process", "keyed state"),
    ("keyed_co_process", "keyed state"),
    ("broadcast_process", "broadcast state"),
    ("co_process", "operator state"),
    ("process", "operator state"),
    ("sink.writer", "sink writer state"),
    ("sink.committer", "sink committer state"),
    ("sink.file", "sink writer state"),
    ("timestamps.watermarks", "operator state"),
)
"""Operator kind prefixes that keep state in a savepoint, each with the state it keeps,
in words (`window` covers `window.*` and `window_all.*`)."""


def kept_state(operator: object) -> str | None:
    """The state an operator kind keeps, in words; None for a kind that keeps none."""
    if not isinstance(operator, str):
        return None
    return next((what for prefix, what in STATEFUL_KINDS if operator.startswith(prefix)), None)


def is_stateful(node: dict[str, Any]) -> bool:
    """Whether a document node has state worth comparing across versions: its kind keeps
    state, or it has a uid or uidHash (users set them on the operators whose state they
    care about)."""
    return (
        kept_state(node.get("operator", "")) is not None
        or bool(node.get("uid"))
        or bool(node.get("uidHash"))
    )
