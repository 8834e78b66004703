"""Bounded sources: what each subtask of a source reads.

Every source splits its records over its subtasks the way Flink splits them, and
gives split i to subtask i (Flink's enumerator hands splits to readers in the order
they ask, which is not fixed; this is one of its possible assignments):

- sequence and generator: `NumberSequenceIterator.split`, contiguous ranges, the
  first `(n mod p)` one longer; a generator is Flink's DataGeneratorSource, a
  sequence over the indices 0..count-1 mapped through `fn`;
- collection: the same split over the list's positions (Flink's `fromCollection` is
  non-parallel; with parallelism 1 this is exactly it);
- text and JSON lines files: each file in byte ranges, one per subtask; a line
  belongs to the range its first byte is in (Flink reads a text file as one split;
  ranges let a big file use every subtask, and each line is still read once);
- CSV files: whole files, file k to subtask k mod p (quoted fields may hold line
  breaks, so a CSV file cannot be cut at arbitrary bytes);
- Parquet files: row groups, group k (over all files) to subtask k mod p.

Paths are relative to the run's data location and must stay inside it (`runtime.paths`).
On a `file:` location every subtask reads its share itself, with local calls. On another
scheme Spark reads the files through Hadoop (`runtime.spark.hadoop`) and hands each
subtask its share, split by the same rules with the functions below (`split_*`), as
(file index, units) batches in file order (`SubtaskContext.source_input`): the lines of
text and JSON lines files, the lines of whole CSV files as `open(newline="")` gives them,
the rows of Parquet row groups. The source parses them as it parses what it reads itself.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from runtime.operators.base import Gen, OperatorCode, SubtaskContext
from runtime.paths import list_files

if TYPE_CHECKING:
    from runtime.plan import NodePlan

BLOCK = 1 << 22
"""Bytes read at once from a text file."""
UNITS = 1024
"""Lines or rows per batch of what Spark read for a subtask."""


def number_splits(first: int, last: int, parallelism: int) -> list[range]:
    """`NumberSequenceIterator(first, last).split(parallelism)` as ranges."""
    if last < first:
        return [range(0) for _ in range(parallelism)]
    total = last - first + 1
    if parallelism == 1:
        return [range(first, last + 1)]
    per_split, longer = divmod(total, parallelism)
    result: list[range] = []
    current = first
    for index in range(parallelism):
        size = per_split + (1 if index < longer else 0)
        result.append(range(current, current + size))
        current += size
    return result


def byte_range(size: int, subtask: int, parallelism: int) -> range:
    """The bytes of a text file whose lines (by their first byte) a subtask reads."""
    return range(size * subtask // parallelism, size * (subtask + 1) // parallelism)


def subtask_of_byte(offset: int, size: int, parallelism: int) -> int:
    """The subtask whose `byte_range` holds `offset`."""
    return ((offset + 1) * parallelism - 1) // size


def text_lines(files: list[Path], subtask: int, parallelism: int) -> Iterator[str]:
    """The lines (without line ends) whose first byte is in this subtask's byte ranges."""
    for file in files:
        part = byte_range(file.stat().st_size, subtask, parallelism)
        if part:
            with file.open("rb") as stream:
                yield from lines_in_range(stream, part.start, part.stop)


def lines_in_range(stream: IO[bytes], start: int, end: int) -> Iterator[str]:
    """The lines of a seekable binary stream whose first byte is in [start, end)."""
    position = 0
    if start > 0:
        # The line under `start` belongs to the range where it starts: skip to the next.
        stream.seek(start - 1)
        position = start - 1 + len(stream.readline())
    rest = b""  # bytes from `position` not yet given out
    while True:
        block = stream.read(BLOCK)
        data = rest + block
        limit = end - position  # lines starting before this offset in `data` are ours
        if limit <= 0:
            return
        if limit <= len(data):
            stop = data.find(b"\n", limit - 1)
            if stop >= 0:
                yield from _split(data[:stop])
                return
        if not block:  # end of file: the last line has no line break
            if data:
                yield from _split(data)
            return
        cut = data.rfind(b"\n")
        if cut < 0:
            rest = data
            continue
        yield from _split(data[:cut])
        rest = data[cut + 1 :]
        position += cut + 1


