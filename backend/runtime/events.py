"""What a run reports: subtask state changes, sink output and the run's outcome.

Executors and the driver publish `SubtaskEvent`s as JSON on the run's Redis channel
(`run_channel`); the runs app folds them (`runtime.monitoring`) and forwards them to
browsers. The JSON keys are camelCase, as everything the browser reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any
from urllib.parse import SplitResult, urlsplit


class ExecutionState(Enum):
    """Flink's `ExecutionState`, in the order an attempt moves through them."""

    CREATED = "CREATED"
    SCHEDULED = "SCHEDULED"
    DEPLOYING = "DEPLOYING"
    INITIALIZING = "INITIALIZING"
    RUNNING = "RUNNING"
    FINISHED = "FINISHED"
    CANCELING = "CANCELING"
    CANCELED = "CANCELED"
    FAILED = "FAILED"

    @property
    def is_terminal(self) -> bool:
        return self in _TERMINAL


_TERMINAL = frozenset({ExecutionState.FINISHED, ExecutionState.CANCELED, ExecutionState.FAILED})


def run_channel(run_key: str) -> str:
    """The Redis pub/sub channel a run's events are published on."""
    return f"run-events:{run_key}"


EVENTS_URL_SCHEMES = ("redis", "rediss", "unix")
"""Redis URLs as redis-py reads them: `rediss` is TLS, `unix` a socket on the host."""


class EventsUrlError(ValueError):
    """A Redis URL for run events that cannot be used; the message says why."""


def check_events_url(url: object, *, where: str) -> str:
    """`url` if it is a Redis URL (`redis://[[user]:password@]host[:port][/db][?options]`,
    `rediss://` for TLS, `unix:///path.sock`); `EventsUrlError` naming `where` otherwise.
    The message never repeats the URL, which may hold a password."""
    if (
        not isinstance(url, str)
        or not url
        or not url.isprintable()
        or any(c.isspace() for c in url)
    ):
        raise EventsUrlError(f"{where}: give a Redis URL as text without spaces")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (reading it checks it)
    except ValueError as error:
        raise EventsUrlError(f"{where}: not a URL ({error})") from None
    if parts.scheme not in EVENTS_URL_SCHEMES:
        raise EventsUrlError(
            f"{where}: the scheme is {parts.scheme or 'missing'}; use redis://, rediss:// "
            "(TLS) or unix://"
        )
    if parts.scheme != "unix" and not parts.hostname:
        raise EventsUrlError(f"{where}: name the Redis host, as in redis://host:6379/0")
    if parts.scheme == "unix" and not parts.path:
        raise EventsUrlError(f"{where}: name the socket, as in unix:///run/redis.sock")
    return url


