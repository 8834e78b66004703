"""Runs of saved pipeline versions, and the journal of everything that happened in each.

A `Run` holds what a list or a detail view needs at once: status, who started it,
where it runs (Spark master, worker and its heartbeat), its final figures and sink
previews. Its subtask and vertex state lives in a checkpoint (`state`, as of `state_seq`)
plus the `RunEvent`s after it: each entry has the next per-run sequence number, the
`SubtaskEvent`s folded since the entry before and the changes they made. Entries are
only ever appended; `Run.seq` is the number of the last one.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from pipelines.models import Pipeline, PipelineVersion


class RunStatus(models.TextChoices):
    """A run's status, in the order it moves through them."""

    QUEUED = "QUEUED", "Queued"
    CREATED = "CREATED", "Created"
    RUNNING = "RUNNING", "Running"
    CANCELING = "CANCELING", "Canceling"
    FINISHED = "FINISHED", "Finished"
    FAILED = "FAILED", "Failed"
    CANCELED = "CANCELED", "Canceled"

    @property
    def is_terminal(self) -> bool:
        return self in TERMINAL

    @property
    def rank(self) -> int:
        """Position in the lifecycle; the three terminal statuses share the last one."""
        return _RANKS[self]


TERMINAL = frozenset({RunStatus.FINISHED, RunStatus.FAILED, RunStatus.CANCELED})
ACTIVE = (RunStatus.QUEUED, RunStatus.CREATED, RunStatus.RUNNING, RunStatus.CANCELING)
ON_A_WORKER = (RunStatus.CREATED, RunStatus.RUNNING, RunStatus.CANCELING)
"""A worker took the run and must keep its heartbeat going."""
_RANKS = {
    RunStatus.QUEUED: 0,
    RunStatus.CREATED: 1,
    RunStatus.RUNNING: 2,
    RunStatus.CANCELING: 3,
    RunStatus.FINISHED: 4,
    RunStatus.FAILED: 4,
    RunStatus.CANCELED: 4,
}


class Run(models.Model):
    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="runs")
    version = models.ForeignKey(PipelineVersion, on_delete=models.CASCADE, related_name="runs")
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    canceled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    """Who canceled the run (`run_cancel`); null unless a user did."""
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    cluster = models.CharField(max_length=40, default="default")
    """The name of the cluster profile it runs on (`runtime.clusters`)."""
    spark_master = models.CharField(max_length=200)
    """That cluster's master when the run started (for the record: never shown to users)."""
    parameters = models.JSONField(default=dict, blank=True)
    key = models.CharField(max_length=32, unique=True)
    """Names the run outside the database: its Redis channels and its Spark job tag."""

    vertices = models.JSONField(default=list)
    """The plan's vertices (`runtime.monitoring.MonitoredVertex.to_json`)."""
    state = models.JSONField(default=dict)
    """Checkpoint of the live state: `vertices` (aggregates) and `subtasks`."""
    state_seq = models.PositiveIntegerField(default=0)
    """The journal entry `state` includes; later entries' changes come on top."""
    seq = models.PositiveIntegerField(default=0)
    """The last journal entry's sequence number (0: none yet)."""

    error = models.TextField(blank=True)
    sinks = models.JSONField(default=list, blank=True)
    """What each sink subtask wrote (`runtime.events.SinkOutput.to_json`), once finished."""
    details = models.JSONField(default=dict, blank=True)
    """Facts from the executor (application id, timings)."""
    events_problem = models.TextField(blank=True, default="")
    """Why the subtasks' own events are not arriving, as the worker noticed (executors that
    cannot reach the events' Redis); empty while they arrive."""
    execution = models.JSONField(null=True, blank=True, default=None)
    """How the run executes beside Flink's plan (`runtime.stages.ExecutionReport.to_json`):
    its worker's plan, then the stages its executor reported; null until planned."""

    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = (
            models.Index(fields=["pipeline", "-created_at"], name="run_pipeline_recent"),
            models.Index(fields=["status", "heartbeat_at"], name="run_status_heartbeat"),
        )
        constraints = (
            models.CheckConstraint(
                condition=models.Q(status__in=RunStatus.values), name="run_status_valid"
            ),
        )

    def __str__(self) -> str:
        return f"run {self.pk} of {self.pipeline_id} v{self.version_id} ({self.status})"

    @property
    def run_status(self) -> RunStatus:
        return RunStatus(self.status)


class JournalImmutable(Exception):
    """Raised when code tries to change a stored `RunEvent`."""


class RunEvent(models.Model):
    """One journal entry of a run; never changes once written."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="journal")
    seq = models.PositiveIntegerField()
    events = models.JSONField(default=list)
    """The `SubtaskEvent`s (JSON form) folded since the entry before, synthesized ones too."""
    changes = models.JSONField()
    """What changed: `run` (the run's fields that changed), `vertices`, `subtasks`."""
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("run_id", "seq")
        constraints = (models.UniqueConstraint(fields=["run", "seq"], name="run_event_unique_seq"),)

    def __str__(self) -> str:
        return f"run {self.run_id} #{self.seq}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise JournalImmutable("run journal entries are append-only")
        super().save(*args, **kwargs)
