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
    chainable = [False] * len(graph.edges)
    if not graph.config.chaining_enabled:
        return chainable
    # Head factory of the chain each node would be in (getHeadOperator, FLINK-16219):
    # computed in topological order so an input's value is always known.
    head_factory: dict[NodeId, OperatorFactory] = {}
    in_edges = graph.in_edges
    nodes = graph.nodes
    for nid in graph.topological_order:
        inputs = in_edges[nid]
        if len(inputs) == 1:
            edge = inputs[0]
            ok = is_chainable_input(graph, edge, head_factory[edge.source])
            chainable[edge.index] = ok
            head_factory[nid] = head_factory[edge.source] if ok else nodes[nid].factory
        else:
            head_factory[nid] = nodes[nid].factory
    return chainable


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
