"""What a change to a pipeline does, at every level, and to savepoint state.

`diff_documents(old, new)` compares two `streamgraph/v1` documents (versions of
one pipeline: nodes keep their ids across edits) on three levels:

* StreamGraph: nodes and edges added, removed and changed, with the fields;
* JobGraph: chains (vertices) added, removed, renamed, split, merged, and
  vertex parallelism changes;
* ExecutionGraph: subtask counts and key groups that move to another subtask;

and gives a savepoint verdict per stateful operator (`compiler.stateful`). Flink
restores operator state by OperatorID; an id that exists in the savepoint but not
in the new job is state the job cannot restore (it needs `--allowNonRestoredState`
and loses it). The verdict explains every id change from what the hash depends on:
the uid, or the traversal position, the number of chainable out-edges (and why
each edge's chaining changed) and the inputs' hashes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from compiler.chainability import chain_blockers, head_factories
from compiler.execution import ExecutionJobVertex
from compiler.hashing import to_hex
from compiler.model import Hash128, NodeId, StreamGraph
from compiler.pipeline import Compilation, compile_document
from compiler.stateful import is_stateful

FORMAT = "plandiff/v1"

_NODE_FIELDS = (
    "name",
    "operator",
    "params",
    "parallelism",
    "maxParallelism",
    "chainingStrategy",
    "slotSharingGroup",
    "coLocationGroup",
    "uid",
    "uidHash",
    "factory",
)
_EDGE_FIELDS = ("partitioner", "exchangeMode", "sideOutputTag", "key")


def _field_changes(
    old: dict[str, Any], new: dict[str, Any], fields: Iterable[str]
) -> list[dict[str, Any]]:
    return [
        {"field": f, "old": old.get(f), "new": new.get(f)}
        for f in fields
        if old.get(f) != new.get(f)
    ]


def _nodes_by_id(document: dict[str, Any]) -> dict[int, dict[str, Any]]:
    nodes = document.get("nodes")
    if not isinstance(nodes, list):
        return {}
    return {n["id"]: n for n in nodes if isinstance(n, dict) and isinstance(n.get("id"), int)}


def _edges_by_key(document: dict[str, Any]) -> dict[tuple[Any, Any, Any, int], dict[str, Any]]:
    """Edges keyed by (source, target, typeNumber, k-th such edge)."""
    result: dict[tuple[Any, Any, Any, int], dict[str, Any]] = {}
    edges = document.get("edges")
    for edge in edges if isinstance(edges, list) else []:
        if not isinstance(edge, dict):
            continue
        base = (edge.get("source"), edge.get("target"), edge.get("typeNumber", 0))
        k = 0
        while (*base, k) in result:
            k += 1
        result[(*base, k)] = edge
    return result


def _edge_json(key: tuple[Any, Any, Any, int], edge: dict[str, Any]) -> dict[str, Any]:
    return {
        "source": key[0],
        "target": key[1],
        "typeNumber": key[2],
        "partitioner": edge.get("partitioner"),
    }


def stream_graph_diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    old_nodes, new_nodes = _nodes_by_id(old), _nodes_by_id(new)
    old_edges, new_edges = _edges_by_key(old), _edges_by_key(new)
    old_config = old.get("config") if isinstance(old.get("config"), dict) else {}
    new_config = new.get("config") if isinstance(new.get("config"), dict) else {}
    assert isinstance(old_config, dict) and isinstance(new_config, dict)
    return {
        "config": _field_changes(old_config, new_config, sorted(set(old_config) | set(new_config))),
        "nodes": {
            "added": sorted(set(new_nodes) - set(old_nodes)),
            "removed": sorted(set(old_nodes) - set(new_nodes)),
            "changed": [
                {"node": nid, "fields": changes}
                for nid in sorted(set(old_nodes) & set(new_nodes))
                if (changes := _field_changes(old_nodes[nid], new_nodes[nid], _NODE_FIELDS))
            ],
        },
        "edges": {
            "added": [_edge_json(k, new_edges[k]) for k in new_edges if k not in old_edges],
            "removed": [_edge_json(k, old_edges[k]) for k in old_edges if k not in new_edges],
            "changed": [
                {**_edge_json(k, new_edges[k]), "fields": changes}
                for k in new_edges
                if k in old_edges
                and (changes := _field_changes(old_edges[k], new_edges[k], _EDGE_FIELDS))
            ],
        },
    }


@dataclass(frozen=True, slots=True)
class _Side:
    compilation: Compilation
    graph: StreamGraph
    members: dict[NodeId, frozenset[NodeId]]
    """Chain head -> the chain's nodes."""
    head_of: dict[NodeId, NodeId]


