"""The rescale simulator (`compiler.rescale`) against key groups computed by hand with
Flink's `KeyGroupRangeAssignment` formulas, and against Flink's own printed ranges."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compiler.edits import apply_edit
from compiler.keygroups import compute_operator_index_for_key_group
from compiler.model import Hash128, NodeId
from compiler.pipeline import compile_document
from compiler.rescale import (
    PIN_NAMES_SHOWN,
    PROBLEMS_SHOWN,
    READS_SHOWN,
    SUBTASKS_SHOWN,
    KeyGroups,
    ProblemSeverity,
    Rescale,
    RescaleProblem,
    RescaleRefused,
    RescaleSimulation,
    key_group_ranges,
    pin_edits,
    redistribute,
    rescale_totals,
    rescaled_document,
    shown_problems,
    simulate_rescale,
)
from tests.compiler.builders import GraphBuilder

FIXTURES = Path(__file__).resolve().parent / "data" / "fixtures"


def _ranges(*pairs: tuple[int, int]) -> tuple[KeyGroups, ...]:
    return tuple(KeyGroups(start, end) for start, end in pairs)


def _keyed(parallelism: int = -1, **config: Any) -> dict[str, Any]:
    """Source -> Map, keyBy, Reduce -> Sink; every operator on the job's default."""
    return (
        GraphBuilder("keyed")
        .config(default_parallelism=2, **config)
        .node(1, "Source: in", parallelism=parallelism, strategy="HEAD", operator="source.list")
        .node(2, "Map", parallelism=parallelism)
        .node(3, "Reduce", parallelism=parallelism, operator="reduce")
        .node(4, "Sink: out", parallelism=parallelism, operator="sink.print")
        .edge(1, 2)
        .edge(2, 3, partitioner="HASH")
        .edge(3, 4)
        .build()
    )


def _vertex_of(document: dict[str, Any], node: int) -> Hash128:
    compilation = compile_document(document)
    assert compilation.job_graph is not None
    return compilation.job_graph.vertex_of_node[NodeId(node)]


def _codes(simulation: RescaleSimulation) -> list[str]:
    return [problem.code for problem in simulation.problems]


# Key groups, by hand ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("max_parallelism", "parallelism", "expected"),
    [
        (128, 1, ((0, 127),)),
        (128, 2, ((0, 63), (64, 127))),
        (128, 3, ((0, 42), (43, 85), (86, 127))),
        (128, 5, ((0, 25), (26, 51), (52, 76), (77, 102), (103, 127))),
        (10, 4, ((0, 2), (3, 4), (5, 7), (8, 9))),
        (4, 4, ((0, 0), (1, 1), (2, 2), (3, 3))),
    ],
)
def test_key_group_ranges_are_flinks(
    max_parallelism: int, parallelism: int, expected: tuple[tuple[int, int], ...]
) -> None:
    # start = (i * max + p - 1) / p, end = ((i + 1) * max - 1) / p, in integer division
    assert key_group_ranges(max_parallelism, parallelism) == _ranges(*expected)


def test_key_group_ranges_match_the_ranges_flink_printed() -> None:
    facts = json.loads((FIXTURES / "keygroups.json").read_text("utf-8"))

    for entry in facts["keyGroupRanges"]:
        expected = _ranges(*(tuple(pair) for pair in entry["ranges"]))
        assert key_group_ranges(entry["maxParallelism"], entry["parallelism"]) == expected


def _derived(parallelism: int) -> int:
    """`computeDefaultMaxParallelism` worked out by hand: 1.5 x p rounded up to a power of
    two, within [128, 32768]; 128 below 86, 256 up to 171 (171 + 85 = 256), then 512."""
    if parallelism <= 85:
        return 128
    if parallelism <= 171:
        return 256
    return 512


@pytest.mark.parametrize("parallelism", range(1, 201))
def test_a_derived_max_parallelism_is_flinks_default(parallelism: int) -> None:
    document = _keyed()
    after = simulate_rescale(document, Rescale(parallelism))

    reduce = next(v for v in after.vertices if v.head == 3)
    assert reduce.max_parallelism.key_groups == 128  # what the state was written with at 2
    assert reduce.max_parallelism.explicit is False
    assert reduce.max_parallelism.derived_after == _derived(parallelism)


