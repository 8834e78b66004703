"""What the runs tests share: builders (runnable documents and versions, runs in any
status), a websocket client of the run monitor, and the product served for real."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import timedelta
from pathlib import Path
from typing import IO, Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.authtoken.models import Token

from compiler.pipeline import compile_document
from config.asgi import application
from config.asgi_server import free_port, serve_command, stop_serving, wait_until_listening
from pipelines.models import Pipeline, PipelineVersion
from runs.journal import merge, monitor_state
from runs.models import Run, RunStatus
from runtime.monitoring import RunMonitor, monitored_vertices
from tests.backend.conftest import FAST_HASHERS
from tests.backend.factories import make_version
from tests.backend.sockets import open_socket

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 5
ENDED = ("FINISHED", "FAILED", "CANCELED")


def runnable_document(
    *, name: str = "numbers", parallelism: int = 2, to: int = 100
) -> dict[str, Any]:
    """Numbers 1..`to` -> (x % 3, x) -> sum per key -> collect: three vertices."""
    return {
        "format": "streamgraph/v1",
        "name": name,
        "config": {"defaultParallelism": parallelism, "runtimeMode": "BATCH"},
        "nodes": [
            {
                "id": 1,
                "name": "Source: Numbers",
                "operator": "source.sequence",
                "params": {"from": 1, "to": to},
                "parallelism": 1,
            },
            {"id": 2, "name": "Map", "operator": "map", "params": {"fn": "(x % 3, x)"}},
            {"id": 3, "name": "Sum", "operator": "reduce", "params": {"fn": "(a[0], a[1] + b[1])"}},
            {"id": 4, "name": "Sink: Collect", "operator": "sink.collect", "params": {}},
        ],
        "edges": [
            {"source": 1, "target": 2, "partitioner": "REBALANCE"},
            {"source": 2, "target": 3, "partitioner": "HASH", "key": {"fn": "x[0]"}},
            {"source": 3, "target": 4, "partitioner": "FORWARD"},
        ],
    }


def make_runnable_version(
    *, pipeline: Pipeline, author: User | None = None, document: dict[str, Any] | None = None
) -> PipelineVersion:
    """The pipeline's next version, of a runnable document (also its working copy)."""
    pipeline.document = document or runnable_document()
    pipeline.save(update_fields=["snapshot", "snapshot_revision"])
    return make_version(pipeline=pipeline, author=author)


def make_run(
    *,
    version: PipelineVersion,
    started_by: User | None = None,
    status: RunStatus = RunStatus.QUEUED,
    heartbeat_seconds_ago: float = 0.0,
    worker: str = "",
) -> Run:
    """A run of `version` as `run_start` stores it, then moved to `status` as is."""
    compilation = compile_document(version.document)
    assert compilation.execution is not None, compilation.diagnostics
    vertices = monitored_vertices(compilation.execution)
    now = timezone.now()
    return Run.objects.create(
        pipeline_id=version.pipeline_id,
        version=version,
        started_by=started_by,
        status=status,
        spark_master="local[2,3]",
        key=uuid.uuid4().hex,
        vertices=[v.to_json() for v in vertices],
        state=monitor_state(RunMonitor(vertices)),
        worker=worker or ("" if status is RunStatus.QUEUED else "elsewhere:1"),
        started_at=None if status is RunStatus.QUEUED else now,
        heartbeat_at=(
            None if status is RunStatus.QUEUED else now - timedelta(seconds=heartbeat_seconds_ago)
        ),
    )


# The run monitor websocket, in process ------------------------------------------------------


class Client:
    """One `ws/runs/<id>/` connection through the full ASGI stack."""

    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.communicator = communicator

    async def receive(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        return dict(json.loads(await self.communicator.receive_from(timeout=timeout)))

    async def nothing_more(self) -> bool:
        return bool(await self.communicator.receive_nothing(timeout=0.3))

    async def close(self) -> None:
        await self.communicator.disconnect()


async def connect(run_id: int, user: User | None) -> tuple[bool, int | None, Client]:
    headers = []
    if user is not None:
        token, _ = await database_sync_to_async(Token.objects.get_or_create)(user=user)
        headers = [(b"authorization", f"Token {token.key}".encode())]
    communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/", headers=headers)
    connected, code = await open_socket(communicator)
    return connected, code, Client(communicator)


async def watch(run_id: int, user: User | None) -> tuple[Client, dict[str, Any]]:
    """A connected client and the snapshot it got first."""
    connected, code, client = await connect(run_id, user)
    assert connected, code
    snapshot = await client.receive()
    assert snapshot["type"] == "snapshot"
    return client, snapshot


def apply(state: dict[str, Any], update: dict[str, Any]) -> None:
    """What a client does with a `run_update`: merge it into its run (the snapshot's)."""
    assert update["type"] == "run_update" and update["seq"] == state["seq"] + 1
    fields = {k: v for k, v in state.items() if k not in ("vertices", "subtasks")}
    merge(state, fields, update)
    state.update(fields)
    state["seq"] = update["seq"]


# The product, served for real ---------------------------------------------------------------


def database_url() -> str:
    """The URL of the test database pytest-django created, for server processes."""
    from django.db import connection

    settings = connection.settings_dict
    if settings["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings['NAME']}"
    host, port = settings.get("HOST") or "127.0.0.1", settings.get("PORT") or 5432
    return f"postgres://{settings.get('USER') or 'postgres'}@{host}:{port}/{settings['NAME']}"


def served_environment(django_db_blocker: Any, **environment: str) -> dict[str, str]:
    """The environment of the product's processes on the test database (whose runs queue
    only its workers take)."""
    with django_db_blocker.unblock():
        url = database_url()
    return {
        **os.environ,
        "DATABASE_URL": url,
        "PYTHONPATH": os.pathsep.join([str(REPO / "backend"), str(REPO)]),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PASSWORD_HASHERS": ",".join(FAST_HASHERS),
        **environment,
    }


@contextmanager
def serving(django_db_blocker: Any, *, workers: bool = True, **environment: str) -> Iterator[str]:
    """`manage.py serve` on a free port, on the test database (with its Celery workers,
    or none: `--no-worker`); yields `host:port`."""
    port = free_port()
    env = served_environment(django_db_blocker, **environment)
    command = serve_command(port=port) + ([] if workers else ["--no-worker"])
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command,
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # `stop_serving` kills every process of it if it must
        )
        try:
            wait_until_listening(process, host="127.0.0.1", port=port, timeout=60)
            yield f"127.0.0.1:{port}"
        except RuntimeError as error:
            log.seek(0)
            output = log.read().decode()[-3000:]
            pytest.fail(f"manage.py serve did not start ({error}):\n{output}")
        finally:
            stop_serving(process, timeout=30)


@contextmanager
def run_workers(
    django_db_blocker: Any, environments: list[dict[str, str]], *, cluster: str = "default"
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`manage.py run_worker --cluster CLUSTER` processes on the test database, one per
    environment (over `served_environment`), once each waits for runs; stopped as Ctrl+C
    stops them at the end."""
    with ExitStack() as stack:
        started: list[tuple[subprocess.Popen[bytes], IO[bytes]]] = []
        for environment in environments:
            log = stack.enter_context(tempfile.TemporaryFile())
            process = subprocess.Popen(
                [sys.executable, "manage.py", "run_worker", "--cluster", cluster],
                cwd=REPO,
                env=served_environment(django_db_blocker, **environment),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            stack.callback(stop_serving, process, timeout=30)
            started.append((process, log))

        def ready() -> bool:
            for process, log in started:
                assert process.poll() is None, tail(log)
            return all(" ready." in tail(log) for _, log in started)

        wait_for(ready, 60, "the workers waiting for runs")
        yield [process for process, _ in started]


def tail(log: IO[bytes]) -> str:
    """The end of a process's output, for a failure's message."""
    log.seek(0)
    return log.read().decode(errors="replace")[-3000:]


async def follow(
    server: str, token: str, run_id: int, *, timeout: float = 60
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run as a websocket client over the network sees it, from its snapshot to its
    end, and the updates it received."""
    import asyncio

    from websockets.asyncio.client import connect as ws_connect

    async with ws_connect(
        f"ws://{server}/ws/runs/{run_id}/", additional_headers={"Authorization": f"Token {token}"}
    ) as ws:
        snapshot = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
        assert snapshot["type"] == "snapshot"
        state, updates = snapshot["run"], []
        while state["status"] not in ENDED:
            update = json.loads(await asyncio.wait_for(ws.recv(), timeout=timeout))
            apply(state, update)
            updates.append(update)
        return state, updates


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> float:
    """Seconds until `predicate` held; fails the test after `timeout`."""
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started > timeout:
            pytest.fail(f"{what} did not happen within {timeout} s")
        time.sleep(0.1)
    return time.monotonic() - started


def run_status(run_id: int) -> str:
    return str(Run.objects.values_list("status", flat=True).get(pk=run_id))
