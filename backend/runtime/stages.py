"""How a run plan executes, beside the exchanges Flink plans for it.

Flink runs a STREAMING job with all its vertices deployed at once, records flowing
through PIPELINED_BOUNDED exchanges as they are produced; a BATCH job region by region,
through BLOCKING exchanges. The runtime runs both the same way, as a bounded batch job:

- on Spark (`runtime.spark.executor`) every source reads its whole input, and every
  JobEdge is a shuffle that its producer's stage writes whole (to Spark's shuffle files)
  before its consumer's stage starts; a chained edge is a call inside one task. A stage
  runs one vertex with outputs, and the vertices without outputs share the last stage.
  An edge from a vertex with several outputs into a vertex with several inputs is moved
  once more, by a stage of its own (`tasks.Rekey`). On a data location of another scheme
  than `file:` (`runtime.spark.hadoop`), a stage of its own reads a vertex's file sources
  before it, and a vertex with file sinks sends their parts on to the last stage, which
  writes them.
- the local executor (`runtime.local`) runs one vertex after the other in plan order,
  each JobEdge's records held in memory until its consumer runs.

`describe_execution(plan, executor=...)` says so for one plan, stage by stage and edge by
edge, in the order the plan implies; `ExecutionReport.observed(stages)` puts in the
stages the executor reported (`runtime.events.StageRun`), in the order they ran.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from runtime.events import StageRun, VertexEngine
from runtime.operators.sinks import FILE_SINKS
from runtime.operators.sources import FILE_SOURCES
from runtime.plan import NodePlan, RunPlan, VertexPlan
from runtime.storage import data_location

EXECUTORS = ("spark", "local")


class Handoff(Enum):
    """How records crossed an edge."""

    IN_TASK = "in-task"
    """A chained edge: the producer calls the consumer inside one task, record by record."""
    SHUFFLE = "shuffle"
    """Written whole to Spark's shuffle files by the producer's stage, read by the
    consumer's stage once that stage has finished."""
    SHUFFLE_TWICE = "shuffle-twice"
    """A shuffle whose consumer's range is shuffled again by a stage of its own."""
    IN_MEMORY = "in-memory"
    """Held in memory whole until the consumer ran (the local executor)."""


class StageStatus(Enum):
    PLANNED = "planned"
    """Not reported by the executor (yet): the plan's stage."""
    FINISHED = "finished"
    FAILED = "failed"
    UNFINISHED = "unfinished"
    """It began and never completed (the run was canceled)."""
    NOT_RUN = "not-run"
    """The run ended before it began."""


@dataclass(frozen=True, slots=True)
class OperatorRef:
    node: int
    name: str


@dataclass(frozen=True, slots=True)
class StageReport:
    number: int
    """1-based: the order the stages ran in, or the plan's order."""
    vertices: tuple[str, ...]
    edge: int | None
    """For a stage that only moves an edge's records again: that StreamEdge."""
    after: tuple[int, ...]
    """The stages whose output it reads: it starts once they have finished."""
    status: StageStatus
    stage_id: int | None = None
    """Spark's stage id (the local executor: the vertex's position)."""
    attempts: int = 0
    submitted: float | None = None
    completed: float | None = None
    reads: tuple[OperatorRef, ...] = ()
    """The file sources whose files it reads (another scheme than `file:`)."""
    writes: tuple[OperatorRef, ...] = ()
    """The file sinks whose parts it writes (another scheme than `file:`)."""

    @property
    def key(self) -> tuple[frozenset[str], int | None, frozenset[int], frozenset[int]]:
        """What it runs: a reported stage is the planned one with the same key."""
        return _key(
            self.vertices, self.edge, (r.node for r in self.reads), (w.node for w in self.writes)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "vertices": list(self.vertices),
            "edge": self.edge,
            "reads": [{"node": r.node, "name": r.name} for r in self.reads],
            "writes": [{"node": w.node, "name": w.name} for w in self.writes],
            "after": list(self.after),
            "status": self.status.value,
            "stageId": self.stage_id,
            "attempts": self.attempts,
            "submitted": self.submitted,
            "completed": self.completed,
        }


@dataclass(frozen=True, slots=True)
class ExchangeReport:
    """One StreamEdge: what Flink plans for it, and how the executor moved its records."""

    edge: int
    """The StreamEdge's index in the document."""
    source: OperatorRef
    target: OperatorRef
    partitioner: str
    result_partition_type: str | None
    """Flink's planned exchange of the JobEdge; None for a chained edge (no exchange)."""
    handoff: Handoff
    producer_stage: int
    consumer_stage: int

    def to_json(self) -> dict[str, Any]:
        return {
            "edge": self.edge,
            "source": {"node": self.source.node, "name": self.source.name},
            "target": {"node": self.target.node, "name": self.target.name},
            "partitioner": self.partitioner,
            "resultPartitionType": self.result_partition_type,
            "handoff": self.handoff.value,
            "producerStage": self.producer_stage,
            "consumerStage": self.consumer_stage,
        }


