"""The live state of a run, folded from the `SubtaskEvent`s its publishers send.

Python hooks in the Spark executors and the listener in the driver publish events for
the same attempts, in any order and more than once. `RunMonitor` folds them so that the
result depends only on which events arrived, never on their order:

- Every subtask (ExecutionVertex) of every vertex exists from the start, in CREATED,
  with attempt 0.
- An attempt's state is the greatest of its events' states in one fixed order
  (`_precedence`): CREATED < SCHEDULED < DEPLOYING < INITIALIZING < RUNNING < CANCELING,
  and every terminal state above every other. Among terminal states an observed one
  (hook, listener, any other publisher) beats one the driver inferred, which beats one
  this module inferred (`SYNTHESIZED`); among equals CANCELED > FAILED > FINISHED (Spark
  may kill a task whose Python code had already finished; Spark's word is the last).
  So a state never goes backwards within an attempt.
- Records in / out of an attempt are the largest counts reported for it; per state, the
  earliest timestamp is kept. An attempt starts with its first DEPLOYING, INITIALIZING,
  RUNNING, FINISHED or FAILED and ends when its terminal state was first seen.
- A subtask's state is its highest attempt's: a Spark task retry is a new attempt that
  supersedes the earlier ones, which stay in the history with their errors.
- A vertex's status follows Flink's `ExecutionJobVertex.getAggregateJobVertexState`;
  its records are the sums over its subtasks' current attempts.

The run's status is CREATED until a subtask leaves CREATED, then RUNNING; CANCELING
once `request_cancel` was called; the outcome once `finish` (or `abandon`) was called.
Those three calls turn what the controller knows into ordinary events (source
`monitor`), returned so that they can be stored with the others: replaying the stored
events into a fresh monitor gives the same subtask and vertex state.

Every call that changes something returns `Changes`, so only what changed is sent on.
Pure: no I/O, no clock, no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from compiler.execution import ExecutionGraph
from compiler.hashing import to_hex
from compiler.keygroups import key_group_range
from runtime.events import ExecutionState, RunOutcome, SubtaskEvent, node_named_in

SYNTHESIZED = "monitor"
"""The `source` of the events this module infers (cancel, finish, abandon)."""

_S = ExecutionState
_RANK: dict[ExecutionState, int] = {
    _S.CREATED: 0,
    _S.SCHEDULED: 1,
    _S.DEPLOYING: 2,
    _S.INITIALIZING: 3,
    _S.RUNNING: 4,
    _S.CANCELING: 5,
    _S.FINISHED: 6,
    _S.FAILED: 7,
    _S.CANCELED: 8,
}
_TERMINAL_WEIGHT = {SYNTHESIZED: 0, "driver": 1}
"""How much a terminal state counts by who reported it; any other publisher counts 2."""
_ERROR_WEIGHT = {SYNTHESIZED: 0, "driver": 1, "listener": 2, "hook": 3}
"""Whose error text is kept when several publishers give one (the hook's has the
Python exception)."""
_STARTED = (_S.DEPLOYING, _S.INITIALIZING, _S.RUNNING, _S.FINISHED, _S.FAILED)
_NOT_DEPLOYED = frozenset({_S.CREATED, _S.SCHEDULED})


def _precedence(state: ExecutionState, source: str) -> tuple[int, int, int]:
    if state.is_terminal:
        return (1, _TERMINAL_WEIGHT.get(source, 2), _RANK[state])
    return (0, 0, _RANK[state])


class RunStatus(Enum):
    CREATED = "CREATED"
    RUNNING = "RUNNING"
    CANCELING = "CANCELING"
    FINISHED = "FINISHED"
    FAILED = "FAILED"
    CANCELED = "CANCELED"

    @property
    def is_terminal(self) -> bool:
        return self in (RunStatus.FINISHED, RunStatus.FAILED, RunStatus.CANCELED)


@dataclass(frozen=True, slots=True)
class MonitoredVertex:
    """What the monitor needs of one JobVertex of the run plan."""

    id: str
    """JobVertexID, 32 lower-case hex characters."""
    name: str
    parallelism: int
    max_parallelism: int

    def subtask_name(self, index: int) -> str:
        """Flink's `Name (i/p)`."""
        return f"{self.name} ({index + 1}/{self.parallelism})"

    def key_groups(self, index: int) -> tuple[int, int]:
        """The inclusive key-group range of subtask `index`."""
        return key_group_range(self.max_parallelism, self.parallelism, index)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "parallelism": self.parallelism,
            "maxParallelism": self.max_parallelism,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MonitoredVertex:
        return cls(
            id=str(data["id"]),
            name=str(data["name"]),
            parallelism=int(data["parallelism"]),
            max_parallelism=int(data["maxParallelism"]),
        )


