"""Data locations of other schemes than `file:`, through Spark's Hadoop file system layer.

Spark's Python workers have no JVM to call, so Hadoop's `FileSystem` is used from the
driver, through py4j, for what is small (`HadoopStorage`: listing what sources read,
reading a Parquet footer, committing what sinks wrote), and the bytes move on the
executors through Spark's own Hadoop readers and output committer:

- `source_reads`: what a vertex's file sources read, as an RDD placed on their subtasks.
  A text or JSON lines file is read by Hadoop's `TextInputFormat` in its own splits (its
  records carry each line's byte offset, which says the subtask: `sources.split_lines`);
  a CSV or Parquet file, or a text file Hadoop would decompress by its name, is read whole
  (`binaryFiles`, the bytes as they are) and split as a `file:` location's source splits
  it. Batches carry (source, file, position), so a subtask gets them back in file order
  (`tasks.VertexBody`), however Spark's shuffle hands them over.
- `write_parts`: the run's one action when it has file sinks: the parts the sink subtasks
  spooled go through Hadoop's `TextOutputFormat` and `FileOutputCommitter` into a hidden
  staging folder, from which the driver moves those of the subtasks that wrote records
  into place once the run finished (`operators.sinks.commit_file_sinks`).

Input paths are Hadoop globs, and `,` separates them: the names a workspace chose are
escaped (`storage.hadoop_glob`), so a name only ever means itself.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from runtime.operators.base import OperatorError
from runtime.operators.sources import parquet_row_groups
from runtime.paths import PathError, PathMissing
from runtime.spark.javafns import PACKAGE, has_class
from runtime.spark.tasks import ReadLines, ReadWhole
from runtime.storage import DataLocation, FileEntry, check_sink_path, hadoop_glob

if TYPE_CHECKING:
    from pyspark.core.context import SparkContext
    from pyspark.core.rdd import RDD

    from runtime.plan import NodePlan

TEXT_KINDS = frozenset({"source.text", "source.file", "source.json"})
WHOLE_FILE_LIMIT = (1 << 31) - 1024
"""Bytes a file read whole may have (Spark holds it in one Java array)."""
_BOM = b"\xef\xbb\xbf"
_WHOLE_KINDS = {"source.csv": "csv", "source.parquet": "parquet"}

_TEXT_INPUT = "org.apache.hadoop.mapreduce.lib.input.TextInputFormat"
_LONG = "org.apache.hadoop.io.LongWritable"
_TEXT = "org.apache.hadoop.io.Text"
TEXT_BYTES = f"{PACKAGE}.TextBytes"


class HadoopStorage:
    """A location of another scheme than `file:`, from the driver (`storage.Storage`)."""

    def __init__(self, context: SparkContext, location: DataLocation) -> None:
        self.location = location
        self._jvm: Any = context._jvm
        self._conf: Any = context._jsc.hadoopConfiguration()
        self._file_system: Any = None
        self._codecs: Any = None

    @property
    def _fs(self) -> Any:
        """Hadoop's file system of the location, made when first used: a run that reads and
        writes no file needs none (nor the scheme's classes on the cluster)."""
        if self._file_system is None:
            root = self._path("")
            self._file_system = _java(lambda: root.getFileSystem(self._conf), self.location.uri)
        return self._file_system

    def _path(self, relative: str) -> Any:
        uri = self.location.uri if not relative else f"{self.location.uri.rstrip('/')}/{relative}"
        return self._jvm.org.apache.hadoop.fs.Path(uri)

    def list_files(self, path: str) -> list[FileEntry]:
        relative = self.location.relative(path)
        target = self._path(relative)
        try:
            status = _java(lambda: self._fs.getFileStatus(target), path)
        except FileNotFoundError:
            raise PathMissing(f"{path!r} does not exist in the data folder") from None
        if status.isFile():
            return [FileEntry(relative, str(status.getPath().toString()), int(status.getLen()))]
        found = []
        for entry in _java(lambda: self._fs.listStatus(target), path):
            name = str(entry.getPath().getName())
            if entry.isFile() and not name.startswith((".", "_")):
                inside = f"{relative}/{name}" if relative else name
                found.append(
                    FileEntry(inside, str(entry.getPath().toString()), int(entry.getLen()))
                )
        return sorted(found, key=lambda entry: entry.path)

    def sink_folder(self, path: str) -> str:
        return check_sink_path(self.location, path)

    def names(self, folder: str) -> list[str]:
        target = self._path(folder)
        try:
            entries = _java(lambda: self._fs.listStatus(target), folder)
        except FileNotFoundError:
            return []
        return sorted(str(entry.getPath().getName()) for entry in entries)

    def replace(self, source: str, target: str) -> None:
        origin, destination = self._path(source), self._path(target)
        # Not every file system's rename replaces what is there (HDFS does not).
        _java(lambda: self._fs.delete(destination, False), target)
        _java(lambda: self._fs.mkdirs(destination.getParent()), target)
        if not _java(lambda: self._fs.rename(origin, destination), target):
            raise OSError(f"could not move {source} to {target}")

    def delete(self, path: str) -> None:
        target = self._path(path)
        _java(lambda: self._fs.delete(target, False), path)

    def remove_tree(self, path: str) -> None:
        target = self._path(path)
        _java(lambda: self._fs.delete(target, True), path)

    def decompressed(self, file: FileEntry) -> bool:
        """Whether Hadoop's readers would decompress the file, by its name (`.gz`...)."""
        if self._codecs is None:
            self._codecs = self._jvm.org.apache.hadoop.io.compress.CompressionCodecFactory(
                self._conf
            )
        return self._codecs.getCodec(self._path(file.path)) is not None

    def head(self, file: FileEntry, count: int) -> bytes:
        """The first `count` bytes of a file."""
        with _HadoopFile(self, file) as stream:
            return stream.read(count)

    def row_groups(self, file: FileEntry) -> int:
        """How many row groups a Parquet file holds (its footer only is read)."""
        with _HadoopFile(self, file) as stream:
            return parquet_row_groups(stream)


class _HadoopFile(io.RawIOBase):
    """A file of a Hadoop file system, read from the driver (seekable)."""

    def __init__(self, storage: HadoopStorage, file: FileEntry) -> None:
        self._stream = _java(lambda: storage._fs.open(storage._path(file.path)), file.path)
        self._size = file.size
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: Any) -> int:
        count = min(len(buffer), self._size - self._position)
        if count <= 0:
            return 0
        self._stream.seek(self._position)
        data = bytes(self._stream.readNBytes(count))
        buffer[: len(data)] = data
        self._position += len(data)
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._stream.close()
        super().close()


