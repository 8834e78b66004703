"""The live model kept edit by edit equals a full compile of the same document after
every edit: hashes, chains, vertices, edges and every diagnostic (the compiler's, the run
problems and the state warnings), for random documents and random edit sequences."""

from __future__ import annotations

from typing import Any

from benchmarks.coediting_bench import pipeline_document
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.document import reread_node
from compiler.edits import Edit, EditRejected
from compiler.liveplan import apply_plan_delta, plan_delta
from compiler.model import NodeId
from compiler.pipeline import Compilation, compile_document, recompile_node
from pipelines.editing import document_live_plan
from pipelines.livemodel import EditUnreadable, LiveModel

KINDS = ["map", "filter", "flat_map", "reduce", "window.reduce", "process", "sink.print", ""]
PARTITIONERS = [None, "FORWARD", "REBALANCE", "HASH", "BROADCAST", "RESCALE"]
STRATEGIES = ["ALWAYS", "HEAD", "NEVER", "HEAD_WITH_SOURCES"]
EXPRESSIONS = ["x", "x + 1", "x[0]", "x +", "len(x) > 2", "x.split()"]


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(min_value=1, max_value=12))
    # Half the documents read without a diagnostic, as most working copies do: edits of
    # those take the model's shortest ways.
    clean = draw(st.booleans())
    parallelisms = [2] if clean else [1, 2, 4, -1]
    partitioners = [None, "REBALANCE", "HASH", "RESCALE"] if clean else PARTITIONERS
    nodes = []
    for node_id in range(1, count + 1):
        first = node_id <= draw(st.integers(min_value=1, max_value=2))
        node: dict[str, Any] = {
            "id": node_id,
            "name": "Source: s" if first else draw(st.sampled_from(["Map", "Filter", "Sink"])),
            "operator": "source.sequence" if first else draw(st.sampled_from(KINDS)),
            "params": {"fn": draw(st.sampled_from(EXPRESSIONS))},
            "parallelism": draw(st.sampled_from(parallelisms)),
            "factory": "SOURCE" if first else "OPERATOR",
            "ui": {"x": node_id * 10, "y": 0},
        }
        if draw(st.booleans()):
            node["chainingStrategy"] = draw(st.sampled_from(STRATEGIES))
        if draw(st.integers(min_value=0, max_value=4)) == 0:
            node["uid"] = f"u{node_id if clean else draw(st.integers(min_value=0, max_value=3))}"
        nodes.append(node)
    edges = []
    for target in range(2, count + 1):
        for source in draw(st.sets(st.integers(min_value=1, max_value=target - 1), max_size=2)):
            edge: dict[str, Any] = {"source": source, "target": target}
            partitioner = draw(st.sampled_from(partitioners))
            if partitioner is not None:
                edge["partitioner"] = partitioner
            if partitioner == "HASH" and draw(st.booleans()):
                edge["key"] = {"fn": "x"}
            edges.append(edge)
    return {
        "format": "streamgraph/v1",
        "name": "random",
        "config": {"defaultParallelism": draw(st.sampled_from([1, 2]))},
        "nodes": nodes,
        "edges": edges,
    }


