"""The pipeline shapes users write, each as a studio document and as the DataFrame program a
person would write by hand for it, for the Spark benchmark's side-by-side rounds.

Every shape names what its studio document reads (`words`: the word count's text file;
`events`: `events_file`, lines of `user,item,amount,timestamp`; `none`: a number source),
builds the document for a file name and a parallelism, and computes the same answer with
the DataFrame API, as rows of (key, value). `check` compares the studio's sinks with it:
the records per run (one per key, or per key and window) and every previewed record.

    WORD COUNT   text -> split -> filter len >= 3 -> keyed count
    STREAMING    the benchmark's word count in STREAMING mode (every update emitted)
    SPLIT SUM    x.split(',') -> (x[0], int(x[2])) -> keyed sum
    SEQUENCE     numbers -> 10 maps and filters -> keyed sum by x % 1000
    WINDOW       one-minute tumbling event-time windows per user, counted
"""

from __future__ import annotations

import itertools
import json
import os
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

Input = Literal["words", "events", "none"]
USERS = 10_000
FIRST_TIMESTAMP = 1_700_000_000_000
"""Milliseconds: events are 25 ms apart from here, so a minute holds 2,400 of them."""
SEQUENCE_STEPS = (  # every value stays positive
    ("map", "x + 5"),
    ("filter", "x % 7 != 0"),
    ("map", "x * 3 - 2"),
    ("filter", "x % 11 != 3"),
    ("map", "x + 17"),
    ("filter", "x > 40"),
    ("map", "x * 2 + 1"),
    ("filter", "x % 13 != 5"),
    ("map", "x - 9"),
    ("filter", "x % 2 == 0"),
)
"""The arithmetic shape's chain: the same text in the studio and, as columns, by hand."""


def node(node_id: int, name: str, operator: str, **params: Any) -> dict[str, Any]:
    return {"id": node_id, "name": name, "operator": operator, "params": params}


def edge(source: int, target: int, partitioner: str, key: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"source": source, "target": target, "partitioner": partitioner}
    if key is not None:
        result["key"] = {"fn": key}
    return result


def _document(
    name: str, parallelism: int, mode: str, nodes: list[dict[str, Any]], key: str
) -> dict[str, Any]:
    """`nodes` in a row: FORWARD edges, the HASH edge (on `key`) into the one before the
    sink, which comes last."""
    edges = [edge(a["id"], b["id"], "FORWARD") for a, b in itertools.pairwise(nodes)]
    edges[-2] = edge(nodes[-3]["id"], nodes[-2]["id"], "HASH", key=key)
    return {
        "format": "streamgraph/v1",
        "name": name,
        "config": {"defaultParallelism": parallelism, "runtimeMode": mode},
        "nodes": nodes,
        "edges": edges,
    }


def events_file(folder: Path, size_mb: int, seed: int) -> Path:
    """Lines of `user,item,amount,timestamp` in `folder`, written if missing: users drawn
    Zipf-like, amounts 1 to 1000, timestamps rising 25 ms a line."""
    path = folder / f"events-{size_mb}mib-seed{seed}.csv"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    weights = [1.0 / rank for rank in range(1, USERS + 1)]
    target, written, line = size_mb << 20, 0, 0
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    with partial.open("w", encoding="ascii", newline="\n") as out:
        while written < target:
            users = rng.choices(range(USERS), weights=weights, k=10_000)
            rows = []
            for user in users:
                amount = rng.randint(1, 1000)
                rows.append(
                    f"u{user},i{rng.randint(0, 999)},{amount},{FIRST_TIMESTAMP + 25 * line}"
                )
                line += 1
            block = "\n".join(rows) + "\n"
            out.write(block)
            written += len(block)
    partial.rename(path)
    return path


# The shapes --------------------------------------------------------------------------------


def _word_count(path: str, p: int) -> dict[str, Any]:
    nodes = [
        node(1, "Source: Text File", "source.text", path=path),
        node(2, "Split", "flat_map", fn="x.split()"),
        node(3, "Long words", "filter", predicate="len(x) >= 3"),
        node(4, "Count", "count"),
        node(5, "Sink: Collect", "sink.collect"),
    ]
    return _document("bench shape: count", p, "BATCH", nodes, "x")


def _word_count_df(spark: SparkSession, uri: str, p: int) -> DataFrame:
    from pyspark.sql import functions as F

    words = spark.read.text(uri).select(F.explode(F.split("value", r"\s+")).alias("w"))
    return words.where(F.char_length("w") >= 3).groupBy("w").count()


def _streaming(path: str, p: int) -> dict[str, Any]:
    nodes = [
        node(1, "Source: Text File", "source.text", path=path),
        node(2, "FlatMap", "flat_map", fn="x.lower().split()"),
        node(3, "Map", "map", fn="(x, 1)"),
        node(4, "Reduce", "reduce", fn="(a[0], a[1] + b[1])"),
        node(5, "Sink: Collect", "sink.collect"),
    ]
    return _document("bench shape: streaming", p, "STREAMING", nodes, "x[0]")


def _streaming_df(spark: SparkSession, uri: str, p: int) -> DataFrame:
    from pyspark.sql import functions as F

    words = spark.read.text(uri).select(F.explode(F.split(F.lower("value"), r"\s+")).alias("w"))
    return words.where(F.col("w") != "").groupBy("w").count()


def _split_sum(path: str, p: int) -> dict[str, Any]:
    nodes = [
        node(1, "Source: Events", "source.text", path=path),
        node(2, "Fields", "map", fn="x.split(',')"),
        node(3, "Amount", "map", fn="(x[0], int(x[2]))"),
        node(4, "Sum", "sum", field=1),
        node(5, "Sink: Collect", "sink.collect"),
    ]
    return _document("bench shape: split sum", p, "BATCH", nodes, "x[0]")


