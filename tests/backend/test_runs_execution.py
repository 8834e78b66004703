"""Driving a run on a worker (`runs.execution`) with stand-in executors that publish
events on the run's Redis channel the way Spark's hooks and listener do: in any order,
twice, with retries; cancelled, failing, too slow, or outlived by their worker."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connections

from compiler.model import ResultPartitionType
from runs import execution
from runs.events import RunDetail
from runs.execution import Collector, run_execute
from runs.journal import run_monitor
from runs.models import Run, RunEvent, RunStatus
from runs.selectors import run_detail
from runs.services import run_cancel, run_mark_lost
from runtime.clusters import ClusterProfile
from runtime.events import (
    ExecutionState,
    RunOutcome,
    RunResult,
    SinkOutput,
    SubtaskEvent,
    run_channel,
    shown_url,
)
from runtime.executors import Started
from tests.backend.factories import Team, make_team
from tests.backend.runs_support import ENDED, apply, make_run, make_runnable_version, watch

pytestmark = pytest.mark.django_db(transaction=True)

S = ExecutionState
LOCAL = ClusterProfile("default", "local[2,3]", 128, 2048)
Script = Callable[["Publisher", threading.Event], RunResult]


class Publisher:
    """What an executor's hooks and listener do: publish events on the run's channel."""

    def __init__(self, run: Run) -> None:
        self.vertices = [v["id"] for v in run.vertices]
        self.parallelism = [v["parallelism"] for v in run.vertices]
        self.client = redis.Redis.from_url(settings.RUN_EVENTS_URL)
        self.channel = run_channel(run.key)
        self.started: Started | None = None
        """What the executor tells once the run has somewhere to go."""

    def subtasks(self) -> Iterator[tuple[int, int]]:
        for vertex, parallelism in enumerate(self.parallelism):
            for subtask in range(parallelism):
                yield vertex, subtask

    def send(self, vertex: int, subtask: int, state: S, **kwargs: Any) -> None:
        event = SubtaskEvent(
            self.vertices[vertex], subtask, kwargs.pop("attempt", 0), state, time.time(), **kwargs
        )
        self.client.publish(self.channel, json.dumps(event.to_json()))

    def lifecycle(self, vertex: int, subtask: int, attempt: int = 0, records: int = 10) -> None:
        for state, source in ((S.SCHEDULED, "listener"), (S.DEPLOYING, "listener")):
            self.send(vertex, subtask, state, attempt=attempt, source=source)
        self.send(vertex, subtask, S.RUNNING, attempt=attempt, records_in=1)
        self.send(
            vertex, subtask, S.FINISHED, attempt=attempt, records_in=records, records_out=records
        )
        self.send(vertex, subtask, S.FINISHED, attempt=attempt, source="listener")


class Fake:
    """An executor running `script` (in the executor's thread, as the real ones do)."""

    def __init__(self, run: Run, script: Script) -> None:
        self.publisher = Publisher(run)
        self.script = script
        self.plans: list[Any] = []

    def __call__(
        self,
        plan: Any,
        *,
        run_key: str,
        cluster: ClusterProfile,
        cancel: threading.Event,
        started: Started | None = None,
    ) -> RunResult:
        self.plans.append(plan)
        self.publisher.started = started
        return self.script(self.publisher, cancel)


@pytest.fixture
def team() -> Team:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner)
    return team


@pytest.fixture
def queued(team: Team) -> Run:
    return make_run(version=team.pipeline.versions.get(number=2), started_by=team.editor)


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(execution, "DRAIN_QUIET_SECONDS", 0.2)


def drive(run: Run, script: Script, **limits: float) -> Fake:
    """Claim the run for this worker and drive it with `script` as its executor."""
    claimed = execution._claim(run.pk)
    assert claimed is not None
    fake = Fake(claimed, script)
    Collector(claimed, plan="the plan", cluster=LOCAL, executor=fake, **limits).run()
    return fake


