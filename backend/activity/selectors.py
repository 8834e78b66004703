"""A pipeline's activity feed, read from what the other apps store: versions saved, review
requests and verdicts (with the weight each was given with and what an approval
acknowledged), approvals revoked, comments, runs started and finished; and the audit
record (`audit`) of what they do not keep as history: threads resolved and reopened,
savepoints uploaded, made current and deleted, runs the review gate refused, and, on every
pipeline of the workspace since it was created, review policy and membership changes.
Nothing is stored twice, so the feed cannot disagree with them; a deleted comment leaves it.

The feed is ordered newest first by (time, kind, id) and paged by that key (keyset): each
source is asked for at most a page of items before the cursor's key, and the page is the
newest of them all. A cursor is that key of the last item served.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Final

from django.db.models import Min, Q, QuerySet
from django.utils.dateparse import parse_datetime

from accounts.models import Role
from activity.events import (
    RECORDED,
    ActivityItem,
    ActivityPage,
    ApprovalRevokedActivity,
    CommentActivity,
    RecordedActivity,
    ReviewRequestedActivity,
    RunFinishedActivity,
    RunStartedActivity,
    VerdictActivity,
    VersionSavedActivity,
)
from audit.models import AuditEvent
from config.cursors import bad_cursor
from config.messages import UserRef
from pipelines.models import Pipeline, PipelineVersion
from reviews.events import AcknowledgedState, VerdictKind
from reviews.models import ApprovalRevocation, Comment, ReviewRequest, ReviewVerdict
from reviews.selectors import EXCERPT_CHARS, user_ref
from runs.models import Run, RunStatus

Key = tuple[datetime, str, int]
"""(time, kind, id): the feed's order, newest first."""
Entry = tuple[Key, ActivityItem]

VERSION_SAVED: Final = "version_saved"
REVIEW_REQUESTED: Final = "review_requested"
REVIEW_VERDICT: Final = "review_verdict"
APPROVAL_REVOKED: Final = "approval_revoked"
RECORDED_KIND: Final = "recorded"
"""The key's kind of every item read from the audit record, whatever its own kind."""
COMMENT: Final = "comment"
RUN_STARTED: Final = "run_started"
RUN_FINISHED: Final = "run_finished"
_KINDS: Final = (
    VERSION_SAVED,
    REVIEW_REQUESTED,
    REVIEW_VERDICT,
    APPROVAL_REVOKED,
    RECORDED_KIND,
    COMMENT,
    RUN_STARTED,
    RUN_FINISHED,
)


def encode_cursor(key: Key) -> str:
    at, kind, pk = key
    text = f"{at.isoformat()}|{kind}|{pk}"
    return base64.urlsafe_b64encode(text.encode()).decode()


def decode_cursor(cursor: str | None) -> Key | None:
    """The key a cursor names; None without one; a 400 for anything this feed did not give."""
    if cursor is None:
        return None
    try:
        at_text, kind, pk_text = base64.urlsafe_b64decode(cursor.encode()).decode().split("|")
        at = parse_datetime(at_text)
        pk = int(pk_text)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise bad_cursor() from None
    if at is None or at.tzinfo is None or kind not in _KINDS or not 0 < pk < 2**63:
        raise bad_cursor()
    return at, kind, pk


def _before(field: str, kind: str, cursor: Key | None) -> Q:
    """Rows of `kind` whose key comes after the cursor's in the feed's order (is smaller)."""
    if cursor is None:
        return Q()
    at, cursor_kind, pk = cursor
    if kind < cursor_kind:
        return Q(**{f"{field}__lte": at})
    if kind > cursor_kind:
        return Q(**{f"{field}__lt": at})
    return Q(**{f"{field}__lt": at}) | Q(**{field: at, "pk__lt": pk})


def _versions(pipeline: Pipeline, cursor: Key | None, limit: int) -> Iterable[Entry]:
    rows = PipelineVersion.objects.filter(
        _before("created_at", VERSION_SAVED, cursor), pipeline=pipeline
    ).select_related("author")
    for version in rows.defer("document").order_by("-created_at", "-pk")[:limit]:
        item = VersionSavedActivity(
            at=version.created_at,
            user=user_ref(version.author),
            version=version.number,
            message=version.message,
        )
        yield (version.created_at, VERSION_SAVED, version.pk), item


def _review_requests(pipeline: Pipeline, cursor: Key | None, limit: int) -> Iterable[Entry]:
    rows = (
        ReviewRequest.objects.filter(
            _before("created_at", REVIEW_REQUESTED, cursor), version__pipeline=pipeline
        )
        .select_related("requested_by", "version")
        .defer("version__document")
        .prefetch_related("assignments__reviewer")
    )
    for request in rows.order_by("-created_at", "-pk")[:limit]:
        item = ReviewRequestedActivity(
            at=request.created_at,
            user=user_ref(request.requested_by),
            version=request.version.number,
            request=request.pk,
            reviewers=[
                UserRef(id=a.reviewer_id, username=a.reviewer.get_username())
                for a in request.assignments.all()
            ],
            message=request.message,
        )
        yield (request.created_at, REVIEW_REQUESTED, request.pk), item


_VERDICTS: Final[dict[str, VerdictKind]] = {
    "approve": "approve",
    "request_changes": "request_changes",
    "comment": "comment",
}


