"""A run's journal: every change to a run is one `RunEvent` with the next sequence number.

Whoever changes a run (the worker driving it, `run_cancel`, `run_mark_lost`) does it the
same way, inside a transaction that holds the run's row lock:

    before = run_fields(run)
    ... set the run's fields (through `set_status` for its status) ...
    append(run, before=before, vertices=..., subtasks=..., events=...)

A run that no worker will end (cancelled while queued, never planned, its worker lost) is
ended by `close`.

`append` stores the entry and the run's row together and publishes the entry after the
transaction commits. Sequence numbers are handed out under the row lock, so they are
gapless and in commit order, and an entry is readable before anyone is told of it: a
client that sees a gap can read what it missed (`entries_between`). Readers rebuild the
state at `Run.seq` from the checkpoint and the entries after it (`run_state`); the events
stored with the entries rebuild the run's monitor (`run_monitor`).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from rest_framework.fields import DateTimeField

from runs.clusters import cluster_list
from runs.events import RunUpdate, publish_to_run, run_update
from runs.models import Run, RunEvent, RunStatus
from runtime.clusters import ClusterConfigError
from runtime.events import RunOutcome, SubtaskEvent
from runtime.monitoring import MonitoredVertex, RunMonitor

Publish = Callable[[str, RunUpdate], None]
"""Sends a run's entry to its clients, given the run's key."""

_DATETIME = DateTimeField()

_SAVED_FIELDS = (
    "status",
    "canceled_by",
    "error",
    "started_at",
    "finished_at",
    "worker",
    "heartbeat_at",
    "sinks",
    "details",
    "events_problem",
    "execution",
    "seq",
    "state",
    "state_seq",
)


def iso(value: datetime | None) -> str | None:
    """A time as the REST API writes it."""
    return None if value is None else str(_DATETIME.to_representation(value))


def run_fields(run: Run) -> dict[str, Any]:
    """The run's own fields that journal entries carry when they change (`RunFields`)."""
    canceler = run.canceled_by if run.canceled_by_id is not None else None
    return {
        "status": run.status,
        "canceledBy": None
        if canceler is None
        else {"id": canceler.pk, "username": canceler.get_username()},
        "error": run.error or None,
        "startedAt": iso(run.started_at),
        "finishedAt": iso(run.finished_at),
        "worker": run.worker or None,
        "sinks": run.sinks,
        "details": run.details,
        "eventsProblem": run.events_problem or None,
        "execution": run.execution,
        "spark": spark_application(run),
    }


def spark_application(run: Run) -> dict[str, Any] | None:
    """The Spark application the run's details name, with its cluster profile's links."""
    application = run.details.get("applicationId") if isinstance(run.details, dict) else None
    if not isinstance(application, str) or not application:
        return None
    try:
        profile = cluster_list().get(run.cluster)
    except ClusterConfigError:  # the server's start-up check reports it; a read goes on
        profile = None
    links = {} if profile is None else profile.links(application)
    return {"id": application, "uiUrl": links.get("ui"), "historyUrl": links.get("history")}


def set_status(run: Run, status: RunStatus) -> bool:
    """Move the run forward to `status`; never back (a run that is CANCELING stays so
    when its worker reports RUNNING late) and never out of a terminal status."""
    if run.run_status.is_terminal or status.rank <= run.run_status.rank:
        return False
    run.status = status
    return True


