"""The test vectors of the Flink semantics spec (§7.2, §8, §11.3, §14, §15).

Hashes, names, operator orders and data-set ids here were printed by real
Flink 2.3.0 (or by Guava / Flink's static helpers for the primitives); the
small graphs are built with `GraphBuilder`.
"""

from __future__ import annotations

import struct
from typing import Any

import pytest

from compiler.execution import ExecutionEdge
from compiler.hashing import hash_uid, murmur3_128, to_hex
from compiler.ids import intermediate_data_set_id, java_string_hash
from compiler.jobgraph import JobVertex
from compiler.model import DistributionPattern, Hash128, NodeId
from compiler.pipeline import Compilation, compile_document
from tests.compiler.builders import GraphBuilder


def le32(*values: int) -> bytes:
    return b"".join(struct.pack("<i", v) for v in values)


def compiled(document: dict[str, Any]) -> Compilation:
    compilation = compile_document(document)
    assert [str(d) for d in compilation.diagnostics] == []
    assert compilation.ok
    return compilation


def hashes_of(c: Compilation) -> dict[int, str]:
    return {nid: to_hex(h) for nid, h in c.hashes.items()}


def vertex_of(c: Compilation, head: int) -> JobVertex:
    assert c.job_graph is not None
    return c.job_graph.vertex(c.hashes[NodeId(head)])


def creation_heads(c: Compilation) -> list[int]:
    assert c.job_graph is not None
    return [v.head for v in c.job_graph.vertices_in_creation_order]


def topological_heads(c: Compilation) -> list[int]:
    assert c.job_graph is not None
    return [v.head for v in c.job_graph.vertices]


def names(c: Compilation) -> list[str]:
    assert c.job_graph is not None
    return [v.name for v in c.job_graph.vertices_in_creation_order]


# §15.1 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (le32(0), "bc764cd8ddf7a0cff126f51c16239658"),
        (le32(0, 0), "cbc357ccb763df2852fee8c4fc7d55f2"),
        (le32(1), "feca28aff5a3958840bee985ee7de4d3"),
        (le32(1, 1), "6cdc5bb954874d922eaee11a8e7b5dd5"),
        (le32(2), "605b35e407e90cda15ad084365733fdd"),
        (b"", "00000000000000000000000000000000"),
    ],
    ids=["le32(0)", "le32(0)x2", "le32(1)", "le32(1)x2", "le32(2)", "empty"],
)
def test_primitive_hashes(data: bytes, expected: str) -> None:
    assert to_hex(murmur3_128(data)) == expected


@pytest.mark.parametrize(
    ("uid", "expected"),
    [
        ("source", "e5a72f353fc1e6bbf3bd96a41384998c"),
        ("sink", "2e588ce1c86a9d46e2e85186773ce4fd"),
        ("map", "23ab3a59b17e9c45f95cff4c728611fc"),
        ("uid-1", "c49f9afd6c708fcc3cdcba1bd00469ba"),
        ("a", "897859f6655555855a890e51483ab5e6"),
        ("é中", "2850d0d5db2d01f5ce91c7d4b36ec6b4"),
        ("\ud800", "ec2b5ca0ecce9d82cac2fdea62a4219f"),
        ("", "00000000000000000000000000000000"),
    ],
    ids=["source", "sink", "map", "uid-1", "a", "non-ascii", "lone-surrogate", "empty"],
)
def test_uid_hashes(uid: str, expected: str) -> None:
    assert to_hex(hash_uid(uid)) == expected


def test_lone_surrogate_is_encoded_as_a_question_mark() -> None:
    assert hash_uid("\ud800") == murmur3_128(b"?") == hash_uid("?")


def test_to_hex_pads_to_32_characters() -> None:
    assert to_hex(Hash128(1)) == "0" * 31 + "1"


# §15.2 ----------------------------------------------------------------------------------------

HASH_A = {
    1: "cbc357ccb763df2852fee8c4fc7d55f2",
    2: "570f707193e0fe32f4d86d067aba243b",
    3: "b728d985904d42b0fdd945a9e3253fca",
}


