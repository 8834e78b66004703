"""One SparkSession per process, started on first use and reused by every run.

Starting Spark takes seconds (a JVM, then a Python worker daemon on the first job), so
a process keeps one session for its lifetime. Nothing here runs at import time: a
Celery worker may fork after importing this module, and a JVM does not survive a fork.
`get_session` creates the session under a lock the first time it is called; `stop_session`
removes the listener before it stops Spark (a listener whose Python side is gone makes
the JVM log an error for every event).
"""

from __future__ import annotations

import atexit
import os
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.spark.listener import ListenerHub

if TYPE_CHECKING:
    from pyspark.core.context import SparkContext
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*,3]"
"""All local cores; a failed task is tried up to 3 times (`local[N]` never retries)."""
DEFAULT_PYTHON_WORKER_MEMORY = "1g"

_RUNTIME_ROOT = str(Path(__file__).resolve().parents[2])
"""The folder that holds the `runtime` and `compiler` packages: the workers import them."""


@dataclass(frozen=True, slots=True)
class SparkSettings:
    """How to start Spark. The caller decides (from its settings or `from_environ`)."""

    master: str = DEFAULT_MASTER
    app_name: str = "StreamGraph Studio"
    bind_address: str | None = "127.0.0.1"
    """Address the driver, block manager and UI bind to; None leaves Spark's choice."""
    ui_port: int | None = None
    """None: no web UI. Otherwise the UI listens on this port at `bind_address`."""
    python: str | None = None
    """The workers' Python interpreter; None means this process's interpreter."""
    python_path: tuple[str, ...] = ()
    """More folders for the workers' PYTHONPATH; the runtime's own folder is always first."""
    task_max_failures: int = 3
    """Attempts per task on cluster masters (a local master takes it from `local[N,F]`)."""
    python_worker_memory: str | None = DEFAULT_PYTHON_WORKER_MEMORY
    """The address space each Python worker may use (`spark.executor.pyspark.memory`, a
    Spark size such as `1g`): an expression that builds something huge fails its task
    with MemoryError instead of taking the host's memory. None: no limit."""
    log_level: str = "WARN"
    conf: tuple[tuple[str, str], ...] = ()
    """Further Spark properties, applied last (they override the ones set here)."""

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> SparkSettings:
        """Settings from `SPARK_MASTER`, `SPARK_LOCAL_IP`, `SPARK_UI_PORT` and
        `SPARK_PYTHON_WORKER_MEMORY` (`none`: no limit)."""
        env = os.environ if environ is None else environ
        ui_port = env.get("SPARK_UI_PORT", "").strip()
        memory = env.get("SPARK_PYTHON_WORKER_MEMORY", "").strip() or DEFAULT_PYTHON_WORKER_MEMORY
        return cls(
            master=env.get("SPARK_MASTER", "").strip() or DEFAULT_MASTER,
            bind_address=env.get("SPARK_LOCAL_IP", "").strip() or "127.0.0.1",
            ui_port=int(ui_port) if ui_port else None,
            python_worker_memory=None if memory.lower() == "none" else memory,
        )

    def spark_conf(self) -> dict[str, str]:
        """The Spark properties these settings stand for."""
        python = self.python or sys.executable
        conf = {
            "spark.pyspark.python": python,
            "spark.executorEnv.PYTHONPATH": os.pathsep.join((_RUNTIME_ROOT, *self.python_path)),
            "spark.task.maxFailures": str(self.task_max_failures),
            "spark.ui.enabled": "false" if self.ui_port is None else "true",
            # DataFrame shuffles (none today) should not default to 200 tiny tasks.
            "spark.sql.shuffle.partitions": "8",
            # No progress bars on the worker's stderr: the run's events report progress.
            "spark.ui.showConsoleProgress": "false",
            # A cancelled Python task is killed after this long, which frees its core.
            "spark.python.task.killTimeout": "1s",
            # Python workers stay up between tasks: forking one costs seconds on a cold start.
            "spark.python.worker.reuse": "true",
            # Concurrent runs share the cores: FAIR between the stages of all jobs.
            "spark.scheduler.mode": "FAIR",
            # The session lives long: let the JVM drop finished runs' shuffle files soon,
            # and keep the status of fewer finished jobs than the defaults (1,000 each).
            "spark.cleaner.periodicGC.interval": "5min",
            "spark.ui.retainedJobs": "200",
            "spark.ui.retainedStages": "500",
            "spark.ui.retainedTasks": "20000",
        }
        if self.ui_port is not None:
            conf["spark.ui.port"] = str(self.ui_port)
            # The UI's live pages as fresh as the runs' own progress events.
            conf["spark.ui.liveUpdate.period"] = "250ms"
        if self.python_worker_memory is not None:
            # Python's address space per worker (RLIMIT_AS), set by PySpark's worker.
            conf["spark.executor.pyspark.memory"] = self.python_worker_memory
        if self.bind_address is not None:
            conf["spark.driver.host"] = self.bind_address
            conf["spark.driver.bindAddress"] = self.bind_address
        conf.update(self.conf)
        return conf


