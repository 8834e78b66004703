"""Sources and sinks on Spark over data locations: `file:`, and another scheme reached
only through Spark's Hadoop file system layer."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runtime.events import RunOutcome
from runtime.spark.session import Session
from tests.runtime.builders import Doc
from tests.runtime.spark.conftest import plan_of, reported_stages, run_local, run_spark


def files(folder: Path) -> dict[str, bytes]:
    """The visible files below `folder`, by path."""
    found = {path.relative_to(folder): path for path in sorted(folder.rglob("*"))}
    return {
        inside.as_posix(): path.read_bytes()
        for inside, path in found.items()
        if path.is_file() and not any(part.startswith(".") for part in inside.parts)
    }


def sink_then_failure() -> dict[str, Any]:
    """`out` is written by the first vertex, which finishes; the second one fails."""
    return (
        Doc(parallelism=2)
        .node(1, "source.sequence", {"from": 1, "to": 6})
        .node(2, "sink.text", {"path": "out"})
        .node(3, "map", {"fn": "1 // (x - 6)"})
        .node(4, "sink.collect")
        .edge(1, 2)
        .edge(1, 3, "REBALANCE")
        .edge(3, 4)
        .build()
    )


@pytest.mark.parametrize("scheme", ["file", "viewfs"])
def test_a_failed_run_leaves_none_of_the_parts_its_finished_subtasks_wrote(
    spark: Session, tmp_path: Path, viewfs: Callable[[Path], str], scheme: str
) -> None:
    location = f"file://{tmp_path}" if scheme == "file" else viewfs(tmp_path)
    plan = plan_of(sink_then_failure(), location)
    assert plan.vertices[0].sinks == (2,) and plan.vertices[0].outputs

    result = run_spark(spark, plan)

    assert result.outcome is RunOutcome.FAILED
    assert "ZeroDivisionError" in (result.error or "")
    assert files(tmp_path) == {}
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".staging")] == []


# --- sources -------------------------------------------------------------------------------


def write_inputs(root: Path) -> None:
    """Files every kind of file source reads, with what makes splitting them hard."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (root / "text").mkdir(parents=True)
    lines = [f"line {n} " + "é" * (n % 7) + "x" * (n * 13 % 41) for n in range(60)]
    (root / "text" / "a.txt").write_text("\r\n".join(lines) + "\r\n", encoding="utf-8")
    (root / "text" / "b,c[1].txt").write_bytes("\ufeffbom first\nsecond\n\nlast".encode())
    (root / "text" / "c.txt.gz").write_text("not compressed\nread as it is\n")
    (root / "text" / "d.txt").write_bytes(b"")
    # Invalid UTF-8, which Python replaces byte by byte and Java's decoder otherwise.
    (root / "text" / "e.txt").write_bytes(b"\xed\xa0\x80 surrogate\n\xe2\x82 cut\n\xff\xfe\n")
    (root / "text" / "_ignored.txt").write_text("no\n")
    (root / "text" / ".hidden").write_text("no\n")
    (root / "rows.jsonl").write_text('{"n": 1}\n\n[2, 3]\n  \n"four"\n' * 9)
    (root / "csv").mkdir()
    (root / "csv" / "1.csv").write_text('name,note\nann,"two\nlines"\r\nbob,plain\n')
    (root / "csv" / "2.csv").write_text("name,note\rcy,old mac\r")
    (root / "csv" / "3.csv").write_text("name,note\ndee,x\n")
    (root / "parquet").mkdir()
    for index, rows in enumerate((7, 3)):
        table = pa.table({"id": list(range(rows)), "file": [index] * rows})
        pq.write_table(table, root / "parquet" / f"{index}.parquet", row_group_size=2)


def sources() -> dict[str, Any]:
    doc = Doc(parallelism=3)
    for node, (kind, path) in enumerate(
        [
            ("source.text", "text"),
            ("source.json", "rows.jsonl"),
            ("source.csv", "csv"),
            ("source.parquet", "parquet"),
        ],
        start=1,
    ):
        doc.node(node, kind, {"path": path}).node(node + 10, "sink.collect").edge(node, node + 10)
    return doc.build()


def previews(result: Any) -> dict[tuple[int, int], tuple[str, ...]]:
    """What each sink subtask received, in the order it did."""
    assert all(not s.truncated for s in result.sinks)
    return {(s.node, s.subtask): s.preview for s in result.sinks}


def test_sources_give_each_subtask_the_same_records_on_every_scheme(
    spark: Session, tmp_path: Path, viewfs: Callable[[Path], str]
) -> None:
    write_inputs(tmp_path / "data")
    reference = run_local(plan_of(sources(), tmp_path / "data"))
    assert reference.outcome is RunOutcome.FINISHED, reference.error
    assert previews(run_local(plan_of(sources(), f"file://{tmp_path}/data"))) == previews(reference)

    local = run_spark(spark, plan_of(sources(), f"file://{tmp_path}/data"))
    plan = plan_of(sources(), viewfs(tmp_path / "data"))
    hadoop = run_spark(spark, plan)

    assert local.outcome is RunOutcome.FINISHED, local.error
    assert hadoop.outcome is RunOutcome.FINISHED, hadoop.error
    assert previews(local) == previews(reference)
    assert previews(hadoop) == previews(reference)
    assert '"\ufeffbom first"' in previews(reference)[11, 0]  # as Python reads it
    read = [text for preview in previews(reference).values() for text in preview]
    assert '"\ufffd\ufffd\ufffd surrogate"' in read and '"\ufffd cut"' in read
    # Stages of their own read each source's files before the vertices that read them.
    stages = reported_stages(plan, hadoop).stages
    assert sorted([r.node for r in s.reads] for s in stages) == [[], [1], [2], [3], [4]]
    assert stages[-1].after == (1, 2, 3, 4)