def _side(compilation: Compilation) -> _Side | None:
    if not compilation.ok or compilation.graph is None or compilation.chains is None:
        return None
    members = {
        c.head: frozenset(c.nodes) | frozenset(c.chained_sources) for c in compilation.chains.chains
    }
    return _Side(compilation, compilation.graph, members, compilation.chains.head_of)


def job_graph_diff(old: _Side, new: _Side) -> dict[str, Any]:
    old_names = {c.head: c.name for c in _chains(old)}
    new_names = {c.head: c.name for c in _chains(new)}
    old_sets = {members: head for head, members in old.members.items()}
    new_sets = {members: head for head, members in new.members.items()}
    split: list[dict[str, Any]] = []
    for head, members in old.members.items():
        parts = sorted({new.head_of[n] for n in members if n in new.head_of})
        if len(parts) > 1:
            split.append(
                {"old": _vertex_ref(old, head), "into": [_vertex_ref(new, h) for h in parts]}
            )
    merged: list[dict[str, Any]] = []
    for head, members in new.members.items():
        parts = sorted({old.head_of[n] for n in members if n in old.head_of})
        if len(parts) > 1:
            merged.append(
                {"new": _vertex_ref(new, head), "from": [_vertex_ref(old, h) for h in parts]}
            )
    renamed = [
        {"node": head, "old": old_names[old_sets[members]], "new": new_names[head]}
        for members, head in new_sets.items()
        if members in old_sets and old_names[old_sets[members]] != new_names[head]
    ]
    parallelism = [
        {
            "vertex": _vertex_ref(new, head),
            "old": old.graph.nodes[head].parallelism,
            "new": new.graph.nodes[head].parallelism,
        }
        for head in new.members
        if head in old.members
        and old.graph.nodes[head].parallelism != new.graph.nodes[head].parallelism
    ]
    touched_old = {s["old"]["head"] for s in split} | {f["head"] for m in merged for f in m["from"]}
    touched_new = {h["head"] for s in split for h in s["into"]} | {m["new"]["head"] for m in merged}
    return {
        "vertexCount": {"old": len(old.members), "new": len(new.members)},
        "added": [
            _vertex_ref(new, h)
            for members, h in new_sets.items()
            if members not in old_sets and h not in touched_new
        ],
        "removed": [
            _vertex_ref(old, h)
            for members, h in old_sets.items()
            if members not in new_sets and h not in touched_old
        ],
        "renamed": renamed,
        "split": split,
        "merged": merged,
        "parallelism": parallelism,
    }


def _chains(side: _Side) -> Iterable[Any]:
    assert side.compilation.chains is not None
    return side.compilation.chains.chains


def _vertex_ref(side: _Side, head: NodeId) -> dict[str, Any]:
    assert side.compilation.job_graph is not None
    vertex_id = side.compilation.hashes[head]
    name = next(c.name for c in _chains(side) if c.head == head)
    return {"head": head, "id": to_hex(vertex_id), "name": name}


def _moved_key_groups(old: ExecutionJobVertex, new: ExecutionJobVertex) -> int:
    """Key groups whose subtask changes (same max parallelism): counted by ranges, O(p)."""
    max_parallelism = new.max_parallelism
    # Boundaries where either assignment changes subtask; between two, both are constant.
    cuts = sorted(
        {0, max_parallelism}
        | {old.key_group_range(i)[0] for i in range(old.parallelism)}
        | {new.key_group_range(i)[0] for i in range(new.parallelism)}
    )
    moved = 0
    for start, end in pairwise(cuts):
        if old.subtask_of_key_group(start) != new.subtask_of_key_group(start):
            moved += end - start
    return moved


def execution_graph_diff(old: _Side, new: _Side) -> dict[str, Any]:
    old_execution = old.compilation.execution
    new_execution = new.compilation.execution
    assert old_execution is not None and new_execution is not None
    old_by_head = {v.job_vertex.head: v for v in old_execution.vertices}
    vertices = []
    for vertex in new_execution.vertices:
        head = vertex.job_vertex.head
        # The vertex its head ran in before (the same one, or the chain it split from).
        before = old_by_head.get(old.head_of.get(head, head))
        if before is None:
            continue
        if (before.parallelism, before.max_parallelism) == (
            vertex.parallelism,
            vertex.max_parallelism,
        ):
            continue
        entry: dict[str, Any] = {
            "vertex": _vertex_ref(new, head),
            "subtasks": {"old": before.parallelism, "new": vertex.parallelism},
            "maxParallelism": {"old": before.max_parallelism, "new": vertex.max_parallelism},
        }
        if before.max_parallelism == vertex.max_parallelism:
            entry["movedKeyGroups"] = _moved_key_groups(before, vertex)
            entry["keyGroups"] = vertex.max_parallelism
        else:
            entry["movedKeyGroups"] = None
            entry["note"] = (
                "max parallelism changed: keyed state of this vertex cannot be restored "
                "(the number of key groups is fixed by the savepoint)"
            )
        vertices.append(entry)
    return {
        "subtasks": {"old": old_execution.total_subtasks, "new": new_execution.total_subtasks},
        "vertices": vertices,
    }


