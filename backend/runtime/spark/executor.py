"""Runs a run plan on Spark: one RDD per JobVertex, one Spark task per subtask.

`run_on_spark(plan, ...)` builds, in the plan's topological order,

- per vertex an *anchor* RDD with exactly the vertex's parallelism, partition i being
  subtask i: `parallelize(range(p), p)` for a source; the shuffled input for a vertex
  with one input JobEdge; for several, their union, which Spark builds partition by
  partition because every exchange shares one partitioner (`tasks.target_of`);
- the vertex's work over its anchor: `mapPartitionsWithIndex(Monitored(VertexBody))`;
- per vertex with outputs one `partitionBy`: the chain routes every record to its
  target subtask (Flink's partitioners, `runtime.routing`), so the shuffle only moves
  it there. A vertex with several output JobEdges shuffles once into the consumers'
  subtasks laid end to end, and each consumer reads its own range of partitions in
  place (`PartitionPruningRDD`): the vertex runs once, never recomputed per consumer.
  A consumer that unions such a range with other inputs places it once more.

Every JobEdge is a shuffle boundary, so a Spark stage runs exactly one vertex (the last
stage runs the union of the vertices without outputs). The listener learns which RDD
ids are anchors, and so maps (stage, partition) to (vertex, subtask); the result lists
the stages as Spark ran them, which `runtime.stages` lays out from the plan alone.

The vertices without outputs end in one `collect()`: each of their subtasks returns a
`SubtaskSummary` with its sinks' outputs. The job carries a tag of its own: the listener
finds the run's events by it, and `cancelJobsWithTag` cancels exactly this run. The
session schedules the stages of concurrent runs fairly (`session`). When the job has
ended, the driver commits the file sinks' parts, or removes them if it did not finish
(`operators.sinks.commit_file_sinks`).

On a data location of another scheme than `file:` (`runtime.spark.hadoop`), what a
vertex's file sources read comes as one more input of its anchor, from a stage that
reads them with Hadoop; and each file sink sends its parts on as outputs of their own,
which the last stage writes instead of collecting (the summaries then all come by
accumulator).
"""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from runtime.catalog import CATALOG
from runtime.events import ExecutionState, RunOutcome, RunResult, SubtaskEvent, VertexEngine
from runtime.operators.sinks import (
    FILE_SINKS,
    commit_file_sinks,
    file_sink_folders,
    pending_parts,
)
from runtime.operators.sources import FILE_SOURCES
from runtime.spark.errors import python_error_text
from runtime.spark.hadoop import HadoopStorage, source_reads, staged_part, write_parts
from runtime.spark.hooks import Monitored, Reporting, event_publisher
from runtime.spark.listener import RunTracker, Slot
from runtime.spark.session import Session
from runtime.spark.sqlpath import (
    Choice,
    FedBody,
    Produced,
    ProducedCounts,
    choose,
    sql_session,
)
from runtime.spark.tasks import (
    Rekey,
    SubtaskSummary,
    SummaryList,
    VertexBody,
    as_text,
    target_of,
)
from runtime.storage import LocalStorage, Storage, data_location

if TYPE_CHECKING:
    from pyspark.accumulators import Accumulator
    from pyspark.core.context import SparkContext
    from pyspark.core.rdd import RDD
    from pyspark.sql import SparkSession

    from runtime.plan import NodePlan, RunPlan, VertexPlan

logger = logging.getLogger(__name__)

_POLL = 0.05
"""Seconds between two looks at the cancel signal while the job runs."""
_NO_JOB_WAIT = 1.0
"""How long a failed action's job may take to show up on the listener."""
_RECANCEL = 0.25
"""Cancelling repeats this often until the job is gone (it may not have started yet)."""


class CancelSignal(Protocol):
    """What `cancel` must offer; `threading.Event` does."""

    def is_set(self) -> bool: ...


