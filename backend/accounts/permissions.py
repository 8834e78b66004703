"""Role checks: viewer < editor < owner, and non-members learn nothing."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.auth.models import User as UserType

from accounts.models import Role, Workspace
from accounts.selectors import WORKSPACE_NOT_FOUND, membership_role
from config.errors import NotAuthenticated, NotFound, PermissionDenied

_VERBS = {
    Role.VIEWER: "read this workspace",
    Role.EDITOR: "edit pipelines in this workspace",
    Role.OWNER: "manage this workspace",
}


def require_role(
    *,
    user: AbstractBaseUser | AnonymousUser,
    workspace: Workspace | int,
    minimum: Role,
) -> None:
    """Pass if the user's role in the workspace is at least `minimum`.

    A non-member gets `NotFound` (as if the workspace did not exist); a member
    with a lower role gets `PermissionDenied`.
    """
    role = membership_role(user=user, workspace=workspace)
    if role is None:
        raise NotFound(WORKSPACE_NOT_FOUND)
    if not role.allows(minimum):
        raise PermissionDenied(
            f"Only a workspace {minimum.label.lower()} or higher may {_VERBS[minimum]}; "
            f"your role is {role.label.lower()}."
        )


def authenticated_user(user: AbstractBaseUser | AnonymousUser) -> UserType:
    """The signed-in user as the user model; `NotAuthenticated` for anyone else."""
    user_model = get_user_model()
    if not user.is_authenticated or not isinstance(user, user_model):
        raise NotAuthenticated()
    return user
