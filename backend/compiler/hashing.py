"""Node hashes exactly as Flink 2.3's StreamGraphHasherV2 (and the legacy uidHash).

FROZEN: this reproduces `StreamGraphHasherV2` byte for byte, and users' saved
state is addressed by these ids. Never edit the algorithm in place; a new Flink
hashing scheme gets a new function next to this one.

Traversal (documented because it reaches the output): breadth first from the
sources in ascending node id; a node is hashed when all its inputs are (or at
once, if it has a uid); children are enqueued in out-edge order. The auto hash
of a node is murmur3_x64_128 of LE32(k) repeated 1 + (number of chainable
out-edges) times, k = number of nodes hashed before it, then mixed with every
input's hash in in-edge order: `h[j] = (h[j] * 37) ^ input[j]` per byte.
"""

from __future__ import annotations

import struct
from collections import deque

import mmh3

from compiler.document import encode_java_utf8
from compiler.model import Hash128, NodeId, StreamGraph

# Byte-wise "h[j] * 37 mod 256" on all 16 bytes at once: spread the even and the
# odd bytes into 16-bit lanes, where the product (<= 255 * 37) cannot carry over.
_EVEN_BYTES = int("00ff" * 8, 16)


def murmur3_128(data: bytes) -> Hash128:
    """Guava's `Hashing.murmur3_128(0)` as a big-endian int of `hash().asBytes()`."""
    return Hash128(int.from_bytes(mmh3.hash_bytes(data), "big"))


def hash_uid(uid: str) -> Hash128:
    """`generateOperatorID(uid)`: the OperatorID of a user-specified uid."""
    return murmur3_128(encode_java_utf8(uid))


def mix_input(own: int, other: int) -> int:
    """`hash[j] = (byte) (hash[j] * 37 ^ other[j])` for all 16 bytes."""
    low = ((own & _EVEN_BYTES) * 37) & _EVEN_BYTES
    high = (((own >> 8) & _EVEN_BYTES) * 37) & _EVEN_BYTES
    return (low | (high << 8)) ^ other


def traverse_and_hash(graph: StreamGraph, chainable: list[bool]) -> dict[NodeId, Hash128]:
    """`StreamGraphHasherV2.traverseStreamGraphAndGenerateHashes`."""
    out_edges = graph.out_edges
    nodes = graph.nodes
    # What each node's hash needs, gathered once: its uid, its inputs in in-edge
    # order and how many of its out-edges chain.
    inputs = {nid: tuple(e.source for e in edges) for nid, edges in graph.in_edges.items()}
    chained_outputs = {
        nid: sum(1 for e in edges if chainable[e.index]) for nid, edges in out_edges.items()
    }
    children = {nid: tuple(e.target for e in edges) for nid, edges in out_edges.items()}
    pack = struct.Struct("<i").pack
    hash_bytes = mmh3.hash_bytes
    from_bytes = int.from_bytes

    hashes: dict[NodeId, Hash128] = {}
    visited = set(graph.source_ids)
    queue = deque(graph.source_ids)
    while queue:
        nid = queue.popleft()
        uid = nodes[nid].uid
        if uid is not None:
            hashes[nid] = hash_uid(uid)
        else:
            sources = inputs[nid]
            if not all(s in hashes for s in sources):
                visited.discard(nid)  # another input will enqueue it again
                continue
            h = from_bytes(hash_bytes(pack(len(hashes)) * (1 + chained_outputs[nid])), "big")
            for s in sources:
                h = mix_input(h, hashes[s])
            hashes[nid] = Hash128(h)
        for child in children[nid]:
            if child not in visited:
                visited.add(child)
                queue.append(child)
    return hashes


def user_hashes(graph: StreamGraph) -> dict[NodeId, Hash128 | None]:
    """`StreamGraphUserHashHasher`: the user-provided `uidHash` of each node, or None."""
    return {
        nid: Hash128(int(node.uid_hash, 16)) if node.uid_hash is not None else None
        for nid, node in graph.nodes.items()
    }


def to_hex(value: int) -> str:
    """`AbstractID.toString()`."""
    return f"{value:032x}"