def stored(run: Run) -> tuple[Run, dict[str, Any]]:
    run.refresh_from_db()
    detail = run_detail(run_id=run.pk)
    assert detail is not None
    return run, detail


def assert_journal_replays_to(run: Run, detail: dict[str, Any]) -> None:
    seqs = list(RunEvent.objects.filter(run=run).values_list("seq", flat=True))
    assert seqs == list(range(1, run.seq + 1))
    replayed = run_monitor(run).to_json()
    assert replayed["subtasks"] == detail["subtasks"]
    assert replayed["vertices"] == detail["vertices"]


def finished(publisher: Publisher, cancel: threading.Event) -> RunResult:
    order = list(publisher.subtasks())
    random.Random(3).shuffle(order)
    for vertex, subtask in order:
        publisher.lifecycle(vertex, subtask)
    return RunResult(
        RunOutcome.FINISHED,
        sinks=(SinkOutput(4, publisher.vertices[2], 0, 2, ("(0, 1683)", "(1, 1717)"), False),),
        details={"applicationId": "local-1"},
    )


def test_a_run_goes_from_queued_to_finished_with_every_change_stored(
    queued: Run, team: Team
) -> None:
    fake = drive(queued, finished)
    assert fake.plans == ["the plan"]
    run, detail = stored(queued)
    assert (run.status, run.error, run.worker) == ("FINISHED", "", execution.WORKER)
    assert run.started_at is not None and run.finished_at is not None
    assert run.state_seq == run.seq  # the final state is checkpointed
    assert run.sinks == [
        {
            "node": 4,
            "vertex": run.vertices[2]["id"],
            "subtask": 0,
            "records": 2,
            "preview": ["(0, 1683)", "(1, 1717)"],
            "truncated": False,
            "files": [],
        }
    ]
    assert run.details == {"applicationId": "local-1", "executor": settings.RUN_EXECUTOR}
    assert {s["state"] for s in detail["subtasks"]} == {"FINISHED"}
    assert {v["status"] for v in detail["vertices"]} == {"FINISHED"}
    assert [v["recordsOut"] for v in detail["vertices"]] == [10, 20, 20]
    statuses = [
        changes["run"].get("status")
        for changes in RunEvent.objects.filter(run=run).values_list("changes", flat=True)
    ]
    assert [s for s in statuses if s] == ["CREATED", "RUNNING", "FINISHED"]
    # Events came in batches, not one entry per event, and all of them were stored.
    assert (
        sum(len(e) for e in RunEvent.objects.filter(run=run).values_list("events", flat=True)) >= 25
    )
    assert run.seq < 25
    assert_journal_replays_to(run, detail)


def test_the_spark_application_is_stored_as_soon_as_the_executor_has_one(queued: Run) -> None:
    # The run page links to the application while the run runs, not only once it ended.
    seen: list[dict[str, Any]] = []

    def running(publisher: Publisher, cancel: threading.Event) -> RunResult:
        assert publisher.started is not None
        publisher.started({"applicationId": "app-20260101-0007", "master": "spark://h:7077"})
        publisher.send(0, 0, S.RUNNING)
        deadline = time.monotonic() + 5
        while not seen and time.monotonic() < deadline:
            details = Run.objects.values_list("details", flat=True).get(pk=queued.pk)
            if details:
                seen.append(details)
            time.sleep(0.02)
        connections.close_all()
        return finished(publisher, cancel)

    drive(queued, running)
    assert seen == [
        {
            "applicationId": "app-20260101-0007",
            "master": "spark://h:7077",
            "executor": settings.RUN_EXECUTOR,
        }
    ]
    run, _ = stored(queued)
    assert (run.status, run.details["applicationId"]) == ("FINISHED", "local-1")