def append(
    run: Run,
    *,
    before: Mapping[str, Any],
    vertices: Iterable[dict[str, Any]] = (),
    subtasks: Iterable[dict[str, Any]] = (),
    events: Iterable[SubtaskEvent] = (),
    checkpoint: dict[str, Any] | None = None,
    publish: Publish | None = None,
) -> int:
    """Store the next entry of a run whose row this transaction has locked; its number.

    `before` is `run_fields(run)` from before the caller changed the run; `checkpoint`,
    when given, is the whole state after this entry (`vertices` and `subtasks`).
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("journal entries are written inside the transaction that locks the run")
    changes = _changes(before, run, vertices=vertices, subtasks=subtasks)
    run.seq += 1
    if checkpoint is not None:
        run.state, run.state_seq = checkpoint, run.seq
    run.save(update_fields=_SAVED_FIELDS)
    RunEvent.objects.create(
        run=run, seq=run.seq, events=[e.to_json() for e in events], changes=changes
    )
    message = run_update(run.seq, changes)
    send = publish or publish_to_run
    key = run.key
    # A lost publication is caught up from the journal by the consumers: never fail the write.
    transaction.on_commit(lambda: send(key, message), robust=True)
    return run.seq


def close(
    run: Run,
    status: RunStatus,
    *,
    error: str = "",
    abandon: bool = False,
    canceled_by: User | None = None,
) -> int:
    """End a run that no worker will end, in the transaction that locks it; the entry's number.

    Its subtasks end as its monitor says: with the run's outcome, or, when its worker was
    lost (`abandon`), failed with `error` if they were deployed and canceled if not.
    `canceled_by`: the user who canceled it, whom the entry names.
    """
    before = run_fields(run)
    if canceled_by is not None:
        run.canceled_by = canceled_by
    events, body, monitor = _end(run, status, error=error, abandon=abandon)
    return append(
        run,
        before=before,
        vertices=body["vertices"],
        subtasks=body["subtasks"],
        events=events,
        checkpoint=monitor_state(monitor),
    )


def closing_changes(
    run: Run, status: RunStatus, *, error: str = "", abandon: bool = False
) -> dict[str, Any]:
    """The changes `close` would store as the run's next entry now, without storing them or
    changing `run`: how a read shows a run that is about to be closed."""
    closed = copy.copy(run)
    before = run_fields(closed)
    _, body, _ = _end(closed, status, error=error, abandon=abandon)
    return _changes(before, closed, vertices=body["vertices"], subtasks=body["subtasks"])


def _end(
    run: Run, status: RunStatus, *, error: str, abandon: bool
) -> tuple[tuple[SubtaskEvent, ...], dict[str, Any], RunMonitor]:
    """End the run's monitor and set the run's fields as ended (the row is not saved)."""
    monitor = run_monitor(run)
    if abandon:
        events, changes = monitor.abandon(timestamp=time.time(), error=error)
    else:
        events, changes = monitor.finish(RunOutcome(status.value), timestamp=time.time())
    run.status, run.error, run.finished_at = status, error, timezone.now()
    return events, monitor.changes_json(changes), monitor


def _changes(
    before: Mapping[str, Any],
    run: Run,
    *,
    vertices: Iterable[dict[str, Any]],
    subtasks: Iterable[dict[str, Any]],
) -> dict[str, Any]:
    """An entry's changes: the run's fields that differ from `before`, vertices, subtasks."""
    after = run_fields(run)
    return {
        "run": {name: value for name, value in after.items() if before.get(name) != value},
        "vertices": list(vertices),
        "subtasks": list(subtasks),
    }


def merge(state: dict[str, Any], fields: dict[str, Any], changes: dict[str, Any]) -> None:
    """Apply one entry's `changes` to a state and the run's fields, in place."""
    fields.update(changes.get("run", {}))
    for section, key in (("vertices", _vertex_key), ("subtasks", _subtask_key)):
        updates = changes.get(section)
        if not updates:
            continue
        entries: list[dict[str, Any]] = state.setdefault(section, [])
        index = {key(entry): i for i, entry in enumerate(entries)}
        for entry in updates:
            position = index.get(key(entry))
            if position is None:
                entries.append(entry)
            else:
                entries[position] = entry


def _vertex_key(entry: dict[str, Any]) -> Any:
    return entry["id"]


def _subtask_key(entry: dict[str, Any]) -> Any:
    return (entry["vertex"], entry["subtask"])


def run_state(run: Run) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """The run's state as of its last entry: (seq, run fields, vertices and subtasks).

    Reads the checkpoint from `run` and the entries after it; entries are committed in
    sequence order, so what this reads is a gapless prefix and the state is that of one
    moment, even while the run is being written to.
    """
    state = {
        "vertices": list(run.state.get("vertices", [])),
        "subtasks": list(run.state.get("subtasks", [])),
    }
    fields = run_fields(run)
    seq = run.state_seq
    for entry_seq, changes in entries_between(run_id=run.pk, after=run.state_seq):
        merge(state, fields, changes)
        seq = entry_seq
    return seq, fields, state


def entries_between(
    *, run_id: int, after: int, until: int | None = None
) -> list[tuple[int, dict[str, Any]]]:
    """(seq, changes) of the entries after `after` (up to `until`, inclusive), in order."""
    entries = RunEvent.objects.filter(run_id=run_id, seq__gt=after)
    if until is not None:
        entries = entries.filter(seq__lte=until)
    rows = entries.order_by("seq").values_list("seq", "changes")
    return [(seq, changes) for seq, changes in rows]


def monitor_state(monitor: RunMonitor) -> dict[str, Any]:
    """A run's checkpoint: the monitor's vertices and subtasks (the status is the run's)."""
    state = monitor.to_json()
    return {"vertices": state["vertices"], "subtasks": state["subtasks"]}


def run_monitor(run: Run) -> RunMonitor:
    """The run's monitor rebuilt from its plan and every event its journal stored."""
    monitor = RunMonitor(MonitoredVertex.from_json(v) for v in run.vertices)
    for events in RunEvent.objects.filter(run=run).order_by("seq").values_list("events", flat=True):
        monitor.apply(SubtaskEvent.from_json(e) for e in events)
    return monitor
