"""Vertices that run as Spark SQL instead of their Python chain, where the result is the same.

A *feed* is a pair of vertices joined by one HASH JobEdge:

- the producer reads text files (`source.text` or `source.file` heading the chain, on
  `file:` or any scheme Spark's Hadoop file systems reach) or counts numbers (`source.sequence`, or
  `source.generator` whose function of the index translates), and runs a straight chain
  of `map`, `filter` and `flat_map` whose expressions translate (`translate`), as did
  the edge's key; the whole vertex runs in the JVM: the source's split over subtasks
  (`javafns.text_frame`, `javafns.number_frame`), the chain as column expressions
  (`flat_map` of a `split` as `explode`), then a partial aggregation per (producer
  subtask, key);
- the consumer has that edge as its only input and heads with a fold, the only kinds
  whose output per key merging its records in any grouping gives (a keyed `aggregate`,
  count or session window, window `process` or plain transform runs in Python, whatever
  the key): in a BATCH run, a keyed `reduce` whose function folds field by field (`a[i]`
  keeps the first record's field, `a[i] + b[i]` sums ints, `max` / `min` of `a[i],
  b[i]`), `sum` / `min` / `max` of a field, or `count` (which reads nothing of the
  record: its rows are counted); in either mode, as time windows fire only at the end of
  input, a window `reduce` folding so, or a window `aggregate` whose `add` folds its
  accumulator leaf by leaf, over tumbling or sliding event-time windows (`_in_windows`
  assigns them as the operator does; they fire by end, start and first record). The
  aggregated rows go to the consumer's subtasks by Flink's key groups computed in the JVM
  (`sg_subtask`), placed by Spark's own hash partitioning of a code that lands on that
  subtask (`sg_partition_code`). The consumer's Python chain then runs over what its
  head would emit: each key's rows of the producer subtasks merged into its folded
  record (a count's `(key, count)`), in the order the keys first came (producer subtask,
  then place in its output: the order the Python path's shuffle delivers them, numbered
  by `monotonically_increasing_id`, whose high bits are the partition), the head
  passing them on (`_fed_consumer`), so the key may read any field. A field the
  fold keeps from the first record is read from the grouped key when it is the key or a
  field of it, otherwise by `min_by` (which Spark aggregates by sorting).

Counts stay exact: a consumer subtask's records in are the rows its keys stood for, and
each producer subtask's records out are summed from the same rows (an accumulator). A
producer's subtask states come from the listener (its Spark task is the subtask: DEPLOYING,
then INITIALIZING and RUNNING as it starts, FINISHED as it ends) and its counts from the
driver once the consumer has run. Anything else, or any expression outside the subset,
runs the vertices' Python chains (`Choice.reasons` says why).

Every change here passes `tests/runtime/spark/test_differential.py`, which runs generated
pipelines both ways and in the reference executor (docs/RUNTIME.md, "How a fast path is
proven equal").
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pyspark.accumulators import AccumulatorParam

from runtime.catalog import KEY_VARIABLES
from runtime.expressions import compile_expression
from runtime.paths import PathError, list_files
from runtime.spark.hooks import Meter
from runtime.spark.tasks import VertexBody
from runtime.spark.translate import Col, Tup, Untranslatable, Value, as_struct, leaves, translate
from runtime.storage import Storage, data_location

if TYPE_CHECKING:
    from pyspark.accumulators import Accumulator
    from pyspark.sql import Column, DataFrame, SparkSession

    from runtime.chains import SubtaskRun
    from runtime.plan import NodePlan, RunPlan, VertexPlan

TEXT_SOURCES = frozenset({"source.text", "source.file"})
NUMBER_SOURCES = frozenset({"source.sequence", "source.generator"})
_LONG = 1 << 63
STATELESS = frozenset({"map", "filter", "flat_map"})
FOLDS = frozenset({"reduce", "sum", "min", "max", "count"})
WINDOW_FOLDS = frozenset({"window.reduce", "window.aggregate"})
TIME_WINDOWS = frozenset({"tumbling_event_time", "sliding_event_time"})
FOLDABLE = (
    "only reduce, sum, min, max, count, and reduce or aggregate over tumbling or sliding "
    "event-time windows are folded in SQL"
)
BATCH = 1024
"""Records per batch handed to the consumer's chain."""

Shape = Any
"""A record's shape: None for a single value, a tuple of shapes for a tuple."""


@dataclass(frozen=True, slots=True)
class Windows:
    """The event-time windows a window head folds into, every one fired at the end of
    input (`operators.windows`): `size` ms long, one starting every `slide` ms (`slide`
    is `size` for tumbling windows)."""

    size: int
    slide: int
    tumbling: bool
    """One window per record; sliding ones of `slide == size` may be two (a negative
    timestamp's first starts after it)."""


