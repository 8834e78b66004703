"""What runs a plan for a run's worker: an `Executor`, chosen by name.

An executor runs a plan to its end on a cluster profile's Spark and returns the result;
on the way, it publishes the subtasks' events on the run's Redis channel
(`runtime.events.run_channel`; `redis_url` as the worker reaches it, the profile's
`events_url` as its executors do), which the worker folds into the run's state, and tells
`started` what it knows once the run has somewhere to go (the Spark application). `spark`
runs the plan on this process's one Spark session (`runtime.spark`), `local` runs it in
this process (`runtime.local`), the reference the Spark executor is tested against.
Neither imports PySpark before it runs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from runtime.clusters import ClusterProfile
from runtime.events import RunOutcome, RunResult, run_channel
from runtime.plan import RunPlan

Started = Callable[[dict[str, Any]], None]
"""Called once before the job starts, with facts the run's details keep
(`applicationId`, `master`, `code`)."""


class Executor(Protocol):
    def __call__(
        self,
        plan: RunPlan,
        *,
        run_key: str,
        cluster: ClusterProfile,
        cancel: threading.Event,
        started: Started | None = None,
    ) -> RunResult: ...


def executor_for(
    name: str, *, redis_url: str, code_cache_dir: str | None = None, sql: bool = True
) -> Executor:
    """The executor a setting names: `spark` (production) or `local` (the reference).
    `sql`: Spark runs the vertices that translate as Spark SQL (`spark.sqlpath`)."""
    if name == "spark":
        return SparkExecutor(redis_url, code_cache_dir, sql)
    if name == "local":
        return LocalExecutor(redis_url)
    raise ValueError(f"unknown executor {name!r}")


@dataclass(frozen=True, slots=True)
class SparkExecutor:
    redis_url: str
    code_cache_dir: str | None = None
    """Where the session keeps the zip of the code it ships (`runtime.shipping`)."""
    sql: bool = True

    def __call__(
        self,
        plan: RunPlan,
        *,
        run_key: str,
        cluster: ClusterProfile,
        cancel: threading.Event,
        started: Started | None = None,
    ) -> RunResult:
        from runtime.spark.executor import run_on_spark
        from runtime.spark.session import lease_session

        try:
            session = lease_session(cluster, code_cache_dir=self.code_cache_dir)
        except ValueError:
            return RunResult(
                RunOutcome.FAILED,
                error="this worker runs another cluster's Spark session: each cluster has "
                "workers of its own, on its own queue (runs.tasks.run_queue)",
            )
        if started is not None:
            started(
                {
                    "applicationId": session.application_id,
                    "code": session.code,
                }
            )
        return run_on_spark(
            plan,
            run_key=run_key,
            redis_url=self.redis_url,
            executors_redis_url=cluster.events_url,
            session=session,
            cancel=cancel,
            sql=self.sql,
        )


@dataclass(frozen=True, slots=True)
class LocalExecutor:
    redis_url: str

    def __call__(
        self,
        plan: RunPlan,
        *,
        run_key: str,
        cluster: ClusterProfile,
        cancel: threading.Event,
        started: Started | None = None,
    ) -> RunResult:
        from runtime.local import run_locally
        from runtime.spark.hooks import event_publisher

        # As Spark's hooks publish: a Redis that is away costs events, never the run.
        publish = event_publisher(self.redis_url, run_channel(run_key))
        return run_locally(plan, publish, max_attempts=cluster.max_attempts, cancel=cancel)