def _split(chunk: bytes) -> list[str]:
    """Complete lines (without their line breaks) of a chunk that ends at a line break."""
    text = chunk.decode("utf-8", "replace")
    lines = text.split("\n")
    if "\r" in text:
        return [line[:-1] if line.endswith("\r") else line for line in lines]
    return lines


def csv_records(
    files: list[Path], subtask: int, parallelism: int, delimiter: str, header: bool
) -> Iterator[Any]:
    for index, file in enumerate(files):
        if index % parallelism == subtask:
            with file.open(newline="", encoding="utf-8", errors="replace") as stream:
                yield from csv_rows(stream, delimiter, header)


def csv_rows(lines: Iterable[str], delimiter: str, header: bool) -> Iterator[Any]:
    """The records of one CSV file's lines: dicts by its first row's names, else tuples."""
    reader = csv.reader(lines, delimiter=delimiter)
    if header:
        names = next(reader, None)
        if names is None:
            return
        for row in reader:
            yield dict(zip(names, row, strict=False))
    else:
        for row in reader:
            yield tuple(row)


def json_records(files: list[Path], subtask: int, parallelism: int) -> Iterator[Any]:
    return json_values(text_lines(files, subtask, parallelism))


def json_values(lines: Iterable[str]) -> Iterator[Any]:
    """The values of JSON lines (blank lines skipped)."""
    for line in lines:
        if line.strip():
            yield json.loads(line)


def parquet_records(files: list[Path], subtask: int, parallelism: int) -> Iterator[Any]:
    group = 0
    for file in files:
        reader = _parquet(file)
        for index in range(reader.num_row_groups):
            if group % parallelism == subtask:
                yield from reader.read_row_group(index).to_pylist()
            group += 1


def _parquet(source: Any) -> Any:
    import pyarrow.parquet as parquet  # type: ignore[import-untyped]  # only for Parquet

    return parquet.ParquetFile(source)


def parquet_row_groups(source: Any) -> int:
    """How many row groups a Parquet file (a path or a seekable binary file) holds."""
    return int(_parquet(source).num_row_groups)


# --- the same splits over what Spark read ----------------------------------------------------
#
# Each yields (subtask, position, units) batches of one file: `position` orders a
# subtask's batches of the file as the file holds them.


def split_lines(
    lines: Iterable[tuple[int, str]], size: int, parallelism: int
) -> Iterator[tuple[int, int, list[str]]]:
    """(offset of the line's first byte, line without its `\n`) of a file of `size` bytes,
    read in any number of pieces (Hadoop's splits), to the subtasks of `byte_range`;
    positions are the batch's first offset."""
    batch: list[str] = []
    subtask = first = -1
    for offset, line in lines:
        owner = subtask_of_byte(offset, size, parallelism)
        if batch and (owner != subtask or len(batch) == UNITS):
            yield subtask, first, batch
            batch = []
        if not batch:
            subtask, first = owner, offset
        batch.append(line[:-1] if line.endswith("\r") else line)
    if batch:
        yield subtask, first, batch


def split_text(data: bytes, parallelism: int) -> Iterator[tuple[int, int, list[str]]]:
    """A whole text file's lines to the subtasks of `byte_range` (for a file Hadoop would
    decompress: it is read as it is, as on a `file:` location)."""
    for subtask in range(parallelism):
        part = byte_range(len(data), subtask, parallelism)
        if part:
            lines = lines_in_range(io.BytesIO(data), part.start, part.stop)
            for number, batch in enumerate(_batches(lines)):
                yield subtask, number, batch


def split_csv(
    data: bytes, file_index: int, parallelism: int
) -> Iterator[tuple[int, int, list[str]]]:
    """A whole CSV file's lines, as `open(newline="")` reads them, to subtask
    `file_index mod p`."""
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline="")
    for number, batch in enumerate(_batches(text)):
        yield file_index % parallelism, number, batch