def source_reads(
    context: SparkContext,
    storage: HadoopStorage,
    sources: Sequence[NodePlan],
    parallelism: int,
) -> RDD[Any]:
    """What `sources` (the file sources of one vertex, in the order its chain reads them)
    read, as (subtask, ((source, file, position), units)) pairs for `parallelism`
    subtasks, to be placed by `tasks.target_of`. `OperatorError` names a source whose
    path holds nothing to read."""
    pieces: list[RDD[Any]] = []
    # The lines' bytes, decoded by `ReadLines` as Python decodes a file: location's; only
    # without the jar (`make spark-jar`) as Java decodes them, which differs on bad UTF-8.
    converter = TEXT_BYTES if has_class(context, "TextBytes") else None
    for rank, node in enumerate(sources):
        files = _files(storage, node)
        group = 0
        for index, file in enumerate(files):
            if node.kind in TEXT_KINDS and file.size and not storage.decompressed(file):
                bom = storage.head(file, len(_BOM)) == _BOM
                lines: RDD[tuple[int, bytes | str]] = context.newAPIHadoopRDD(
                    _TEXT_INPUT,
                    _LONG,
                    _TEXT,
                    valueConverter=converter,
                    conf=_text_input(file.uri),
                )
                read = ReadLines(node.id, node.name, rank, index, file.size, parallelism, bom)
                pieces.append(lines.mapPartitions(read))
                continue
            if node.kind in TEXT_KINDS and not file.size:
                continue  # no lines
            if file.size > WHOLE_FILE_LIMIT:
                raise OperatorError(
                    node.id,
                    node.name,
                    f"{file.path!r} has {file.size:,} bytes; a CSV, Parquet or compressed file "
                    f"is read whole on {storage.location.scheme}: storage, at most "
                    f"{WHOLE_FILE_LIMIT:,} bytes",
                )
            kind = _WHOLE_KINDS.get(node.kind, "text")
            whole = context.binaryFiles(_whole_file(storage.location, file.path))
            read_whole = ReadWhole(node.id, node.name, kind, rank, index, group, parallelism)
            pieces.append(whole.mapPartitions(read_whole))
            if kind == "parquet":
                group += _row_groups(storage, node, file)
    return context.union(pieces) if pieces else context.parallelize([], 1)


