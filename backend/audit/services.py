"""Writing the audit record: one function, called inside the transaction of the change."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser

from audit.events import Recorded
from audit.models import AuditEvent


def audit_record(
    *,
    workspace_id: int,
    actor: AbstractBaseUser | None,
    record: Recorded,
    pipeline_id: int | None = None,
) -> AuditEvent:
    """Append what happened to the workspace's record (about one pipeline, or all of it)."""
    return AuditEvent.objects.create(
        workspace_id=workspace_id,
        pipeline_id=pipeline_id,
        actor_id=None if actor is None else actor.pk,
        kind=record.kind,
        details=record.model_dump(mode="json", exclude={"kind"}),
    )