def _verdicts(pipeline: Pipeline, cursor: Key | None, limit: int) -> Iterable[Entry]:
    rows = (
        ReviewVerdict.objects.filter(
            _before("created_at", REVIEW_VERDICT, cursor), request__version__pipeline=pipeline
        )
        .select_related("reviewer", "request__version")
        .defer("request__version__document")
    )
    for verdict in rows.order_by("-created_at", "-pk")[:limit]:
        item = VerdictActivity(
            at=verdict.created_at,
            user=user_ref(verdict.reviewer),
            version=verdict.request.version.number,
            request=verdict.request_id,
            verdict=_VERDICTS[verdict.verdict],
            summary=verdict.summary,
            role=Role(verdict.role),
            counts=verdict.counts,
            acknowledged=[
                AcknowledgedState.model_validate(entry) for entry in verdict.acknowledged_state
            ],
        )
        yield (verdict.created_at, REVIEW_VERDICT, verdict.pk), item


def _revocations(pipeline: Pipeline, cursor: Key | None, limit: int) -> Iterable[Entry]:
    rows = (
        ApprovalRevocation.objects.filter(
            _before("created_at", APPROVAL_REVOKED, cursor),
            verdict__request__version__pipeline=pipeline,
        )
        .select_related("revoked_by", "verdict__reviewer", "verdict__request__version")
        .defer("verdict__request__version__document")
    )
    for revocation in rows.order_by("-created_at", "-pk")[:limit]:
        verdict = revocation.verdict
        item = ApprovalRevokedActivity(
            at=revocation.created_at,
            user=user_ref(revocation.revoked_by),
            version=verdict.request.version.number,
            request=verdict.request_id,
            reviewer=user_ref(verdict.reviewer),
            reason=revocation.reason,
        )
        yield (revocation.created_at, APPROVAL_REVOKED, revocation.pk), item


_RECORDED_BY_KIND: Final[dict[str, type[RecordedActivity]]] = {
    model.model_fields["kind"].default: model for model in RECORDED
}


def _recorded(pipeline: Pipeline, cursor: Key | None, limit: int) -> Iterable[Entry]:
    about_pipeline = Q(pipeline_id=pipeline.pk)
    about_workspace = Q(
        workspace_id=pipeline.workspace_id, pipeline_id__isnull=True, at__gte=pipeline.created_at
    )
    rows = (
        AuditEvent.objects.filter(about_pipeline | about_workspace)
        .filter(_before("at", RECORDED_KIND, cursor), kind__in=_RECORDED_BY_KIND)
        .select_related("actor")
    )
    for event in rows.order_by("-at", "-pk")[:limit]:
        model = _RECORDED_BY_KIND[event.kind]
        fields = {**event.details, "kind": event.kind, "at": event.at, "record": event.pk}
        item = model.model_validate({**fields, "user": user_ref(event.actor)})
        yield (event.at, RECORDED_KIND, event.pk), item


def _comments(pipeline: Pipeline, cursor: Key | None, limit: int) -> Iterable[Entry]:
    rows = list(
        Comment.objects.filter(
            _before("created_at", COMMENT, cursor),
            thread__pipeline=pipeline,
            deleted_at__isnull=True,
        )
        .select_related("author", "thread__version")
        .defer("thread__version__document")
        .order_by("-created_at", "-pk")[:limit]
    )
    # The comment that opened each thread: the others are replies.
    first = dict(
        Comment.objects.filter(thread__in={c.thread_id for c in rows})
        .values("thread")
        .annotate(first=Min("pk"))
        .values_list("thread", "first")
    )
    for comment in rows:
        version = comment.thread.version
        item = CommentActivity(
            at=comment.created_at,
            user=user_ref(comment.author),
            thread=comment.thread_id,
            comment=comment.pk,
            version=None if version is None else version.number,
            reply=comment.pk != first.get(comment.thread_id),
            target=comment.thread.label,
            excerpt=comment.body[:EXCERPT_CHARS],
        )
        yield (comment.created_at, COMMENT, comment.pk), item


def _runs(pipeline: Pipeline) -> QuerySet[Run]:
    return (
        Run.objects.filter(pipeline=pipeline)
        .select_related("started_by", "version")
        .defer("state", "vertices", "sinks", "details", "version__document")
    )


def _runs_started(pipeline: Pipeline, cursor: Key | None, limit: int) -> Iterable[Entry]:
    rows = _runs(pipeline).filter(_before("created_at", RUN_STARTED, cursor))
    for run in rows.order_by("-created_at", "-pk")[:limit]:
        item = RunStartedActivity(
            at=run.created_at, user=user_ref(run.started_by), run=run.pk, version=run.version.number
        )
        yield (run.created_at, RUN_STARTED, run.pk), item


def _runs_finished(pipeline: Pipeline, cursor: Key | None, limit: int) -> Iterable[Entry]:
    rows = _runs(pipeline).filter(
        _before("finished_at", RUN_FINISHED, cursor), finished_at__isnull=False
    )
    for run in rows.order_by("-finished_at", "-pk")[:limit]:
        assert run.finished_at is not None
        item = RunFinishedActivity(
            at=run.finished_at,
            user=user_ref(run.started_by),
            run=run.pk,
            version=run.version.number,
            status=RunStatus(run.status),
        )
        yield (run.finished_at, RUN_FINISHED, run.pk), item


_SOURCES: Final[tuple[Callable[[Pipeline, Key | None, int], Iterable[Entry]], ...]] = (
    _versions,
    _review_requests,
    _verdicts,
    _revocations,
    _recorded,
    _comments,
    _runs_started,
    _runs_finished,
)


def activity_list(
    *, pipeline: Pipeline, cursor: str | None = None, limit: int = 50
) -> ActivityPage:
    """A page of the pipeline's activity, newest first."""
    after = decode_cursor(cursor)
    entries = [entry for source in _SOURCES for entry in source(pipeline, after, limit + 1)]
    entries.sort(key=lambda entry: entry[0], reverse=True)
    page = entries[:limit]
    more = len(entries) > limit
    return ActivityPage(
        items=[item for _, item in page],
        next=encode_cursor(page[-1][0]) if more else None,
    )