def test_redistribute_from_two_to_three_subtasks() -> None:
    after = redistribute(128, 2, 3)

    assert [s.key_groups for s in after] == list(_ranges((0, 42), (43, 85), (86, 127)))
    assert [[(r.subtask, r.key_groups) for r in s.reads] for s in after] == [
        [(0, KeyGroups(0, 42))],
        [(0, KeyGroups(43, 63)), (1, KeyGroups(64, 85))],
        [(1, KeyGroups(86, 127))],
    ]
    assert [s.kept for s in after] == [43, 22, 0]
    assert [s.kept_fraction for s in after] == [1.0, 22 / 43, 0.0]


def test_redistribute_from_three_to_two_subtasks() -> None:
    after = redistribute(128, 3, 2)

    assert [[(r.subtask, r.key_groups) for r in s.reads] for s in after] == [
        [(0, KeyGroups(0, 42)), (1, KeyGroups(43, 63))],
        [(1, KeyGroups(64, 85)), (2, KeyGroups(86, 127))],
    ]
    assert [s.kept for s in after] == [43, 22]


@pytest.mark.parametrize(
    ("max_parallelism", "old", "new"),
    [(128, 2, 3), (128, 3, 2), (128, 7, 128), (128, 128, 1), (10, 3, 7), (256, 100, 99)],
)
def test_redistribute_agrees_with_each_key_group_s_subtask(
    max_parallelism: int, old: int, new: int
) -> None:
    after = redistribute(max_parallelism, old, new)

    for subtask in after:
        covered = [
            kg
            for read in subtask.reads
            for kg in range(read.key_groups.start, read.key_groups.end + 1)
        ]
        assert covered == list(range(subtask.key_groups.start, subtask.key_groups.end + 1))
        for read in subtask.reads:
            for key_group in (read.key_groups.start, read.key_groups.end):
                assert (
                    compute_operator_index_for_key_group(max_parallelism, old, key_group)
                    == read.subtask
                )
                assert (
                    compute_operator_index_for_key_group(max_parallelism, new, key_group)
                    == subtask.index
                )
    stayed = sum(
        1
        for kg in range(max_parallelism)
        if compute_operator_index_for_key_group(max_parallelism, old, kg)
        == compute_operator_index_for_key_group(max_parallelism, new, kg)
    )
    assert sum(subtask.kept for subtask in after) == stayed


def _brute_totals(max_parallelism: int, old: int, new: int) -> tuple[int, float, float]:
    """Moved key groups and least and most kept share, key group by key group."""
    kept = [0] * new
    for key_group in range(max_parallelism):
        index = compute_operator_index_for_key_group(max_parallelism, new, key_group)
        if compute_operator_index_for_key_group(max_parallelism, old, key_group) == index:
            kept[index] += 1
    shares = [kept[i] / s.size for i, s in enumerate(key_group_ranges(max_parallelism, new))]
    return max_parallelism - sum(kept), min(shares), max(shares)


def test_totals_equal_a_count_of_every_key_group() -> None:
    triples = [
        (max_parallelism, old, new)
        for max_parallelism in (1, 2, 3, 7, 10, 128, 130, 256, 1000, 4096)
        for old in range(1, min(max_parallelism, 24) + 1)
        for new in range(1, min(max_parallelism, 24) + 1)
    ]
    triples += [
        (128, 127, 128),
        (128, 128, 127),
        (256, 100, 99),
        (4096, 4095, 4096),
        (4096, 1, 4096),
        (4096, 4096, 1),
        (4096, 2048, 3000),
        (32768, 32767, 32768),
        (32768, 1, 32768),
        (32768, 32768, 5),
    ]
    for max_parallelism, old, new in triples:
        totals = rescale_totals(max_parallelism, old, new)
        assert (totals.moved, totals.least, totals.most) == _brute_totals(
            max_parallelism, old, new
        ), (max_parallelism, old, new)


def test_redistribute_describes_only_the_first_subtasks_and_reads() -> None:
    limited = redistribute(32768, 32768, 8, SUBTASKS_SHOWN)
    everything = redistribute(32768, 32768, 8)

    assert [s.reads_from for s in limited] == [4096] * 8
    assert all(len(s.reads) == READS_SHOWN for s in limited)
    assert [s.reads[:READS_SHOWN] for s in everything] == [s.reads for s in limited]
    assert [(s.key_groups, s.kept) for s in everything] == [(s.key_groups, s.kept) for s in limited]
    assert len(redistribute(32768, 1, 32768, SUBTASKS_SHOWN)) == SUBTASKS_SHOWN