@dataclass(frozen=True, slots=True)
class Fold:
    """How the consumer's keyed head folds a key's records (per window, with `windows`),
    leaf by leaf: of the record, `first` (the first record's), `sum`, `min` or `max`; or,
    for a `count`, none of the record: a key's records are only counted; or, for a window
    `aggregate`, of its accumulator: `keep` (the zero's leaf), or the `sum`, `min` or
    `max` of the zero's leaf and a value of each record."""

    shape: Shape
    kinds: tuple[str, ...]
    count: bool = False
    windows: Windows | None = None
    zero: Any = None
    """A window aggregate's accumulator before its first record."""
    aggregate: bool = False


@dataclass(slots=True)
class Feed:
    producer: VertexPlan
    consumer: VertexPlan
    body: VertexPlan
    """The consumer as its subtasks run it over the merged rows (`_fed_consumer`)."""
    fold: Fold
    frame: DataFrame
    """The consumer's input: (src, n, first, key, leaves...) rows, partition i subtask i."""
    reader: int
    """The id of the RDD that reads the producer's files (its stage's tasks)."""


@dataclass(slots=True)
class Choice:
    """Which vertices of a run run as SQL, and why the others do not."""

    feeds: dict[str, Feed] = field(default_factory=dict)
    """By consumer vertex id."""
    reasons: dict[str, str] = field(default_factory=dict)
    """Vertex id -> why it runs its Python chain (vertices no feed could start from)."""

    @property
    def producers(self) -> dict[str, Feed]:
        return {feed.producer.id: feed for feed in self.feeds.values()}

    def engines(self, plan: RunPlan) -> dict[str, str]:
        sql = set(self.feeds) | set(self.producers)
        return {v.id: "sql" if v.id in sql else "python" for v in plan.vertices}


def sql_session(spark: SparkSession) -> SparkSession:
    """A session over `spark`'s context for one run's SQL, with the Java functions and
    without adaptive execution: the feed's RDD must be built, not run, before the run's
    job (adaptive plans run their shuffles to know their partitions), and the consumer's
    partitions stay exactly its subtasks."""
    from runtime.spark.javafns import available, register

    if not available(spark):
        raise Untranslatable("the Java functions are not built (make spark-jar)")
    session = spark.newSession()
    session.conf.set("spark.sql.adaptive.enabled", "false")
    register(session)
    return session


def choose(
    plan: RunPlan, spark: Callable[[], SparkSession] | None, storage: Storage | None = None
) -> Choice:
    """The feeds of `plan`. `spark` gives the session of the run's SQL, called only when a
    vertex gets that far (None: the SQL path is off, every vertex runs Python); `storage`
    lists the files of the run's data location (None: a `file:` one, listed here)."""
    choice = Choice()
    if spark is None:
        for vertex in plan.vertices:
            choice.reasons[vertex.id] = "the SQL path is off"
        return choice
    session: list[SparkSession] = []

    def once() -> SparkSession:
        if not session:
            session.append(spark())
        return session[0]

    taken: set[str] = set()
    for vertex in plan.vertices:
        if vertex.id in taken:
            continue
        try:
            feed = _feed(plan, vertex, once, storage)
        except Untranslatable as reason:
            choice.reasons.setdefault(vertex.id, str(reason))
            continue
        choice.feeds[feed.consumer.id] = feed
        taken |= {feed.producer.id, feed.consumer.id}
    names = {vertex.id: vertex.name for vertex in plan.vertices}
    for vertex in plan.vertices:
        if vertex.id in taken:
            choice.reasons.pop(vertex.id, None)
        elif vertex.inputs and len(vertex.inputs) == 1:
            # Said of the vertex it reads from, which is where a feed would start; named,
            # not quoted, so that a long pipeline does not repeat it down every vertex.
            producer = vertex.inputs[0].producer
            if producer in choice.reasons and producer not in taken:
                choice.reasons[vertex.id] = f"its input, {names[producer]}, runs in Python"
        elif vertex.inputs:
            choice.reasons[vertex.id] = "it has several inputs"
    return choice