def graph_a(options: dict[int, dict[str, Any]] | None = None) -> GraphBuilder:
    """Graph A of §15.2; `options` adds node keyword arguments by node id."""
    extra = options or {}
    return (
        GraphBuilder()
        .node(1, "Source: src", parallelism=4, strategy="HEAD", **extra.get(1, {}))
        .node(2, "Map", parallelism=4, **extra.get(2, {}))
        .node(3, "Sink: sink", parallelism=4, **extra.get(3, {}))
        .edge(1, 2)
        .edge(2, 3)
    )


def test_graph_a_one_chain() -> None:
    c = compiled(graph_a().build())
    assert hashes_of(c) == HASH_A
    assert creation_heads(c) == [1]
    vertex = vertex_of(c, 1)
    assert to_hex(vertex.id) == HASH_A[1]
    assert vertex.name == "Source: src -> Map -> Sink: sink"
    assert vertex.nodes == (3, 2, 1)
    assert [to_hex(g) for g, _ in vertex.operator_ids] == [HASH_A[3], HASH_A[2], HASH_A[1]]
    assert vertex.inputs == [] and vertex.produced_data_sets == []


def test_graph_b_chaining_disabled() -> None:
    c = compiled(graph_a().config(chaining_enabled=False).build())
    assert hashes_of(c) == {
        1: "bc764cd8ddf7a0cff126f51c16239658",
        2: "0a448493b4782967b150582570326227",
        3: "ea632d67b7d595e5b851708ae9ad79d6",
    }
    assert creation_heads(c) == [3, 2, 1]
    assert topological_heads(c) == [1, 2, 3]
    for head in (2, 3):
        (edge,) = vertex_of(c, head).inputs
        assert edge.ship_strategy.value == "FORWARD"
        assert edge.distribution_pattern is DistributionPattern.POINTWISE
        assert edge.is_forward


def test_graph_c_keyed_reduce() -> None:
    doc = (
        GraphBuilder()
        .node(1, "Source: src", parallelism=4, strategy="HEAD")
        .node(2, "Map", parallelism=4)
        .node(4, "Keyed Reduce", parallelism=4)
        .node(5, "Sink: sink", parallelism=4)
        .edge(1, 2)
        .edge(2, 4, partitioner="HASH")
        .edge(4, 5)
        .build()
    )
    c = compiled(doc)
    assert hashes_of(c) == {
        1: "cbc357ccb763df2852fee8c4fc7d55f2",
        2: "7df19f87deec5680128845fd9a6ca18d",
        4: "90bea66de1c231edf33913ecd54406c1",
        5: "17fbfcaabad45985bbdf4da0490487e3",
    }
    assert names(c) == ["Keyed Reduce -> Sink: sink", "Source: src -> Map"]
    assert c.job_graph is not None
    assert [v.nodes for v in c.job_graph.vertices_in_creation_order] == [(5, 4), (2, 1)]
    (edge,) = vertex_of(c, 4).inputs
    assert edge.stream_edge.source == 2 and edge.stream_edge.target == 4
    assert edge.ship_strategy.value == "HASH"
    assert edge.distribution_pattern is DistributionPattern.ALL_TO_ALL
    assert not edge.is_forward


def test_graph_d_union_without_chaining() -> None:
    doc = (
        GraphBuilder()
        .config(chaining_enabled=False, default_parallelism=2)
        .node(1, "Source: s1", parallelism=2, strategy="HEAD")
        .node(2, "Source: s2", parallelism=2, strategy="HEAD")
        .node(3, "Sink", parallelism=2)
        .edge(1, 3)
        .edge(2, 3)
        .build()
    )
    c = compiled(doc)
    assert hashes_of(c) == {
        1: "bc764cd8ddf7a0cff126f51c16239658",
        2: "feca28aff5a3958840bee985ee7de4d3",
        3: "b27f31f3e3a199a9981d185a455185be",
    }
    assert creation_heads(c) == [3, 1, 2]
    producers = [e.producer for e in vertex_of(c, 3).inputs]
    assert producers == [c.hashes[NodeId(1)], c.hashes[NodeId(2)]]


