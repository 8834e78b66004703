"""The executor-side wrapper of every vertex's partition function.

`Monitored(reporting, vertex, body)` is what `mapPartitionsWithIndex` runs for a
JobVertex: partition i is subtask i. It publishes, on the run's Redis channel,

- INITIALIZING when the Python worker has the task, before the body opens the chain;
- RUNNING once the body has returned its output iterator (the chain is open);
- RUNNING again with the records in and out so far, at most every `progress_period`
  seconds, from a small thread that reads the counters: the record path is untouched;
- FINISHED with the exact records in and out when the output is exhausted;
- FAILED with the error text when the body raises (the exception propagates, so Spark
  fails the attempt and may retry it).

State changes are published at once, from the task's own thread. A killed task
publishes nothing: Spark kills the worker process, and the listener in the driver
reports CANCELED.

The counts come from the object the body hands to `Meter.track` (the chain's
`SubtaskRun` counts at its boundary, as Flink's numRecordsIn / numRecordsOut), or from
`Meter.count_in` / `count_out`, which count a plain iterator chunk by chunk.

This module runs in Spark's Python workers: it imports no PySpark at module level and
keeps one Redis connection per worker process.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Generic, Protocol, TypeVar

from runtime.events import ExecutionState, SubtaskEvent, run_channel

logger = logging.getLogger(__name__)

CHUNK = 1024
"""Records per counting step of `count_in` / `count_out`."""

In = TypeVar("In")
Out = TypeVar("Out")
T = TypeVar("T")
In_contra = TypeVar("In_contra", contravariant=True)
Out_co = TypeVar("Out_co", covariant=True)


@dataclass(frozen=True, slots=True)
class Reporting:
    """Where and how often a run's workers report (picklable: shipped with every task)."""

    run_key: str
    redis_url: str | None
    """None: publish nothing (runs nobody watches, benchmarks without monitoring)."""
    progress_period: float = 0.25

    @property
    def channel(self) -> str:
        return run_channel(self.run_key)


class Counted(Protocol):
    """Something that counts its records in and out as it runs (`chains.SubtaskRun`)."""

    @property
    def records_in(self) -> int: ...

    @property
    def records_out(self) -> int: ...


class Body(Protocol[In_contra, Out_co]):
    """The work of one subtask attempt: opens what it runs, lets `meter` see its counts
    (`meter.track` or `meter.count_in` / `count_out`) and returns its output."""

    def __call__(
        self, subtask: int, attempt: int, records: Iterator[In_contra], meter: Meter
    ) -> Iterator[Out_co]: ...


class Monitored(Generic[In, Out]):
    """`body` as a partition function that reports the subtask's states and counts."""

    def __init__(self, reporting: Reporting, vertex: str, body: Body[In, Out]) -> None:
        self.reporting = reporting
        self.vertex = vertex
        self.body = body

    def __call__(self, subtask: int, records: Iterable[In]) -> Iterator[Out]:
        meter = Meter(self.reporting, self.vertex, subtask, current_attempt())
        meter.publish(ExecutionState.INITIALIZING)
        try:
            output = self.body(subtask, meter.attempt, iter(records), meter)
            meter.publish(ExecutionState.RUNNING)
            meter.start_progress()
            yield from output
        except GeneratorExit:
            meter.stop_progress()
            raise
        except Exception as error:
            meter.stop_progress()
            meter.publish(ExecutionState.FAILED, error=error_text(error))
            raise
        meter.stop_progress()
        meter.publish(ExecutionState.FINISHED)


