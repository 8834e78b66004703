"""Every diagnostic the compiler reports: its code, where it points and what it says.

Reading a document never raises: bad input of any shape becomes a
`Compilation` whose diagnostics name the problem and its place (node id, edge
index, field path).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest

from compiler.diagnostics import Diagnostic, Location, Severity
from compiler.document import dump_document, read_document
from compiler.execution import PARALLELISM_AUTO_MAX, build_execution_graph, effective_parallelism
from compiler.model import NodeId
from compiler.pipeline import Compilation, compile_document
from tests.compiler.builders import GraphBuilder

Doc = dict[str, Any]


def two_nodes(**edge_options: Any) -> GraphBuilder:
    """`1 Source -> 2 Map`, both parallelism 1."""
    return (
        GraphBuilder()
        .node(1, "Source: src", strategy="HEAD", factory="SOURCE")
        .node(2, "Map")
        .edge(1, 2, **edge_options)
    )


def errors(document: object) -> list[Diagnostic]:
    compilation = compile_document(document)
    found = [d for d in compilation.diagnostics if d.severity is Severity.ERROR]
    assert found, "expected at least one error"
    assert not compilation.ok
    assert compilation.execution is None
    return found


def single_error(document: object, code: str) -> Diagnostic:
    """The one error of `document`, which must have `code`."""
    found = errors(document)
    assert [d.code for d in found] == [code], [str(d) for d in found]
    return found[0]


def edited(change: Callable[[Doc], None], builder: GraphBuilder | None = None) -> Doc:
    document = (builder or two_nodes()).build()
    change(document)
    return document


def test_a_valid_document_has_no_diagnostics() -> None:
    graph, diagnostics = read_document(two_nodes().build())
    assert diagnostics == []
    assert graph is not None
    assert compile_document(two_nodes().build()).ok


# document.* ------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [None, [], "x", 3, 1.5, True, [{"format": "streamgraph/v1"}]])
def test_document_type(raw: object) -> None:
    diagnostic = single_error(raw, "document.type")
    assert diagnostic.location == Location()
    assert "JSON object" in diagnostic.message


@pytest.mark.parametrize("value", ["streamgraph/v2", None, 1])
def test_document_format(value: object) -> None:
    document = two_nodes().build()
    if value is None:
        del document["format"]
    else:
        document["format"] = value
    diagnostic = single_error(document, "document.format")
    assert diagnostic.location == Location(field="format")
    assert "streamgraph/v1" in diagnostic.message
    assert repr(value) in diagnostic.message


def test_document_without_nodes() -> None:
    diagnostic = single_error({"format": "streamgraph/v1"}, "field.type")
    assert diagnostic.location == Location(field="nodes")
    assert "'nodes' must be a list" in diagnostic.message


# field.type ------------------------------------------------------------------------------------

FIELD_TYPE_CASES: list[tuple[str, Callable[[Doc], None], Location, str]] = [
    ("name", lambda d: d.update(name=5), Location(field="name"), "'name' must be a string"),
    ("nodes", lambda d: d.update(nodes={}), Location(field="nodes"), "'nodes' must be a list"),
    ("edges", lambda d: d.update(edges=None), Location(field="edges"), "'edges' must be a list"),
    ("config", lambda d: d.update(config=[]), Location(field="config"), "'config' must be"),
    (
        "config.chainingEnabled",
        lambda d: d["config"].update(chainingEnabled="yes"),
        Location(field="config.chainingEnabled"),
        "'chainingEnabled' must be true or false",
    ),
    (
        "config.defaultParallelism",
        lambda d: d["config"].update(defaultParallelism="4"),
        Location(field="config.defaultParallelism"),
        "'defaultParallelism' must be an integer",
    ),
    (
        "config.maxParallelism",
        lambda d: d["config"].update(maxParallelism=1.5),
        Location(field="config.maxParallelism"),
        "'maxParallelism' must be an integer",
    ),
    (
        "config.chainOperatorsWithDifferentMaxParallelism",
        lambda d: d["config"].update(chainOperatorsWithDifferentMaxParallelism=1),
        Location(field="config.chainOperatorsWithDifferentMaxParallelism"),
        "must be true or false",
    ),
    (
        "node.parallelism",
        lambda d: d["nodes"][1].update(parallelism="4"),
        Location(node=2, field="parallelism"),
        "'parallelism' must be an integer",
    ),
    (
        "node.parallelism-bool",
        lambda d: d["nodes"][1].update(parallelism=True),
        Location(node=2, field="parallelism"),
        "'parallelism' must be an integer",
    ),
    (
        "node.maxParallelism",
        lambda d: d["nodes"][1].update(maxParallelism=None),
        Location(node=2, field="maxParallelism"),
        "'maxParallelism' must be an integer",
    ),
    (
        "node.operator",
        lambda d: d["nodes"][1].update(operator=7),
        Location(node=2, field="operator"),
        "'operator' must be a string",
    ),
    (
        "node.params",
        lambda d: d["nodes"][1].update(params=[1]),
        Location(node=2, field="params"),
        "'params' must be an object",
    ),
    (
        "node.ui",
        lambda d: d["nodes"][1].update(ui="left"),
        Location(node=2, field="ui"),
        "'ui' must be an object",
    ),
    (
        "node.uid",
        lambda d: d["nodes"][1].update(uid=5),
        Location(node=2, field="uid"),
        "'uid' must be a string or null",
    ),
    (
        "node.uidHash",
        lambda d: d["nodes"][1].update(uidHash=["a"]),
        Location(node=2, field="uidHash"),
        "'uidHash' must be a string or null",
    ),
    (
        "node.slotSharingGroup",
        lambda d: d["nodes"][1].update(slotSharingGroup=1),
        Location(node=2, field="slotSharingGroup"),
        "'slotSharingGroup' must be a string or null",
    ),
    (
        "node.coLocationGroup",
        lambda d: d["nodes"][1].update(coLocationGroup={}),
        Location(node=2, field="coLocationGroup"),
        "'coLocationGroup' must be a string or null",
    ),
    (
        "edge.typeNumber",
        lambda d: d["edges"][0].update(typeNumber="1"),
        Location(edge=0, field="typeNumber"),
        "'typeNumber' must be an integer",
    ),
    (
        "edge.sideOutputTag",
        lambda d: d["edges"][0].update(sideOutputTag=3),
        Location(edge=0, field="sideOutputTag"),
        "'sideOutputTag' must be a string or null",
    ),
]


@pytest.mark.parametrize(
    ("change", "location", "message"),
    [case[1:] for case in FIELD_TYPE_CASES],
    ids=[case[0] for case in FIELD_TYPE_CASES],
)
def test_field_type(change: Callable[[Doc], None], location: Location, message: str) -> None:
    diagnostic = single_error(edited(change), "field.type")
    assert diagnostic.location == location
    assert message in diagnostic.message


# field.enum ------------------------------------------------------------------------------------

FIELD_ENUM_CASES: list[tuple[str, Callable[[Doc], None], Location, str]] = [
    (
        "config.runtimeMode",
        lambda d: d["config"].update(runtimeMode="AUTOMATIC"),
        Location(field="config.runtimeMode"),
        "'runtimeMode' must be one of STREAMING, BATCH, got 'AUTOMATIC'",
    ),
    (
        "node.chainingStrategy",
        lambda d: d["nodes"][1].update(chainingStrategy="SOMETIMES"),
        Location(node=2, field="chainingStrategy"),
        "'chainingStrategy' must be one of ALWAYS, NEVER, HEAD, HEAD_WITH_SOURCES",
    ),
    (
        "node.factory",
        lambda d: d["nodes"][1].update(factory="source"),
        Location(node=2, field="factory"),
        "'factory' must be one of OPERATOR, SOURCE, LEGACY_SOURCE, YIELDING, got 'source'",
    ),
    (
        "edge.partitioner",
        lambda d: d["edges"][0].update(partitioner="ROUND_ROBIN"),
        Location(edge=0, field="partitioner"),
        "'partitioner' must be one of FORWARD, REBALANCE",
    ),
    (
        "edge.exchangeMode",
        lambda d: d["edges"][0].update(exchangeMode=["BATCH"]),
        Location(edge=0, field="exchangeMode"),
        "'exchangeMode' must be one of UNDEFINED, PIPELINED, BATCH",
    ),
]


@pytest.mark.parametrize(
    ("change", "location", "message"),
    [case[1:] for case in FIELD_ENUM_CASES],
    ids=[case[0] for case in FIELD_ENUM_CASES],
)
def test_field_enum(change: Callable[[Doc], None], location: Location, message: str) -> None:
    diagnostic = single_error(edited(change), "field.enum")
    assert diagnostic.location == location
    assert message in diagnostic.message


def test_a_missing_partitioner_is_flinks_default() -> None:
    graph, diagnostics = read_document(edited(lambda d: d["edges"][0].pop("partitioner")))
    assert diagnostics == []
    assert graph is not None
    assert graph.edges[0].partitioner_chosen is False


def test_optional_fields_take_their_defaults() -> None:
    document: Doc = {
        "format": "streamgraph/v1",
        "nodes": [{"id": 1, "name": "Source: s"}, {"id": 2, "name": "Map"}],
        "edges": [{"source": 1, "target": 2, "partitioner": "FORWARD"}],
    }
    graph, diagnostics = read_document(document)
    assert diagnostics == []
    assert graph is not None
    assert graph.name == ""
    assert graph.nodes[NodeId(2)].parallelism == 1
    assert graph.nodes[NodeId(2)].max_parallelism == -1
    assert graph.nodes[NodeId(2)].slot_sharing_group == "default"
    assert compile_document(document).ok


# config.* --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -1, 32769])
def test_config_parallelism_bounds(value: int) -> None:
    document = edited(lambda d: d["config"].update(defaultParallelism=value))
    diagnostic = single_error(document, "config.parallelism-bounds")
    assert diagnostic.location == Location(field="config.defaultParallelism")
    assert f"between 1 and 32768, found: {value}" in diagnostic.message


@pytest.mark.parametrize("value", [0, -2, 32769])
def test_config_max_parallelism_bounds(value: int) -> None:
    document = edited(lambda d: d["config"].update(maxParallelism=value))
    diagnostic = single_error(document, "config.max-parallelism-bounds")
    assert diagnostic.location == Location(field="config.maxParallelism")
    assert f"-1 or between 1 and 32768, found: {value}" in diagnostic.message


# node.* ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [5, "node", None, [], True])
def test_node_type(value: object) -> None:
    document = edited(lambda d: d["nodes"].insert(0, value))
    diagnostic = single_error(document, "node.type")
    assert diagnostic.location == Location(field="nodes[0]")
    assert "nodes[0] must be an object" in diagnostic.message


@pytest.mark.parametrize("value", ["2", 0, -3, True, 1.0, None])
def test_node_id(value: object) -> None:
    document = two_nodes().node(3, "Sink").build()
    if value is None:
        del document["nodes"][2]["id"]
    else:
        document["nodes"][2]["id"] = value
    diagnostic = single_error(document, "node.id")
    assert diagnostic.location == Location(field="nodes[2].id")
    assert f"needs an integer 'id' > 0, got {value!r}" in diagnostic.message


@pytest.mark.parametrize("value", [2**31, 10**30])
def test_node_id_beyond_a_java_int(value: int) -> None:
    document = two_nodes().node(3, "Sink").build()
    document["nodes"][2]["id"] = value
    diagnostic = single_error(document, "node.id")
    assert diagnostic.location == Location(field="nodes[2].id")
    assert f"has id {value}, beyond the largest StreamNode id (2147483647" in diagnostic.message


def test_the_largest_java_int_is_a_node_id() -> None:
    document = two_nodes().node(2**31 - 1, "Sink").edge(2, 2**31 - 1).build()
    assert not [d for d in compile_document(document).diagnostics if d.code == "node.id"]


def test_node_duplicate_id() -> None:
    document = two_nodes().node(2, "Other map").build()
    diagnostic = single_error(document, "node.duplicate-id")
    assert diagnostic.location == Location(node=2)
    assert "node id 2 is used twice" in diagnostic.message


@pytest.mark.parametrize("value", ["", None, 5, ["Map"]])
def test_node_name(value: object) -> None:
    document = two_nodes().build()
    if value is None:
        del document["nodes"][1]["name"]
    else:
        document["nodes"][1]["name"] = value
    diagnostic = single_error(document, "node.name")
    assert diagnostic.location == Location(node=2, field="name")
    assert "non-empty 'name'" in diagnostic.message


@pytest.mark.parametrize("value", [0, -2, 32769])
def test_node_parallelism_bounds(value: int) -> None:
    document = edited(lambda d: d["nodes"][1].update(parallelism=value))
    document["edges"][0]["partitioner"] = "REBALANCE"
    found = errors(document)
    assert {d.code for d in found} <= {"node.parallelism-bounds", "node.parallelism-above-max"}
    (diagnostic,) = [d for d in found if d.code == "node.parallelism-bounds"]
    assert diagnostic.location == Location(node=2, field="parallelism")
    assert f"-1 or between 1 and 32768, found: {value}" in diagnostic.message


@pytest.mark.parametrize("value", [0, -2, 32769])
def test_node_max_parallelism_bounds(value: int) -> None:
    document = edited(lambda d: d["nodes"][1].update(maxParallelism=value))
    diagnostic = single_error(document, "node.max-parallelism-bounds")
    assert diagnostic.location == Location(node=2, field="maxParallelism")
    assert f"-1 or between 1 and 32768, found: {value}" in diagnostic.message


def test_node_parallelism_above_max() -> None:
    document = two_nodes(partitioner="REBALANCE").build()
    document["nodes"][1].update(parallelism=200, maxParallelism=128)
    diagnostic = single_error(document, "node.parallelism-above-max")
    assert diagnostic.location == Location(node=2, field="parallelism")
    assert "parallelism (200) is higher than the max parallelism (128)" in diagnostic.message


def test_node_parallelism_above_the_job_max_parallelism() -> None:
    document = two_nodes(partitioner="REBALANCE").config(max_parallelism=16).build()
    document["nodes"][1]["parallelism"] = 32
    diagnostic = single_error(document, "node.parallelism-above-max")
    assert diagnostic.location == Location(node=2, field="parallelism")
    assert "parallelism (32) is higher than the max parallelism (16)" in diagnostic.message


def test_node_default_parallelism_above_max() -> None:
    document = two_nodes().config(default_parallelism=8).build()
    for node in document["nodes"]:
        node.update(parallelism=-1, maxParallelism=4)
    found = errors(document)
    assert [(d.code, d.location.node) for d in found] == [
        ("node.parallelism-above-max", 1),
        ("node.parallelism-above-max", 2),
    ]


def test_node_uid_must_not_be_empty() -> None:
    diagnostic = single_error(edited(lambda d: d["nodes"][1].update(uid="")), "node.uid")
    assert diagnostic.location == Location(node=2, field="uid")
    assert "'uid' must not be empty" in diagnostic.message


@pytest.mark.parametrize("value", ["abc", "a" * 31, "a" * 33, "g" * 32, " " + "a" * 31, ""])
def test_node_uid_hash(value: str) -> None:
    document = edited(lambda d: d["nodes"][1].update(uidHash=value))
    diagnostic = single_error(document, "node.uid-hash")
    assert diagnostic.location == Location(node=2, field="uidHash")
    assert f"32 hexadecimal characters, got {value!r}" in diagnostic.message


def test_node_uid_hash_is_lower_cased() -> None:
    graph, diagnostics = read_document(edited(lambda d: d["nodes"][1].update(uidHash="AB" * 16)))
    assert diagnostics == []
    assert graph is not None and graph.nodes[NodeId(2)].uid_hash == "ab" * 16


# edge.* ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [5, "1->2", None, [1, 2]])
def test_edge_type(value: object) -> None:
    diagnostic = single_error(edited(lambda d: d["edges"].append(value)), "edge.type")
    assert diagnostic.location == Location(edge=1)
    assert "an edge must be an object" in diagnostic.message


@pytest.mark.parametrize(
    ("key", "value"),
    [("target", 9), ("target", "2"), ("source", None), ("source", True), ("target", [2])],
)
def test_edge_unknown_node(key: str, value: object) -> None:
    document = edited(lambda d: d["edges"][0].update({key: value}))
    diagnostic = single_error(document, "edge.unknown-node")
    assert diagnostic.location == Location(edge=0, field=key)
    assert f"'{key}' {value!r} is not the id of a node" in diagnostic.message


def test_edge_missing_ends() -> None:
    document = edited(lambda d: d["edges"].append({"partitioner": "FORWARD"}))
    found = errors(document)
    assert [(d.code, d.location) for d in found] == [
        ("edge.unknown-node", Location(edge=1, field="source")),
        ("edge.unknown-node", Location(edge=1, field="target")),
    ]


def test_edge_type_number() -> None:
    document = edited(lambda d: d["edges"][0].update(typeNumber=-1))
    found = errors(document)
    (diagnostic,) = [d for d in found if d.code == "edge.type-number"]
    assert diagnostic.location == Location(edge=0, field="typeNumber")
    assert "got -1" in diagnostic.message


def test_edge_forward_parallelism() -> None:
    document = edited(lambda d: d["nodes"][1].update(parallelism=2))
    diagnostic = single_error(document, "edge.forward-parallelism")
    assert diagnostic.location == Location(edge=0, field="partitioner")
    assert diagnostic.message.startswith(
        "Forward partitioning does not allow change of parallelism. Upstream operation: "
        "Source: src-1 parallelism: 1, downstream operation: Map-2 parallelism: 2"
    )


def test_forward_edge_checks_the_resolved_default_parallelism() -> None:
    document = two_nodes().config(default_parallelism=3).build()
    document["nodes"][1]["parallelism"] = -1
    assert single_error(document, "edge.forward-parallelism").location.edge == 0
    document["nodes"][0]["parallelism"] = -1
    assert compile_document(document).ok


# graph.* and cross-node checks -----------------------------------------------------------------


def cycles(document: object) -> list[Diagnostic]:
    found = errors(document)
    assert {d.code for d in found} == {"graph.cycle"}, [str(d) for d in found]
    return found


def line(*ids: int) -> GraphBuilder:
    """Nodes `ids` (the first a source) joined in order by FORWARD edges."""
    builder = GraphBuilder().node(ids[0], f"Source: {ids[0]}", strategy="HEAD")
    for nid in ids[1:]:
        builder.node(nid, f"Op {nid}")
    for source, target in pairwise(ids):
        builder.edge(source, target)
    return builder


def test_graph_cycle_of_two_nodes() -> None:
    # 1 -> 2 -> 3 -> 2 -> 4: node 4 is downstream of the cycle, not on it.
    document = line(1, 2, 3).node(4, "Op 4").edge(3, 2).edge(2, 4).build()
    (diagnostic,) = cycles(document)
    assert diagnostic.location == Location(node=2)
    assert (diagnostic.nodes, diagnostic.edges) == ((2, 3), (1, 2))
    assert diagnostic.message.startswith(
        "the graph has a cycle through nodes 2, 3 (edges 2 -> 3, 3 -> 2);"
    )
    assert diagnostic.to_json()["nodes"] == [2, 3]
    assert diagnostic.to_json()["edges"] == [1, 2]


def test_graph_self_loop() -> None:
    document = line(1, 2, 3).edge(2, 2).build()
    (diagnostic,) = cycles(document)
    assert diagnostic.location == Location(node=2)
    assert (diagnostic.nodes, diagnostic.edges) == ((2,), (2,))
    assert diagnostic.message.startswith("node 2 is its own input (edge 2 -> 2);")


def test_graph_cycle_with_a_tail_before_and_after_it() -> None:
    # 1 -> 2 -> 3 -> 4 -> 5 -> 6 with 5 -> 3: the cycle is 3, 4, 5 and its three edges.
    document = line(1, 2, 3, 4, 5, 6).edge(5, 3).build()
    (diagnostic,) = cycles(document)
    assert (diagnostic.nodes, diagnostic.edges) == ((3, 4, 5), (2, 3, 5))
    assert "nodes 3, 4, 5 (edges 3 -> 4, 4 -> 5, 5 -> 3)" in diagnostic.message


def test_graph_two_cycles_are_two_problems() -> None:
    # 1 -> 2 -> 3 -> 4 -> 5 with 3 -> 2 and a self-loop on 5, which follows the first cycle.
    document = line(1, 2, 3, 4, 5).edge(3, 2).edge(5, 5).build()
    first, second = cycles(document)
    assert (first.nodes, first.edges) == ((2, 3), (1, 4))
    assert (second.nodes, second.edges) == ((5,), (5,))
    assert second.location == Location(node=5)


def test_graph_cycles_sharing_a_node_are_one_component() -> None:
    # 2 <-> 3 and 3 <-> 4: every node and edge of the component is on a cycle.
    document = line(1, 2, 3, 4).edge(3, 2).edge(4, 3).build()
    (diagnostic,) = cycles(document)
    assert (diagnostic.nodes, diagnostic.edges) == ((2, 3, 4), (1, 2, 3, 4))


def test_graph_cycle_without_any_source() -> None:
    document = GraphBuilder().node(1, "a").node(2, "b").edge(1, 2).edge(2, 1).build()
    (diagnostic,) = cycles(document)
    assert diagnostic.location == Location(node=1)
    assert diagnostic.nodes == (1, 2)


def test_graph_cycle_in_a_long_graph_needs_no_recursion() -> None:
    ids = list(range(1, 5002))
    document = line(*ids).edge(ids[-1], 2).build()
    (diagnostic,) = cycles(document)
    assert diagnostic.nodes == tuple(ids[1:])


def test_diagnostics_without_several_elements_have_no_lists_in_json() -> None:
    assert set(Diagnostic("x.y", "m").to_json()) == {
        "code",
        "severity",
        "message",
        "node",
        "edge",
        "field",
    }


@pytest.mark.parametrize(
    "numbers",
    [[1], [2], [0, 1], [1, 3], [2, 3]],
    ids=["single-1", "single-2", "zero-and-one", "gap", "not-from-1"],
)
def test_node_type_numbers(numbers: list[int]) -> None:
    builder = GraphBuilder().node(10, "two-input", strategy="HEAD")
    for position, number in enumerate(numbers, start=1):
        builder.node(position, f"Source: s{position}", strategy="HEAD")
        builder.edge(position, 10, partitioner="REBALANCE", type_number=number)
    diagnostic = single_error(builder.build(), "node.type-numbers")
    assert diagnostic.location == Location(node=10, field="typeNumber")
    assert f"found {sorted(set(numbers))}" in diagnostic.message


def test_two_input_and_union_type_numbers_are_valid() -> None:
    builder = GraphBuilder().node(10, "co-map", strategy="HEAD")
    for position, number in enumerate([1, 2, 2, 1], start=1):
        builder.node(position, f"Source: s{position}", strategy="HEAD")
        builder.edge(position, 10, partitioner="REBALANCE", type_number=number)
    assert compile_document(builder.build()).ok


@pytest.mark.parametrize(
    ("first", "second"),
    [("x", "x"), ("\ud800", "\udfff"), ("?", "\ud800"), ("a\ud83d", "a?")],
    ids=["equal", "two-lone-surrogates", "question-mark", "trailing-surrogate"],
)
def test_node_uid_collision(first: str, second: str) -> None:
    document = two_nodes().node(3, "Sink", uid=second).edge(2, 3).build()
    document["nodes"][0]["uid"] = first
    diagnostic = single_error(document, "node.uid-collision")
    assert diagnostic.location == Location(node=3, field="uid")
    assert f'Hash collision on user-specified ID "{second}"' in diagnostic.message
    assert "(also used by node 1)" in diagnostic.message


def test_distinct_uids_do_not_collide() -> None:
    document = two_nodes().node(3, "Sink", uid="\U0001f600").edge(2, 3).build()
    document["nodes"][0]["uid"] = "?"
    assert compile_document(document).ok


def test_every_error_is_reported_at_once() -> None:
    document = two_nodes().node(3, "", parallelism=0).edge(2, 9).build()
    document["nodes"][1]["chainingStrategy"] = "X"
    found = errors(document)
    assert [(d.code, d.location) for d in found] == [
        ("field.enum", Location(node=2, field="chainingStrategy")),
        ("node.name", Location(node=3, field="name")),
        ("node.parallelism-bounds", Location(node=3, field="parallelism")),
        ("edge.unknown-node", Location(edge=1, field="target")),
    ]


# jobgraph.* ------------------------------------------------------------------------------------


def job_graph_error(document: Doc, code: str) -> tuple[Diagnostic, Compilation]:
    compilation = compile_document(document)
    found = [d for d in compilation.diagnostics if d.severity is Severity.ERROR]
    assert [d.code for d in found] == [code], [str(d) for d in found]
    assert compilation.job_graph is not None
    assert compilation.execution is None
    assert not compilation.ok
    return found[0], compilation


@pytest.mark.parametrize("mode", ["HYBRID_FULL", "HYBRID_SELECTIVE"])
def test_hybrid_exchange_in_streaming(mode: str) -> None:
    document = two_nodes(partitioner="REBALANCE", exchange_mode=mode).build()
    diagnostic, _ = job_graph_error(document, "jobgraph.hybrid-in-streaming")
    assert diagnostic.location == Location(edge=0, field="exchangeMode")
    assert "hybrid shuffle mode only supports batch jobs" in diagnostic.message


def test_hybrid_exchange_in_batch_is_valid() -> None:
    document = two_nodes(partitioner="REBALANCE", exchange_mode="HYBRID_SELECTIVE")
    compilation = compile_document(document.config(runtime_mode="BATCH").build())
    assert compilation.ok
    assert compilation.job_graph is not None
    (edge,) = compilation.job_graph.vertices[1].inputs
    assert edge.result_partition_type.value == "HYBRID_SELECTIVE"


def test_hybrid_exchange_with_a_named_slot_sharing_group() -> None:
    document = (
        two_nodes(partitioner="REBALANCE", exchange_mode="HYBRID_FULL")
        .config(runtime_mode="BATCH")
        .build()
    )
    document["nodes"][1]["slotSharingGroup"] = "a"
    diagnostic, _ = job_graph_error(document, "jobgraph.hybrid-slot-sharing")
    assert diagnostic.location == Location(node=2, field="slotSharingGroup")
    assert "does not support setting non-default slot sharing group" in diagnostic.message
    assert "'Map' is in 'a'" in diagnostic.message


def test_co_location_across_slot_sharing_groups() -> None:
    document = two_nodes(partitioner="REBALANCE").build()
    document["nodes"][0]["coLocationGroup"] = "together"
    document["nodes"][1].update(coLocationGroup="together", slotSharingGroup="a")
    diagnostic, compilation = job_graph_error(document, "jobgraph.co-location-slot-sharing")
    # Vertices are checked in creation order (downstream first): the source is the second.
    assert compilation.job_graph is not None
    assert [v.head for v in compilation.job_graph.vertices_in_creation_order] == [2, 1]
    assert diagnostic.location == Location(node=1, field="coLocationGroup")
    assert "co-location group 'together'" in diagnostic.message
    assert "('a' and 'default')" in diagnostic.message


def test_co_location_in_one_slot_sharing_group_is_valid() -> None:
    document = two_nodes(partitioner="REBALANCE").build()
    for node in document["nodes"]:
        node["coLocationGroup"] = "together"
    compilation = compile_document(document)
    assert compilation.ok
    assert compilation.job_graph is not None
    assert [v.co_location_group for v in compilation.job_graph.vertices] == ["together"] * 2


# execution.* -----------------------------------------------------------------------------------
# Unreachable from a document: node validation already rejects a parallelism above the max
# parallelism or outside 1..32768, and a derived max parallelism is never below the
# parallelism. The scheduler's own checks are exercised on a JobGraph changed afterwards.


def test_execution_parallelism_above_max() -> None:
    compilation = compile_document(two_nodes(partitioner="REBALANCE").build())
    assert compilation.job_graph is not None
    vertex = compilation.job_graph.vertices[1]
    vertex.parallelism, vertex.max_parallelism = 200, 128
    _, diagnostics = build_execution_graph(compilation.job_graph)
    (diagnostic,) = diagnostics
    assert diagnostic.code == "execution.parallelism-above-max"
    assert diagnostic.location == Location(node=2, field="parallelism")
    assert diagnostic.message == (
        "Vertex Map's parallelism (200) is higher than the max parallelism (128). "
        "Please lower the parallelism or increase the max parallelism."
    )


@pytest.mark.parametrize(
    ("parallelism", "max_parallelism", "setting", "found"),
    [(40000, 32768, "parallelism", 40000), (4, 0, "max parallelism", 0)],
)
def test_execution_bounds(parallelism: int, max_parallelism: int, setting: str, found: int) -> None:
    compilation = compile_document(two_nodes(partitioner="REBALANCE").build())
    assert compilation.job_graph is not None
    vertex = compilation.job_graph.vertices[1]
    vertex.parallelism, vertex.max_parallelism = parallelism, max_parallelism
    _, _, _, problems = effective_parallelism(vertex)
    assert [(d.code, d.location) for d in problems] == [
        ("execution.bounds", Location(node=2, field="parallelism"))
    ]
    assert problems[0].message == (
        f"Setting {setting} is not in valid bounds (1..32768), found: {found}"
    )


def test_execution_normalises_unset_and_auto_max_values() -> None:
    compilation = compile_document(two_nodes(partitioner="REBALANCE").build())
    assert compilation.job_graph is not None
    vertex = compilation.job_graph.vertices[1]
    vertex.parallelism, vertex.max_parallelism = -1, PARALLELISM_AUTO_MAX
    assert effective_parallelism(vertex) == (1, 32768, False, [])
    vertex.max_parallelism = -1
    assert effective_parallelism(vertex) == (1, 128, True, [])


# documents survive unchanged -------------------------------------------------------------------


def annotated_document() -> Doc:
    document = (
        GraphBuilder("annotated ünïcode")
        .node(
            1,
            "Source: src → 1",
            strategy="HEAD",
            params={"path": "in.txt", "unknown": {"nested": [1, 2.5, None, True]}},
            ui={"x": 10, "y": -3.5, "collapsed": True, "color": "#ff0"},
            editorOnly="kept",
        )
        .node(2, "Map", params={"fn": "x + 1", "extra": []}, ui={})
        .edge(1, 2, key={"fn": "x[0]"}, comment="kept too")
        .extra(meta={"scenario": "custom", "tags": ["a", "b"], "owner": {"id": 7}}, another=1)
        .build()
    )
    return document


def test_unknown_keys_survive_a_round_trip() -> None:
    document = annotated_document()
    text = dump_document(document)
    assert text == json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    assert json.loads(text) == document
    assert "ünïcode" in text and "→" in text
    assert json.loads(text)["nodes"][0]["params"]["unknown"] == {"nested": [1, 2.5, None, True]}
    assert json.loads(text)["meta"]["owner"] == {"id": 7}


def test_compilation_does_not_modify_the_document() -> None:
    document = annotated_document()
    before = copy.deepcopy(document)
    text = dump_document(document)
    compilation = compile_document(document)
    assert compilation.ok
    assert document == before
    assert dump_document(document) == text


# garbage never raises --------------------------------------------------------------------------

GARBAGE: list[object] = [
    None,
    [],
    "x",
    "",
    0,
    -1.5,
    True,
    {},
    {"format": "streamgraph/v1"},
    {"format": "streamgraph/v1", "nodes": None, "edges": None, "config": None},
    {"format": "streamgraph/v1", "nodes": [], "edges": [], "config": {"runtimeMode": 1}},
    {"format": "streamgraph/v1", "nodes": [{"id": "1", "name": "a"}, {"id": "2", "name": "b"}]},
    {
        "format": "streamgraph/v1",
        "nodes": [{"id": 1, "name": "a"}],
        "edges": [{"source": 1, "target": 2, "partitioner": "FORWARD"}],
    },
    {"format": "streamgraph/v1", "nodes": [[], {}, None, {"id": {}}], "edges": [[], {}, None]},
    {"format": "streamgraph/v1", "nodes": [{"id": 1, "name": "a"}] * 3, "edges": {}},
    {"format": ["streamgraph/v1"], "name": {}, "config": "yes", "nodes": "n", "edges": 5},
]


@pytest.mark.parametrize("document", GARBAGE, ids=[f"garbage-{i}" for i in range(len(GARBAGE))])
def test_garbage_never_raises(document: object) -> None:
    before = copy.deepcopy(document)
    compilation = compile_document(document)
    assert not compilation.ok
    assert any(d.severity is Severity.ERROR for d in compilation.diagnostics)
    assert compilation.graph is None
    assert document == before


WRONG_VALUES: list[object] = [[1], 1.5, {"deep": [{"wrong": None}]}, -(2**70), "\ud800"]
NODE_FIELDS = [
    "id",
    "name",
    "operator",
    "params",
    "ui",
    "parallelism",
    "maxParallelism",
    "chainingStrategy",
    "slotSharingGroup",
    "coLocationGroup",
    "uid",
    "uidHash",
    "factory",
]
EDGE_FIELDS = ["source", "target", "partitioner", "exchangeMode", "typeNumber", "sideOutputTag"]
CONFIG_FIELDS = [
    "chainingEnabled",
    "defaultParallelism",
    "maxParallelism",
    "runtimeMode",
    "chainOperatorsWithDifferentMaxParallelism",
]
TOP_FIELDS = ["format", "name", "config", "nodes", "edges"]
ACCEPTS = {
    # The values each field legitimately takes from WRONG_VALUES.
    ("node", "params"): ({"deep": [{"wrong": None}]},),
    ("node", "ui"): ({"deep": [{"wrong": None}]},),
    ("node", "name"): ("\ud800",),
    ("node", "operator"): ("\ud800",),
    ("node", "slotSharingGroup"): ("\ud800",),
    ("node", "coLocationGroup"): ("\ud800",),
    ("node", "uid"): ("\ud800",),
    ("edge", "sideOutputTag"): ("\ud800",),
    ("top", "name"): ("\ud800",),
    ("top", "config"): ({"deep": [{"wrong": None}]},),
}


def _wrong_cases() -> list[tuple[str, str, object]]:
    places = (
        [("node", f) for f in NODE_FIELDS]
        + [("edge", f) for f in EDGE_FIELDS]
        + [("config", f) for f in CONFIG_FIELDS]
        + [("top", f) for f in TOP_FIELDS]
    )
    return [(element, name, value) for element, name in places for value in WRONG_VALUES]


@pytest.mark.parametrize(("element", "name", "value"), _wrong_cases())
def test_wrong_types_in_every_field(element: str, name: str, value: object) -> None:
    document = two_nodes().build()
    target = {
        "node": document["nodes"][1],
        "edge": document["edges"][0],
        "config": document["config"],
        "top": document,
    }[element]
    target[name] = value
    compilation = compile_document(document)
    accepted = any(value is v or value == v for v in ACCEPTS.get((element, name), ()))
    has_error = any(d.severity is Severity.ERROR for d in compilation.diagnostics)
    assert has_error != accepted
    assert compilation.ok == accepted
