"""What the audit record keeps of membership changes (`audit`): who, and the roles before
and after, as they were then. The activity feed shows them on every pipeline of the
workspace."""

from __future__ import annotations

from typing import Literal

from accounts.models import Role
from audit.events import Recorded
from config.messages import UserRef


class MemberAddedRecord(Recorded):
    kind: Literal["member_added"] = "member_added"
    member: UserRef
    role: Role


class MemberRoleChangedRecord(Recorded):
    kind: Literal["member_role_changed"] = "member_role_changed"
    member: UserRef
    before: Role
    after: Role


class MemberRemovedRecord(Recorded):
    kind: Literal["member_removed"] = "member_removed"
    member: UserRef
    role: Role
    """The role they had until then."""
    left: bool
    """True when they left themselves; else an owner (the record's actor) removed them."""
