"""A workspace's audit record: what its members did that no other table keeps as history
(a role changed, a thread resolved, a savepoint deleted, a run refused by the gate).

Appended when it happens, in the same transaction as the change, and never changed: the
activity feed (`activity`) reads it beside what the other apps store. It stands below every
app that writes to it, so it names their rows by id and describes them in `details` as they
were then (names, labels, roles); a record outlives the pipeline it is about and goes only
with its workspace.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


class AuditImmutable(Exception):
    """Raised when code tries to change a written `AuditEvent`."""


class AuditEvent(models.Model):
    workspace = models.ForeignKey("accounts.Workspace", on_delete=models.CASCADE, related_name="+")
    pipeline_id = models.BigIntegerField(null=True, blank=True)
    """The pipeline it is about; null: the whole workspace (members, review policy)."""
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    kind = models.CharField(max_length=40)
    details = models.JSONField()
    """The kind's shape (`audit.events.Recorded` and its subclasses), without `kind`."""
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("at", "id")
        indexes = (
            models.Index(fields=("pipeline_id", "at", "id"), name="audit_by_pipeline"),
            models.Index(
                fields=("workspace", "pipeline_id", "at", "id"), name="audit_by_workspace"
            ),
        )

    def __str__(self) -> str:
        return f"{self.kind} in workspace {self.workspace_id} at {self.at.isoformat()}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AuditImmutable("the audit record is never changed once written")
        super().save(*args, **kwargs)
