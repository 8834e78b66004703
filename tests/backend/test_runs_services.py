"""Runs services: start (checked before anything is queued), cancel, lost workers, journal."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from accounts.models import Role
from config.errors import (
    ApplicationError,
    Conflict,
    InvalidRequest,
    NotAuthenticated,
    NotFound,
    PermissionDenied,
)
from config.messages import UserRef
from runs import services
from runs.events import RunDetail
from runs.journal import append, run_fields, run_monitor, set_status
from runs.models import JournalImmutable, Run, RunEvent, RunStatus
from runs.selectors import run_detail
from runs.services import RunRejected, run_cancel, run_mark_lost, run_start
from runs.tasks import run_queue
from runtime.events import ExecutionState, SubtaskEvent
from tests.backend.factories import Team, add_member, make_team
from tests.backend.runs_support import make_run, make_runnable_version, runnable_document

pytestmark = pytest.mark.django_db


class Queue:
    """Stands in for the Celery task: records the run ids it was given."""

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.queues: list[str] = []

    def apply_async(self, args: tuple[int], queue: str) -> None:
        assert queue.startswith(run_queue())
        self.ids.append(args[0])
        self.queues.append(queue)


@pytest.fixture
def queue(monkeypatch: pytest.MonkeyPatch) -> Queue:
    fake = Queue()
    monkeypatch.setattr(services, "execute_run", fake)
    return fake


@pytest.fixture
def cancels(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    sent: list[str] = []
    monkeypatch.setattr(services.control, "request_cancel", sent.append)
    return sent


@pytest.fixture
def team() -> Team:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner)  # version 2
    return team


def start(team: Team, role: str = "editor", **kwargs: Any) -> Run:
    user = team.user(role)
    assert user is not None
    return run_start(pipeline=team.pipeline, actor=user, **{"version": 2, **kwargs})


# run_start ------------------------------------------------------------------------------


def test_start_queues_the_run_after_commit_with_every_subtask_created(
    team: Team, queue: Queue, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        run = start(team)
    assert queue.ids == [run.pk]
    run.refresh_from_db()
    assert (run.status, run.cluster, run.spark_master, run.parameters, run.seq) == (
        "QUEUED",
        "default",
        "local[*,3]",
        {},
        0,
    )
    assert run.started_by == team.editor and run.version.number == 2
    assert [v["name"] for v in run.vertices] == ["Source: Numbers", "Map", "Sum -> Sink: Collect"]
    detail = run_detail(run_id=run.pk)
    assert detail is not None
    assert len(detail["subtasks"]) == 5
    assert {s["state"] for s in detail["subtasks"]} == {"CREATED"}
    assert [v["status"] for v in detail["vertices"]] == ["CREATED"] * 3


def test_nothing_is_queued_when_the_transaction_rolls_back(team: Team, queue: Queue) -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        start(team)
        raise RuntimeError("rolled back")
    assert queue.ids == [] and not Run.objects.exists()


@pytest.mark.parametrize(
    ("role", "error"),
    [("viewer", PermissionDenied), ("non-member", NotFound), ("anonymous", NotAuthenticated)],
)
def test_only_editors_start_runs(team: Team, queue: Queue, role: str, error: type) -> None:
    from django.contrib.auth.models import AnonymousUser

    user = team.user(role) or AnonymousUser()
    with pytest.raises(error):
        run_start(pipeline=team.pipeline, actor=user, version=2)
    assert not Run.objects.exists()


def test_owners_start_runs_too(team: Team, queue: Queue) -> None:
    assert start(team, "owner").started_by == team.owner


def test_a_missing_version_is_a_field_error(team: Team, queue: Queue) -> None:
    with pytest.raises(InvalidRequest) as caught:
        start(team, version=9)
    assert caught.value.fields == {"version": ["The pipeline has no version 9."]}


def test_a_version_that_cannot_run_is_refused_with_diagnostics_on_its_nodes(
    team: Team, queue: Queue
) -> None:
    # Version 1 is the factories' document: operator kinds and parameters the runtime lacks.
    with pytest.raises(RunRejected) as caught:
        start(team, version=1)
    error = caught.value
    assert error.code == "not-runnable" and error.status_code == 400
    assert error.message.startswith("Version 1 cannot run: ")
    assert error.diagnostics and all(d.severity.value == "error" for d in error.diagnostics)
    assert all(
        d.location.node is not None or d.location.edge is not None for d in error.diagnostics
    )
    assert "run.unknown-operator" in {d.code for d in error.diagnostics}
    assert not Run.objects.exists() and queue.ids == []


def test_a_version_that_does_not_compile_is_refused(team: Team, queue: Queue) -> None:
    document = runnable_document()
    document["edges"][2]["partitioner"] = "FORWARD"
    document["nodes"][3]["parallelism"] = 3  # FORWARD across parallelism 2 -> 3
    make_runnable_version(pipeline=team.pipeline, document=document)
    with pytest.raises(RunRejected) as caught:
        start(team, version=3)
    assert "edge.forward-parallelism" in {d.code for d in caught.value.diagnostics}


def test_parameters_override_operator_params_and_are_checked_on_the_node(
    team: Team, queue: Queue
) -> None:
    run = start(team, parameters={"params": {"2": {"fn": "(x % 5, x)"}}})
    assert run.parameters == {"params": {"2": {"fn": "(x % 5, x)"}}}
    with pytest.raises(RunRejected) as caught:
        start(team, parameters={"params": {"2": {"fn": "(x % 5, "}}})
    [problem] = caught.value.diagnostics
    assert problem.location.node == 2 and problem.location.field == "params.fn"
    with pytest.raises(RunRejected) as caught:
        start(team, parameters={"params": {"42": {"fn": "x"}}})
    assert [d.code for d in caught.value.diagnostics] == ["run.unknown-node"]
    # A parameter the operator does not have (parallelism is not one) would be ignored.
    with pytest.raises(RunRejected) as caught:
        start(team, parameters={"params": {"2": {"parallelism": 4, "fun": "x"}}})
    problems = caught.value.diagnostics
    assert [(d.code, d.location.node, d.location.field) for d in problems] == [
        ("run.unknown-parameter", 2, "params.2.fun"),
        ("run.unknown-parameter", 2, "params.2.parallelism"),
    ]
    assert "has no parameter 'parallelism' (it has: fn)" in problems[1].message


@pytest.mark.parametrize(
    ("parameters", "field"),
    [
        ({"speed": "fast"}, "parameters"),
        ({"params": {"2": "x"}}, "parameters.params"),
        ({"params": []}, "parameters.params"),
        ({"faults": [{"node": 2}]}, "parameters.faults"),
    ],
)
def test_malformed_parameters_are_field_errors(
    team: Team, queue: Queue, parameters: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidRequest) as caught:
        start(team, parameters=parameters)
    assert field in caught.value.fields


def test_faults_are_accepted_only_where_fault_injection_is_on(
    team: Team, queue: Queue, settings: Any
) -> None:
    settings.RUN_FAULT_INJECTION = True
    run = start(team, parameters={"faults": [{"node": 2, "subtask": 0, "attempts": [0]}]})
    assert run.parameters["faults"] == [{"node": 2, "subtask": 0, "attempts": [0]}]
    for faults in (
        [{"node": 2}],
        [{"subtask": 0, "colour": 1}],
        [{"subtask": 0, "attempts": [-1]}],
    ):
        with pytest.raises(InvalidRequest) as caught:
            start(team, parameters={"faults": faults})
        assert "parameters.faults" in caught.value.fields


@pytest.fixture
def clusters(settings: Any) -> None:
    settings.SPARK_CLUSTERS = {"big": {"master": "local[4,3]", "maxParallelism": 4}}


def test_an_owner_chooses_a_cluster_by_name(team: Team, queue: Queue, clusters: None) -> None:
    run = start(team, "owner", cluster="big")
    assert (run.cluster, run.spark_master) == ("big", "local[4,3]")


def test_an_editor_runs_on_the_default_cluster_only(
    team: Team, queue: Queue, clusters: None
) -> None:
    assert start(team, "editor").cluster == "default"
    with pytest.raises(PermissionDenied):
        start(team, "editor", cluster="big")
    assert not Run.objects.filter(cluster="big").exists()


def test_an_unknown_cluster_is_a_field_error_naming_the_others(
    team: Team, queue: Queue, clusters: None
) -> None:
    with pytest.raises(InvalidRequest) as caught:
        start(team, "owner", cluster="local[99999999]")
    assert caught.value.fields["cluster"] == [
        "There is no cluster 'local[99999999]' on this server; the clusters are: default, big."
    ]


def test_a_run_above_its_clusters_limits_is_refused_on_the_nodes(
    team: Team, queue: Queue, settings: Any
) -> None:
    settings.RUN_MAX_PARALLELISM = 1
    settings.RUN_MAX_SUBTASKS = 4
    with pytest.raises(RunRejected) as caught:
        start(team)
    problems = [(d.code, d.location.node, d.location.field) for d in caught.value.diagnostics]
    assert problems == [
        ("run.parallelism-limit", 2, "parallelism"),
        ("run.parallelism-limit", 3, "parallelism"),
        ("run.subtask-limit", None, None),
    ]
    assert "allows at most 1" in caught.value.diagnostics[0].message
    assert not Run.objects.exists() and queue.ids == []


def test_each_cluster_has_a_queue_of_its_own(
    team: Team, queue: Queue, clusters: None, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        start(team, "owner", cluster="big")
        start(team, "owner")
    assert [name.rsplit(".", 1)[-1] for name in queue.queues] == ["big", "runs"]


# run_cancel --------------------------------------------------------------------------------


def test_cancelling_a_queued_run_ends_it_and_its_subtasks(
    team: Team, cancels: list[str], django_capture_on_commit_callbacks: Any
) -> None:
    run = make_run(version=team.pipeline.versions.get(number=2))
    with django_capture_on_commit_callbacks(execute=True):
        cancelled = run_cancel(run=run, actor=team.editor)
    assert cancelled.status == "CANCELED" and cancelled.finished_at is not None
    assert cancels == []  # no worker to tell
    entry = RunEvent.objects.get(run=run)
    assert entry.seq == 1 and entry.changes["run"]["status"] == "CANCELED"
    assert {e["state"] for e in entry.events} == {"CANCELED"}
    detail = run_detail(run_id=run.pk)
    assert detail is not None and detail["seq"] == 1
    assert {s["state"] for s in detail["subtasks"]} == {"CANCELED"}
    assert {v["status"] for v in detail["vertices"]} == {"CANCELED"}
    editor = {"id": team.editor.pk, "username": team.editor.username}
    assert entry.changes["run"]["canceledBy"] == editor
    assert (detail["canceledBy"], detail["error"]) == (editor, None)
    assert RunDetail(**detail).canceledBy == UserRef(**editor)


def test_cancelling_a_running_run_tells_its_worker(
    team: Team, cancels: list[str], django_capture_on_commit_callbacks: Any
) -> None:
    run = make_run(version=team.pipeline.versions.get(number=2), status=RunStatus.RUNNING)
    with django_capture_on_commit_callbacks(execute=True):
        cancelled = run_cancel(run=run, actor=team.owner)
    assert cancelled.status == "CANCELING"
    assert cancels == [run.key]
    owner = {"id": team.owner.pk, "username": team.owner.username}
    assert RunEvent.objects.get(run=run).changes == {
        "run": {"status": "CANCELING", "canceledBy": owner},
        "vertices": [],
        "subtasks": [],
    }
    # Asking again changes nothing.
    assert run_cancel(run=run, actor=team.owner).seq == 1


@pytest.mark.parametrize("status", [RunStatus.FINISHED, RunStatus.FAILED, RunStatus.CANCELED])
def test_a_run_that_ended_cannot_be_cancelled(team: Team, status: RunStatus) -> None:
    run = make_run(version=team.pipeline.versions.get(number=2), status=status)
    with pytest.raises(Conflict) as caught:
        run_cancel(run=run, actor=team.editor)
    assert caught.value.code == "run-ended"


def test_viewers_cannot_cancel(team: Team) -> None:
    run = make_run(version=team.pipeline.versions.get(number=2))
    with pytest.raises(PermissionDenied):
        run_cancel(run=run, actor=team.viewer)
    newcomer = add_member(workspace=team.workspace, role=Role.VIEWER)
    with pytest.raises(PermissionDenied):
        run_cancel(run=run, actor=newcomer)
    run.refresh_from_db()
    assert run.status == "QUEUED"


# run_mark_lost -----------------------------------------------------------------------------


def test_a_run_whose_worker_stopped_beating_fails(
    team: Team, cancels: list[str], settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.RUN_HEARTBEAT_TIMEOUT = 15
    version = team.pipeline.versions.get(number=2)
    lost = make_run(version=version, status=RunStatus.RUNNING, heartbeat_seconds_ago=16)
    alive = make_run(version=version, status=RunStatus.RUNNING, heartbeat_seconds_ago=3)
    queued = make_run(version=version)
    # The lost run had started its source.
    source = lost.vertices[0]["id"]
    _record_events(lost, [SubtaskEvent(source, 0, 0, ExecutionState.RUNNING, 1.0)])

    with django_capture_on_commit_callbacks(execute=True):
        assert run_mark_lost() == [lost.pk]
    assert cancels == [lost.key]
    lost.refresh_from_db()
    assert lost.status == "FAILED" and lost.finished_at is not None
    assert lost.error == "lost worker: elsewhere:1 stopped reporting for more than 15 s"
    detail = run_detail(run_id=lost.pk)
    assert detail is not None
    states = [(s["state"], s["error"]) for s in detail["subtasks"]]
    assert states[0] == ("FAILED", lost.error)
    assert set(states[1:]) == {("CANCELED", None)}
    for other in (alive, queued):
        other.refresh_from_db()
    assert (alive.status, queued.status) == ("RUNNING", "QUEUED")
    assert run_mark_lost() == []


def test_mark_lost_can_look_at_one_run(team: Team, cancels: list[str]) -> None:
    version = team.pipeline.versions.get(number=2)
    one = make_run(version=version, status=RunStatus.CREATED, heartbeat_seconds_ago=100)
    other = make_run(version=version, status=RunStatus.CANCELING, heartbeat_seconds_ago=100)
    assert run_mark_lost(run_id=one.pk) == [one.pk]
    assert run_mark_lost() == [other.pk]


# The journal -------------------------------------------------------------------------------


def _record_events(run: Run, events: list[SubtaskEvent]) -> int:
    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=run.pk)
        monitor = run_monitor(locked)
        body = monitor.changes_json(monitor.apply(events))
        return append(
            locked,
            before=run_fields(locked),
            vertices=body["vertices"],
            subtasks=body["subtasks"],
            events=events,
        )


def test_entries_are_numbered_and_readers_see_checkpoint_plus_later_entries(team: Team) -> None:
    run = make_run(version=team.pipeline.versions.get(number=2), status=RunStatus.RUNNING)
    source, mapper = run.vertices[0]["id"], run.vertices[1]["id"]
    first = _record_events(run, [SubtaskEvent(source, 0, 0, ExecutionState.RUNNING, 1.0)])
    second = _record_events(
        run,
        [
            SubtaskEvent(source, 0, 0, ExecutionState.FINISHED, 2.0, records_out=100),
            SubtaskEvent(mapper, 1, 0, ExecutionState.RUNNING, 2.5, records_in=3),
        ],
    )
    assert (first, second) == (1, 2)
    detail = run_detail(run_id=run.pk)
    assert detail is not None and detail["seq"] == 2
    # The checkpoint is still the starting state; the entries bring it up to date.
    run.refresh_from_db()
    assert run.state_seq == 0
    monitor = run_monitor(run)
    expected = monitor.to_json()
    assert detail["subtasks"] == expected["subtasks"]
    assert detail["vertices"] == expected["vertices"]
    assert detail["subtasks"][0]["recordsOut"] == 100


def test_a_status_never_moves_back() -> None:
    run = Run(status=RunStatus.CANCELING)
    assert not set_status(run, RunStatus.RUNNING)
    assert set_status(run, RunStatus.CANCELED) and run.status == "CANCELED"
    assert not set_status(run, RunStatus.FAILED)


def test_journal_entries_are_append_only(team: Team) -> None:
    run = make_run(version=team.pipeline.versions.get(number=2))
    _record_events(run, [])
    entry = RunEvent.objects.get(run=run)
    entry.changes = {}
    with pytest.raises(JournalImmutable):
        entry.save()


def test_rejections_use_the_one_error_shape(team: Team, queue: Queue) -> None:
    from config.errors import error_payload

    with pytest.raises(ApplicationError) as caught:
        start(team, version=1)
    payload = error_payload(caught.value)["error"]
    assert payload["code"] == "not-runnable"
    assert {"code", "severity", "message", "node", "edge", "field"} <= set(
        payload["diagnostics"][0]
    )
