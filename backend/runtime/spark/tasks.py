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

On a data location of another scheme than `file:`, what file sources read comes to
their subtasks through a shuffle too (`hadoop.source_reads`, read by `ReadLines` and
`ReadWhole`); the subtask puts it back in file order (`_InOrder`) and hands each source
its share (`SubtaskContext.source_input`).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyspark.accumulators import AccumulatorParam

from runtime.chains import SubtaskRun
from runtime.events import SinkOutput
from runtime.operators.base import OperatorError
from runtime.operators.sources import split_csv, split_lines, split_parquet, split_text
from runtime.spark.hooks import Meter

if TYPE_CHECKING:
    from pyspark.accumulators import Accumulator

    from runtime.plan import VertexPlan

_VALUE = itemgetter(1)
PIECE = 1 << 20
"""Bytes of a spooled part moved at once."""


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
        sources: tuple[int, ...] = (),
        sort_memory: int = 512,
        writes: tuple[tuple[int, int], ...] = (),
    ) -> None:
        self.vertex = vertex
        self.offsets = offsets
        """Per output position, its first partition in the shared shuffle (fan-out)."""
        self.summaries = summaries
        self.sources = sources
        """The file sources whose reads come with the input, in the order the chain
        reads them (a location of another scheme than `file:`)."""
        self.sort_memory = sort_memory
        """Megabytes of reads a subtask sorts in memory before it spills to disk."""
        self.writes = writes
        """(file sink, its first partition in the shared shuffle): the sinks whose parts
        go on to Hadoop's writer (a location of another scheme than `file:`)."""

    def __call__(
        self, subtask: int, attempt: int, records: Iterator[Any], meter: Meter
    ) -> Iterator[Any]:
        vertex = self.vertex
        run, inputs = self.open(subtask, attempt, records, meter)
        if not vertex.outputs and not self.writes and self.summaries is None:
            return _summarized(run, self.execute(run, inputs, "plain"))
        if vertex.outputs:
            output = self.execute(run, inputs, "batched")
            if len(vertex.outputs) > 1:
                output = _laid_end_to_end(output, self.offsets)
        else:
            output = _drained(self.execute(run, inputs, "plain"))
        if self.writes:
            output = itertools.chain(output, _spooled(run, self.writes))
        if self.summaries is not None:
            output = _then_accumulate(run, output, self.summaries)
        return output

    def open(
        self, subtask: int, attempt: int, records: Iterator[Any], meter: Meter
    ) -> tuple[SubtaskRun, Iterator[Any]]:
        """The subtask's chain, tracked by `meter`, and its input as (consumer input,
        [records]) batches."""
        vertex = self.vertex
        if self.sources:
            ordered = _InOrder(_sorted_reads(records, len(self.sources), self.sort_memory))
            reads = {node: ordered.stream(rank) for rank, node in enumerate(self.sources)}
            run = SubtaskRun(vertex, subtask, attempt, source_inputs=reads)
            meter.track(run)
            return run, ordered.stream(len(self.sources))
        run = SubtaskRun(vertex, subtask, attempt)
        meter.track(run)
        if vertex.inputs:
            return run, map(_VALUE, records)  # (consumer input, [records])
        # A source's partition holds only its index. Read it all the same: a Python
        # worker that leaves input unread is not reused, and the next task waits for a
        # new one (seconds).
        deque(records, maxlen=0)
        return run, iter(())

    def execute(self, run: SubtaskRun, inputs: Iterator[Any], output: str) -> Iterator[Any]:
        return run.execute(inputs, batched_input=True, output=output)


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


def _drained(output: Iterator[Any]) -> Iterator[Any]:
    deque(output, maxlen=0)  # a vertex without outputs sends nothing on
    yield from ()


def _spooled(run: SubtaskRun, writes: tuple[tuple[int, int], ...]) -> Iterator[Any]:
    """The parts the subtask's file sinks spooled, to their sinks' shares of the shuffle:
    (partition, text) pieces, which Hadoop's text writer writes each with a line break."""
    parts = [(offset, run.spooled(node)) for node, offset in writes]
    try:
        for offset, part in parts:
            if part is not None:
                for piece in _pieces(part):
                    yield offset + run.subtask, piece
    finally:
        for _, part in parts:
            if part is not None:
                part.unlink(missing_ok=True)


def _pieces(part: Path) -> Iterator[str]:
    """A part's text in pieces of about `PIECE` bytes, each cut at a line break (which it
    leaves out): every record a file sink writes ends with one."""
    with part.open("rb") as stream:
        rest = b""
        while block := stream.read(PIECE):
            data = rest + block
            cut = data.rfind(b"\n")
            if cut < 0:
                rest = data
                continue
            yield data[:cut].decode("utf-8")
            rest = data[cut + 1 :]
        if rest:  # not written by a file sink: it would gain a line break
            yield rest.decode("utf-8")