@dataclass(frozen=True, slots=True)
class ExecutionReport:
    executor: str
    runtime_mode: str
    """The pipeline's planned mode, STREAMING or BATCH."""
    sources: tuple[OperatorRef, ...]
    """Each reads its whole input: the runtime's inputs are bounded."""
    stages: tuple[StageReport, ...]
    exchanges: tuple[ExchangeReport, ...]
    """Every StreamEdge, in document order."""
    reported: bool = False
    """True once the stages are the ones the executor reported, in the order they ran."""
    engines: tuple[VertexEngine, ...] = ()
    """What ran each vertex, as the executor reported it (empty until it did)."""

    def observed(
        self, runs: Iterable[StageRun], engines: tuple[VertexEngine, ...] = ()
    ) -> ExecutionReport:
        """The report with the stages the executor saw (every attempt of each), numbered
        in the order they began; planned stages it never began come last, not run. A
        reported stage the plan lacks is listed too: what is shown is what ran."""
        attempts: dict[int, list[StageRun]] = {}
        for run in runs:
            attempts.setdefault(run.stage, []).append(run)
        by_key = {s.key: s for s in self.stages}
        operators = {r.node: r for s in self.stages for r in (*s.reads, *s.writes)}
        matched: dict[int, StageReport] = {}
        extra: list[StageReport] = []
        for stage_id in sorted(attempts):
            seen = sorted(attempts[stage_id], key=lambda r: r.attempt)
            last = seen[-1]
            planned = by_key.get(_key(last.vertices, last.edge, last.reads, last.writes))
            base = planned or StageReport(
                0,
                last.vertices,
                last.edge,
                (),
                StageStatus.PLANNED,
                reads=tuple(operators.get(n, OperatorRef(n, str(n))) for n in last.reads),
                writes=tuple(operators.get(n, OperatorRef(n, str(n))) for n in last.writes),
            )
            if planned is not None and planned.number in matched:
                base = replace(planned, number=0, after=())  # seen twice: keep both
            report = replace(
                base,
                status=_status(last),
                stage_id=stage_id,
                attempts=len(seen),
                submitted=min((r.submitted for r in seen if r.submitted is not None), default=None),
                completed=last.completed,
            )
            if base.number:
                matched[base.number] = report
            else:
                extra.append(report)
        began = sorted(
            [*matched.values(), *extra],
            key=lambda s: (math.inf if s.submitted is None else s.submitted, s.stage_id or 0),
        )
        never = [
            replace(s, status=StageStatus.NOT_RUN) for s in self.stages if s.number not in matched
        ]
        ordered = [*began, *never]
        renumber = {s.number: n for n, s in enumerate(ordered, 1) if s.number}
        stages = tuple(
            replace(s, number=n, after=tuple(sorted(renumber[a] for a in s.after)))
            for n, s in enumerate(ordered, 1)
        )
        exchanges = tuple(
            replace(
                e,
                producer_stage=renumber[e.producer_stage],
                consumer_stage=renumber[e.consumer_stage],
            )
            for e in self.exchanges
        )
        return replace(self, stages=stages, exchanges=exchanges, reported=True, engines=engines)

    def to_json(self) -> dict[str, Any]:
        return {
            "executor": self.executor,
            "runtimeMode": self.runtime_mode,
            "sources": [{"node": s.node, "name": s.name} for s in self.sources],
            "stagesReported": self.reported,
            "stages": [s.to_json() for s in self.stages],
            "exchanges": [e.to_json() for e in self.exchanges],
            "engines": [e.to_json() for e in self.engines],
        }


def describe_execution(plan: RunPlan, *, executor: str) -> ExecutionReport:
    """How `executor` (`spark` or `local`) runs `plan`, in the order the plan implies."""
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}")
    layout = _spark_layout(plan) if executor == "spark" else _local_layout(plan)
    stages = tuple(
        StageReport(
            number, stage.vertices, stage.edge, stage.after, StageStatus.PLANNED,
            reads=stage.reads, writes=stage.writes,
        )
        for number, stage in enumerate(layout.stages, 1)
    )  # fmt: skip
    exchanges: list[ExchangeReport] = []
    for vertex in plan.vertices:
        stage = layout.stage_of[vertex.id]
        for node in (*vertex.chained_sources, *vertex.nodes):
            for out in node.outs:
                if out.node is not None:
                    exchanges.append(
                        ExchangeReport(
                            edge=out.edge,
                            source=OperatorRef(node.id, node.name),
                            target=_operator(vertex, out.node),
                            partitioner="FORWARD",  # only FORWARD edges chain
                            result_partition_type=None,
                            handoff=Handoff.IN_TASK,
                            producer_stage=stage,
                            consumer_stage=stage,
                        )
                    )
                    continue
                assert out.output is not None
                output = vertex.outputs[out.output]
                consumer = plan.vertex(output.consumer)
                again = output.edge in layout.moved_by
                exchanges.append(
                    ExchangeReport(
                        edge=output.edge,
                        source=OperatorRef(node.id, node.name),
                        # A network input always feeds the head of its consumer's chain.
                        target=_operator(consumer, consumer.head),
                        partitioner=output.partitioner,
                        result_partition_type=output.result_partition_type,
                        handoff=(
                            Handoff.IN_MEMORY
                            if executor == "local"
                            else Handoff.SHUFFLE_TWICE
                            if again
                            else Handoff.SHUFFLE
                        ),
                        producer_stage=stage,
                        consumer_stage=layout.stage_of[consumer.id],
                    )
                )
    sources = tuple(_operator(vertex, node) for vertex in plan.vertices for node in vertex.sources)
    return ExecutionReport(
        executor=executor,
        runtime_mode=plan.runtime_mode,
        sources=sources,
        stages=stages,
        exchanges=tuple(sorted(exchanges, key=lambda e: e.edge)),
    )