def test_graph_e_uids() -> None:
    c = compiled(graph_a({1: {"uid": "source"}, 2: {"uid": "map"}}).build())
    assert hashes_of(c) == {
        1: "e5a72f353fc1e6bbf3bd96a41384998c",
        2: "23ab3a59b17e9c45f95cff4c728611fc",
        3: "c38c93adb2d320c7f05dd7e3eb190a0d",
    }


def fork(source_name: str, sink_suffix: str) -> GraphBuilder:
    return (
        GraphBuilder()
        .node(1, source_name, parallelism=2, strategy="HEAD")
        .node(2, "m1", parallelism=2)
        .node(3, "m2", parallelism=2)
        .node(4, "k1" + sink_suffix, parallelism=2)
        .node(5, "k2" + sink_suffix, parallelism=2)
        .edge(1, 2)
        .edge(1, 3)
        .edge(2, 4)
        .edge(3, 5)
    )


def test_graph_f_fork_in_one_chain() -> None:
    c = compiled(fork("Source: src", "").build())
    assert hashes_of(c) == {
        1: "e3dfc0d7e9ecd8a43f85f0b68ebf3b80",
        2: "7f13e76acd6ff9be99a3757408784a49",
        3: "0e90f93dd6c2bfc9de34a6a7c1979ccc",
        4: "f856bdad967991d6d1452b389438cb6b",
        5: "be0316302f6f90c52cb82c8f0f9ee3db",
    }
    assert names(c) == ["Source: src -> (m1 -> k1, m2 -> k2)"]
    assert vertex_of(c, 1).nodes == (4, 2, 5, 3, 1)


def test_graph_g_rebalance_to_wider_chain() -> None:
    doc = (
        GraphBuilder()
        .node(1, "Source: src", parallelism=1, strategy="HEAD")
        .node(2, "Map", parallelism=4)
        .node(3, "Sink: sink", parallelism=4)
        .edge(1, 2, partitioner="REBALANCE")
        .edge(2, 3)
        .build()
    )
    c = compiled(doc)
    assert hashes_of(c) == {
        1: "bc764cd8ddf7a0cff126f51c16239658",
        2: "20ba6b65f97481d5570070de90e4e791",
        3: "c09dc291fad93d575e015871097bfc60",
    }
    assert names(c) == ["Map -> Sink: sink", "Source: src"]
    (edge,) = vertex_of(c, 2).inputs
    assert edge.ship_strategy.value == "REBALANCE"
    assert edge.distribution_pattern is DistributionPattern.ALL_TO_ALL


# §15.5 (real Flink 2.3.0 runs) -----------------------------------------------------------------


def sequence_pipeline(ids: tuple[int, int, int, int], **config: Any) -> dict[str, Any]:
    """`fromSequence.map.filter.sinkTo(DiscardingSink)` at parallelism 4."""
    source, mapper, filt, writer = ids
    return (
        GraphBuilder()
        .config(default_parallelism=4, **config)
        .node(source, "Source: Sequence Source", parallelism=4, factory="SOURCE")
        .node(mapper, "Map", parallelism=4)
        .node(filt, "Filter", parallelism=4)
        .node(writer, "Sink: Writer", parallelism=4, factory="YIELDING")
        .edge(source, mapper)
        .edge(mapper, filt)
        .edge(filt, writer)
        .build()
    )


def test_j1_sequence_chain() -> None:
    c = compiled(sequence_pipeline((1, 2, 3, 6)))
    assert hashes_of(c) == {
        1: "cbc357ccb763df2852fee8c4fc7d55f2",
        2: "570f707193e0fe32f4d86d067aba243b",
        3: "ba40499bacce995f15693b1735928377",
        6: "3d05135cf7d8f1375d8f655ba9d20255",
    }
    assert names(c) == ["Source: Sequence Source -> Map -> Filter -> Sink: Writer"]
    assert to_hex(vertex_of(c, 1).id) == "cbc357ccb763df2852fee8c4fc7d55f2"
    assert vertex_of(c, 1).nodes == (6, 3, 2, 1)


