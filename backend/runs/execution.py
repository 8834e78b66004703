"""Executing one run on a worker: the service `runs.tasks.execute_run` calls.

`run_execute` takes the queued run (QUEUED -> CREATED, with this worker's identity),
compiles its version and builds the run plan, subscribes to the run's Redis channels
and only then starts the executor (`RUN_EXECUTOR`: Spark, or the in-process reference
executor) in a thread of its own. This thread becomes the run's collector:

- it folds the events the executor's publishers send into the `RunMonitor`, and writes
  what changed as one journal entry per batch (the events of up to `BATCH_SECONDS`),
  which `runs.journal` publishes to the run's websocket clients after commit;
- it keeps the run's heartbeat (`RUN_HEARTBEAT_SECONDS`) and gives the run up if
  someone else ended it (`run_mark_lost` after a long stall);
- it says on the run when Spark has launched a task of a Python chain but no executor's
  own event arrives within `EVENTS_SILENCE_SECONDS` (executors that cannot reach the
  events' Redis), and takes it back if they arrive after all;
- before the executor starts, it stores how the plan executes beside Flink's plan
  (`runtime.stages`), and at the end the stages the executor reported;
- it turns a cancel request (a message on the run's control channel, or the run's
  status, read every `POLL_SECONDS`) and the soft time limit into the executor's
  cancel event;
- when the executor returns, it reads the events still on their way (until every
  subtask ended, or none came for `DRAIN_QUIET_SECONDS`) and stores the result.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from compiler.pipeline import compile_document
from runs import control
from runs.clusters import cluster_list
from runs.data_folders import without_server_paths, workspace_data_location
from runs.events import RunPublisher
from runs.journal import append, close, monitor_state, run_fields, run_monitor, set_status
from runs.models import ON_A_WORKER, Run, RunStatus
from runtime.clusters import ClusterProfile, limit_problems
from runtime.events import (
    ExecutionState,
    RunOutcome,
    RunResult,
    SubtaskEvent,
    run_channel,
    shown_url,
)
from runtime.executors import Executor, executor_for
from runtime.monitoring import NO_CHANGES, Changes, RunMonitor
from runtime.parameters import document_for_run, injected_faults
from runtime.plan import RunPlan
from runtime.planner import RunOptions, RunPlanError, build_run_plan
from runtime.stages import ExecutionReport, describe_execution

logger = logging.getLogger(__name__)

WORKER = f"{socket.gethostname()}:{os.getpid()}"
"""This process, as runs record who drives them."""

BATCH_SECONDS = 0.02
"""Events that arrive within this long of the first unsaved one share a journal entry."""
BATCH_EVENTS = 1000
POLL_SECONDS = 1.0
"""How often the run's status is read (cancel requested while Redis was away)."""
CHECKPOINT_SECONDS = 2.0
"""How often the whole state is stored with an entry, so readers replay few entries."""
DRAIN_QUIET_SECONDS = 0.5
DRAIN_MAX_SECONDS = 5.0
SUBSCRIBE_TIMEOUT = 5.0
REDIS_RETRY_SECONDS = 0.2
"""How long the collector waits before it reads again from a Redis that was away."""
EVENTS_SILENCE_SECONDS = 8.0
"""How long after Spark launched a run's first task an executor's own event may take to
arrive (a cold Python worker starts, unpacks the code and connects) before the run says
its executors cannot reach the events' Redis."""


