"""How the Celery workers that execute runs are started and kept: one command line for
`serve`, `manage.py worker` and tests, and the supervision both commands share.

A worker uses a pool of threads, not processes: every run it executes at once shares
the process's one Spark session (starting one costs seconds and most of a gigabyte).
Workers of one cluster may run on several hosts: they take runs from the same queue in
Redis, each run is claimed by exactly one of them (`runs.execution`), and the reaper of
every worker fails the runs of a worker that stopped beating.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping

from django.conf import settings

from runs.tasks import run_queue
from runtime.clusters import DEFAULT


def worker_command(
    *, cluster: str = DEFAULT, concurrency: int | None = None, loglevel: str = "INFO"
) -> list[str]:
    """A Celery worker for one cluster's runs queue (`run_queue`; the default cluster's
    worker also takes Celery's default queue). One process per cluster: its runs share the
    process's one Spark session, started for that cluster's master and never restarted."""
    threads = settings.RUN_WORKER_CONCURRENCY if concurrency is None else concurrency
    queues = f"celery,{run_queue()}" if cluster == DEFAULT else run_queue(cluster)
    return [
        sys.executable, "-m", "celery", "-A", "config", "worker",
        # Unique on its host, so several supervisors may run there.
        "--hostname", f"{cluster}.{os.getpid()}@%h",
        "--loglevel", loglevel,
        "--queues", queues,
        "--pool", "threads", "--concurrency", str(threads),
    ]  # fmt: skip


def worker_environment() -> dict[str, str]:
    """This process's environment for the processes it starts: Celery and uvicorn import
    `config` and the apps from the backend folder."""
    path = os.pathsep.join(filter(None, [str(settings.BACKEND_DIR), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


RESTART_SECONDS = 5
"""How long a worker that exited stays down before it is started again."""


class Workers:
    """One Celery worker per cluster, each started again `RESTART_SECONDS` after it exits."""

    def __init__(
        self, clusters: Iterable[str], *, env: Mapping[str, str], say: Callable[[str], None]
    ) -> None:
        self.env = dict(env)
        self.say = say
        self.processes = {name: self._start(name) for name in clusters}
        self.exited: dict[str, float] = {}
        """Clusters whose worker exited, and when."""

    def _start(self, cluster: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(worker_command(cluster=cluster), env=self.env)

    def watch(self) -> None:
        """Start again the workers that have been down long enough (call it every second)."""
        now = time.monotonic()
        for name, process in self.processes.items():
            if process.poll() is None:
                continue
            if name not in self.exited:
                self.exited[name] = now
                self.say(
                    f"The Celery worker of cluster {name!r} exited with status "
                    f"{process.returncode}; starting another in {RESTART_SECONDS} s."
                )
            elif now - self.exited[name] >= RESTART_SECONDS:
                del self.exited[name]
                self.processes[name] = self._start(name)


def stop_children(children: list[subprocess.Popen[bytes]], *, timeout: float) -> None:
    """SIGTERM to each child still running, then SIGKILL to those still running `timeout`
    seconds later: the children stop together, so stopping takes `timeout` at most however
    many there are."""
    for child in children:
        if child.poll() is None:
            child.terminate()
    deadline = time.monotonic() + timeout
    for child in children:
        try:
            child.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def stop_on_sigterm() -> None:
    """`docker stop` and process managers send SIGTERM: stop as on Ctrl-C (the main
    thread's `KeyboardInterrupt`)."""
    signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