def test_a_run_says_when_its_executors_events_do_not_arrive_and_takes_it_back(
    queued: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(execution, "EVENTS_SILENCE_SECONDS", 0.5)
    problems: list[str] = []

    def problem_is(predicate: Callable[[str], bool]) -> None:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            problem = Run.objects.values_list("events_problem", flat=True).get(pk=queued.pk)
            if predicate(problem):
                problems.append(problem)
                return
            time.sleep(0.02)
        pytest.fail(f"the run's events problem is still {problem!r}")

    def late_executors(publisher: Publisher, cancel: threading.Event) -> RunResult:
        # Spark launched a task (the driver's listener says so); its hooks stay silent.
        publisher.send(0, 0, S.SCHEDULED, source="listener")
        publisher.send(0, 0, S.DEPLOYING, source="listener")
        problem_is(bool)
        # They reach Redis after all: the run takes it back.
        result = finished(publisher, cancel)
        problem_is(lambda problem: problem == "")
        connections.close_all()
        return result

    drive(queued, late_executors)
    assert problems[0].startswith("Spark launched this run's tasks 1 s ago, but no executor")
    assert (
        f"cannot publish to {shown_url(settings.RUN_EVENTS_URL)} (cluster 'default', "
        in (problems[0])
    )
    assert problems[1] == ""
    run, detail = stored(queued)
    assert run.status == "FINISHED" and detail["eventsProblem"] is None
    changes = RunEvent.objects.filter(run=run).values_list("changes", flat=True)
    said = [c["run"]["eventsProblem"] for c in changes if "eventsProblem" in c.get("run", {})]
    assert said == [problems[0], None]


def test_subtasks_running_as_spark_sql_are_not_taken_for_silent_executors(
    queued: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A vertex that runs as Spark SQL has no hook: the listener says it started at launch
    # and the executor reports its end. Its silence is no sign of an unreachable Redis.
    monkeypatch.setattr(execution, "EVENTS_SILENCE_SECONDS", 0.3)

    def in_the_jvm(publisher: Publisher, cancel: threading.Event) -> RunResult:
        for vertex, subtask in publisher.subtasks():
            for state in (S.SCHEDULED, S.DEPLOYING, S.INITIALIZING, S.RUNNING):
                publisher.send(vertex, subtask, state, source="listener")
        time.sleep(1.0)
        for vertex, subtask in publisher.subtasks():
            publisher.send(vertex, subtask, S.FINISHED, source="driver", records_out=5)
        return RunResult(RunOutcome.FINISHED)

    drive(queued, in_the_jvm)
    run, _ = stored(queued)
    assert (run.status, run.events_problem) == ("FINISHED", "")


def test_an_attempt_lost_before_its_python_worker_ran_is_not_taken_for_silent_executors(
    queued: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Spark launched attempt 0, then lost its executor before the Python worker ran: the
    # listener reports the attempt failed, and the retry waits for a new executor. Its
    # hooks never ran, so their silence says nothing about the events' Redis.
    monkeypatch.setattr(execution, "EVENTS_SILENCE_SECONDS", 0.3)

    def executor_lost(publisher: Publisher, cancel: threading.Event) -> RunResult:
        publisher.send(0, 0, S.SCHEDULED, source="listener")
        publisher.send(0, 0, S.DEPLOYING, source="listener")
        publisher.send(0, 0, S.FAILED, source="listener", error="ExecutorLostFailure")
        time.sleep(1.0)
        return RunResult(RunOutcome.FAILED, error="ExecutorLostFailure")

    drive(queued, executor_lost)
    run, _ = stored(queued)
    assert (run.status, run.events_problem) == ("FAILED", "")


def test_a_run_whose_executors_report_never_says_their_events_are_missing(queued: Run) -> None:
    # Hooks' events follow the listener's launches at once.
    drive(queued, finished)
    run, _ = stored(queued)
    assert run.events_problem == ""


def test_a_retried_subtask_keeps_its_failed_attempt(queued: Run) -> None:
    def retried(publisher: Publisher, cancel: threading.Event) -> RunResult:
        publisher.send(1, 0, S.RUNNING, records_in=3)
        publisher.send(1, 0, S.FAILED, records_in=4, error="ZeroDivisionError: division by zero")
        publisher.send(1, 0, S.FAILED, source="listener", error="ExceptionFailure")
        for vertex, subtask in publisher.subtasks():
            publisher.lifecycle(vertex, subtask, attempt=1 if (vertex, subtask) == (1, 0) else 0)
        return RunResult(RunOutcome.FINISHED)

    drive(queued, retried)
    run, detail = stored(queued)
    assert run.status == "FINISHED"
    mapper = detail["subtasks"][1]
    assert (mapper["attempt"], mapper["state"]) == (1, "FINISHED")
    assert [(a["state"], a["error"]) for a in mapper["attempts"]] == [
        ("FAILED", "ZeroDivisionError: division by zero"),
        ("FINISHED", None),
    ]


def test_a_failed_run_keeps_its_error_and_cancels_what_did_not_end(queued: Run) -> None:
    def failing(publisher: Publisher, cancel: threading.Event) -> RunResult:
        publisher.lifecycle(0, 0)
        publisher.send(1, 0, S.RUNNING)
        publisher.send(1, 0, S.FAILED, error="ValueError: bad record")
        return RunResult(RunOutcome.FAILED, error="ValueError: bad record")

    drive(queued, failing)
    run, detail = stored(queued)
    assert (run.status, run.error) == ("FAILED", "ValueError: bad record")
    assert [s["state"] for s in detail["subtasks"]] == [
        "FINISHED",
        "FAILED",
        "CANCELED",
        "CANCELED",
        "CANCELED",
    ]
    assert [v["status"] for v in detail["vertices"]] == ["FINISHED", "FAILED", "CANCELED"]
    assert_journal_replays_to(run, detail)


def test_an_executor_that_raises_fails_the_run(queued: Run) -> None:
    def broken(publisher: Publisher, cancel: threading.Event) -> RunResult:
        raise RuntimeError("the JVM went away")

    drive(queued, broken)
    run, _ = stored(queued)
    assert (run.status, run.error) == ("FAILED", "RuntimeError: the JVM went away")


def test_cancel_reaches_the_executor_and_the_run_ends_canceled(queued: Run, team: Team) -> None:
    def cancellable(publisher: Publisher, cancel: threading.Event) -> RunResult:
        publisher.lifecycle(0, 0)
        publisher.send(1, 0, S.RUNNING)
        publisher.send(1, 1, S.RUNNING)
        assert cancel.wait(10), "the cancel never came"
        for subtask in (0, 1):  # Spark kills the running tasks; the listener says so
            publisher.send(1, subtask, S.CANCELED, source="listener")
        # What the executors answer: the text is no error of the run's.
        return RunResult(RunOutcome.CANCELED, error="the run was canceled")

    def cancel_when_running() -> None:
        try:
            while Run.objects.get(pk=queued.pk).status != RunStatus.RUNNING:
                time.sleep(0.02)
            run_cancel(
                run=Run.objects.select_related("pipeline").get(pk=queued.pk), actor=team.editor
            )
        finally:
            connections.close_all()

    canceller = threading.Thread(target=cancel_when_running)
    canceller.start()
    drive(queued, cancellable)
    canceller.join()
    run, detail = stored(queued)
    assert run.status == "CANCELED" and run.error == ""
    assert detail["error"] is None
    assert detail["canceledBy"] == {"id": team.editor.pk, "username": team.editor.username}
    assert all(s["error"] is None for s in detail["subtasks"])
    assert {s["state"] for s in detail["subtasks"][1:]} == {"CANCELED"}
    assert detail["subtasks"][0]["state"] == "FINISHED"
    statuses = [
        changes["run"].get("status")
        for changes in RunEvent.objects.filter(run=run).values_list("changes", flat=True)
    ]
    assert [s for s in statuses if s] == ["CREATED", "RUNNING", "CANCELING", "CANCELED"]
    assert_journal_replays_to(run, detail)


def test_the_soft_time_limit_cancels_and_fails_the_run(queued: Run) -> None:
    def slow(publisher: Publisher, cancel: threading.Event) -> RunResult:
        publisher.send(0, 0, S.RUNNING)
        cancel.wait(10)
        return RunResult(RunOutcome.CANCELED)

    drive(queued, slow, soft_time_limit=0.3)
    run, _ = stored(queued)
    assert run.status == "FAILED"
    assert "time limit" in run.error


def test_the_hard_time_limit_ends_the_run_without_its_executor(queued: Run) -> None:
    release = threading.Event()

    def stuck(publisher: Publisher, cancel: threading.Event) -> RunResult:
        release.wait(10)  # ignores the cancel
        return RunResult(RunOutcome.FINISHED)

    started = time.monotonic()
    drive(queued, stuck, soft_time_limit=0.2, time_limit=0.6)
    release.set()
    assert time.monotonic() - started < 5
    run, detail = stored(queued)
    assert run.status == "FAILED" and "time limit" in run.error
    assert {s["state"] for s in detail["subtasks"]} == {"CANCELED"}


def test_a_worker_that_was_given_up_on_stops_writing(
    queued: Run, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("runs.services.control.request_cancel", lambda key: None)

    def outlived(publisher: Publisher, cancel: threading.Event) -> RunResult:
        publisher.send(0, 0, S.RUNNING)
        time.sleep(0.3)
        # The web server decided this worker was lost (its heartbeat looked too old).
        Run.objects.filter(pk=queued.pk).update(heartbeat_at=None)
        assert run_mark_lost(run_id=queued.pk) == [queued.pk]
        connections.close_all()
        publisher.send(0, 0, S.FINISHED)
        assert cancel.wait(10), "the worker did not stop the executor"
        return RunResult(RunOutcome.CANCELED)

    drive(queued, outlived)
    run, detail = stored(queued)
    assert run.status == "FAILED" and run.error.startswith("lost worker")
    assert detail["subtasks"][0]["state"] == "FAILED"


def test_only_a_queued_run_is_executed(queued: Run, team: Team) -> None:
    run_cancel(run=Run.objects.select_related("pipeline").get(pk=queued.pk), actor=team.editor)
    run_execute(run_id=queued.pk)
    run_execute(run_id=999_999)
    queued.refresh_from_db()
    assert (queued.status, queued.worker) == ("CANCELED", "")


def test_the_websocket_follows_the_run_to_its_end(queued: Run, team: Team) -> None:
    """Worker -> journal -> Redis -> consumer -> client, and the client's state is the
    stored one; changes arrive soon after they happen."""

    async def scenario() -> None:
        client, snapshot = await watch(queued.pk, team.viewer)
        state = snapshot["run"]
        driver = asyncio.create_task(asyncio.to_thread(_drive_and_close, queued))
        latencies = []
        while state["status"] not in ENDED:
            update = await client.receive(timeout=10)
            apply(state, update)
            for subtask in update["subtasks"]:
                if subtask["state"] == "FINISHED" and subtask["endTime"] is not None:
                    latencies.append(time.time() - subtask["endTime"])
        await driver
        final = await database_sync_to_async(run_detail)(run_id=queued.pk)
        assert final is not None
        assert {k: v for k, v in state.items() if k != "heartbeatAt"} == {
            k: v for k, v in final.items() if k != "heartbeatAt"
        }
        assert latencies and max(latencies) < 2.0
        await client.close()

    async def main() -> None:
        try:
            await scenario()
        finally:
            await database_sync_to_async(connections.close_all)()

    asyncio.run(main())


def _drive_and_close(run: Run) -> None:
    try:
        drive(run, finished)
    finally:
        connections.close_all()


def test_the_local_executor_runs_the_real_plan(queued: Run, settings: Any) -> None:
    settings.RUN_EXECUTOR = "local"
    run_execute(run_id=queued.pk)
    run, detail = stored(queued)
    assert (run.status, run.error) == ("FINISHED", ""), run.error
    previews = sorted(line for sink in run.sinks for line in sink["preview"])
    assert previews == ["[0, 1683]", "[1, 1717]", "[2, 1650]"]
    assert {s["state"] for s in detail["subtasks"]} == {"FINISHED"}
    assert [v["recordsIn"] for v in detail["vertices"]] == [0, 100, 100]
    assert run.details["executor"] == "local"
    assert_journal_replays_to(run, detail)


def test_how_the_run_executes_is_stored_before_it_starts_then_as_it_ran(
    queued: Run, settings: Any
) -> None:
    settings.RUN_EXECUTOR = "local"
    run_execute(run_id=queued.pk)
    run, detail = stored(queued)
    assert run.status == "FINISHED", run.error
    entries = list(RunEvent.objects.filter(run=run).values_list("seq", "changes"))
    planned = next(seq for seq, changes in entries if "execution" in changes["run"])
    began = min(
        seq for seq, changes in entries if any(s["state"] != "CREATED" for s in changes["subtasks"])
    )
    assert planned < began
    first = dict(entries)[planned]["run"]["execution"]
    assert first["stagesReported"] is False
    assert {s["status"] for s in first["stages"]} == {"planned"}
    # The detail reads as its wire model, with the stages the executor reported.
    execution = RunDetail(**detail).execution
    assert execution is not None and execution.stagesReported
    assert (execution.executor, execution.runtimeMode.value) == ("local", "BATCH")
    assert [(s.number, s.vertices, s.status.value) for s in execution.stages] == [
        (n, [v["id"]], "finished") for n, v in enumerate(run.vertices, 1)
    ]
    assert [
        (e.source.name, e.target.name, e.partitioner.value, e.handoff.value)
        for e in execution.exchanges
    ] == [
        ("Source: Numbers", "Map", "REBALANCE", "in-memory"),
        ("Map", "Sum", "HASH", "in-memory"),
        ("Sum", "Sink: Collect", "FORWARD", "in-task"),
    ]
    assert [e.resultPartitionType for e in execution.exchanges][:2] == [
        ResultPartitionType.BLOCKING,
        ResultPartitionType.BLOCKING,
    ]


def test_an_injected_failure_is_retried_as_a_new_attempt(
    team: Team, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.RUN_EXECUTOR = "local"
    settings.RUN_FAULT_INJECTION = True
    settings.SPARK_MASTER = "local[2,3]"  # three attempts per task
    run = make_run(version=team.pipeline.versions.get(number=2))
    Run.objects.filter(pk=run.pk).update(
        parameters={"faults": [{"node": 2, "subtask": 1, "attempts": [0, 1]}]},
    )
    run_execute(run_id=run.pk)
    run, detail = stored(run)
    assert run.status == "FINISHED", run.error
    mapper = detail["subtasks"][2]
    assert (mapper["vertex"], mapper["subtask"], mapper["attempt"]) == (run.vertices[1]["id"], 1, 2)
    assert [a["state"] for a in mapper["attempts"]] == ["FAILED", "FAILED", "FINISHED"]
    assert "injected failure" in (mapper["attempts"][0]["error"] or "")


def test_a_run_of_a_cluster_the_worker_does_not_know_fails_saying_so(
    queued: Run, settings: Any
) -> None:
    settings.RUN_EXECUTOR = "local"
    Run.objects.filter(pk=queued.pk).update(cluster="gone")
    run_execute(run_id=queued.pk)
    run, _ = stored(queued)
    assert run.status == "FAILED"
    assert run.error == "there is no cluster 'gone' in this worker's settings"


def test_the_worker_checks_the_clusters_limits_again(queued: Run, settings: Any) -> None:
    # Lowered by the operator after the run was queued.
    settings.RUN_EXECUTOR = "local"
    settings.RUN_MAX_PARALLELISM = 1
    run_execute(run_id=queued.pk)
    run, _ = stored(queued)
    assert run.status == "FAILED"
    assert "[run.parallelism-limit]" in run.error and "allows at most 1" in run.error
