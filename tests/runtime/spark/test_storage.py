"""Sources and sinks on Spark over data locations: `file:`, and another scheme reached
only through Spark's Hadoop file system layer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runtime.events import RunOutcome
from runtime.spark.session import Session
from tests.runtime.builders import Doc
from tests.runtime.spark.conftest import plan_of, run_spark


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


def test_a_failed_run_leaves_none_of_the_parts_its_finished_subtasks_wrote(
    spark: Session, tmp_path: Path
) -> None:
    plan = plan_of(sink_then_failure(), f"file://{tmp_path}")
    assert plan.vertices[0].sinks == (2,) and plan.vertices[0].outputs

    result = run_spark(spark, plan)

    assert result.outcome is RunOutcome.FAILED
    assert "ZeroDivisionError" in (result.error or "")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == []
