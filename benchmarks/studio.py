"""The product served for real, as the Spark benchmark drives it: `manage.py serve`
(uvicorn, its Celery worker with one Spark session, Redis) on a database of its own,
used over REST and the run monitor websocket like a browser would."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from config.asgi_server import free_port, serve_command, stop_serving, wait_until_listening

REPO = Path(__file__).resolve().parents[1]
ENDED = ("FINISHED", "FAILED", "CANCELED")
PASSWORD = "bench-Password-4711"


class StudioError(RuntimeError):
    """The product answered something the benchmark cannot go on with."""


def server_environment(
    *, database_url: str, data_dir: Path, master: str, extra: dict[str, str] | None = None
) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_DEBUG": "false",
        "SECRET_KEY": "benchmark-only-secret-key-0123456789abcdef",
        "PYTHONPATH": os.pathsep.join([str(REPO / "backend"), str(REPO)]),
        "RUNTIME_DATA_DIR": str(data_dir),
        "RUN_EXECUTOR": "spark",
        "SPARK_MASTER": master,
        **(extra or {}),
    }


@contextmanager
def serving(env: dict[str, str], log: IO[bytes]) -> Iterator[tuple[str, int]]:
    """Migrate the database, then `manage.py serve` on a free port until the block ends;
    yields `host:port` and the server's process id. Its output goes to `log`."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=REPO,
        env=env,
        check=True,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    port = free_port()
    process = subprocess.Popen(
        serve_command(port=port),
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # `stop_serving` kills every process of it if it must
    )
    try:
        wait_until_listening(process, host="127.0.0.1", port=port, timeout=120)
        yield f"127.0.0.1:{port}", process.pid
    finally:
        stop_serving(process, timeout=60)


@dataclass
class Studio:
    """A signed-in client of one server."""

    host: str
    token: str = ""
    workspace: int = 0

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        request = urllib.request.Request(
            f"http://{self.host}{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers=headers,
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def expect(self, status: int, method: str, path: str, body: Any = None) -> Any:
        got, answer = self.call(method, path, body)
        if got != status:
            raise StudioError(f"{method} {path}: {got} {json.dumps(answer)[:2000]}")
        return answer

    def register(self, username: str) -> None:
        answer = self.expect(
            201, "POST", "/api/auth/register/", {"username": username, "password": PASSWORD}
        )
        self.token = answer["token"]
        [workspace] = self.expect(200, "GET", "/api/workspaces/")
        self.workspace = workspace["id"]

    def saved_pipeline(self, document: dict[str, Any]) -> int:
        """A new pipeline with `document` saved as its version 1; its id."""
        pipeline = self.expect(
            201,
            "POST",
            "/api/pipelines/",
            {"workspace": self.workspace, "name": document["name"], "document": document},
        )
        self.expect(201, "POST", f"/api/pipelines/{pipeline['id']}/versions/", {"message": "v1"})
        return int(pipeline["id"])

    def start_run(self, pipeline: int, params: dict[str, Any] | None = None) -> int:
        body: dict[str, Any] = {"version": 1}
        if params:
            body["parameters"] = {"params": params}
        run = self.expect(201, "POST", f"/api/pipelines/{pipeline}/runs/", body)
        return int(run["id"])

    def run_detail(self, run: int) -> dict[str, Any]:
        detail: dict[str, Any] = self.expect(200, "GET", f"/api/runs/{run}/")
        return detail

    def journal(self, run: int) -> list[dict[str, Any]]:
        """Every stored entry of a run, in order."""
        entries: list[dict[str, Any]] = []
        while True:
            after = entries[-1]["seq"] if entries else 0
            page = self.expect(200, "GET", f"/api/runs/{run}/journal/?after={after}&limit=500")
            if not page:
                return entries
            entries.extend(page)


@dataclass
class Followed:
    """A run as one websocket client saw it: its snapshot, then every update in order,
    each with the wall-clock time (`time.time()`) the client had read it."""

    snapshot: dict[str, Any]
    updates: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    ended_at: float = 0.0
    """`time.perf_counter()` when the client read the update that ended the run."""

    @property
    def status(self) -> str:
        status = self.snapshot["status"]
        for _, update in self.updates:
            status = update["run"].get("status") or status
        return str(status)


async def follow(host: str, token: str, run: int, *, timeout: float = 3600) -> Followed:
    """Connect to `ws/runs/<run>/` and read until the run has ended."""
    from websockets.asyncio.client import connect

    deadline = time.monotonic() + timeout
    url = f"ws://{host}/ws/runs/{run}/"
    signed_in = {"Authorization": f"Token {token}"}
    async with connect(url, max_size=None, additional_headers=signed_in) as ws:
        first = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
        if first["type"] != "snapshot":
            raise StudioError(f"the run monitor sent {first['type']} before its snapshot")
        followed = Followed(snapshot=first["run"])
        if followed.status in ENDED:
            followed.ended_at = time.perf_counter()
            return followed
        while True:
            frame = await asyncio.wait_for(ws.recv(), timeout=max(1.0, deadline - time.monotonic()))
            received, ended = time.time(), time.perf_counter()
            message = json.loads(frame)
            if message["type"] != "run_update":
                raise StudioError(f"the run monitor sent {message}")
            followed.updates.append((received, message))
            if message["run"].get("status") in ENDED:
                followed.ended_at = ended
                return followed
