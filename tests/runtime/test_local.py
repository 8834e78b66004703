"""The local executor: events like the Spark side's, retries, failures, cancel, fixtures."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from compiler.diagnostics import Severity
from compiler.keygroups import assign_key_to_parallel_operator
from compiler.pipeline import compile_document
from runtime.chains import SubtaskRun
from runtime.events import ExecutionState, RunOutcome, SubtaskEvent
from runtime.local import run_locally
from runtime.plan import Fault
from runtime.planner import RunOptions, build_run_plan
from runtime.runnability import runnability
from tests.runtime.builders import Doc, run, sink_by_subtask, sink_records

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


def _run_shaped(document: dict[str, Any], data_dir: Path, *, batched: bool) -> list[Any]:
    """Sink outputs of a run through the routed (or batched) chains, the way Spark runs them.

    Each consumer subtask reads its inputs by input position, then producer subtask, like
    the local executor, so the results must be the same, record for record.
    """
    options = RunOptions(str(data_dir), seed=3, preview_size=10_000)
    plan = build_run_plan(document, compile_document(document), options)
    inbox: dict[tuple[str, int], list[tuple[int, int, Any]]] = {}
    sinks: list[Any] = []
    for vertex in plan.vertices:
        for subtask in range(vertex.parallelism):
            received = sorted(inbox.pop((vertex.id, subtask), []), key=lambda item: item[:2])
            running = SubtaskRun(vertex, subtask)
            if batched:
                inputs = [(position, batch) for position, _, batch in received]
                outputs = running.execute(inputs, batched_input=True, output="batched")
            else:
                records = [(position, record) for position, _, record in received]
                outputs = running.run_routed(records)
            for item in outputs:
                position, routed = (0, item) if len(vertex.outputs) == 1 else item
                target, (consumer_input, payload) = routed
                consumer = vertex.outputs[position].consumer
                inbox.setdefault((consumer, target), []).append((consumer_input, subtask, payload))
            if batched:  # one list per (input, producer): what Spark's shuffle keeps apart
                for key, items in inbox.items():
                    merged: dict[tuple[int, int], list[Any]] = {}
                    for consumer_input, producer, batch in items:
                        merged.setdefault((consumer_input, producer), []).extend(
                            batch if isinstance(batch, list) else [batch]
                        )
                    inbox[key] = [(i, p, batch) for (i, p), batch in merged.items()]
            sinks += running.sink_outputs()
    return sinks


@pytest.mark.parametrize("batched", [False, True], ids=["routed", "batched"])
def test_routed_and_batched_chains_give_the_local_executors_results(batched: bool, tmp_path: Path):
    compared = 0
    for fixture in FIXTURES:
        document = json.loads(fixture.read_text())
        if any(d.severity is Severity.ERROR for d in runnability(document)):
            continue
        if "processing_time" in fixture.read_text():
            continue  # windows on the clock
        result, _ = run(document, tmp_path, seed=3, preview=10_000)
        assert list(result.sinks) == _run_shaped(document, tmp_path, batched=batched), fixture
        compared += 1
    assert compared > 30


def test_a_run_keyed_by_tuples_reduces_each_key_on_its_flink_subtask(tmp_path: Path):
    # Records (x % 2, x % 3, x) keyed by their first two fields: six tuple keys, each
    # reduced (summing the third field) on the subtask Flink routes its Tuple2 to.
    doc = (
        Doc(parallelism=4)
        .node(1, "source.sequence", {"from": 1, "to": 12})
        .node(2, "map", {"fn": "(x % 2, x % 3, x)"})
        .node(3, "reduce", {"fn": "(a[0], a[1], a[2] + b[2])"})
        .node(4, "sink.collect")
        .edge(1, 2)
        .edge(2, 3, "HASH", key="(x[0], x[1])")
        .edge(3, 4)
        .build()
    )
    assert [d for d in runnability(doc) if d.severity is Severity.ERROR] == []
    result, _ = run(doc, tmp_path)
    assert result.outcome is RunOutcome.FINISHED
    totals: dict[tuple[int, int], int] = {}
    for subtask, records in sink_by_subtask(result, 4).items():
        for first, second, total in records:
            key = (first, second)
            assert subtask == assign_key_to_parallel_operator(key, 128, 4)
            totals[key] = max(totals.get(key, 0), total)
    expected: dict[tuple[int, int], int] = {}
    for x in range(1, 13):
        expected[(x % 2, x % 3)] = expected.get((x % 2, x % 3), 0) + x
    assert totals == expected
