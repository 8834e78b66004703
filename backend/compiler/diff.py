"""What a change to a pipeline does, at every level, and to savepoint state.

`diff_documents(old, new)` compares two `streamgraph/v1` documents (versions of
one pipeline: nodes keep their ids across edits) on three levels:

* StreamGraph: nodes and edges added, removed and changed, with the fields;
* JobGraph: chains (vertices) added, removed, renamed, split, merged, and
  vertex parallelism changes;
* ExecutionGraph: subtask counts and key groups that move to another subtask;

and says what a savepoint of the old version does when the new one starts from it: the
state engine's verdict (`compiler.state.verdict`), which these levels never restate.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from compiler.execution import ExecutionJobVertex
from compiler.hashing import to_hex
from compiler.model import NodeId, StreamGraph
from compiler.pipeline import Compilation, compile_document
from compiler.state.verdict import version_verdict

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
                "max parallelism changed: the key groups of the two versions do not compare"
            )
        vertices.append(entry)
    return {
        "subtasks": {"old": old_execution.total_subtasks, "new": new_execution.total_subtasks},
        "vertices": vertices,
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
    result["savepoint"] = version_verdict(old_compilation, new_compilation).to_json()
    return result
