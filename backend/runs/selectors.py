"""Reads of runs. A run outside the user's workspaces is `NotFound`, like a missing one.

Reads never write. A run whose worker stopped beating is shown as the reaper
(`runs.reaper`) will leave it, FAILED with its subtasks ended, one entry after its last
stored one (`run_loss`), until the reaper stores that entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Role
from accounts.selectors import membership_role
from config.errors import NotFound
from pipelines.models import Pipeline
from runs.journal import closing_changes, entries_between, iso, merge, run_state
from runs.models import ON_A_WORKER, Run, RunEvent, RunStatus

RUN_NOT_FOUND = "Run not found."


def run_list(*, pipeline: Pipeline) -> QuerySet[Run]:
    """The pipeline's runs, newest first, without their state."""
    return (
        Run.objects.filter(pipeline=pipeline)
        .select_related("started_by", "version")
        .defer("state", "vertices", "version__document")
        .order_by("-created_at", "-id")
    )


def run_get_for_user(*, user: AbstractBaseUser | AnonymousUser, run_id: int) -> Run:
    """One run of the user's workspaces; `NotFound` if missing or not theirs."""
    if not user.is_authenticated:
        raise NotFound(RUN_NOT_FOUND)
    run = (
        Run.objects.filter(pk=run_id, pipeline__workspace__memberships__user_id=user.pk)
        .select_related("started_by", "version", "pipeline")
        .defer("version__document", "pipeline__snapshot")
        .first()
    )
    if run is None:
        raise NotFound(RUN_NOT_FOUND)
    return run


@dataclass(frozen=True, slots=True)
class RunAccess:
    role: Role
    can_run: bool
    key: str
    """The run's key, which names its channel-layer group."""


def run_access(*, user: AbstractBaseUser | AnonymousUser, run_id: int) -> RunAccess | None:
    """The user's role on the run's workspace; None if not a member (or no run)."""
    row = Run.objects.filter(pk=run_id).values_list("pipeline__workspace_id", "key").first()
    if row is None or not user.is_authenticated:
        return None
    workspace_id, key = row
    role = membership_role(user=user, workspace=workspace_id)
    if role is None:
        return None
    return RunAccess(role=role, can_run=role.allows(Role.EDITOR), key=key)


def run_summary(run: Run) -> dict[str, Any]:
    """A run's own fields, as lists show it (`RunSerializer`)."""
    user = run.started_by
    return {
        "id": run.pk,
        "pipeline": run.pipeline_id,
        "version": run.version.number,
        "status": run.status,
        "cluster": run.cluster,
        "parameters": run.parameters,
        "startedBy": None if user is None else {"id": user.pk, "username": user.get_username()},
        "createdAt": iso(run.created_at),
        "startedAt": iso(run.started_at),
        "finishedAt": iso(run.finished_at),
        "heartbeatAt": iso(run.heartbeat_at),
        "worker": run.worker or None,
        "error": run.error or None,
    }


def run_detail(*, run_id: int) -> dict[str, Any] | None:
    """The run with its vertices, subtasks and sinks as of one journal entry (`seq`).

    What `GET /api/runs/<id>/` answers and the websocket's snapshot carries. None if
    the run is gone.
    """
    run = (
        Run.objects.select_related("started_by", "canceled_by", "version")
        .defer("version__document")
        .filter(pk=run_id)
        .first()
    )
    if run is None:
        return None
    seq, fields, state = run_state(run)
    loss = run_loss(run)
    if loss is not None:
        merge(state, fields, loss)
        seq += 1
    return {
        **run_summary(run),
        **fields,
        "seq": seq,
        "vertices": state["vertices"],
        "subtasks": state["subtasks"],
    }


def run_entries(*, run_id: int, after: int, until: int | None = None) -> list[tuple[int, Any]]:
    """The journal entries' changes after `after` (up to `until`): (seq, changes)."""
    return entries_between(run_id=run_id, after=after, until=until)


def run_journal(*, run: Run, after: int = 0, limit: int = 500) -> QuerySet[RunEvent]:
    """Stored journal entries of a run after `after`, oldest first."""
    return RunEvent.objects.filter(run=run, seq__gt=after).order_by("seq")[:limit]


LOST_WORKER = "lost worker"


def run_is_stale(run: Run) -> bool:
    """True if a worker took the run and its heartbeat stopped (`run_mark_lost` is due)."""
    if run.status not in ON_A_WORKER:
        return False
    cutoff = timezone.now() - timedelta(seconds=settings.RUN_HEARTBEAT_TIMEOUT)
    return run.heartbeat_at is None or run.heartbeat_at < cutoff


def lost_worker_error(run: Run) -> str:
    """The error of a run whose worker stopped beating."""
    who = run.worker or "its worker"
    silence = settings.RUN_HEARTBEAT_TIMEOUT
    return f"{LOST_WORKER}: {who} stopped reporting for more than {silence:g} s"


def run_loss(run: Run) -> dict[str, Any] | None:
    """The changes of the entry the reaper will store for the run if its worker stopped
    beating (FAILED, deployed subtasks failed, the others canceled); None otherwise."""
    if not run_is_stale(run):
        return None
    return closing_changes(run, RunStatus.FAILED, error=lost_worker_error(run), abandon=True)


def run_effective_status(run: Run) -> RunStatus:
    """The run's status as reads show it: FAILED once its worker stopped beating."""
    return RunStatus.FAILED if run_is_stale(run) else run.run_status


@dataclass(frozen=True, slots=True)
class RunProgress:
    """Where a run is, for a client that follows it."""

    seq: int
    """Its last stored journal entry."""
    status: RunStatus
    """As reads show it (`run_effective_status`)."""
    loss: dict[str, Any] | None
    """The changes of entry `seq + 1` if its worker was lost (`run_loss`), not stored yet."""


def run_progress(*, run_id: int) -> RunProgress | None:
    """The run's last entry and status as reads show them; None if the run is gone."""
    run = Run.objects.filter(pk=run_id).only("status", "heartbeat_at", "seq").first()
    if run is None:
        return None
    if run_is_stale(run):
        run = Run.objects.filter(pk=run_id).first()
        if run is None:
            return None
    return RunProgress(seq=run.seq, status=run_effective_status(run), loss=run_loss(run))