def monitored_vertices(execution: ExecutionGraph) -> tuple[MonitoredVertex, ...]:
    """The vertices of a compiled plan, in its topological order."""
    return tuple(
        MonitoredVertex(
            id=to_hex(vertex.id),
            name=vertex.job_vertex.name,
            parallelism=vertex.parallelism,
            max_parallelism=vertex.max_parallelism,
        )
        for vertex in execution.vertices
    )


SubtaskKey = tuple[str, int]
"""(vertex id, subtask index)."""


@dataclass(frozen=True, slots=True)
class Changes:
    """What one call changed: subtasks, vertex aggregates and the run's status."""

    subtasks: frozenset[SubtaskKey] = frozenset()
    vertices: frozenset[str] = frozenset()
    status: bool = False

    def __bool__(self) -> bool:
        return bool(self.subtasks or self.vertices or self.status)

    def __or__(self, other: Changes) -> Changes:
        return Changes(
            subtasks=self.subtasks | other.subtasks,
            vertices=self.vertices | other.vertices,
            status=self.status or other.status,
        )


NO_CHANGES = Changes()


@dataclass(slots=True)
class _Attempt:
    number: int
    state: ExecutionState = _S.CREATED
    precedence: tuple[int, int, int] = (0, 0, 0)
    records_in: int = 0
    records_out: int = 0
    first_seen: dict[ExecutionState, float] = field(default_factory=dict)
    """The earliest timestamp reported per state."""
    error: str | None = None
    error_key: tuple[int, str] | None = None
    failed_node: int | None = None
    """The operator `error` names, to mark it on the canvas."""

    @property
    def start_time(self) -> float | None:
        seen = [self.first_seen[s] for s in _STARTED if s in self.first_seen]
        return min(seen) if seen else None

    @property
    def end_time(self) -> float | None:
        return self.first_seen.get(self.state) if self.state.is_terminal else None

    def visible(self) -> tuple[Any, ...]:
        """Everything `to_json` shows, to tell whether an event changed it."""
        return (
            self.state,
            self.records_in,
            self.records_out,
            self.start_time,
            self.end_time,
            self.error,
        )

    def fold(self, event: SubtaskEvent) -> None:
        precedence = _precedence(event.state, event.source)
        if precedence > self.precedence:
            self.state, self.precedence = event.state, precedence
        self.records_in = max(self.records_in, event.records_in)
        self.records_out = max(self.records_out, event.records_out)
        seen = self.first_seen.get(event.state)
        if seen is None or event.timestamp < seen:
            self.first_seen[event.state] = event.timestamp
        if event.error is not None:
            key = (_ERROR_WEIGHT.get(event.source, 2), event.error)
            if self.error_key is None or key > self.error_key:
                self.error, self.error_key = event.error, key
                self.failed_node = node_named_in(event.error)

    def to_json(self) -> dict[str, Any]:
        return {
            "attempt": self.number,
            "state": self.state.value,
            "recordsIn": self.records_in,
            "recordsOut": self.records_out,
            "startTime": self.start_time,
            "endTime": self.end_time,
            "error": self.error,
            "failedNode": self.failed_node,
        }


@dataclass(slots=True)
class _Subtask:
    vertex: MonitoredVertex
    index: int
    attempts: dict[int, _Attempt] = field(default_factory=lambda: {0: _Attempt(0)})
    current: int = 0

    @property
    def attempt(self) -> _Attempt:
        return self.attempts[self.current]

    def fold(self, event: SubtaskEvent) -> bool:
        """Fold one event; True if anything `to_json` shows changed."""
        attempt = self.attempts.get(event.attempt)
        if attempt is None:
            attempt = self.attempts[event.attempt] = _Attempt(event.attempt)
            before: tuple[Any, ...] | None = None
        else:
            before = attempt.visible()
        attempt.fold(event)
        if event.attempt > self.current:
            self.current = event.attempt
            return True
        return before != attempt.visible()

    def to_json(self) -> dict[str, Any]:
        start, end = self.vertex.key_groups(self.index)
        return {
            "vertex": self.vertex.id,
            "subtask": self.index,
            "name": self.vertex.subtask_name(self.index),
            "keyGroups": [start, end],
            **self.attempt.to_json(),
            "attempts": [self.attempts[n].to_json() for n in sorted(self.attempts)],
        }


