"""Selector: what a user may do with a pipeline (for consumers, which have no DRF request)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from accounts.models import Role
from accounts.selectors import membership_role
from pipelines.models import Pipeline


@dataclass(frozen=True, slots=True)
class PipelineAccess:
    role: Role
    can_edit: bool


def pipeline_access(
    *, user: AbstractBaseUser | AnonymousUser, pipeline_id: int
) -> PipelineAccess | None:
    """The user's role on the pipeline's workspace; None if not a member (or no pipeline).

    Reads the pipeline's workspace id alone: every socket asks this when it opens and again
    every `RECHECK_SECONDS`, and the row holds the working copy (a megabyte of JSON at
    5,000 operators)."""
    workspace_id = (
        Pipeline.objects.filter(pk=pipeline_id).values_list("workspace_id", flat=True).first()
    )
    if workspace_id is None or not user.is_authenticated:
        return None
    role = membership_role(user=user, workspace=workspace_id)
    if role is None:
        return None
    return PipelineAccess(role=role, can_edit=role.allows(Role.EDITOR))
