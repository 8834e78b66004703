"""What runs a plan for a run's worker: an `Executor`, chosen by name.

An executor runs a plan to its end and returns the result; on the way, it publishes the
subtasks' events on the run's Redis channel (`runtime.events.run_channel`), which the
worker folds into the run's state. `spark` runs the plan on this process's one Spark
session (`runtime.spark`), `local` runs it in this process (`runtime.local`), the
reference the Spark executor is tested against. Neither imports PySpark before it runs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

from runtime.clusters import max_attempts
from runtime.events import RunOutcome, RunResult, run_channel
from runtime.plan import RunPlan


class Executor(Protocol):
    def __call__(
        self, plan: RunPlan, *, run_key: str, master: str, cancel: threading.Event
    ) -> RunResult: ...


def executor_for(name: str, *, redis_url: str) -> Executor:
    """The executor a setting names: `spark` (production) or `local` (the reference)."""
    if name == "spark":
        return SparkExecutor(redis_url)
    if name == "local":
        return LocalExecutor(redis_url)
    raise ValueError(f"unknown executor {name!r}")


@dataclass(frozen=True, slots=True)
class SparkExecutor:
    redis_url: str

    def __call__(
        self, plan: RunPlan, *, run_key: str, master: str, cancel: threading.Event
    ) -> RunResult:
        from runtime.spark.executor import run_on_spark
        from runtime.spark.session import lease_session

        try:
            session = lease_session(master)
        except ValueError:
            return RunResult(
                RunOutcome.FAILED,
                error="this worker runs another cluster's Spark session: each cluster has "
                "workers of its own, on its own queue (runs.tasks.run_queue)",
            )
        return run_on_spark(
            plan, run_key=run_key, redis_url=self.redis_url, session=session, cancel=cancel
        )


@dataclass(frozen=True, slots=True)
class LocalExecutor:
    redis_url: str

    def __call__(
        self, plan: RunPlan, *, run_key: str, master: str, cancel: threading.Event
    ) -> RunResult:
        from runtime.local import run_locally
        from runtime.spark.hooks import event_publisher

        # As Spark's hooks publish: a Redis that is away costs events, never the run.
        publish = event_publisher(self.redis_url, run_channel(run_key))
        return run_locally(plan, publish, max_attempts=max_attempts(master), cancel=cancel)
