"""`manage.py run_worker`: a Celery worker of its own, as a second container or host starts
one, takes its cluster's runs from the queue `serve`'s workers take them from."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from config.asgi_server import stop_serving
from runs.models import Run
from runs.services import run_start
from tests.backend.conftest import FAST_HASHERS
from tests.backend.factories import make_team
from tests.backend.runs_support import (
    REPO,
    database_url,
    make_runnable_version,
    run_status,
    wait_for,
)


def test_an_unknown_cluster_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(CommandError, match=r"no cluster 'nope'.*the clusters are: default"):
        call_command("run_worker", "--cluster", "nope")


@pytest.mark.django_db(transaction=True)
def test_the_worker_takes_a_queued_run_and_drives_it_to_its_end(django_db_blocker: Any) -> None:
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner)  # version 2
    run = run_start(pipeline=team.pipeline, actor=team.editor, version=2)
    with django_db_blocker.unblock():
        url = database_url()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PASSWORD_HASHERS": ",".join(FAST_HASHERS),
        "RUN_EXECUTOR": "local",
    }
    command = [sys.executable, "manage.py", "run_worker", "--cluster", "default"]
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for(lambda: run_status(run.pk) in ("FINISHED", "FAILED"), 60, "the run's end")
        except BaseException:
            log.seek(0)
            print(log.read().decode()[-3000:])
            raise
        finally:
            stop_serving(process, timeout=30)
    run.refresh_from_db()
    assert (run.status, run.error) == ("FINISHED", "")
    # The command became the worker: the run's worker is this very process.
    assert run.worker == f"{socket.gethostname()}:{process.pid}"
    assert Run.objects.filter(worker=run.worker).count() == 1