class Meter:
    """One subtask attempt as its hook reports it."""

    def __init__(self, reporting: Reporting, vertex: str, subtask: int, attempt: int) -> None:
        self.reporting = reporting
        self.vertex = vertex
        self.subtask = subtask
        self.attempt = attempt
        self.records_in = 0
        self.records_out = 0
        self._tracked: Counted | None = None
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._published: tuple[int, int] | None = None

    def track(self, counted: Counted) -> None:
        """Report the counts of `counted` (read live by the progress thread)."""
        self._tracked = counted

    def counts(self) -> tuple[int, int]:
        tracked = self._tracked
        if tracked is not None:
            return tracked.records_in, tracked.records_out
        return self.records_in, self.records_out

    def count_in(self, records: Iterator[T]) -> Iterator[T]:
        """`records`, counted as records in, chunk by chunk."""
        total = 0
        while chunk := list(islice(records, CHUNK)):
            total += len(chunk)
            self.records_in = total
            yield from chunk

    def count_out(self, records: Iterator[T]) -> Iterator[T]:
        """`records`, counted as records out, chunk by chunk."""
        total = 0
        while chunk := list(islice(records, CHUNK)):
            total += len(chunk)
            self.records_out = total
            yield from chunk

    def start_progress(self) -> None:
        if self.reporting.redis_url is None or self.reporting.progress_period <= 0:
            return
        self._thread = threading.Thread(target=self._progress, name="subtask-progress")
        self._thread.daemon = True
        self._thread.start()

    def stop_progress(self) -> None:
        with self._lock:
            self._stopped.set()

    def _progress(self) -> None:
        period = self.reporting.progress_period
        while not self._stopped.wait(period):
            with self._lock:
                if self._stopped.is_set():
                    return
                if self.counts() != self._published:
                    self._publish_locked(ExecutionState.RUNNING, None)

    def publish(self, state: ExecutionState, error: str | None = None) -> None:
        with self._lock:
            self._publish_locked(state, error)

    def _publish_locked(self, state: ExecutionState, error: str | None) -> None:
        url = self.reporting.redis_url
        if url is None:
            return
        records_in, records_out = self._published = self.counts()
        event = SubtaskEvent(
            vertex=self.vertex,
            subtask=self.subtask,
            attempt=self.attempt,
            state=state,
            timestamp=time.time(),
            records_in=records_in,
            records_out=records_out,
            error=error,
            source="hook",
        )
        publish_event(url, self.reporting.channel, event)


def error_text(error: BaseException) -> str:
    """What a person needs to read: the message of the chain's own errors (they name the
    operator), else `ValueError: boom` as the last line of a traceback shows it."""
    if type(error).__name__ in _SELF_DESCRIBING:
        return str(error)
    return "".join(traceback.format_exception_only(type(error), error)).strip()


_SELF_DESCRIBING = frozenset({"OperatorError", "RoutingError", "InjectedFault"})
"""Errors of the chain whose message already says which operator or edge failed."""


def current_attempt() -> int:
    """The attempt number of the Spark task running this code (0 outside Spark)."""
    from pyspark.taskcontext import TaskContext

    context = TaskContext.get()
    return 0 if context is None else int(context.attemptNumber())


# -- one Redis connection per process ---------------------------------------------------


class _Publisher(Protocol):
    def publish(self, channel: str, message: str) -> object: ...


_clients: dict[str, tuple[int, _Publisher]] = {}
_clients_lock = threading.Lock()
_warned = False
_quiet_until = 0.0
"""After a failed publish, events are dropped until then instead of waiting on Redis."""
QUIET_SECONDS = 5.0


def redis_client(url: str) -> _Publisher:
    """This process's Redis client for `url` (a new one after a fork)."""
    pid = os.getpid()
    entry = _clients.get(url)
    if entry is not None and entry[0] == pid:
        return entry[1]
    with _clients_lock:
        entry = _clients.get(url)
        if entry is None or entry[0] != pid:
            import redis

            client: _Publisher = redis.Redis.from_url(
                url, socket_timeout=2.0, socket_connect_timeout=2.0
            )
            entry = (pid, client)
            _clients[url] = entry
        return entry[1]


def publish_event(url: str, channel: str, event: SubtaskEvent) -> None:
    """Publish `event` as JSON. Monitoring never fails or stalls a task: when Redis cannot
    be reached, the failure is logged once and events are dropped for `QUIET_SECONDS`."""
    global _warned, _quiet_until
    if _quiet_until and time.monotonic() < _quiet_until:
        return
    try:
        redis_client(url).publish(channel, json.dumps(event.to_json(), separators=(",", ":")))
    except Exception:
        _quiet_until = time.monotonic() + QUIET_SECONDS
        if not _warned:
            _warned = True
            logger.exception("cannot publish subtask events to %s", channel)


def event_publisher(url: str | None, channel: str) -> Callable[[SubtaskEvent], None]:
    """A `publish(event)` for the driver side (listener, executor)."""
    if url is None:
        return lambda event: None
    return lambda event: publish_event(url, channel, event)