@dataclass(frozen=True, slots=True)
class _Stage:
    vertices: tuple[str, ...]
    edge: int | None
    after: tuple[int, ...]
    reads: tuple[OperatorRef, ...] = ()
    writes: tuple[OperatorRef, ...] = ()


@dataclass(frozen=True, slots=True)
class _Layout:
    stages: list[_Stage]
    """In the plan's order; stage numbers are 1-based."""
    stage_of: dict[str, int]
    moved_by: dict[int, int]
    """StreamEdge -> the stage that moves its records again."""


def _spark_layout(plan: RunPlan) -> _Layout:
    """The stages `runtime.spark.executor` builds: see the module docstring."""
    layout = _Layout([], {}, {})
    hadoop = not data_location(plan.data_dir).is_local
    # Vertices that union their inputs: several, or one and what their sources read.
    several_inputs = {
        v.id for v in plan.vertices if len(v.inputs) + bool(hadoop and _file_sources(v)) > 1
    }
    read_by: dict[str, int] = {}
    """Vertex -> the stage that reads its file sources."""

    def reads(vertex: VertexPlan) -> list[int]:
        inputs = [layout.moved_by.get(i.edge, layout.stage_of[i.producer]) for i in vertex.inputs]
        return [read_by[vertex.id], *inputs] if vertex.id in read_by else inputs

    def add(stage: _Stage) -> int:
        layout.stages.append(replace(stage, after=tuple(sorted(set(stage.after)))))
        return len(layout.stages)

    def file_sinks(vertex: VertexPlan) -> tuple[OperatorRef, ...]:
        found = [_operator(vertex, n.id) for n in vertex.nodes if n.kind in FILE_SINKS]
        return tuple(found) if hadoop else ()

    for vertex in plan.vertices:
        sources = tuple(_operator(vertex, node.id) for node in _file_sources(vertex))
        if hadoop and sources:
            read_by[vertex.id] = add(_Stage((), None, (), reads=sources))
        if not vertex.outputs and not file_sinks(vertex):
            continue
        stage = layout.stage_of[vertex.id] = add(_Stage((vertex.id,), None, tuple(reads(vertex))))
        if len(vertex.outputs) > 1 or (vertex.outputs and file_sinks(vertex)):
            for output in vertex.outputs:
                if output.consumer in several_inputs:
                    layout.moved_by[output.edge] = add(_Stage((), output.edge, (stage,)))
    last = [v for v in plan.vertices if v.id not in layout.stage_of]
    writers = [v for v in plan.vertices if file_sinks(v)]
    stage = add(
        _Stage(
            tuple(v.id for v in last),
            None,
            (*(s for v in last for s in reads(v)), *(layout.stage_of[v.id] for v in writers)),
            writes=tuple(sink for v in writers for sink in file_sinks(v)),
        )
    )
    for vertex in last:
        layout.stage_of[vertex.id] = stage
    return layout


def _file_sources(vertex: VertexPlan) -> list[NodePlan]:
    return [n for n in (*vertex.chained_sources, *vertex.nodes) if n.kind in FILE_SOURCES]


def _local_layout(plan: RunPlan) -> _Layout:
    """One stage per vertex, in plan order (`runtime.local`)."""
    layout = _Layout([], {}, {})
    for number, vertex in enumerate(plan.vertices, 1):
        after = tuple(sorted({layout.stage_of[i.producer] for i in vertex.inputs}))
        layout.stages.append(_Stage((vertex.id,), None, after))
        layout.stage_of[vertex.id] = number
    return layout


def _key(
    vertices: Iterable[str], edge: int | None, reads: Iterable[int], writes: Iterable[int]
) -> tuple[frozenset[str], int | None, frozenset[int], frozenset[int]]:
    return frozenset(vertices), edge, frozenset(reads), frozenset(writes)


def _operator(vertex: VertexPlan, node: int) -> OperatorRef:
    return OperatorRef(node, vertex.node(node).name)


def _status(run: StageRun) -> StageStatus:
    if run.failed:
        return StageStatus.FAILED
    return StageStatus.UNFINISHED if run.completed is None else StageStatus.FINISHED


__all__ = [
    "EXECUTORS",
    "ExchangeReport",
    "ExecutionReport",
    "Handoff",
    "OperatorRef",
    "StageReport",
    "StageStatus",
    "describe_execution",
]