def _feed(
    plan: RunPlan,
    producer: VertexPlan,
    spark: Callable[[], SparkSession],
    storage: Storage | None,
) -> Feed:
    if producer.inputs:
        raise Untranslatable(
            "it reads another vertex's output; only a vertex that heads with a text or "
            "number source starts a SQL feed"
        )
    if producer.chained_sources:
        raise Untranslatable("it chains several sources")
    head = producer.node(producer.head)
    if head.kind not in TEXT_SOURCES | NUMBER_SOURCES:
        raise Untranslatable(f"{head.kind} is not read in SQL")
    if _has_faults(plan, producer):
        raise Untranslatable("injected faults run in Python")
    if not producer.outputs:
        raise Untranslatable("it sends nothing to another vertex")
    if len(producer.outputs) > 1:
        raise Untranslatable(f"it has {len(producer.outputs)} outputs, not one HASH edge")
    output = producer.outputs[0]
    if output.partitioner != "HASH":
        raise Untranslatable(f"its output is a {output.partitioner} edge, not a HASH one")
    consumer = plan.vertex(output.consumer)
    if len(consumer.inputs) != 1:
        raise Untranslatable(f"its consumer has {len(consumer.inputs)} inputs")
    if consumer.chained_sources:
        raise Untranslatable("its consumer chains a source")
    if _has_faults(plan, consumer):
        raise Untranslatable("its consumer has injected faults, which run in Python")
    fold_node = _fold_head(consumer)
    if plan.runtime_mode != "BATCH" and fold_node.kind not in WINDOW_FOLDS:
        # Time windows fire at the end of input in both modes; a keyed fold in STREAMING
        # mode emits every update.
        raise Untranslatable("keyed results are folded in SQL in BATCH mode only")
    key_text = consumer.inputs[0].key
    if key_text is None:
        raise Untranslatable("the HASH edge has no key")
    chain = _straight_chain(producer, head)
    frame, record, reader, unchecked = _source_frame(plan, producer, head, spark, storage)
    for node in chain:
        try:
            frame, record, unchecked = _operator(node, frame, record, unchecked)
        except Untranslatable as reason:
            raise Untranslatable(f"{node.label}: {reason}") from None
    fold, cells = _fold(fold_node, record)
    timestamp = _timestamp(fold_node, record) if fold.windows else None
    compile_expression(key_text, KEY_VARIABLES)  # checked by the planner already
    try:
        key_value = translate(key_text, {"x": record}, f"HASH edge into {fold_node.label}")
        key = as_struct(key_value)
    except Untranslatable as reason:
        raise Untranslatable(f"the key {key_text!r}: {reason}") from None
    read = {id(leaf) for leaf in leaves(key_value)} | {id(cell) for cell in cells if cell}
    if any(id(leaf) not in read for leaf in unchecked):
        frame = _checked(frame, unchecked)  # a value no aggregate reads: Spark would not compute it
    frame = _aggregate(frame, cells, key_value, key, fold, consumer, timestamp)
    body = _fed_consumer(consumer, fold_node if fold.aggregate else None)
    return Feed(producer, consumer, body, fold, frame, reader)


def _fed_consumer(consumer: VertexPlan, aggregate: NodePlan | None = None) -> VertexPlan:
    """The consumer as it runs over what its head would emit: the merged rows are already
    one folded record per key (a `count`'s `(key, count)`) or per key and window, in the
    order the head emits them at the end of input. So the head passes them on (a `map`
    of `x`), and nothing computes the key again from a record the fold changed; a window
    `aggregate`'s head gets its accumulator and gives its `result` (a `process`, which
    emits nothing for None, as the window does, and fails under the head's name)."""
    from runtime.chains import generate_chains

    head = consumer.node(consumer.head)
    passed = replace(head, kind="map", params={"fn": "x"})
    if aggregate is not None:
        passed = replace(head, kind="process", params={"fn": _of_x(aggregate, "result")})
    nodes = tuple(passed if node.id == head.id else node for node in consumer.nodes)
    inputs = tuple(replace(edge, key=None) for edge in consumer.inputs)
    body = replace(consumer, nodes=nodes, inputs=inputs)
    return replace(body, codes=generate_chains(body))


def _source_frame(
    plan: RunPlan,
    producer: VertexPlan,
    head: NodePlan,
    spark: Callable[[], SparkSession],
    storage: Storage | None,
) -> tuple[DataFrame, Value, int, list[Col]]:
    """The source's records as (`_src`, `_r0`...) rows, partition i subtask i, split as
    the source operator splits them; their value; the id of the RDD that makes them; the
    leaves of the value that may fail and that Spark is not yet made to compute."""
    from pyspark.sql import functions as F

    from runtime.operators.sources import number_splits
    from runtime.spark.javafns import available, number_frame, text_frame

    p = producer.parallelism
    if head.kind in TEXT_SOURCES:
        lines, reader = text_frame(spark(), _file_uris(plan, head, storage), p)
        frame = lines.select(F.col("subtask").alias("_src"), F.col("value").alias("_r0"))
        return frame, Col(F.col("_r0"), "str"), reader, []
    if head.kind == "source.sequence":
        first, last = int(head.params["from"]), int(head.params["to"])
    else:
        first, last = 0, int(head.params["count"]) - 1
    if last >= first and not (first >= -_LONG and last < _LONG - 1):
        raise Untranslatable("numbers beyond 64 bits are made in Python")
    session = spark()
    if not available(session, "NumberRanges"):
        raise Untranslatable("this Spark session predates the Java number source")
    numbers, reader = number_frame(session, number_splits(first, last, p))
    frame = numbers.select(F.col("subtask").alias("_src"), F.col("value").alias("_r0"))
    number = Col(F.col("_r0"), "int")
    if head.kind == "source.sequence":
        return frame, number, reader, []
    fallible: list[Column] = []
    try:
        value = translate(head.params["fn"], {"i": number}, head.label, fallible)
    except Untranslatable as reason:
        raise Untranslatable(f"{head.label}: {reason}") from None
    frame, record = _project(frame, value)
    return frame, record, reader, leaves(record) if fallible else []