def _why_hash_changed(old: _Side, new: _Side, nid: NodeId) -> list[str]:
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


def operator_id_causes(old: Compilation, new: Compilation, node: NodeId) -> list[str]:
    """Why `node`'s OperatorID is not the same in two versions of a pipeline, in the words of
    the savepoint verdict (`_why_hash_changed`), from the older version to the newer one.

    Needs less than the verdict: both documents read and hashed, as a working copy with
    errors still is (a cycle, a bad parallelism), not a whole plan.
    """
    old_side, new_side = _hashed_side(old), _hashed_side(new)
    if old_side is None or new_side is None:
        return ["one of the versions cannot be read as a graph"]
    if node not in old.hashes or node not in new.hashes:
        return [f"node {node} has no OperatorID in one of the versions (it sits on a cycle)"]
    return _why_hash_changed(old_side, new_side, node)


def _hashed_side(compilation: Compilation) -> _Side | None:
    """`_side` of a compilation that got as far as chaining, errors or not."""
    if compilation.graph is None or compilation.chains is None:
        return None
    members = {
        c.head: frozenset(c.nodes) | frozenset(c.chained_sources) for c in compilation.chains.chains
    }
    return _Side(compilation, compilation.graph, members, compilation.chains.head_of)


def _chained_out(side: _Side, nid: NodeId) -> list[NodeId]:
    chainable = side.compilation.chainable
    return [e.target for e in side.graph.out_edges[nid] if chainable[e.index]]


def _chaining_change(old: _Side, new: _Side, nid: NodeId, target: NodeId) -> str:
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


def _what_changed(old: _Side, new: _Side, *node_ids: NodeId) -> str:
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


@dataclass(frozen=True, slots=True)
class _Restore:
    """Where Flink restores each piece of the old job's savepoint state.

    A savepoint holds each operator's state under its generated OperatorID. Restoring,
    Flink looks every new operator up by its user-defined ID (uidHash) when the savepoint
    has state under it, else by its generated ID (`StateAssignmentOperation`); when two
    new operators look up the same ID, the first in node order is taken to get it.
    """

    owner: dict[Hash128, NodeId]
    """Old ID -> the old node that had it."""
    looks_up: dict[NodeId, Hash128]
    """New node -> the old ID it restores from (only IDs the savepoint has)."""
    receiver: dict[Hash128, NodeId]
    """Old ID -> the new node that restores it."""


def restore_lookups(old: Compilation, new: Compilation) -> dict[NodeId, Hash128]:
    """New node -> the ID of the state a savepoint of `old` holds that Flink restores into
    it, in node order (only IDs the savepoint has). The savepoint holds each operator's
    state under its generated ID, whatever its uidHash; Flink looks a new operator up by its
    uidHash when the savepoint has that ID, else by its generated ID."""
    saved = set(old.hashes.values())
    looks_up: dict[NodeId, Hash128] = {}
    for nid, generated in sorted(new.hashes.items()):
        user = new.user_hashes.get(nid)
        looked_up = user if user is not None and user in saved else generated
        if looked_up in saved:
            looks_up[nid] = looked_up
    return looks_up


def _restore(old: _Side, new: _Side) -> _Restore:
    owner = {h: nid for nid, h in sorted(old.compilation.hashes.items())}
    looks_up = restore_lookups(old.compilation, new.compilation)
    receiver: dict[Hash128, NodeId] = {}
    for nid, looked_up in looks_up.items():
        receiver.setdefault(looked_up, nid)
    return _Restore(owner, looks_up, receiver)