def as_text(pair: tuple[int, str]) -> str:
    """A piece of a part as Hadoop's text writer takes it."""
    return pair[1]


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


# --- reads of a location of another scheme than `file:` ------------------------------------


@dataclass(frozen=True, slots=True)
class ReadLines:
    """The lines Hadoop's text reader read of one file (in one of its splits), to the
    subtasks whose byte ranges hold them."""

    node: int
    name: str
    rank: int
    """The source's place among its vertex's file sources."""
    file: int
    size: int
    parallelism: int
    bom: bool
    """The file starts with a UTF-8 byte order mark, which Hadoop's reader drops."""

    def __call__(self, read: Iterable[tuple[int, bytes | str]]) -> Iterator[Any]:
        lines = _decoded(read)
        if self.bom:
            lines = _with_bom(lines)
        try:
            for subtask, position, batch in split_lines(lines, self.size, self.parallelism):
                yield subtask, ((self.rank, self.file, position), batch)
        except Exception as error:
            raise _read_error(self.node, self.name, error) from error


@dataclass(frozen=True, slots=True)
class ReadWhole:
    """Whole files (`binaryFiles`), split as a `file:` location's source splits them."""

    node: int
    name: str
    kind: str
    """`text`, `csv` or `parquet`."""
    rank: int
    file: int
    first_group: int
    """Parquet: the row groups of the source's files before this one."""
    parallelism: int

    def __call__(self, files: Iterable[tuple[str, bytes]]) -> Iterator[Any]:
        try:
            for _, data in files:
                for subtask, position, batch in self._split(bytes(data)):
                    yield subtask, ((self.rank, self.file, position), batch)
        except Exception as error:
            raise _read_error(self.node, self.name, error) from error

    def _split(self, data: bytes) -> Iterator[tuple[int, int, list[Any]]]:
        if self.kind == "parquet":
            return split_parquet(data, self.first_group, self.parallelism)
        if self.kind == "csv":
            return split_csv(data, self.file, self.parallelism)
        return split_text(data, self.parallelism)


def _decoded(lines: Iterable[tuple[int, bytes | str]]) -> Iterator[tuple[int, str]]:
    """Lines as text: bytes (`javafns` `TextBytes`) decoded as `operators.sources` decodes
    a file's, invalid UTF-8 replaced byte by byte."""
    for offset, line in lines:
        yield offset, line if isinstance(line, str) else bytes(line).decode("utf-8", "replace")


def _with_bom(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    for offset, line in lines:
        yield offset, "\ufeff" + line if offset == 0 else line


def _read_error(node: int, name: str, error: Exception) -> OperatorError:
    if isinstance(error, OperatorError):
        return error
    return OperatorError(node, name, f"{type(error).__name__}: {error}")


def _sorted_reads(records: Iterator[Any], sources: int, memory: int) -> Iterator[Any]:
    """A subtask's shuffled input as (key, payload), sorted: each file source's batches
    (key: source, file, position; payload: file, units), then the network inputs'
    (key: after the sources, as they came; payload: consumer input, records)."""
    from pyspark.shuffle import ExternalSorter

    def keyed() -> Iterator[tuple[tuple[int, int, int], Any]]:
        for arrival, (_, value) in enumerate(records):
            head, units = value
            if isinstance(head, tuple):
                yield head, (head[1], units)
            else:
                yield (sources, arrival, 0), value

    sorter: ExternalSorter[tuple[tuple[int, int, int], Any]] = ExternalSorter(memory)
    yield from sorter.sorted(keyed(), key=itemgetter(0))


class _InOrder:
    """Sorted (key, payload) items read as one stream per `key[0]`, in any order of
    streams: a stream read in its turn holds nothing back, one read early keeps the
    items it passes over for the others."""

    def __init__(self, items: Iterator[tuple[tuple[int, int, int], Any]]) -> None:
        self._items = items
        self._held: dict[int, list[Any]] = {}
        self._reached = -1
        """The highest `key[0]` taken from the items."""

    def stream(self, group: int) -> Iterator[Any]:
        yield from self._held.pop(group, ())
        if self._reached > group:
            return  # all of it was taken already, and held above
        for key, payload in self._items:
            self._reached = key[0]
            if key[0] == group:
                yield payload
                continue
            self._held.setdefault(key[0], []).append(payload)
            if key[0] > group:
                return