def _file_uris(plan: RunPlan, head: NodePlan, storage: Storage | None) -> list[str]:
    """The URIs of the files a text source reads, in its order, on any scheme (the Java
    reader opens them with the context's Hadoop file systems). A path that cannot be
    listed runs in Python, whose source says what is wrong with it."""
    path = head.params["path"]
    try:
        if storage is None or data_location(plan.data_dir).is_local:
            return [file.as_uri() for file in list_files(plan.data_dir, path)]
        files = [file.uri for file in storage.list_files(path)]
    except (PathError, OSError) as error:
        raise Untranslatable(f"its files cannot be listed: {error}") from None
    if not files:  # an error there (`hadoop.source_reads`), which Python reports
        raise Untranslatable(f"{path!r} holds no files to read")
    return files


def _fold_head(consumer: VertexPlan) -> NodePlan:
    """The consumer's head, when it is a fold the aggregation merges exactly: the only
    kinds whose BATCH output is one record per key that folding the key's records in
    any grouping gives (`count`, `aggregate`, windows and the rest emit something else)."""
    head = consumer.node(consumer.head)
    if head.kind in WINDOW_FOLDS and head.params.get("assigner") not in TIME_WINDOWS:
        what = f"{head.kind} over {head.params.get('assigner')} windows"
        raise Untranslatable(f"its consumer heads with {head.label}, a {what}: {FOLDABLE}")
    if head.kind not in FOLDS | WINDOW_FOLDS:
        raise Untranslatable(f"its consumer heads with {head.label}, a {head.kind}: {FOLDABLE}")
    return head


def _operator(
    node: NodePlan, frame: DataFrame, record: Value, unchecked: list[Col]
) -> tuple[DataFrame, Value, list[Col]]:
    """One stateless operator of the producer's chain over the frame of its records, and
    the leaves of the record that may fail and that Spark is not yet made to compute
    (`_checked`): before an operator that could skip them, they are."""
    from pyspark.sql import functions as F

    if unchecked:
        frame = _checked(frame, unchecked)
    if node.kind == "filter":
        fallible: list[Column] = []
        test = translate(node.params["predicate"], {"x": record}, node.label, fallible)
        if not isinstance(test, Col) or test.kind != "bool":
            raise Untranslatable("the predicate is not a bool")
        condition = test.column
        if fallible or _CHECK in frame.columns:
            # Opaque to the optimizer: a filter it finds always false would skip the
            # rows before it, which Python's chain still computes.
            condition = F.call_function("sg_evaluated", condition)
        return frame.where(condition), record, []
    if node.kind == "map":
        computed: list[Column] = []
        value = translate(node.params["fn"], {"x": record}, node.label, computed)
        frame, record = _project(frame, value)
        return frame, record, leaves(record) if computed else []
    items = translate(node.params["fn"], {"x": record}, node.label)
    if not isinstance(items, Col) or items.kind != "strs":
        raise Untranslatable("a flat_map of something other than a split")
    frame = frame.select(*_kept(frame), F.explode(items.column).alias("_r0"))
    return frame, Col(F.col("_r0"), "str"), []


def _has_faults(plan: RunPlan, vertex: VertexPlan) -> bool:
    nodes = {n.id for n in vertex.nodes}
    return any(f.vertex == vertex.id or f.node in nodes for f in plan.faults)


def _straight_chain(vertex: VertexPlan, head: NodePlan) -> list[NodePlan]:
    """The operators after the head, one after the other up to the vertex's output."""
    chain: list[NodePlan] = []
    node = head
    while True:
        if len(node.outs) != 1 or node.outs[0].tag is not None:
            raise Untranslatable(f"{node.label} does not send to exactly one operator")
        out = node.outs[0]
        if out.output is not None:
            return chain
        assert out.node is not None
        node = vertex.node(out.node)
        if node.kind not in STATELESS:
            raise Untranslatable(f"{node.label}: {node.kind} is not run in SQL")
        chain.append(node)


def _project(frame: DataFrame, value: Value) -> tuple[DataFrame, Value]:
    from pyspark.sql import functions as F

    from runtime.spark.translate import rebuild

    cells = leaves(value)
    names = [f"_r{i}" for i in range(len(cells))]
    frame = frame.select(
        *_kept(frame), *[cell.column.alias(n) for cell, n in zip(cells, names, strict=True)]
    )
    return frame, rebuild(value, [F.col(n) for n in names])


def _checked(frame: DataFrame, unchecked: list[Col]) -> DataFrame:
    """`frame` with `_CHECK`: a test of every leaf in `unchecked` (values that may fail
    where Python raises), so that Spark computes them for every row, as Python's chain
    computes them, read or not. Without it Spark drops a value no one reads and moves a
    later filter before the projection. The test goes through `sg_evaluated`, which is
    nondeterministic (Spark moves no filter before it, folds it nowhere), and runs
    through to the aggregation, which reads it (so Spark keeps it)."""
    from pyspark.sql import functions as F

    tests = [leaf.column.isNull() for leaf in unchecked]
    if _CHECK in frame.columns:
        tests.append(F.col(_CHECK))
    test = tests[0] if len(tests) == 1 else F.greatest(*tests)  # computes them all
    others = [name for name in frame.columns if name != _CHECK]
    return frame.select(*others, F.call_function("sg_evaluated", test).alias(_CHECK))


