"""Operator chains as Flink 2.3's `StreamingJobGraphGenerator.setChaining` builds them.

Flink's `createChain` is a recursion: from each entry point (the sources in
ascending id; a FLIP-27 source that chains into a HEAD_WITH_SOURCES operator is
folded into that operator's entry) it walks chainable out-edges first, in
out-edge order, then the non-chainable ones, each starting (or reusing) the
chain of its target; a node joins its chain after its children (post-order) and
a chain's JobVertex is created when its head finishes. That recursion has three
products, computed here directly and without recursion (chains of thousands of
operators must not hit Python's recursion limit):

* chain membership: an edge that chains makes its target part of its source's
  chain; every other node heads a chain;
* a chain's operator order: post-order of its tree of chainable edges, and its
  transitive out-edges: the non-chainable out-edges of its nodes, in that order;
* vertex creation order: depth-first post-order over chains, from the entry
  points in ascending id, following each chain's transitive out-edges in order.

`tests/compiler/reference_chaining.py` keeps a literal transcription of the
recursion; a property test checks both agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from compiler.chainability import is_chainable_source
from compiler.model import NodeId, StreamEdge, StreamGraph


@dataclass(slots=True, eq=False)  # a record: see the compiler.model docstring
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


def build_chains(graph: StreamGraph, chainable: list[bool]) -> ChainPlan:
    # Entry points; FLIP-27 sources folded into their HEAD_WITH_SOURCES consumer.
    entries: set[NodeId] = set()
    folded_into: dict[NodeId, list[NodeId]] = {}
    folded: set[NodeId] = set()
    for source in graph.source_ids:
        edge = is_chainable_source(graph, source, chainable)
        if edge is None:
            entries.add(source)
        else:
            entries.add(edge.target)
            folded_into.setdefault(edge.target, []).append(source)
            folded.add(source)

    # Chain trees: chainable out-edges (a chained source's edge is not one of them).
    chained_children: dict[NodeId, list[StreamEdge]] = {}
    if graph.config.chaining_enabled:
        for edge in graph.edges:
            if chainable[edge.index] and edge.source not in folded:
                chained_children.setdefault(edge.source, []).append(edge)
    heads = [
        nid
        for nid in graph.topological_order
        if nid not in folded
        and not (
            len(graph.in_edges[nid]) == 1
            and chainable[graph.in_edges[nid][0].index]
            and graph.in_edges[nid][0].source not in folded
        )
    ]

    out_edges = graph.out_edges
    members: dict[NodeId, tuple[NodeId, ...]] = {}
    transitive: dict[NodeId, tuple[StreamEdge, ...]] = {}
    for head in heads:
        order = _post_order(head, chained_children)
        members[head] = order
        transitive[head] = tuple(
            edge for nid in order for edge in out_edges[nid] if not chainable[edge.index]
        )

    creation_order = _creation_order(sorted(entries), transitive.__getitem__)

    head_of: dict[NodeId, NodeId] = {}
    chains: list[Chain] = []
    for head in creation_order:
        for nid in members[head]:
            head_of[nid] = head
        sources = tuple(folded_into.get(head, ()))
        for nid in sources:
            head_of[nid] = head
        chains.append(
            Chain(
                head=head,
                nodes=members[head],
                chained_sources=sources,
                name=chained_name(graph, head, chained_children, sources),
                transitive_out_edges=transitive[head],
            )
        )
    return ChainPlan(chains=tuple(chains), head_of=head_of)


def _post_order(
    head: NodeId, chained_children: dict[NodeId, list[StreamEdge]]
) -> tuple[NodeId, ...]:
    """Children (in out-edge order) before their parent, the head last."""
    if head not in chained_children:
        return (head,)
    order: list[NodeId] = []
    stack = [(head, iter(chained_children[head]))]
    while stack:
        nid, pending = stack[-1]
        edge = next(pending, None)
        if edge is None:
            stack.pop()
            order.append(nid)
        else:
            stack.append((edge.target, iter(chained_children.get(edge.target, ()))))
    return tuple(order)


def chained_name(
    graph: StreamGraph,
    head: NodeId,
    chained_children: dict[NodeId, list[StreamEdge]],
    chained_sources: tuple[NodeId, ...],
) -> str:
    """`createChainedName`: `a -> b`, `a -> (b, c -> d)`, `mit [Source: s1, Source: s2]`.

    Built iteratively from parts; Flink's per-node name map would make a long
    chain quadratic in time and memory.
    """
    nodes = graph.nodes
    if head not in chained_children and not chained_sources:
        return nodes[head].name
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
            names = [nodes[e.source].name for e in graph.in_edges[item] if e.source in by_source]
            parts.append(" [" + ", ".join(names) + "]")
        children = chained_children.get(item, ())
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


def rebuild_chains(
    graph: StreamGraph,
    chainable: list[bool],
    previous: ChainPlan,
    flipped: list[StreamEdge],
    edited: NodeId,
) -> tuple[ChainPlan, set[NodeId]] | None:
    """`build_chains(graph, chainable)` after an edit of node `edited` alone, from
    `previous` (the plan of the graph before it, with the same edges) and the edges whose
    chainability changed: only the chains those edges and that node are in are built
    again (their heads are returned with the plan), the others are kept as they were. None
    when a FLIP-27 source chains into its consumer, before or after (the whole plan is
    built then)."""
    if any(chain.chained_sources for chain in previous.chains) or any(
        is_chainable_source(graph, source, chainable) is not None for source in graph.source_ids
    ):
        return None
    head_of = previous.head_of
    by_head = {chain.head: chain for chain in previous.chains}
    heads = set(by_head)
    rebuilt = {head_of[edited]}
    for edge in flipped:
        rebuilt.add(head_of[edge.source])
        if chainable[edge.index]:
            heads.discard(edge.target)  # it joins the chain of its input
        else:
            heads.add(edge.target)
            rebuilt.add(edge.target)
    rebuilt &= heads

    out_edges = graph.out_edges

    def rebuilt_chain(head: NodeId) -> Chain:
        """The chain from `head`: walked once when it does not branch (most do), else
        through its chained out-edges and `_post_order`."""
        linear = _linear_chain(graph, chainable, head)
        if linear is not None:
            return linear
        children: dict[NodeId, list[StreamEdge]] = {}
        pending = [head]
        while pending:
            nid = pending.pop()
            out = [e for e in out_edges[nid] if chainable[e.index]]
            if out:
                children[nid] = out
                pending.extend(e.target for e in out)
        order = _post_order(head, children)
        return Chain(
            head=head,
            nodes=order,
            chained_sources=(),
            name=chained_name(graph, head, children, ()),
            transitive_out_edges=tuple(
                e for nid in order for e in out_edges[nid] if not chainable[e.index]
            ),
        )

    chains: dict[NodeId, Chain] = {}
    new_head_of = dict(head_of)
    for head in rebuilt:
        chain = chains[head] = rebuilt_chain(head)
        new_head_of.update(dict.fromkeys(chain.nodes, head))

    def chain_of(head: NodeId) -> Chain:
        return chains.get(head) or by_head[head]

    # The entry points are the sources in ascending id: none is folded here.
    created = _creation_order(graph.source_ids, lambda h: chain_of(h).transitive_out_edges)
    return ChainPlan(chains=tuple(chain_of(h) for h in created), head_of=new_head_of), rebuilt


def chain_name(graph: StreamGraph, chainable: list[bool], chain: Chain) -> str:
    """`chained_name` of `chain`'s nodes in `graph` (whose names may differ from those the
    chain was built with), one walk for a chain that does not branch."""
    if not chain.chained_sources:
        linear = _linear_chain(graph, chainable, chain.head)
        if linear is not None:
            return linear.name
    children: dict[NodeId, list[StreamEdge]] = {}
    for member in chain.nodes:
        out = [e for e in graph.out_edges[member] if chainable[e.index]]
        if out:
            children[member] = out
    return chained_name(graph, chain.head, children, chain.chained_sources)


def _linear_chain(graph: StreamGraph, chainable: list[bool], head: NodeId) -> Chain | None:
    """The chain from `head` (no chained sources) when each of its nodes chains to one
    other at most, as most do: a path, walked once, whose `_post_order` is its reverse and
    whose name is its nodes' names joined. None when the chain branches."""
    nodes, out_edges = graph.nodes, graph.out_edges
    path: list[NodeId] = []
    unchained: list[list[StreamEdge]] = []  # per node of `path` with any, those that do not chain
    nid = head
    while True:
        path.append(nid)
        out = out_edges[nid]
        if len(out) == 1:  # most nodes: one walk step, no list built
            edge = out[0]
            if chainable[edge.index]:
                nid = edge.target
                continue
            unchained.append([edge])
            break
        chained = [e for e in out if chainable[e.index]]
        if len(chained) > 1:
            return None
        if len(chained) < len(out):
            unchained.append([e for e in out if not chainable[e.index]])
        if not chained:
            break
        nid = chained[0].target
    return Chain(
        head=head,
        nodes=tuple(reversed(path)),
        chained_sources=(),
        name=" -> ".join([nodes[n].name for n in path]),
        transitive_out_edges=tuple(e for edges in reversed(unchained) for e in edges),
    )


def _creation_order(
    entries: Iterable[NodeId], out_edges_of: Callable[[NodeId], tuple[StreamEdge, ...]]
) -> list[NodeId]:
    """Vertex creation order: depth-first post-order over chains from the entry points in
    the given order, following each chain's transitive out-edges (`out_edges_of` a head)."""
    creation_order: list[NodeId] = []
    created: set[NodeId] = set()
    for entry in entries:
        if entry in created:
            continue
        created.add(entry)
        stack = [(entry, iter(out_edges_of(entry)))]
        while stack:
            head, pending = stack[-1]
            edge = next(pending, None)
            if edge is None:
                stack.pop()
                creation_order.append(head)
            elif edge.target not in created:
                created.add(edge.target)
                stack.append((edge.target, iter(out_edges_of(edge.target))))
    return creation_order
