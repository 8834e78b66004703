"""Literal transcriptions of the spec's `is_chainable` (§4) and hasher (§3).

The compiler's `chainability` and `traverse_and_hash` are optimised (one
inlined pass, precomputed seed tables, whole-id integer mixing); these follow
the pseudo-code line by line, on bytes, so property tests can check that both
give the same answers. Only for the small graphs of tests: it recurses.
"""

from __future__ import annotations

import struct
from collections import deque
from functools import cache

import mmh3

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


def reference_chainable(graph: StreamGraph) -> list[bool]:
    """`StreamingJobGraphGenerator.isChainable(edge, streamGraph)` of every edge."""

    @cache
    def head_factory(node_id: NodeId) -> OperatorFactory:
        inputs = graph.in_edges[node_id]
        if len(inputs) == 1 and is_chainable(inputs[0].index):
            return head_factory(inputs[0].source)
        return graph.nodes[node_id].factory

    def operators_chainable(up: StreamNode, down: StreamNode) -> bool:
        if (
            down.factory is OperatorFactory.YIELDING
            and head_factory(up.id) is OperatorFactory.LEGACY_SOURCE
        ):
            return False
        ok = up.chaining_strategy is not ChainingStrategy.NEVER
        if down.chaining_strategy in (ChainingStrategy.NEVER, ChainingStrategy.HEAD):
            ok = False
        elif down.chaining_strategy is ChainingStrategy.HEAD_WITH_SOURCES:
            ok = ok and up.factory is OperatorFactory.SOURCE
        ok = ok and up.parallelism == down.parallelism
        if not graph.config.chain_operators_with_different_max_parallelism:
            ok = ok and up.max_parallelism == down.max_parallelism
        return ok

    def is_chainable_input(edge: StreamEdge) -> bool:
        up, down = graph.nodes[edge.source], graph.nodes[edge.target]
        if not (
            graph.config.chaining_enabled
            and up.slot_sharing_group == down.slot_sharing_group
            and operators_chainable(up, down)
            and edge.partitioner is Partitioner.FORWARD
            and edge.exchange_mode is not ExchangeMode.BATCH
        ):
            return False
        return not any(
            other is not edge and other.type_number == edge.type_number
            for other in graph.in_edges[edge.target]
        )

    @cache
    def is_chainable(index: int) -> bool:
        edge = graph.edges[index]
        return len(graph.in_edges[edge.target]) == 1 and is_chainable_input(edge)

    return [is_chainable(edge.index) for edge in graph.edges]


def reference_hashes(graph: StreamGraph, chainable: list[bool]) -> dict[NodeId, bytes]:
    """`StreamGraphHasherV2.traverseStreamGraphAndGenerateHashes`, 16 bytes per node."""
    hashes: dict[NodeId, bytes] = {}
    visited = set()
    queue: deque[NodeId] = deque()
    for source in sorted(graph.source_ids):
        queue.append(source)
        visited.add(source)
    while queue:
        node_id = queue.popleft()
        if _generate_node_hash(graph, chainable, node_id, hashes):
            for edge in graph.out_edges[node_id]:
                if edge.target not in visited:
                    queue.append(edge.target)
                    visited.add(edge.target)
        else:
            visited.discard(node_id)
    return hashes


def _generate_node_hash(
    graph: StreamGraph, chainable: list[bool], node_id: NodeId, hashes: dict[NodeId, bytes]
) -> bool:
    node = graph.nodes[node_id]
    if node.uid is not None:
        user_hash = mmh3.hash_bytes(node.uid.encode("utf-8", "replace"))
        assert user_hash not in hashes.values(), f"hash collision on uid {node.uid!r}"
        hashes[node_id] = user_hash
        return True
    if any(edge.source not in hashes for edge in graph.in_edges[node_id]):
        return False
    k = len(hashes)
    data = struct.pack("<i", k)
    for edge in graph.out_edges[node_id]:
        if graph.config.chaining_enabled and chainable[edge.index]:
            data += struct.pack("<i", k)
    digest = bytearray(mmh3.hash_bytes(data))
    for edge in graph.in_edges[node_id]:
        other = hashes[edge.source]
        for j in range(16):
            digest[j] = ((digest[j] * 37) ^ other[j]) & 0xFF
    hashes[node_id] = bytes(digest)
    return True