_CHECK = "_check"
"""The column of the rows whose chain computed something that may fail (`_checked`)."""


def _kept(frame: DataFrame) -> list[Any]:
    """The columns every projection of the producer's rows keeps: the subtask, and the
    check of what may fail when there is one."""
    return ["_src", _CHECK] if _CHECK in frame.columns else ["_src"]


def _shape(value: Value) -> Shape:
    if isinstance(value, Col):
        return None
    return tuple(_shape(item) for item in value.items)


def _fold(node: NodePlan, record: Value) -> tuple[Fold, list[Col | None]]:
    """How `node` folds records of `record`'s shape, and the value of each record each
    leaf folds (None: a `keep` leaf); or Untranslatable."""
    if node.kind == "count":
        return Fold(None, (), count=True), []
    windows = _windows(node) if node.kind in WINDOW_FOLDS else None
    if node.kind == "window.aggregate":
        fold, values = _accumulator_fold(node, record)
        return replace(fold, windows=windows), values
    cells = leaves(record)
    if node.kind not in ("reduce", "window.reduce"):
        position = node.params.get("field")
        if position is None or position == "":
            if not isinstance(record, Col):
                raise Untranslatable(f"{node.label}: {node.kind} of a whole tuple")
            target = 0
        elif (
            isinstance(record, Tup)
            and str(position).isascii()
            and str(position).isdigit()
            and int(position) < len(cells)
        ):
            if any(isinstance(item, Tup) for item in record.items):
                raise Untranslatable(f"{node.label}: a nested tuple")
            target = int(position)
        else:
            raise Untranslatable(f"{node.label}: the field {position!r} is not a tuple position")
        kinds = ["first"] * len(cells)
        kinds[target] = node.kind
        fold = Fold(_shape(record), tuple(kinds))
    else:
        fold = _reduce_fold(node, record)
    _check_kinds(node, list(cells), fold.kinds)
    return replace(fold, windows=windows), list(cells)


def _check_kinds(node: NodePlan, cells: list[Col | None], kinds: tuple[str, ...]) -> None:
    for cell, kind in zip(cells, kinds, strict=True):
        if cell is None:
            continue
        if kind == "sum" and cell.kind != "int":
            raise Untranslatable(f"{node.label}: a sum of {cell.kind} (only ints sum exactly)")
        if kind in ("min", "max") and cell.kind not in ("int", "str"):
            raise Untranslatable(f"{node.label}: {kind} of {cell.kind}")


def _windows(node: NodePlan) -> Windows:
    size = node.params.get("sizeMs")
    slide = size if node.params["assigner"] == "tumbling_event_time" else node.params.get("slideMs")
    if type(size) is not int or type(slide) is not int or size <= 0 or slide <= 0:
        raise Untranslatable(f"{node.label}: a window size or slide that is not a positive int")
    if size >= _LONG >> 2 or slide >= _LONG >> 2:
        raise Untranslatable(f"{node.label}: windows too long for 64-bit arithmetic")
    return Windows(size, slide, node.params["assigner"] == "tumbling_event_time")


def _timestamp(node: NodePlan, record: Value) -> Col:
    """The event time of a record, as the window reads it (`int` milliseconds)."""
    try:
        value = translate(node.params["timestamp"], {"x": record}, node.label)
    except Untranslatable as reason:
        raise Untranslatable(f"{node.label}: the timestamp: {reason}") from None
    if not isinstance(value, Col) or value.kind != "int":
        raise Untranslatable(f"{node.label}: a timestamp that is not an int")
    return value


def _accumulator_fold(node: NodePlan, record: Value) -> tuple[Fold, list[Col | None]]:
    """A window aggregate whose `add` folds the accumulator leaf by leaf, each leaf kept
    (`acc[i]`) or the sum, max or min of itself and a value of the record (`acc[i] +
    v(x)`, `max(acc[i], v(x))`): merging per-group sums, maxima and minima into the zero
    gives what adding record after record gives."""
    try:
        zero = compile_expression(str(node.params["zero"]), ()).function()
    except Exception as error:  # its Python says what is wrong, at the first record
        raise Untranslatable(f"{node.label}: its zero raises {type(error).__name__}") from None
    leaves_of_zero = list(zero) if isinstance(zero, tuple) else [zero]
    if any(type(leaf) not in (int, str) for leaf in leaves_of_zero):
        raise Untranslatable(f"{node.label}: an accumulator of other than ints and text")
    body = ast.parse(str(node.params["add"]).strip(), mode="eval").body
    if isinstance(zero, tuple):
        if not isinstance(body, ast.Tuple) or len(body.elts) != len(zero):
            raise Untranslatable(f"{node.label}: the add does not build the accumulator")
        parts = [_accumulator_part(elt, i, record, node) for i, elt in enumerate(body.elts)]
    else:
        parts = [_accumulator_part(body, None, record, node)]
    kinds = tuple(kind for kind, _ in parts)
    values = [value for _, value in parts]
    _check_kinds(node, values, kinds)
    for leaf, kind, value in zip(leaves_of_zero, kinds, values, strict=True):
        if value is not None and type(leaf).__name__ != value.kind:
            raise Untranslatable(
                f"{node.label}: {kind} of a {type(leaf).__name__} and a {value.kind}"
            )
    shape = tuple(None for _ in zero) if isinstance(zero, tuple) else None
    return Fold(shape, kinds, zero=zero, aggregate=True), values