def test_a_wide_vertex_is_described_by_its_first_subtasks_and_its_totals() -> None:
    document = _keyed(max_parallelism=32768)
    job_graph = compile_document(document).job_graph
    assert job_graph is not None

    vertex = simulate_rescale(document, Rescale(32768, job_graph.vertex_of_node[NodeId(3)]))
    vertex = vertex.vertices[0]

    assert (len(vertex.before), len(vertex.after)) == (2, SUBTASKS_SHOWN)
    assert vertex.totals is not None
    expected = _brute_totals(32768, 2, 32768)
    assert (vertex.moved_key_groups, vertex.totals.least, vertex.totals.most) == expected
    body = vertex.to_json()
    assert body["subtasksShown"] == SUBTASKS_SHOWN
    assert body["keptFraction"] == {"least": expected[1], "most": expected[2]}


# One vertex ---------------------------------------------------------------------------------


def test_one_vertex_gets_the_new_parallelism_on_each_of_its_operators() -> None:
    document = _keyed()
    reduce = _vertex_of(document, 3)

    simulation = simulate_rescale(document, Rescale(3, reduce))

    assert [v.id for v in simulation.vertices] == [reduce]
    vertex = simulation.vertices[0]
    assert (vertex.name, vertex.nodes, vertex.keyed) == ("Reduce -> Sink: out", (3, 4), True)
    assert (vertex.parallelism_before, vertex.parallelism_after) == (2, 3)
    assert vertex.before == _ranges((0, 63), (64, 127))
    assert [s.key_groups for s in vertex.after] == list(_ranges((0, 42), (43, 85), (86, 127)))
    assert vertex.moved_key_groups == 21 + 42
    assert vertex.restores and simulation.restores
    assert (simulation.slots.before, simulation.slots.after) == (2, 3)
    assert (simulation.subtasks.before, simulation.subtasks.after) == (4, 5)
    nodes = {n["id"]: n for n in simulation.document["nodes"]}
    assert [nodes[n]["parallelism"] for n in (1, 2, 3, 4)] == [-1, -1, 3, 3]
    assert document["nodes"][2]["parallelism"] == -1  # the input is left as it was


def test_the_rescaled_document_is_the_one_the_simulation_judged() -> None:
    document = _keyed()
    rescale = Rescale(5, _vertex_of(document, 3))

    simulation = simulate_rescale(document, rescale)

    assert rescaled_document(document, rescale) == simulation.document
    assert simulation.compilation.ok and simulation.compilation.execution is not None
    assert [v.parallelism for v in simulation.compilation.execution.vertices] == [2, 5]


def test_a_never_set_max_parallelism_is_a_warning_with_a_pin() -> None:
    document = _keyed()
    reduce = _vertex_of(document, 3)

    simulation = simulate_rescale(document, Rescale(4, reduce))

    assert _codes(simulation) == ["derived-max-parallelism"]
    warning = simulation.problems[0]
    assert warning.severity == "warning" and warning.vertex == reduce and warning.node == 3
    assert warning.message == (
        "This job never set a max parallelism, so the keyed state of Reduce -> Sink: out is "
        "written with 128 key groups; it can never run wider than 128 without losing keyed "
        "state: set maxParallelism explicitly before the first deploy."
    )
    assert simulation.pin is not None
    assert [e.to_json() for e in simulation.pin.edits] == [
        {
            "kind": "set_field",
            "element": "node",
            "nodeId": n,
            "field": "maxParallelism",
            "value": 128,
        }
        for n in (3, 4)
    ]


def test_pinning_keeps_the_key_groups_and_the_ids() -> None:
    document = _keyed()
    reduce = _vertex_of(document, 3)
    simulation = simulate_rescale(document, Rescale(4, reduce))
    assert simulation.pin is not None

    pinned = document
    for edit in simulation.pin.edits:
        pinned, _ = apply_edit(pinned, edit)

    before, after = compile_document(document), compile_document(pinned)
    assert before.hashes == after.hashes
    assert after.execution is not None
    vertex = next(v for v in after.execution.vertices if v.id == reduce)
    assert (vertex.max_parallelism, vertex.max_parallelism_derived) == (128, False)
    assert _codes(simulate_rescale(pinned, Rescale(4, reduce))) == []


def test_above_a_derived_max_parallelism_the_state_cannot_be_restored() -> None:
    document = _keyed()
    reduce = _vertex_of(document, 3)

    simulation = simulate_rescale(document, Rescale(200, reduce))

    vertex = simulation.vertices[0]
    assert simulation.ok  # Flink would start it without state, deriving 512 key groups
    assert not vertex.restores and not simulation.restores
    assert vertex.after == () and vertex.moved_key_groups is None
    assert vertex.max_parallelism.after is None
    assert vertex.max_parallelism.derived_after == 512
    assert _codes(simulation) == ["above-max-parallelism", "derived-max-parallelism"]
    assert "refuses to restore it at parallelism 200" in simulation.problems[0].message
    assert "Stay at 128 or below" in simulation.problems[0].message


