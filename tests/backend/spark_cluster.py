"""A Spark standalone cluster on loopback for the tests: one master and one small worker,
started from the pyspark distribution (`spark-class`), each in a process group of its own,
with its work, local and conf folders under the folder given, and stopped by the process
ids started here (the worker's group includes the executors it launched).

Nothing of the caller's Python path reaches the cluster: its executors see only what a
run's Spark session ships them, as on hosts of their own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pyspark

from config.asgi_server import free_port

SPARK_HOME = Path(pyspark.__file__).resolve().parent
START_TIMEOUT = 120.0
STOP_TIMEOUT = 30.0
_DEPLOY = "org.apache.spark.deploy"


@dataclass(frozen=True, slots=True)
class StandaloneCluster:
    master_url: str
    """`spark://127.0.0.1:<port>`, what a cluster profile's `master` names."""
    web_url: str
    """The master's web UI (`/json/` is its state)."""
    work_dir: Path
    """The worker's work folder: one folder per application, one per executor in it."""

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.web_url}/json/", timeout=5) as response:
            return dict(json.load(response))


@contextmanager
def standalone_cluster(
    root: Path, *, cores: int = 2, memory: str = "1g"
) -> Iterator[StandaloneCluster]:
    """A running cluster whose worker has registered with its master; stopped on exit."""
    for folder in ("work", "local", "conf", "logs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")
        and not key.startswith("SPARK_")
    }
    env.update(
        SPARK_HOME=str(SPARK_HOME),
        SPARK_CONF_DIR=str(root / "conf"),  # empty: no site defaults
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_LOCAL_DIRS=str(root / "local"),
        SPARK_WORKER_DIR=str(root / "work"),
    )
    master_port, master_web = free_port(), free_port()
    cluster = StandaloneCluster(
        master_url=f"spark://127.0.0.1:{master_port}",
        web_url=f"http://127.0.0.1:{master_web}",
        work_dir=root / "work",
    )
    master_args = [
        "--host",
        "127.0.0.1",
        "--port",
        str(master_port),
        "--webui-port",
        str(master_web),
    ]
    worker_args = [
        "--host", "127.0.0.1", "--port", str(free_port()), "--webui-port", str(free_port()),
        "--cores", str(cores), "--memory", memory, "--work-dir", str(root / "work"),
        cluster.master_url,
    ]  # fmt: skip
    with ExitStack() as stack:
        master = stack.enter_context(
            _process(root / "logs" / "master.log", env, f"{_DEPLOY}.master.Master", master_args)
        )
        _wait(master, lambda: cluster.state().get("status") == "ALIVE", "the master to start")
        worker = stack.enter_context(
            _process(root / "logs" / "worker.log", env, f"{_DEPLOY}.worker.Worker", worker_args)
        )
        _wait(worker, lambda: cluster.state().get("aliveworkers", 0) >= 1, "the worker to register")
        yield cluster


@contextmanager
def _process(
    log: Path, env: dict[str, str], main_class: str, args: list[str]
) -> Iterator[_Started]:
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(SPARK_HOME / "bin" / "spark-class"), main_class, *args],
            env=env,
            cwd=log.parent,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: the worker's executors stop with it
        )
        started = _Started(process, log, output)
        try:
            yield started
        finally:
            _stop(process)


@dataclass(frozen=True, slots=True)
class _Started:
    process: subprocess.Popen[bytes]
    log: Path
    output: IO[bytes]

    def tail(self) -> str:
        self.output.flush()
        return self.log.read_text(errors="replace")[-3000:]


def _wait(started: _Started, ready: Any, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if started.process.poll() is not None:
            raise RuntimeError(
                f"{what}: it exited ({started.process.returncode}):\n{started.tail()}"
            )
        try:
            if ready():
                return
        except OSError:
            pass  # not listening yet
        except ValueError:
            pass  # the UI is up, its JSON pages not yet: they answer an HTML page first
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {START_TIMEOUT:g} s:\n{started.tail()}")
        time.sleep(0.25)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the group this process leads (it and the processes it started), SIGKILL
    to what is left of the group after `STOP_TIMEOUT`."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        process.wait()
        return
    deadline = time.monotonic() + STOP_TIMEOUT
    while _group_alive(process) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _group_alive(process):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=STOP_TIMEOUT)


def _group_alive(process: subprocess.Popen[bytes]) -> bool:
    process.poll()  # reaps the leader once it exited, so only live members count
    try:
        os.killpg(process.pid, 0)
    except ProcessLookupError:
        return False
    return True
