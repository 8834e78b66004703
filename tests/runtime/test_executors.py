"""The Spark executor leases its process's one session and never restarts it for a run."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from runtime.clusters import ClusterProfile
from runtime.events import RunOutcome
from runtime.executors import SparkExecutor


def test_a_worker_never_restarts_its_spark_session_for_another_master(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The session of the worker's cluster is running; a run for another master must not
    # stop it (other runs use it): it fails instead. The session is a stand-in here; the
    # refusal to start a second one is tested on a real Spark in tests/runtime/spark.
    from runtime.spark import session as spark_session

    def busy(settings: Any) -> Any:
        raise ValueError("a Spark session with other settings is already running")

    stopped: list[bool] = []
    monkeypatch.setattr(spark_session, "get_session", busy)
    monkeypatch.setattr(spark_session, "stop_session", lambda: stopped.append(True))
    result = SparkExecutor("redis://127.0.0.1:6379/0")(
        "the plan",
        run_key="k",
        cluster=ClusterProfile("default", "local[2]", 8, 32),
        cancel=threading.Event(),  # type: ignore[arg-type]
    )
    assert result.outcome is RunOutcome.FAILED
    assert "another cluster's Spark session" in (result.error or "")
    assert stopped == []
