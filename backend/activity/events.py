"""The shapes of a pipeline's activity feed (`GET /api/pipelines/<id>/activity/`): one model
per kind of item, told apart by `kind`. The browser's types are generated from them."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from accounts.models import Role
from config.messages import UserRef, WireMessage
from reviews.events import AcknowledgedState, VerdictKind
from runs.models import RunStatus


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


class SavepointUploadedActivity(_Item):
    kind: Literal["savepoint_uploaded"] = "savepoint_uploaded"
    savepoint: int
    label: str


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


ActivityItem = Annotated[
    VersionSavedActivity
    | ReviewRequestedActivity
    | VerdictActivity
    | ApprovalRevokedActivity
    | SavepointUploadedActivity
    | CommentActivity
    | RunStartedActivity
    | RunFinishedActivity,
    Field(discriminator="kind"),
]


class ActivityPage(WireMessage):
    """Newest first; `next` is the cursor of the page after this one (null: the last)."""

    items: list[ActivityItem]
    next: str | None
