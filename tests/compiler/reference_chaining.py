"""A literal, recursive transcription of Flink 2.3's `setChaining` / `createChain`.

The compiler derives chains without recursion (`compiler.chaining`); this file
follows Flink's code path step by step so property tests can check that both
give the same chains, names, operator order, transitive out-edges and vertex
creation order. Only for the small graphs of tests: it recurses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.chainability import is_chainable_source
from compiler.model import NodeId, StreamEdge, StreamGraph


@dataclass
class ReferenceChain:
    head: NodeId
    nodes: list[NodeId] = field(default_factory=list)
    chained_sources: list[NodeId] = field(default_factory=list)
    name: str = ""
    transitive_out_edges: list[StreamEdge] = field(default_factory=list)


def reference_chains(graph: StreamGraph, chainable: list[bool]) -> list[ReferenceChain]:
    """Chains in vertex creation order, as `createChain` produces them."""
    entries: dict[NodeId, ReferenceChain] = {}
    for source in graph.source_ids:
        edge = is_chainable_source(graph, source, chainable)
        if edge is not None:
            entries.setdefault(edge.target, ReferenceChain(edge.target)).chained_sources.append(
                source
            )
        else:
            entries[source] = ReferenceChain(source)
    initial = [entries[start] for start in sorted(entries)]
    built: dict[NodeId, ReferenceChain] = {}
    created: list[ReferenceChain] = []
    names: dict[NodeId, str] = {}

    def create_chain(current: NodeId, info: ReferenceChain) -> list[StreamEdge]:
        if info.head in built:
            return []
        node_out = graph.out_edges[current]
        chainable_out = [e for e in node_out if chainable[e.index]]
        non_chainable_out = [e for e in node_out if not chainable[e.index]]
        transitive: list[StreamEdge] = []
        for edge in chainable_out:
            transitive += create_chain(edge.target, info)
        for edge in non_chainable_out:
            transitive.append(edge)
            create_chain(edge.target, entries.setdefault(edge.target, ReferenceChain(edge.target)))
        names[current] = created_chained_name(current, chainable_out, entries.get(current))
        info.nodes.append(current)
        if current == info.head:
            info.name = names[current]
            info.transitive_out_edges = transitive
            built[current] = info
            created.append(info)
        return transitive

    def created_chained_name(
        current: NodeId, chainable_out: list[StreamEdge], entry: ReferenceChain | None
    ) -> str:
        name = graph.nodes[current].name
        if entry is not None and entry.chained_sources:
            sources = [
                graph.nodes[e.source].name
                for e in graph.in_edges[current]
                if e.source in entry.chained_sources
            ]
            if sources:
                name = f"{name} [{', '.join(sources)}]"
        if len(chainable_out) > 1:
            return name + " -> (" + ", ".join(names[e.target] for e in chainable_out) + ")"
        if len(chainable_out) == 1:
            return name + " -> " + names[chainable_out[0].target]
        return name

    for info in initial:
        create_chain(info.head, info)
    return created
