"""One SparkSession per process, started on first use and reused by every run.

Starting Spark takes seconds (a JVM, then a Python worker daemon on the first job), so
a process keeps one session for its lifetime. Nothing here runs at import time: a
Celery worker may fork after importing this module, and a JVM does not survive a fork.
`get_session` creates the session under a lock the first time it is called; `stop_session`
removes the listener before it stops Spark (a listener whose Python side is gone makes
the JVM log an error for every event).

The executors import the code from a zip the session ships (`runtime.shipping`,
`addPyFile`), never from this host's folders, on local masters as on clusters: a cluster's
executors share nothing with the driver but the cluster.
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

from runtime.clusters import CLUSTER_TASK_ATTEMPTS, ClusterProfile
from runtime.shipping import code_zip
from runtime.spark.javafns import available, jar_path, register
from runtime.spark.listener import ListenerHub

if TYPE_CHECKING:
    from pyspark.core.context import SparkContext
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*,3]"
"""All local cores; a failed task is tried up to 3 times (`local[N]` never retries)."""
DEFAULT_PYTHON_WORKER_MEMORY = "1g"

DEFAULT_CODE_CACHE = Path(tempfile.gettempdir()) / "streamgraph-spark-code"
"""Where the code zip is kept when the caller names no folder."""


@dataclass(frozen=True, slots=True)
class SparkSettings:
    """How to start Spark. The caller decides (from its settings or `from_environ`)."""

    master: str = DEFAULT_MASTER
    app_name: str = "StreamGraph Studio"
    bind_address: str | None = "127.0.0.1"
    """Address the driver, block manager and UI bind to; None: Spark binds `host`'s."""
    host: str | None = None
    """The address executors connect back to; None: `bind_address`."""
    ui_port: int | None = None
    """None: no web UI. Otherwise the UI listens on this port at `bind_address`."""
    python: str | None = None
    """The workers' Python interpreter; None means this process's interpreter."""
    python_path: tuple[str, ...] = ()
    """Folders for the workers' PYTHONPATH (on a local master: this host's). The runtime
    and the compiler never come from there: the session ships them (`code_cache_dir`)."""
    code_cache_dir: str | None = None
    """Where the zip of the code is kept between sessions; None: `DEFAULT_CODE_CACHE`."""
    task_max_failures: int = CLUSTER_TASK_ATTEMPTS
    """Attempts per task on cluster masters (a local master takes it from `local[N,F]`; a
    profile's `sparkConf` may set another)."""
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

    @classmethod
    def for_cluster(
        cls,
        profile: ClusterProfile,
        environ: Mapping[str, str] | None = None,
        *,
        code_cache_dir: str | None = None,
    ) -> SparkSettings:
        """Settings for a worker of `profile`'s cluster: its master and Spark properties, the
        rest from the environment (`from_environ`). The driver stays on loopback (or
        `SPARK_LOCAL_IP`) for a local master unless the profile says otherwise; for a
        cluster it binds and advertises what the profile says (`runtime.clusters` made sure
        it says where executors reach it)."""
        base = cls.from_environ(environ)
        bind = profile.bind_address
        if bind is None and profile.is_local:
            bind = base.bind_address
        return replace(
            base,
            master=profile.master,
            bind_address=bind,
            host=profile.host,
            python=profile.executor_python,
            code_cache_dir=code_cache_dir,
            conf=tuple(profile.spark_properties().items()),
        )

    def spark_conf(self) -> dict[str, str]:
        """The Spark properties these settings stand for."""
        python = self.python or sys.executable
        conf = {
            "spark.pyspark.python": python,
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
        if self.python_path:
            conf["spark.executorEnv.PYTHONPATH"] = os.pathsep.join(self.python_path)
        if self.bind_address is not None:
            conf["spark.driver.bindAddress"] = self.bind_address
        host = self.host or self.bind_address
        if host is not None:
            conf["spark.driver.host"] = host
        conf.update(self.conf)
        jar = jar_path()
        if jar is not None:
            # The SQL path's Java functions, served to every executor (`javafns`).
            jars = conf.get("spark.jars")
            conf["spark.jars"] = f"{jar},{jars}" if jars else jar
        if self.python_worker_memory is not None:
            # Python's address space per worker (RLIMIT_AS), set by PySpark's worker; after
            # the further properties, so that none of them lifts it.
            conf["spark.executor.pyspark.memory"] = self.python_worker_memory
        return conf


@dataclass(frozen=True, slots=True)
class Session:
    """The process's Spark session and the listener registered on it."""

    spark: SparkSession
    settings: SparkSettings
    listener: ListenerHub
    startup_seconds: float
    pid: int
    code: str
    """The name of the code zip the executors import (its content hash in it)."""

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


def lease_session(cluster: ClusterProfile, *, code_cache_dir: str | None = None) -> Session:
    """This process's session, for a worker that serves one cluster: started for `cluster`
    (`SparkSettings.for_cluster`) by the first run, and shared by every run after it.
    `ValueError` if it runs for another cluster: restarting it would stall every other run
    on it."""
    return get_session(SparkSettings.for_cluster(cluster, code_cache_dir=code_cache_dir))


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
    code = _ship_code(spark.sparkContext, Path(settings.code_cache_dir or DEFAULT_CODE_CACHE))
    if available(spark):
        register(spark)
    listener = ListenerHub()
    listener.attach(spark.sparkContext)
    session = Session(
        spark=spark,
        settings=settings,
        listener=listener,
        startup_seconds=time.perf_counter() - started,
        pid=os.getpid(),
        code=code.name,
    )
    if not _atexit_registered:
        # Registered after PySpark's own exit hook, so it runs first (LIFO).
        atexit.register(stop_session)
        _atexit_registered = True
    return session


def _ship_code(context: SparkContext, cache_dir: Path) -> Path:
    """Ship the code zip to every executor of `context`, for every task from now on."""
    path = code_zip(cache_dir)
    before = list(sys.path)
    context.addPyFile(str(path))
    # addPyFile also puts the zip on this process's path (for local-mode tests); the
    # driver keeps importing its own code, so its tracebacks name the source files.
    sys.path[:] = [entry for entry in sys.path if entry in before]
    return path


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
