"""Team review of pipelines: comment threads anchored to the plan, mentions, review
requests of saved versions with their reviewers and verdicts, and each workspace's policy.

Only what people said and did is stored. What follows from it is derived when read:
whether a thread is outdated in the version it is read at (`reviews.anchoring`), a
version's review state (`reviews.states`), the activity feed (`activity`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.models import Role, Workspace
from pipelines.models import Pipeline, PipelineVersion
from savepoints.models import Savepoint

MAX_REQUIRED_APPROVALS = 5


class ReviewPolicy(models.Model):
    """How a workspace reviews; a workspace without a row has the defaults."""

    workspace = models.OneToOneField(
        Workspace, on_delete=models.CASCADE, related_name="review_policy"
    )
    required_approvals = models.PositiveSmallIntegerField(default=1)
    """Approvals by editors and owners that make a version approved (0 to 5)."""
    allow_self_approval = models.BooleanField(default=False)
    """Whether the author of a version may approve it."""
    require_approval_to_run = models.BooleanField(default=False)
    """Whether only approved versions may be run."""
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "review policies"
        constraints = (
            models.CheckConstraint(
                condition=models.Q(required_approvals__lte=MAX_REQUIRED_APPROVALS),
                name="review_policy_required_approvals_range",
            ),
        )

    def __str__(self) -> str:
        return f"review policy of {self.workspace}"


class AnchorKind(models.TextChoices):
    PIPELINE = "pipeline", "Pipeline"
    NODE = "node", "Node"
    EDGE = "edge", "Edge"
    VERTEX = "vertex", "JobVertex"


class ThreadStatus(models.TextChoices):
    OPEN = "open", "Open"
    RESOLVED = "resolved", "Resolved"


class CommentThread(models.Model):
    """A discussion anchored to one element of one version of a pipeline, or of its
    working copy (`version` null; `revision` says which state of it)."""

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="comment_threads")
    version = models.ForeignKey(
        PipelineVersion,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="comment_threads",
    )
    revision = models.PositiveIntegerField()
    """The working copy's revision it was written on (for a version, the one it saved)."""
    kind = models.CharField(max_length=16, choices=AnchorKind.choices)
    node = models.IntegerField(null=True, blank=True)
    """`node`: the node's document id; `vertex`: the chain's head node."""
    edge_source = models.IntegerField(null=True, blank=True)
    edge_target = models.IntegerField(null=True, blank=True)
    edge_type_number = models.IntegerField(null=True, blank=True)
    edge_index = models.IntegerField(null=True, blank=True)
    """`k` of the edge key (source, target, typeNumber, k): the earlier edges with those."""
    operator_id = models.CharField(max_length=32, blank=True)
    """`node`: its OperatorID then; `vertex`: the JobVertexID then ("": none, a cycle)."""
    source_operator_id = models.CharField(max_length=32, blank=True)
    target_operator_id = models.CharField(max_length=32, blank=True)
    label = models.CharField(max_length=500, blank=True)
    """What the element was called then: a node's or vertex's name, an edge's ends."""
    status = models.CharField(
        max_length=16, choices=ThreadStatus.choices, default=ThreadStatus.OPEN
    )
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("pipeline_id", "-id")
        indexes = (models.Index(fields=["pipeline", "-id"], name="thread_pipeline_newest"),)
        constraints = (
            models.CheckConstraint(
                condition=models.Q(kind__in=AnchorKind.values), name="thread_kind_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=ThreadStatus.values), name="thread_status_valid"
            ),
        )

    def __str__(self) -> str:
        return f"thread {self.pk} on {self.kind} {self.label!r} of {self.pipeline_id}"


