"""Run events through a Redis of their own (`RUN_EVENTS_URL`), and executors that cannot
reach it, through the product: `manage.py serve` with its Celery workers on a local Spark.

- The events' Redis is a private `redis-server` that takes TLS only, with a password and a
  certificate of a throwaway CA: a run's subtask states and record counts arrive through it
  exactly as through the server's own Redis.
- A cluster profile whose executors publish to an address where no Redis listens
  (`eventsUrl`): the run page says so within seconds of Spark launching the tasks, while
  the run goes on, and the run still ends as its user asks.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from websockets.asyncio.client import connect

from config.asgi_server import free_port
from runs.execution import EVENTS_SILENCE_SECONDS
from tests.backend.factories import make_team
from tests.backend.private_redis import PrivateRedis, private_redis_server
from tests.backend.runs_support import (
    ENDED,
    apply,
    follow,
    make_runnable_version,
    runnable_document,
    serving,
)
from tests.backend.test_live_server import Http

pytestmark = pytest.mark.django_db(transaction=True)

BLIND = "blind"
"""A cluster whose executors publish to an address where nothing listens."""


@pytest.fixture(scope="module")
def events_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateRedis]:
    with private_redis_server(tmp_path_factory.mktemp("events-redis"), tls=True) as server:
        yield server


@pytest.fixture(scope="module")
def server(
    django_db_setup: None, django_db_blocker: Any, events_redis: PrivateRedis
) -> Iterator[str]:
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    with serving(
        django_db_blocker,
        RUN_EXECUTOR="spark",
        SPARK_MASTER="local[2,3]",
        SPARK_CLUSTERS=json.dumps({BLIND: {"master": "local[2]", "eventsUrl": nowhere}}),
        RUN_EVENTS_URL=events_redis.url,
    ) as host:
        yield host


def start_run(server: str, document: dict[str, Any], cluster: str) -> tuple[str, int]:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner, document=document)
    token = Token.objects.create(user=team.owner).key  # only owners choose a cluster
    body = {"version": 2, "cluster": cluster}
    status, run = Http(server, token).call("POST", f"/api/pipelines/{team.pipeline.pk}/runs/", body)
    assert status == 201, run
    return token, int(run["id"])


def test_events_travel_through_their_own_redis_with_tls_and_a_password(
    server: str, events_redis: PrivateRedis
) -> None:
    client = events_redis.client()
    published_before = client.info("commandstats").get("cmdstat_publish", {}).get("calls", 0)
    token, run_id = start_run(server, runnable_document(to=300), "default")
    state, updates = asyncio.run(follow(server, token, run_id, timeout=120))
    assert state["status"] == "FINISHED", state["error"]
    assert state["eventsProblem"] is None
    # Every subtask ran, and what the executors counted arrived: 300 numbers out of the
    # source, into the map, and into the sums.
    subtasks = state["subtasks"]
    assert {s["state"] for s in subtasks} == {"FINISHED"}
    source, mapped, summed = (v["id"] for v in state["vertices"])
    assert sum(s["recordsOut"] for s in subtasks if s["vertex"] == source) == 300
    assert sum(s["recordsIn"] for s in subtasks if s["vertex"] == mapped) == 300
    assert sum(s["recordsIn"] for s in subtasks if s["vertex"] == summed) == 300
    # Seen live, through the private Redis: RUNNING before the end.
    assert any(s.get("state") == "RUNNING" for u in updates for s in u.get("subtasks", []))
    published = client.info("commandstats")["cmdstat_publish"]["calls"]
    assert published - published_before >= len(subtasks) * 2
    client.close()


def test_executors_that_cannot_reach_the_events_redis_are_named_within_seconds(
    server: str,
) -> None:
    token, run_id = start_run(server, runnable_document(to=50_000_000), BLIND)
    launched, named, problem = asyncio.run(watch_until_named(server, token, run_id))
    print(f"named {named - launched:.1f} s after the first launch: {problem}")
    # Within seconds of Spark launching the tasks, and without the URL's secrets.
    assert named - launched <= EVENTS_SILENCE_SECONDS + 4
    assert "cannot publish to redis://127.0.0.1:" in problem
    assert f"cluster '{BLIND}', its eventsUrl" in problem
    # The run went on meanwhile, and ends as its user asks.
    status, _ = Http(server, token).call("POST", f"/api/runs/{run_id}/cancel/", {})
    assert status == 200
    state, _ = asyncio.run(follow(server, token, run_id, timeout=120))
    assert state["status"] == "CANCELED"
    assert state["eventsProblem"] == problem


async def watch_until_named(server: str, token: str, run_id: int) -> tuple[float, float, str]:
    """When the run page first showed a task launched, when it first showed the events
    problem, and the problem."""
    launched: float | None = None
    async with connect(
        f"ws://{server}/ws/runs/{run_id}/", additional_headers={"Authorization": f"Token {token}"}
    ) as ws:
        snapshot = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
        state = snapshot["run"]
        while True:
            update = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
            now = time.monotonic()
            apply(state, update)
            assert state["status"] not in ENDED, state
            if launched is None and any(
                s.get("state") == "DEPLOYING" for s in update.get("subtasks", [])
            ):
                launched = now
            if state.get("eventsProblem"):
                assert launched is not None, "named before any task was launched"
                return launched, now, state["eventsProblem"]
