"""Sinks: print, collect, text / CSV / JSON lines files, and FileSink's writer and committer.

Every sink counts its records and keeps the first ones as text for the run's preview
(`RunOptions.preview_size` records per subtask, within the subtask's share of the run's
characters, `RunContext.preview_chars`; a record longer than `PREVIEW_RECORD_CHARS` is
kept cut short, saying how long it was). `sink.print` renders records as Flink's
print() does, `str(record)` prefixed with `N> ` (N = subtask + 1) when the sink is
parallel; `sink.collect` renders them as JSON.

File sinks write one file per subtask that received records, `part-<subtask>.<ext>`
in the folder their `path` names, as Flink's FileSink writes part files, and the run
commits them when it finishes (`commit_file_sinks`), as Flink's committer does at the
end of input: nothing is visible before, a run that fails or is canceled leaves nothing
behind (an earlier run's parts stay as they were), and a retried attempt replaces what
the failed one would have written. On a `file:` location an attempt writes a hidden
`.part-...inprogress` file beside the part, which the commit renames; on another scheme
it spools the part to the executor's own disk, and Spark's Hadoop output committer
writes it (`runtime.spark.hadoop`).
"""

from __future__ import annotations

import csv
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from runtime.events import SinkOutput
from runtime.operators.base import Gen, OperatorCode, SubtaskContext
from runtime.paths import resolve
from runtime.storage import Storage, check_sink_path, data_location

if TYPE_CHECKING:
    from runtime.plan import NodePlan, RunPlan


PREVIEW_RECORD_CHARS = 1_000


def clipped(text: str, limit: int = PREVIEW_RECORD_CHARS) -> str:
    """`text`, or when it is longer than `limit`, its start and how long it was, in
    `limit` characters all told."""
    if len(text) <= limit:
        return text
    said = f"… ({len(text):,} characters)"
    return text[: max(0, limit - len(said))] + said


def print_text(record: Any) -> str:
    return str(record)


def json_text(record: Any) -> str:
    return json.dumps(record, ensure_ascii=False, default=str)


class Sink:
    """A sink in one subtask: counts records and keeps a preview."""

    def __init__(self, node: NodePlan, context: SubtaskContext) -> None:
        self.node = node.id
        self.vertex = context.vertex_id
        self.subtask = context.subtask
        self.limit = context.preview_size
        self.chars_left = context.preview_chars
        self.records = 0
        self.preview: list[str] = []
        self.files: list[str] = []

    def render(self, record: Any) -> str:
        return print_text(record)

    def write(self, record: Any) -> None:
        self.records += 1
        if self.wants_preview():
            self.keep(self.render(record))

    def wants_preview(self) -> bool:
        return len(self.preview) < self.limit and self.chars_left > 0

    def keep(self, text: str) -> None:
        """Keep a record's text in the preview, within the record and subtask limits."""
        kept = clipped(text, min(PREVIEW_RECORD_CHARS, self.chars_left))
        self.chars_left -= len(kept)
        self.preview.append(kept)

    def complete(self) -> None:
        """The subtask finished: make what it wrote visible."""

    def abort(self) -> None:
        """The attempt failed or was stopped: leave nothing behind."""

    def output(self) -> SinkOutput:
        return SinkOutput(
            node=self.node,
            vertex=self.vertex,
            subtask=self.subtask,
            records=self.records,
            preview=tuple(self.preview),
            truncated=self.records > len(self.preview),
            files=tuple(self.files),
        )


class PrintSink(Sink):
    def __init__(self, node: NodePlan, context: SubtaskContext) -> None:
        super().__init__(node, context)
        self.prefix = f"{context.subtask + 1}> " if context.parallelism > 1 else ""

    def render(self, record: Any) -> str:
        return self.prefix + str(record)


class CollectSink(Sink):
    def render(self, record: Any) -> str:
        return json_text(record)


