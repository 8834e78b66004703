"""Which operators keep state in a savepoint, and a warning for those whose ID can drift.

`STATEFUL_KINDS` is the one list of operator kinds (matched as prefixes of a node's
`operator`) whose state Flink writes into a savepoint: source positions, keyed state and
timers, window contents, broadcast and operator state, sink writer and committer state.
A version's predicted savepoint (`compiler.state.predicted`) reads the kinds of state each
keeps (`state_kinds`), and so every state verdict; `unpinned_state_warnings` reads it to
warn about stateful operators without a `uid` or `uidHash`.

Flink restores state by OperatorID. Without a uid, the ID is derived from the graph
around the operator (its position, its chainable outputs, its inputs' IDs), so an
unrelated change upstream gives it a new one and its state in a savepoint no longer
maps. The warnings are kept out of `compile_document`: they are the studio's advice,
not something Flink reports, and they never make a document invalid.
"""

from __future__ import annotations

from typing import Any

from compiler.diagnostics import Diagnostic, Location, Severity
from compiler.state.savepoint import StateKind

STATE_CODE = "state.no-uid"
"""The code of the warning for a stateful operator without a uid or uidHash."""

_SOURCE = (StateKind.OPERATOR_LIST, StateKind.COORDINATOR)
_KEYED = (StateKind.KEYED_MANAGED,)
_OPERATOR = (StateKind.OPERATOR_LIST,)

STATEFUL_KINDS: tuple[tuple[str, str, tuple[StateKind, ...]], ...] = (
    ("source", "source state", _SOURCE),
    ("reduce", "keyed state", _KEYED),
    ("sum", "keyed state", _KEYED),
    ("min", "keyed state", _KEYED),
    ("max", "keyed state", _KEYED),
    ("count", "keyed state", _KEYED),
    ("aggregate", "keyed state", _KEYED),
    ("window", "window state", _KEYED),
    ("keyed_process", "keyed state", _KEYED),
    ("keyed_co_process", "keyed state", _KEYED),
    ("broadcast_process", "broadcast state", (StateKind.OPERATOR_BROADCAST,)),
    ("co_process", "operator state", _OPERATOR),
    ("process", "operator state", _OPERATOR),
    ("sink.writer", "sink writer state", _OPERATOR),
    ("sink.committer", "sink committer state", _OPERATOR),
    ("sink.file", "sink writer state", _OPERATOR),
    ("timestamps.watermarks", "operator state", _OPERATOR),
)
"""Operator kind prefixes that keep state in a savepoint, each with the state it keeps, in
words and as the kinds of Flink's state handles it writes (`window` covers `window.*` and
`window_all.*`, whose contents Flink keys by a constant when the stream is not keyed; a
FLIP-27 source keeps its readers' splits as operator state and its enumerator's checkpoint
as coordinator state)."""


def _entry(operator: object) -> tuple[str, str, tuple[StateKind, ...]] | None:
    if not isinstance(operator, str):
        return None
    return next((entry for entry in STATEFUL_KINDS if operator.startswith(entry[0])), None)


def kept_state(operator: object) -> str | None:
    """The state an operator kind keeps, in words; None for a kind that keeps none."""
    entry = _entry(operator)
    return None if entry is None else entry[1]


def state_kinds(operator: object) -> tuple[StateKind, ...]:
    """The kinds of state an operator kind writes into a savepoint; () for none."""
    entry = _entry(operator)
    return () if entry is None else entry[2]


def is_stateful(node: dict[str, Any]) -> bool:
    """Whether a document node has state worth comparing across versions: its kind keeps
    state, or it has a uid or uidHash (users set them on the operators whose state they
    care about)."""
    return (
        kept_state(node.get("operator", "")) is not None
        or bool(node.get("uid"))
        or bool(node.get("uidHash"))
    )


def unpinned_state_warnings(document: object) -> list[Diagnostic]:
    """A warning (`state.no-uid`, on the field `uid`) for every node, in document order,
    whose kind keeps state and that has neither a uid nor a uidHash.

    Reads the document as given and never raises: what it cannot read is the compiler's
    to report.
    """
    if not isinstance(document, dict):
        return []
    nodes = document.get("nodes")
    warnings: list[Diagnostic] = []
    for node in nodes if isinstance(nodes, list) else []:
        if not isinstance(node, dict) or type(node.get("id")) is not int:
            continue
        what = kept_state(node.get("operator"))
        if what is None or node.get("uid") or node.get("uidHash"):
            continue
        name = node.get("name")
        label = name if isinstance(name, str) and name else f"Node {node['id']}"
        message = (
            f"{label} keeps {what} but has no uid: its OperatorID is derived from the graph "
            "around it, so a change upstream gives it a new ID and a savepoint's state for it "
            "is no longer restored. Set a uid, or pin its current ID."
        )
        warnings.append(
            Diagnostic(
                STATE_CODE, message, Location(node=node["id"], field="uid"), Severity.WARNING
            )
        )
    return warnings
