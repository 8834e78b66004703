"""Selector: what a user may do with a pipeline (for consumers, which have no DRF request)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from accounts.models import Role
from accounts.selectors import membership_role
from pipelines.models import Pipeline


@dataclass(frozen=True, slots=True)
class PipelineAccess:
    role: str
    can_edit: bool


def pipeline_access(
    *, user: AbstractBaseUser | AnonymousUser, pipeline_id: int
) -> PipelineAccess | None:
    """The user's role on the pipeline's workspace; None if not a member (or no pipeline)."""
    pipeline = Pipeline.objects.select_related("workspace").filter(pk=pipeline_id).first()
    if pipeline is None or not user.is_authenticated:
        return None
    role = membership_role(user=user, workspace=pipeline.workspace)
    if role is None:
        return None
    return PipelineAccess(role=str(role), can_edit=role.allows(Role.EDITOR))