def write_parts(parts: RDD[str], location: DataLocation, staging: str) -> None:
    """The run's action when its file sinks write to `location`: each partition of `parts`,
    pieces of text, becomes `staging/part-<partition, 5 digits>`, each piece followed by a
    line break, through Hadoop's `TextOutputFormat` and `FileOutputCommitter`, which makes
    the files of the tasks that finished visible there once all of them have. (PySpark's
    `saveAsNewAPIHadoopFile` would first run a job of its own to look at a record.)"""
    parts.saveAsTextFile(location.uri_of(staging))


def staged_part(staging: str, partition: int) -> str:
    """Where `write_parts` puts a partition's part (Hadoop's name of a task's file)."""
    return f"{staging}/part-{partition:05d}"


def _files(storage: HadoopStorage, node: NodePlan) -> list[FileEntry]:
    path = node.params["path"]
    try:
        files = storage.list_files(path)
    except (PathError, OSError) as error:
        raise OperatorError(node.id, node.name, str(error)) from error
    if not files:
        raise OperatorError(node.id, node.name, f"{path!r} holds no files to read")
    return files


def _row_groups(storage: HadoopStorage, node: NodePlan, file: FileEntry) -> int:
    try:
        return storage.row_groups(file)
    except Exception as error:
        raise OperatorError(node.id, node.name, f"{file.path}: {error}") from error


def _text_input(uri: str) -> dict[str, str]:
    """Hadoop's text reader on exactly one file, its lines ended by `\\n` only (a `\\r`
    before it stays in the line, as a `file:` source reads it)."""
    glob = "".join("\\" + ch if ch in "*?[]{}\\" else ch for ch in uri)
    # The input folder setting is a `,`-separated list, `\` its escape character.
    listed = glob.replace("\\", "\\\\").replace(",", "\\,")
    return {
        "mapreduce.input.fileinputformat.inputdir": listed,
        "textinputformat.record.delimiter": "\n",
    }


def _whole_file(location: DataLocation, relative: str) -> str:
    """The glob `binaryFiles` reads exactly one file by: `,` outside braces would split it."""
    return f"{location.uri.rstrip('/')}/{{{hadoop_glob(relative)}}}"


def _java(call: Any, what: str) -> Any:
    """`call()`, a py4j call, with Java's exceptions as Python's (`FileNotFoundError`,
    else `OSError` with Java's message)."""
    from py4j.protocol import Py4JJavaError  # type: ignore[import-untyped]  # no hints

    try:
        return call()
    except Py4JJavaError as error:
        failure = error.java_exception
        kind = str(failure.getClass().getName())
        message = f"{what}: {failure.getMessage()}"
        if kind == "java.io.FileNotFoundException":
            raise FileNotFoundError(message) from None
        raise OSError(message) from None


__all__ = ["HadoopStorage", "source_reads", "staged_part", "write_parts"]