def test_within_the_saved_key_groups_a_different_derived_value_is_only_noted() -> None:
    document = _keyed()
    reduce = _vertex_of(document, 3)

    simulation = simulate_rescale(document, Rescale(100, reduce))

    vertex = simulation.vertices[0]
    assert vertex.restores
    assert (vertex.max_parallelism.derived_after, vertex.max_parallelism.after) == (256, 128)
    assert len(vertex.after) == SUBTASKS_SHOWN  # of 100: the first ones
    assert _codes(simulation) == ["derived-max-parallelism", "derived-max-parallelism-differs"]
    assert simulation.problems[1].severity == "info"


def test_an_explicit_max_parallelism_caps_the_vertex() -> None:
    document = _keyed(max_parallelism=16)
    reduce = _vertex_of(document, 3)

    within = simulate_rescale(document, Rescale(16, reduce))
    beyond = simulate_rescale(document, Rescale(17, reduce))

    assert _codes(within) == [] and within.pin is None
    assert within.vertices[0].max_parallelism.to_json() == {
        "keyGroups": 16,
        "explicit": True,
        "derivedAfter": None,
        "after": 16,
    }
    assert [s.key_groups.size for s in within.vertices[0].after] == [1] * 16
    assert not beyond.ok
    assert _codes(beyond) == ["above-max-parallelism"]  # not the compiler's words again
    assert "sets its max parallelism to 16" in beyond.problems[0].message


# The whole job ------------------------------------------------------------------------------


def test_the_whole_job_changes_the_default_parallelism_only() -> None:
    document = (
        GraphBuilder("pinned")
        .config(default_parallelism=2)
        .node(1, "Source: in", parallelism=1, strategy="HEAD", operator="source.list")
        .node(2, "Reduce", parallelism=-1, operator="reduce")
        .edge(1, 2, partitioner="HASH")
        .build()
    )

    simulation = simulate_rescale(document, Rescale(6))

    source, reduce = simulation.vertices
    assert (source.follows_default, source.changed, source.parallelism_after) == (False, False, 1)
    assert (reduce.follows_default, reduce.changed, reduce.parallelism_after) == (True, True, 6)
    assert (simulation.default_parallelism.before, simulation.default_parallelism.after) == (2, 6)
    assert simulation.document["config"]["defaultParallelism"] == 6
    assert (simulation.slots.before, simulation.slots.after) == (2, 6)
    assert simulation.pin is not None
    assert [e.to_json() for e in simulation.pin.edits] == [
        {"kind": "set_field", "element": "config", "field": "maxParallelism", "value": 128}
    ]


def test_a_whole_job_pin_with_different_key_groups_sets_each_operator() -> None:
    document = (
        GraphBuilder("wide")
        .config(default_parallelism=2)
        .node(1, "Source: in", parallelism=100, strategy="HEAD", operator="source.list")
        .node(2, "Reduce", parallelism=-1, operator="reduce")
        .edge(1, 2, partitioner="HASH")
        .build()
    )

    simulation = simulate_rescale(document, Rescale(3))

    assert simulation.pin is not None
    assert [(e.node_id, e.value) for e in simulation.pin.edits] == [(1, 256), (2, 128)]


def test_a_rescale_that_changes_chaining_says_so_and_what_state_it_loses() -> None:
    document = (
        GraphBuilder("chain")
        .config(default_parallelism=2)
        .node(1, "Source: in", parallelism=2, strategy="HEAD", operator="source.list")
        .node(2, "Map", parallelism=-1)
        .node(3, "Sink: out", parallelism=2, operator="sink.print")
        .edge(1, 2, partitioner=None)
        .edge(2, 3, partitioner=None)
        .build()
    )
    before = compile_document(document).job_graph
    assert before is not None and len(before.vertices) == 1

    simulation = simulate_rescale(document, Rescale(4))

    (vertex,) = simulation.vertices
    assert [v.name for v in vertex.after_vertices] == ["Source: in", "Map", "Sink: out"]
    assert "chaining-changed" in _codes(simulation)
    lost = [p for p in simulation.problems if p.code == "state-lost"]
    assert [p.node for p in lost] == [1]  # of the three, only the source keeps state
    assert not simulation.restores