@dataclass(frozen=True, slots=True)
class Session:
    """The process's Spark session and the listener registered on it."""

    spark: SparkSession
    settings: SparkSettings
    listener: ListenerHub
    startup_seconds: float
    pid: int

    @property
    def context(self) -> SparkContext:
        return self.spark.sparkContext

    @property
    def application_id(self) -> str:
        return str(self.context.applicationId)


_lock = threading.Lock()
_session: Session | None = None
_atexit_registered = False


def current_session() -> Session | None:
    """The live session of this process, if one was started."""
    session = _session
    if session is not None and session.pid != os.getpid():
        return None
    return session


def get_session(settings: SparkSettings | None = None) -> Session:
    """This process's session, started with `settings` on the first call.

    Later calls return the same session; passing different settings then is an error,
    because a running SparkContext cannot change its master or bindings.
    """
    global _session
    wanted = SparkSettings() if settings is None else settings
    with _lock:
        if _session is not None:
            if _session.pid != os.getpid():
                raise RuntimeError(
                    "the Spark session was started before this process forked; "
                    "start it in the process that runs the jobs"
                )
            if settings is not None and settings != _session.settings:
                raise ValueError(
                    "a Spark session with other settings is already running in this process"
                )
            return _session
        _session = _start(wanted)
        return _session


def lease_session(master: str) -> Session:
    """This process's session, for a worker that serves one cluster: started for `master`
    (the rest of the settings from the environment) by the first run, and shared by every
    run after it. `ValueError` if it runs for another master: restarting it would stall
    every other run on it."""
    return get_session(replace(SparkSettings.from_environ(), master=master))


def stop_session() -> None:
    """Remove the listener and stop Spark; the next `get_session` starts a new session."""
    global _session
    with _lock:
        session, _session = _session, None
        if session is None or session.pid != os.getpid():
            return
        session.listener.detach(session.context)
        session.spark.stop()


def _start(settings: SparkSettings) -> Session:
    global _atexit_registered
    # The JVM is launched as a child process and reads these from its environment.
    os.environ["PYSPARK_PYTHON"] = settings.python or sys.executable
    if settings.bind_address is not None:
        os.environ["SPARK_LOCAL_IP"] = settings.bind_address

    from pyspark.sql import SparkSession

    started = time.perf_counter()
    builder = SparkSession.builder.master(settings.master).appName(settings.app_name)
    pools = _fair_pools_file()
    try:
        conf = {"spark.scheduler.allocation.file": pools, **settings.spark_conf()}
        for key, value in conf.items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
    finally:
        os.unlink(pools)  # read once, while the SparkContext starts
    spark.sparkContext.setLogLevel(settings.log_level)
    listener = ListenerHub()
    listener.attach(spark.sparkContext)
    session = Session(
        spark=spark,
        settings=settings,
        listener=listener,
        startup_seconds=time.perf_counter() - started,
        pid=os.getpid(),
    )
    if not _atexit_registered:
        # Registered after PySpark's own exit hook, so it runs first (LIFO).
        atexit.register(stop_session)
        _atexit_registered = True
    return session


_FAIR_POOLS = """<?xml version="1.0"?>
<allocations>
  <pool name="default">
    <schedulingMode>FAIR</schedulingMode>
    <weight>1</weight>
    <minShare>0</minShare>
  </pool>
</allocations>
"""


def _fair_pools_file() -> str:
    """Spark's scheduler pools: jobs share the default pool fairly, not first come first
    served, so a run started while another runs gets a slot as soon as one frees."""
    handle, path = tempfile.mkstemp(prefix="streamgraph-pools-", suffix=".xml")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(_FAIR_POOLS)
    return path
