"""One real SparkSession for the whole test session, and the run events seen in Redis.

Spark takes about seven seconds to start, so every test shares the session started by
the `spark` fixture (the way a worker process shares it between runs). Events are read
from the real Redis, exactly as the runs app reads them.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from compiler.pipeline import compile_document
from runtime.events import ExecutionState, RunResult, SubtaskEvent, run_channel
from runtime.local import run_locally
from runtime.monitoring import MonitoredVertex, RunMonitor
from runtime.plan import RunPlan
from runtime.planner import RunOptions, build_run_plan
from runtime.spark.executor import run_on_spark
from runtime.spark.session import Session, SparkSettings, get_session, stop_session
from runtime.stages import ExecutionReport, describe_execution

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
RUN_TIMEOUT = 300.0
# Four task slots on any machine: two runs can hold tasks at the same time (Spark never
# preempts a running task, so with as many slots as cores a long run can make a second
# one wait for a free slot).
TEST_SETTINGS = SparkSettings(master="local[4,3]", app_name="streamgraph-runtime-tests")


@pytest.fixture(scope="session")
def spark() -> Iterator[Session]:
    session = get_session(TEST_SETTINGS)
    yield session
    stop_session()


@pytest.fixture
def viewfs(spark: Session, tmp_path: Path) -> Iterator[Callable[[Path], str]]:
    """`viewfs(folder)`: a `viewfs://` URI of `folder`, another scheme than `file:` that only
    Hadoop's `FileSystem` reads (its mount table links to the folder); Hadoop's readers
    split files every 512 bytes meanwhile."""
    conf = spark.context._jsc.hadoopConfiguration()
    keys: list[str] = ["mapreduce.input.fileinputformat.split.maxsize"]
    conf.set(keys[0], "512")

    def mount(folder: Path) -> str:
        table = f"t{uuid.uuid4().hex[:12]}"
        keys.append(f"fs.viewfs.mounttable.{table}.link./data")
        conf.set(keys[-1], f"file://{folder}")
        return f"viewfs://{table}/data"

    yield mount
    for key in keys:
        conf.unset(key)


@pytest.fixture
def redis_url() -> str:
    return REDIS_URL


class EventLog:
    """Every event published on one run's channel, in the order Redis delivered them."""

    def __init__(self, url: str, run_key: str) -> None:
        self.run_key = run_key
        self.events: list[SubtaskEvent] = []
        self.received: list[float] = []
        self._changed = threading.Condition()
        self._client = redis.Redis.from_url(url)
        self._pubsub = self._client.pubsub()
        self._pubsub.subscribe(run_channel(run_key))
        # Redis confirms the subscription; only then is every later publish delivered.
        confirmation = self._pubsub.get_message(timeout=5)
        assert confirmation is not None and confirmation["type"] == "subscribe"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            message = self._pubsub.get_message(timeout=0.05)
            if message is None or message["type"] != "message":
                continue
            event = SubtaskEvent.from_json(json.loads(message["data"]))
            with self._changed:
                self.events.append(event)
                self.received.append(time.time())
                self._changed.notify_all()

    def wait_for(self, predicate: Callable[[list[SubtaskEvent]], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self.events):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(remaining)
            return True

    def settle(self, quiet: float = 0.3, timeout: float = 5.0) -> list[SubtaskEvent]:
        """The events once none arrived for `quiet` seconds."""
        deadline = time.monotonic() + timeout
        count = -1
        while time.monotonic() < deadline:
            with self._changed:
                if len(self.events) == count:
                    break
                count = len(self.events)
            time.sleep(quiet)
        with self._changed:
            return list(self.events)

    def of(self, vertex: str, subtask: int) -> list[SubtaskEvent]:
        with self._changed:
            return [e for e in self.events if e.vertex == vertex and e.subtask == subtask]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._pubsub.close()
        self._client.close()


@pytest.fixture
def run_events(redis_url: str) -> Iterator[Callable[[], EventLog]]:
    """`run_events()` subscribes to a fresh run key's channel; closed after the test."""
    logs: list[EventLog] = []

    def subscribe() -> EventLog:
        log = EventLog(redis_url, f"test-{uuid.uuid4().hex}")
        logs.append(log)
        return log

    yield subscribe
    for log in logs:
        log.close()


def states(events: list[SubtaskEvent], source: str | None = None) -> list[tuple[int, str]]:
    """(attempt, state) of `events`, optionally of one source only."""
    return [(e.attempt, e.state.value) for e in events if source is None or e.source == source]


def final_state(events: list[SubtaskEvent]) -> ExecutionState | None:
    """The state of the highest attempt, the way the monitor folds it (terminal wins)."""
    if not events:
        return None
    top = max(e.attempt for e in events)
    mine = [e.state for e in events if e.attempt == top]
    terminal = [s for s in mine if s.is_terminal]
    return terminal[-1] if terminal else mine[-1]


# -- plans and runs ---------------------------------------------------------------------


def plan_of(
    document: dict[str, Any], data_dir: Any = ".", *, seed: int = 7, faults: tuple[Any, ...] = ()
) -> RunPlan:
    """Compile and plan a `streamgraph/v1` document."""
    compilation = compile_document(document)
    options = RunOptions(data_dir=str(data_dir), preview_size=10_000, seed=seed, faults=faults)
    return build_run_plan(document, compilation, options)


def run_local(plan: RunPlan, *, max_attempts: int = 3) -> RunResult:
    """The reference executor's result for `plan`."""
    return run_locally(plan, lambda event: None, max_attempts=max_attempts)


def run_spark(
    spark: Session, plan: RunPlan, log: EventLog | None = None, **options: Any
) -> RunResult:
    """`plan` on the test session; events go to `log`'s channel when one is given.

    A run is stopped after `RUN_TIMEOUT` seconds unless told otherwise: a test that goes
    wrong fails instead of holding the shared session's task slots."""
    run_key = log.run_key if log is not None else f"test-{uuid.uuid4().hex}"
    options.setdefault("timeout", RUN_TIMEOUT)
    return run_on_spark(plan, run_key=run_key, redis_url=REDIS_URL, session=spark, **options)


def received(result: RunResult, node: int) -> dict[int, list[Any]]:
    """Per subtask of sink `node` (`sink.collect`), the records it received, sorted."""
    by_subtask: dict[int, list[Any]] = {}
    for output in result.sinks:
        if output.node == node:
            assert not output.truncated
            records = [json.loads(line) for line in output.preview]
            by_subtask.setdefault(output.subtask, []).extend(records)
    return {s: sorted(r, key=repr) for s, r in sorted(by_subtask.items())}


def monitor_of(plan: RunPlan, events: list[SubtaskEvent]) -> RunMonitor:
    """The events folded the way the runs app folds them."""
    monitor = RunMonitor(
        MonitoredVertex(v.id, v.name, v.parallelism, v.max_parallelism) for v in plan.vertices
    )
    monitor.apply(events)
    return monitor


def reported_stages(plan: RunPlan, result: RunResult) -> ExecutionReport:
    """The run's stages as Spark reported them, checked against the plan's: the same
    stages, each reading the stages the plan says it reads (Spark's parent stages) and
    submitted only once they had completed."""
    assert result.stages is not None
    planned = describe_execution(plan, executor="spark")
    report = planned.observed(result.stages)
    assert sorted((sorted(s.vertices), s.edge or -1) for s in report.stages) == sorted(
        (sorted(s.vertices), s.edge or -1) for s in planned.stages
    )
    number_of = {s.stage_id: s.number for s in report.stages}
    for stage in report.stages:
        attempts = [r for r in result.stages if r.stage == stage.stage_id]
        assert {number_of[p] for p in attempts[-1].parents} == set(stage.after)
        for number in stage.after:
            read = report.stages[number - 1]
            assert read.completed is not None and stage.submitted is not None
            assert read.completed <= stage.submitted
    return report