def _aggregate_state(counts: dict[ExecutionState, int], parallelism: int) -> ExecutionState:
    """Flink's `ExecutionJobVertex.getAggregateJobVertexState`."""
    for state in (_S.FAILED, _S.CANCELING, _S.CANCELED, _S.INITIALIZING, _S.RUNNING):
        if counts[state] > 0:
            return state
    if counts[_S.FINISHED] > 0:
        return _S.FINISHED if counts[_S.FINISHED] == parallelism else _S.RUNNING
    return _S.CREATED


class RunMonitor:
    """The state of every subtask, vertex and the run itself; see the module docstring."""

    def __init__(self, vertices: Iterable[MonitoredVertex]) -> None:
        self._vertices: dict[str, MonitoredVertex] = {}
        self._subtasks: dict[str, list[_Subtask]] = {}
        for vertex in vertices:
            if vertex.id in self._vertices:
                raise ValueError(f"vertex {vertex.id} is listed twice")
            if vertex.parallelism < 1:
                raise ValueError(f"vertex {vertex.id} has parallelism {vertex.parallelism}")
            self._vertices[vertex.id] = vertex
            self._subtasks[vertex.id] = [_Subtask(vertex, i) for i in range(vertex.parallelism)]
        self._order = {vertex_id: i for i, vertex_id in enumerate(self._vertices)}
        self._aggregates = {vertex_id: self._aggregate(vertex_id) for vertex_id in self._vertices}
        self._started = False
        self._cancel_requested = False
        self._outcome: RunStatus | None = None
        self.ignored = 0
        """Events for vertices or subtasks the plan does not have (dropped)."""

    @classmethod
    def for_execution(cls, execution: ExecutionGraph) -> RunMonitor:
        return cls(monitored_vertices(execution))

    # Reading ----------------------------------------------------------------------------

    @property
    def vertices(self) -> tuple[MonitoredVertex, ...]:
        return tuple(self._vertices.values())

    @property
    def status(self) -> RunStatus:
        if self._outcome is not None:
            return self._outcome
        if self._cancel_requested:
            return RunStatus.CANCELING
        return RunStatus.RUNNING if self._started else RunStatus.CREATED

    def subtask_state(self, vertex: str, index: int) -> ExecutionState:
        return self._subtasks[vertex][index].attempt.state

    def subtask_json(self, vertex: str, index: int) -> dict[str, Any]:
        return self._subtasks[vertex][index].to_json()

    def vertex_json(self, vertex: str) -> dict[str, Any]:
        return self._aggregates[vertex]

    def all_terminal(self) -> bool:
        """True when every subtask's current attempt is FINISHED, CANCELED or FAILED."""
        return all(s.attempt.state.is_terminal for s in self._all_subtasks())

    def to_json(self) -> dict[str, Any]:
        """Everything: `status`, `vertices` (aggregates) and `subtasks`, in plan order."""
        return {
            "status": self.status.value,
            "vertices": [self._aggregates[v] for v in self._vertices],
            "subtasks": [s.to_json() for s in self._all_subtasks()],
        }

    def changes_json(self, changes: Changes) -> dict[str, Any]:
        """What `changes` names, in the shape of `to_json` (`status` only if it changed)."""
        order = self._order
        body: dict[str, Any] = {
            "vertices": [
                self._aggregates[v] for v in sorted(changes.vertices, key=order.__getitem__)
            ],
            "subtasks": [
                self._subtasks[vertex][index].to_json()
                for vertex, index in sorted(changes.subtasks, key=lambda k: (order[k[0]], k[1]))
            ],
        }
        if changes.status:
            body["status"] = self.status.value
        return body

    # Folding ----------------------------------------------------------------------------

    def apply(self, events: Iterable[SubtaskEvent]) -> Changes:
        """Fold events in; what changed."""
        status = self.status
        changed: set[SubtaskKey] = set()
        for event in events:
            subtasks = self._subtasks.get(event.vertex)
            if subtasks is None or not 0 <= event.subtask < len(subtasks) or event.attempt < 0:
                self.ignored += 1
                continue
            subtask = subtasks[event.subtask]
            if subtask.fold(event):
                changed.add((event.vertex, event.subtask))
                if subtask.current > 0 or subtask.attempt.state is not _S.CREATED:
                    self._started = True
        vertices: set[str] = set()
        for vertex_id in {key[0] for key in changed}:
            aggregate = self._aggregate(vertex_id)
            if aggregate != self._aggregates[vertex_id]:
                self._aggregates[vertex_id] = aggregate
                vertices.add(vertex_id)
        return Changes(frozenset(changed), frozenset(vertices), self.status is not status)

    def request_cancel(self, *, timestamp: float) -> tuple[tuple[SubtaskEvent, ...], Changes]:
        """Cancel asked for: deployed subtasks go CANCELING, the others CANCELED (as Flink)."""
        if self._cancel_requested or self._outcome is not None:
            return (), NO_CHANGES
        status = self.status
        self._cancel_requested = True
        events = tuple(
            self._event(
                subtask,
                subtask.current,
                _S.CANCELED if subtask.attempt.state in _NOT_DEPLOYED else _S.CANCELING,
                timestamp,
            )
            for subtask in self._all_subtasks()
            if not subtask.attempt.state.is_terminal
        )
        return events, self._with_status(self.apply(events), status)

    def finish(
        self, outcome: RunOutcome, *, timestamp: float
    ) -> tuple[tuple[SubtaskEvent, ...], Changes]:
        """The run ended: every subtask still going ends too (FINISHED if the run finished,
        CANCELED otherwise, as Flink cancels the rest of a failed job); an earlier attempt
        that never reported its end FAILED (Spark retries only failed attempts)."""
        end = _S.FINISHED if outcome is RunOutcome.FINISHED else _S.CANCELED
        return self._close(RunStatus(outcome.value), timestamp, lambda _: (end, None))

    def abandon(self, *, timestamp: float, error: str) -> tuple[tuple[SubtaskEvent, ...], Changes]:
        """The run was lost (its worker died): FAILED, with `error` on every subtask that
        was deployed; the ones that were not are CANCELED."""

        def end(attempt: _Attempt) -> tuple[ExecutionState, str | None]:
            if attempt.state in _NOT_DEPLOYED or attempt.state is _S.CANCELING:
                return _S.CANCELED, None
            return _S.FAILED, error

        return self._close(RunStatus.FAILED, timestamp, end)

    # Internals --------------------------------------------------------------------------

    def _close(
        self,
        outcome: RunStatus,
        timestamp: float,
        end: Callable[[_Attempt], tuple[ExecutionState, str | None]],
    ) -> tuple[tuple[SubtaskEvent, ...], Changes]:
        if self._outcome is not None:
            return (), NO_CHANGES
        status = self.status
        events: list[SubtaskEvent] = []
        for subtask in self._all_subtasks():
            for number, attempt in sorted(subtask.attempts.items()):
                if attempt.state.is_terminal:
                    continue
                if number < subtask.current:
                    events.append(self._event(subtask, number, _S.FAILED, timestamp))
                else:
                    state, error = end(attempt)
                    events.append(self._event(subtask, number, state, timestamp, error))
        changes = self.apply(events)
        self._outcome = outcome
        return tuple(events), self._with_status(changes, status)

    def _with_status(self, changes: Changes, before: RunStatus) -> Changes:
        if self.status is before or changes.status:
            return changes
        return changes | Changes(status=True)

    @staticmethod
    def _event(
        subtask: _Subtask,
        attempt: int,
        state: ExecutionState,
        timestamp: float,
        error: str | None = None,
    ) -> SubtaskEvent:
        counts = subtask.attempts[attempt]
        return SubtaskEvent(
            vertex=subtask.vertex.id,
            subtask=subtask.index,
            attempt=attempt,
            state=state,
            timestamp=timestamp,
            records_in=counts.records_in,
            records_out=counts.records_out,
            error=error,
            source=SYNTHESIZED,
        )

    def _all_subtasks(self) -> Iterator[_Subtask]:
        for subtasks in self._subtasks.values():
            yield from subtasks

    def _aggregate(self, vertex_id: str) -> dict[str, Any]:
        vertex = self._vertices[vertex_id]
        attempts = [s.attempt for s in self._subtasks[vertex_id]]
        counts = dict.fromkeys(ExecutionState, 0)
        for attempt in attempts:
            counts[attempt.state] += 1
        starts = [a.start_time for a in attempts if a.start_time is not None]
        ends = [a.end_time for a in attempts if a.end_time is not None]
        return {
            **vertex.to_json(),
            "status": _aggregate_state(counts, vertex.parallelism).value,
            "statusCounts": {state.value: count for state, count in counts.items()},
            "recordsIn": sum(a.records_in for a in attempts),
            "recordsOut": sum(a.records_out for a in attempts),
            "startTime": min(starts) if starts else None,
            "endTime": max(ends) if len(ends) == len(attempts) else None,
        }