def run_execute(
    *, run_id: int, soft_time_limit: float | None = None, time_limit: float | None = None
) -> None:
    """Drive a queued run to its end on this worker (nothing if it is not queued)."""
    run = _claim(run_id)
    if run is None:
        return
    profile = cluster_list().get(run.cluster)
    if profile is None:
        _end_early(run_id, f"there is no cluster {run.cluster!r} in this worker's settings")
        return
    try:
        plan = _plan(run, profile)
        execution = describe_execution(plan, executor=settings.RUN_EXECUTOR)
    except Exception as error:
        logger.exception("run %s could not be planned", run_id)
        known = isinstance(error, RunPlanError)
        _end_early(run_id, str(error) if known else f"{type(error).__name__}: {error}")
        return
    executor = executor_for(
        settings.RUN_EXECUTOR,
        redis_url=settings.RUN_EVENTS_URL,
        code_cache_dir=str(settings.RUNTIME_CACHE_DIR / "spark-code"),
        sql=settings.RUN_SPARK_SQL,
    )
    collector = Collector(
        run,
        plan,
        cluster=profile,
        executor=executor,
        execution=execution,
        soft_time_limit=soft_time_limit,
        time_limit=time_limit,
    )
    collector.run()


# Before the executor starts -----------------------------------------------------------------


def _claim(run_id: int) -> Run | None:
    """QUEUED -> CREATED for this worker; None if the run is not queued (cancelled, taken)."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id, status=RunStatus.QUEUED).first()
        if run is None:
            return None
        before = run_fields(run)
        now = timezone.now()
        set_status(run, RunStatus.CREATED)
        run.worker, run.heartbeat_at, run.started_at = WORKER, now, now
        append(run, before=before)
    return run


def _plan(run: Run, profile: ClusterProfile) -> RunPlan:
    version = run.version
    document, problems = document_for_run(version.document, run.parameters)
    if problems:
        raise RunPlanError(problems)
    compilation = compile_document(document)
    if compilation.execution is not None:
        # Again here: the operator may have lowered the limits since the run was queued.
        limits = limit_problems(compilation.execution, profile)
        if limits:
            raise RunPlanError(limits)
    options = RunOptions(
        data_dir=workspace_data_location(workspace_id=run.pipeline.workspace_id, profile=profile),
        faults=injected_faults(run.parameters) if settings.RUN_FAULT_INJECTION else (),
    )
    return build_run_plan(document, compilation, options)


def _end_early(run_id: int, error: str) -> None:
    """FAIL a claimed run that never reached the executor."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.worker != WORKER or run.run_status.is_terminal:
            return
        shown = without_server_paths(error, workspace_id=run.pipeline.workspace_id)
        close(run, RunStatus.FAILED, error=shown)


_STARTED = frozenset({ExecutionState.INITIALIZING, ExecutionState.RUNNING})
_UNRUN = frozenset({ExecutionState.FAILED, ExecutionState.CANCELED})
"""An attempt that ends so without its hooks' events may never have reached its Python
worker (executor lost, task killed): its silence says nothing about the events' Redis. One
that FINISHED did run there, and stays awaited."""


class EventsUnreachable(RuntimeError):
    """The worker cannot subscribe to the run's channels; the message says where."""


# The collector -------------------------------------------------------------------------------


@dataclass
class _Outcome:
    result: RunResult | None = None
    done: threading.Event = field(default_factory=threading.Event)