class FileSink(Sink):
    """Writes `part-<subtask>.<extension>` in the sink's folder, for the run to commit."""

    extension = "txt"

    def __init__(self, node: NodePlan, context: SubtaskContext) -> None:
        super().__init__(node, context)
        self.params = node.params
        location = data_location(context.data_dir)
        name = part_name(context.subtask, self.extension)
        self.folder: Path | None = None
        """The part's folder on a `file:` location; None: the part is spooled."""
        self.temporary: Path | None = None
        if location.is_local:
            root = location.local_path.resolve()
            self.folder = resolve(str(root), node.params["path"], must_exist=False, writes=True)
            self.final = (self.folder / name).relative_to(root).as_posix()
            self.temporary = self.folder / pending_name(name, context.token, context.attempt)
        else:
            self.final = f"{check_sink_path(location, node.params['path'])}/{name}"
        self.stream: TextIO | None = None

    def write(self, record: Any) -> None:
        stream = self.stream
        if stream is None:
            stream = self.stream = self.open()
            self.start(stream, record)
        self.records += 1
        text = self.put(stream, record)
        if self.wants_preview():
            self.keep(text)

    def open(self) -> TextIO:
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
        else:
            handle, spool = tempfile.mkstemp(prefix=".part-", suffix=".spool", dir=_scratch())
            os.close(handle)
            self.temporary = Path(spool)
        assert self.temporary is not None
        return self.temporary.open("w", encoding="utf-8", newline="")

    def start(self, stream: TextIO, first: Any) -> None:
        """Write what comes before the first record (a CSV header)."""

    def put(self, stream: TextIO, record: Any) -> str:
        """Write one record; return it as text for the preview."""
        text = str(record)
        stream.write(text + "\n")
        return text

    def complete(self) -> None:
        stream, self.stream = self.stream, None
        if stream is not None:
            stream.close()
            self.files.append(self.final)

    def abort(self) -> None:
        stream, self.stream = self.stream, None
        if stream is not None:
            stream.close()
        if self.temporary is not None:
            self.temporary.unlink(missing_ok=True)

    def spooled(self) -> Path | None:
        """The finished part on the executor's disk, for Spark to write (another scheme
        than `file:`); None when the part is written in place or holds no records."""
        return self.temporary if self.folder is None and self.files else None


def _scratch() -> str | None:
    """Where a Python worker spools: Spark's local folders (None outside Spark)."""
    return os.environ.get("SPARK_LOCAL_DIRS", "").split(",")[0] or None


class JsonSink(FileSink):
    extension = "jsonl"

    def put(self, stream: TextIO, record: Any) -> str:
        text = json_text(record)
        stream.write(text + "\n")
        return text


class CsvSink(FileSink):
    """Rows from tuples, lists or dicts (columns: the first dict's keys); other records
    are one-column rows."""

    extension = "csv"

    def start(self, stream: TextIO, first: Any) -> None:
        self.delimiter = self.params.get("delimiter") or ","
        self.writer = csv.writer(stream, delimiter=self.delimiter, lineterminator="\n")
        self.columns: list[Any] | None = list(first) if isinstance(first, dict) else None
        if self.columns is not None and self.params.get("header", True) is not False:
            self.writer.writerow(self.columns)

    def put(self, stream: TextIO, record: Any) -> str:
        if isinstance(record, dict):
            row: list[Any] = [record.get(column) for column in self.columns or list(record)]
        elif isinstance(record, (list, tuple)):
            row = list(record)
        else:
            row = [record]
        self.writer.writerow(row)
        return self.delimiter.join(str(value) for value in row)


class WriterSink(FileSink):
    """FileSink's writer: writes lines, then sends the finished file on to the committer."""

    def finished_files(self) -> list[str]:
        self.complete()
        return list(self.files)


class CommitterSink(Sink):
    """FileSink's committer: reports the files its writers finished."""

    def write(self, record: Any) -> None:
        super().write(record)
        self.files.append(str(record))


_SINKS: dict[str, type[Sink]] = {
    "sink.print": PrintSink,
    "sink.collect": CollectSink,
    "sink.text": FileSink,
    "sink.csv": CsvSink,
    "sink.json": JsonSink,
    "sink.writer": WriterSink,
    "sink.committer": CommitterSink,
}


