"""The runs REST API: start, list, detail (the websocket snapshot's shape), cancel, journal."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from runs import services
from runs.events import RunDetail
from runs.models import Run, RunStatus
from runs.tasks import run_queue
from tests.backend.factories import Team, make_team
from tests.backend.runs_support import make_run, make_runnable_version

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def queue(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    queued: list[int] = []

    class Task:
        @staticmethod
        def apply_async(args: tuple[int], queue: str) -> None:
            assert queue.startswith(run_queue())
            queued.append(args[0])

    monkeypatch.setattr(services, "execute_run", Task)
    monkeypatch.setattr(services.control, "request_cancel", lambda key: None)
    return queued


@pytest.fixture
def team() -> Team:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner)  # version 2
    return team


def runs_url(team: Team) -> str:
    return f"/api/pipelines/{team.pipeline.pk}/runs/"


def post(client: APIClient, url: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(url, body or {}, format="json")


def test_start_answers_the_run_with_every_subtask(
    team: Team, queue: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = post(
            team.client("editor"),
            runs_url(team),
            {"version": 2, "cluster": "default", "parameters": {}},
        )
    assert response.status_code == 201, response.content
    body = response.json()
    RunDetail.model_validate(body)  # the websocket snapshot's `run` has the same shape
    assert queue == [body["id"]]
    assert body["status"] == "QUEUED" and body["version"] == 2
    assert body["cluster"] == "default"
    assert "sparkMaster" not in body  # the cluster's address is the operator's business
    assert body["startedBy"] == {"id": team.editor.pk, "username": "eddie"}
    assert body["seq"] == 0 and body["sinks"] == [] and body["error"] is None
    assert body["spark"] is None  # no worker has started Spark for it yet
    assert [(v["name"], v["parallelism"], v["status"]) for v in body["vertices"]] == [
        ("Source: Numbers", 1, "CREATED"),
        ("Map", 2, "CREATED"),
        ("Sum -> Sink: Collect", 2, "CREATED"),
    ]
    subtask = body["subtasks"][3]
    assert subtask["name"] == "Sum -> Sink: Collect (1/2)"
    assert subtask["keyGroups"] == [0, 63]
    assert subtask["attempts"] == [
        {
            "attempt": 0,
            "state": "CREATED",
            "recordsIn": 0,
            "recordsOut": 0,
            "startTime": None,
            "endTime": None,
            "error": None,
            "failedNode": None,
        }
    ]


def test_a_version_that_cannot_run_is_a_400_with_diagnostics(team: Team) -> None:
    response = post(team.client("editor"), runs_url(team), {"version": 1})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "not-runnable"
    assert error["diagnostics"][0] == {
        "code": "run.unknown-operator",
        "severity": "error",
        "message": "'source' is not an operator the runtime can run",
        "node": 1,
        "edge": None,
        "field": "operator",
    }
    assert not Run.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "version"),
        ({"version": 0}, "version"),
        ({"version": 7}, "version"),
        ({"version": 2, "sparkMaster": "local[99999999]"}, "sparkMaster"),
        ({"version": 2, "sparkMaster": "spark://169.254.169.254:7077"}, "sparkMaster"),
        ({"version": 2, "cluster": "nowhere"}, "cluster"),
        ({"version": 2, "parameters": {"colour": "red"}}, "parameters"),
        ({"version": 2, "parameters": []}, "parameters"),
    ],
)
def test_bad_start_requests_are_field_errors(team: Team, body: dict[str, Any], field: str) -> None:
    response = post(team.client("editor"), runs_url(team), body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid-request" and field in error["fields"]


def test_viewers_get_403_whatever_they_send(team: Team) -> None:
    response = post(team.client("viewer"), runs_url(team), {"nonsense": True})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission-denied"


def test_the_list_is_newest_first_and_light(team: Team) -> None:
    version = team.pipeline.versions.get(number=2)
    first = make_run(version=version, started_by=team.owner)
    second = make_run(version=version, status=RunStatus.FINISHED)
    response = team.client("viewer").get(runs_url(team))
    assert response.status_code == 200
    runs = response.json()
    assert [r["id"] for r in runs] == [second.pk, first.pk]
    assert "subtasks" not in runs[0] and runs[1]["startedBy"]["username"] == "olivia"


def test_cancel_answers_the_run_and_409_once_it_ended(team: Team) -> None:
    run = make_run(version=team.pipeline.versions.get(number=2), status=RunStatus.RUNNING)
    url = f"/api/runs/{run.pk}/cancel/"
    response = post(team.client("editor"), url)
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["seq"]) == ("CANCELING", 1)
    Run.objects.filter(pk=run.pk).update(status=RunStatus.CANCELED)
    response = post(team.client("editor"), url)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "run-ended"


def test_reading_a_run_whose_worker_was_lost_fails_it(team: Team, settings: Any) -> None:
    settings.RUN_HEARTBEAT_TIMEOUT = 10
    run = make_run(
        version=team.pipeline.versions.get(number=2),
        status=RunStatus.RUNNING,
        heartbeat_seconds_ago=11,
    )
    body = team.client("viewer").get(f"/api/runs/{run.pk}/").json()
    assert body["status"] == "FAILED" and body["error"].startswith("lost worker")
    assert body["finishedAt"] is not None and body["seq"] == 1


def test_reading_a_lost_run_writes_nothing_and_shows_what_the_reaper_stores(
    team: Team, settings: Any
) -> None:
    settings.RUN_HEARTBEAT_TIMEOUT = 10
    run = make_run(
        version=team.pipeline.versions.get(number=2),
        status=RunStatus.RUNNING,
        heartbeat_seconds_ago=11,
    )
    client = team.client("viewer")
    shown = client.get(f"/api/runs/{run.pk}/").json()
    run.refresh_from_db()
    assert (run.status, run.seq, run.journal.count()) == ("RUNNING", 0, 0)
    assert services.run_mark_lost() == [run.pk]
    stored = client.get(f"/api/runs/{run.pk}/").json()
    assert untimed(shown) == untimed(stored)  # when it ended is when each looked


def untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in ("finishedAt", "endTime")}
    if isinstance(value, list):
        return [untimed(item) for item in value]
    return value


def test_cancelling_a_lost_run_answers_that_it_ended(team: Team, settings: Any) -> None:
    settings.RUN_HEARTBEAT_TIMEOUT = 10
    run = make_run(
        version=team.pipeline.versions.get(number=2),
        status=RunStatus.RUNNING,
        heartbeat_seconds_ago=11,
    )
    response = post(team.client("editor"), f"/api/runs/{run.pk}/cancel/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "run-ended"
    run.refresh_from_db()
    assert (run.status, run.seq) == ("RUNNING", 0)


def test_a_run_links_to_its_spark_application_as_its_cluster_says(
    team: Team, settings: Any
) -> None:
    settings.SPARK_CLUSTERS = {
        "big": {
            "master": "spark://10.0.0.5:7077",
            "host": "10.0.0.9",
            "python": "/opt/streamgraph/bin/python",
            "uiUrl": "http://spark-master:8080/app/?appId={applicationId}",
            "historyUrl": "http://history:18080/history/{applicationId}/jobs/",
        }
    }
    version = team.pipeline.versions.get(number=2)
    run = make_run(version=version, status=RunStatus.FINISHED)
    Run.objects.filter(pk=run.pk).update(
        cluster="big", details={"applicationId": "app-20260101-0007", "executor": "spark"}
    )
    local = make_run(version=version, status=RunStatus.FINISHED)
    Run.objects.filter(pk=local.pk).update(details={"applicationId": "local-17"})

    body = team.client("viewer").get(f"/api/runs/{run.pk}/").json()

    RunDetail.model_validate(body)
    assert body["spark"] == {
        "id": "app-20260101-0007",
        "uiUrl": "http://spark-master:8080/app/?appId=app-20260101-0007",
        "historyUrl": "http://history:18080/history/app-20260101-0007/jobs/",
    }
    # The default cluster has no links: the application alone.
    body = team.client("viewer").get(f"/api/runs/{local.pk}/").json()
    assert body["spark"] == {"id": "local-17", "uiUrl": None, "historyUrl": None}


def test_the_journal_lists_stored_entries_after_a_sequence_number(team: Team) -> None:
    run = make_run(version=team.pipeline.versions.get(number=2))
    post(team.client("editor"), f"/api/runs/{run.pk}/cancel/")
    client = team.client("viewer")
    [entry] = client.get(f"/api/runs/{run.pk}/journal/").json()
    assert entry["seq"] == 1 and entry["changes"]["run"]["status"] == "CANCELED"
    assert len(entry["events"]) == 5 and {e["state"] for e in entry["events"]} == {"CANCELED"}
    assert client.get(f"/api/runs/{run.pk}/journal/?after=1").json() == []
    assert client.get(f"/api/runs/{run.pk}/journal/?after=-1").status_code == 400


def test_runs_of_other_workspaces_are_not_found(team: Team) -> None:
    run = make_run(version=team.pipeline.versions.get(number=2))
    for url in (f"/api/runs/{run.pk}/", f"/api/runs/{run.pk}/journal/"):
        response = team.client("non-member").get(url)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not-found"
    assert team.client("owner").get("/api/runs/999999/").status_code == 404


def test_the_clusters_are_listed_by_name_without_their_addresses(team: Team, settings: Any) -> None:
    settings.SPARK_CLUSTERS = {
        "big": {
            "master": "spark://10.0.0.5:7077",
            "maxSubtasks": 9000,
            "host": "10.0.0.9",
            "python": "/opt/streamgraph/bin/python",
        }
    }

    response = team.client("viewer").get("/api/clusters/")

    assert response.status_code == 200
    assert response.json() == [
        {"name": "default", "default": True, "local": True, "maxParallelism": 128,
         "maxSubtasks": 2048},
        {"name": "big", "default": False, "local": False, "maxParallelism": 128,
         "maxSubtasks": 9000},
    ]  # fmt: skip
    assert "10.0.0.5" not in response.content.decode()
    assert "10.0.0.9" not in response.content.decode()


@pytest.mark.parametrize(
    ("role", "status"), [("viewer", 403), ("editor", 403), ("owner", 201), ("non-member", 404)]
)
def test_only_owners_choose_another_cluster(
    team: Team, settings: Any, queue: list[int], role: str, status: int
) -> None:
    settings.SPARK_CLUSTERS = {"big": {"master": "local[4,3]"}}

    response = post(team.client(role), runs_url(team), {"version": 2, "cluster": "big"})

    assert response.status_code == status
    if role == "editor":
        assert response.json()["error"]["message"].startswith("Only a workspace owner")
