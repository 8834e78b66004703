"""A plan runs on Spark as it runs in the reference executor, and says so live."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from runtime.events import ExecutionState, RunOutcome, SubtaskEvent
from runtime.local import run_locally
from runtime.plan import Fault
from runtime.spark.session import Session
from runtime.stages import StageStatus
from tests.runtime.builders import Doc
from tests.runtime.spark.conftest import (
    monitor_of,
    plan_of,
    received,
    reported_stages,
    run_local,
    run_spark,
)

LINES = [
    "to be or not to be",
    "that is the question",
    "whether tis nobler in the mind to suffer",
    "the slings and arrows of outrageous fortune",
] * 5


def word_count(mode: str, *, chaining: bool = True) -> dict[str, Any]:
    return (
        Doc(parallelism=2, mode=mode, chaining=chaining)
        .node(1, "source.collection", {"values": LINES}, parallelism=1)
        .node(2, "flat_map", {"fn": "x.split()"})
        .node(3, "map", {"fn": "(x, 1)"})
        .node(4, "reduce", {"fn": "(a[0], a[1] + b[1])"}, parallelism=3)
        .node(5, "sink.print", parallelism=3)
        .edge(1, 2, "REBALANCE")
        .edge(2, 3)
        .edge(3, 4, "HASH", key="x[0]")
        .edge(4, 5)
        .build()
    )


def previews(result: Any) -> dict[tuple[int, int], tuple[str, ...]]:
    return {(s.node, s.subtask): tuple(sorted(s.preview)) for s in result.sinks}


@pytest.mark.parametrize("mode", ["BATCH", "STREAMING"])
def test_sink_previews_equal_the_reference(spark: Session, mode: str):
    plan = plan_of(word_count(mode))
    reference = run_local(plan)
    result = run_spark(spark, plan)
    assert result.outcome is RunOutcome.FINISHED, result.error
    assert previews(result) == previews(reference)
    # Either mode runs as three stages, one after the other, as the plan says.
    stages = reported_stages(plan, result).stages
    assert [(s.vertices, s.status) for s in stages] == [
        ((v.id,), StageStatus.FINISHED) for v in plan.vertices
    ]
    assert [(s.node, s.subtask, s.records) for s in result.sinks] == [
        (s.node, s.subtask, s.records) for s in sorted(reference.sinks, key=lambda s: s.subtask)
    ]
    if mode == "BATCH":
        lines = [line for s in result.sinks for line in s.preview]
        assert any(line.endswith("('to', 15)") for line in lines)
        assert all(line[0] in "123" and line[1:3] == "> " for line in lines)


def test_chained_and_unchained_vertices_give_the_same_output(spark: Session, run_events):
    chained = plan_of(word_count("BATCH"))
    unchained = plan_of(word_count("BATCH", chaining=False))
    assert [len(v.nodes) for v in chained.vertices] == [1, 2, 2]
    assert [len(v.nodes) for v in unchained.vertices] == [1, 1, 1, 1, 1]
    log = run_events()
    result = run_spark(spark, unchained, log)
    assert result.outcome is RunOutcome.FINISHED, result.error
    assert previews(result) == previews(run_spark(spark, chained))
    # Every subtask of every vertex was watched, each in its own Spark task.
    monitor = monitor_of(unchained, log.settle())
    assert monitor.all_terminal()
    for vertex in unchained.vertices:
        for subtask in range(vertex.parallelism):
            assert monitor.subtask_state(vertex.id, subtask) is ExecutionState.FINISHED


def test_every_subtask_reports_the_flink_states_with_exact_counts(spark: Session, run_events):
    plan = plan_of(word_count("STREAMING"))
    reference: list[SubtaskEvent] = []
    run_locally(plan, reference.append)
    log = run_events()
    result = run_spark(spark, plan, log)
    assert result.outcome is RunOutcome.FINISHED, result.error
    events = log.settle()

    by_subtask: dict[tuple[str, int], list[SubtaskEvent]] = defaultdict(list)
    for event in events:
        by_subtask[event.vertex, event.subtask].append(event)
    expected_counts = {
        (e.vertex, e.subtask): (e.records_in, e.records_out)
        for e in reference
        if e.state is ExecutionState.FINISHED
    }
    assert set(by_subtask) == set(expected_counts)
    for slot, mine in by_subtask.items():
        seen = {(e.source, e.state.value) for e in mine}
        assert seen >= {
            ("driver", "CREATED"),
            ("listener", "SCHEDULED"),
            ("listener", "DEPLOYING"),
            ("hook", "INITIALIZING"),
            ("hook", "RUNNING"),
            ("hook", "FINISHED"),
            ("listener", "FINISHED"),
        }, slot
        assert all(e.attempt == 0 for e in mine)
        hook_finished = [e for e in mine if e.source == "hook" and e.state.value == "FINISHED"]
        assert len(hook_finished) == 1
        assert (hook_finished[0].records_in, hook_finished[0].records_out) == expected_counts[slot]
        # The hook's states follow each other in Flink's order.
        order = [e.state for e in mine if e.source == "hook"]
        assert order[0] is ExecutionState.INITIALIZING and order[-1] is ExecutionState.FINISHED
    monitor = monitor_of(plan, events)
    assert monitor.all_terminal()
    sink_vertex = plan.vertices[-1]
    assert sum(monitor.subtask_json(sink_vertex.id, i)["recordsIn"] for i in range(3)) == sum(
        len(line.split()) for line in LINES
    )


def test_a_failing_expression_fails_the_run_with_a_readable_error(spark: Session, run_events):
    doc = (
        Doc(parallelism=2)
        .node(1, "source.sequence", {"from": 1, "to": 20})
        .node(2, "map", {"fn": "100 // (x - 7)"})
        .node(3, "sink.collect")
        .edge(1, 2)
        .edge(2, 3)
        .build()
    )
    plan = plan_of(doc)
    log = run_events()
    result = run_spark(spark, plan, log)
    assert result.outcome is RunOutcome.FAILED
    assert result.error is not None
    assert "ZeroDivisionError" in result.error
    assert "Map (node 2)" in result.error
    assert "org.apache" not in result.error and "Traceback" not in result.error
    assert len(result.error.splitlines()) <= 2
    reference = run_local(plan)
    assert reference.outcome is RunOutcome.FAILED
    events = log.settle()
    failed = [e for e in events if e.state is ExecutionState.FAILED]
    assert {e.source for e in failed} == {"hook", "listener"}
    assert all("ZeroDivisionError" in (e.error or "") for e in failed)
    assert max(e.attempt for e in failed) == 2  # local[2,3]: three attempts
    monitor = monitor_of(plan, events)
    assert monitor.all_terminal()
    states = {
        monitor.subtask_state(plan.vertices[0].id, i) for i in range(plan.vertices[0].parallelism)
    }
    assert ExecutionState.FAILED in states


def test_a_memory_bomb_fails_its_run_not_the_host(spark: Session):
    # No guard sees a comprehension's total size; the Python worker's memory cap does.
    bomb = (
        Doc(parallelism=1)
        .node(1, "source.sequence", {"from": 1, "to": 1})
        .node(2, "map", {"fn": "len([0 for a in range(10**6) for b in range(10**4)])"})
        .node(3, "sink.collect")
        .edge(1, 2)
        .edge(2, 3)
        .build()
    )
    result = run_spark(spark, plan_of(bomb))
    assert result.outcome is RunOutcome.FAILED
    assert result.error is not None and "Map (node 2): MemoryError" in result.error
    # The session, and its Python workers, go on serving runs.
    after = run_spark(spark, plan_of(word_count("BATCH")))
    assert after.outcome is RunOutcome.FINISHED


def test_a_sink_chained_into_a_vertex_with_outputs_reports_its_output(spark: Session):
    doc = (
        Doc(parallelism=2)
        .node(1, "source.sequence", {"from": 1, "to": 50})
        .node(2, "map", {"fn": "x * 3"})
        .node(3, "sink.collect")
        .node(4, "map", {"fn": "x + 1"}, parallelism=3)
        .node(5, "sink.collect", parallelism=3)
        .edge(1, 2)
        .edge(2, 3)
        .edge(2, 4, "REBALANCE")
        .edge(4, 5)
        .build()
    )
    plan = plan_of(doc)
    first = plan.vertices[0]
    assert first.sinks == (3,) and first.outputs
    result = run_spark(spark, plan)
    assert result.outcome is RunOutcome.FINISHED, result.error
    reference = run_local(plan)
    assert received(result, 3) == received(reference, 3)
    assert received(result, 5) == received(reference, 5)
    assert sorted(r for rs in received(result, 3).values() for r in rs) == [
        3 * x for x in range(1, 51)
    ]


def test_file_sinks_write_each_part_once_even_after_a_retry(spark: Session, tmp_path: Any):
    doc = (
        Doc(parallelism=2)
        .node(1, "source.sequence", {"from": 1, "to": 100})
        .node(2, "map", {"fn": "f'line {x}'"})
        .node(3, "sink.text", {"path": "out"})
        .edge(1, 2)
        .edge(2, 3)
        .build()
    )
    spark_dir, local_dir = tmp_path / "spark", tmp_path / "local"
    spark_dir.mkdir()
    local_dir.mkdir()
    vertex = plan_of(doc, spark_dir).vertices[0]
    faults = (Fault(subtask=0, attempts=(0,), vertex=vertex.id),)
    result = run_spark(spark, plan_of(doc, spark_dir, faults=faults))
    assert result.outcome is RunOutcome.FINISHED, result.error
    reference = run_local(plan_of(doc, local_dir))
    written = sorted(p.name for p in (spark_dir / "out").iterdir())
    assert written == sorted(p.name for p in (local_dir / "out").iterdir())
    assert written == ["part-0.txt", "part-1.txt"]  # no leftover of the failed attempt
    for name in written:
        assert (spark_dir / "out" / name).read_text() == (local_dir / "out" / name).read_text()
    assert sorted(f for s in result.sinks for f in s.files) == sorted(
        f for s in reference.sinks for f in s.files
    )