def test_j2_chaining_disabled_data_set_ids() -> None:
    # The second job of that JVM: its transformations took ids 7, 8, 9 and the writer 12.
    c = compiled(sequence_pipeline((7, 8, 9, 12), chaining_enabled=False))
    assert hashes_of(c) == {
        7: "bc764cd8ddf7a0cff126f51c16239658",
        8: "0a448493b4782967b150582570326227",
        9: "ea632d67b7d595e5b851708ae9ad79d6",
        12: "6d2677a0ecc3fd8df0b72ec675edf8f4",
    }
    assert creation_heads(c) == [12, 9, 8, 7]
    expected_data_sets = {
        8: "f126f51c31ee4e8bbc764cd8f9c25902",
        9: "b1505825078a52cb0a4484934bd01a0b",
        12: "b851708ad1055305ea632d679f2d6f14",
    }
    for consumer, data_set in expected_data_sets.items():
        (edge,) = vertex_of(c, consumer).inputs
        assert to_hex(edge.data_set) == data_set
        assert edge.ship_strategy.value == "FORWARD"
        assert edge.distribution_pattern is DistributionPattern.POINTWISE
        assert edge.result_partition_type.value == "PIPELINED_BOUNDED"
        assert edge.is_forward


def test_j3_keyed_reduce_data_set() -> None:
    doc = (
        GraphBuilder()
        .node(13, "Source: Sequence Source", parallelism=4, factory="SOURCE")
        .node(14, "Map", parallelism=4)
        .node(16, "Keyed Reduce", parallelism=4)
        .node(19, "Sink: Writer", parallelism=4, factory="YIELDING")
        .edge(13, 14)
        .edge(14, 16, partitioner="HASH")
        .edge(16, 19)
        .build()
    )
    c = compiled(doc)
    assert names(c) == ["Keyed Reduce -> Sink: Writer", "Source: Sequence Source -> Map"]
    reduce_vertex = vertex_of(c, 16)
    assert to_hex(reduce_vertex.id) == "90bea66de1c231edf33913ecd54406c1"
    assert [to_hex(g) for g, _ in reduce_vertex.operator_ids] == [
        "17fbfcaabad45985bbdf4da0490487e3",
        "90bea66de1c231edf33913ecd54406c1",
    ]
    assert [to_hex(g) for g, _ in vertex_of(c, 13).operator_ids] == [
        "7df19f87deec5680128845fd9a6ca18d",
        "cbc357ccb763df2852fee8c4fc7d55f2",
    ]
    (edge,) = reduce_vertex.inputs
    assert edge.ship_strategy.value == "HASH"
    assert edge.distribution_pattern is DistributionPattern.ALL_TO_ALL
    assert to_hex(edge.data_set) == "52fee8c499ea1f00cbc357cc54d0a836"


def test_j4_union_data_sets() -> None:
    # Fourth job of the JVM: sources 22 and 23, the writer 27.
    doc = (
        GraphBuilder()
        .config(chaining_enabled=False, default_parallelism=2)
        .node(22, "Source: s1", parallelism=2, factory="SOURCE")
        .node(23, "Source: s2", parallelism=2, factory="SOURCE")
        .node(27, "sink: Writer", parallelism=2, factory="YIELDING")
        .edge(22, 27)
        .edge(23, 27)
        .build()
    )
    c = compiled(doc)
    assert hashes_of(c) == {
        22: "bc764cd8ddf7a0cff126f51c16239658",
        23: "feca28aff5a3958840bee985ee7de4d3",
        27: "b27f31f3e3a199a9981d185a455185be",
    }
    inputs = vertex_of(c, 27).inputs
    assert [(e.producer, to_hex(e.data_set)) for e in inputs] == [
        (c.hashes[NodeId(22)], "f126f51c02512fd5bc764cd8ca253a4c"),
        (c.hashes[NodeId(23)], "40bee9858c2ba2b0feca28af93515365"),
    ]
    assert names(c) == ["sink: Writer", "Source: s1", "Source: s2"]


def test_j5_uids_with_a_flip27_source() -> None:
    doc = sequence_pipeline((1, 2, 3, 6))
    doc["nodes"][0]["uid"] = "source"
    doc["nodes"][1]["uid"] = "map"
    del doc["nodes"][2], doc["edges"][2]
    doc["edges"][1]["target"] = 6
    c = compiled(doc)
    assert hashes_of(c) == {
        1: "e5a72f353fc1e6bbf3bd96a41384998c",
        2: "23ab3a59b17e9c45f95cff4c728611fc",
        6: "c38c93adb2d320c7f05dd7e3eb190a0d",
    }


