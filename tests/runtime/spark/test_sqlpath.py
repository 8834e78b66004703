"""Vertices run as Spark SQL give exactly what their Python chains give: per-subtask
records in and out, subtask states, and every sink's output, previews in order."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_document
from runtime.events import ExecutionState, RunOutcome, RunResult, SubtaskEvent
from runtime.local import run_locally
from runtime.plan import RunPlan
from runtime.planner import RunOptions, build_run_plan
from runtime.spark.session import Session
from runtime.spark.sqlpath import FOLDABLE
from tests.runtime.builders import Doc
from tests.runtime.spark.conftest import monitor_of, run_spark

TEXT = (
    "to be or not to be that is the question Whether tis Nobler in the mind to suffer "
    "the Slings and arrows of outrageous fortune Straße straße ÉTÉ été naïve 日本語 😀 "
    "a bb ccc dddd eeeee ffffff"
)
WORDS = TEXT.split(" ")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sql-data")
    lines = []
    for index in range(900):
        words = [WORDS[(index * 7 + k * k) % len(WORDS)] for k in range(index % 9)]
        spaces = ["  ", " ", "\t", " \u00a0"][index % 4]
        lines.append(spaces.join(words) + ("\r" if index % 5 == 0 else ""))
    text = "\n".join(lines)
    (folder / "words").mkdir()
    (folder / "words" / "a.txt").write_text(text[: len(text) // 3], "utf-8")
    (folder / "words" / "b.txt").write_text(text[len(text) // 3 :] + "\n", "utf-8")
    amounts = ["7", " 42 ", "+3", "-12", "1_000", "٣", "0007", "\u00a05"]
    rows = [
        f"{WORDS[i % len(WORDS)]},i{i % 13},{amounts[i % len(amounts)]},{1_700_000_000 + i}"
        for i in range(700)
    ]
    (folder / "rows").mkdir()
    (folder / "rows" / "events.csv").write_text("\n".join(rows) + "\n", "utf-8")
    (folder / "bad").mkdir()
    rows[500] = "late,i1,x7,0"
    (folder / "bad" / "events.csv").write_text("\n".join(rows) + "\n", "utf-8")
    return folder


def document(
    record: str, key: str, fold: tuple[str, dict[str, Any]], *, keep: str | None = None
) -> dict[str, Any]:
    doc = (
        Doc(parallelism=3, mode="BATCH")
        .node(1, "source.text", {"path": "words"})
        .node(2, "flat_map", {"fn": "x.lower().split()"})
        .edge(1, 2)
    )
    last = 2
    if keep is not None:
        doc = doc.node(4, "filter", {"predicate": keep}).edge(2, 4)
        last = 4
    return (
        doc.node(3, "map", {"fn": record})
        .node(5, fold[0], fold[1], parallelism=4)
        .node(6, "sink.collect", parallelism=4)
        .edge(last, 3)
        .edge(3, 5, "HASH", key=key)
        .edge(5, 6)
        .build()
    )


Step = tuple[str, dict[str, Any]]
"""An operator's kind and parameters."""


def feed(source: Step, chain: list[Step], key: str, head: Step) -> dict[str, Any]:
    """`source` and `chain` at parallelism 3, a HASH edge on `key` into `head` and a sink
    at 2, in BATCH mode."""
    doc = Doc(parallelism=3, mode="BATCH").node(1, *source)
    last = 1
    for number, (kind, params) in enumerate(chain, start=10):
        doc = doc.node(number, kind, params).edge(last, number)
        last = number
    return (
        doc.node(5, *head, parallelism=2)
        .node(6, "sink.collect", parallelism=2)
        .edge(last, 5, "HASH", key=key)
        .edge(5, 6)
        .build()
    )


def plan(doc: dict[str, Any], data_dir: Path | str, preview: int = 10_000) -> RunPlan:
    options = RunOptions(data_dir=str(data_dir), preview_size=preview, seed=7)
    return build_run_plan(doc, compile_document(doc), options)


def sinks(result: RunResult) -> list[tuple[int, int, int, tuple[str, ...], bool]]:
    return [(s.node, s.subtask, s.records, s.preview, s.truncated) for s in result.sinks]


