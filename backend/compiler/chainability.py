"""Which StreamEdges Flink chains: `StreamingJobGraphGenerator.isChainable`.

Two implementations of one rule, kept together on purpose: `chainable_edges`
is the fast per-graph pass the hasher and the chain builder read, and
`chain_blockers` lists every failed condition in words for the explanations.
A property test asserts they agree on random graphs.

The rule (Flink 2.3, `allowChainWithDefaultParallelism = false`): an edge
up -> down chains iff down has exactly one input, chaining is enabled, both are
in the same slot sharing group, the operators are chainable (strategies,
factories, parallelism, max parallelism when configured) and the partitioner is
FORWARD with an exchange mode other than BATCH; and no other input of down has
the same typeNumber (union).
"""

from __future__ import annotations

from compiler.model import (
    ChainingStrategy,
    ExchangeMode,
    NodeId,
    OperatorFactory,
    Partitioner,
    StreamEdge,
    StreamGraph,
    StreamNode,
)

_BREAKING_TARGET = (ChainingStrategy.NEVER, ChainingStrategy.HEAD)


def _operators_chainable(
    graph: StreamGraph, up: StreamNode, down: StreamNode, head_factory: OperatorFactory
) -> bool:
    if down.factory is OperatorFactory.YIELDING and head_factory is OperatorFactory.LEGACY_SOURCE:
        return False
    strategy = down.chaining_strategy
    if strategy in _BREAKING_TARGET or up.chaining_strategy is ChainingStrategy.NEVER:
        return False
    if strategy is ChainingStrategy.HEAD_WITH_SOURCES and up.factory is not OperatorFactory.SOURCE:
        return False
    if up.parallelism != down.parallelism:
        return False
    return graph.config.chain_operators_with_different_max_parallelism or (
        up.max_parallelism == down.max_parallelism
    )


def is_chainable_input(graph: StreamGraph, edge: StreamEdge, head_factory: OperatorFactory) -> bool:
    """`isChainableInput`: everything but the single-input requirement."""
    up = graph.nodes[edge.source]
    down = graph.nodes[edge.target]
    if not (
        graph.config.chaining_enabled
        and up.slot_sharing_group == down.slot_sharing_group
        and edge.partitioner is Partitioner.FORWARD
        and edge.exchange_mode is not ExchangeMode.BATCH
        and _operators_chainable(graph, up, down, head_factory)
    ):
        return False
    return not any(
        other is not edge and other.type_number == edge.type_number
        for other in graph.in_edges[edge.target]
    )


def chainable_edges(graph: StreamGraph) -> list[bool]:
    """`isChainable(edge)` for every edge, indexed by `StreamEdge.index`."""
    return chainability(graph)[0]


def chainability(graph: StreamGraph) -> tuple[list[bool], dict[NodeId, int]]:
    """`isChainable` of every edge, and how many out-edges of each node chain.

    The conditions of `is_chainable_input`, inlined: this runs once per edge on
    every compilation. An edge into a node with one input cannot be a union, so
    the typeNumber test is moot here.
    """
    edges = graph.edges
    chainable = [False] * len(edges)
    chained_outputs = dict.fromkeys(graph.nodes, 0)
    config = graph.config
    if not config.chaining_enabled:
        return chainable, chained_outputs
    same_max_parallelism = not config.chain_operators_with_different_max_parallelism
    nodes = graph.nodes
    in_edges = graph.in_edges
    forward, batch = Partitioner.FORWARD, ExchangeMode.BATCH
    always, never = ChainingStrategy.ALWAYS, ChainingStrategy.NEVER
    with_sources, flip27 = ChainingStrategy.HEAD_WITH_SOURCES, OperatorFactory.SOURCE
    yielding = OperatorFactory.YIELDING
    for nid, inputs in in_edges.items():
        if len(inputs) != 1:
            continue
        edge = inputs[0]
        if edge.partitioner is not forward or edge.exchange_mode is batch:
            continue
        up = nodes[edge.source]
        down = nodes[nid]
        strategy = down.chaining_strategy
        if (
            up.parallelism != down.parallelism
            or up.slot_sharing_group != down.slot_sharing_group
            or up.chaining_strategy is never
            or (
                strategy is not always
                and (strategy is not with_sources or up.factory is not flip27)
            )
            or (same_max_parallelism and up.max_parallelism != down.max_parallelism)
        ):
            continue
        chainable[edge.index] = True
        chained_outputs[edge.source] += 1
    # FLINK-16219: a yielding operator never chains into a chain headed by a legacy
    # source. Rare, so checked afterwards, upstream first (topological order).
    if any(node.factory is yielding for node in nodes.values()):
        for nid in graph.topological_order:
            inputs = in_edges[nid]
            if (
                nodes[nid].factory is yielding
                and len(inputs) == 1
                and chainable[inputs[0].index]
                and _head_factory(graph, inputs[0].source, chainable)
                is OperatorFactory.LEGACY_SOURCE
            ):
                chainable[inputs[0].index] = False
                chained_outputs[inputs[0].source] -= 1
    return chainable, chained_outputs