def test_j6_fork_names_and_operator_order() -> None:
    c = compiled(fork("Source: Sequence Source", ": Writer").build())
    assert names(c) == ["Source: Sequence Source -> (m1 -> k1: Writer, m2 -> k2: Writer)"]
    # [k1, m1, k2, m2, src]
    assert vertex_of(c, 1).nodes == (4, 2, 5, 3, 1)


def test_j9_flip27_sources_chained_into_a_multiple_input_operator() -> None:
    doc = (
        GraphBuilder()
        .config(default_parallelism=2)
        .node(1, "Source: source-1", parallelism=2, factory="SOURCE")
        .node(2, "Source: source-2", parallelism=2, factory="SOURCE")
        .node(3, "mit", parallelism=2, strategy="HEAD_WITH_SOURCES")
        .node(4, "sink: Writer", parallelism=2, factory="YIELDING")
        .edge(1, 3, type_number=1)
        .edge(2, 3, type_number=2)
        .edge(3, 4, partitioner="REBALANCE")
        .build()
    )
    c = compiled(doc)
    assert hashes_of(c) == {
        1: "bc764cd8ddf7a0cff126f51c16239658",
        2: "feca28aff5a3958840bee985ee7de4d3",
        3: "b27f31f3e3a199a9981d185a455185be",
        4: "353a6b34b8b7f1c1d0fb4616d911049c",
    }
    assert c.job_graph is not None
    assert len(c.job_graph.vertices) == 2
    mit = vertex_of(c, 3)
    assert mit.name == "mit [Source: source-1, Source: source-2]"
    assert [to_hex(g) for g, _ in mit.operator_ids] == ["b27f31f3e3a199a9981d185a455185be"]
    assert mit.chained_sources == (1, 2)
    assert mit.is_input_vertex
    of_node = c.job_graph.vertex_of_node
    assert of_node[NodeId(1)] == of_node[NodeId(2)] == mit.id


def test_j10_uid_hash_fills_only_the_user_defined_operator_id() -> None:
    plain = compiled(graph_a().build())
    doc = graph_a({2: {"uid_hash": "a" * 32}}).build()
    c = compiled(doc)
    assert c.hashes == plain.hashes
    assert vertex_of(c, 1).id == vertex_of(plain, 1).id
    assert [(to_hex(g), u and to_hex(u)) for g, u in vertex_of(c, 1).operator_ids] == [
        (HASH_A[3], None),
        (HASH_A[2], "a" * 32),
        (HASH_A[1], None),
    ]


def test_j11_union_of_two_rebalanced_branches() -> None:
    doc = (
        GraphBuilder()
        .config(default_parallelism=3)
        .node(1, "Source: src", parallelism=1, factory="SOURCE")
        .node(2, "a", parallelism=3)
        .node(3, "b", parallelism=3)
        .node(4, "u", parallelism=3)
        .node(5, "sink: Writer", parallelism=3, factory="YIELDING")
        .edge(1, 2, partitioner="REBALANCE")
        .edge(1, 3, partitioner="REBALANCE")
        .edge(2, 4)
        .edge(3, 4)
        .edge(4, 5)
        .build()
    )
    c = compiled(doc)
    hashes = hashes_of(c)
    assert hashes[2] == "0a448493b4782967b150582570326227"
    assert hashes[3] == "5c51e52cde5a1c4df827ddb38fbc8da9"
    assert hashes[4] == "0724ffedeed81c5f5829a6ad685f7a35"
    assert hashes[5] == "b7b710e017753353aaa52c85a6560522"
    union = vertex_of(c, 4)
    assert union.name == "u -> sink: Writer"
    assert [e.producer for e in union.inputs] == [c.hashes[NodeId(2)], c.hashes[NodeId(3)]]
    assert topological_heads(c) == [1, 2, 3, 4]


