"""Edges whose partitioner the document leaves unchosen resolve as Flink resolves them.

A DataStream program that calls no partitioning method gets, in
`StreamGraph.createActualEdge`, FORWARD when both operators have the same parallelism
and REBALANCE otherwise. A `streamgraph/v1` edge says so with `"partitioner": null`
(or without the key); the compiler resolves it from the parallelism of the moment, so
it follows every parallelism change, while a chosen partitioner stays as chosen.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compiler.document import read_document
from compiler.explain import explain
from compiler.flinkjson import execution_plan, streamgraph_from_execution_plan
from compiler.jobgraph_json import job_graph_to_json
from compiler.liveplan import live_plan
from compiler.model import Partitioner
from compiler.pipeline import Compilation, compile_document
from tests.compiler.builders import GraphBuilder

FIXTURES = Path(__file__).resolve().parent / "data" / "fixtures"
SUFFIX = ".streamgraph.json"
NAMES = sorted(path.name[: -len(SUFFIX)] for path in FIXTURES.glob(f"*{SUFFIX}"))


def source_and_map(map_parallelism: int, **edge: Any) -> dict[str, Any]:
    """`1 Source (p2) -> 2 Map (p map_parallelism)`, the edge's partitioner not chosen."""
    document = (
        GraphBuilder()
        .node(1, "Source: s", parallelism=2, strategy="HEAD", factory="SOURCE")
        .node(2, "Map", parallelism=map_parallelism)
        .edge(1, 2)
        .build()
    )
    document["edges"][0]["partitioner"] = None
    document["edges"][0].update(edge)
    return document


def compiled(document: dict[str, Any]) -> Compilation:
    compilation = compile_document(document)
    assert compilation.ok, [str(d) for d in compilation.diagnostics]
    return compilation


def vertex_names(document: dict[str, Any]) -> list[str]:
    job_graph = compiled(document).job_graph
    assert job_graph is not None
    return [vertex.name for vertex in job_graph.vertices]


def test_an_unchosen_partitioner_is_forward_between_equal_parallelism() -> None:
    graph, diagnostics = read_document(source_and_map(2))
    assert diagnostics == []
    assert graph is not None
    edge = graph.edges[0]
    assert (edge.partitioner, edge.partitioner_chosen) == (Partitioner.FORWARD, False)
    assert vertex_names(source_and_map(2)) == ["Source: s -> Map"]


def test_an_unchosen_partitioner_is_rebalance_between_different_parallelism() -> None:
    graph, _ = read_document(source_and_map(3))
    assert graph is not None
    assert (graph.edges[0].partitioner, graph.edges[0].partitioner_chosen) == (
        Partitioner.REBALANCE,
        False,
    )
    assert vertex_names(source_and_map(3)) == ["Source: s", "Map"]


def test_a_missing_partitioner_is_not_chosen_either() -> None:
    document = source_and_map(3)
    del document["edges"][0]["partitioner"]
    graph, diagnostics = read_document(document)
    assert diagnostics == []
    assert graph is not None
    assert graph.edges[0].partitioner is Partitioner.REBALANCE


def test_an_unchosen_partitioner_follows_the_parallelism_back() -> None:
    # Parallelism apart, then equal again: the two operators chain again, as in Flink.
    document = source_and_map(3)
    assert vertex_names(document) == ["Source: s", "Map"]
    document["nodes"][1]["parallelism"] = 2
    assert vertex_names(document) == ["Source: s -> Map"]


def test_an_unchosen_partitioner_reads_the_default_parallelism() -> None:
    document = source_and_map(-1)
    document["config"]["defaultParallelism"] = 2
    assert vertex_names(document) == ["Source: s -> Map"]
    document["config"]["defaultParallelism"] = 5
    assert vertex_names(document) == ["Source: s", "Map"]