class Collector:
    """Drives one run: see the module docstring."""

    def __init__(
        self,
        run: Run,
        plan: RunPlan,
        *,
        cluster: ClusterProfile,
        executor: Executor,
        execution: ExecutionReport | None = None,
        soft_time_limit: float | None = None,
        time_limit: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.run_id = run.pk
        self.workspace_id = run.pipeline.workspace_id
        self.key = run.key
        self.cluster = cluster
        self.plan = plan
        self.executor = executor
        self.execution = execution
        """How the plan executes; stored before the executor starts and with the stages
        it reports at the end."""
        self.clock = clock
        started = clock()
        self.soft_deadline = None if soft_time_limit is None else started + soft_time_limit
        self.hard_deadline = None if time_limit is None else started + time_limit
        self.monitor: RunMonitor = run_monitor(run)
        self.cancel = threading.Event()
        self.cancel_reason: str | None = None
        self.outcome = _Outcome()
        self.started: dict[str, Any] | None = None
        """What the executor said when the run got somewhere to go, not stored yet."""
        self.pending: list[SubtaskEvent] = []
        """Received, not folded yet."""
        self.unsaved: list[SubtaskEvent] = []
        """Folded, not stored yet (stored with the next entry)."""
        self.changes: Changes = NO_CHANGES
        """Changes not stored yet."""
        self.first_pending = 0.0
        self.next_poll = started + POLL_SECONDS
        self.next_heartbeat = started + settings.RUN_HEARTBEAT_SECONDS
        self.next_checkpoint = started + CHECKPOINT_SECONDS
        self.given_up = False
        """Someone else ended the run (lost worker): stop writing to it."""
        self.redis_away = False
        self.awaiting: dict[tuple[str, int, int], float] = {}
        """Attempts Spark launched (the listener's DEPLOYING) that nobody said started
        yet, and when: a hook says INITIALIZING; the listener says it at once for a
        subtask that runs as Spark SQL, in the JVM, with no hook."""
        self.heard_executors = False
        """An executor's own event (its hooks') has arrived."""
        self.events_silent = False
        """The run says its executors' events do not arrive."""
        self.publisher = RunPublisher()
        self.redis = redis.Redis.from_url(settings.RUN_EVENTS_URL)
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=False)
        self.channel = run_channel(self.key).encode()

    def run(self) -> None:
        try:
            self._subscribe()
            self._poll(self.clock())  # cancelled while it was being planned?
            if self.execution is not None and not self.given_up:
                self._save(execution=self.execution.to_json())
            threading.Thread(
                target=self._execute, name=f"run-{self.run_id}-executor", daemon=True
            ).start()
            self._collect()
        except EventsUnreachable as error:
            logger.error("run %s: %s", self.run_id, error)
            self.cancel.set()
            if not self.given_up:
                self._finish(RunResult(RunOutcome.FAILED, error=str(error)))
        except Exception:
            logger.exception("run %s: the collector failed", self.run_id)
            self.cancel.set()
            if not self.given_up:
                self._finish(RunResult(RunOutcome.FAILED, error="the run's collector failed"))
        finally:
            self.pubsub.close()
            self.redis.close()
            self.publisher.close()

    # Threads ----------------------------------------------------------------------------

    def _execute(self) -> None:
        try:
            self.outcome.result = self.executor(
                self.plan,
                run_key=self.key,
                cluster=self.cluster,
                cancel=self.cancel,
                started=self._started,
            )
        except BaseException as error:  # the collector must hear of every end
            logger.exception("run %s: the executor raised", self.run_id)
            self.outcome.result = RunResult(
                RunOutcome.FAILED, error=f"{type(error).__name__}: {error}"
            )
        finally:
            self.outcome.done.set()

    def _started(self, details: dict[str, Any]) -> None:
        # From the executor's thread: the collector stores it with its next poll.
        self.started = dict(details)

    def _subscribe(self) -> None:
        """Subscribe, and wait until Redis confirms: no event can be published before."""
        channels = {self.channel, control.cancel_channel(self.key).encode()}
        try:
            self.pubsub.subscribe(*channels)
        except redis.RedisError as error:
            raise EventsUnreachable(
                f"this worker cannot reach the Redis of run events at "
                f"{shown_url(settings.RUN_EVENTS_URL)} (RUN_EVENTS_URL): {error}"
            ) from error
        deadline = self.clock() + SUBSCRIBE_TIMEOUT
        confirmed: set[bytes] = set()
        while confirmed != channels:
            if self.clock() > deadline:
                raise RuntimeError("Redis did not confirm the run's subscriptions")
            message = self.pubsub.get_message(timeout=0.1)
            if message is not None and message["type"] == "subscribe":
                confirmed.add(message["channel"])

    def _collect(self) -> None:
        drain_started: float | None = None
        last_event = self.clock()
        while True:
            now = self.clock()
            wait = self.next_poll - now
            if self.pending:
                wait = min(wait, self.first_pending + BATCH_SECONDS - now)
            if self.outcome.done.is_set():
                wait = min(wait, 0.05)
            if self._receive(max(0.0, wait)):
                last_event = self.clock()
            now = self.clock()
            if self.pending and (
                now >= self.first_pending + BATCH_SECONDS or len(self.pending) >= BATCH_EVENTS
            ):
                self._fold()
                self._save()
            if self.started is not None:
                self._store_started()
            self._watch_events(now)
            if now >= self.next_poll:
                self._poll(now)
            if self.given_up:
                return
            if self.hard_deadline is not None and now >= self.hard_deadline:
                # The executor did not stop in time: end the run without it.
                self.cancel_reason = "time limit"
                self.cancel.set()
                self._finish(RunResult(RunOutcome.FAILED))
                return
            if self.outcome.done.is_set():
                drain_started = now if drain_started is None else drain_started
                quiet = now - last_event >= DRAIN_QUIET_SECONDS
                if self.monitor.all_terminal() or quiet or now - drain_started >= DRAIN_MAX_SECONDS:
                    result = self.outcome.result
                    assert result is not None
                    self._finish(result)
                    return

    def _receive(self, wait: float) -> bool:
        """Read what has arrived (waiting up to `wait` for the first message).

        With Redis away, nothing arrives: the run goes on (its executor's events are lost,
        the end infers what they would have said) and the subscriptions come back with
        Redis, which the next read reconnects to."""
        received = False
        try:
            message = self.pubsub.get_message(timeout=wait)
        except (redis.ConnectionError, redis.TimeoutError) as error:
            if not self.redis_away:
                logger.warning("run %s: Redis is away (%s); reading again", self.run_id, error)
            self.redis_away = True
            time.sleep(min(wait, REDIS_RETRY_SECONDS))
            return False
        self.redis_away = False
        while message is not None:
            if message["type"] == "message":
                received = True
                if message["channel"] == self.channel:
                    self._queue(message["data"])
                elif message["data"] == control.CANCEL:
                    self._request_cancel("canceled")
            if len(self.pending) >= BATCH_EVENTS:
                break
            try:
                message = self.pubsub.get_message(timeout=0)
            except (redis.ConnectionError, redis.TimeoutError):
                break  # the next read notices
        return received

    def _queue(self, data: bytes) -> None:
        try:
            event = SubtaskEvent.from_json(json.loads(data))
        except (ValueError, KeyError, TypeError):
            logger.warning("run %s: dropped a malformed event %r", self.run_id, data[:200])
            return
        if event.error:
            shown = without_server_paths(event.error, workspace_id=self.workspace_id)
            event = dataclasses.replace(event, error=shown)
        if not self.pending:
            self.first_pending = self.clock()
        self.pending.append(event)

    # Folding and storing -------------------------------------------------------------------

    def _fold(self) -> None:
        if self.pending:
            for event in self.pending:
                if event.source == "hook":
                    self.heard_executors = True
                attempt = (event.vertex, event.subtask, event.attempt)
                if event.state is ExecutionState.DEPLOYING:
                    self.awaiting.setdefault(attempt, self.clock())
                elif event.state in _STARTED or event.state in _UNRUN:
                    self.awaiting.pop(attempt, None)
            self.changes |= self.monitor.apply(self.pending)
            self.unsaved += self.pending
            self.pending = []

    def _save(self, **fields: Any) -> None:
        """Store what changed as one journal entry (nothing if nothing did)."""
        if not self.changes and not fields:
            return
        now = self.clock()
        checkpoint = now >= self.next_checkpoint or bool(fields)
        body = self.monitor.changes_json(self.changes)
        with transaction.atomic():
            run = Run.objects.select_for_update().get(pk=self.run_id)
            if run.worker != WORKER or run.run_status.is_terminal:
                self._give_up()
                return
            before = run_fields(run)
            set_status(run, RunStatus(self.monitor.status.value))
            for name, value in fields.items():
                setattr(run, name, value)
            run.heartbeat_at = timezone.now()
            append(
                run,
                before=before,
                vertices=body["vertices"],
                subtasks=body["subtasks"],
                events=self.unsaved,
                checkpoint=monitor_state(self.monitor) if checkpoint else None,
                publish=self.publisher.publish,
            )
        self.unsaved, self.changes = [], NO_CHANGES
        self.next_heartbeat = now + settings.RUN_HEARTBEAT_SECONDS
        if checkpoint:
            self.next_checkpoint = now + CHECKPOINT_SECONDS

    def _watch_events(self, now: float) -> None:
        """Say on the run, within seconds, that its executors' events do not arrive;
        take it back when they do."""
        if self.heard_executors:
            if self.events_silent:
                self.events_silent = False
                self._fold()
                self._save(events_problem="")
            return
        if self.events_silent or not self.awaiting:
            return
        waited = now - min(self.awaiting.values())
        if waited < EVENTS_SILENCE_SECONDS:
            return
        self.events_silent = True
        url = shown_url(self.cluster.events_url or settings.RUN_EVENTS_URL)
        where = "its eventsUrl" if self.cluster.events_url else "RUN_EVENTS_URL"
        self._fold()
        self._save(
            events_problem=(
                f"Spark launched this run's tasks {math.ceil(waited)} s ago, but no executor has "
                f"reported: they cannot publish to {url} (cluster {self.cluster.name!r}, "
                f"{where}). Subtask states are what Spark's driver sees, without records in "
                "and out. The executors' logs (stderr in the Spark UI) say why."
            )
        )

    def _store_started(self) -> None:
        """The executor's first facts (the Spark application) as the run's details, so the
        run page can link to it while the run runs."""
        started, self.started = self.started, None
        self._fold()
        self._save(details={**(started or {}), "executor": settings.RUN_EXECUTOR})

    def _poll(self, now: float) -> None:
        self.next_poll = now + POLL_SECONDS
        if now >= self.next_heartbeat:
            self.next_heartbeat = now + settings.RUN_HEARTBEAT_SECONDS
            beat = Run.objects.filter(pk=self.run_id, worker=WORKER, status__in=ON_A_WORKER)
            if not beat.update(heartbeat_at=timezone.now()):
                self._give_up()
                return
        status = Run.objects.filter(pk=self.run_id).values_list("status", flat=True).first()
        if status == RunStatus.CANCELING:
            self._request_cancel("canceled")
        elif status is None or RunStatus(status).is_terminal:
            self._give_up()
        if self.soft_deadline is not None and now >= self.soft_deadline:
            self._request_cancel("time limit")

    def _request_cancel(self, reason: str) -> None:
        if self.cancel.is_set():
            return
        self.cancel_reason = reason
        self.cancel.set()
        self._fold()
        events, changes = self.monitor.request_cancel(timestamp=time.time())
        self.unsaved += events
        self.changes |= changes
        self._save()

    def _give_up(self) -> None:
        if not self.given_up:
            logger.warning("run %s was ended elsewhere; this worker stops driving it", self.run_id)
        self.given_up = True
        self.cancel.set()

    def _finish(self, result: RunResult) -> None:
        self._fold()
        if self.cancel_reason == "time limit" and result.outcome is not RunOutcome.FINISHED:
            limit = settings.RUN_SOFT_TIME_LIMIT
            result = RunResult(
                RunOutcome.FAILED,
                sinks=result.sinks,
                error=f"the run took longer than its time limit ({limit} s) and was stopped",
                details=result.details,
            )
        events, changes = self.monitor.finish(result.outcome, timestamp=time.time())
        self.unsaved += events
        self.changes |= changes
        execution = {}
        if self.execution is not None and result.stages is not None:
            observed = self.execution.observed(result.stages, result.engines)
            execution["execution"] = observed.to_json()
        self._save(
            **execution,
            status=RunStatus(result.outcome.value),
            # A cancel is not an error: only a failed run says what went wrong.
            error=without_server_paths(result.error or "", workspace_id=self.workspace_id)
            if result.outcome is RunOutcome.FAILED
            else "",
            sinks=[sink.to_json() for sink in result.sinks],
            details={**result.details, "executor": settings.RUN_EXECUTOR},
            finished_at=timezone.now(),
        )