def both(spark: Session, run_plan: RunPlan, run_events: Any) -> tuple[RunResult, RunResult]:
    """The plan run by Python chains only, then with the SQL path: the same subtask
    states and records in and out, as the monitor shows them."""
    logs = [run_events(), run_events()]
    python = run_spark(spark, run_plan, logs[0], sql=False)
    sql = run_spark(spark, run_plan, logs[1])
    assert python.outcome is RunOutcome.FINISHED, python.error
    assert sql.outcome is RunOutcome.FINISHED, sql.error
    assert set(python.details["engines"].values()) == {"python"}
    shown = []
    for log in logs:
        monitor = monitor_of(run_plan, log.settle())
        assert monitor.all_terminal()
        shown.append(
            {
                (v.id, i): (
                    monitor.subtask_state(v.id, i),
                    monitor.subtask_json(v.id, i)["recordsIn"],
                    monitor.subtask_json(v.id, i)["recordsOut"],
                )
                for v in run_plan.vertices
                for i in range(v.parallelism)
            }
        )
    assert shown[1] == shown[0]
    assert {state for state, _, _ in shown[1].values()} == {ExecutionState.FINISHED}
    return python, sql


CASES = {
    "str": ("(x, 1)", "x[0]", ("reduce", {"fn": "(a[0], a[1] + b[1])"})),
    "int": ("(len(x), 1)", "x[0]", ("reduce", {"fn": "(a[0], b[1] + a[1])"})),
    "negative int": ("(3 - len(x), x)", "x[0]", ("reduce", {"fn": "(a[0], max(a[1], b[1]))"})),
    "long": ("(len(x) * 10000000000 - 7, 1)", "x[0]", ("sum", {"field": 1})),
    "bool": ("(len(x) > 3, len(x))", "x[0]", ("reduce", {"fn": "(a[0], min(a[1], b[1]))"})),
    "tuple": ("(x, len(x), 1)", "(x[1], x[0])", ("reduce", {"fn": "(a[0], a[1], a[2] + b[2])"})),
    "scalar": ("len(x)", "x % 5", ("reduce", {"fn": "a"})),
    "first of others": ("(x.upper(), len(x), x)", "x[1]", ("max", {"field": 2})),
    "count": ("x", "x", ("count", {})),
    "count by a constant": ("x", "0", ("count", {})),
    "count by a tuple": ("(x, len(x))", "(x[1], x[0])", ("count", {})),
    "count by a computed value": ("(len(x), x)", "x[0] % 3 == 1", ("count", {})),
    "key of a sum": ("(x, len(x))", "x[1]", ("reduce", {"fn": "(a[0], a[1] + b[1])"})),
    "scalar sum by its value": ("len(x)", "x % 4", ("sum", {})),
}


@pytest.mark.parametrize("case", list(CASES))
def test_both_paths_give_the_same_run(
    spark: Session, data: Path, run_events: Any, case: str
) -> None:
    record, key, fold = CASES[case]
    run_plan = plan(document(record, key, fold, keep="len(x) != 2"), data, preview=7)
    python, sql = both(spark, run_plan, run_events)
    engines = [sql.details["engines"][v.id] for v in run_plan.vertices]
    assert engines == ["sql", "sql"], sql.engines
    assert [(e.vertex, e.engine, e.reason) for e in sql.engines] == [
        (v.id, "sql", None) for v in run_plan.vertices
    ]
    assert sql.details["subtasks"] == python.details["subtasks"]
    assert sinks(sql) == sinks(python)
    if case == "str":
        assert any(truncated for *_, truncated in sinks(sql))  # previews in order, cut alike


def test_sql_vertices_report_states_and_exact_counts(
    spark: Session, data: Path, run_events: Any
) -> None:
    run_plan = plan(document(*CASES["str"]), data)
    events: list[SubtaskEvent] = []
    reference = run_locally(run_plan, events.append)
    log = run_events()
    result = run_spark(spark, run_plan, log)
    assert result.outcome is RunOutcome.FINISHED, result.error
    assert [result.details["engines"][v.id] for v in run_plan.vertices] == ["sql", "sql"]
    counts = {
        (e.vertex, e.subtask): [e.records_in, e.records_out]
        for e in events
        if e.state is ExecutionState.FINISHED
    }
    assert [(n, s, r, sorted(p)) for n, s, r, p, _ in sinks(result)] == [
        (n, s, r, sorted(p)) for n, s, r, p, _ in sinks(reference)
    ]
    monitor = monitor_of(run_plan, log.settle())
    assert monitor.all_terminal()
    for vertex in run_plan.vertices:
        for subtask in range(vertex.parallelism):
            shown = monitor.subtask_json(vertex.id, subtask)
            assert monitor.subtask_state(vertex.id, subtask) is ExecutionState.FINISHED
            assert [shown["recordsIn"], shown["recordsOut"]] == counts[vertex.id, subtask]
    producer = run_plan.vertices[0]
    seen = {(e.source, e.state.value) for e in log.of(producer.id, 0)}
    assert {("listener", "DEPLOYING"), ("listener", "RUNNING"), ("driver", "FINISHED")} <= seen
    assert ("listener", "FINISHED") not in seen  # the driver ends it, with its counts


