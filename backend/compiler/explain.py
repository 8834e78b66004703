"""Why the plan is what it is: chaining decisions per edge, hash inputs per node.

Users read these to learn why two operators did not chain, and what a node's
OperatorID depends on (so which edits keep their savepoint state addressable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compiler.chainability import chain_blockers, head_factories
from compiler.chaining import ChainPlan
from compiler.hashing import to_hex
from compiler.model import Hash128, NodeId, OperatorFactory, Partitioner, StreamEdge, StreamGraph

FORMAT = "explain/v1"


@dataclass(frozen=True, slots=True)
class EdgeExplanation:
    edge: int
    source: NodeId
    target: NodeId
    chained: bool
    reasons: tuple[str, ...]
    """Every failed chaining condition; empty when the edge chains."""
    partitioner: Partitioner
    partitioner_chosen: bool
    """False when the document chose none and Flink's default applies (FORWARD between
    equal parallelism, REBALANCE otherwise)."""
    chained_source: bool = False
    """A FLIP-27 source folded into its HEAD_WITH_SOURCES consumer."""

    def to_json(self) -> dict[str, Any]:
        return {
            "edge": self.edge,
            "source": self.source,
            "target": self.target,
            "partitioner": self.partitioner.value,
            "partitionerChosen": self.partitioner_chosen,
            "chained": self.chained,
            "chainedSource": self.chained_source,
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True, slots=True)
class HashExplanation:
    node: NodeId
    hash: Hash128
    from_uid: bool
    position: int
    """k: how many nodes were hashed before this one (breadth first from the sources)."""
    chained_outputs: tuple[NodeId, ...]
    inputs: tuple[NodeId, ...]
    uid: str | None
    user_defined: Hash128 | None

    @property
    def summary(self) -> str:
        if self.from_uid:
            text = f"from uid '{self.uid}' only: stable under any change to the topology"
        else:
            text = (
                f"position {self.position} in the traversal, "
                f"{len(self.chained_outputs)} chainable out-edge(s)"
                + (
                    f" (to {', '.join(map(str, self.chained_outputs))})"
                    if self.chained_outputs
                    else ""
                )
                + (
                    f", inputs {', '.join(map(str, self.inputs))} in order"
                    if self.inputs
                    else ", no inputs"
                )
                + "; set a uid to make it stable"
            )
        if self.user_defined is not None:
            text += f"; state restored under user-defined id {to_hex(self.user_defined)}"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "hash": to_hex(self.hash),
            "basis": "uid" if self.from_uid else "structure",
            "uid": self.uid,
            "position": self.position,
            "chainedOutputs": list(self.chained_outputs),
            "inputs": list(self.inputs),
            "userDefined": to_hex(self.user_defined) if self.user_defined is not None else None,
            "summary": self.summary,
        }


@dataclass(frozen=True, slots=True)
class Explanation:
    edges: tuple[EdgeExplanation, ...]
    nodes: tuple[HashExplanation, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "edges": [e.to_json() for e in self.edges],
            "nodes": [n.to_json() for n in self.nodes],
        }


def explain(
    graph: StreamGraph,
    chainable: list[bool],
    plan: ChainPlan,
    hashes: dict[NodeId, Hash128],
    user_hashes: dict[NodeId, Hash128 | None],
) -> Explanation:
    factories = head_factories(graph, chainable)
    chained_sources = frozenset(source for chain in plan.chains for source in chain.chained_sources)
    edges = [
        explain_edge(graph, edge, chainable, factories, chained_sources) for edge in graph.edges
    ]
    position = {nid: k for k, nid in enumerate(hashes)}  # insertion order = hashing order
    nodes = [
        explain_hash(graph, nid, chainable, hashes, user_hashes, position)
        for nid in sorted(graph.nodes)
    ]
    return Explanation(tuple(edges), tuple(nodes))


def explain_edge(
    graph: StreamGraph,
    edge: StreamEdge,
    chainable: list[bool],
    factories: dict[NodeId, OperatorFactory],
    chained_sources: frozenset[NodeId],
) -> EdgeExplanation:
    """Whether one edge chains and, if not, why (`factories`: `head_factories`)."""
    folded = edge.source in chained_sources
    reasons = (
        () if chainable[edge.index] else tuple(chain_blockers(graph, edge, factories[edge.source]))
    )
    return EdgeExplanation(
        edge=edge.index,
        source=edge.source,
        target=edge.target,
        partitioner=edge.partitioner,
        partitioner_chosen=edge.partitioner_chosen,
        chained=chainable[edge.index] or folded,
        reasons=() if folded else reasons,
        chained_source=folded,
    )


def explain_hash(
    graph: StreamGraph,
    nid: NodeId,
    chainable: list[bool],
    hashes: dict[NodeId, Hash128],
    user_hashes: dict[NodeId, Hash128 | None],
    position: dict[NodeId, int],
) -> HashExplanation:
    """What one node's OperatorID was computed from (`position`: its place in hashing)."""
    node = graph.nodes[nid]
    return HashExplanation(
        node=nid,
        hash=hashes[nid],
        from_uid=node.uid is not None,
        position=position[nid],
        chained_outputs=tuple(e.target for e in graph.out_edges[nid] if chainable[e.index]),
        inputs=tuple(e.source for e in graph.in_edges[nid]),
        uid=node.uid,
        user_defined=user_hashes.get(nid),
    )
