"""What a new version would do to the state a savepoint of an earlier one holds.

`state_risks(reference, reviewed)` compares a version whose state is trusted (the
pipeline's last approved version) with a version under review and lists every operator of
the reference that keeps state (`compiler.stateful.is_stateful`) whose state the reviewed
version would lose or scramble, with every reason:

* `operator-removed`: the operator is gone, and no operator of the reviewed version has its
  id, so its state cannot be restored;
* `state-lost`: no operator of the reviewed version looks its state up any more (by its
  generated OperatorID, or by a uidHash the savepoint has), so a savepoint's state for it
  is not restored; the causes are the savepoint verdict's
  (`compiler.diff.operator_id_causes`), or the uidHash that takes another state instead;
* `key-changed`: it is keyed (the target of a HASH edge) and that edge now partitions by
  another key, or no longer by a key. Flink restores such state without a word, but each
  key's state stays in the key group the old key put it in;
* `max-parallelism-changed`: the effective max parallelism of its vertex (the number of key
  groups, `compiler.execution`) changed and Flink cannot take the savepoint's instead: the
  reviewed version sets it, or runs the vertex wider than the savepoint's. (When the
  reviewed version leaves it to the scheduler and stays within it, Flink restores with the
  savepoint's value, so that is no risk.) Flink refuses such state for keyed and operator
  state alike;
* `not-compiled`: the reviewed version does not compile, so nothing about its state can be
  promised.

Each operator is listed once, in node id order, by the id its state is stored under in a
savepoint of the reference: its generated OperatorID, whatever its uidHash (Flink looks a
state up by a uidHash, then saves it under the generated ID), the id Flink names when it
refuses to restore it. Matching is by id, not by
node id, as Flink restores. A reference that does not compile never ran, so it has no
state to lose: nothing is listed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from compiler.diagnostics import Severity
from compiler.diff import operator_id_causes, restore_lookups
from compiler.edits import edge_keys
from compiler.execution import ExecutionJobVertex
from compiler.hashing import to_hex
from compiler.model import Hash128, NodeId
from compiler.pipeline import Compilation, compile_document
from compiler.restore import RestoreCheck, check_restore
from compiler.savepoint import OperatorState
from compiler.stateful import is_stateful

RiskCode = Literal[
    "operator-removed", "state-lost", "key-changed", "max-parallelism-changed", "not-compiled"
]
RISK_CODES: tuple[RiskCode, ...] = (
    "operator-removed",
    "state-lost",
    "key-changed",
    "max-parallelism-changed",
    "not-compiled",
)


@dataclass(frozen=True, slots=True)
class Reason:
    code: RiskCode
    message: str


@dataclass(frozen=True, slots=True)
class StateRisk:
    node: int | None
    """The operator's node id in the reference; against a savepoint, the node of the
    reviewed version it concerns (null: none, its operator is not there)."""
    name: str
    operator_id: str
    """The id its state has in a savepoint of the reference."""
    reasons: tuple[Reason, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "name": self.name,
            "operatorId": self.operator_id,
            "reasons": [{"code": r.code, "message": r.message} for r in self.reasons],
        }


def _nodes(document: dict[str, Any]) -> dict[int, dict[str, Any]]:
    nodes = document.get("nodes")
    if not isinstance(nodes, list):
        return {}
    return {n["id"]: n for n in nodes if isinstance(n, dict) and isinstance(n.get("id"), int)}


def _edges(document: dict[str, Any]) -> dict[tuple[int, int, int, int], dict[str, Any]]:
    edges = document.get("edges")
    return dict(zip(edge_keys(document), edges if isinstance(edges, list) else [], strict=True))


def state_risks(reference: dict[str, Any], reviewed: dict[str, Any]) -> list[StateRisk]:
    """Every stateful operator of `reference` whose state `reviewed` puts at risk."""
    return state_risks_of(
        reference, reviewed, compile_document(reference), compile_document(reviewed)
    )


def state_risks_of(
    reference: dict[str, Any],
    reviewed: dict[str, Any],
    old: Compilation,
    new: Compilation,
) -> list[StateRisk]:
    """`state_risks` of two documents already compiled (`old` is the reference's)."""
    if not old.ok:
        return []
    stateful = {nid: node for nid, node in _nodes(reference).items() if is_stateful(node)}
    reasons: dict[int, list[Reason]] = {nid: [] for nid in stateful}
    if not new.ok:
        first = next((d for d in new.diagnostics if d.severity is Severity.ERROR), None)
        what = f" ({first.location.describe()}: {first.message})" if first is not None else ""
        for found in reasons.values():
            text = f"the reviewed version does not compile{what}: its state cannot be checked"
            found.append(Reason("not-compiled", text))
    else:
        changes = (
            _lost(stateful, reviewed, old, new)
            + _key_changes(reference, reviewed)
            + _max_parallelism_changes(reference, reviewed, old, new)
        )
        for nid, reason in changes:
            if nid in reasons:
                reasons[nid].append(reason)
    return [
        StateRisk(
            node=nid,
            name=str(stateful[nid].get("name", "")),
            operator_id=to_hex(_saved_id(old, nid)),
            reasons=tuple(found),
        )
        for nid, found in sorted(reasons.items())
        if found
    ]


def _saved_id(compilation: Compilation, nid: int) -> Hash128:
    """The id an operator's state is saved under: its generated OperatorID. A uidHash only
    says where to look when restoring; the restored state is saved under the generated ID."""
    return compilation.hashes[NodeId(nid)]


def _lost(
    stateful: dict[int, dict[str, Any]],
    reviewed: dict[str, Any],
    old: Compilation,
    new: Compilation,
) -> list[tuple[int, Reason]]:
    """Operators whose saved state no operator of the reviewed version restores: removed,
    changed, or passed over for the state a uidHash names."""
    lookups = restore_lookups(old, new)
    restored = set(lookups.values())
    new_nodes = _nodes(reviewed)
    found: list[tuple[int, Reason]] = []
    for nid in stateful:
        node = NodeId(nid)
        own = old.hashes[node]
        if own in restored:
            continue  # by the same node or by whichever now looks it up
        if nid not in new_nodes or node not in new.hashes:
            found.append(
                (nid, Reason("operator-removed", "it was removed: its state cannot be restored"))
            )
            continue
        causes = _lost_causes(old, new, node, lookups)
        found.append((nid, Reason("state-lost", f"its state would not be restored: {causes}")))
    return found


def _lost_causes(
    old: Compilation, new: Compilation, node: NodeId, lookups: dict[NodeId, Hash128]
) -> str:
    user = new.user_hashes.get(node)
    taken = lookups.get(node)
    if taken is not None and taken == user:
        owner = next(nid for nid, h in sorted(old.hashes.items()) if h == taken)
        name = old.graph.nodes[owner].name if old.graph is not None else "an operator"
        return (
            f"its uidHash {to_hex(taken)} is the saved ID of {name} ({owner}), so Flink "
            "restores that state into it instead of its own"
        )
    causes = operator_id_causes(old, new, node)
    if user is not None:
        causes.append(
            f"its uidHash {to_hex(user)} finds nothing in a savepoint of the reference, which "
            f"holds its state under its generated ID {to_hex(old.hashes[node])}"
        )
    return "; ".join(causes)


def _key_words(edge: dict[str, Any]) -> str:
    if edge.get("partitioner") != "HASH":
        return f"no key ({edge.get('partitioner')})"
    key = edge.get("key")
    if isinstance(key, dict) and isinstance(key.get("fn"), str) and len(key) == 1:
        return f"'{key['fn']}'"
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


def _key_changes(reference: dict[str, Any], reviewed: dict[str, Any]) -> list[tuple[int, Reason]]:
    """Keyed operators (targets of HASH edges in either version) whose key changed, matched
    by edge key (`compiler.edits.edge_keys`), in the reference's edge order."""
    found: list[tuple[int, Reason]] = []
    new_edges = _edges(reviewed)
    for key, before in _edges(reference).items():
        after = new_edges.get(key)
        if after is None or "HASH" not in (before.get("partitioner"), after.get("partitioner")):
            continue
        old_key, new_key = _key_words(before), _key_words(after)
        if old_key == new_key:
            continue
        source, target = key[0], key[1]
        message = (
            f"the edge {source} -> {target} into it partitions by {new_key} instead of "
            f"{old_key}: each key's state stays where the old key put it"
        )
        found.append((target, Reason("key-changed", message)))
    return found


def _vertex_of(compilation: Compilation, nid: int) -> ExecutionJobVertex | None:
    if compilation.chains is None or compilation.execution is None:
        return None
    head = compilation.chains.head_of.get(NodeId(nid))
    return next((v for v in compilation.execution.vertices if v.job_vertex.head == head), None)


def _max_parallelism_changes(
    reference: dict[str, Any], reviewed: dict[str, Any], old: Compilation, new: Compilation
) -> list[tuple[int, Reason]]:
    """Operators in both versions whose vertex's max parallelism changed in a way Flink
    cannot restore (module docstring), by node id."""
    found: list[tuple[int, Reason]] = []
    for nid in sorted(_nodes(reference).keys() & _nodes(reviewed).keys()):
        before, after = _vertex_of(old, nid), _vertex_of(new, nid)
        if before is None or after is None or before.max_parallelism == after.max_parallelism:
            continue
        saved, now = before.max_parallelism, after.max_parallelism
        if after.max_parallelism_derived:
            if after.parallelism <= saved:
                continue  # Flink takes the savepoint's max parallelism for this vertex
            message = (
                f"its vertex runs {after.parallelism} subtasks, more than the max parallelism "
                f"its state was saved with ({saved}): its state cannot be restored"
            )
        else:
            message = (
                f"the max parallelism of its vertex went {saved} -> {now}: its state is kept "
                f"in {saved} key groups and cannot be restored into {now}"
            )
        found.append((nid, Reason("max-parallelism-changed", message)))
    return found


def savepoint_risks(
    operators: Sequence[OperatorState],
    reviewed: Compilation,
    *,
    previous: Compilation | None = None,
) -> list[StateRisk]:
    """The operator states of a real savepoint (`compiler.savepoint`) whose state the
    reviewed version would not restore, as Flink restores (`compiler.restore`): state no
    operator takes (`state-lost`), a max parallelism it cannot be restored with
    (`max-parallelism-changed`), a key changed in front of it (`key-changed`, with the
    version that wrote the savepoint as `previous`). Every state, if it does not compile.
    Empty state, which Flink drops freely, is never at risk. In the savepoint's order."""
    if not reviewed.ok or reviewed.graph is None:
        first = next((d for d in reviewed.diagnostics if d.severity is Severity.ERROR), None)
        what = f" ({first.location.describe()}: {first.message})" if first is not None else ""
        text = f"the reviewed version does not compile{what}: its state cannot be checked"
        return [
            StateRisk(None, state.name or "", state.hex_id, (Reason("not-compiled", text),))
            for state in operators
            if state.has_state
        ]
    return _restore_risks(check_restore(operators, reviewed, previous=previous))


def _restore_risks(check: RestoreCheck) -> list[StateRisk]:
    keys: dict[str, list[str]] = {}
    for warning in check.warnings:
        if warning.code == "key-changed" and warning.operator_id is not None:
            keys.setdefault(warning.operator_id, []).append(warning.message)
    risks = []
    for row in check.operators:
        reasons: list[Reason] = []
        if row.outcome == "lost":
            reasons.append(
                Reason("state-lost", "its state would not be restored: " + "; ".join(row.reasons))
            )
        elif row.outcome in ("max-parallelism", "parallelism-above-max"):
            reasons.append(Reason("max-parallelism-changed", "; ".join(row.reasons)))
        reasons.extend(Reason("key-changed", message) for message in keys.get(row.operator_id, []))
        if reasons:
            node = None if row.target is None else row.target.node
            risks.append(StateRisk(node, row.name or "", row.operator_id, tuple(reasons)))
    return risks