def test_j12_print_sink_names() -> None:
    doc = graph_a().build()
    doc["nodes"][0]["name"] = "Source: Sequence Source"
    doc["nodes"][2]["name"] = "Sink: Print to Std. Out"
    c = compiled(doc)
    assert hashes_of(c) == HASH_A
    assert names(c) == ["Source: Sequence Source -> Map -> Sink: Print to Std. Out"]


def test_j13_slot_sharing_group_is_inherited_downstream() -> None:
    doc = (
        GraphBuilder()
        .config(default_parallelism=2)
        .node(1, "Source: Sequence Source", parallelism=2, factory="SOURCE")
        .node(2, "Map", parallelism=2, slot_sharing_group="a")
        .node(3, "Map", parallelism=2)
        .node(5, "Sink: Writer", parallelism=2, factory="YIELDING")
        .edge(1, 2)
        .edge(2, 3, partitioner="REBALANCE")
        .edge(3, 5)
        .build()
    )
    c = compiled(doc)
    assert c.job_graph is not None
    assert to_hex(vertex_of(c, 2).id) == "0a448493b4782967b150582570326227"
    downstream = vertex_of(c, 3)
    assert to_hex(downstream.id) == "e70bbd798b564e0a50e10e343f1ac56b"
    assert downstream.name == "Map -> Sink: Writer"
    source = vertex_of(c, 1)
    assert source.slot_sharing_group_name == "default"
    assert vertex_of(c, 2).slot_sharing_group_name == downstream.slot_sharing_group_name == "a"
    assert vertex_of(c, 2).slot_sharing_group == downstream.slot_sharing_group
    assert source.slot_sharing_group != downstream.slot_sharing_group
    assert [(g.name, g.slots) for g in c.job_graph.slot_sharing_groups] == [
        ("default", 2),
        ("a", 2),
    ]


def test_j14_batch_consumers_share_a_blocking_data_set() -> None:
    doc = (
        GraphBuilder()
        .config(runtime_mode="BATCH", default_parallelism=2)
        .node(1, "Source: src", parallelism=2, factory="SOURCE")
        .node(2, "k1", parallelism=3)
        .node(3, "k2", parallelism=3)
        .node(4, "k3", parallelism=4)
        .edge(1, 2, partitioner="REBALANCE")
        .edge(1, 3, partitioner="REBALANCE")
        .edge(1, 4, partitioner="REBALANCE")
        .build()
    )
    c = compiled(doc)
    assert c.job_graph is not None
    source = vertex_of(c, 1)
    assert [
        (d.result_partition_type.value, [e.target for e in d.consumers])
        for d in source.produced_data_sets
    ] == [
        ("BLOCKING", [c.hashes[NodeId(2)], c.hashes[NodeId(3)]]),
        ("BLOCKING", [c.hashes[NodeId(4)]]),
    ]
    assert len({v.slot_sharing_group for v in c.job_graph.vertices}) == 4


def test_j15_rescale_is_pointwise_but_not_forward() -> None:
    doc = (
        GraphBuilder()
        .node(1, "Source: Sequence Source", parallelism=2, factory="SOURCE")
        .node(2, "Map", parallelism=4)
        .node(4, "Sink: Writer", parallelism=4, factory="YIELDING")
        .edge(1, 2, partitioner="RESCALE")
        .edge(2, 4)
        .build()
    )
    c = compiled(doc)
    assert names(c) == ["Map -> Sink: Writer", "Source: Sequence Source"]
    (edge,) = vertex_of(c, 2).inputs
    assert edge.distribution_pattern is DistributionPattern.POINTWISE
    assert edge.ship_strategy.value == "RESCALE"
    assert not edge.is_forward


# §7.2 -----------------------------------------------------------------------------------------


def test_java_string_hash_of_an_edge_id() -> None:
    assert java_string_hash("Source: Sequence Source-7_Map-8_0_FORWARD_0") == 466270259
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("hello") == 99162322
    # Wraps as a Java int, and counts UTF-16 code units (a surrogate pair is two).
    assert java_string_hash("polygenelubricants") == -(1 << 31)
    assert java_string_hash("\U0001f600") == 0xD83D * 31 + 0xDE00


