"""Which operators keep state in a savepoint, and a warning for those whose ID can drift.

`STATEFUL_KINDS` is the one list of operator kinds (matched as prefixes of a node's
`operator`) whose state Flink writes into a savepoint: source positions, keyed state and
timers, window contents, broadcast and operator state, sink writer and committer state.
The savepoint verdicts of `compiler.diff` and the state-loss check of
`compiler.statecheck` read it through `is_stateful`; `unpinned_state_warnings` reads it
to warn about stateful operators without a `uid` or `uidHash`.

Flink restores state by OperatorID. Without a uid, the ID is derived from the graph
around the operator (its position, its chainable outputs, its inputs' IDs), so an
unrelated change upstream gives it a new one and its state in a savepoint no longer
maps. The warnings are kept out of `compile_document`: they are the studio's advice,
not something Flink reports, and they never make a document invalid.
"""

from __future__ import annotations

from typing import Any

from compiler.diagnostics import Diagnostic, Location, Severity

STATE_CODE = "state.no-uid"
"""The code of the warning for a stateful operator without a uid or uidHash."""

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
