"""Why an operator's OperatorID is not the same in two versions, in words.

Flink restores state by OperatorID, and an ID without a uid is a hash of the graph around
the operator (`compiler.hashing`): its position in the hashing traversal, how many of its
out-edges chain, and its inputs' hashes. `operator_id_causes(old, new, node)` names the
inputs of the hash that differ, and for a changed chaining which edge stopped or started
chaining and why (`compiler.chainability`). Every explanation of a changed ID (the restore
check's lost state, the version diff, a comment whose anchor moved) is these words.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.chainability import chain_blockers, head_factories
from compiler.model import NodeId, StreamGraph
from compiler.pipeline import Compilation


@dataclass(frozen=True, slots=True)
class _Hashed:
    compilation: Compilation
    graph: StreamGraph


def operator_id_causes(old: Compilation, new: Compilation, node: NodeId) -> list[str]:
    """Why `node`'s OperatorID is not the same in two versions of a pipeline, from the
    older version to the newer one.

    Needs both documents read and hashed, as a working copy with errors still is (a cycle,
    a bad parallelism), not a whole plan.
    """
    if old.graph is None or new.graph is None or old.chains is None or new.chains is None:
        return ["one of the versions cannot be read as a graph"]
    if node not in old.hashes or node not in new.hashes:
        return [f"node {node} has no OperatorID in one of the versions (it sits on a cycle)"]
    return _why_hash_changed(_Hashed(old, old.graph), _Hashed(new, new.graph), node)


def _why_hash_changed(old: _Hashed, new: _Hashed, nid: NodeId) -> list[str]:
    """The inputs of the hash that differ, in words."""
    old_node, new_node = old.graph.nodes[nid], new.graph.nodes[nid]
    name = new_node.name
    if old_node.uid != new_node.uid:
        if new_node.uid is None:
            return [f"uid '{old_node.uid}' was removed: the id now comes from the topology"]
        if old_node.uid is None:
            return [f"uid '{new_node.uid}' was set: the id now comes from the uid"]
        return [f"uid changed from '{old_node.uid}' to '{new_node.uid}'"]
    causes: list[str] = []
    old_position = list(old.compilation.hashes).index(nid)
    new_position = list(new.compilation.hashes).index(nid)
    if old_position != new_position:
        causes.append(
            f"its position in Flink's hashing traversal moved from {old_position} to "
            f"{new_position} (nodes were added, removed or reordered before it)"
        )
    old_chained = _chained_out(old, nid)
    new_chained = _chained_out(new, nid)
    if len(old_chained) != len(new_chained):
        detail = "; ".join(
            _chaining_change(old, new, nid, t) for t in sorted(set(old_chained) ^ set(new_chained))
        )
        causes.append(
            f"hash of {name} changed because its chainable out-edges changed from "
            f"{len(old_chained)} to {len(new_chained)}" + (f": {detail}" if detail else "")
        )
    old_inputs = old.graph.input_ids[nid]
    new_inputs = new.graph.input_ids[nid]
    if old_inputs != new_inputs:
        causes.append(f"its inputs changed from {list(old_inputs)} to {list(new_inputs)}")
    else:
        changed = [
            s for s in new_inputs if old.compilation.hashes.get(s) != new.compilation.hashes.get(s)
        ]
        if changed:
            names = ", ".join(f"{new.graph.nodes[s].name} ({s})" for s in dict.fromkeys(changed))
            causes.append(f"the hash of its input {names} changed, and inputs are mixed into it")
    return causes or ["the traversal changed around it"]


def _chained_out(side: _Hashed, nid: NodeId) -> list[NodeId]:
    chainable = side.compilation.chainable
    return [e.target for e in side.graph.out_edges[nid] if chainable[e.index]]


def _chaining_change(old: _Hashed, new: _Hashed, nid: NodeId, target: NodeId) -> str:
    """Why the edge nid -> target chains in one version and not in the other."""
    new_edges = [e for e in new.graph.out_edges[nid] if e.target == target]
    old_edges = [e for e in old.graph.out_edges[nid] if e.target == target]
    target_name = (new.graph.nodes.get(target) or old.graph.nodes[target]).name
    if not new_edges:
        return f"the edge to {target_name} ({target}) was removed"
    if not old_edges:
        return f"a chained edge to {target_name} ({target}) was added"
    edge = new_edges[0]
    if new.compilation.chainable[edge.index]:
        return f"the edge to {target_name} ({target}) now chains"
    factories = head_factories(new.graph, new.compilation.chainable)
    reasons = chain_blockers(new.graph, edge, factories[edge.source])
    changes = _what_changed(old, new, nid, target)
    text = f"the edge to {target_name} ({target}) no longer chains ({', '.join(reasons)})"
    return text + (f" when {changes}" if changes else "")


def _what_changed(old: _Hashed, new: _Hashed, *node_ids: NodeId) -> str:
    parts = []
    for nid in node_ids:
        before, after = old.graph.nodes.get(nid), new.graph.nodes.get(nid)
        if before is None or after is None:
            continue
        for label, a, b in (
            ("parallelism", before.parallelism, after.parallelism),
            ("max parallelism", before.max_parallelism, after.max_parallelism),
            ("chaining strategy", before.chaining_strategy.value, after.chaining_strategy.value),
            ("slot sharing group", before.slot_sharing_group, after.slot_sharing_group),
        ):
            if a != b:
                parts.append(f"{after.name} {label} went {a} -> {b}")
    return ", ".join(parts)