@pytest.mark.parametrize(
    ("producer", "edge_hash", "expected"),
    [
        ("bc764cd8ddf7a0cff126f51c16239658", 466270259, "f126f51c31ee4e8bbc764cd8f9c25902"),
        ("0102030405060708090a0b0c0d0e0f10", 5, "090a0b0c0d0e0f15010203040506070d"),
        ("0102030405060708090a0b0c0d0e0f10", -1, "090a0b0c0d0e0f0f0102030405060707"),
    ],
)
def test_intermediate_data_set_id(producer: str, edge_hash: int, expected: str) -> None:
    assert to_hex(intermediate_data_set_id(Hash128(int(producer, 16)), edge_hash)) == expected


def test_intermediate_data_set_id_wraps_at_64_bits() -> None:
    producer = Hash128(int("ffffffffffffffff" + "0000000000000000", 16))
    assert to_hex(intermediate_data_set_id(producer, 1)) == "0000000000000001" + "0" * 16


# §8 -------------------------------------------------------------------------------------------


def slot_example(map_group: str | None) -> dict[str, Any]:
    return (
        GraphBuilder()
        .node(1, "Source: src", parallelism=1, strategy="HEAD")
        .node(2, "Map", parallelism=4, slot_sharing_group=map_group)
        .node(3, "Sink: sink", parallelism=4)
        .edge(1, 2, partitioner="REBALANCE")
        .edge(2, 3)
        .build()
    )


def test_slots_required_with_one_default_group() -> None:
    c = compiled(slot_example(None))
    assert c.job_graph is not None
    assert c.job_graph.slots_required == 4
    assert [(g.name, g.slots) for g in c.job_graph.slot_sharing_groups] == [("default", 4)]


def test_slots_required_with_a_named_group_inherited_by_the_sink() -> None:
    c = compiled(slot_example("a"))
    assert c.job_graph is not None and c.graph is not None
    assert c.graph.nodes[NodeId(3)].slot_sharing_group == "a"
    assert names(c) == ["Map -> Sink: sink", "Source: src"]
    assert c.job_graph.slots_required == 5
    assert [(g.name, g.slots) for g in c.job_graph.slot_sharing_groups] == [
        ("default", 1),
        ("a", 4),
    ]


# §11.3 / §15.3 --------------------------------------------------------------------------------


def execution_edge(producers: int, consumers: int, partitioner: str = "RESCALE") -> ExecutionEdge:
    doc = (
        GraphBuilder()
        .node(1, "S", parallelism=producers, strategy="HEAD")
        .node(2, "T", parallelism=consumers, strategy="HEAD")
        .edge(1, 2, partitioner=partitioner)
        .build()
    )
    c = compiled(doc)
    assert c.execution is not None
    (edge,) = c.execution.edges
    assert edge.producer_parallelism == producers
    assert edge.consumer_parallelism == consumers
    return edge


# S, T, partitions read per consumer, subpartition per consumer, subpartitions per partition
POINTWISE_TABLE = [
    (2, 3, [[0], [0], [1]], [0, 1, 0], [2, 1]),
    (3, 2, [[0], [1, 2]], [0, 0], [1, 1, 1]),
    (2, 5, [[0], [0], [0], [1], [1]], [0, 1, 2, 1, 0], [3, 2]),
    (5, 2, [[0, 1], [2, 3, 4]], [0, 0], [1] * 5),
    (3, 5, [[0], [0], [1], [1], [2]], [0, 1, 0, 1, 0], [2, 2, 1]),
    (3, 7, [[0], [0], [0], [1], [1], [2], [2]], [0, 1, 2, 1, 0, 1, 0], [3, 2, 2]),
    (7, 3, [[0, 1], [2, 3], [4, 5, 6]], [0, 0, 0], [1] * 7),
    (1, 4, [[0], [0], [0], [0]], [0, 1, 2, 3], [4]),
    (4, 1, [[0, 1, 2, 3]], [0], [1] * 4),
]