def run_on_spark(
    plan: RunPlan,
    *,
    run_key: str,
    redis_url: str | None,
    executors_redis_url: str | None = None,
    session: Session,
    cancel: CancelSignal | None = None,
    progress_period: float = 0.25,
    timeout: float | None = None,
    job_end_timeout: float = 10.0,
    sql: bool = True,
) -> RunResult:
    """Run `plan` as one Spark job on `session`; events go to the run's Redis channel, at
    `redis_url` from the driver and `executors_redis_url` (default the same) from the
    executors, which may reach that Redis by another address.

    Returns when the job has ended and the listener has reported its end (or after
    `job_end_timeout` more seconds). Setting `cancel` stops the job: its tasks are
    killed and the subtasks end CANCELED. A run still going after `timeout` seconds is
    stopped the same way and FAILED. `sql`: run the vertices that can as Spark SQL
    (`sqlpath`); off, every vertex runs its Python chain.
    """
    started = time.perf_counter()
    reporting = Reporting(
        run_key=run_key,
        redis_url=redis_url if executors_redis_url is None else executors_redis_url,
        progress_period=progress_period,
    )
    publish = event_publisher(redis_url, reporting.channel)
    slots = [(v.id, i) for v in plan.vertices for i in range(v.parallelism)]
    _publish_all(publish, slots, ExecutionState.CREATED)
    context = session.context
    # The master's address is the operator's, never the run's readers' (runs.models.Run
    # keeps it on the server): details name the application only.
    details: dict[str, Any] = {
        "executor": "spark",
        "applicationId": session.application_id,
        "code": session.code,
        "seed": plan.seed,
    }
    if cancel is not None and cancel.is_set():
        _publish_all(publish, slots, ExecutionState.CANCELED)
        details["seconds"] = round(time.perf_counter() - started, 6)
        return RunResult(
            RunOutcome.CANCELED, error="the run was canceled", details=details, stages=()
        )

    tag = _job_tag(run_key)
    details["jobTag"] = tag
    tracker = RunTracker(tag, publish, slots)
    session.listener.register(tracker)
    try:
        job = _Job(plan, context, reporting, tracker, spark=session.spark if sql else None)
        try:
            job.build()
        except Exception as build_error:
            logger.exception("could not build the Spark job of run %s", run_key)
            tracker.finish(False, None, source="driver")
            details["seconds"] = round(time.perf_counter() - started, 6)
            return RunResult(
                RunOutcome.FAILED, error=_short(build_error), details=details, stages=()
            )
        outcome, error = job.run(tag, cancel, run_key, timeout)
        # A job that ran ends on the listener soon after the action returns; a failure
        # before Spark took the job (e.g. a plan that cannot be pickled) has no job.
        wait = job_end_timeout if tracker.job_started or error is None else _NO_JOB_WAIT
        if not tracker.wait_for_job_end(wait):
            # No job end seen (the job never started, or the listener is late): end the
            # subtasks here so that none is left running.
            tracker.finish(outcome is RunOutcome.FINISHED, error, source="driver")
    finally:
        session.listener.unregister(tracker)
    if outcome is RunOutcome.FAILED and not job.timed_out:
        error = _failure_text(plan, tracker, error)
    outcome, error = job.commit(outcome, error)
    job.report_sql_vertices(outcome, publish)
    details["engines"] = job.engines()
    details["seconds"] = round(time.perf_counter() - started, 6)
    details["subtasks"] = {
        f"{s.vertex}/{s.subtask}": [s.records_in, s.records_out] for s in job.summaries
    }
    sinks = sorted(
        (sink for summary in job.summaries for sink in summary.sinks),
        key=lambda s: (s.node, s.subtask),
    )
    reasons = {} if job.choice is None else job.choice.reasons
    engines = tuple(
        VertexEngine(vertex, engine, reasons.get(vertex) if engine == "python" else None)
        for vertex, engine in details["engines"].items()
    )
    return RunResult(
        outcome,
        sinks=tuple(sinks),
        error=error,
        details=details,
        stages=tracker.stages(),
        engines=engines,
    )