def _split_sum_df(spark: SparkSession, uri: str, p: int) -> DataFrame:
    from pyspark.sql import functions as F

    fields = spark.read.text(uri).select(F.split("value", ",").alias("f"))
    pairs = fields.select(F.col("f")[0].alias("user"), F.col("f")[2].cast("int").alias("n"))
    return pairs.groupBy("user").agg(F.sum("n"))


def sequence_numbers(size_mb: int) -> int:
    """How many numbers the arithmetic shape counts: 20 M for the default 100 MiB."""
    return size_mb * 200_000


def _sequence(path: str, p: int, numbers: int) -> dict[str, Any]:
    nodes = [node(1, "Source: Numbers", "source.sequence", **{"from": 0, "to": numbers - 1})]
    for index, (kind, text) in enumerate(SEQUENCE_STEPS):
        params = {"predicate": text} if kind == "filter" else {"fn": text}
        nodes.append(node(10 + index, f"{kind.title()} {index}", kind, **params))
    nodes += [node(2, "Sum", "sum"), node(3, "Sink: Collect", "sink.collect")]
    return _document("bench shape: sequence", p, "BATCH", nodes, "x % 1000")


def _sequence_df(spark: SparkSession, numbers: int, p: int) -> DataFrame:
    from pyspark.sql import functions as F

    # Every value stays positive along the chain, so Spark's `%` is Python's here.
    frame = spark.range(0, numbers, 1, p).select(F.col("id").alias("x"))
    for kind, text in SEQUENCE_STEPS:
        value = F.expr(text)
        frame = frame.where(value) if kind == "filter" else frame.select(value.alias("x"))
    return frame.groupBy((F.col("x") % 1000).alias("k")).agg(F.sum("x"))


def _window(path: str, p: int) -> dict[str, Any]:
    window = {
        "assigner": "tumbling_event_time",
        "sizeMs": 60_000,
        "timestamp": "x[1]",
        "zero": "0",
        "add": "acc + 1",
        "result": "acc",
    }
    nodes = [
        node(1, "Source: Events", "source.text", path=path),
        node(2, "Fields", "map", fn="x.split(',')"),
        node(3, "User and time", "map", fn="(x[0], int(x[3]))"),
        node(4, "Per minute", "window.aggregate", **window),
        node(5, "Sink: Collect", "sink.collect"),
    ]
    return _document("bench shape: window", p, "BATCH", nodes, "x[0]")


def _window_df(spark: SparkSession, uri: str, p: int) -> DataFrame:
    from pyspark.sql import functions as F

    fields = spark.read.text(uri).select(F.split("value", ",").alias("f"))
    minute = F.floor(F.col("f")[3].cast("bigint") / 60_000)
    counted = fields.groupBy(F.col("f")[0].alias("user"), minute.alias("m")).count()
    return counted.select(F.struct("user", "m").alias("k"), "count")


@dataclass(frozen=True)
class Shape:
    label: str
    input: Input
    document: Callable[[str, int], dict[str, Any]]
    """(the input's file name, parallelism) -> the studio's document."""
    dataframe: Callable[[SparkSession, str, int], DataFrame]
    """(session, the input's URI, parallelism) -> (key, value) rows, by hand."""
    keyed_preview: bool
    """The studio's records are `[key, value]`: previews are checked per key; otherwise
    by value (a sum or a window's count carries no key)."""


def shapes(size_mb: int) -> list[Shape]:
    numbers = sequence_numbers(size_mb)
    return [
        Shape("split, filter, keyed count", "words", _word_count, _word_count_df, True),
        Shape("word count, STREAMING", "words", _streaming, _streaming_df, True),
        Shape("split(','), int(), keyed sum", "events", _split_sum, _split_sum_df, True),
        Shape(
            f"{numbers // 1_000_000} M numbers, 10 steps, sum by x % 1000",
            "none",
            lambda path, p: _sequence(path, p, numbers),
            lambda spark, uri, p: _sequence_df(spark, numbers, p),
            False,
        ),
        Shape("one-minute windows per user", "events", _window, _window_df, False),
    ]


def check(shape: Shape, detail: dict[str, Any], rows: list[tuple[Any, Any]]) -> list[str]:
    """What differs between the studio's run and the hand-written answer."""
    problems: list[str] = []
    sinks = detail["sinks"]
    records = sum(sink["records"] for sink in sinks)
    streaming = shape.document("", 1)["config"]["runtimeMode"] == "STREAMING"
    if not streaming and records != len(rows):
        problems.append(f"{shape.label}: the studio emitted {records} records, by hand {len(rows)}")
    if streaming:
        updates = sum(value for _, value in rows)
        if records != updates:
            problems.append(f"{shape.label}: {records} updates emitted, {updates} words counted")
    answers = {key: value for key, value in rows}
    values = Counter(value for _, value in rows)
    for sink in sinks:
        for text in sink["preview"]:
            record = json.loads(text)
            if shape.keyed_preview:
                key, value = record
                if streaming and not 1 <= value <= answers.get(key, 0):
                    problems.append(f"{shape.label}: {key!r} updated to {value}")
                elif not streaming and answers.get(key) != value:
                    problems.append(
                        f"{shape.label}: {key!r} is {value}, by hand {answers.get(key)}"
                    )
            elif values[record] == 0:
                problems.append(f"{shape.label}: {record!r} is no answer of the hand-written job")
    return problems[:10]