def split_parquet(
    data: bytes, first_group: int, parallelism: int
) -> Iterator[tuple[int, int, list[Any]]]:
    """A whole Parquet file's rows, group k (counting from `first_group`, the groups of
    the files before it) to subtask k mod p; positions are row numbers."""
    reader = _parquet(io.BytesIO(data))
    row = 0
    for index in range(reader.num_row_groups):
        rows = reader.read_row_group(index).to_pylist()
        subtask = (first_group + index) % parallelism
        for start in range(0, len(rows), UNITS):
            yield subtask, row + start, rows[start : start + UNITS]
        row += len(rows)


def _batches(units: Iterable[Any]) -> Iterator[list[Any]]:
    iterator = iter(units)
    while batch := list(itertools.islice(iterator, UNITS)):
        yield batch


def _units(supplied: Iterator[tuple[int, list[Any]]]) -> Iterator[Any]:
    for _, units in supplied:
        yield from units


def _files_units(supplied: Iterator[tuple[int, list[Any]]]) -> Iterator[Iterator[Any]]:
    """The units of each file in turn."""
    for _, batches in itertools.groupby(supplied, key=lambda batch: batch[0]):
        yield _units(batches)


# --- chain code ----------------------------------------------------------------------------


class _Source(OperatorCode):
    @contextmanager
    def loop(self, gen: Gen, node: NodePlan) -> Iterator[str]:
        var = gen.local("v", node)
        with gen.block(f"for {var} in {gen.obj(node)}:", loop=True):
            yield var


class Sequence(_Source):
    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        splits = number_splits(node.params["from"], node.params["to"], context.parallelism)
        return splits[context.subtask]


class Generator(OperatorCode):
    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        return number_splits(0, node.params["count"] - 1, context.parallelism)[context.subtask]

    @contextmanager
    def loop(self, gen: Gen, node: NodePlan) -> Iterator[str]:
        index = gen.local("i", node)
        var = gen.local("v", node)
        with gen.block(f"for {index} in {gen.obj(node)}:", loop=True):
            gen.line(f"{var} = {gen.inline(node, 'fn', {'i': index})}")
            yield var


class Collection(_Source):
    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        values = node.params["values"]
        positions = number_splits(0, len(values) - 1, context.parallelism)[context.subtask]
        return values[positions.start : positions.stop]


class TextFile(_Source):
    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        supplied = context.source_input(node.id)
        if supplied is not None:
            return _units(supplied)
        files = list_files(context.data_dir, node.params["path"])
        return text_lines(files, context.subtask, context.parallelism)


class CsvFile(_Source):
    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        delimiter = node.params.get("delimiter") or ","
        header = node.params.get("header", True) is not False
        supplied = context.source_input(node.id)
        if supplied is not None:
            files = _files_units(supplied)
            return (row for lines in files for row in csv_rows(lines, delimiter, header))
        paths = list_files(context.data_dir, node.params["path"])
        return csv_records(paths, context.subtask, context.parallelism, delimiter, header)


class JsonFile(_Source):
    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        supplied = context.source_input(node.id)
        if supplied is not None:
            return json_values(_units(supplied))
        files = list_files(context.data_dir, node.params["path"])
        return json_records(files, context.subtask, context.parallelism)


class ParquetFile(_Source):
    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        supplied = context.source_input(node.id)
        if supplied is not None:
            return _units(supplied)
        files = list_files(context.data_dir, node.params["path"])
        return parquet_records(files, context.subtask, context.parallelism)


CODE: dict[str, OperatorCode] = {
    "source.sequence": Sequence(),
    "source.generator": Generator(),
    "source.collection": Collection(),
    "source.text": TextFile(),
    "source.file": TextFile(),
    "source.csv": CsvFile(),
    "source.json": JsonFile(),
    "source.parquet": ParquetFile(),
}

FILE_SOURCES = frozenset(
    {"source.text", "source.file", "source.csv", "source.json", "source.parquet"}
)