@dataclass(slots=True)
class _Job:
    """The RDDs of one run and the action that runs them."""

    plan: RunPlan
    context: SparkContext
    reporting: Reporting
    tracker: RunTracker
    final: RDD[Any] | None = None
    accumulator: Accumulator[list[SubtaskSummary]] | None = None
    summaries: list[SubtaskSummary] = field(default_factory=list)
    timed_out: bool = False
    storage: Storage | None = None
    """The data location's files, from the driver (set by `build`)."""
    staging: str | None = None
    """Where Hadoop's writer puts the file sinks' parts, on another scheme than `file:`."""
    written: list[tuple[int, int, int]] = field(default_factory=list)
    """(file sink, subtask, partition of the final RDD that writes its part)."""
    spark: SparkSession | None = None
    """The session whose SQL runs the vertices that can (`sqlpath`); None: none do."""
    choice: Choice | None = None
    produced: Accumulator[Produced] | None = None
    """Records out per subtask of the SQL producers (`sqlpath.FedBody`)."""

    def build(self) -> None:
        from pyspark.util import _parse_memory

        context = self.context
        location = data_location(self.plan.data_dir)
        hadoop = None if location.is_local else HadoopStorage(context, location)
        self.storage = hadoop or LocalStorage(location)
        # What a subtask sorts in memory of what it read: as much as Spark's own sorts.
        sort_memory = _parse_memory(context.getConf().get("spark.python.worker.memory", "512m"))
        if hadoop is not None and any(_file_sinks(v) for v in self.plan.vertices):
            self.staging = f".staging-{self.plan.token}"
        # The run's SQL session is made only when a vertex might run as SQL.
        spark = self.spark
        self.choice = choose(
            self.plan, None if spark is None else partial(sql_session, spark), self.storage
        )
        producers = self.choice.producers
        if self.choice.feeds:
            self.produced = context.accumulator({}, ProducedCounts())
        # Vertices whose anchor is a union: of several inputs, or of an input and reads.
        unions = {
            v.id
            for v in self.plan.vertices
            if len(v.inputs) + bool(hadoop is not None and _file_sources(v)) > 1
        }
        # The RDD each JobEdge's consumer reads: (consumer vertex, input position) -> RDD.
        edges: dict[tuple[str, int], RDD[Any]] = {}
        outputs: list[tuple[VertexPlan, RDD[Any]]] = []
        # (file sink, parallelism, the pieces of its parts: a partition per subtask)
        parts: list[tuple[int, int, RDD[Any]]] = []
        for vertex in self.plan.vertices:
            p = vertex.parallelism
            if vertex.id in producers:
                # Runs inside its consumer's feed: its tasks read its files in the JVM.
                slots = [(vertex.id, i) for i in range(p)]
                self.tracker.add_layout(producers[vertex.id].reader, slots, in_jvm=True)
                continue
            feed = self.choice.feeds.get(vertex.id)
            inputs = [] if feed else [edges[vertex.id, i.position] for i in vertex.inputs]
            sources = () if hadoop is None else _file_sources(vertex)
            if hadoop is not None and sources:
                # Hadoop reads them on the executors; they reach each subtask as an input.
                reads = source_reads(context, hadoop, sources, p)
                self.tracker.add_read(reads.id(), [node.id for node in sources])
                inputs.insert(0, reads.partitionBy(p, target_of))
            anchor = feed.frame.rdd if feed else self._anchor(vertex, inputs)
            if anchor.getNumPartitions() != p:
                raise AssertionError(f"{vertex.name}: its feed has not {p} partitions")
            anchor.setName(f"{vertex.name} [{vertex.id}]")
            self.tracker.add_layout(anchor.id(), [(vertex.id, i) for i in range(p)])
            # On another scheme, every file sink's parts move on to Hadoop's writer as
            # outputs of their own, a partition per subtask, after the vertex's outputs.
            sinks = () if hadoop is None else _file_sinks(vertex)
            counts = [o.consumer_parallelism for o in vertex.outputs] + [p] * len(sinks)
            offsets = _offsets(counts)
            writes = tuple(zip(sinks, offsets[len(vertex.outputs) :], strict=True))
            summaries = None
            saving = self.staging is not None and not vertex.outputs  # no `collect`
            if (vertex.outputs and vertex.sinks) or sinks or saving:
                summaries = self._summary_accumulator()
            read = tuple(node.id for node in sources)
            body: VertexBody
            if feed:
                assert self.produced is not None
                body = FedBody(
                    feed.body,
                    feed.fold,
                    self.produced,
                    offsets[: len(vertex.outputs)],
                    summaries,
                    writes,
                )
            else:
                body = VertexBody(
                    vertex, offsets[: len(vertex.outputs)], summaries, read, sort_memory, writes
                )
            work = anchor.mapPartitionsWithIndex(Monitored(self.reporting, vertex.id, body))
            if not counts:
                outputs.append((vertex, work))
            elif len(counts) == 1 and not sinks:
                output = vertex.outputs[0]
                edges[output.consumer, output.consumer_input] = work.partitionBy(
                    output.consumer_parallelism, target_of
                )
            else:
                shared = work.partitionBy(sum(counts), target_of)
                for output, offset in zip(vertex.outputs, offsets, strict=False):
                    count = output.consumer_parallelism
                    own = _partition_range(context, shared, offset, count)
                    if output.consumer in unions:
                        # A union needs the shared partitioner: place the range once more.
                        self.tracker.add_move(own.id(), output.edge)
                        own = own.mapPartitionsWithIndex(Rekey()).partitionBy(count, target_of)
                    edges[output.consumer, output.consumer_input] = own
                for node, offset in writes:
                    pieces = _partition_range(context, shared, offset, p).map(as_text)
                    self.tracker.add_write(pieces.id(), node)
                    parts.append((node, p, pieces))
        finals = [rdd for _, rdd in outputs] + [rdd for _, _, rdd in parts]
        if not finals:
            raise ValueError("the plan has no vertex without outputs: nothing would run")
        layout: list[Slot | None] = [(v.id, i) for v, _ in outputs for i in range(v.parallelism)]
        for node, count, _ in parts:
            self.written.extend((node, subtask, len(layout) + subtask) for subtask in range(count))
            layout.extend([None] * count)
        if len(finals) == 1:
            self.final = finals[0]
        else:
            final = context.union(finals)
            if final.getNumPartitions() != len(layout):
                raise AssertionError("the union of the output vertices lost partitions")
            self.tracker.add_layout(final.id(), layout)
            self.final = final

    def engines(self) -> dict[str, str]:
        """Per vertex, what ran it: `sql` or `python`."""
        if self.choice is None:
            return {v.id: "python" for v in self.plan.vertices}
        return self.choice.engines(self.plan)

    def report_sql_vertices(
        self, outcome: RunOutcome, publish: Callable[[SubtaskEvent], None]
    ) -> None:
        """The SQL producers' exact counts, known once their consumers ran, as their
        subtasks' FINISHED (a finished run's)."""
        if self.choice is None or not self.choice.feeds or outcome is not RunOutcome.FINISHED:
            return
        assert self.produced is not None
        produced = self.produced.value
        now = time.time()
        for producer in self.choice.producers.values():
            vertex = producer.producer
            for subtask in range(vertex.parallelism):
                attempt = self.tracker.attempt_of((vertex.id, subtask))
                count = produced.get((vertex.id, subtask), 0)
                publish(
                    SubtaskEvent(
                        vertex.id,
                        subtask,
                        attempt,
                        ExecutionState.FINISHED,
                        now,
                        records_out=count,
                        source="driver",
                    )
                )

    def commit(self, outcome: RunOutcome, error: str | None) -> tuple[RunOutcome, str | None]:
        """Make the file sinks' parts visible if the run finished; else leave none."""
        finished = outcome is RunOutcome.FINISHED
        committed = [
            (sink, summary.attempt) for summary in self.summaries for sink in summary.sinks
        ]
        try:
            storage = self.storage
            assert storage is not None  # built
            folders = file_sink_folders(self.plan, storage)
            if self.staging is None:
                staged = pending_parts(self.plan, folders, committed)
            else:
                wrote = {(output.node, output.subtask) for output, _ in committed if output.files}
                staged = {
                    (node, subtask): staged_part(self.staging, partition)
                    for node, subtask, partition in self.written
                    if (node, subtask) in wrote
                }
            commit_file_sinks(
                self.plan, storage, folders, staged, succeeded=finished, staging=self.staging
            )
        except Exception as failure:
            logger.exception("could not commit the file sinks of %s", self.plan.name)
            if finished:
                return RunOutcome.FAILED, f"the file sinks' parts could not be committed: {failure}"
        return outcome, error

    def _anchor(self, vertex: VertexPlan, inputs: Sequence[RDD[Any]]) -> RDD[Any]:
        p = vertex.parallelism
        if not inputs:
            return self.context.parallelize(list(range(p)), p)
        anchor = inputs[0] if len(inputs) == 1 else self.context.union(list(inputs))
        if anchor.getNumPartitions() != p:
            raise AssertionError(
                f"{vertex.name}: its input has {anchor.getNumPartitions()} partitions, not {p}"
            )
        return anchor

    def _summary_accumulator(self) -> Accumulator[list[SubtaskSummary]]:
        if self.accumulator is None:
            self.accumulator = self.context.accumulator([], SummaryList())
        return self.accumulator

    def run(
        self, tag: str, cancel: CancelSignal | None, run_key: str, timeout: float | None
    ) -> tuple[RunOutcome, str | None]:
        final = self.final
        assert final is not None
        context = self.context
        result: list[Any] = []
        failure: list[BaseException] = []
        description = f"{self.plan.name} [{run_key}]"

        def act() -> None:
            try:
                context.setJobDescription(description)
                context.setInterruptOnCancel(True)
                context.addJobTag(tag)
                try:
                    if self.staging is None:
                        result.extend(final.collect())
                    else:
                        assert self.storage is not None  # built
                        write_parts(final, self.storage.location, self.staging)
                finally:
                    context.removeJobTag(tag)
            except BaseException as error:
                failure.append(error)

        thread = threading.Thread(target=act, name=f"spark-run-{run_key}", daemon=True)
        thread.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        canceled_at: float | None = None
        while thread.is_alive():
            thread.join(_POLL)
            if not thread.is_alive():
                break
            now = time.monotonic()
            if deadline is not None and now >= deadline and canceled_at is None:
                self.timed_out = True
            elif cancel is None or not cancel.is_set():
                continue
            if canceled_at is None:
                self.tracker.cancelling()
            if canceled_at is None or now - canceled_at >= _RECANCEL:
                canceled_at = now
                context.cancelJobsWithTag(tag)
        if self.accumulator is not None:
            self.summaries.extend(self.accumulator.value)
        self.summaries.extend(result)
        if self.timed_out:
            return RunOutcome.FAILED, f"the run took longer than {timeout:g} s and was stopped"
        if canceled_at is not None:
            return RunOutcome.CANCELED, "the run was canceled"
        if failure:
            return RunOutcome.FAILED, python_error_text(str(failure[0]))
        return RunOutcome.FINISHED, None