NUMBERS = {
    "sequence": (
        ("source.sequence", {"from": -50, "to": 2000}),
        [("map", {"fn": "x * 7 - 3"}), ("filter", {"predicate": "x % 5 != 0"})],
        "x % 17",
        ("sum", {}),
    ),
    "generator": (
        ("source.generator", {"count": 1500, "fn": "(i % 13, str(i), i)"}),
        [],
        "x[0]",
        ("count", {}),
    ),
    "fewer numbers than subtasks": (
        ("source.sequence", {"from": 1, "to": 2}),
        [],
        "x",
        ("reduce", {"fn": "a + b"}),
    ),
    "no numbers": (("source.generator", {"count": 0, "fn": "i"}), [], "x", ("max", {})),
}


@pytest.mark.parametrize("case", list(NUMBERS))
def test_number_sources_run_in_sql_alike(
    spark: Session, data: Path, run_events: Any, case: str
) -> None:
    source, chain, key, head = NUMBERS[case]
    run_plan = plan(feed(source, chain, key, head), data, preview=9)
    python, sql = both(spark, run_plan, run_events)
    assert [sql.details["engines"][v.id] for v in run_plan.vertices] == ["sql", "sql"]
    assert sql.details["subtasks"] == python.details["subtasks"]
    assert sinks(sql) == sinks(python)


FIELDS = {
    "sum of an int of a field": (
        [("map", {"fn": "x.split(',')"}), ("map", {"fn": "(x[0], int(x[2]))"})],
        "x[0]",
        ("sum", {"field": 1}),
    ),
    "a list as the record": (
        [("map", {"fn": "x.split(',')"}), ("filter", {"predicate": "len(x[0]) > 2"})],
        "x[-3]",
        ("reduce", {"fn": "a"}),
    ),
    "items from the end": (
        [("map", {"fn": "(x.split(',')[-1], int(x.split(',')[-2].strip()) % 4)"})],
        "x[1]",
        ("count", {}),
    ),
}


@pytest.mark.parametrize("case", list(FIELDS))
def test_fields_of_split_lines_run_in_sql_alike(
    spark: Session, data: Path, run_events: Any, case: str
) -> None:
    chain, key, head = FIELDS[case]
    run_plan = plan(feed(("source.text", {"path": "rows"}), chain, key, head), data, preview=20)
    python, sql = both(spark, run_plan, run_events)
    assert [sql.details["engines"][v.id] for v in run_plan.vertices] == ["sql", "sql"]
    assert sql.details["subtasks"] == python.details["subtasks"]
    assert sinks(sql) == sinks(python)


@pytest.mark.parametrize(
    "after",
    [
        [("filter", {"predicate": "len(x[0]) > 100"})],  # drops every record after the map
        [("map", {"fn": "x[0]"})],  # reads nothing of the int
        [("map", {"fn": "(x[0], 1)"}), ("filter", {"predicate": "x[1] > 5"})],
        [],  # a count reads no field; the key is a constant
    ],
)
def test_what_python_raises_before_a_filter_or_an_unread_field_fails_in_sql_too(
    spark: Session, data: Path, run_events: Any, after: list[Step]
) -> None:
    """Spark may move a filter before a projection and drop a projected value no one
    reads; Python's chain runs the map for every record it receives all the same."""
    chain = [("map", {"fn": "(x.split(',')[0], int(x.split(',')[2]))"}), *after]
    run_plan = plan(feed(("source.text", {"path": "bad"}), chain, "0", ("count", {})), data)
    results = [run_spark(spark, run_plan, run_events(), sql=sql) for sql in (False, True)]
    assert [r.outcome for r in results] == [RunOutcome.FAILED, RunOutcome.FAILED]
    assert set(results[1].details["engines"].values()) == {"sql"}
    assert results[1].error == results[0].error


def test_an_int_python_cannot_read_fails_the_run_in_sql_too(
    spark: Session, data: Path, run_events: Any
) -> None:
    doc = (
        Doc(parallelism=3, mode="BATCH")
        .node(1, "source.text", {"path": "bad"})
        .node(2, "map", {"fn": "(x.split(',')[0], int(x.split(',')[2]))"})
        .node(3, "sum", {"field": 1}, parallelism=2)
        .node(4, "sink.collect", parallelism=2)
        .edge(1, 2)
        .edge(2, 3, "HASH", key="x[0]")
        .edge(3, 4)
        .build()
    )
    run_plan = plan(doc, data)
    results = [run_spark(spark, run_plan, run_events(), sql=sql) for sql in (False, True)]
    assert [r.outcome for r in results] == [RunOutcome.FAILED, RunOutcome.FAILED]
    assert set(results[1].details["engines"].values()) == {"sql"}
    assert results[1].error == results[0].error
    assert "Map (node 2): ValueError: invalid literal for int() with base 10: 'x7'" in (
        results[1].error or ""
    )


