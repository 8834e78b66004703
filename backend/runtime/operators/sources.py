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

Paths are relative to the run's data folder and must stay inside it once resolved
(`runtime.paths`).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.operators.base import Gen, OperatorCode, SubtaskContext
from runtime.paths import list_files

if TYPE_CHECKING:
    from runtime.plan import NodePlan

BLOCK = 1 << 22
"""Bytes read at once from a text file."""


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


def text_lines(files: list[Path], subtask: int, parallelism: int) -> Iterator[str]:
    """The lines (without line ends) whose first byte is in this subtask's byte ranges."""
    for file in files:
        size = file.stat().st_size
        start = size * subtask // parallelism
        end = size * (subtask + 1) // parallelism
        if start < end:
            yield from _lines_in_range(file, start, end)


def _lines_in_range(file: Path, start: int, end: int) -> Iterator[str]:
    with file.open("rb") as stream:
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
        if index % parallelism != subtask:
            continue
        with file.open(newline="", encoding="utf-8", errors="replace") as stream:
            reader = csv.reader(stream, delimiter=delimiter)
            if header:
                names = next(reader, None)
                if names is None:
                    continue
                for row in reader:
                    yield dict(zip(names, row, strict=False))
            else:
                for row in reader:
                    yield tuple(row)


def json_records(files: list[Path], subtask: int, parallelism: int) -> Iterator[Any]:
    for line in text_lines(files, subtask, parallelism):
        if line.strip():
            yield json.loads(line)


def parquet_records(files: list[Path], subtask: int, parallelism: int) -> Iterator[Any]:
    import pyarrow.parquet as parquet  # type: ignore[import-untyped]  # only for Parquet

    group = 0
    for file in files:
        reader = parquet.ParquetFile(file)
        for index in range(reader.num_row_groups):
            if group % parallelism == subtask:
                yield from reader.read_row_group(index).to_pylist()
            group += 1


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
        files = list_files(context.data_dir, node.params["path"])
        return text_lines(files, context.subtask, context.parallelism)


class CsvFile(_Source):
    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        files = list_files(context.data_dir, node.params["path"])
        delimiter = node.params.get("delimiter") or ","
        header = node.params.get("header", True) is not False
        return csv_records(files, context.subtask, context.parallelism, delimiter, header)


class JsonFile(_Source):
    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        files = list_files(context.data_dir, node.params["path"])
        return json_records(files, context.subtask, context.parallelism)


class ParquetFile(_Source):
    def create(self, node: NodePlan, context: SubtaskContext) -> object:
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