def _accumulator_part(
    expr: ast.expr, index: int | None, record: Value, node: NodePlan
) -> tuple[str, Col | None]:
    """`keep`, or the fold of one accumulator leaf and the record's value it folds in."""

    def is_leaf(part: ast.expr) -> bool:
        if index is None:
            return isinstance(part, ast.Name) and part.id == "acc"
        return (
            isinstance(part, ast.Subscript)
            and isinstance(part.value, ast.Name)
            and part.value.id == "acc"
            and isinstance(part.slice, ast.Constant)
            and type(part.slice.value) is int
            and part.slice.value == index
        )

    def value(part: ast.expr) -> Col:
        if any(isinstance(n, ast.Name) and n.id == "acc" for n in ast.walk(part)):
            raise Untranslatable(f"{node.label}: the add mixes the accumulator's leaves")
        translated = translate(ast.unparse(part), {"x": record}, node.label)
        if not isinstance(translated, Col):
            raise Untranslatable(f"{node.label}: the add folds a tuple into one leaf")
        return translated

    if is_leaf(expr):
        return "keep", None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        if is_leaf(expr.left):
            return "sum", value(expr.right)
        if is_leaf(expr.right):
            return "sum", value(expr.left)
    pair = _min_max_of_two(expr)
    if pair is not None:
        name, (first, second) = pair
        if is_leaf(first) != is_leaf(second):
            return name, value(second if is_leaf(first) else first)
    raise Untranslatable(f"{node.label}: the add does not fold the accumulator leaf by leaf")


def _of_x(node: NodePlan, param: str) -> str:
    """`node`'s expression `param` of `acc`, as an expression of `x` (for a `process`)."""
    tree = ast.parse(str(node.params[param]).strip(), mode="eval")
    if any(isinstance(n, ast.Name) and n.id == "x" for n in ast.walk(tree)):
        raise Untranslatable(f"{node.label}: its {param} names x")
    for name in ast.walk(tree):
        if isinstance(name, ast.Name) and name.id == "acc":
            name.id = "x"
    return ast.unparse(tree)


def _reduce_fold(node: NodePlan, record: Value) -> Fold:
    body = ast.parse(str(node.params["fn"]).strip(), mode="eval").body
    if isinstance(record, Col):
        return Fold(None, (_field_fold(body, None, node),))
    if any(isinstance(item, Tup) for item in record.items):
        raise Untranslatable(f"{node.label}: a nested tuple")
    if not isinstance(body, ast.Tuple) or len(body.elts) != len(record.items):
        raise Untranslatable(f"{node.label}: the reduce does not build the record field by field")
    kinds = tuple(_field_fold(elt, i, node) for i, elt in enumerate(body.elts))
    return Fold(_shape(record), kinds)


def _field_fold(expr: ast.expr, index: int | None, node: NodePlan) -> str:
    """`a[i]` first, `a[i] + b[i]` sum, `max(a[i], b[i])` / `min(...)`, else Untranslatable."""

    def operand(part: ast.expr) -> str | None:
        if index is None:
            return part.id if isinstance(part, ast.Name) else None
        if (
            isinstance(part, ast.Subscript)
            and isinstance(part.value, ast.Name)
            and isinstance(part.slice, ast.Constant)
            and part.slice.value == index
            and type(part.slice.value) is int
        ):
            return part.value.id
        return None

    if operand(expr) == "a":
        return "first"
    if (
        isinstance(expr, ast.BinOp)
        and isinstance(expr.op, ast.Add)
        and {operand(expr.left), operand(expr.right)} == {"a", "b"}
    ):
        return "sum"
    pair = _min_max_of_two(expr)
    if pair is not None and {operand(arg) for arg in pair[1]} == {"a", "b"}:
        return pair[0]
    raise Untranslatable(f"{node.label}: the reduce does not fold field by field")


def _min_max_of_two(expr: ast.expr) -> tuple[str, tuple[ast.expr, ast.expr]] | None:
    """`max(p, q)` or `min(p, q)`: the function's name and its two arguments."""
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id in ("max", "min")
        and len(expr.args) == 2
        and not expr.keywords
    ):
        return expr.func.id, (expr.args[0], expr.args[1])
    return None