class SinkCode(OperatorCode):
    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        return _SINKS[node.kind](node, context)

    def setup(self, gen: Gen, node: NodePlan) -> None:
        gen.setup(f"_w{node.id} = {gen.obj(node)}.write")

    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        gen.line(f"_w{node.id}({var})")


class WriterCode(SinkCode):
    def finish(self, gen: Gen, node: NodePlan) -> None:
        out = gen.local("v", node)
        with gen.block(f"for {out} in {gen.obj(node)}.finished_files():", loop=True):
            gen.emit(node, out, tail=True)


FILE_SINKS = frozenset({"sink.text", "sink.csv", "sink.json", "sink.writer"})

CODE: dict[str, OperatorCode] = {
    kind: WriterCode() if kind == "sink.writer" else SinkCode() for kind in _SINKS
}

_EXTENSIONS = {kind: cls.extension for kind, cls in _SINKS.items() if issubclass(cls, FileSink)}


# --- committing --------------------------------------------------------------------------


def part_name(subtask: int, extension: str) -> str:
    return f"part-{subtask}.{extension}"


def pending_name(part: str, token: str, attempt: int) -> str:
    """The hidden file an attempt writes its part to, beside it (`file:` locations)."""
    return f".{part}.{token}.{attempt}.inprogress"


def _is_pending(name: str, token: str) -> bool:
    return re.fullmatch(rf"\.part-\d+\.\w+\.{re.escape(token)}\.\d+\.inprogress", name) is not None


@dataclass(frozen=True, slots=True)
class SinkFolder:
    """Where one file sink's parts go, relative to the data location."""

    node: int
    folder: str
    extension: str
    parallelism: int

    def final(self, subtask: int) -> str:
        return f"{self.folder}/{part_name(subtask, self.extension)}"

    def pending(self, subtask: int, token: str, attempt: int) -> str:
        part = part_name(subtask, self.extension)
        return f"{self.folder}/{pending_name(part, token, attempt)}"


def file_sink_folders(plan: RunPlan, storage: Storage) -> list[SinkFolder]:
    """The folders of the plan's file sinks, in plan order."""
    return [
        SinkFolder(
            node.id,
            storage.sink_folder(node.params["path"]),
            _EXTENSIONS[node.kind],
            vertex.parallelism,
        )
        for vertex in plan.vertices
        for node in vertex.nodes
        if node.kind in FILE_SINKS
    ]


def pending_parts(
    plan: RunPlan, folders: Iterable[SinkFolder], committed: Iterable[tuple[SinkOutput, int]]
) -> dict[tuple[int, int], str]:
    """Per (sink, subtask), the pending part its committed attempt wrote on a `file:`
    location; `committed`: the sink outputs of the attempts that finished, with their
    attempt numbers."""
    by_node = {folder.node: folder for folder in folders}
    parts = {}
    for output, attempt in committed:
        folder = by_node.get(output.node)
        if folder is not None and output.files:
            parts[output.node, output.subtask] = folder.pending(output.subtask, plan.token, attempt)
    return parts


def commit_file_sinks(
    plan: RunPlan,
    storage: Storage,
    folders: Iterable[SinkFolder],
    staged: Mapping[tuple[int, int], str],
    *,
    succeeded: bool,
    staging: str | None = None,
) -> None:
    """Make the parts a run's file sinks wrote visible when it `succeeded`, all of them
    after its last subtask finished; leave nothing of the run otherwise.

    `staged`: per (sink, subtask) the file holding the part the run wrote; a subtask
    without one wrote no records, and an earlier run's part there is removed. What the
    run left unfinished is removed either way: `staging`, the folder Spark wrote into on
    another scheme than `file:`, or the pending parts of `file:` locations.
    """
    folders = list(folders)
    try:
        if succeeded:
            for folder in folders:
                for subtask in range(folder.parallelism):
                    source = staged.get((folder.node, subtask))
                    if source is None:
                        storage.delete(folder.final(subtask))
                    else:
                        storage.replace(source, folder.final(subtask))
    finally:
        if staging is not None:
            storage.remove_tree(staging)
        else:
            for folder in folders:
                for name in storage.names(folder.folder):
                    if _is_pending(name, plan.token):
                        storage.delete(f"{folder.folder}/{name}")