def edit_strategy(node_ids: st.SearchStrategy[int]) -> st.SearchStrategy[dict[str, Any]]:
    def field(name: str, values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
        return st.builds(
            lambda n, v: {
                "kind": "set_field",
                "element": "node",
                "nodeId": n,
                "field": name,
                "value": v,
            },
            node_ids,
            values,
        )

    return st.one_of(
        field("name", st.sampled_from(["Map", "Step", "Source: t", "Sink: out", ""])),
        field("params.fn", st.sampled_from(EXPRESSIONS)),
        field("params.other", st.sampled_from([1, "a", None])),
        field("operator", st.sampled_from(KINDS)),
        field("chainingStrategy", st.sampled_from(STRATEGIES)),
        field("parallelism", st.sampled_from([1, 2, 3, -1])),
        field("maxParallelism", st.sampled_from([1, 128, -1])),
        field("factory", st.sampled_from(["SOURCE", "OPERATOR", "BAD"])),
        field("slotSharingGroup", st.sampled_from(["a", None])),
        field("uidHash", st.sampled_from(["0" * 32, "xyz", None])),
        field("uid", st.sampled_from(["u1", "u2", None])),
        field("ui.color", st.sampled_from(["red", None])),
        st.builds(
            lambda n, op: {
                "kind": "set_operator",
                "nodeId": n,
                "operator": op,
                "params": {"fn": "x"},
            },
            node_ids,
            st.sampled_from(KINDS),
        ),
        st.builds(lambda n: {"kind": "move_node", "nodeId": n, "x": 5, "y": 7}, node_ids),
        st.builds(lambda n: {"kind": "remove_node", "nodeId": n}, node_ids),
        st.builds(
            lambda s, t, p: {
                "kind": "connect",
                "edge": {"source": s, "target": t, **({"partitioner": p} if p else {})},
            },
            node_ids,
            node_ids,
            st.sampled_from(PARTITIONERS),
        ),
        st.builds(
            lambda s: {
                "kind": "add_node",
                "node": {"name": "Added", "operator": "map", "params": {"fn": "x"}},
                "edge": {"source": s},
            },
            node_ids,
        ),
        st.builds(
            lambda v: {
                "kind": "set_field",
                "element": "document",
                "field": "meta.note",
                "value": v,
            },
            st.sampled_from(["a", "b"]),
        ),
        st.builds(
            lambda v: {
                "kind": "set_field",
                "element": "config",
                "field": "chainingEnabled",
                "value": v,
            },
            st.booleans(),
        ),
    )


@settings(max_examples=300, deadline=None)
@given(
    document=documents(),
    script=st.lists(edit_strategy(st.integers(min_value=1, max_value=14)), max_size=12),
)
def test_incremental_plan_equals_full_compile(
    document: dict[str, Any], script: list[dict[str, Any]]
) -> None:
    model = LiveModel.build(document)
    assert model.plan == document_live_plan(document=document)
    for raw in script:
        try:
            edit = Edit.from_json(raw)
            after, _ = model.apply(edit)
        except (EditRejected, EditUnreadable):
            continue
        expected = document_live_plan(document=after.document)
        assert after.plan == expected, raw
        # And the delta a client gets turns the plan before into the plan after.
        delta = plan_delta(model.plan, after.plan)
        assert apply_plan_delta(model.plan, delta) == expected
        # Comparing only the entries the edit could change finds the same delta.
        assert after.delta_from(model) == delta
        model = after


def _products(compilation: Compilation) -> dict[str, Any]:
    """Everything the passes made, orders included."""
    chains = compilation.chains
    job_graph = compilation.job_graph
    return {
        "chainable": list(compilation.chainable),
        "chained_outputs": dict(compilation.chained_outputs),
        "hashes": list(compilation.hashes.items()),
        "user_hashes": compilation.user_hashes,
        "chains": None
        if chains is None
        else [
            (c.head, c.nodes, c.chained_sources, c.name, [e.index for e in c.transitive_out_edges])
            for c in chains.chains
        ],
        "head_of": None if chains is None else chains.head_of,
        "vertices": None
        if job_graph is None
        else [
            (v.id, v.name, v.operator_ids, [e.data_set for e in v.inputs])
            for v in job_graph.vertices
        ],
        "vertex_of_node": None if job_graph is None else job_graph.vertex_of_node,
        "diagnostics": [d.to_json() for d in compilation.diagnostics],
    }


NODE_FIELDS = {
    "chainingStrategy": STRATEGIES,
    "parallelism": [1, 2, 3],
    "maxParallelism": [64, 128],
    "factory": ["SOURCE", "OPERATOR", "YIELDING", "LEGACY_SOURCE"],
    "name": ["Map", "Renamed"],
    "uidHash": ["0" * 31 + "1", None],
}


@settings(max_examples=400, deadline=None)
@given(
    document=documents(),
    node=st.integers(min_value=1, max_value=12),
    field=st.sampled_from(sorted(NODE_FIELDS)),
    choice=st.integers(min_value=0, max_value=3),
)
def test_recompiling_one_node_equals_compiling_the_document(
    document: dict[str, Any], node: int, field: str, choice: int
) -> None:
    before = compile_document(document)
    values = NODE_FIELDS[field]
    nodes = [dict(n) for n in document["nodes"]]
    target = next((n for n in nodes if n["id"] == node), None)
    if before.diagnostics or before.graph is None or target is None:
        return
    old = dict(target)
    target[field] = values[choice % len(values)]
    after = {**document, "nodes": nodes}
    graph = reread_node(before.graph, old, target)
    if graph is None:
        return
    expected = compile_document(after)
    assert _products(recompile_node(before, graph, NodeId(node))) == _products(expected)


def test_breaking_a_long_chain_rehashes_only_downstream() -> None:
    document = pipeline_document(400)
    before = compile_document(document)
    assert before.graph is not None
    for node in (3, 60, 99, 150):
        nodes = [dict(n) for n in document["nodes"]]
        target = next(n for n in nodes if n["id"] == node)
        old = dict(target)
        target["chainingStrategy"] = "HEAD"
        graph = reread_node(before.graph, old, target)
        assert graph is not None
        again = recompile_node(before, graph, NodeId(node))
        expected = compile_document({**document, "nodes": nodes})
        assert _products(again) == _products(expected)
        # The chain breaks above the node: it and everything after it in its branch move.
        moved = [n for n, h in expected.hashes.items() if before.hashes[n] != h]
        branch_end = (node - 1) // 100 * 100 + 100
        assert sorted(moved) == list(range(node - 1, branch_end + 1))


def test_a_field_set_to_what_the_node_reads_as_compiles_nothing() -> None:
    model = LiveModel.build(pipeline_document(400))
    # Map and filter chain by default: setting ALWAYS leaves the graph as it was read.
    edit = Edit.from_json(
        {
            "kind": "set_field",
            "element": "node",
            "nodeId": 3,
            "field": "chainingStrategy",
            "value": "ALWAYS",
        }
    )
    after, _ = model.apply(edit)
    assert after.compilation is model.compilation
    assert after.document["nodes"][2]["chainingStrategy"] == "ALWAYS"
    assert after.plan == document_live_plan(document=after.document) == model.plan
    assert after.delta_from(model) == {}


def _strategy(node: int, value: str) -> Edit:
    return Edit.from_json(
        {
            "kind": "set_field",
            "element": "node",
            "nodeId": node,
            "field": "chainingStrategy",
            "value": value,
        }
    )


def test_ids_shifted_downstream_are_written_when_the_plan_is_read() -> None:
    model = LiveModel.build(pipeline_document(400))
    client = model.plan
    # Breaking the chain at 10, then at 40 (downstream of it), then joining it again at 10:
    # no plan is read in between, so the nodes after 10 lag twice over.
    for node, value in ((10, "HEAD"), (40, "HEAD"), (10, "ALWAYS"), (70, "NEVER")):
        after, _ = model.apply(_strategy(node, value))
        client = apply_plan_delta(client, after.delta_from(model))
        model = after
    assert model.lagging
    assert NodeId(99) in model.lagging
    # The draft keeps an id of an earlier revision; the plan has the current one.
    assert model.draft["nodes"]["99"] != model.plan["nodes"]["99"]
    expected = document_live_plan(document=model.document)
    assert model.plan == expected
    assert client == expected