def _aggregate(
    frame: DataFrame,
    cells: list[Col | None],
    key_value: Value,
    key: Any,
    fold: Fold,
    consumer: VertexPlan,
    timestamp: Col | None,
) -> DataFrame:
    from pyspark.sql import functions as F

    # Where a record came, as one long: its producer subtask (the partition) in the high
    # bits, its place in the subtask's output below; a long keeps Spark's hash aggregation.
    frame = frame.withColumn("_id", F.monotonically_increasing_id())
    ordering = F.col("_id")
    groups = [F.col("_src"), key.alias("_key")]
    counted = F.count(F.lit(1))
    if fold.windows is not None:
        assert timestamp is not None
        frame, counted = _in_windows(frame, timestamp, fold.windows)
        groups.append(F.col("_start"))
    aggregates = [counted.alias("_n"), F.min(ordering).alias("_first")]
    checked = _CHECK in frame.columns
    if checked:  # read, so that Spark computes it for every row
        aggregates.append(F.min(F.col(_CHECK)).alias("_ok"))
    in_key = _key_fields(key_value)
    fields = []
    for index, (cell, kind) in enumerate(zip(cells, fold.kinds, strict=True)):
        if cell is None:  # an accumulator's leaf the add keeps: the zero's
            fields.append(F.lit(None).alias(f"_f{index}"))
            continue
        column = cell.column
        if kind == "first" and id(cell) in in_key:
            # Equal for all the key's records: the key's own field, no aggregate.
            fields.append(in_key[id(cell)].alias(f"_f{index}"))
            continue
        fields.append(F.col(f"_f{index}"))
        if fold.windows is not None and not fold.windows.tumbling:
            # A record in no window adds nothing: its value is not computed (Python's
            # window never calls `add` for it).
            column = F.when(F.col("_start").isNotNull(), column)
        if kind == "first":
            folded = F.min_by(column, ordering)
        elif kind == "sum":
            folded = F.sum(column)
        else:
            folded = F.max(column) if kind == "max" else F.min(column)
        aggregates.append(folded.alias(f"_f{index}"))
    grouped = frame.groupBy(*groups).agg(*aggregates)
    p = consumer.parallelism
    subtask = F.call_function(
        "sg_subtask", F.col("_key"), F.lit(True), F.lit(consumer.max_parallelism), F.lit(p)
    )
    code = F.call_function("sg_partition_code", subtask, F.lit(p))
    placed = grouped.withColumn("_c", code).repartition(p, "_c")
    window = [F.col("_start")] if fold.windows is not None else []
    ok = ["_ok"] if checked else []
    return placed.select("_src", "_n", "_first", "_key", *window, *fields, *ok)


