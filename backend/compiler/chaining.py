"""Operator chains as Flink 2.3's `StreamingJobGraphGenerator.setChaining` builds them.

Entry points are the sources in ascending id (a FLIP-27 source that chains into
a HEAD_WITH_SOURCES operator is folded into that operator's entry). From each
entry `createChain` walks depth first: chainable out-edges first, in out-edge
order, then the non-chainable ones, each starting (or reusing) the chain of its
target. A node is added to its chain after its children (post-order), and a
chain's vertex is created when its head finishes, so downstream vertices are
created before upstream ones. The walk is iterative: chains of thousands of
operators must not hit Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field

from compiler.chainability import is_chainable_source
from compiler.model import NodeId, StreamEdge, StreamGraph


@dataclass(frozen=True, slots=True)
class Chain:
    """One operator chain: what becomes one JobVertex."""

    head: NodeId
    nodes: tuple[NodeId, ...]
    """Post-order from the head (children before parents, the head last): operator order."""
    chained_sources: tuple[NodeId, ...]
    """FLIP-27 sources chained into a HEAD_WITH_SOURCES head (no OperatorID of their own)."""
    name: str
    """`createChainedName` of the head: the JobVertex name."""
    transitive_out_edges: tuple[StreamEdge, ...]
    """The chain's non-chainable out-edges in Flink's order: what becomes its JobEdges."""


@dataclass(frozen=True, slots=True)
class ChainPlan:
    chains: tuple[Chain, ...]
    """In vertex creation order."""
    head_of: dict[NodeId, NodeId]
    """Every node (chained sources included) -> the head of its chain."""


@dataclass(slots=True)
class _ChainInfo:
    start: NodeId
    nodes: list[NodeId] = field(default_factory=list)
    chained_sources: list[NodeId] = field(default_factory=list)


_Call = tuple[NodeId, _ChainInfo]
_Frame = Generator[_Call, list[StreamEdge] | None, list[StreamEdge]]


def build_chains(graph: StreamGraph, chainable: list[bool]) -> ChainPlan:
    entries: dict[NodeId, _ChainInfo] = {}
    for source in graph.source_ids:
        edge = is_chainable_source(graph, source, chainable)
        if edge is not None:
            entries.setdefault(edge.target, _ChainInfo(edge.target)).chained_sources.append(source)
        else:
            entries.setdefault(source, _ChainInfo(source))

    built: dict[NodeId, tuple[_ChainInfo, list[StreamEdge]]] = {}
    order: list[NodeId] = []
    chainable_out = {
        nid: [e for e in edges if chainable[e.index]] for nid, edges in graph.out_edges.items()
    }
    other_out = {
        nid: [e for e in edges if not chainable[e.index]] for nid, edges in graph.out_edges.items()
    }

    def create_chain(current: NodeId, info: _ChainInfo) -> _Frame:
        if info.start in built:
            return []
        transitive: list[StreamEdge] = []
        for edge in chainable_out[current]:
            transitive += (yield edge.target, info) or []
        for edge in other_out[current]:
            transitive.append(edge)
            target_info = entries.setdefault(edge.target, _ChainInfo(edge.target))
            yield edge.target, target_info
        info.nodes.append(current)
        if current == info.start:
            built[current] = (info, transitive)
            order.append(current)
        return transitive

    for start in sorted(entries):
        stack: list[_Frame] = [create_chain(start, entries[start])]
        result: list[StreamEdge] | None = None  # a fresh generator must be sent None
        while stack:
            try:
                call = stack[-1].send(result)
            except StopIteration as finished:
                stack.pop()
                result = finished.value
                continue
            stack.append(create_chain(*call))
            result = None

    head_of: dict[NodeId, NodeId] = {}
    chains: list[Chain] = []
    for head in order:
        info, transitive = built[head]
        for nid in info.nodes:
            head_of[nid] = head
        for nid in info.chained_sources:
            head_of[nid] = head
        chains.append(
            Chain(
                head=head,
                nodes=tuple(info.nodes),
                chained_sources=tuple(info.chained_sources),
                name=chained_name(graph, head, chainable_out, info.chained_sources),
                transitive_out_edges=tuple(transitive),
            )
        )
    return ChainPlan(chains=tuple(chains), head_of=head_of)


def chained_name(
    graph: StreamGraph,
    head: NodeId,
    chainable_out: dict[NodeId, list[StreamEdge]],
    chained_sources: list[NodeId],
) -> str:
    """`createChainedName`: `a -> b`, `a -> (b, c -> d)`, `mit [Source: s1, Source: s2]`.

    Built iteratively from parts; Flink's per-node name map would make a long
    chain quadratic in time and memory.
    """
    nodes = graph.nodes
    parts: list[str] = []
    # Work items: a node to name, or a literal string to emit.
    work: list[NodeId | str] = [head]
    while work:
        item = work.pop()
        if isinstance(item, str):
            parts.append(item)
            continue
        parts.append(nodes[item].name)
        if item == head and chained_sources:
            by_source = set(chained_sources)
            names = [
                nodes[e.source].name for e in graph.in_edges[item] if e.source in by_source
            ]
            parts.append(" [" + ", ".join(names) + "]")
        children = chainable_out[item]
        if len(children) == 1:
            parts.append(" -> ")
            work.append(children[0].target)
        elif children:
            parts.append(" -> (")
            pending: list[NodeId | str] = [")"]
            for position in range(len(children) - 1, -1, -1):
                pending.append(children[position].target)
                if position:
                    pending.append(", ")
            work.extend(pending)
    return "".join(parts)
