"""The local executor: events like the Spark side's, retries, failures, cancel, fixtures."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from compiler.diagnostics import Severity
from compiler.pipeline import compile_document
from runtime.catalog import runnability
from runtime.events import ExecutionState, RunOutcome, SubtaskEvent
from runtime.local import run_locally
from runtime.plan import Fault, RunOptions, build_run_plan
from tests.runtime.builders import Doc, run, sink_records

FIXTURES = sorted(
    (Path(__file__).resolve().parents[1] / "compiler" / "data" / "fixtures").glob(
        "*.streamgraph.json"
    )
)
S = ExecutionState


def pipeline(parallelism: int = 2) -> dict[str, Any]:
    return (
        Doc(parallelism=parallelism)
        .node(1, "source.sequence", {"from": 1, "to": 100})
        .node(2, "map", {"fn": "x * 2"})
        .node(3, "reduce", {"fn": "a + b"})
        .node(4, "sink.collect")
        .edge(1, 2)
        .edge(2, 3, "HASH", key="x % 4")
        .edge(3, 4)
        .build()
    )


def states(events: list[SubtaskEvent], vertex: str, subtask: int) -> list[tuple[int, S]]:
    return [(e.attempt, e.state) for e in events if e.vertex == vertex and e.subtask == subtask]


def test_every_subtask_is_created_first_then_runs_to_finished(tmp_path: Path):
    result, events = run(pipeline(), tmp_path)
    assert result.outcome is RunOutcome.FINISHED and result.error is None
    assert result.details["executor"] == "local" and result.details["seed"] == 7
    subtasks = {(e.vertex, e.subtask) for e in events}
    assert len(subtasks) == 4
    assert [e.state for e in events[:4]] == [S.CREATED] * 4
    for vertex, subtask in subtasks:
        assert states(events, vertex, subtask) == [
            (0, S.CREATED), (0, S.SCHEDULED), (0, S.DEPLOYING), (0, S.INITIALIZING),
            (0, S.RUNNING), (0, S.FINISHED),
        ]  # fmt: skip
    finished = [e for e in events if e.state is S.FINISHED]
    sent = sum(e.records_out for e in finished[:2])
    received = sum(e.records_in for e in finished[2:])
    assert sent == received == 100


def test_a_failed_attempt_is_retried_and_its_output_dropped(tmp_path: Path):
    fault = Fault(subtask=0, node=2, attempts=(0, 1), message="boom", after_records=0)
    result, events = run(pipeline(), tmp_path, faults=(fault,), max_attempts=3)
    clean, _ = run(pipeline(), tmp_path)
    assert result.outcome is RunOutcome.FINISHED
    assert sorted(sink_records(result, 4)) == sorted(sink_records(clean, 4))
    source = events[0].vertex
    assert [s for s in states(events, source, 0) if s[1] in (S.FAILED, S.FINISHED)] == [
        (0, S.FAILED), (1, S.FAILED), (2, S.FINISHED),
    ]  # fmt: skip
    failure = next(e for e in events if e.state is S.FAILED)
    assert failure.error == "boom"


def test_a_subtask_failing_after_some_records_leaves_no_partial_file(tmp_path: Path):
    doc = (
        Doc(chaining=False)
        .node(1, "source.sequence", {"from": 1, "to": 50})
        .node(2, "sink.text", {"path": "out"})
        .edge(1, 2)
        .build()
    )
    fault = Fault(subtask=0, node=2, attempts=(0,), message="late", after_records=20)
    result, events = run(doc, tmp_path, faults=(fault,), max_attempts=2)
    assert result.outcome is RunOutcome.FINISHED
    failed = next(e for e in events if e.state is S.FAILED)
    assert failed.records_in in (0, 20)
    assert (tmp_path / "out" / "part-0.txt").read_text().splitlines() == [
        str(n) for n in range(1, 51)
    ]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["part-0.txt"]


def test_a_subtask_that_keeps_failing_fails_the_run_and_cancels_the_rest(tmp_path: Path):
    doc = pipeline()
    doc["nodes"][1]["params"]["fn"] = "x // (x - 50)"
    result, events = run(doc, tmp_path, max_attempts=2)
    assert result.outcome is RunOutcome.FAILED
    assert result.error is not None
    assert "Map (node 2): ZeroDivisionError" in result.error
    assert "(1/2) failed" in result.error or "(2/2) failed" in result.error
    last = {}
    for event in events:
        last[event.vertex, event.subtask] = event.state
    assert S.FAILED in last.values() and S.CANCELED in last.values()
    assert all(state.is_terminal for state in last.values())


def test_cancel_stops_the_run(tmp_path: Path):
    document = pipeline()
    plan = build_run_plan(document, compile_document(document), RunOptions(str(tmp_path)))
    cancel = threading.Event()
    events: list[SubtaskEvent] = []

    def publish(event: SubtaskEvent) -> None:
        events.append(event)
        if event.state is S.FINISHED:
            cancel.set()

    result = run_locally(plan, publish, cancel=cancel)
    assert result.outcome is RunOutcome.CANCELED
    ends = Counter(e.state for e in events if e.state.is_terminal)
    assert ends == {S.FINISHED: 1, S.CANCELED: 3}


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda path: path.name.split(".")[0])
def test_every_runnable_fixture_runs(fixture: Path, tmp_path: Path):
    document = json.loads(fixture.read_text())
    if any(d.severity is Severity.ERROR for d in runnability(document)):
        pytest.skip("not runnable: its logic is not written as expressions")
    result, events = run(document, tmp_path, preview=5)
    assert result.outcome is RunOutcome.FINISHED, result.error
    terminal = [e for e in events if e.state.is_terminal]
    assert len(terminal) == len({(e.vertex, e.subtask) for e in events})
