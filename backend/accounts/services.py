"""Writes to users, workspaces, memberships and API tokens.

Every service that changes a workspace takes the acting user and checks their
role itself (`require_role`), so each entry point (REST, websockets, shell) gets
the same rules. Membership changes lock the workspace row, so two owners acting
at once cannot leave a workspace without an owner, and each is written to the workspace's
audit record (`audit`) in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.auth.models import User as UserType
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.text import slugify
from rest_framework.authtoken.models import Token

from accounts.events import MemberAddedRecord, MemberRemovedRecord, MemberRoleChangedRecord
from accounts.models import Membership, Role, Workspace
from accounts.permissions import authenticated_user, require_role
from accounts.selectors import MEMBER_NOT_FOUND
from accounts.tokens import socket_ticket_issue, token_expired
from audit.events import Recorded
from audit.services import audit_record
from config.errors import Conflict, InvalidRequest, NotAuthenticated, NotFound
from config.messages import UserRef

_SLUG_MAX = Workspace._meta.get_field("slug").max_length or 100
_SLUG_ATTEMPTS = 50
LAST_OWNER_MESSAGE = "A workspace needs at least one owner: make another member an owner first."


class InvalidCredentials(InvalidRequest):
    code = "invalid-credentials"
    default_message = "Unable to log in with the given username and password."


def token_obtain(*, username: str, password: str) -> str:
    """The API token of the user with these credentials (created on first use, and made
    anew once it has expired)."""
    user = authenticate(username=username, password=password)
    if user is None:
        raise InvalidCredentials()
    with transaction.atomic():
        token = Token.objects.select_for_update().filter(user=user).first()
        if token is not None and token_expired(token):
            token.delete()
            token = None
        if token is None:
            token = Token.objects.create(user=user)
    return str(token.key)


def socket_ticket_create(
    *, request_user: AbstractBaseUser | AnonymousUser, auth: object, session_key: str | None
) -> str:
    """A single-use ticket to open one websocket as the signed-in user, tied to the credential
    of this request (its API token, else its session), so signing out closes that socket."""
    user = authenticated_user(request_user)
    token_key = auth.key if isinstance(auth, Token) else ""
    return socket_ticket_issue(user=user, token_key=token_key, session_key=session_key or "")


@dataclass(frozen=True)
class Registration:
    """A new account: the user, their API token and the workspace they own."""

    user: UserType
    token: str
    workspace: Workspace


def _username_taken(username: str) -> Conflict:
    # The field says what the message says: a one-line notice shows it once.
    message = f"The username '{username}' is taken."
    return Conflict(message, code="username-taken", fields={"username": [message]})


def _registration_errors(user: UserType, password: str) -> dict[str, list[str]]:
    """Every problem with a would-be user's username and password, per field."""
    fields: dict[str, list[str]] = {}
    try:
        user.clean_fields(exclude=["password", "last_login", "date_joined"])
    except ValidationError as error:
        fields.update({name: list(messages) for name, messages in error.message_dict.items()})
    try:
        # With the user, so a password too close to the username is refused as well.
        validate_password(password, user=user)
    except ValidationError as error:
        fields["password"] = list(error.messages)
    return fields


def _first_problem(fields: dict[str, list[str]]) -> str:
    name, messages = next(iter(fields.items()))
    return f"{name}: {messages[0]}"


def user_register(*, username: str, password: str) -> Registration:
    """A new user with an API token and a workspace of their own, which they own.

    The username follows Django's rules (letters, digits and @.+-_) and must not be
    taken in any letter case; the password must pass `AUTH_PASSWORD_VALIDATORS`.
    """
    user_model = get_user_model()
    user = user_model(username=user_model.normalize_username(username))
    fields = _registration_errors(user, password)
    if fields:
        raise InvalidRequest(_first_problem(fields), fields=fields)
    if user_model.objects.filter(username__iexact=user.username).exists():
        raise _username_taken(user.username)
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
            token = Token.objects.create(user=user)
            name = f"{user.username}'s workspace"
            try:
                workspace = workspace_create(name=name, owner=user)
            except Conflict:  # every slug the name suggests is taken
                workspace = workspace_create(name=name, owner=user, slug=f"user-{user.pk}")
    except IntegrityError as error:  # the username was taken between the check and the insert
        raise _username_taken(user.username) from error
    return Registration(user=user, token=token.key, workspace=workspace)


def token_delete(*, user: AbstractBaseUser | AnonymousUser) -> None:
    """Sign out: delete the user's API token, so no client can use it any more.

    The next `token_obtain` creates a new one.
    """
    if not user.is_authenticated:
        raise NotAuthenticated()
    Token.objects.filter(user_id=user.pk).delete()


def _slug_taken(slug: str) -> Conflict:
    message = f"The slug '{slug}' is taken by another workspace."
    return Conflict(message, code="slug-taken", fields={"slug": [message]})


def _slug_candidates(name: str) -> list[str]:
    base = slugify(name)[: _SLUG_MAX - 4].strip("-") or "workspace"
    return [base] + [f"{base}-{n}" for n in range(2, _SLUG_ATTEMPTS + 1)]


def workspace_create(*, name: str, owner: UserType, slug: str | None = None) -> Workspace:
    """A new workspace whose creator is its owner; the slug comes from the name if not given."""
    candidates = [slug] if slug else _slug_candidates(name)
    for candidate in candidates:
        if Workspace.objects.filter(slug=candidate).exists():
            continue
        try:
            with transaction.atomic():
                workspace = Workspace.objects.create(name=name, slug=candidate)
                Membership.objects.create(workspace=workspace, user=owner, role=Role.OWNER)
        except IntegrityError:  # taken between the check and the insert
            continue
        return workspace
    if slug:
        raise _slug_taken(slug)
    raise Conflict("No free slug for this name; choose a slug.", code="slug-taken")