def _head_factory(graph: StreamGraph, node_id: NodeId, chainable: list[bool]) -> OperatorFactory:
    """`getHeadOperator`: the factory at the top of the chain `node_id` would be in."""
    while True:
        inputs = graph.in_edges[node_id]
        if len(inputs) != 1 or not chainable[inputs[0].index]:
            return graph.nodes[node_id].factory
        node_id = inputs[0].source


def head_factories(graph: StreamGraph, chainable: list[bool]) -> dict[NodeId, OperatorFactory]:
    """The factory of the chain head above each node (for the explanations)."""
    result: dict[NodeId, OperatorFactory] = {}
    for nid in graph.topological_order:
        inputs = graph.in_edges[nid]
        if len(inputs) == 1 and chainable[inputs[0].index]:
            result[nid] = result[inputs[0].source]
        else:
            result[nid] = graph.nodes[nid].factory
    return result


def chain_blockers(
    graph: StreamGraph, edge: StreamEdge, head_factory: OperatorFactory
) -> list[str]:
    """Every condition of `isChainable` that this edge fails, in words (empty = chains)."""
    up = graph.nodes[edge.source]
    down = graph.nodes[edge.target]
    reasons: list[str] = []
    if not graph.config.chaining_enabled:
        reasons.append("operator chaining is disabled for the job")
    inputs = graph.in_edges[edge.target]
    if len(inputs) != 1:
        reasons.append(f"target has {len(inputs)} inputs")
    if up.slot_sharing_group != down.slot_sharing_group:
        reasons.append(
            f"slot sharing group '{up.slot_sharing_group}' != '{down.slot_sharing_group}'"
        )
    if down.factory is OperatorFactory.YIELDING and head_factory is OperatorFactory.LEGACY_SOURCE:
        reasons.append("target is a yielding operator and the chain starts at a legacy source")
    if up.chaining_strategy is ChainingStrategy.NEVER:
        reasons.append("source strategy NEVER")
    if down.chaining_strategy in _BREAKING_TARGET:
        reasons.append(f"target strategy {down.chaining_strategy.value}")
    elif (
        down.chaining_strategy is ChainingStrategy.HEAD_WITH_SOURCES
        and up.factory is not OperatorFactory.SOURCE
    ):
        reasons.append("target strategy HEAD_WITH_SOURCES and the source is not a FLIP-27 source")
    if up.parallelism != down.parallelism:
        reasons.append(f"parallelism {up.parallelism} != {down.parallelism}")
    if (
        not graph.config.chain_operators_with_different_max_parallelism
        and up.max_parallelism != down.max_parallelism
    ):
        reasons.append(f"max parallelism {up.max_parallelism} != {down.max_parallelism}")
    if edge.partitioner is not Partitioner.FORWARD:
        reasons.append(f"partitioner {edge.partitioner.value} is not FORWARD")
    if edge.exchange_mode is ExchangeMode.BATCH:
        reasons.append("exchange mode BATCH")
    if any(o is not edge and o.type_number == edge.type_number for o in inputs):
        reasons.append(f"another input of the target has typeNumber {edge.type_number} (union)")
    return reasons


def is_chainable_source(
    graph: StreamGraph, source_id: NodeId, chainable: list[bool]
) -> StreamEdge | None:
    """`isChainableSource`: a FLIP-27 source chained into a HEAD_WITH_SOURCES operator.

    Returns the source's single out-edge when it chains that way.
    """
    node = graph.nodes[source_id]
    outputs = graph.out_edges[source_id]
    if node.factory is not OperatorFactory.SOURCE or len(outputs) != 1:
        return None
    edge = outputs[0]
    target = graph.nodes[edge.target]
    if target.chaining_strategy is not ChainingStrategy.HEAD_WITH_SOURCES:
        return None
    if not is_chainable_input(graph, edge, node.factory):
        return None
    return edge


def rechain_around(
    graph: StreamGraph,
    previous: list[bool],
    previous_outputs: dict[NodeId, int],
    node_id: NodeId,
    yielding: bool,
) -> tuple[list[bool], dict[NodeId, int], list[StreamEdge]] | None:
    """`chainability(graph)` after an edit of node `node_id` alone, from `previous` and
    `previous_outputs` (the graph's before it, with the same edges): only the edges into and
    out of that node can change. Also returns the edges whose chainability changed. None
    when the graph may have a yielding operator (`yielding`), whose chaining depends on the
    chain above it (the whole graph is checked then)."""
    if yielding:
        return None
    chainable = list(previous)
    chained_outputs = previous_outputs
    flipped: list[StreamEdge] = []
    for edge in (*graph.in_edges[node_id], *graph.out_edges[node_id]):
        chains = (
            graph.config.chaining_enabled
            and len(graph.in_edges[edge.target]) == 1
            # No yielding operator here, so the head's factory does not matter.
            and is_chainable_input(graph, edge, OperatorFactory.OPERATOR)
        )
        if chains is chainable[edge.index]:
            continue
        if not flipped:
            chained_outputs = dict(previous_outputs)
        chainable[edge.index] = chains
        chained_outputs[edge.source] += 1 if chains else -1
        flipped.append(edge)
    return chainable, chained_outputs, flipped
