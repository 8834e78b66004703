"""Where a comment's anchor stands in another version of its pipeline.

A comment is anchored to the whole pipeline, a node (by its document id, which edits
keep), an edge (by its key `(source, target, typeNumber, k)`, as `compiler.edits` names
edges) or a JobVertex (by its head node). `anchor_in` reads that element in the document
the comment is written on and records the ids the plan gives it there: the node's
OperatorID, the edge's source and target OperatorIDs, the vertex's JobVertexID.

`anchor_changes` compares an anchor with another version (or the working copy): empty when
the element is still there with the same ids (the comment is current), otherwise the
causes in words: the element is gone, or an id changed, explained the way the savepoint
verdict explains it (`compiler.state.idchanges`) when the document the comment was
written on is at hand, else by the ids alone.

Ids are hex text (`compiler.hashing.to_hex`), as every output shows them. A node on a
cycle has no OperatorID (the hasher never reaches it): its id is None, and compared as such.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from compiler.edits import EdgeKey, edge_keys
from compiler.hashing import to_hex
from compiler.model import NodeId
from compiler.pipeline import Compilation
from compiler.state.idchanges import operator_id_causes

AnchorKind = Literal["pipeline", "node", "edge", "vertex"]
ANCHOR_KINDS: tuple[AnchorKind, ...] = ("pipeline", "node", "edge", "vertex")


class AnchorNotFound(ValueError):
    """The element a comment names is not in the document it is written on."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class Anchor:
    kind: AnchorKind
    node: int | None = None
    """`node`: the node; `vertex`: the chain's head node."""
    edge: EdgeKey | None = None
    operator_id: str | None = None
    """`node`: its OperatorID; `vertex`: the JobVertexID (its head's OperatorID)."""
    source_operator_id: str | None = None
    target_operator_id: str | None = None
    label: str = ""
    """What the element was called: node name, `source -> target` names, vertex name."""


@dataclass(frozen=True, slots=True)
class Side:
    """One version of the pipeline: its document, compiled, and what to call it in words
    ("version 3", "the working copy")."""

    document: dict[str, Any]
    compilation: Compilation
    name: str


def _nodes(document: dict[str, Any]) -> dict[int, dict[str, Any]]:
    nodes = document.get("nodes")
    if not isinstance(nodes, list):
        return {}
    return {n["id"]: n for n in nodes if isinstance(n, dict) and isinstance(n.get("id"), int)}


def _operator_id(compilation: Compilation, node: int) -> str | None:
    value = compilation.hashes.get(NodeId(node))
    return None if value is None else to_hex(value)


def _node_name(document: dict[str, Any], node: int) -> str:
    name = _nodes(document).get(node, {}).get("name")
    return name if isinstance(name, str) else f"node {node}"


def _vertex_ids(compilation: Compilation) -> dict[str, tuple[int, str]]:
    """JobVertexID -> (head, vertex name), for every chain whose head has an id."""
    if compilation.chains is None:
        return {}
    result: dict[str, tuple[int, str]] = {}
    for chain in compilation.chains.chains:
        vertex_id = _operator_id(compilation, chain.head)
        if vertex_id is not None:
            result[vertex_id] = (chain.head, chain.name)
    return result


def anchor_in(
    side: Side,
    *,
    kind: AnchorKind,
    node: int | None = None,
    edge: EdgeKey | None = None,
    vertex: str | None = None,
) -> Anchor:
    """The anchor of an element of `side`; `AnchorNotFound` naming the field if it is not
    there (the other fields are the caller's to leave out)."""
    document, compilation = side.document, side.compilation
    if kind == "pipeline":
        name = document.get("name")
        return Anchor(kind="pipeline", label=name if isinstance(name, str) else "")
    if kind == "node":
        if node is None or node not in _nodes(document):
            raise AnchorNotFound("node", f"{side.name} has no node {node}")
        return Anchor(
            kind="node",
            node=node,
            operator_id=_operator_id(compilation, node),
            label=_node_name(document, node),
        )
    if kind == "edge":
        if edge is None or edge not in edge_keys(document):
            raise AnchorNotFound("edge", f"{side.name} has no edge {_edge_words(edge)}")
        source, target = edge[0], edge[1]
        return Anchor(
            kind="edge",
            edge=edge,
            source_operator_id=_operator_id(compilation, source),
            target_operator_id=_operator_id(compilation, target),
            label=f"{_node_name(document, source)} -> {_node_name(document, target)}",
        )
    found = _vertex_ids(compilation).get(vertex or "")
    if found is None:
        raise AnchorNotFound("vertex", f"the plan of {side.name} has no JobVertex {vertex}")
    head, name = found
    return Anchor(kind="vertex", node=head, operator_id=vertex, label=name)


def _edge_words(edge: EdgeKey | None) -> str:
    if edge is None:
        return "(none given)"
    source, target, type_number, k = edge
    return f"{source} -> {target} (typeNumber {type_number}, #{k})"


def anchor_changes(anchor: Anchor, *, origin: Side | None, target: Side, later: bool) -> list[str]:
    """Why `anchor` is outdated in `target`, in words; empty if it is current there.

    `origin` is the version the comment was written on, if its document is at hand (a
    comment on a working copy that has changed since keeps only its ids); `later` says
    whether `target` comes after it, which decides the words ("was removed") and the
    direction in which id changes are explained.
    """
    document, compilation = target.document, target.compilation
    if anchor.kind == "pipeline":
        return []
    if anchor.kind in ("node", "vertex"):
        assert anchor.node is not None
        if anchor.node not in _nodes(document):
            return [_gone(f"node {anchor.node} ({anchor.label})", target, later)]
    if anchor.kind == "node":
        assert anchor.node is not None
        return _id_changes(
            "OperatorID", anchor.node, anchor.operator_id, origin=origin, target=target, later=later
        )
    if anchor.kind == "edge":
        assert anchor.edge is not None
        if anchor.edge not in edge_keys(document):
            return [_gone(f"edge {_edge_words(anchor.edge)} ({anchor.label})", target, later)]
        causes: list[str] = []
        for node, before in (
            (anchor.edge[0], anchor.source_operator_id),
            (anchor.edge[1], anchor.target_operator_id),
        ):
            for cause in _id_changes(
                "OperatorID", node, before, origin=origin, target=target, later=later
            ):
                causes.append(f"{_node_name(document, node)}: {cause}")
        return causes
    assert anchor.node is not None
    head = anchor.node
    chains = compilation.chains
    if chains is not None and chains.head_of.get(NodeId(head), head) != head:
        into = next(c.name for c in chains.chains if c.head == chains.head_of[NodeId(head)])
        return [
            f"{_node_name(document, head)} ({head}) no longer heads a chain in {target.name}: "
            f"it is chained into {into}"
        ]
    return _id_changes(
        "JobVertexID", head, anchor.operator_id, origin=origin, target=target, later=later
    )


def _gone(what: str, target: Side, later: bool) -> str:
    return f"{what} was removed" if later else f"{what} is not in {target.name}"


def _id_changes(
    label: str,
    node: int,
    before: str | None,
    *,
    origin: Side | None,
    target: Side,
    later: bool,
) -> list[str]:
    now = _operator_id(target.compilation, node)
    if now == before:
        return []
    if origin is not None and node in _nodes(origin.document):
        old, new = (origin, target) if later else (target, origin)
        causes = operator_id_causes(old.compilation, new.compilation, NodeId(node))
        return [f"{label} changed: {'; '.join(causes)}"]
    return [f"{label} changed from {before or 'none'} to {now or 'none'} in {target.name}"]