def _file_sinks(vertex: VertexPlan) -> tuple[int, ...]:
    return tuple(node.id for node in vertex.nodes if node.kind in FILE_SINKS)


def _file_sources(vertex: VertexPlan) -> tuple[NodePlan, ...]:
    """The vertex's file sources, in the order its chain reads them (`runtime.chains`)."""
    head = vertex.node(vertex.head)
    sources = [head] if CATALOG[head.kind].inputs == 0 else []
    return tuple(n for n in (*sources, *vertex.chained_sources) if n.kind in FILE_SOURCES)


def _partition_range(context: SparkContext, rdd: RDD[Any], start: int, count: int) -> RDD[Any]:
    """Partitions start..start+count-1 of `rdd`, as partitions 0..count-1, read in place.

    Spark's `PartitionPruningRDD` (a narrow dependency on the chosen partitions), built
    through py4j; its filter is a Scala `Set` of the indices, itself an `Int => Boolean`.
    """
    from pyspark.core.rdd import RDD

    jvm: Any = context._jvm
    wanted = jvm.java.util.HashSet()
    for index in range(start, start + count):
        wanted.add(index)
    keep = jvm.scala.jdk.javaapi.CollectionConverters.asScala(wanted).toSet()
    pruned = jvm.org.apache.spark.rdd.PartitionPruningRDD.create(rdd._jrdd.rdd(), keep)
    result: RDD[Any] = RDD(pruned.toJavaRDD(), context, rdd._jrdd_deserializer)
    if result.getNumPartitions() != count:
        raise AssertionError(f"selected {result.getNumPartitions()} partitions, not {count}")
    return result