WINDOWS = {
    "tumbling reduce": (
        "BATCH",
        {"assigner": "tumbling_event_time", "sizeMs": 60, "fn": "(a[0], a[1] + b[1], a[2])"},
    ),
    "tumbling aggregate, STREAMING": (
        "STREAMING",
        {
            "assigner": "tumbling_event_time",
            "sizeMs": 45,
            **{"zero": "(0, 0, '')", "add": "(acc[0] + 1, x[1] + acc[1], max(acc[2], x[0]))"},
            "result": "(acc[2], acc[0], acc[1]) if acc[1] % 4 else None",
        },
    ),
    "sliding aggregate": (
        "BATCH",
        {
            "assigner": "sliding_event_time",
            **{"sizeMs": 50, "slideMs": 20, "zero": "0", "add": "acc + 1", "result": "acc"},
        },
    ),
    "sliding with gaps, STREAMING": (
        "STREAMING",
        {
            "assigner": "sliding_event_time",
            **{"sizeMs": 7, "slideMs": 20, "fn": "(a[0], min(a[1], b[1]), max(b[2], a[2]))"},
        },
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(WINDOWS))
def test_event_time_windows_fold_in_sql_alike(
    spark: Session, data: Path, run_events: Any, case: str
) -> None:
    mode, params = WINDOWS[case]
    kind = "window.aggregate" if "add" in params else "window.reduce"
    fn = "(x.split(',')[0], int(x.split(',')[2]), int(x.split(',')[3]) % 997 - 300)"
    doc = (
        Doc(parallelism=3, mode=mode)
        .node(1, "source.text", {"path": "rows"})
        .node(2, "map", {"fn": fn})
        .node(3, kind, {**params, "timestamp": "x[2] * 3"}, parallelism=2)
        .node(4, "sink.collect", parallelism=2)
        .edge(1, 2)
        .edge(2, 3, "HASH", key="x[0]")
        .edge(3, 4)
        .build()
    )
    run_plan = plan(doc, data, preview=30)
    python, sql = both(spark, run_plan, run_events)
    assert [sql.details["engines"][v.id] for v in run_plan.vertices] == ["sql", "sql"]
    assert sql.details["subtasks"] == python.details["subtasks"]
    assert sinks(sql) == sinks(python)
    assert sum(records for _, _, records, _, _ in sinks(sql)) > 20


def test_a_feed_reads_and_writes_on_another_scheme_alike(
    spark: Session, data: Path, run_events: Any, viewfs: Callable[[Path], str], tmp_path: Path
) -> None:
    """On a location only Hadoop's file systems reach, the text source is read in the JVM
    and the consumer's file sink writes through Hadoop, as the Python path does."""
    folders = {}
    for path in ("python", "sql"):
        folders[path] = tmp_path / path
        shutil.copytree(data, folders[path])
    document = (
        Doc(parallelism=3, mode="BATCH")
        .node(1, "source.text", {"path": "words"})
        .node(2, "flat_map", {"fn": "x.split()"})
        .node(3, "count", {}, parallelism=2)
        .node(4, "sink.text", {"path": "out"}, parallelism=2)
        .edge(1, 2)
        .edge(2, 3, "HASH", key="x")
        .edge(3, 4)
        .build()
    )
    results = {}
    for path, sql in (("python", False), ("sql", True)):
        run_plan = plan(document, viewfs(folders[path]))
        results[path] = run_spark(spark, run_plan, run_events(), sql=sql)
        assert results[path].outcome is RunOutcome.FINISHED, results[path].error
    assert set(results["sql"].details["engines"].values()) == {"sql"}
    assert results["sql"].details["subtasks"] == results["python"].details["subtasks"]
    written = {
        path: {f.name: f.read_bytes() for f in (folder / "out").iterdir()}
        for path, folder in folders.items()
    }
    assert written["sql"] == written["python"]
    assert sum(len(text.splitlines()) for text in written["sql"].values()) > 30


def test_an_empty_folder_on_another_scheme_fails_alike(
    spark: Session, run_events: Any, viewfs: Callable[[Path], str], tmp_path: Path
) -> None:
    (tmp_path / "words").mkdir()
    run_plan = plan(document("(x, 1)", "x[0]", ("sum", {"field": 1})), viewfs(tmp_path))
    results = [run_spark(spark, run_plan, run_events(), sql=sql) for sql in (False, True)]
    assert [r.outcome for r in results] == [RunOutcome.FAILED, RunOutcome.FAILED]
    assert results[1].error == results[0].error
    assert "holds no files to read" in (results[1].error or "")


FALLBACKS = {
    "product": ("(x, 1)", "x[0]", ("reduce", {"fn": "(a[0], a[1] * b[1])"})),
    "float sum": ("(x, 0.5)", "x[0]", ("reduce", {"fn": "(a[0], a[1] + b[1])"})),
    "division": ("(x, len(x) / 2)", "x[0]", ("reduce", {"fn": "(a[0], a[1])"})),
}


@pytest.mark.parametrize("case", list(FALLBACKS))
def test_what_does_not_translate_runs_in_python_alike(
    spark: Session, data: Path, run_events: Any, case: str
) -> None:
    run_plan = plan(document(*FALLBACKS[case]), data)
    python, sql = both(spark, run_plan, run_events)
    assert set(sql.details["engines"].values()) == {"python"}
    assert all(e.engine == "python" and e.reason for e in sql.engines)
    producer, consumer = sql.engines
    name = next(v.name for v in run_plan.vertices if v.id == producer.vertex)
    assert producer.reason and consumer.reason == f"its input, {name}, runs in Python"
    assert sql.details["subtasks"] == python.details["subtasks"]
    assert sorted(sinks(sql)) == sorted(sinks(python))


# Consumers the aggregation must not fold: each once gave one record (or none) on the SQL
# path where Python gave one per word, with a key that reads no field of the record.
NOT_FOLDS = {
    "aggregate": ("x", "0", ("aggregate", {"zero": "0", "add": "acc + 1", "result": "acc"})),
    "keyed_process": ("x", "'all'", ("keyed_process", {"fn": "x"})),
    "map": ("x", "0", ("map", {"fn": "x.upper()"})),
    "window.reduce": (
        "(x, 1)",
        "0",
        ("window.reduce", {"assigner": "count_tumbling", "size": 50, "fn": "(a[0], a[1] + b[1])"}),
    ),
}


@pytest.mark.parametrize("case", list(NOT_FOLDS))
def test_a_consumer_that_is_not_a_fold_runs_in_python(
    spark: Session, data: Path, run_events: Any, case: str
) -> None:
    record, key, (kind, params) = NOT_FOLDS[case]
    run_plan = plan(document(record, key, (kind, params)), data)
    python, sql = both(spark, run_plan, run_events)
    assert set(sql.details["engines"].values()) == {"python"}
    producer, _ = sql.engines
    what = f"{kind} over {params['assigner']} windows" if "assigner" in params else kind
    assert producer.reason == (
        f"its consumer heads with {run_plan.vertices[1].node(5).label}, a {what}: {FOLDABLE}"
    )
    assert sql.details["subtasks"] == python.details["subtasks"]
    assert sinks(sql) == sinks(python)


@pytest.mark.parametrize(
    ("size", "slide", "tumbling"),
    [
        *((50, 20, False), (7, 20, False), (60, 60, False), (60, 60, True), (30, 7, False)),
        *((1, 1, False), (1, 1, True), (5, 3, False), (20, 10, False)),
    ],
)
def test_records_fall_in_the_windows_the_window_operator_assigns(
    spark: Session, size: int, slide: int, tumbling: bool
) -> None:
    """Every timestamp's windows (none, for a gap between sliding windows) as
    `operators.windows` assigns them: negative timestamps too, whose first window starts
    after them (Java's `%`, as Flink's)."""
    from pyspark.sql import functions as F

    from runtime.operators.windows import window_start
    from runtime.spark.sqlpath import Windows, _in_windows
    from runtime.spark.translate import Col

    stamps = [*range(-130, 131), -(10**15) - 1, 10**15 + 7]
    frame = spark.spark.createDataFrame([(t,) for t in stamps], "t bigint")
    assigned, _ = _in_windows(frame, Col(F.col("t"), "int"), Windows(size, slide, tumbling))
    got: dict[int, set[int | None]] = {}
    for row in assigned.select("t", "_start").collect():
        got.setdefault(row["t"], set()).add(row["_start"])
    for t in stamps:
        expected: set[int | None] = {window_start(t, size)} if tumbling else set()
        start = window_start(t, slide)
        while not tumbling and start > t - size:
            expected.add(start)
            start -= slide
        assert got[t] == (expected or {None}), t
