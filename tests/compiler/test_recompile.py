"""`recompile_node` edit after edit equals a full compile of each document: every product
of the passes (orders included), the live plan kept by `live_plan_after` and its basis,
and the delta between plans. The documents mix what the incremental passes must get
right or leave to the full ones: uids and uidHashes, max parallelism per node and per job,
chaining off, BATCH exchanges and jobs, slot sharing and co-location groups, every
operator factory, HEAD_WITH_SOURCES, unions and nodes with several inputs."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.document import reread_node
from compiler.execution_json import execution_to_json
from compiler.jobgraph_json import job_graph_to_json
from compiler.liveplan import (
    PlanBasis,
    apply_plan_delta,
    live_plan_after,
    live_plan_with_basis,
    plan_delta,
    with_current_ids,
)
from compiler.model import NodeId
from compiler.pipeline import Compilation, compile_document, recompile_node

STRATEGIES = ["ALWAYS", "HEAD", "NEVER", "HEAD_WITH_SOURCES"]
FACTORIES = ["SOURCE", "OPERATOR", "LEGACY_SOURCE", "YIELDING"]


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(min_value=1, max_value=10))
    friendly = draw(st.booleans())
    par = draw(st.sampled_from([[2], [2], [1, 2]]))
    nodes = []
    for node_id in range(1, count + 1):
        node: dict[str, Any] = {
            "id": node_id,
            "name": draw(st.sampled_from(["A", "B", "Source: s"])),
            "operator": "map",
            "parallelism": draw(st.sampled_from(par)),
            "factory": draw(
                st.sampled_from(
                    ["OPERATOR"] * 4
                    + ["SOURCE", "LEGACY_SOURCE"]
                    + (["YIELDING"] if draw(st.integers(0, 5)) == 0 else [])
                )
            ),
        }
        if draw(st.integers(0, 3)) == 0 and not friendly:
            node["chainingStrategy"] = draw(st.sampled_from(STRATEGIES))
        if draw(st.integers(0, 4)) == 0:
            node["uid"] = f"u{node_id}"
        if draw(st.integers(0, 4)) == 0:
            node["uidHash"] = f"{node_id:032x}"
        if draw(st.integers(0, 3)) == 0:
            node["maxParallelism"] = draw(st.sampled_from([64, 128]))
        if draw(st.integers(0, 4)) == 0 and not friendly:
            node["slotSharingGroup"] = draw(st.sampled_from(["g1", "g2"]))
        if draw(st.integers(0, 15)) == 0:
            node["coLocationGroup"] = "c"
        nodes.append(node)
    edges = []
    for target in range(2, count + 1):
        n_in = draw(st.sampled_from([0, 1, 1, 1, 1, 1, 2, 3]))
        sources = draw(
            st.lists(st.integers(min_value=1, max_value=target - 1), min_size=n_in, max_size=n_in)
        )
        multi = len(sources) >= 2 and draw(st.booleans())
        for i, source in enumerate(sources):
            edge: dict[str, Any] = {"source": source, "target": target}
            p = draw(
                st.sampled_from(
                    [
                        None,
                        None,
                        None,
                        None,
                        None,
                        "FORWARD",
                        "FORWARD",
                        "REBALANCE",
                        "HASH",
                        "RESCALE",
                        "BROADCAST",
                    ]
                )
            )
            if friendly and draw(st.integers(0, 3)):
                p = None
            if p is not None:
                edge["partitioner"] = p
            if multi:
                edge["typeNumber"] = i + 1
            if draw(st.integers(0, 5)) == 0 and not friendly:
                edge["exchangeMode"] = draw(st.sampled_from(["BATCH", "PIPELINED"]))
            edges.append(edge)
    config: dict[str, Any] = {"defaultParallelism": draw(st.sampled_from([1, 2]))}
    if draw(st.integers(0, 4)) == 0 and not friendly:
        config["chainingEnabled"] = False
    if draw(st.integers(0, 2)) == 0:
        config["chainOperatorsWithDifferentMaxParallelism"] = False
    if draw(st.integers(0, 4)) == 0:
        config["maxParallelism"] = 256
    if draw(st.integers(0, 4)) == 0:
        config["runtimeMode"] = "BATCH"
    return {
        "format": "streamgraph/v1",
        "name": "r",
        "config": config,
        "nodes": nodes,
        "edges": edges,
    }


FIELDS: dict[str, list[Any]] = {
    "chainingStrategy": [*STRATEGIES, None],
    "parallelism": [1, 2, 3, None],
    "maxParallelism": [64, 128, None],
    "factory": FACTORIES,
    "name": ["A", "Renamed", "Source: s"],
    "uidHash": ["0" * 31 + "1", None, "f" * 32],
    "coLocationGroup": ["c", None, "d"],
    "operator": ["map", "filter"],
}


def products(c: Compilation) -> dict[str, Any]:
    jg = c.job_graph
    return {
        "chainable": list(c.chainable),
        "chained_outputs": dict(c.chained_outputs),
        "hashes": list(c.hashes.items()),
        "user_hashes": list(c.user_hashes.items()),
        "chains": None
        if c.chains is None
        else [
            (x.head, x.nodes, x.chained_sources, x.name, [e.index for e in x.transitive_out_edges])
            for x in c.chains.chains
        ],
        "head_of": None if c.chains is None else sorted(c.chains.head_of.items()),
        "jg": None if jg is None else job_graph_to_json(jg, c.hashes),
        "jg_creation": None
        if jg is None
        else [(v.id, v.operator_ids) for v in jg.vertices_in_creation_order],
        "vertex_of_node": None if jg is None else sorted(jg.vertex_of_node.items()),
        "exec": None if jg is None or c.execution is None else execution_to_json(jg, c.execution),
        "diagnostics": [d.to_json() for d in c.diagnostics],
        "ok": c.ok,
    }


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    document=documents(),
    script=st.lists(
        st.tuples(
            st.integers(1, 10),
            st.sampled_from(
                sorted(FIELDS) + ["chainingStrategy"] * 6 + ["factory", "maxParallelism"] * 2
            ),
            st.integers(0, 5),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_recompiling_edit_after_edit_equals_compiling_each_document(
    document: dict[str, Any], script: list[tuple[int, str, int]]
) -> None:
    current = compile_document(document)
    if current.diagnostics or current.graph is None:
        return
    plan, basis = live_plan_with_basis(current)
    lagging: frozenset[NodeId] = frozenset()
    for node, field, choice in script:
        nodes = [dict(n) for n in document["nodes"]]
        target = next((n for n in nodes if n["id"] == node), None)
        if target is None:
            continue
        old = dict(target)
        value = FIELDS[field][choice % len(FIELDS[field])]
        if value is None:
            target.pop(field, None)
        else:
            target[field] = value
        after = {**document, "nodes": nodes}
        assert current.graph is not None
        graph = reread_node(current.graph, old, target)
        if graph is None:
            continue
        expected = compile_document(after)
        got = recompile_node(current, graph, NodeId(node))
        assert products(got) == products(expected), (node, field, value)
        # The plans as `live_plan_after` leaves them (`draft`, `new_draft`): lagging nodes
        # keep their ids until `with_current_ids` writes them.
        draft, old_basis = plan, basis
        new_draft, basis, touched, new_lagging = live_plan_after(draft, basis, got, lagging)
        full, fresh = live_plan_with_basis(expected)
        new_plan = _current(new_draft, new_lagging, basis)
        assert new_plan == full, (node, field, value)
        if fresh is not None:
            assert basis is not None
            assert basis.factories == fresh.factories
            assert basis.chained_sources == fresh.chained_sources
            assert list(basis.hashes.items()) == list(fresh.hashes.items())
            assert basis.user_hashes == fresh.user_hashes
            assert basis.vertex_of_node == fresh.vertex_of_node
            assert basis.chainable == fresh.chainable
        plan = _current(draft, lagging, old_basis)
        assert apply_plan_delta(plan, plan_delta(plan, new_plan)) == full
        # Comparing only what the edit made again, with the ids of the plan before it.
        assert plan_delta(plan, new_draft, touched) == plan_delta(plan, new_plan)
        plan, lagging = new_draft, new_lagging
        document, current = after, got


def _current(
    plan: dict[str, Any], lagging: frozenset[NodeId], basis: PlanBasis | None
) -> dict[str, Any]:
    """The plan `live_plan_after` made, with the ids of its lagging nodes written."""
    if not lagging:
        return plan
    assert basis is not None
    return with_current_ids(plan, lagging, basis.hashes, basis.vertex_of_node)