def shown_url(url: str) -> str:
    """`url` as logs and the run page may show it: no password, no query options (they may
    name key files)."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return f"unix://{parts.path}"
    netloc = parts.hostname or ""
    if parts.hostname and ":" in parts.hostname:
        netloc = f"[{netloc}]"
    if parts.port is not None:
        netloc = f"{netloc}:{parts.port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    return SplitResult(parts.scheme, netloc, parts.path, "", "").geturl()


_NODE_NAMED = re.compile(r"\(node (\d+)\)")


def node_named_in(error: str) -> int | None:
    """The operator an attempt's error is about: the runtime's own errors name it as
    `Map (node 2): ...` (`OperatorError`) or `... into Reduce (node 6): ...` (routing);
    None for anything else (a lost worker, a Spark failure outside the chain)."""
    match = _NODE_NAMED.search(error)
    return None if match is None else int(match.group(1))


@dataclass(frozen=True, slots=True)
class SubtaskEvent:
    """One observation of one attempt of one subtask (ExecutionVertex)."""

    vertex: str
    """JobVertexID, 32 lower-case hex characters."""
    subtask: int
    """0-based subtask index."""
    attempt: int
    """0-based attempt number (Flink's `attemptNumber`; Spark's task attempt)."""
    state: ExecutionState
    timestamp: float
    """When it happened, seconds since the epoch, on the machine that saw it."""
    records_in: int = 0
    records_out: int = 0
    error: str | None = None
    """Why the attempt failed, for FAILED."""
    source: str = "hook"
    """Who observed it: `hook` (the Python worker), `listener` (the Spark driver) or `driver`."""

    def to_json(self) -> dict[str, Any]:
        return {
            "vertex": self.vertex,
            "subtask": self.subtask,
            "attempt": self.attempt,
            "state": self.state.value,
            "timestamp": self.timestamp,
            "recordsIn": self.records_in,
            "recordsOut": self.records_out,
            "error": self.error,
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SubtaskEvent:
        """Read an event published by `to_json`; raises KeyError or ValueError if malformed."""
        return cls(
            vertex=str(data["vertex"]),
            subtask=int(data["subtask"]),
            attempt=int(data["attempt"]),
            state=ExecutionState(data["state"]),
            timestamp=float(data["timestamp"]),
            records_in=int(data.get("recordsIn", 0)),
            records_out=int(data.get("recordsOut", 0)),
            error=None if data.get("error") is None else str(data["error"]),
            source=str(data.get("source", "hook")),
        )


@dataclass(frozen=True, slots=True)
class SinkOutput:
    """What one subtask of a sink wrote: its record count and a bounded preview."""

    node: int
    """The sink's StreamNode id."""
    vertex: str
    subtask: int
    records: int
    preview: tuple[str, ...]
    """The first records as text (`sink.print` lines as Flink prints them)."""
    truncated: bool
    files: tuple[str, ...] = ()
    """Files written, relative to the data folder."""

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "vertex": self.vertex,
            "subtask": self.subtask,
            "records": self.records,
            "preview": list(self.preview),
            "truncated": self.truncated,
            "files": list(self.files),
        }


@dataclass(frozen=True, slots=True)
class StageRun:
    """One stage as the executor saw it run: a Spark stage attempt, or a vertex of the
    local executor. Times are seconds since the epoch; None when not seen."""

    stage: int
    """Spark's stage id (the local executor: the vertex's position in the plan)."""
    attempt: int
    vertices: tuple[str, ...]
    """The JobVertexIDs whose subtasks it ran, in plan order (none for a stage that only
    moves a shuffle's output into another one)."""
    edge: int | None = None
    """For such a stage: the StreamEdge whose records it moves."""
    reads: tuple[int, ...] = ()
    """The file sources whose files it read, on another scheme than `file:`."""
    writes: tuple[int, ...] = ()
    """The file sinks whose parts it wrote, on another scheme than `file:`."""
    parents: tuple[int, ...] = ()
    """The stages whose output it reads (Spark's parent stage ids)."""
    submitted: float | None = None
    completed: float | None = None
    failed: bool = False


class RunOutcome(Enum):
    FINISHED = "FINISHED"
    FAILED = "FAILED"
    CANCELED = "CANCELED"


@dataclass(frozen=True, slots=True)
class VertexEngine:
    """What ran a vertex: `sql` (Spark SQL, in the JVM) or `python` (its generated
    chain), and for `python` on Spark why not SQL (`runtime.spark.sqlpath`)."""

    vertex: str
    engine: str
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"vertex": self.vertex, "engine": self.engine, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class RunResult:
    """How a run ended, and what its sinks produced."""

    outcome: RunOutcome
    sinks: tuple[SinkOutput, ...] = ()
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    """Executor facts worth keeping (Spark master, application id, timings)."""
    stages: tuple[StageRun, ...] | None = None
    """The stages that began, as the executor saw them; None when no executor reported
    them (a run its worker ended without one)."""
    engines: tuple[VertexEngine, ...] = ()
    """Per vertex, in plan order, what ran it; empty: every vertex its Python chain."""