def _kept_cause(old: _Side, new: _Side, nid: NodeId) -> str:
    """Why a node restores its own state: its ID did not change (kept by its uid, its
    pinned uidHash or the topology), or its uidHash is the old ID."""
    old_hash, new_hash = old.compilation.hashes[nid], new.compilation.hashes[nid]
    if old_hash != new_hash:
        return (
            f"ID changed from {to_hex(old_hash)} to {to_hex(new_hash)}, but its uidHash is "
            "the old ID: Flink restores the state through it"
        )
    uid = new.graph.nodes[nid].uid
    if uid is not None:
        return f"uid '{uid}' set, ID stable"
    if new.compilation.user_hashes.get(nid) == new_hash:
        return "ID unchanged, and its uidHash pins it: Flink restores the state through it"
    return "same topology around it: ID unchanged (set a uid to keep it stable)"


def _name(side: _Side, nid: NodeId) -> str:
    return f"{side.graph.nodes[nid].name} ({nid})"


def savepoint_verdicts(
    old_document: dict[str, Any], new_document: dict[str, Any], old: _Side, new: _Side
) -> dict[str, Any]:
    old_nodes, new_nodes = _nodes_by_id(old_document), _nodes_by_id(new_document)
    restore = _restore(old, new)
    operators = []
    for nid in sorted(set(old_nodes) | set(new_nodes)):
        raw = new_nodes.get(nid) or old_nodes[nid]
        if not is_stateful(raw):
            continue
        node_id = NodeId(nid)
        old_hash = old.compilation.hashes.get(node_id)
        new_hash = new.compilation.hashes.get(node_id)
        entry: dict[str, Any] = {
            "node": nid,
            "name": raw.get("name"),
            "operator": raw.get("operator"),
            "oldOperatorId": to_hex(old_hash) if old_hash is not None else None,
            "newOperatorId": to_hex(new_hash) if new_hash is not None else None,
        }
        into = restore.receiver.get(old_hash) if old_hash is not None else None
        # The old ID this node restores from, when it is another operator's.
        foreign = restore.looks_up.get(node_id)
        if foreign == old_hash:
            foreign = None
        if old_hash is None:
            cause = "the operator is new: it starts without state"
            if foreign is not None and restore.receiver.get(foreign) == node_id:
                cause = (
                    f"the operator is new, and Flink restores the state of "
                    f"{_name(old, restore.owner[foreign])} into it: its ID is that operator's "
                    "old ID"
                )
            entry.update(verdict="new", causes=[cause])
        elif new_hash is None:
            causes = ["the operator was removed: its state cannot be restored"]
            if into is not None:
                causes = [
                    "the operator was removed",
                    f"its old ID is now the ID of {_name(new, into)}: Flink restores its "
                    "state into that operator",
                ]
            entry.update(verdict="lost", causes=causes)
        elif into == node_id:
            entry.update(verdict="kept", causes=[_kept_cause(old, new, node_id)])
        elif into is not None:
            entry.update(
                verdict="lost",
                causes=[
                    f"its old ID is now the ID of {_name(new, into)}: Flink restores its "
                    "state into that operator"
                ],
            )
        elif foreign is not None:
            by = "uidHash" if new.compilation.user_hashes.get(node_id) == foreign else "new ID"
            entry.update(
                verdict="lost",
                causes=[
                    f"its {by} is the old ID of {_name(old, restore.owner[foreign])}: "
                    "Flink looks up that operator's state for it, not its own"
                ],
            )
        else:
            entry.update(verdict="lost", causes=_why_hash_changed(old, new, node_id))
        operators.append(entry)
    summary = {v: sum(1 for o in operators if o["verdict"] == v) for v in ("kept", "lost", "new")}
    return {
        "compatible": summary["lost"] == 0,
        "summary": summary,
        "operators": operators,
    }


def diff_documents(old_document: object, new_document: object) -> dict[str, Any]:
    """The `plandiff/v1` document for two versions of a pipeline."""
    old_raw = old_document if isinstance(old_document, dict) else {}
    new_raw = new_document if isinstance(new_document, dict) else {}
    old_compilation = compile_document(old_document)
    new_compilation = compile_document(new_document)
    result: dict[str, Any] = {
        "format": FORMAT,
        "streamGraph": stream_graph_diff(old_raw, new_raw),
        "jobGraph": None,
        "executionGraph": None,
        "savepoint": None,
        "diagnostics": {
            "old": [d.to_json() for d in old_compilation.diagnostics],
            "new": [d.to_json() for d in new_compilation.diagnostics],
        },
    }
    old_side, new_side = _side(old_compilation), _side(new_compilation)
    if old_side is None or new_side is None:
        return result
    result["jobGraph"] = job_graph_diff(old_side, new_side)
    result["executionGraph"] = execution_graph_diff(old_side, new_side)
    result["savepoint"] = savepoint_verdicts(old_raw, new_raw, old_side, new_side)
    return result