def _in_windows(frame: DataFrame, timestamp: Col, windows: Windows) -> tuple[DataFrame, Any]:
    """A row per record and window it falls in (`_start`), as `operators.windows` assigns
    them: the first starts at `t - (t + slide) % slide` (Java's `%`, Spark's too), the
    others a slide earlier each while they start after `t - size`. A record in no window (a slide
    longer than the size) keeps one row with no window, which counts it and folds into
    nothing. And what counts a record once: its first window's row."""
    from pyspark.sql import functions as F

    t = F.col("_t")
    size, slide = windows.size, windows.slide
    first = t - (t + F.lit(slide)) % F.lit(slide)
    frame = frame.withColumn("_t", timestamp.column)
    if windows.tumbling:
        return frame.withColumn("_start", first), F.count(F.lit(1))
    # Windows a timestamp can fall in: Java's `%` puts the first start after a negative
    # timestamp, by less than a slide (as Flink does), so one more than size / slide.
    most = -(-size // slide) + 1
    every = F.sequence(first, first - F.lit((most - 1) * slide), F.lit(-slide))
    starts = F.filter(every, lambda start: start > t - F.lit(size))
    frame = frame.withColumn("_ws", starts)
    frame = frame.withColumn("_start", F.explode_outer("_ws"))
    once = F.col("_start").isNull() | (F.col("_start") == F.element_at("_ws", 1))
    return frame, F.sum(F.when(once, 1).otherwise(0))


def _key_fields(key: Value) -> dict[int, Any]:
    """The record's leaves that are the key or one of its fields, by identity (`translate`
    hands a tuple's field on as the same object), to the grouped key's column for them:
    a string kept by `min_by` would make Spark sort to aggregate, not hash."""
    from pyspark.sql import functions as F

    fields: dict[int, Any] = {}

    def walk(part: Value, column: Any) -> None:
        if isinstance(part, Col):
            fields.setdefault(id(part), column)
            return
        for index, item in enumerate(part.items):
            walk(item, column.getField(f"_{index}"))

    walk(key, F.col("_key"))
    return fields


# -- in the Python workers ---------------------------------------------------------------


def _tuples(value: Any) -> Any:
    """Spark's rows as Python tuples (a struct key is a Row)."""
    if isinstance(value, tuple):
        return tuple(_tuples(item) for item in value)
    return value


def _build(shape: Shape, cells: Iterator[Any]) -> Any:
    if shape is None:
        return next(cells)
    return tuple(_build(part, cells) for part in shape)


class FedBody(VertexBody):
    """A consumer subtask over the rows of a feed: merged per key, in the order the keys
    first came, as records of the producer's shape; records in are the rows' counts."""

    def __init__(
        self,
        vertex: VertexPlan,
        fold: Fold,
        produced: Accumulator[dict[tuple[str, int], int]],
        offsets: tuple[int, ...] = (),
        summaries: Any = None,
        writes: tuple[tuple[int, int], ...] = (),
    ) -> None:
        super().__init__(vertex, offsets, summaries, writes=writes)
        self.fold = fold
        self.producer = vertex.inputs[0].producer
        self.produced = produced
        self.records_in = 0

    def open(
        self, subtask: int, attempt: int, records: Iterator[Any], meter: Meter
    ) -> tuple[SubtaskRun, Iterator[Any]]:
        run, _ = super().open(subtask, attempt, iter(()), meter)
        return run, self._merged(records)

    def execute(self, run: SubtaskRun, inputs: Iterator[Any], output: str) -> Iterator[Any]:
        yield from run.execute(inputs, batched_input=True, output=output)
        run.records_in = self.records_in

    def _merged(self, rows: Iterator[Any]) -> Iterator[tuple[int, list[Any]]]:
        fold = self.fold
        kinds = fold.kinds
        windows = fold.windows
        leaves_at = 4 if windows is None else 5
        width = len(kinds)  # then, maybe, the check of what may fail (`_project`)
        producer = self.producer
        produced: dict[tuple[str, int], int] = {}
        groups: dict[Any, list[Any]] = {}
        total = 0
        for spark_row in rows:
            # As a plain tuple: a Spark Row's own indexing is five times slower.
            row = tuple(spark_row)
            src, count, first, key = row[0], row[1], row[2], row[3]
            produced[producer, src] = produced.get((producer, src), 0) + count
            total += count
            if windows is None:
                group_key = key
            elif row[4] is None:  # records in no window: counted, folded into nothing
                continue
            else:
                group_key = (key, row[4])
            cells = list(row[leaves_at : leaves_at + width])
            group = groups.get(group_key)
            if group is None:
                groups[group_key] = [first, cells, count, group_key]
                continue
            group[2] += count
            earlier = first < group[0]
            if earlier:
                group[0] = first
            merged = group[1]
            for index, kind in enumerate(kinds):
                cell = cells[index]
                if kind == "first":
                    if earlier:
                        merged[index] = cell
                elif kind == "sum":
                    merged[index] += cell
                elif kind == "max":
                    merged[index] = max(merged[index], cell)
                elif kind == "min":
                    merged[index] = min(merged[index], cell)
        self.records_in = total
        self.produced.add(produced)
        if windows is None:  # in the order the keys first came
            ordered = sorted(groups.values(), key=lambda group: group[0])
        else:  # as windows fire: by end, start, then when the window was first seen
            size = windows.size
            ordered = sorted(
                groups.values(), key=lambda group: (group[3][1] + size, group[3][1], group[0])
            )
        batch: list[Any] = []
        for _, cells, count, group_key in ordered:
            batch.append(self._emitted(cells, count, group_key))
            if len(batch) >= BATCH:
                yield 0, batch
                batch = []
        if batch:
            yield 0, batch

    def _emitted(self, cells: list[Any], count: int, group_key: Any) -> Any:
        """What the head emits for a group: a count's `(key, count)` (`_fed_consumer`), a
        window aggregate's accumulator, or the folded record."""
        fold = self.fold
        if fold.count:
            return (_tuples(group_key), count)
        if fold.aggregate:
            zero = fold.zero
            start = list(zero) if isinstance(zero, tuple) else [zero]
            acc = [
                leaf
                if kind == "keep"
                else leaf + cell
                if kind == "sum"
                else max(leaf, cell)
                if kind == "max"
                else min(leaf, cell)
                for leaf, kind, cell in zip(start, fold.kinds, cells, strict=True)
            ]
            return tuple(acc) if isinstance(zero, tuple) else acc[0]
        return _tuples(_build(fold.shape, iter(cells)))


Produced = dict[tuple[str, int], int]
"""(producer vertex, subtask) -> records out."""


class ProducedCounts(AccumulatorParam[Produced]):
    """Records out per producer subtask, summed over the consumer's subtasks."""

    def zero(self, value: Produced) -> Produced:
        return {}

    def addInPlace(self, value1: Produced, value2: Produced) -> Produced:
        for key, count in value2.items():
            value1[key] = value1.get(key, 0) + count
        return value1


__all__ = [
    "Choice",
    "FedBody",
    "Feed",
    "Fold",
    "Produced",
    "ProducedCounts",
    "Untranslatable",
    "choose",
    "sql_session",
]
