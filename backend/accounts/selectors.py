"""Reads of workspaces and memberships. Nothing here writes."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import OuterRef, QuerySet, Subquery

from accounts.models import Membership, Role, Workspace
from config.errors import NotFound

WORKSPACE_NOT_FOUND = "Workspace not found."
MEMBER_NOT_FOUND = "Member not found."


def membership_role(
    *, user: AbstractBaseUser | AnonymousUser, workspace: Workspace | int
) -> Role | None:
    """The user's role in the workspace, or None for a non-member (or an anonymous user)."""
    if not user.is_authenticated:
        return None
    workspace_id = workspace if isinstance(workspace, int) else workspace.pk
    role = (
        Membership.objects.filter(workspace_id=workspace_id, user_id=user.pk)
        .values_list("role", flat=True)
        .first()
    )
    return None if role is None else Role(role)


def workspace_list_for_user(*, user: AbstractBaseUser | AnonymousUser) -> QuerySet[Workspace]:
    """The user's workspaces, each annotated with `my_role`, by name."""
    if not user.is_authenticated:
        return Workspace.objects.none()
    my_role = Membership.objects.filter(workspace=OuterRef("pk"), user_id=user.pk).values("role")
    return (
        Workspace.objects.filter(memberships__user_id=user.pk)
        .annotate(my_role=Subquery(my_role[:1]))
        .order_by("name", "id")
    )


def workspace_get_for_user(
    *, user: AbstractBaseUser | AnonymousUser, workspace_id: int
) -> Workspace:
    """One of the user's workspaces; `NotFound` whether it is missing or not theirs."""
    workspace = workspace_list_for_user(user=user).filter(pk=workspace_id).first()
    if workspace is None:
        raise NotFound(WORKSPACE_NOT_FOUND)
    return workspace


def membership_list(*, workspace: Workspace) -> QuerySet[Membership]:
    """The workspace's members with their users, by username."""
    return (
        Membership.objects.filter(workspace=workspace)
        .select_related("user")
        .order_by("user__username", "user_id")
    )


def membership_get(*, workspace: Workspace, user_id: int) -> Membership:
    membership = membership_list(workspace=workspace).filter(user_id=user_id).first()
    if membership is None:
        raise NotFound(MEMBER_NOT_FOUND)
    return membership
