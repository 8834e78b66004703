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

import heapq
import struct
from collections import deque
from collections.abc import Iterable
from typing import cast

import mmh3

from compiler.document import encode_java_utf8
from compiler.model import Hash128, NodeId, StreamGraph, StreamNode

# `(byte) (b * 37)` for every byte value: the per-byte multiply of the input mixing,
# applied to all 16 bytes at once with `bytes.translate`.
_TIMES_37 = bytes((b * 37) & 0xFF for b in range(256))

# murmur3(LE32(k) * (1 + c)) for the k-th hashed node with c chainable out-edges,
# as an int and already multiplied for mixing. A pure function of (k, c), so the
# tables are filled once per process and shared by every compilation: the
# traversal then costs a lookup per node instead of a murmur3 call.
_LE32 = struct.Struct("<i").pack
_PLAIN_SEEDS: list[list[int]] = []
_MIXED_SEEDS: list[list[int]] = []


def _seed_tables(nodes: int, max_chained: int) -> tuple[list[list[int]], list[list[int]]]:
    """Seed tables covering k < nodes and c <= max_chained."""
    while len(_PLAIN_SEEDS) <= max_chained:
        _PLAIN_SEEDS.append([])
        _MIXED_SEEDS.append([])
    for chained in range(max_chained + 1):
        plain, mixed = _PLAIN_SEEDS[chained], _MIXED_SEEDS[chained]
        for k in range(len(plain), nodes):
            seed = mmh3.hash_bytes(_LE32(k) * (1 + chained))
            plain.append(int.from_bytes(seed, "big"))
            mixed.append(int.from_bytes(seed.translate(_TIMES_37), "big"))
    return _PLAIN_SEEDS, _MIXED_SEEDS


def murmur3_128(data: bytes) -> Hash128:
    """Guava's `Hashing.murmur3_128(0)` as a big-endian int of `hash().asBytes()`."""
    return Hash128(int.from_bytes(mmh3.hash_bytes(data), "big"))


def hash_uid(uid: str) -> Hash128:
    """`generateOperatorID(uid)`: the OperatorID of a user-specified uid."""
    return murmur3_128(encode_java_utf8(uid))


def traverse_and_hash(
    graph: StreamGraph, chainable: list[bool], chained_outputs: dict[NodeId, int] | None = None
) -> dict[NodeId, Hash128]:
    """`StreamGraphHasherV2.traverseStreamGraphAndGenerateHashes`.

    The result's insertion order is the hashing order (k = position).
    """
    nodes = graph.nodes
    inputs = graph.input_ids
    children = graph.output_ids
    uids = graph.uids
    if chained_outputs is None:
        chained_outputs = dict.fromkeys(nodes, 0)
        for edge, chains in zip(graph.edges, chainable, strict=True):
            if chains:
                chained_outputs[edge.source] += 1
    plain_seeds, mixed_seeds = _seed_tables(len(nodes), max(chained_outputs.values(), default=0))
    from_bytes = int.from_bytes
    times_37 = _TIMES_37

    hashes: dict[NodeId, int] = {}  # Hash128 values; NewType calls cost time per node
    visited = set(graph.source_ids)
    queue = deque(graph.source_ids)
    popleft = queue.popleft
    enqueue = queue.append
    while queue:
        nid = popleft()
        if uids and nid in uids:
            hashes[nid] = hash_uid(uids[nid])
        else:
            sources = inputs[nid]
            if len(sources) == 1:
                source_hash = hashes.get(sources[0])
                if source_hash is None:
                    visited.discard(nid)  # its input will enqueue it again
                    continue
                h = mixed_seeds[chained_outputs[nid]][len(hashes)] ^ source_hash
            elif not sources:
                h = plain_seeds[chained_outputs[nid]][len(hashes)]
            else:
                if not all(s in hashes for s in sources):
                    visited.discard(nid)
                    continue
                h = plain_seeds[chained_outputs[nid]][len(hashes)]
                for s in sources:
                    h = from_bytes(h.to_bytes(16, "big").translate(times_37), "big") ^ hashes[s]
            hashes[nid] = h
        for child in children[nid]:
            if child not in visited:
                visited.add(child)
                enqueue(child)
    return cast(dict[NodeId, Hash128], hashes)


def user_hashes(graph: StreamGraph) -> dict[NodeId, Hash128 | None]:
    """`StreamGraphUserHashHasher`: the user-provided `uidHash` of each node, or None."""
    return {nid: user_hash(node) for nid, node in graph.nodes.items()}


def user_hash(node: StreamNode) -> Hash128 | None:
    """The user-provided `uidHash` of one node, or None."""
    return Hash128(int(node.uid_hash, 16)) if node.uid_hash is not None else None


def to_hex(value: int) -> str:
    """`AbstractID.toString()` (of a 128-bit value: the fastest way Python writes it)."""
    return value.to_bytes(16, "big").hex()


def rehash(
    graph: StreamGraph,
    chained_outputs: dict[NodeId, int],
    previous: dict[NodeId, Hash128],
    positions: dict[NodeId, int],
    changed: Iterable[NodeId],
) -> tuple[dict[NodeId, Hash128], set[NodeId]]:
    """`traverse_and_hash` again, from `previous`: the hashes of a graph with the same
    nodes, edges and uids (hence the same traversal; `positions` is each node's place in
    it), whose chained-output counts differed only at `changed`. Those nodes are hashed
    again, then every node an input hash of which changed, each after all its inputs: after
    an edit that breaks one chain, the nodes downstream of it, not the whole graph.

    Returns the hashes (in traversal order) and the nodes whose hash changed.
    """
    hashes: dict[NodeId, int] = dict(previous)  # Hash128 values, as in `traverse_and_hash`
    uids = graph.uids
    inputs = graph.input_ids
    children = graph.output_ids
    size = len(graph.nodes)
    plain_seeds, mixed_seeds = _seed_tables(size, 0)
    pending = [(positions[n], n) for n in set(changed)]
    heapq.heapify(pending)
    queued = {n for _, n in pending}
    moved: set[NodeId] = set()
    while pending:
        k, nid = heapq.heappop(pending)
        # A node whose one input is the node just hashed is hashed next, off the heap: its
        # hash depends on nothing else, and most of a broken chain's downstream is such.
        while nid not in uids:  # a uid's node's hash is its uid's
            chained = chained_outputs[nid]
            if chained >= len(plain_seeds) or k >= len(plain_seeds[chained]):
                plain_seeds, mixed_seeds = _seed_tables(size, chained)
            sources = inputs[nid]
            if len(sources) == 1:
                h = mixed_seeds[chained][k] ^ hashes[sources[0]]
            else:
                h = plain_seeds[chained][k]
                for s in sources:
                    h = int.from_bytes(h.to_bytes(16, "big").translate(_TIMES_37), "big")
                    h ^= hashes[s]
            if h == hashes[nid]:
                break
            hashes[nid] = h
            moved.add(nid)
            follow = None
            for child in children[nid]:
                if child in queued:
                    continue
                queued.add(child)
                if follow is None and len(inputs[child]) == 1:
                    follow = child
                else:
                    heapq.heappush(pending, (positions[child], child))
            if follow is None:
                break
            nid, k = follow, positions[follow]
    return cast(dict[NodeId, Hash128], hashes), moved
