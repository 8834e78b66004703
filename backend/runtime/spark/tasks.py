"""What the Spark tasks of a run execute, in the Python workers.

Every partition of a vertex's RDD runs `VertexBody` (inside `hooks.Monitored`): it
opens the subtask's fused chain (`SubtaskRun`) and runs it over the records the
shuffle delivered. Records cross JobEdges in batches: a chain run with
`output="batched"` yields `(target subtask, (consumer input, [records]))`, which
`partitionBy(p, target_of)` places on exactly the target subtask, and the consumer
reads those `(consumer input, [records])` pairs with `batched_input=True`. One shuffle
record per batch instead of per record keeps Spark's per-record cost (pickling, the
shuffle's own bookkeeping) out of the run.

A vertex with several output JobEdges writes them all into one shuffle whose partitions
are the consumers' subtasks laid end to end (`offsets`), so the vertex runs once; each
consumer reads its own range (the executor), placed once more by `Rekey` when it is
unioned with other inputs.

The vertices without outputs end in the run's one action: each subtask yields a
`SubtaskSummary` with its sinks' outputs. A sink in a vertex that also has outputs
reports through an accumulator instead (its partitions belong to a shuffle).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from pyspark.accumulators import AccumulatorParam

from runtime.chains import SubtaskRun
from runtime.events import SinkOutput
from runtime.spark.hooks import Meter

if TYPE_CHECKING:
    from pyspark.accumulators import Accumulator

    from runtime.plan import VertexPlan

_VALUE = itemgetter(1)


def target_of(key: int) -> int:
    """The partition function of every exchange: the key is the target partition.

    One function object for all of them: Spark unions RDDs partition by partition only
    when their partitioners are equal, and PySpark's partitioner compares this object.
    """
    return key


@dataclass(frozen=True, slots=True)
class SubtaskSummary:
    """What one finished subtask tells the driver."""

    vertex: str
    subtask: int
    attempt: int
    records_in: int
    records_out: int
    sinks: tuple[SinkOutput, ...]


class SummaryList(AccumulatorParam[list[SubtaskSummary]]):
    """Accumulates the summaries of sinks in vertices whose output is a shuffle."""

    def zero(self, value: list[SubtaskSummary]) -> list[SubtaskSummary]:
        return []

    def addInPlace(
        self, value1: list[SubtaskSummary], value2: list[SubtaskSummary]
    ) -> list[SubtaskSummary]:
        value1.extend(value2)
        return value1


class VertexBody:
    """One subtask of one vertex: a `hooks.Body` over the vertex's shuffled input."""

    def __init__(
        self,
        vertex: VertexPlan,
        offsets: tuple[int, ...] = (),
        summaries: Accumulator[list[SubtaskSummary]] | None = None,
    ) -> None:
        self.vertex = vertex
        self.offsets = offsets
        """Per output position, its first partition in the shared shuffle (fan-out)."""
        self.summaries = summaries

    def __call__(
        self, subtask: int, attempt: int, records: Iterator[Any], meter: Meter
    ) -> Iterator[Any]:
        vertex = self.vertex
        run = SubtaskRun(vertex, subtask, attempt)
        meter.track(run)
        if vertex.inputs:
            inputs: Iterator[Any] = map(_VALUE, records)  # (consumer input, [records])
        else:
            # A source's partition holds only its index. Read it all the same: a Python
            # worker that leaves input unread is not reused, and the next task waits
            # for a new one (seconds).
            deque(records, maxlen=0)
            inputs = iter(())
        if not vertex.outputs:
            return _summarized(run, run.execute(inputs, batched_input=True, output="plain"))
        output = run.execute(inputs, batched_input=True, output="batched")
        if len(vertex.outputs) > 1:
            output = _laid_end_to_end(output, self.offsets)
        if self.summaries is not None:
            output = _then_accumulate(run, output, self.summaries)
        return output


def summary_of(run: SubtaskRun) -> SubtaskSummary:
    return SubtaskSummary(
        vertex=run.vertex_id,
        subtask=run.subtask,
        attempt=run.attempt,
        records_in=run.records_in,
        records_out=run.records_out,
        sinks=run.sink_outputs(),
    )


def _summarized(run: SubtaskRun, output: Iterator[Any]) -> Iterator[SubtaskSummary]:
    deque(output, maxlen=0)  # a vertex without outputs sends nothing on
    yield summary_of(run)


def _laid_end_to_end(output: Iterator[Any], offsets: tuple[int, ...]) -> Iterator[Any]:
    for position, (target, value) in output:
        yield offsets[position] + target, value


def _then_accumulate(
    run: SubtaskRun, output: Iterator[Any], summaries: Accumulator[list[SubtaskSummary]]
) -> Iterator[Any]:
    yield from output
    summaries.add([summary_of(run)])


class Rekey:
    """Shuffle pairs again, keyed by the partition they are in (a consumer's subtask)."""

    def __call__(self, index: int, records: Iterable[Any]) -> Iterator[Any]:
        return zip(repeat(index), map(_VALUE, records))