def _offsets(counts: Sequence[int]) -> tuple[int, ...]:
    offsets, total = [], 0
    for count in counts:
        offsets.append(total)
        total += count
    return tuple(offsets)


def _publish_all(
    publish: Callable[[SubtaskEvent], None], slots: Sequence[Slot], state: ExecutionState
) -> None:
    now = time.time()
    for vertex, subtask in slots:
        publish(SubtaskEvent(vertex, subtask, 0, state, now, source="driver"))


def _job_tag(run_key: str) -> str:
    # Tags are joined with commas in the job's properties and must not be empty.
    safe = re.sub(r"[^A-Za-z0-9_.:-]", "_", run_key)[:80]
    return f"streamgraph-run-{safe}-{uuid.uuid4().hex[:8]}"


def _failure_text(plan: RunPlan, tracker: RunTracker, fallback: str | None) -> str:
    """`Map (2/4) failed: ValueError: boom`, from the listener's last failed attempt."""
    failed = tracker.last_failure()
    if failed is None:
        return fallback or "the Spark job failed"
    (vertex_id, subtask), error = failed
    try:
        name = plan.vertex(vertex_id).subtask_name(subtask)
    except StopIteration:
        name = f"{vertex_id} ({subtask + 1})"
    return f"{name} failed: {error or fallback or 'unknown error'}"


def _short(error: BaseException) -> str:
    return python_error_text(f"{type(error).__name__}: {error}")
