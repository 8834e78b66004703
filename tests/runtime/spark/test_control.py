"""Retries, cancellation and concurrent runs on one SparkSession."""

from __future__ import annotations

import threading
import time
from typing import Any

from runtime.events import ExecutionState, RunOutcome, RunResult
from runtime.plan import Fault
from runtime.spark.session import Session
from tests.runtime.builders import Doc
from tests.runtime.spark.conftest import (
    EventLog,
    monitor_of,
    plan_of,
    received,
    run_local,
    run_spark,
    states,
)


def small_job(name: str) -> dict[str, Any]:
    return (
        Doc(name, parallelism=2)
        .node(1, "source.sequence", {"from": 1, "to": 200})
        .node(2, "map", {"fn": "(x % 5, x)"})
        .node(3, "reduce", {"fn": "(a[0], a[1] + b[1])"}, parallelism=3)
        .node(4, "sink.collect", parallelism=3)
        .edge(1, 2)
        .edge(2, 3, "HASH", key="x[0]")
        .edge(3, 4)
        .build()
    )


def endless_job() -> dict[str, Any]:
    """Runs for minutes unless cancelled: a long sequence sent on to a second vertex."""
    return (
        Doc("endless", parallelism=2)
        .node(1, "source.sequence", {"from": 1, "to": 10**10})
        .node(2, "map", {"fn": "x"})
        .node(3, "sink.collect")
        .edge(1, 2, "REBALANCE")
        .edge(2, 3)
        .build()
    )


def test_a_failed_attempt_is_retried_as_attempt_1(spark: Session, run_events):
    plan = plan_of(small_job("retry"))
    reduce = plan.vertices[1]
    faulty = plan_of(
        small_job("retry"), faults=(Fault(subtask=1, attempts=(0,), vertex=reduce.id),)
    )
    log = run_events()
    result = run_spark(spark, faulty, log)
    assert result.outcome is RunOutcome.FINISHED, result.error
    assert received(result, 4) == received(run_local(plan), 4)
    log.settle()
    mine = log.of(reduce.id, 1)
    assert (0, "FAILED") in states(mine, "hook")
    assert (0, "FAILED") in states(mine, "listener")
    assert (1, "FINISHED") in states(mine, "hook")
    assert (1, "FINISHED") in states(mine, "listener")
    assert any(
        e.attempt == 0 and e.state is ExecutionState.FAILED and "injected" in (e.error or "")
        for e in mine
    )
    # Attempt 1 started after attempt 0 failed, and went through the states again.
    assert [s for a, s in states(mine, "hook") if a == 1] == ["INITIALIZING", "RUNNING", "FINISHED"]
    monitor = monitor_of(faulty, log.events)
    assert monitor.subtask_state(reduce.id, 1) is ExecutionState.FINISHED
    attempts = monitor.subtask_json(reduce.id, 1)["attempts"]
    assert [(a["attempt"], a["state"]) for a in attempts] == [(0, "FAILED"), (1, "FINISHED")]
    assert {len(monitor.subtask_json(reduce.id, i)["attempts"]) for i in (0, 2)} == {1}


def test_two_runs_at_once_and_cancel_one(spark: Session, run_events):
    endless = plan_of(endless_job())
    small = plan_of(small_job("small"))
    assert not {v.id for v in endless.vertices} & {v.id for v in small.vertices}
    endless_log, small_log = run_events(), run_events()
    cancel = threading.Event()
    outcome: list[RunResult] = []

    def run_endless() -> None:
        outcome.append(run_spark(spark, endless, endless_log, cancel=cancel, timeout=240))

    thread = threading.Thread(target=run_endless)
    thread.start()
    try:
        source = endless.vertices[0]
        assert endless_log.wait_for(
            lambda events: any(
                e.vertex == source.id and e.state is ExecutionState.RUNNING and e.records_out
                for e in events
            ),
            timeout=60,
        ), "the endless run did not start"

        # A second run on the same session completes while the first one runs.
        result = run_spark(spark, small, small_log, timeout=120)
        assert result.outcome is RunOutcome.FINISHED, result.error
        assert received(result, 4) == received(run_local(small), 4)
        assert thread.is_alive()
    finally:
        cancel.set()
        asked = time.monotonic()
        thread.join(timeout=60)
    took = time.monotonic() - asked
    assert not thread.is_alive()
    assert outcome[0].outcome is RunOutcome.CANCELED
    assert took < 5, f"cancelling took {took:.1f} s"

    # Each channel carries its own run's vertices only.
    assert {e.vertex for e in small_log.settle()} == {v.id for v in small.vertices}
    endless_events = endless_log.settle()
    assert {e.vertex for e in endless_events} == {v.id for v in endless.vertices}
    monitor = monitor_of(endless, endless_events)
    assert monitor.all_terminal()
    for vertex in endless.vertices:
        for subtask in range(vertex.parallelism):
            assert monitor.subtask_state(vertex.id, subtask) is ExecutionState.CANCELED
    assert any(e.state is ExecutionState.CANCELING for e in endless_events)

    # Spark stopped the work: no job of the session is left running.
    deadline = time.monotonic() + 10
    while spark.context.statusTracker().getActiveJobsIds() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not spark.context.statusTracker().getActiveJobsIds()


def test_a_run_cancelled_before_it_starts_runs_nothing(spark: Session, run_events):
    plan = plan_of(small_job("never"))
    cancel = threading.Event()
    cancel.set()
    log: EventLog = run_events()
    result = run_spark(spark, plan, log, cancel=cancel)
    assert result.outcome is RunOutcome.CANCELED
    monitor = monitor_of(plan, log.settle())
    assert monitor.all_terminal()
    assert {e.state for e in log.events} == {ExecutionState.CREATED, ExecutionState.CANCELED}


def test_a_run_over_its_time_limit_is_stopped_and_fails(spark: Session, run_events):
    plan = plan_of(endless_job())
    log = run_events()
    started = time.monotonic()
    result = run_spark(spark, plan, log, timeout=3)
    assert time.monotonic() - started < 15
    assert result.outcome is RunOutcome.FAILED
    assert result.error == "the run took longer than 3 s and was stopped"
    monitor = monitor_of(plan, log.settle())
    assert monitor.all_terminal()
    assert all(
        monitor.subtask_state(v.id, i) is ExecutionState.CANCELED
        for v in plan.vertices
        for i in range(v.parallelism)
    )
