"""Runs through the real product: `manage.py serve` (uvicorn, a Celery worker process on
its own queue, the lost-worker check in its parent), Redis and the test database, used
over HTTP and websockets. The worker executes with the reference executor here;
`test_runs_spark.py` runs the same way on Spark, and `test_faults.py` kills workers and
Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from runs.models import Run
from tests.backend.factories import Team, make_team
from tests.backend.runs_support import (
    follow,
    make_runnable_version,
    run_status,
    runnable_document,
    serving,
    wait_for,
)
from tests.backend.test_live_server import Http

pytestmark = pytest.mark.django_db(transaction=True)

HEARTBEAT_SECONDS = 1
HEARTBEAT_TIMEOUT = 4


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    with serving(
        django_db_blocker,
        RUN_EXECUTOR="local",
        RUN_HEARTBEAT_SECONDS=str(HEARTBEAT_SECONDS),
        RUN_HEARTBEAT_TIMEOUT=str(HEARTBEAT_TIMEOUT),
    ) as server:
        yield server


def signed_in(server: str) -> tuple[Http, str, Team]:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner)  # version 2
    token = Token.objects.create(user=team.editor).key
    return Http(server, token), token, team


@pytest.mark.both_databases
def test_a_run_started_over_http_is_followed_to_its_end_over_a_websocket(server: str) -> None:
    http, token, team = signed_in(server)
    status, run = http.call("POST", f"/api/pipelines/{team.pipeline.pk}/runs/", {"version": 2})
    assert status == 201, run
    state, updates = asyncio.run(follow(server, token, run["id"]))
    assert state["status"] == "FINISHED", state["error"]
    assert updates and updates[-1]["seq"] == state["seq"]
    status, detail = http.call("GET", f"/api/runs/{run['id']}/")
    assert status == 200
    for key in ("status", "seq", "vertices", "subtasks", "sinks", "finishedAt", "worker"):
        assert state[key] == detail[key], key
    previews = sorted(line for sink in detail["sinks"] for line in sink["preview"])
    assert previews == ["[0, 1683]", "[1, 1717]", "[2, 1650]"]
    assert {s["state"] for s in detail["subtasks"]} == {"FINISHED"}


def test_a_parameter_error_is_reported_on_its_node_before_anything_runs(server: str) -> None:
    http, _, team = signed_in(server)
    status, body = http.call(
        "POST",
        f"/api/pipelines/{team.pipeline.pk}/runs/",
        {"version": 2, "parameters": {"params": {"3": {"fn": "a +"}}}},
    )
    assert status == 400
    [problem] = body["error"]["diagnostics"]
    assert (body["error"]["code"], problem["node"], problem["field"]) == (
        "not-runnable",
        3,
        "params.fn",
    )
    assert not Run.objects.exists()


def test_a_cancelled_run_stops_and_its_subtasks_end_canceled(server: str) -> None:
    http, token, team = signed_in(server)
    make_runnable_version(pipeline=team.pipeline, document=runnable_document(to=50_000_000))
    status, run = http.call("POST", f"/api/pipelines/{team.pipeline.pk}/runs/", {"version": 3})
    assert status == 201, run
    wait_for(lambda: run_status(run["id"]) == "RUNNING", 60, "the run starting")
    status, cancelled = http.call("POST", f"/api/runs/{run['id']}/cancel/")
    assert status == 200 and cancelled["status"] in ("CANCELING", "CANCELED"), cancelled
    state, _ = asyncio.run(follow(server, token, run["id"]))
    assert state["status"] == "CANCELED"
    assert "FINISHED" not in {s["state"] for s in state["subtasks"][1:]}
    assert {s["state"] for s in state["subtasks"]} <= {"FINISHED", "CANCELED"}