def test_a_rescale_flink_would_refuse_to_build_says_why() -> None:
    document = (
        GraphBuilder("forward")
        .config(default_parallelism=2, chaining_enabled=False)
        .node(1, "Source: in", parallelism=2, strategy="HEAD", operator="source.list")
        .node(2, "Map", parallelism=2)
        .edge(1, 2, partitioner="FORWARD")
        .build()
    )

    simulation = simulate_rescale(document, Rescale(3, _vertex_of(document, 2)))

    assert not simulation.ok and not simulation.restores
    assert (simulation.slots.after, simulation.subtasks.after) == (None, None)
    (problem,) = [p for p in simulation.problems if p.code == "not-compiled"]
    assert (problem.severity, problem.vertex) == ("error", None)
    assert "Forward partitioning does not allow change of parallelism" in problem.message
    assert simulation.vertices[0].after_vertices == ()


# Refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize("parallelism", [0, -1, 32769])
def test_a_parallelism_out_of_bounds_is_refused(parallelism: int) -> None:
    with pytest.raises(RescaleRefused) as refused:
        simulate_rescale(_keyed(), Rescale(parallelism))

    assert refused.value.parameter == "parallelism"
    assert "between 1 and 32768" in refused.value.message


def test_an_unknown_vertex_is_refused() -> None:
    with pytest.raises(RescaleRefused) as refused:
        simulate_rescale(_keyed(), Rescale(2, Hash128(0xABC)))

    assert refused.value.parameter == "vertex"
    assert refused.value.message == "there is no JobVertex 00000000000000000000000000000abc"


def test_a_document_that_does_not_compile_is_refused() -> None:
    document = _keyed()
    document["edges"].append({"source": 4, "target": 99})

    with pytest.raises(RescaleRefused) as refused:
        simulate_rescale(document, Rescale(2))

    assert refused.value.parameter == "document"
    assert refused.value.diagnostics


# Every fixture ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", sorted(FIXTURES.glob("*.streamgraph.json")), ids=lambda path: path.name.split(".")[0]
)
def test_every_fixture_rescales_consistently(path: Path) -> None:
    document = json.loads(path.read_text("utf-8"))

    for parallelism in (1, 3, 130):
        simulation = simulate_rescale(document, Rescale(parallelism))
        json.dumps(simulation.to_json())
        for vertex in simulation.vertices:
            assert len(vertex.before) == min(vertex.parallelism_before, SUBTASKS_SHOWN)
            if not vertex.restores:
                assert vertex.parallelism_after > vertex.max_parallelism.key_groups
                continue
            assert len(vertex.after) == min(vertex.parallelism_after, SUBTASKS_SHOWN)
            assert vertex.totals is not None
            assert 0 <= vertex.totals.least <= vertex.totals.most <= 1
            if vertex.parallelism_after <= SUBTASKS_SHOWN:
                assert (
                    sum(s.key_groups.size for s in vertex.after)
                    == vertex.max_parallelism.key_groups
                )


def _problem(severity: ProblemSeverity, vertex: int | None) -> RescaleProblem:
    return RescaleProblem(
        "derived-max-parallelism", severity, "", None if vertex is None else Hash128(vertex)
    )


def test_the_problems_listed_are_the_page_s_then_other_vertices_errors() -> None:
    job = _problem("error", None)
    here = [_problem("info", 1), _problem("warning", 1), _problem("error", 2)]
    elsewhere = [_problem("warning", 3), _problem("error", 3), _problem("error", 4)]

    shown = shown_problems((*elsewhere, *here, job), {Hash128(1), Hash128(2)})

    assert shown == (job, here[2], here[1], here[0], elsewhere[1], elsewhere[2])


def test_the_problems_listed_are_bounded() -> None:
    problems = tuple(_problem("error", vertex) for vertex in range(1, 3 * PROBLEMS_SHOWN))

    shown = shown_problems(problems, {Hash128(3 * PROBLEMS_SHOWN - 1)})

    assert len(shown) == PROBLEMS_SHOWN
    assert shown[0] == problems[-1]  # the page's first


def test_a_pin_over_many_vertices_names_a_few_and_counts_the_others() -> None:
    document = _keyed()
    simulation = simulate_rescale(document, Rescale(parallelism=3))
    vertices = simulation.vertices * 4  # as many as a wide job's
    nodes = sum(len(vertex.nodes) for vertex in vertices)

    pin = pin_edits(vertices, document, whole_job=False)

    assert pin is not None and len(pin.edits) == nodes
    assert pin.message.count(" to ") == PIN_NAMES_SHOWN + 1
    assert f"and of {len(vertices) - PIN_NAMES_SHOWN} more vertices to theirs" in pin.message
