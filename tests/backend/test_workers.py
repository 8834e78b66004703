"""`manage.py run_worker`: workers sharing the runs queue, as workers on several hosts do
(`test_runs_two_workers.py` on a standalone cluster, as compose runs them): the web server
without workers (`manage.py serve --no-worker`) and two `manage.py run_worker` processes
of their own, all on the test database and Redis.

- Queued runs are shared: each is driven by the one worker that claimed it, and a busy
  worker holds no queued run back from an idle one.
- A worker killed in the middle of a run: the reaper of the other fails that run within
  seconds (the web server, without workers, reaps too), and the queue's next run
  finishes on the other.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.authtoken.models import Token

from runs.models import Run
from runs.worker import stop_children
from tests.backend.factories import Team, make_team
from tests.backend.runs_support import (
    ENDED,
    make_runnable_version,
    run_status,
    run_workers,
    runnable_document,
    serving,
    wait_for,
)
from tests.backend.test_live_server import Http

pytestmark = pytest.mark.django_db(transaction=True)

ENVIRONMENT = {
    "RUN_EXECUTOR": "local",
    # One run at a time each, so that two runs at once need both workers.
    "RUN_WORKER_CONCURRENCY": "1",
    "RUN_HEARTBEAT_SECONDS": "1",
    "RUN_HEARTBEAT_TIMEOUT": "4",
}


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    with serving(django_db_blocker, workers=False, **ENVIRONMENT) as host:
        yield host


@pytest.fixture(scope="module")
def workers(server: str, django_db_blocker: Any) -> Iterator[list[subprocess.Popen[bytes]]]:
    with run_workers(django_db_blocker, [ENVIRONMENT, ENVIRONMENT]) as processes:
        yield processes


SHORT, LONG, TINY = 2, 3, 4
"""Versions of the team's pipeline: a second of work, far more, and next to none."""


@pytest.fixture
def team() -> Team:
    team = make_team()
    for to in (200_000, 200_000_000, 1_000):
        make_runnable_version(
            pipeline=team.pipeline, author=team.owner, document=runnable_document(to=to)
        )
    return team


def start(server: str, team: Team, version: int) -> int:
    token = Token.objects.get_or_create(user=team.owner)[0].key
    status, run = Http(server, token).call(
        "POST", f"/api/pipelines/{team.pipeline.pk}/runs/", {"version": version}
    )
    assert status == 201, run
    return int(run["id"])


def test_workers_share_the_queue_and_each_run_has_one(
    server: str, workers: list[subprocess.Popen[bytes]], team: Team
) -> None:
    runs = [start(server, team, SHORT) for _ in range(4)]
    wait_for(lambda: all(run_status(r) in ENDED for r in runs), 90, "the four runs ending")
    ended = Run.objects.filter(pk__in=runs)
    assert {run.status for run in ended} == {"FINISHED"}
    # Both workers drove runs: each claimed its own (QUEUED -> CREATED once, by it).
    # The commands became the workers: the runs' drivers are those very processes.
    drivers = {run.worker for run in ended}
    assert drivers == {f"{socket.gethostname()}:{process.pid}" for process in workers}
    for run in ended:
        claims = [
            entry.changes["run"]
            for entry in run.journal.order_by("seq")
            if entry.changes.get("run", {}).get("status") == "CREATED"
        ]
        assert [claim["worker"] for claim in claims] == [run.worker]


def test_a_killed_worker_s_run_fails_and_the_queue_goes_on(
    server: str, workers: list[subprocess.Popen[bytes]], team: Team
) -> None:
    long = start(server, team, LONG)
    wait_for(lambda: run_status(long) == "RUNNING", 60, "the long run running")
    driver = Run.objects.get(pk=long).worker
    os.kill(int(driver.rsplit(":", 1)[1]), signal.SIGKILL)
    took = wait_for(lambda: run_status(long) == "FAILED", 30, "the killed worker's run failing")
    assert took < 15
    lost = Run.objects.get(pk=long)
    assert lost.error.startswith(f"lost worker: {driver} stopped reporting")
    # The next run finishes on the other worker.
    after = start(server, team, TINY)
    wait_for(lambda: run_status(after) in ENDED, 60, "the next run ending")
    assert run_status(after) == "FINISHED"
    assert Run.objects.get(pk=after).worker not in {driver, ""}
    assert [process.poll() is None for process in workers].count(True) == 1


def test_a_worker_of_an_unknown_cluster_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(CommandError, match=r"no cluster 'nope'.*the clusters are: default"):
        call_command("run_worker", "--cluster", "nope")


def test_children_that_ignore_sigterm_stop_together_within_the_timeout() -> None:
    """`serve` stops its server and workers in `timeout` seconds at most, however many: a
    server killed meanwhile (a test's teardown) would leave the rest running."""
    stubborn = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('ready', flush=True); time.sleep(60)"
    )
    children = [
        subprocess.Popen([sys.executable, "-c", stubborn], stdout=subprocess.PIPE) for _ in range(3)
    ]
    for child in children:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
    started = time.monotonic()
    stop_children(children, timeout=2.0)
    # Each waited for in turn, three would take 6 s.
    assert time.monotonic() - started < 4.5
    assert [child.returncode for child in children] == [-signal.SIGKILL] * 3
    for child in children:
        assert child.stdout is not None
        child.stdout.close()
