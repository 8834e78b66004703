"""Generated chains: long and wide chains, counts at the boundary, errors named by node."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_document
from runtime.chains import SubtaskRun
from runtime.operators import OperatorError
from runtime.plan import RunPlan
from runtime.planner import RunOptions, build_run_plan
from tests.runtime.builders import Doc, run, sink_records


def plan(document: dict[str, Any], data_dir: Path | str = ".", seed: int = 1) -> RunPlan:
    return build_run_plan(
        document, compile_document(document), RunOptions(str(data_dir), seed=seed)
    )


def test_a_chain_is_one_loop_with_the_expressions_inlined():
    doc = (
        Doc()
        .chain(
            (1, "source.sequence", {"from": 1, "to": 3}),
            (2, "filter", {"predicate": "x > 1"}),
            (3, "map", {"fn": "x * 2"}),
            (4, "sink.collect", {}),
        )
        .build()
    )
    code = plan(doc).vertices[0].code
    assert code.count("for ") == 1
    assert "if not (_v1 > 1):\n                continue" in code
    assert "_v3 = (_v1 * 2 if _v1.__class__ is _g_int else _g_mul(_v1, 2))" in code
    assert "yield" not in code.split("_ctx.complete")[0]  # a sink-only chain sends nothing


def test_long_chains_nest_into_functions_and_still_compute_the_same(tmp_path: Path):
    nodes: list[tuple[int, str, dict[str, Any]]] = [(1, "source.sequence", {"from": 1, "to": 40})]
    expected = list(range(1, 41))
    for node in range(2, 402):
        if node % 100 == 0:
            nodes.append((node, "flat_map", {"fn": "[x, x + 1]"}))
            expected = [y for x in expected for y in (x, x + 1)]
        elif node % 25 == 0:  # loops nest: 16 of them are more than one function may hold
            nodes.append((node, "flat_map", {"fn": "[x]"}))
        elif node % 7 == 0:
            nodes.append((node, "filter", {"predicate": f"x % {node} != 3"}))
            expected = [x for x in expected if x % node != 3]
        else:
            nodes.append((node, "map", {"fn": "x + 1"}))
            expected = [x + 1 for x in expected]
    nodes.append((500, "sink.collect", {}))
    doc = Doc().chain(*nodes).build()
    assert "yield from _f0(" in plan(doc).vertices[0].code
    result, _ = run(doc, tmp_path)
    assert sink_records(result, 500) == expected


def test_wide_and_deep_fan_out_moves_parts_into_nested_functions(tmp_path: Path):
    doc = Doc().node(1, "source.sequence", {"from": 1, "to": 5})
    sinks = []
    node = 2
    for branch in range(3):
        previous = 1
        for _ in range(60):  # non-tail filters nest: every branch is followed by another
            doc.node(node, "filter", {"predicate": f"x != {100 + branch}"}).edge(previous, node)
            previous, node = node, node + 1
        doc.node(node, "map", {"fn": f"x * {branch + 1}"}).edge(previous, node)
        doc.node(node + 1, "sink.collect").edge(node, node + 1)
        sinks.append(node + 1)
        node += 2
    document = doc.build()
    code = plan(document, tmp_path).vertices[0].code
    assert "def _f0(_y):" in code and "yield from _f0(" in code
    result, _ = run(document, tmp_path)
    assert [sink_records(result, sink) for sink in sinks] == [
        [1, 2, 3, 4, 5],
        [2, 4, 6, 8, 10],
        [3, 6, 9, 12, 15],
    ]


def test_records_are_counted_at_the_vertex_boundary(tmp_path: Path):
    doc = (
        Doc(parallelism=2)
        .node(1, "source.sequence", {"from": 1, "to": 10})
        .node(2, "flat_map", {"fn": "[x, x]"})
        .node(3, "map", {"fn": "x"}, parallelism=3)
        .node(4, "sink.print", parallelism=3)
        .edge(1, 2)
        .edge(2, 3, "BROADCAST")
        .edge(3, 4)
        .build()
    )
    _, events = run(doc, tmp_path)
    finished = [e for e in events if e.state.value == "FINISHED"]
    source = [(e.records_in, e.records_out) for e in finished if e.subtask < 2][:2]
    assert source == [(0, 10), (0, 10)]  # a broadcast record counts once
    consumers = [(e.records_in, e.records_out) for e in finished[2:]]
    assert consumers == [(20, 0)] * 3  # every subtask got all 20; a sink sends nothing on


def test_counts_are_published_while_running():
    doc = (
        Doc(chaining=False)
        .node(1, "source.sequence", {"from": 1, "to": 5000})
        .node(2, "map", {"fn": "x"})
        .node(3, "sink.print")
        .edge(1, 2)
        .edge(2, 3)
        .build()
    )
    vertex = plan(doc).vertices[1]
    running = SubtaskRun(vertex, 0)
    outputs = running.run((0, n) for n in range(5000))
    assert running.records_in == 0
    for _ in range(3000):
        next(outputs)
    assert (running.records_in, running.records_out) == (2048, 2047)  # as record 2048 came in
    assert not running.finished
    list(outputs)
    assert (running.records_in, running.records_out, running.finished) == (5000, 5000, True)
    with pytest.raises(RuntimeError, match="runs once"):
        running.run(())


def test_batched_input_gives_the_same_results_as_records(tmp_path: Path):
    doc = (
        Doc(chaining=False, mode="BATCH")
        .node(1, "source.sequence", {"from": 1, "to": 3000})
        .node(2, "reduce", {"fn": "a + b"})
        .node(3, "sink.collect")
        .edge(1, 2, "HASH", key="x % 10")
        .edge(2, 3)
        .build()
    )
    vertex = plan(doc, tmp_path).vertices[1]
    records = [(0, n) for n in range(1, 3001)]
    one = SubtaskRun(vertex, 0)
    list(one.run(records))
    batched = SubtaskRun(vertex, 0)
    list(
        batched.execute(
            [(0, [r for _, r in records[:1000]]), (0, [r for _, r in records[1000:]])],
            batched_input=True,
        )
    )
    assert one.sink_outputs() == batched.sink_outputs()
    assert batched.records_in == 3000


@pytest.mark.parametrize(
    ("kind", "params", "edge_key", "message"),
    [
        ("map", {"fn": "10 // (x - 3)"}, None, "Map (node 2): ZeroDivisionError: integer division"),
        (
            "flat_map",
            {"fn": "x"},
            None,
            "FlatMap (node 2): TypeError: 'int' object is not iterable",
        ),
        ("reduce", {"fn": "a + b"}, "[0, 1][x]", "HASH edge into Reduce (node 2): IndexError"),
        ("reduce", {"fn": "a + 'b'"}, "x % 2", "Reduce (node 2): TypeError"),
        (
            "window.reduce",
            {"assigner": "tumbling_event_time", "sizeMs": 5, "timestamp": "'t'", "fn": "a"},
            "x % 2",
            "TumblingEventTimeWindows (node 2): TypeError: the timestamp 't' is not a number",
        ),
    ],
)
def test_a_failing_operator_is_named_in_the_error(
    tmp_path: Path, kind: str, params: dict[str, Any], edge_key: str | None, message: str
):
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 5})
        .node(2, kind, params)
        .node(3, "sink.collect")
        .edge(1, 2, "HASH" if edge_key else "FORWARD", key=edge_key)
        .edge(2, 3)
        .build()
    )
    result, events = run(doc, tmp_path)
    assert result.outcome.value == "FAILED"
    failed = [e for e in events if e.state.value == "FAILED"]
    assert len(failed) == 1 and failed[0].error is not None
    assert message in failed[0].error


def test_errors_deep_inside_nested_functions_are_named_too(tmp_path: Path):
    nodes: list[tuple[int, str, dict[str, Any]]] = [(1, "source.sequence", {"from": 1, "to": 3})]
    nodes += [(n, "flat_map", {"fn": "[x]"}) for n in range(2, 40)]
    nodes += [(40, "map", {"fn": "x // 0"}), (41, "sink.collect", {})]
    doc = Doc().chain(*nodes).build()
    assert "def _f0" in plan(doc).vertices[0].code
    vertex = plan(doc).vertices[0]
    with pytest.raises(OperatorError, match=r"Map \(node 40\): ZeroDivisionError"):
        list(SubtaskRun(vertex, 0).run(()))


def test_plans_pickle_and_run_the_same_where_they_land(tmp_path: Path):
    doc = (
        Doc(parallelism=2, mode="BATCH")
        .node(1, "source.sequence", {"from": 1, "to": 100})
        .node(2, "map", {"fn": "(x % 7, x)"})
        .node(3, "sum", {"field": 1})
        .node(4, "sink.collect")
        .edge(1, 2)
        .edge(2, 3, "HASH", key="x[0]")
        .edge(3, 4)
        .build()
    )
    original = plan(doc, tmp_path)
    copy = pickle.loads(pickle.dumps(original))
    assert len(pickle.dumps(original)) < 50_000

    def outputs(run_plan: RunPlan) -> list[Any]:
        source, consumer = run_plan.vertices
        inbox: dict[int, list[Any]] = {0: [], 1: []}
        for subtask in range(2):
            for target, item in SubtaskRun(source, subtask).run_routed(()):
                inbox[target].append(item)
        result = []
        for subtask in range(2):
            running = SubtaskRun(consumer, subtask)
            list(running.run(inbox[subtask]))
            result += running.sink_outputs()
        return result

    assert outputs(copy) == outputs(original)
