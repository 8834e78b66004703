"""Flink's id arithmetic: Java `String.hashCode` and `IntermediateDataSetID`."""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from functools import lru_cache
from operator import mul

from compiler.model import Hash128, NodeId, StreamEdge, StreamGraph

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF


def to_int32(value: int) -> int:
    """Wrap to a Java `int`."""
    value &= _MASK32
    return value - (1 << 32) if value & 0x80000000 else value


# 31**j mod 2**32 for j = 0, 1, 2, ...; grown on demand.
_POWERS: list[int] = [1]
_UTF16 = "utf-16-le" if sys.byteorder == "little" else "utf-16-be"


def _power(exponent: int) -> int:
    while len(_POWERS) <= exponent:
        _POWERS.append((_POWERS[-1] * 31) & _MASK32)
    return _POWERS[exponent]


def _units(text: str) -> Sequence[int]:
    """UTF-16 code units (Java's chars) of a string."""
    if text.isascii():
        return text.encode("ascii")
    units = array("H")
    units.frombytes(text.encode(_UTF16, "surrogatepass"))
    return units


@lru_cache(maxsize=1 << 16)
def java_hash_and_length(text: str) -> tuple[int, int]:
    """Unsigned `String.hashCode()` and `String.length()`, for composing hashes.

    Cached: a pipeline recompiled after an edit hashes the same names again.
    """
    units = _units(text)
    _power(len(units))
    # sum(c[i] * 31**(n-1-i)): the powers pair with the units from the end.
    return sum(map(mul, reversed(units), _POWERS)) & _MASK32, len(units)


def java_string_hash(text: str) -> int:
    """`String.hashCode()`: `31*h + c` over UTF-16 code units, Java int overflow."""
    return to_int32(java_hash_and_length(text)[0])


class EdgeIdHasher:
    """`StreamEdge.getEdgeId().hashCode()` for many edges of one graph.

    An edge id is `<src name>-<src id>_<tgt name>-<tgt id>_<typeNumber>_<partitioner>_<k>`;
    the hash of each node's part and of each distinct tail is computed once and
    combined per edge, instead of hashing every edge's whole id.
    """

    def __init__(self, graph: StreamGraph) -> None:
        self._graph = graph
        self._nodes: dict[NodeId, tuple[int, int]] = {}
        self._tails: dict[tuple[int, str, int], tuple[int, int]] = {}

    def _node(self, node_id: NodeId) -> tuple[int, int]:
        node = self._graph.nodes[node_id]
        part = self._nodes[node_id] = java_hash_and_length(f"{node.name}-{node.id}")
        _power(part[1])  # the powers list must reach every length combined below
        return part

    def __call__(self, edge: StreamEdge) -> int:
        key = (edge.type_number, edge.partitioner._value_, edge.unique_id)
        tail = self._tails.get(key)
        if tail is None:
            tail = self._tails[key] = java_hash_and_length(f"_{key[0]}_{key[1]}_{key[2]}")
            _power(tail[1])
        source_hash = (self._nodes.get(edge.source) or self._node(edge.source))[0]
        target_hash, target_length = self._nodes.get(edge.target) or self._node(edge.target)
        # hash(a + "_" + b + tail) = ((hash(a) * 31 + '_') * 31^len(b) + hash(b)) * 31^len(tail)
        #                            + hash(tail), all mod 2^32.
        powers = _POWERS
        h = ((source_hash * 31 + 95) * powers[target_length] + target_hash) * powers[tail[1]]
        return to_int32(h + tail[0])


def intermediate_data_set_id(producer: Hash128, edge_hash: int) -> Hash128:
    """`new IntermediateDataSetID(JobVertexID producer, int hash)` (Flink 2.3).

    The constructor swaps the halves of the producer id and adds the
    sign-extended hash to each, wrapping at 64 bits.
    """
    lower = producer >> 64
    upper = producer & _MASK64
    return Hash128((((upper + edge_hash) & _MASK64) << 64) | ((lower + edge_hash) & _MASK64))
