"""The shapes of a pipeline's activity feed (`GET /api/pipelines/<id>/activity/`): one model
per kind of item, told apart by `kind`. The browser's types are generated from them. An item
read from the audit record is its record's shape (defined by the app that writes it) with
the time and the actor."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal, get_args

from pydantic import Field

from accounts.events import MemberAddedRecord, MemberRemovedRecord, MemberRoleChangedRecord
from accounts.models import Role
from config.messages import UserRef, WireMessage
from reviews.events import (
    AcknowledgedState,
    PolicyChangedRecord,
    ThreadReopenedRecord,
    ThreadResolvedRecord,
    VerdictKind,
)
from runs.events import RunRefusedRecord
from runs.models import RunStatus
from savepoints.events import (
    SavepointCurrentClearedRecord,
    SavepointDeletedRecord,
    SavepointMarkedCurrentRecord,
    SavepointUploadedRecord,
)


class _Item(WireMessage):
    at: datetime
    user: UserRef | None
    """Who did it (for a run, whose run it is)."""


class VersionSavedActivity(_Item):
    kind: Literal["version_saved"] = "version_saved"
    version: int
    message: str


class ReviewRequestedActivity(_Item):
    kind: Literal["review_requested"] = "review_requested"
    version: int
    request: int
    reviewers: list[UserRef]
    message: str


class VerdictActivity(_Item):
    kind: Literal["review_verdict"] = "review_verdict"
    version: int
    request: int
    verdict: VerdictKind
    summary: str
    role: Role
    """The reviewer's role when they gave it."""
    counts: bool
    """Its weight, fixed when it was given."""
    acknowledged: list[AcknowledgedState]
    """An approval's acknowledged state losses, as the check named them then."""


class ApprovalRevokedActivity(_Item):
    """An owner (`user`) revoked an approval, saying why."""

    kind: Literal["approval_revoked"] = "approval_revoked"
    version: int
    request: int
    reviewer: UserRef | None
    """Whose approval it was."""
    reason: str


class CommentActivity(_Item):
    kind: Literal["comment"] = "comment"
    thread: int
    comment: int
    version: int | None
    """The version the thread is on; null: the working copy."""
    reply: bool
    """False for the comment that opened the thread."""
    target: str
    """What the thread is about, as it was called then."""
    excerpt: str
    """The comment's first characters."""


class RunStartedActivity(_Item):
    kind: Literal["run_started"] = "run_started"
    run: int
    version: int


class RunFinishedActivity(_Item):
    kind: Literal["run_finished"] = "run_finished"
    run: int
    version: int
    status: RunStatus


# Read from the audit record.


class _RecordedItem(_Item):
    record: int
    """The audit record's id."""


class ThreadResolvedActivity(_RecordedItem, ThreadResolvedRecord):
    pass


class ThreadReopenedActivity(_RecordedItem, ThreadReopenedRecord):
    pass


class SavepointUploadedActivity(_RecordedItem, SavepointUploadedRecord):
    pass


class SavepointMarkedCurrentActivity(_RecordedItem, SavepointMarkedCurrentRecord):
    pass


class SavepointCurrentClearedActivity(_RecordedItem, SavepointCurrentClearedRecord):
    pass


class SavepointDeletedActivity(_RecordedItem, SavepointDeletedRecord):
    pass


class RunRefusedActivity(_RecordedItem, RunRefusedRecord):
    pass


class ReviewPolicyChangedActivity(_RecordedItem, PolicyChangedRecord):
    """A change of the workspace's policy, shown on each of its pipelines."""


class MemberAddedActivity(_RecordedItem, MemberAddedRecord):
    """A change of the workspace's members, shown on each of its pipelines."""


class MemberRoleChangedActivity(_RecordedItem, MemberRoleChangedRecord):
    """A change of the workspace's members, shown on each of its pipelines."""


class MemberRemovedActivity(_RecordedItem, MemberRemovedRecord):
    """A change of the workspace's members, shown on each of its pipelines."""


RecordedActivity = (
    ThreadResolvedActivity
    | ThreadReopenedActivity
    | SavepointUploadedActivity
    | SavepointMarkedCurrentActivity
    | SavepointCurrentClearedActivity
    | SavepointDeletedActivity
    | RunRefusedActivity
    | ReviewPolicyChangedActivity
    | MemberAddedActivity
    | MemberRoleChangedActivity
    | MemberRemovedActivity
)
RECORDED: tuple[type[RecordedActivity], ...] = get_args(RecordedActivity)
"""Every kind of the audit record the feed shows."""

ActivityItem = Annotated[
    VersionSavedActivity
    | ReviewRequestedActivity
    | VerdictActivity
    | ApprovalRevokedActivity
    | CommentActivity
    | RunStartedActivity
    | RunFinishedActivity
    | RecordedActivity,
    Field(discriminator="kind"),
]


class ActivityPage(WireMessage):
    """Newest first; `next` is the cursor of the page after this one (null: the last)."""

    items: list[ActivityItem]
    next: str | None
