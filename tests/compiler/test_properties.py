"""Property tests over random valid StreamGraphs, random parallelisms and random junk.

The generated documents are DAGs (edges only from a lower to a higher node id,
listed in random order), with parallelism 1-4 and FORWARD edges only between
equal parallelism; everything else (partitioners, exchange modes, strategies,
slot sharing groups, uids, uid hashes, factories, max parallelism, chaining
switches, BATCH mode) is random within what a valid document allows.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from compiler.chainability import chain_blockers, chainable_edges, head_factories
from compiler.diagnostics import Severity
from compiler.execution import ExecutionEdge
from compiler.hashing import to_hex
from compiler.jobgraph_json import job_graph_to_json
from compiler.keygroups import (
    assign_key_to_parallel_operator,
    assign_to_key_group,
    compute_default_max_parallelism,
    compute_operator_index_for_key_group,
    key_group_range,
)
from compiler.model import DistributionPattern
from compiler.pipeline import Compilation, compile_document
from tests.compiler.builders import GraphBuilder
from tests.compiler.reference_chaining import reference_chains
from tests.compiler.reference_hashing import reference_chainable, reference_hashes

Doc = dict[str, Any]

PROPERTY = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

PARTITIONERS = ["REBALANCE", "RESCALE", "SHUFFLE", "HASH", "BROADCAST", "GLOBAL", "CUSTOM"]
NAMES = st.text(min_size=1, max_size=12)
HEX32 = st.text(alphabet="0123456789abcdefABCDEF", min_size=32, max_size=32)

# Strategies are built once: building them inside the composite costs more than drawing.
_MODE_BATCH = st.sampled_from([False, False, True])
_CHAINING = st.sampled_from([True, True, True, False])
_PARALLELISM = st.integers(1, 4)
_JOB_MAX_PARALLELISM = st.sampled_from([-1, -1, 16])
_NODE_MAX_PARALLELISM = st.sampled_from([-1, -1, -1, -1, 4, 8, 128])
_UID = st.none() | st.none() | st.text(max_size=6)
_UID_HASH = st.none() | st.none() | HEX32
_STRATEGY = st.sampled_from(["ALWAYS"] * 6 + ["HEAD", "NEVER", "HEAD_WITH_SOURCES"])
_GROUP_HYBRID = st.sampled_from([None, "default"])
_GROUP = st.sampled_from([None] * 4 + ["default", "a"])
_FACTORY = st.sampled_from(["OPERATOR"] * 4 + ["SOURCE", "LEGACY_SOURCE", "YIELDING"])
_INPUTS = st.lists(st.integers(0, 1 << 16), max_size=3)
# 0-2: one input from the node just before (a pipeline); 3: any inputs (_INPUTS).
_SINGLE_INPUT = st.integers(0, 3)
_UNIFORM = st.sampled_from([True, True, False])
_PARTITIONER_EQUAL = st.sampled_from(["FORWARD"] * 3 * len(PARTITIONERS) + PARTITIONERS)
_PARTITIONER_OTHER = st.sampled_from(PARTITIONERS)
_MODES = {
    (False, False): st.sampled_from(["UNDEFINED", "UNDEFINED", "PIPELINED"]),
    (True, False): st.sampled_from(["UNDEFINED", "UNDEFINED", "PIPELINED", "BATCH"]),
    (True, True): st.sampled_from(
        ["UNDEFINED", "UNDEFINED", "PIPELINED", "BATCH", "HYBRID_FULL", "HYBRID_SELECTIVE"]
    ),
}


@st.composite
def documents(draw: st.DrawFn, max_nodes: int = 8) -> Doc:
    """A random valid streamgraph/v1 document."""
    batch = draw(_MODE_BATCH)
    hybrid = batch and draw(st.booleans())
    uniform = draw(_UNIFORM)
    base_parallelism = draw(_PARALLELISM)
    builder = GraphBuilder(draw(NAMES)).config(
        chaining_enabled=draw(_CHAINING),
        default_parallelism=draw(_PARALLELISM),
        max_parallelism=draw(_JOB_MAX_PARALLELISM),
        runtime_mode="BATCH" if batch else "STREAMING",
        chain_operators_with_different_max_parallelism=draw(_CHAINING),
    )
    count = draw(st.integers(1, max_nodes))
    parallelism: dict[int, int] = {}
    for nid in range(1, count + 1):
        parallelism[nid] = base_parallelism if uniform else draw(_PARALLELISM)
        uid = draw(_UID)
        builder.node(
            nid,
            draw(NAMES),
            parallelism=parallelism[nid],
            max_parallelism=draw(_NODE_MAX_PARALLELISM),
            strategy=draw(_STRATEGY),
            slot_sharing_group=draw(_GROUP_HYBRID if hybrid else _GROUP),
            uid=None if uid is None else f"{uid}#{nid}",
            uid_hash=draw(_UID_HASH),
            factory=draw(_FACTORY),
        )
    modes = _MODES[batch, hybrid]
    edges: list[tuple[int, int, str, str]] = []
    for target in range(2, count + 1):
        shape = draw(_SINGLE_INPUT)
        inputs = [target - 2] if shape < 3 else draw(_INPUTS)
        for number in inputs:
            source = number % (target - 1) + 1
            equal = parallelism[source] == parallelism[target]
            partitioner = draw(_PARTITIONER_EQUAL if equal else _PARTITIONER_OTHER)
            edges.append((source, target, partitioner, draw(modes)))
    for source, target, partitioner, mode in draw(st.permutations(edges)):
        builder.edge(source, target, partitioner=partitioner, exchange_mode=mode)
    return builder.build()


def compiled(document: Doc) -> Compilation:
    compilation = compile_document(document)
    assert [str(d) for d in compilation.diagnostics] == []
    assert compilation.ok
    return compilation


def as_json(c: Compilation) -> dict[str, Any]:
    assert c.job_graph is not None
    return job_graph_to_json(c.job_graph, c.hashes)


# determinism, valid documents compile -------------------------------------------------------------


@PROPERTY
@given(documents())
def test_compilation_is_deterministic_and_valid_documents_compile(document: Doc) -> None:
    before = copy.deepcopy(document)
    first = compiled(document)
    second = compiled(copy.deepcopy(document))
    assert document == before
    assert list(first.hashes.items()) == list(second.hashes.items())
    assert first.user_hashes == second.user_hashes
    assert as_json(first) == as_json(second)
    assert first.execution is not None and second.execution is not None
    assert [v.id for v in first.execution.vertices] == [v.id for v in second.execution.vertices]


@PROPERTY
@given(documents(), st.randoms(use_true_random=False))
def test_the_order_of_the_node_list_does_not_matter(document: Doc, random: Any) -> None:
    shuffled = copy.deepcopy(document)
    random.shuffle(shuffled["nodes"])
    assert as_json(compiled(shuffled)) == as_json(compiled(document))


# names do not enter hashes ------------------------------------------------------------------------


@PROPERTY
@given(documents(), st.data())
def test_hashes_do_not_depend_on_names(document: Doc, data: st.DataObject) -> None:
    original = compiled(document)
    renamed_document = copy.deepcopy(document)
    for node in renamed_document["nodes"]:
        node["name"] = data.draw(NAMES)
    renamed = compiled(renamed_document)
    assert renamed.hashes == original.hashes
    assert original.job_graph is not None and renamed.job_graph is not None
    assert [(v.id, v.nodes) for v in renamed.job_graph.vertices] == [
        (v.id, v.nodes) for v in original.job_graph.vertices
    ]


# chaining enters hashes ---------------------------------------------------------------------------


def with_chainable_pair(document: Doc) -> Doc:
    """The document with chaining on and one more source -> map pair that chains."""
    extended = copy.deepcopy(document)
    extended["config"]["chainingEnabled"] = True
    first = max((node["id"] for node in extended["nodes"]), default=0) + 1
    for offset, name in enumerate(("Source: extra", "Map extra")):
        extended["nodes"].append(
            {
                "id": first + offset,
                "name": name,
                "parallelism": 1,
                "chainingStrategy": "ALWAYS",
                "slotSharingGroup": "default",
            }
        )
    extended["edges"].append({"source": first, "target": first + 1, "partitioner": "FORWARD"})
    return extended


@PROPERTY
@given(documents())
def test_breaking_a_chain_changes_the_upstream_hash(document: Doc) -> None:
    original = compiled(document)
    if not any(original.chainable):
        # Filtering such documents out trips Hypothesis's health check; give them a chain.
        document = with_chainable_pair(document)
        original = compiled(document)
    assert original.graph is not None
    assert any(original.chainable)
    for edge in original.graph.edges:
        if not original.chainable[edge.index]:
            continue
        broken_document = copy.deepcopy(document)
        for node in broken_document["nodes"]:
            if node["id"] == edge.target:
                node["chainingStrategy"] = "HEAD"
        broken = compiled(broken_document)
        assert not broken.chainable[edge.index]
        upstream = original.graph.nodes[edge.source]
        if upstream.uid is None:
            assert broken.hashes[edge.source] != original.hashes[edge.source]
        else:
            assert broken.hashes[edge.source] == original.hashes[edge.source]
        # Nodes hashed before the upstream one are not affected.
        order = list(original.hashes)
        for nid in order[: order.index(edge.source)]:
            assert broken.hashes[nid] == original.hashes[nid]


# uid collisions -----------------------------------------------------------------------------------


@PROPERTY
@given(documents(), st.data())
def test_duplicate_uids_are_reported(document: Doc, data: st.DataObject) -> None:
    ids = [node["id"] for node in document["nodes"]]
    assume(len(ids) >= 2)
    first, second = data.draw(st.lists(st.sampled_from(ids), min_size=2, max_size=2, unique=True))
    uid = data.draw(st.text(min_size=1, max_size=6).filter(lambda s: "#" not in s))
    for node in document["nodes"]:
        if node["id"] in (first, second):
            node["uid"] = uid
    compilation = compile_document(document)
    found = [d for d in compilation.diagnostics if d.severity is Severity.ERROR]
    assert [(d.code, d.location.node, d.location.field) for d in found] == [
        ("node.uid-collision", max(first, second), "uid")
    ]
    assert f"(also used by node {min(first, second)})" in found[0].message
    assert not compilation.ok


# the two chainability implementations -------------------------------------------------------------


@PROPERTY
@given(documents())
def test_chain_blockers_agree_with_chainability(document: Doc) -> None:
    c = compiled(document)
    graph = c.graph
    assert graph is not None
    chainable = chainable_edges(graph)
    assert chainable == c.chainable
    factories = head_factories(graph, chainable)
    for edge in graph.edges:
        blockers = chain_blockers(graph, edge, factories[edge.source])
        assert (blockers == []) == chainable[edge.index], (edge, blockers)


@PROPERTY
@given(documents())
def test_chainability_and_hashes_agree_with_the_spec_pseudo_code(document: Doc) -> None:
    c = compiled(document)
    assert c.graph is not None
    assert c.chainable == reference_chainable(c.graph)
    expected = reference_hashes(c.graph, c.chainable)
    assert list(c.hashes) == list(expected)  # the same hashing order
    assert {nid: to_hex(h) for nid, h in c.hashes.items()} == {
        nid: h.hex() for nid, h in expected.items()
    }


# the JobGraph's structure -------------------------------------------------------------------------


@PROPERTY
@given(documents())
def test_job_graph_structure(document: Doc) -> None:
    c = compiled(document)
    graph, job_graph = c.graph, c.job_graph
    assert graph is not None and job_graph is not None
    # The hashes are exactly the generated operator ids; each node is in exactly one vertex,
    # where FLIP-27 sources chained into a HEAD_WITH_SOURCES operator have no operator id.
    generated = [g for v in job_graph.vertices for g, _ in v.operator_ids]
    chained_sources = {n for v in job_graph.vertices for n in v.chained_sources}
    with_sources = any(
        n.chaining_strategy.value == "HEAD_WITH_SOURCES" for n in graph.nodes.values()
    )
    if not with_sources:
        assert chained_sources == set()
        assert sorted(generated) == sorted(c.hashes.values())
    assert sorted(generated) == sorted(
        h for nid, h in c.hashes.items() if nid not in chained_sources
    )
    assert len(set(c.hashes.values())) == len(graph.nodes)
    members = [n for v in job_graph.vertices for n in (*v.nodes, *v.chained_sources)]
    assert sorted(members) == sorted(graph.nodes)
    for nid in graph.nodes:
        assert job_graph.vertex(job_graph.vertex_of_node[nid]).id == job_graph.vertex_of_node[nid]
    for vertex in job_graph.vertices:
        assert vertex.id == c.hashes[vertex.head]
        assert vertex.nodes[-1] == vertex.head
        assert [u for _, u in vertex.operator_ids] == [c.user_hashes[n] for n in vertex.nodes]
        assert vertex.parallelism == graph.nodes[vertex.head].parallelism
    # One JobEdge per non-chainable stream edge.
    job_edges = [e for v in job_graph.vertices for e in v.inputs]
    assert sorted(e.stream_edge.index for e in job_edges) == [
        e.index for e in graph.edges if not c.chainable[e.index]
    ]
    for edge in job_edges:
        assert edge.distribution_pattern is (
            DistributionPattern.POINTWISE
            if edge.ship_strategy.value in ("FORWARD", "RESCALE")
            else DistributionPattern.ALL_TO_ALL
        )
    # Topological order: every vertex after the producers of its inputs.
    position = {v.id: i for i, v in enumerate(job_graph.vertices)}
    assert len(position) == len(job_graph.vertices_in_creation_order)
    for vertex in job_graph.vertices:
        assert all(position[e.producer] < position[vertex.id] for e in vertex.inputs)
    # Data sets and their consumers agree with the inputs.
    for vertex in job_graph.vertices:
        for data_set in vertex.produced_data_sets:
            assert data_set.consumers
            for edge in data_set.consumers:
                assert edge.producer == vertex.id and edge.data_set == data_set.id
                assert edge in job_graph.vertex(edge.target).inputs
    # Slot sharing groups: indexes in order of first appearance, slots = largest parallelism.
    groups = job_graph.slot_sharing_groups
    assert [g.index for g in groups] == list(range(len(groups)))
    seen: list[int] = []
    for vertex in job_graph.vertices:
        if vertex.slot_sharing_group not in seen:
            seen.append(vertex.slot_sharing_group)
        group = groups[vertex.slot_sharing_group]
        assert group.name == vertex.slot_sharing_group_name
        assert group.slots >= vertex.parallelism
    assert seen == list(range(len(groups)))
    assert job_graph.slots_required == sum(
        max(v.parallelism for v in job_graph.vertices if v.slot_sharing_group == g.index)
        for g in groups
    )


@PROPERTY
@given(documents())
def test_chains_agree_with_the_recursive_reference(document: Doc) -> None:
    c = compiled(document)
    assert c.graph is not None and c.chains is not None
    reference = reference_chains(c.graph, c.chainable)
    assert [
        (ch.head, list(ch.nodes), list(ch.chained_sources), ch.name) for ch in c.chains.chains
    ] == [(r.head, r.nodes, r.chained_sources, r.name) for r in reference]
    assert [[e.index for e in ch.transitive_out_edges] for ch in c.chains.chains] == [
        [e.index for e in r.transitive_out_edges] for r in reference
    ]


@PROPERTY
@given(documents())
def test_execution_graph_follows_the_job_graph(document: Doc) -> None:
    c = compiled(document)
    assert c.job_graph is not None and c.execution is not None
    assert [v.job_vertex for v in c.execution.vertices] == list(c.job_graph.vertices)
    for vertex in c.execution.vertices:
        assert vertex.parallelism == vertex.job_vertex.parallelism
        if vertex.job_vertex.max_parallelism == -1:
            assert vertex.max_parallelism_derived
            assert vertex.max_parallelism == compute_default_max_parallelism(vertex.parallelism)
        ranges = [vertex.key_group_range(i) for i in range(vertex.parallelism)]
        assert ranges[0][0] == 0 and ranges[-1][1] == vertex.max_parallelism - 1
        assert vertex.subtask_name(0) == f"{vertex.job_vertex.name} (1/{vertex.parallelism})"
    assert len(c.execution.edges) == sum(len(v.inputs) for v in c.job_graph.vertices)


# partitions, subpartitions and key groups ---------------------------------------------------------


def execution_edge_of(producers: int, consumers: int, partitioner: str) -> ExecutionEdge:
    document = (
        GraphBuilder()
        .node(1, "S", parallelism=producers, strategy="HEAD")
        .node(2, "T", parallelism=consumers, strategy="HEAD")
        .edge(1, 2, partitioner=partitioner)
        .build()
    )
    c = compiled(document)
    assert c.execution is not None
    (edge,) = c.execution.edges
    return edge


@PROPERTY
@given(st.integers(1, 64), st.integers(1, 64))
def test_pointwise_groups_partition_producers_and_consumers(s: int, t: int) -> None:
    edge = execution_edge_of(s, t, "RESCALE")
    groups = edge.groups
    # §11.3: one group per consumer when S >= T, one per partition when S < T.
    assert len(groups) == min(s, t)
    assert sorted(p for g in groups for p in g.partitions) == list(range(s))
    assert sorted(i for g in groups for i in g.consumers) == list(range(t))
    for i in range(t):
        group = edge.group_of_consumer(i)
        assert i in group.consumers
        if s >= t:
            assert group.partitions == range(i * s // t, (i + 1) * s // t)
            assert edge.subpartitions_read_by(i) == range(0, 1)
    for p in range(s):
        group = edge.group_of_partition(p)
        assert p in group.partitions
        readers = [i for i in range(t) if p in edge.group_of_consumer(i).partitions]
        assert readers == list(group.consumers)
        if s < t:
            start, end = (p * t + s - 1) // s, ((p + 1) * t + s - 1) // s
            assert readers == list(range(start, end))
        # Each subpartition of a partition is read by exactly one of its consumers.
        assert edge.number_of_subpartitions(p) == len(readers)
        read = sorted(x for i in readers for x in edge.subpartitions_read_by(i))
        assert read == list(range(edge.number_of_subpartitions(p)))
    widest = max(len(edge.group_of_consumer(i).partitions) for i in range(t))
    assert edge.max_edges_to_target == widest == (s + t - 1) // t


@PROPERTY
@given(st.integers(1, 64), st.integers(1, 64), st.sampled_from(["REBALANCE", "HASH", "GLOBAL"]))
def test_all_to_all_is_one_group(s: int, t: int, partitioner: str) -> None:
    edge = execution_edge_of(s, t, partitioner)
    assert edge.pattern is DistributionPattern.ALL_TO_ALL
    (group,) = edge.groups
    assert group.partitions == range(s) and group.consumers == range(t)
    assert edge.max_edges_to_target == s
    assert all(edge.number_of_subpartitions(p) == t for p in range(s))


KEYS = (
    st.integers(-(2**31), 2**31 - 1)
    | st.integers(-(2**63), 2**63 - 1)
    | st.text(max_size=10)
    | st.booleans()
)


@PROPERTY
@given(st.integers(1, 32768), st.data())
def test_key_group_ranges_tile_and_route_keys(max_parallelism: int, data: st.DataObject) -> None:
    parallelism = data.draw(st.integers(1, min(max_parallelism, 512)))
    ranges = [key_group_range(max_parallelism, parallelism, i) for i in range(parallelism)]
    assert ranges[0][0] == 0
    assert ranges[-1][1] == max_parallelism - 1
    for (_, end), (start, _) in itertools.pairwise(ranges):
        assert start == end + 1
    for index, (start, end) in enumerate(ranges):
        assert start <= end
        for group in {start, end, (start + end) // 2}:
            assert (
                compute_operator_index_for_key_group(max_parallelism, parallelism, group) == index
            )
    for key in data.draw(st.lists(KEYS, min_size=1, max_size=20)):
        group = assign_to_key_group(key, max_parallelism)
        assert 0 <= group < max_parallelism
        subtask = assign_key_to_parallel_operator(key, max_parallelism, parallelism)
        start, end = ranges[subtask]
        assert start <= group <= end


@PROPERTY
@given(st.integers(1, 32768))
def test_default_max_parallelism_bounds(parallelism: int) -> None:
    value = compute_default_max_parallelism(parallelism)
    assert 128 <= value <= 32768
    assert value & (value - 1) == 0
    assert value >= min(parallelism + parallelism // 2, 32768)


# fuzz -------------------------------------------------------------------------------------------

VOCABULARY = [
    "format",
    "name",
    "config",
    "nodes",
    "edges",
    "id",
    "source",
    "target",
    "parallelism",
    "maxParallelism",
    "partitioner",
    "typeNumber",
    "uid",
    "chainingStrategy",
]
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(["streamgraph/v1", "FORWARD", "HEAD", "BATCH", "HYBRID_FULL"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(VOCABULARY) | st.text(max_size=6), children, max_size=5)
    ),
    max_leaves=25,
)


def _never_raises(document: object) -> Compilation:
    before = json.dumps(document, sort_keys=True)
    compilation = compile_document(document)
    assert json.dumps(document, sort_keys=True) == before
    if compilation.ok:
        assert compilation.job_graph is not None
    else:
        assert any(d.severity is Severity.ERROR for d in compilation.diagnostics)
    return compilation


@PROPERTY
@given(JSON_VALUES)
def test_arbitrary_json_never_raises(value: object) -> None:
    _never_raises(value)


def _paths(value: object, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


@PROPERTY
@given(documents(max_nodes=5), st.data())
def test_mutated_documents_never_raise(document: Doc, data: st.DataObject) -> None:
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(document)))
        if not path:
            continue
        parent: Any = document
        for step in path[:-1]:
            parent = parent[step]
        if isinstance(parent, dict) and data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(JSON_VALUES)
        _never_raises(document)
