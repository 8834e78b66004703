"""Runs on Spark through the real product: `manage.py serve` with its Celery worker
process executing on a local Spark (`local[2,3]`: two cores, three attempts per task),
Redis and the test database, followed over HTTP and websockets as a browser would."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from tests.backend.factories import make_team
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

MASTER = "local[2,3]"


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    with serving(
        django_db_blocker,
        RUN_EXECUTOR="spark",
        SPARK_MASTER=MASTER,
        RUN_FAULT_INJECTION="1",
    ) as server:
        yield server


def start(server: str, body: dict[str, Any], document: dict[str, Any] | None = None) -> Any:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner, document=document)
    token = Token.objects.create(user=team.editor).key
    http = Http(server, token)
    status, run = http.call("POST", f"/api/pipelines/{team.pipeline.pk}/runs/", body)
    assert status == 201, run
    return http, token, run


def test_a_run_on_spark_shows_every_subtask_and_writes_what_the_reference_writes(
    server: str,
) -> None:
    http, token, run = start(server, {"version": 2})
    state, updates = asyncio.run(follow(server, token, run["id"], timeout=120))
    assert state["status"] == "FINISHED", state["error"]
    assert state["details"]["executor"] == "spark"
    assert "master" not in state["details"]  # the operator's address, never shown
    previews = sorted(line for sink in state["sinks"] for line in sink["preview"])
    assert previews == ["[0, 1683]", "[1, 1717]", "[2, 1650]"]  # as the local executor
    assert {s["state"] for s in state["subtasks"]} == {"FINISHED"}
    assert [(v["status"], v["recordsIn"], v["recordsOut"]) for v in state["vertices"]] == [
        ("FINISHED", 0, 100),
        ("FINISHED", 100, 100),
        ("FINISHED", 100, 0),  # a sink sends nothing downstream, as the local executor counts
    ]
    # The client saw subtasks on their way, not only their end.
    seen = {s["state"] for update in updates for s in update["subtasks"]}
    assert {"SCHEDULED", "RUNNING", "FINISHED"} <= seen or {"DEPLOYING", "FINISHED"} <= seen
    # Stage by stage, as Spark's listener reported them: each vertex one stage, in order.
    execution = state["execution"]
    assert execution["executor"] == "spark" and execution["stagesReported"] is True
    assert [(s["vertices"], s["status"]) for s in execution["stages"]] == [
        ([v["id"]], "finished") for v in state["vertices"]
    ]
    assert all(s["stageId"] is not None for s in execution["stages"])
    status, detail = http.call("GET", f"/api/runs/{run['id']}/")
    assert status == 200
    for key in ("status", "seq", "vertices", "subtasks", "sinks", "execution"):
        assert state[key] == detail[key], key


def test_a_failed_spark_task_is_retried_as_a_new_attempt(server: str) -> None:
    fault = {"node": 2, "subtask": 1, "attempts": [0]}
    _, token, run = start(server, {"version": 2, "parameters": {"faults": [fault]}})
    state, _ = asyncio.run(follow(server, token, run["id"], timeout=120))
    assert state["status"] == "FINISHED", state["error"]
    mapper = next(
        s
        for s in state["subtasks"]
        if s["vertex"] == state["vertices"][1]["id"] and s["subtask"] == 1
    )
    assert (mapper["attempt"], mapper["state"]) == (1, "FINISHED")
    first = mapper["attempts"][0]
    assert first["state"] == "FAILED" and "injected failure" in (first["error"] or "")
    previews = sorted(line for sink in state["sinks"] for line in sink["preview"])
    assert previews == ["[0, 1683]", "[1, 1717]", "[2, 1650]"]


def test_cancel_stops_the_spark_job(server: str) -> None:
    http, token, run = start(server, {"version": 2}, document=runnable_document(to=30_000_000))
    wait_for(lambda: run_status(run["id"]) == "RUNNING", 120, "the run starting")
    status, body = http.call("POST", f"/api/runs/{run['id']}/cancel/")
    assert status == 200, body
    seconds = wait_for(lambda: run_status(run["id"]) == "CANCELED", 60, "the run ending")
    assert seconds < 30
    state, _ = asyncio.run(follow(server, token, run["id"]))
    assert state["status"] == "CANCELED"
    assert {s["state"] for s in state["subtasks"]} <= {"FINISHED", "CANCELED"}
    assert "CANCELED" in {s["state"] for s in state["subtasks"]}