@pytest.mark.parametrize(
    ("s", "t", "partitions", "subpartitions", "per_partition"),
    POINTWISE_TABLE,
    ids=[f"{row[0]}to{row[1]}" for row in POINTWISE_TABLE],
)
def test_pointwise_connection_table(
    s: int, t: int, partitions: list[list[int]], subpartitions: list[int], per_partition: list[int]
) -> None:
    edge = execution_edge(s, t)
    assert edge.pattern is DistributionPattern.POINTWISE
    assert [list(edge.group_of_consumer(i).partitions) for i in range(t)] == partitions
    assert [list(edge.subpartitions_read_by(i)) for i in range(t)] == [[x] for x in subpartitions]
    assert [edge.number_of_subpartitions(p) for p in range(s)] == per_partition
    assert edge.max_edges_to_target == (s + t - 1) // t


def test_pointwise_groups_of_the_table() -> None:
    edge = execution_edge(2, 3)
    assert [(list(g.partitions), list(g.consumers)) for g in edge.groups] == [
        ([0], [0, 1]),
        ([1], [2]),
    ]
    edge = execution_edge(3, 2)
    assert [(list(g.partitions), list(g.consumers)) for g in edge.groups] == [
        ([0], [0]),
        ([1, 2], [1]),
    ]
    edge = execution_edge(2, 5)
    assert [(list(g.partitions), list(g.consumers)) for g in edge.groups] == [
        ([0], [0, 1, 2]),
        ([1], [3, 4]),
    ]


@pytest.mark.parametrize(("s", "t", "expected"), [(2, 3, 1), (3, 2, 2), (5, 2, 3), (4, 1, 4)])
def test_max_edges_to_target_pointwise(s: int, t: int, expected: int) -> None:
    assert execution_edge(s, t).max_edges_to_target == expected


@pytest.mark.parametrize(("s", "t"), [(3, 5), (5, 3), (1, 1), (4, 4)])
def test_all_to_all_has_one_group(s: int, t: int) -> None:
    edge = execution_edge(s, t, partitioner="REBALANCE")
    assert edge.pattern is DistributionPattern.ALL_TO_ALL
    (group,) = edge.groups
    assert group.partitions == range(s) and group.consumers == range(t)
    for i in range(t):
        assert edge.group_of_consumer(i) is group
        assert edge.subpartitions_read_by(i) == range(i, i + 1)
    for p in range(s):
        assert edge.group_of_partition(p) is group
        assert edge.number_of_subpartitions(p) == t
    assert edge.max_edges_to_target == s


# §14 PointwisePatternTest ---------------------------------------------------------------------


def partitions_read(edge: ExecutionEdge) -> list[list[int]]:
    return [list(edge.group_of_consumer(i).partitions) for i in range(edge.consumer_parallelism)]


def test_n_to_n() -> None:
    for n in (1, 2, 23):
        assert partitions_read(execution_edge(n, n, "FORWARD")) == [[i] for i in range(n)]


def test_2n_to_n() -> None:
    n = 17
    assert partitions_read(execution_edge(2 * n, n)) == [[2 * i, 2 * i + 1] for i in range(n)]


def test_3n_to_n() -> None:
    n = 17
    expected = [[3 * i, 3 * i + 1, 3 * i + 2] for i in range(n)]
    assert partitions_read(execution_edge(3 * n, n)) == expected


def test_n_to_2n() -> None:
    n = 41
    assert partitions_read(execution_edge(n, 2 * n)) == [[i // 2] for i in range(2 * n)]


def test_n_to_7n() -> None:
    n = 11
    assert partitions_read(execution_edge(n, 7 * n)) == [[i // 7] for i in range(7 * n)]


@pytest.mark.parametrize(("s", "t"), [(3, 16), (19, 21), (15, 20), (11, 31)])
def test_irregular_low_to_high(s: int, t: int) -> None:
    read = partitions_read(execution_edge(s, t))
    assert all(len(p) == 1 for p in read)
    uses = [sum(1 for p in read if p == [partition]) for partition in range(s)]
    assert set(uses) <= {t // s, t // s + 1}
    assert sum(uses) == t


@pytest.mark.parametrize(("s", "t"), [(16, 3), (21, 19), (20, 15), (31, 11)])
def test_irregular_high_to_low(s: int, t: int) -> None:
    read = partitions_read(execution_edge(s, t))
    assert {len(p) for p in read} <= {s // t, s // t + 1}
    assert sorted(p for partitions in read for p in partitions) == list(range(s))