class Comment(models.Model):
    """One comment of a thread: the first opens it, the others reply. Deleting one blanks
    it and keeps its place, so the replies around it still read in order."""

    thread = models.ForeignKey(CommentThread, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    body = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    edited_at = models.DateTimeField(null=True, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("thread_id", "id")

    def __str__(self) -> str:
        return f"comment {self.pk} in thread {self.thread_id}"


class Mention(models.Model):
    """A workspace member named in a comment (`@username`), until they mark it read."""

    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="mentions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("comment_id", "user_id")
        indexes = (models.Index(fields=["user", "read_at"], name="mention_user_unread"),)
        constraints = (
            models.UniqueConstraint(fields=["comment", "user"], name="mention_unique_user"),
        )

    def __str__(self) -> str:
        return f"@{self.user_id} in comment {self.comment_id}"


class ReviewRequest(models.Model):
    """Someone asked members to review a saved version."""

    version = models.ForeignKey(
        PipelineVersion, on_delete=models.CASCADE, related_name="review_requests"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    message = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("version_id", "id")

    def __str__(self) -> str:
        return f"review request {self.pk} of {self.version}"


class ReviewAssignment(models.Model):
    """One member asked in a review request."""

    request = models.ForeignKey(ReviewRequest, on_delete=models.CASCADE, related_name="assignments")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )

    class Meta:
        ordering = ("request_id", "id")
        indexes = (models.Index(fields=["reviewer", "request"], name="assignment_reviewer"),)
        constraints = (
            models.UniqueConstraint(fields=["request", "reviewer"], name="assignment_unique"),
        )

    def __str__(self) -> str:
        return f"{self.reviewer_id} on review request {self.request_id}"


class VerdictKind(models.TextChoices):
    APPROVE = "approve", "Approve"
    REQUEST_CHANGES = "request_changes", "Request changes"
    COMMENT = "comment", "Comment"


class VerdictImmutable(Exception):
    """Raised when code tries to change a given `ReviewVerdict`."""


class ReviewVerdict(models.Model):
    """A reviewer's answer to a review request. Never changes: a reviewer who changes
    their mind gives another, and their latest is theirs. Its weight is fixed when it is
    given (`role`, `counts`): later role changes never rewrite it; only an owner's recorded
    revocation (`ApprovalRevocation`) or a newer version takes an approval's effect away."""

    request = models.ForeignKey(ReviewRequest, on_delete=models.CASCADE, related_name="verdicts")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    verdict = models.CharField(max_length=16, choices=VerdictKind.choices)
    summary = models.TextField(blank=True)
    acknowledged = models.JSONField(default=list, blank=True)
    """An approval's acknowledged state losses: the ids of the operators at risk."""
    acknowledged_state = models.JSONField(default=list, blank=True)
    """The same as the check named them when the approval was given: per state its
    `operatorId`, `name` and `stateBytes` (null when the savepoint was predicted)."""
    reference = models.ForeignKey(
        PipelineVersion, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    """The approved version the state-loss check compared with, if there was one."""
    savepoint = models.ForeignKey(
        Savepoint, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    """The pipeline's current savepoint the state-loss check used instead, if it had one."""
    role = models.CharField(max_length=16, choices=Role.choices)
    """The reviewer's role in the workspace when they gave it."""
    counts = models.BooleanField()
    """Whether it counts towards the version's state, decided when it was given
    (`reviews.states.verdict_weight`)."""
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("request_id", "id")
        constraints = (
            models.CheckConstraint(
                condition=models.Q(verdict__in=VerdictKind.values), name="verdict_kind_valid"
            ),
        )

    def __str__(self) -> str:
        return f"{self.verdict} by {self.reviewer_id} on review request {self.request_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise VerdictImmutable("review verdicts are never changed once given")
        super().save(*args, **kwargs)


REVOCATION_REASON_MAX = 2_000
"""Characters of the reason an owner gives for revoking an approval."""


class RevocationImmutable(Exception):
    """Raised when code tries to change a recorded `ApprovalRevocation`."""


class ApprovalRevocation(models.Model):
    """An owner took back the effect of a past approval, saying why. The approval stays on
    the record as it was given; this is recorded beside it, once, and never changes."""

    verdict = models.OneToOneField(
        ReviewVerdict, on_delete=models.CASCADE, related_name="revocation"
    )
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reason = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("id",)

    def __str__(self) -> str:
        return f"revocation of verdict {self.verdict_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise RevocationImmutable("revocations are never changed once recorded")
        super().save(*args, **kwargs)
