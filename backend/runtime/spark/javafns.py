"""The Java functions of the SQL path (`runtime/spark/jvm/`, built by `make spark-jar`).

`JAR` is shipped with the session (`spark.jars`: served to every executor, on a cluster
too) when it exists; without it no vertex runs as SQL. `register(spark)` names the
functions in a SparkSession's SQL:

- `sg_key_hash(key, narrow)`: the key's Java `hashCode` (String over UTF-16, Integer,
  Long, Boolean, a struct as Flink's TupleN); `narrow`: a bigint that fits 32 bits
  hashes as an Integer, the runtime's rule for Python ints;
- `sg_subtask(key, narrow, max_parallelism, parallelism)`: Flink's key group -> subtask,
  `compiler.keygroups.assign_key_to_parallel_operator`;
- `sg_partition_code(subtask, partitions)`: an int that Spark's hash partitioning
  (Murmur3 with seed 42, pmod) sends to partition `subtask`, found by inverting Spark's
  own hash (`Murmur3_x86_32`), so `repartition(p, code)` puts each row on its subtask;
- `sg_split(text)`: Python's `text.split()` (runs of `str.isspace` characters, no empty
  words), in one pass: Spark's `split` compiles its regular expression for every row;
- `sg_lower(text)`, `sg_upper(text)`: Python's `text.lower()` and `text.upper()`, from the
  case tables of the Python that builds the jar (`casetables`): Spark's own follow a
  newer Unicode, and Spark rewrites `lower(upper(x))` as `lower(x)`;
- `sg_int(text, where)`: Python's `int(text)` (Unicode digits and spaces, underscores
  between digits, by the same tables), failing the query where Python raises (with
  Python's words after `where`, an `ExpressionError`), and where Python would give an int
  beyond 64 bits;
- `sg_evaluated(test)`: `test`, computed for every row that reaches it (nondeterministic,
  so Spark neither moves a filter before it nor folds it to a constant): how the SQL
  path makes Spark compute what may fail where the Python chain computes it (`sqlpath`).

`TextBytes` hands Hadoop's text to Python as bytes, for the Python path's reads of other
schemes than `file:` to decode as a `file:` location's source does.

`text_frame` reads text files split over subtasks exactly as the `source.text` operator
(`operators.sources.text_lines`), and `number_frame` counts the numbers of each subtask's
range as the sequence and generator sources split them (`operators.sources.number_splits`):
partition i is subtask i.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark import SparkContext
    from pyspark.sql import DataFrame, SparkSession

JAR = Path(__file__).resolve().parents[3] / "build" / "spark" / "streamgraph-spark.jar"
PACKAGE = "streamgraph.spark"
FUNCTIONS = {
    "sg_key_hash": "KeyHash",
    "sg_subtask": "SubtaskOf",
    "sg_partition_code": "PartitionCode",
    "sg_split": "PythonSplit",
    "sg_lower": "PythonLower",
    "sg_upper": "PythonUpper",
    "sg_int": "PythonInt",
}
RETURNS = {
    "sg_split": "array<string>",
    "sg_lower": "string",
    "sg_upper": "string",
    "sg_int": "bigint",
}
"""What each function returns, when not an int."""


def jar_path() -> str | None:
    """The jar to ship, or None when it was not built."""
    return str(JAR) if JAR.is_file() else None


def available(spark: SparkSession, cls: str = "FlinkKeys") -> bool:
    """Whether this session's JVM has the functions, or the class `cls` of them (the jar
    was shipped at its start: a session older than the jar lacks what came later)."""
    return has_class(spark.sparkContext, cls)


def has_class(context: SparkContext, cls: str) -> bool:
    """Whether the context's JVM has the class `cls` of the jar."""
    jvm: Any = context._jvm
    try:
        jvm.java.lang.Class.forName(
            f"{PACKAGE}.{cls}", True, jvm.Thread.currentThread().getContextClassLoader()
        )
    except Exception:
        return False
    return True


def register(spark: SparkSession) -> None:
    from pyspark.sql.types import ArrayType, DataType, IntegerType, LongType, StringType

    types: dict[str, DataType] = {
        "array<string>": ArrayType(StringType(), False),
        "string": StringType(),
        "bigint": LongType(),
    }
    for name, cls in FUNCTIONS.items():
        kind = types[RETURNS[name]] if name in RETURNS else IntegerType()
        spark.udf.registerJavaFunction(name, f"{PACKAGE}.{cls}", kind)
    jvm: Any = spark.sparkContext._jvm
    getattr(jvm, f"{PACKAGE}.Evaluated").register(spark._jsparkSession)


def text_frame(spark: SparkSession, uris: list[str], parallelism: int) -> tuple[DataFrame, int]:
    """(subtask, value) of the files' lines, and the id of the RDD that reads them."""
    from pyspark.sql import DataFrame

    context = spark.sparkContext
    jvm: Any = context._jvm
    gateway: Any = context._gateway
    paths = gateway.new_array(jvm.java.lang.String, len(uris))
    for index, uri in enumerate(uris):
        paths[index] = uri
    reader = getattr(jvm, f"{PACKAGE}.TextRanges")
    rows = reader.read(context._jsc, paths, parallelism)
    frame = DataFrame(reader.frame(spark._jsparkSession, rows), spark)
    return frame, int(rows.id())


def number_frame(spark: SparkSession, ranges: list[range]) -> tuple[DataFrame, int]:
    """(subtask, value) of every number of `ranges` (range i: subtask i's, step 1, within
    64 bits), and the id of the RDD that makes them."""
    from pyspark.sql import DataFrame

    context = spark.sparkContext
    jvm: Any = context._jvm
    gateway: Any = context._gateway
    starts = gateway.new_array(jvm.long, len(ranges))
    stops = gateway.new_array(jvm.long, len(ranges))
    for index, numbers in enumerate(ranges):
        starts[index], stops[index] = numbers.start, numbers.stop
    maker = getattr(jvm, f"{PACKAGE}.NumberRanges")
    rows = maker.read(context._jsc, starts, stops)
    frame = DataFrame(maker.frame(spark._jsparkSession, rows), spark)
    return frame, int(rows.id())