def workspace_update(
    *,
    workspace: Workspace,
    actor: AbstractBaseUser | AnonymousUser,
    name: str | None = None,
    slug: str | None = None,
) -> Workspace:
    """Rename a workspace or change its slug (owners only)."""
    require_role(user=actor, workspace=workspace, minimum=Role.OWNER)
    changed: list[str] = []
    if name is not None and name != workspace.name:
        workspace.name = name
        changed.append("name")
    if slug is not None and slug != workspace.slug:
        if Workspace.objects.filter(slug=slug).exclude(pk=workspace.pk).exists():
            raise _slug_taken(slug)
        workspace.slug = slug
        changed.append("slug")
    if changed:
        try:
            with transaction.atomic():
                workspace.save(update_fields=changed)
        except IntegrityError as error:
            raise _slug_taken(workspace.slug) from error
    return workspace


def workspace_delete(*, workspace: Workspace, actor: AbstractBaseUser | AnonymousUser) -> None:
    """Delete a workspace with its pipelines and versions (owners only)."""
    require_role(user=actor, workspace=workspace, minimum=Role.OWNER)
    workspace.delete()


def _locked(workspace: Workspace) -> Workspace:
    return Workspace.objects.select_for_update().get(pk=workspace.pk)


def _other_owners(membership: Membership) -> bool:
    return (
        Membership.objects.filter(workspace_id=membership.workspace_id, role=Role.OWNER)
        .exclude(pk=membership.pk)
        .exists()
    )


def _member(user: AbstractBaseUser) -> UserRef:
    return UserRef(id=user.pk, username=user.get_username())


def _record(
    workspace: Workspace, actor: AbstractBaseUser | AnonymousUser, record: Recorded
) -> None:
    audit_record(workspace_id=workspace.pk, actor=authenticated_user(actor), record=record)


def membership_add(
    *,
    workspace: Workspace,
    actor: AbstractBaseUser | AnonymousUser,
    user: UserType,
    role: Role,
) -> Membership:
    """Add a user to a workspace with a role (owners only)."""
    with transaction.atomic():
        _locked(workspace)
        require_role(user=actor, workspace=workspace, minimum=Role.OWNER)
        if Membership.objects.filter(workspace=workspace, user=user).exists():
            message = f"{user.get_username()} is already a member of this workspace."
            raise Conflict(message, code="already-member", fields={"username": [message]})
        membership = Membership.objects.create(workspace=workspace, user=user, role=role)
        _record(workspace, actor, MemberAddedRecord(member=_member(user), role=role))
        return membership


def membership_change(
    *,
    workspace: Workspace,
    actor: AbstractBaseUser | AnonymousUser,
    user_id: int,
    role: Role,
) -> Membership:
    """Change a member's role (owners only); the last owner cannot be demoted."""
    with transaction.atomic():
        _locked(workspace)
        require_role(user=actor, workspace=workspace, minimum=Role.OWNER)
        membership = _membership(workspace, user_id)
        if membership.role == Role.OWNER and role != Role.OWNER and not _other_owners(membership):
            raise Conflict(LAST_OWNER_MESSAGE, code="last-owner")
        if membership.role != role:
            before = Role(membership.role)
            membership.role = role
            membership.save(update_fields=["role"])
            changed = MemberRoleChangedRecord(
                member=_member(membership.user), before=before, after=role
            )
            _record(workspace, actor, changed)
        return membership


def membership_remove(
    *, workspace: Workspace, actor: AbstractBaseUser | AnonymousUser, user_id: int
) -> None:
    """Remove a member (owners only); the last owner cannot be removed."""
    with transaction.atomic():
        _locked(workspace)
        require_role(user=actor, workspace=workspace, minimum=Role.OWNER)
        membership = _membership(workspace, user_id)
        if membership.role == Role.OWNER and not _other_owners(membership):
            raise Conflict(LAST_OWNER_MESSAGE, code="last-owner")
        membership.delete()
        removed = MemberRemovedRecord(
            member=_member(membership.user), role=Role(membership.role), left=False
        )
        _record(workspace, actor, removed)


def membership_leave(*, workspace: Workspace, actor: AbstractBaseUser | AnonymousUser) -> None:
    """The actor leaves the workspace, whatever their role; the last owner cannot."""
    user = authenticated_user(actor)
    with transaction.atomic():
        _locked(workspace)
        # Any member may leave: the check only says the actor is still a member.
        require_role(user=user, workspace=workspace, minimum=Role.VIEWER)
        membership = _membership(workspace, user.pk)
        if membership.role == Role.OWNER and not _other_owners(membership):
            raise Conflict(
                f"You are the last owner of {workspace.name}: make another member an owner "
                "first, or delete the workspace.",
                code="last-owner",
            )
        membership.delete()
        left = MemberRemovedRecord(member=_member(user), role=Role(membership.role), left=True)
        _record(workspace, user, left)


def _membership(workspace: Workspace, user_id: int) -> Membership:
    membership = (
        Membership.objects.filter(workspace=workspace, user_id=user_id)
        .select_related("user")
        .first()
    )
    if membership is None:
        raise NotFound(MEMBER_NOT_FOUND)
    return membership
