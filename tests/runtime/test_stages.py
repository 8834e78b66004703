"""How a plan executes beside what Flink plans for it (`runtime.stages`), from plans alone,
and with the stages an executor reports put in their place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_document
from runtime.events import StageRun
from runtime.local import run_locally
from runtime.plan import RunPlan
from runtime.planner import RunOptions, build_run_plan
from runtime.stages import Handoff, StageStatus, describe_execution
from tests.runtime.builders import Doc

S = StageStatus


def plan_of(document: dict[str, Any]) -> RunPlan:
    return build_run_plan(document, compile_document(document), RunOptions(".", seed=7))


def word_count(mode: str) -> dict[str, Any]:
    """source -REBALANCE-> flat_map -> map -HASH-> reduce -> sink: three vertices."""
    return (
        Doc(parallelism=2, mode=mode)
        .node(1, "source.collection", {"values": ["a b", "b c"]}, parallelism=1)
        .node(2, "flat_map", {"fn": "x.split()"}, name="Split")
        .node(3, "map", {"fn": "(x, 1)"}, name="Pair")
        .node(4, "reduce", {"fn": "(a[0], a[1] + b[1])"}, name="Sum", parallelism=3)
        .node(5, "sink.print", name="Sink: Out", parallelism=3)
        .edge(1, 2, "REBALANCE")
        .edge(2, 3)
        .edge(3, 4, "HASH", key="x[0]")
        .edge(4, 5)
        .build()
    )


def shared_then_met() -> RunPlan:
    """Source 1 feeds a sink and a map that also reads source 5: its edge into the map is
    moved once more, by a stage of its own, to meet the other input."""
    return plan_of(
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 60}, parallelism=2)
        .node(5, "source.sequence", {"from": 1000, "to": 1010}, parallelism=1)
        .node(2, "map", {"fn": "x"}, parallelism=3, strategy="HEAD")
        .node(3, "sink.collect", parallelism=3)
        .node(4, "sink.collect", parallelism=2)
        .edge(1, 2, "REBALANCE")
        .edge(5, 2, "HASH", key="x % 3")
        .edge(2, 3)
        .edge(1, 4, "REBALANCE")
        .build()
    )


def rows(report: Any) -> list[tuple[Any, ...]]:
    return [
        (
            e.edge,
            e.source.name,
            e.target.name,
            e.partitioner,
            e.result_partition_type,
            e.handoff,
            e.producer_stage,
            e.consumer_stage,
        )
        for e in report.exchanges
    ]


@pytest.mark.parametrize(
    ("mode", "exchange"), [("STREAMING", "PIPELINED_BOUNDED"), ("BATCH", "BLOCKING")]
)
def test_every_job_edge_is_a_shuffle_between_stages_and_chained_edges_stay_in_one(
    mode: str, exchange: str
):
    plan = plan_of(word_count(mode))
    source, split, total = (v.id for v in plan.vertices)
    report = describe_execution(plan, executor="spark")
    assert (report.executor, report.runtime_mode, report.reported) == ("spark", mode, False)
    assert [(s.node, s.name) for s in report.sources] == [(1, "Source: Collection Source")]
    assert [(s.number, s.vertices, s.after, s.status) for s in report.stages] == [
        (1, (source,), (), S.PLANNED),
        (2, (split,), (1,), S.PLANNED),
        (3, (total,), (2,), S.PLANNED),
    ]
    assert rows(report) == [
        (0, "Source: Collection Source", "Split", "REBALANCE", exchange, Handoff.SHUFFLE, 1, 2),
        (1, "Split", "Pair", "FORWARD", None, Handoff.IN_TASK, 2, 2),
        (2, "Pair", "Sum", "HASH", exchange, Handoff.SHUFFLE, 2, 3),
        (3, "Sum", "Sink: Out", "FORWARD", None, Handoff.IN_TASK, 3, 3),
    ]


def test_outputs_share_the_last_stage_and_a_range_meeting_other_inputs_moves_again():
    plan = shared_then_met()
    by_head = {v.head: v.id for v in plan.vertices}
    report = describe_execution(plan, executor="spark")
    assert [(s.number, s.vertices, s.edge, s.after) for s in report.stages] == [
        (1, (by_head[1],), None, ()),
        (2, (), 0, (1,)),
        (3, (by_head[5],), None, ()),
        (4, (by_head[2], by_head[4]), None, (1, 2, 3)),
    ]
    handoffs = {e.edge: (e.handoff, e.producer_stage, e.consumer_stage) for e in report.exchanges}
    assert handoffs == {
        0: (Handoff.SHUFFLE_TWICE, 1, 4),
        1: (Handoff.SHUFFLE, 3, 4),
        2: (Handoff.IN_TASK, 4, 4),
        3: (Handoff.SHUFFLE, 1, 4),
    }


def test_reported_stages_are_numbered_in_the_order_they_began():
    plan = shared_then_met()
    first, _, second, last = describe_execution(plan, executor="spark").stages
    report = describe_execution(plan, executor="spark").observed(
        [
            StageRun(7, 0, last.vertices, parents=(4, 5, 6), submitted=30.0, completed=40.0),
            StageRun(4, 0, first.vertices, submitted=10.0, completed=20.0),
            StageRun(5, 0, (), edge=0, parents=(4,), submitted=20.5, completed=25.0),
            StageRun(6, 0, second.vertices, submitted=10.0, completed=12.0),
        ]
    )
    assert report.reported
    assert [(s.number, s.vertices, s.stage_id, s.after, s.status) for s in report.stages] == [
        (1, first.vertices, 4, (), S.FINISHED),
        (2, second.vertices, 6, (), S.FINISHED),
        (3, (), 5, (1,), S.FINISHED),
        (4, last.vertices, 7, (1, 2, 3), S.FINISHED),
    ]
    # Exchanges follow their stages' new numbers.
    assert {e.edge: (e.producer_stage, e.consumer_stage) for e in report.exchanges} == {
        0: (1, 4),
        1: (2, 4),
        2: (4, 4),
        3: (1, 4),
    }


def test_retries_failures_and_stages_that_never_began_are_told_apart():
    plan = plan_of(word_count("STREAMING"))
    first, second, _ = describe_execution(plan, executor="spark").stages
    report = describe_execution(plan, executor="spark").observed(
        [
            StageRun(0, 0, first.vertices, submitted=1.0, completed=2.0),
            StageRun(1, 0, second.vertices, submitted=2.5, completed=3.0, failed=True),
            StageRun(1, 1, second.vertices, submitted=3.5, completed=4.0, failed=True),
        ]
    )
    assert [(s.number, s.status, s.attempts, s.submitted, s.completed) for s in report.stages] == [
        (1, S.FINISHED, 1, 1.0, 2.0),
        (2, S.FAILED, 2, 2.5, 4.0),
        (3, S.NOT_RUN, 0, None, None),
    ]
    canceled = describe_execution(plan, executor="spark").observed(
        [StageRun(0, 0, first.vertices, submitted=1.0)]
    )
    assert [s.status for s in canceled.stages] == [S.UNFINISHED, S.NOT_RUN, S.NOT_RUN]
    nothing = describe_execution(plan, executor="spark").observed([])
    assert nothing.reported and {s.status for s in nothing.stages} == {S.NOT_RUN}


def test_a_reported_stage_the_plan_lacks_is_shown_too():
    plan = plan_of(word_count("BATCH"))
    report = describe_execution(plan, executor="spark").observed(
        [StageRun(9, 0, (), submitted=1.0, completed=2.0)]
    )
    unplanned = report.stages[0]
    assert (unplanned.number, unplanned.vertices, unplanned.stage_id) == (1, (), 9)
    assert unplanned.status is S.FINISHED
    assert len(report.stages) == 4


def test_the_local_executor_runs_vertex_after_vertex_and_keeps_exchanges_in_memory():
    plan = plan_of(word_count("STREAMING"))
    report = describe_execution(plan, executor="local")
    assert [(s.vertices, s.after) for s in report.stages] == [
        ((v.id,), () if i == 0 else (i,)) for i, v in enumerate(plan.vertices)
    ]
    assert [e.handoff for e in report.exchanges] == [
        Handoff.IN_MEMORY,
        Handoff.IN_TASK,
        Handoff.IN_MEMORY,
        Handoff.IN_TASK,
    ]
    result = run_locally(plan, lambda event: None)
    assert result.stages is not None
    ran = report.observed(result.stages)
    assert [(s.number, s.stage_id, s.status) for s in ran.stages] == [
        (1, 0, S.FINISHED),
        (2, 1, S.FINISHED),
        (3, 2, S.FINISHED),
    ]
    assert all(
        later.submitted is not None
        and earlier.completed is not None
        and later.submitted >= earlier.completed
        for earlier, later in zip(ran.stages, ran.stages[1:], strict=False)
    )


def test_the_report_reads_as_the_wire_shape():
    plan = plan_of(word_count("STREAMING"))
    data = describe_execution(plan, executor="spark").to_json()
    assert set(data) == {
        "executor",
        "runtimeMode",
        "sources",
        "stagesReported",
        "stages",
        "exchanges",
        "engines",
    }
    assert data["engines"] == []  # until the executor reports what ran each vertex
    assert data["exchanges"][2] == {
        "edge": 2,
        "source": {"node": 3, "name": "Pair"},
        "target": {"node": 4, "name": "Sum"},
        "partitioner": "HASH",
        "resultPartitionType": "PIPELINED_BOUNDED",
        "handoff": "shuffle",
        "producerStage": 2,
        "consumerStage": 3,
    }
    assert data["stages"][1] == {
        "number": 2,
        "vertices": [plan.vertices[1].id],
        "edge": None,
        "reads": [],
        "writes": [],
        "after": [1],
        "status": "planned",
        "stageId": None,
        "attempts": 0,
        "submitted": None,
        "completed": None,
    }


def test_an_unknown_executor_is_refused():
    with pytest.raises(ValueError, match="unknown executor 'flink'"):
        describe_execution(plan_of(word_count("BATCH")), executor="flink")


def test_on_another_scheme_stages_read_the_sources_and_the_last_writes_the_sinks(
    tmp_path: Path,
) -> None:
    document = (
        Doc(parallelism=2)
        .node(1, "source.text", {"path": "in"}, name="Lines")
        .node(2, "sink.text", {"path": "copy"}, name="Copy")
        .node(3, "map", {"fn": "x"}, name="Same", parallelism=3)
        .node(4, "sink.print", name="Print", parallelism=3)
        .edge(1, 2)
        .edge(1, 3, "REBALANCE")
        .edge(3, 4)
        .build()
    )
    options = RunOptions("hdfs://namenode:8020/studio/workspaces/1", seed=7)
    plan = build_run_plan(document, compile_document(document), options)
    report = describe_execution(plan, executor="spark")
    first, second = (v.id for v in plan.vertices)
    assert [
        (s.number, s.vertices, [r.name for r in s.reads], [w.name for w in s.writes], s.after)
        for s in report.stages
    ] == [
        (1, (), ["Lines"], [], ()),
        (2, (first,), [], [], (1,)),
        (3, (second,), [], ["Copy"], (2,)),
    ]
    assert report.to_json()["stages"][0]["reads"] == [{"node": 1, "name": "Lines"}]
    # On `file:` the vertices read and write in place.
    (tmp_path / "in").write_text("a line\n")
    options = RunOptions(f"file://{tmp_path}", seed=7)
    local = describe_execution(
        build_run_plan(document, compile_document(document), options), executor="spark"
    )
    assert [(s.vertices, s.reads, s.writes) for s in local.stages] == [
        ((first,), (), ()),
        ((second,), (), ()),
    ]