def test_a_chosen_rebalance_stays_between_equal_parallelism() -> None:
    document = source_and_map(2, partitioner="REBALANCE")
    graph, _ = read_document(document)
    assert graph is not None
    assert (graph.edges[0].partitioner, graph.edges[0].partitioner_chosen) == (
        Partitioner.REBALANCE,
        True,
    )
    assert vertex_names(document) == ["Source: s", "Map"]


def test_a_chosen_forward_across_a_parallelism_change_is_flinks_error() -> None:
    compilation = compile_document(source_and_map(3, partitioner="FORWARD"))
    assert [d.code for d in compilation.diagnostics] == ["edge.forward-parallelism"]


def test_the_edge_id_names_the_resolved_partitioner() -> None:
    graph, _ = read_document(source_and_map(3))
    assert graph is not None
    assert graph.edge_id(graph.edges[0]) == "Source: s-1_Map-2_0_REBALANCE_0"


def test_the_plans_say_what_each_edge_resolved_to_and_whether_it_was_chosen() -> None:
    document = source_and_map(3)
    document["nodes"].append(GraphBuilder().node(3, "Sink: out", parallelism=3).build()["nodes"][0])
    document["edges"].append({"source": 2, "target": 3, "partitioner": "SHUFFLE"})
    compilation = compiled(document)
    plan = live_plan(compilation)
    facts = {key: (e["partitioner"], e["partitionerChosen"]) for key, e in plan["edges"].items()}
    assert facts == {"0": ("REBALANCE", False), "1": ("SHUFFLE", True)}
    assert compilation.graph is not None and compilation.chains is not None
    explained = explain(
        compilation.graph,
        compilation.chainable,
        compilation.chains,
        compilation.hashes,
        compilation.user_hashes,
    ).to_json()
    assert [(e["partitioner"], e["partitionerChosen"]) for e in explained["edges"]] == [
        ("REBALANCE", False),
        ("SHUFFLE", True),
    ]


def _unchosen_where_flink_would_pick_the_same(document: dict[str, Any]) -> int:
    """Leave out every partitioner that equals the default between its two nodes."""
    config = document.get("config", {})
    parallelism = {
        node["id"]: node.get("parallelism", -1)
        if node.get("parallelism", -1) != -1
        else config.get("defaultParallelism", 1)
        for node in document["nodes"]
    }
    count = 0
    for edge in document["edges"]:
        same = parallelism[edge["source"]] == parallelism[edge["target"]]
        if edge["partitioner"] == ("FORWARD" if same else "REBALANCE"):
            edge["partitioner"] = None
            count += 1
    return count


@pytest.mark.parametrize("name", NAMES)
def test_every_fixture_compiles_the_same_with_its_default_partitioners_unchosen(
    name: str,
) -> None:
    document = json.loads((FIXTURES / f"{name}{SUFFIX}").read_text("utf-8"))
    expected = json.loads((FIXTURES / f"{name}.expected.json").read_text("utf-8"))
    before = compiled(document)
    if _unchosen_where_flink_would_pick_the_same(document) == 0:
        pytest.skip("no edge has the partitioner Flink would pick by default")
    after = compiled(document)
    assert after.job_graph is not None and after.graph is not None and before.graph is not None
    assert job_graph_to_json(after.job_graph, after.hashes) == expected
    assert execution_plan(after.graph) == execution_plan(before.graph)


@pytest.mark.parametrize("name", ["word-count", "connect-keyed", "side-outputs"])
def test_an_imported_flink_plan_leaves_the_default_partitioners_unchosen(name: str) -> None:
    text = (FIXTURES / f"{name}.plan.json").read_text("utf-8")
    document = streamgraph_from_execution_plan(text)
    graph = compiled(document).graph
    assert graph is not None
    for edge, raw in zip(graph.edges, document["edges"], strict=True):
        source = graph.nodes[edge.source].parallelism
        target = graph.nodes[edge.target].parallelism
        default = Partitioner.FORWARD if source == target else Partitioner.REBALANCE
        assert (raw["partitioner"] is None) == (edge.partitioner is default)
    # And it is still the plan it was read from, byte for byte.
    assert execution_plan(graph) == text
