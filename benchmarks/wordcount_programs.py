"""The word count written by hand in PySpark, the two ways the Spark benchmark compares.

- `rdd_word_count`: the RDD API with Flink's keyBy placement, the same job the studio
  runs: lines -> lower-cased words -> (word, 1) -> each pair to the subtask Flink's
  key groups give its word (`compiler.keygroups`, memoised per process) -> per
  partition, a fold of the pairs into one count per word, keys in the order they came
  (Flink's keyed reduce in BATCH mode: no map-side combine).
- `dataframe_word_count`: the DataFrame API, `explode(split(lower(value)))` ->
  `groupBy` -> `count`, planned and run by Spark SQL in the JVM.

Both bring every (word, count) back to the driver. This module is imported by Spark's
Python workers too (the benchmark puts the repository on their path), so the functions
the RDDs run are pickled by reference and the memo lives as long as a worker.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from compiler.keygroups import assign_key_to_parallel_operator, compute_default_max_parallelism

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_SUBTASKS: dict[tuple[int, int], dict[str, int]] = {}
"""Per (max parallelism, parallelism): word -> subtask, as the Python workers saw them."""


class FlinkKeyGroups:
    """PySpark's `partitionFunc`: the subtask of a key behind Flink's keyBy.

    PySpark places a pair on partition `partitionFunc(key) % p`, so returning the
    subtask places it exactly there.
    """

    def __init__(self, parallelism: int) -> None:
        self.parallelism = parallelism
        self.max_parallelism = compute_default_max_parallelism(parallelism)

    def __call__(self, key: str) -> int:
        memo = _SUBTASKS.setdefault((self.max_parallelism, self.parallelism), {})
        subtask = memo.get(key)
        if subtask is None:
            subtask = assign_key_to_parallel_operator(key, self.max_parallelism, self.parallelism)
            memo[key] = subtask
        return subtask


def words(line: str) -> list[str]:
    return line.lower().split()


def one(word: str) -> tuple[str, int]:
    return word, 1


def fold_counts(pairs: Iterable[tuple[str, int]]) -> Iterator[tuple[str, int]]:
    """The keyed reduce of one subtask: the final count of each of its words."""
    counts: dict[str, int] = {}
    get = counts.get
    for word, count in pairs:
        counts[word] = get(word, 0) + count
    return iter(counts.items())


def rdd_word_count(spark: SparkSession, path: str, parallelism: int) -> list[tuple[str, int]]:
    """Read `path` in `parallelism` partitions, count with keyBy routing, collect."""
    lines = spark.sparkContext.textFile(path, minPartitions=parallelism)
    if lines.getNumPartitions() != parallelism:
        raise RuntimeError(
            f"the text file was read in {lines.getNumPartitions()} partitions, "
            f"not {parallelism}: the benchmark sets the block size so that they are equal"
        )
    pairs = lines.flatMap(words).map(one)
    placed = pairs.partitionBy(parallelism, FlinkKeyGroups(parallelism))
    return placed.mapPartitions(fold_counts, preservesPartitioning=True).collect()


def dataframe_word_count(spark: SparkSession, path: str, parallelism: int) -> list[tuple[str, int]]:
    """The same count with Spark SQL; input splits and shuffle partitions near `parallelism`."""
    from pyspark.sql import functions as F

    spark.conf.set("spark.sql.files.minPartitionNum", str(parallelism))
    spark.conf.set("spark.sql.shuffle.partitions", str(parallelism))
    lines = spark.read.text(path)
    word = F.explode(F.split(F.lower(F.col("value")), r"\s+")).alias("word")
    counted = lines.select(word).where(F.col("word") != "").groupBy("word").count()
    return [(row["word"], row["count"]) for row in counted.collect()]