# --- sinks ---------------------------------------------------------------------------------


def sinks() -> dict[str, Any]:
    """Text, CSV and JSON lines sinks, one chained behind a vertex that sends on, and a
    subtask that receives no records."""
    return (
        Doc(parallelism=3)
        .node(1, "source.sequence", {"from": 1, "to": 2500})
        .node(2, "map", {"fn": "{'n': x, 'text': f'é,\"{x}\"\\nline ' * (x % 3)}"})
        .node(3, "sink.text", {"path": "out/text"})
        .node(4, "sink.json", {"path": "out/json"}, parallelism=2)
        .node(5, "filter", {"predicate": "x['n'] % 2 == 0"})
        .node(6, "sink.csv", {"path": "out/csv"}, parallelism=5)
        .node(7, "map", {"fn": "x['n']"})
        .node(8, "sink.collect")
        .edge(1, 2)
        .edge(2, 3)
        .edge(2, 4, "REBALANCE")
        .edge(2, 5)
        .edge(5, 6, "HASH", key="x['n'] % 3")
        .edge(2, 7)
        .edge(7, 8)
        .build()
    )


def test_sinks_write_the_same_files_on_every_scheme(
    spark: Session, tmp_path: Path, viewfs: Callable[[Path], str]
) -> None:
    for name in ("reference", "uri", "local", "hadoop"):
        (tmp_path / name / "out" / "csv").mkdir(parents=True)
        for subtask in range(5):
            stale = tmp_path / name / "out" / "csv" / f"part-{subtask}.csv"
            stale.write_text("an earlier run's\n")
    reference = run_local(plan_of(sinks(), tmp_path / "reference"))
    assert reference.outcome is RunOutcome.FINISHED, reference.error
    assert run_local(plan_of(sinks(), f"file://{tmp_path}/uri")).outcome is RunOutcome.FINISHED

    local = run_spark(spark, plan_of(sinks(), f"file://{tmp_path}/local"))
    plan = plan_of(sinks(), viewfs(tmp_path / "hadoop"))
    hadoop = run_spark(spark, plan)

    assert local.outcome is RunOutcome.FINISHED, local.error
    assert hadoop.outcome is RunOutcome.FINISHED, hadoop.error
    expected = files(tmp_path / "reference")
    assert 0 < len([f for f in expected if f.startswith("out/csv/")]) < 5  # 3 keys
    assert files(tmp_path / "uri") == expected
    assert files(tmp_path / "local") == expected
    assert files(tmp_path / "hadoop") == expected
    assert sorted(os.listdir(tmp_path / "hadoop")) == ["out"]  # no staging left
    writes = reported_stages(plan, hadoop).stages[-1].writes
    assert sorted(w.node for w in writes) == [3, 4, 6]  # the last stage wrote every part
    told = sorted((s.node, s.subtask, s.files) for s in reference.sinks)
    assert sorted((s.node, s.subtask, s.files) for s in local.sinks) == told
    assert sorted((s.node, s.subtask, s.files) for s in hadoop.sinks) == told


def test_a_source_chained_into_a_head_reads_beside_its_network_input(
    spark: Session, tmp_path: Path, viewfs: Callable[[Path], str]
) -> None:
    (tmp_path / "in.txt").write_text("".join(f"line {n}\n" for n in range(40)))
    doc = (
        Doc(parallelism=2)
        .node(1, "source.text", {"path": "in.txt"})
        .node(2, "source.sequence", {"from": 10, "to": 29})
        .node(3, "co_map", {"fn1": "x", "fn2": "x.upper()"}, strategy="HEAD_WITH_SOURCES")
        .node(4, "sink.collect")
        .node(5, "sink.collect")
        .edge(2, 3, "REBALANCE", type_number=1)
        .edge(1, 3, type_number=2)
        .edge(3, 4)
        .edge(2, 5, "REBALANCE")  # a second output: its range into the head moves again
        .build()
    )
    plan = plan_of(doc, viewfs(tmp_path))
    head = next(v for v in plan.vertices if v.chained_sources)
    assert [n.id for n in head.chained_sources] == [1] and len(head.inputs) == 1

    result = run_spark(spark, plan)

    assert result.outcome is RunOutcome.FINISHED, result.error
    assert previews(result) == previews(run_local(plan_of(doc, tmp_path)))
    first = previews(result)[4, 0]
    assert first[0] == '"LINE 0"' and first[-1].isdigit()  # its lines, then its numbers
    reported_stages(plan, result)
