"""Writes of team review: comment threads, comments and mentions, review requests, verdicts
and the workspace's review policy.

Each service checks the actor's role now, under the row lock of what it changes: the
pipeline for a new thread, a review request or a verdict (which must see the latest
version, and `version_create` locks the same row), the thread for its comments and status,
the workspace for its policy. It validates everything before it writes and writes in one
transaction, so a refused request leaves nothing behind, and it tells everyone on the
pipeline after commit (`reviews.events`, through `pipelines.events.publish_after_commit`),
and the inboxes of the users whose inbox it changed (`reviews.inbox.tell_inboxes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from accounts.models import Membership, Role, Workspace
from accounts.permissions import authenticated_user, require_role
from accounts.selectors import membership_role
from audit.services import audit_record
from compiler.anchors import AnchorKind, AnchorNotFound, anchor_in
from compiler.diagnostics import Diagnostic, Location
from compiler.edits import EdgeKey
from compiler.state.statecheck import StateRisk
from config.errors import Conflict, InvalidRequest, NotFound, PermissionDenied
from config.messages import UserRef
from pipelines.events import publish_after_commit
from pipelines.models import Pipeline, PipelineVersion
from pipelines.selectors import WORKING
from reviews import events
from reviews.anchoring import Plans
from reviews.inbox import tell_inboxes
from reviews.mentions import mentioned_members
from reviews.models import (
    MAX_REQUIRED_APPROVALS,
    REVOCATION_REASON_MAX,
    ApprovalRevocation,
    Comment,
    CommentThread,
    Mention,
    ReviewAssignment,
    ReviewPolicy,
    ReviewRequest,
    ReviewVerdict,
    ThreadStatus,
    VerdictKind,
)
from reviews.selectors import (
    StateBasis,
    comment_entry,
    given_verdict,
    member_roles,
    review_policy,
    review_request_bodies,
    review_request_get,
    review_state,
    review_tallies,
    state_check,
    thread_detail,
    verdict_body,
)
from reviews.states import revocation_refusal, verdict_weight

Actor = AbstractBaseUser | AnonymousUser

MAX_THREADS_PER_PIPELINE: Final = 5_000
MAX_COMMENTS_PER_THREAD: Final = 500
MAX_REQUESTS_PER_VERSION: Final = 50


@dataclass(frozen=True, slots=True)
class Target:
    """What a new thread is about, as a request names it (`compiler.anchors.anchor_in`)."""

    kind: AnchorKind
    node: int | None = None
    edge: EdgeKey | None = None
    vertex: str | None = None


def _locked_pipeline(pipeline_id: int) -> Pipeline:
    return Pipeline.objects.select_for_update().get(pk=pipeline_id)


def _locked_thread(thread: CommentThread) -> CommentThread:
    # `of`: only the thread's row; PostgreSQL locks no row of a nullable join (the version).
    return (
        CommentThread.objects.select_for_update(of=("self",))
        .select_related("pipeline", "version")
        .defer("pipeline__snapshot", "version__document")
        .get(pk=thread.pk)
    )


def _user_ref(user: User) -> UserRef:
    return UserRef(id=user.pk, username=user.get_username())


def _mentions(comment: Comment, users: Sequence[User]) -> list[User]:
    """Store the mentions of a new comment (its author is not told of their own)."""
    others = [u for u in users if u.pk != comment.author_id]
    Mention.objects.bulk_create([Mention(comment=comment, user=u) for u in others])
    tell_inboxes(u.pk for u in others)
    return others


# Comments -----------------------------------------------------------------------------------


def thread_create(
    *, pipeline: Pipeline, actor: Actor, target: Target, body: str, version: int | None = None
) -> CommentThread:
    """Open a thread on an element of a version (or of the working copy) with its first
    comment (any member; viewers too)."""
    user = authenticated_user(actor)
    with transaction.atomic():
        locked = _locked_pipeline(pipeline.pk)
        require_role(user=user, workspace=locked.workspace_id, minimum=Role.VIEWER)
        plans = Plans(locked)
        try:
            side = plans.side(WORKING if version is None else version)
        except NotFound as missing:
            raise InvalidRequest(missing.message, fields={"version": [missing.message]}) from None
        try:
            anchor = anchor_in(
                side, kind=target.kind, node=target.node, edge=target.edge, vertex=target.vertex
            )
        except AnchorNotFound as absent:
            raise InvalidRequest(
                absent.message,
                code="unknown-target",
                fields={f"target.{absent.field}": [absent.message]},
            ) from None
        mentioned = mentioned_members(workspace_id=locked.workspace_id, text=body)
        if CommentThread.objects.filter(pipeline=locked).count() >= MAX_THREADS_PER_PIPELINE:
            raise Conflict(
                f"The pipeline has {MAX_THREADS_PER_PIPELINE} threads, as many as it may.",
                code="too-many-threads",
            )
        edge = anchor.edge or (None, None, None, None)
        thread = CommentThread.objects.create(
            pipeline=locked,
            version=None if version is None else plans.version(version),
            revision=plans.revision(WORKING if version is None else version),
            kind=anchor.kind,
            node=anchor.node,
            edge_source=edge[0],
            edge_target=edge[1],
            edge_type_number=edge[2],
            edge_index=edge[3],
            operator_id=anchor.operator_id or "",
            source_operator_id=anchor.source_operator_id or "",
            target_operator_id=anchor.target_operator_id or "",
            label=anchor.label[:500],
            created_by=user,
        )
        comment = Comment.objects.create(thread=thread, author=user, body=body)
        _mentions(comment, mentioned)
        created = events.CommentThreadCreated(thread=thread_detail(thread=thread, plans=plans))
        publish_after_commit(locked.pk, created)
    return thread


def thread_reply(*, thread: CommentThread, actor: Actor, body: str) -> Comment:
    """Add a comment to a thread (any member)."""
    user = authenticated_user(actor)
    with transaction.atomic():
        locked = _locked_thread(thread)
        workspace_id = locked.pipeline.workspace_id
        require_role(user=user, workspace=workspace_id, minimum=Role.VIEWER)
        mentioned = mentioned_members(workspace_id=workspace_id, text=body)
        if Comment.objects.filter(thread=locked).count() >= MAX_COMMENTS_PER_THREAD:
            raise Conflict(
                f"The thread has {MAX_COMMENTS_PER_THREAD} comments, as many as it may: "
                "open another.",
                code="thread-full",
            )
        comment = Comment.objects.create(thread=locked, author=user, body=body)
        users = _mentions(comment, mentioned)
        added = events.CommentAdded(thread=locked.pk, comment=comment_entry(comment, users))
        publish_after_commit(locked.pipeline_id, added)
    return comment


def _own_comment(comment: Comment, user: User, verb: str) -> Comment:
    """The comment, locked, if the user may `verb` it: their own, in a workspace they are in."""
    locked = (
        # `of`: only the comment's row; PostgreSQL locks no row of a nullable join (the author).
        Comment.objects.select_for_update(of=("self",))
        .select_related("thread__pipeline", "author")
        .defer("thread__pipeline__snapshot")
        .get(pk=comment.pk)
    )
    require_role(user=user, workspace=locked.thread.pipeline.workspace_id, minimum=Role.VIEWER)
    if locked.author_id != user.pk:
        raise PermissionDenied(f"Only its author may {verb} a comment.", code="not-the-author")
    return locked


def comment_update(*, comment: Comment, actor: Actor, body: str) -> Comment:
    """Change the text of your own comment; its mentions follow the new text."""
    user = authenticated_user(actor)
    with transaction.atomic():
        locked = _own_comment(comment, user, "edit")
        if locked.deleted_at is not None:
            raise Conflict("The comment was deleted.", code="comment-deleted")
        mentioned = mentioned_members(workspace_id=locked.thread.pipeline.workspace_id, text=body)
        wanted = {u.pk: u for u in mentioned if u.pk != user.pk}
        before = set(Mention.objects.filter(comment=locked).values_list("user_id", flat=True))
        tell_inboxes(before ^ set(wanted))
        # Mentions still there keep whether they were read; new ones are unread.
        Mention.objects.filter(comment=locked).exclude(user_id__in=list(wanted)).delete()
        kept = set(Mention.objects.filter(comment=locked).values_list("user_id", flat=True))
        Mention.objects.bulk_create(
            [Mention(comment=locked, user=u) for pk, u in wanted.items() if pk not in kept]
        )
        locked.body = body
        locked.edited_at = timezone.now()
        locked.save(update_fields=["body", "edited_at"])
        edited = events.CommentEdited(
            thread=locked.thread_id, comment=comment_entry(locked, list(wanted.values()))
        )
        publish_after_commit(locked.thread.pipeline_id, edited)
    return locked


def comment_delete(*, comment: Comment, actor: Actor) -> None:
    """Delete your own comment: its text and mentions go, its place in the thread stays. A
    thread whose every comment is deleted is gone."""
    user = authenticated_user(actor)
    with transaction.atomic():
        locked = _own_comment(comment, user, "delete")
        if locked.deleted_at is not None:
            return
        locked.body = ""
        locked.deleted_at = timezone.now()
        locked.save(update_fields=["body", "deleted_at"])
        mentions = Mention.objects.filter(comment=locked)
        tell_inboxes(mentions.values_list("user_id", flat=True))
        mentions.delete()
        deleted = events.CommentDeleted(thread=locked.thread_id, comment=comment_entry(locked))
        publish_after_commit(locked.thread.pipeline_id, deleted)


def _set_status(thread: CommentThread, actor: Actor, status: ThreadStatus) -> CommentThread:
    user = authenticated_user(actor)
    with transaction.atomic():
        locked = _locked_thread(thread)
        workspace_id = locked.pipeline.workspace_id
        require_role(user=user, workspace=workspace_id, minimum=Role.VIEWER)
        role = membership_role(user=user, workspace=workspace_id)
        if locked.created_by_id != user.pk and not (role is not None and role.allows(Role.EDITOR)):
            raise PermissionDenied(
                "Only editors, owners and the thread's author may resolve or reopen it.",
            )
        if locked.status == status:
            return locked
        now = timezone.now()
        locked.status = status
        resolved = status == ThreadStatus.RESOLVED
        locked.resolved_by = user if resolved else None
        locked.resolved_at = now if resolved else None
        locked.save(update_fields=["status", "resolved_by", "resolved_at"])
        recorded = events.ThreadResolvedRecord if resolved else events.ThreadReopenedRecord
        version = None if locked.version is None else locked.version.number
        audit_record(
            workspace_id=workspace_id,
            pipeline_id=locked.pipeline_id,
            actor=user,
            record=recorded(thread=locked.pk, version=version, target=locked.label),
        )
        message: events.CommentThreadResolved | events.CommentThreadReopened
        if resolved:
            message = events.CommentThreadResolved(thread=locked.pk, user=_user_ref(user), at=now)
        else:
            message = events.CommentThreadReopened(thread=locked.pk, user=_user_ref(user), at=now)
        publish_after_commit(locked.pipeline_id, message)
    return locked


def thread_resolve(*, thread: CommentThread, actor: Actor) -> CommentThread:
    """Mark a thread resolved (editors, owners, and its author)."""
    return _set_status(thread, actor, ThreadStatus.RESOLVED)


def thread_reopen(*, thread: CommentThread, actor: Actor) -> CommentThread:
    """Open a resolved thread again (editors, owners, and its author)."""
    return _set_status(thread, actor, ThreadStatus.OPEN)


def mention_mark_read(
    *, actor: Actor, mention_ids: Sequence[int] | None = None, everything: bool = False
) -> int:
    """Mark the user's mentions read: these, or every one; how many were unread."""
    user = authenticated_user(actor)
    mentions = Mention.objects.filter(user=user)
    if not everything:
        ids = list(dict.fromkeys(mention_ids or []))
        found = set(mentions.filter(pk__in=ids).values_list("pk", flat=True))
        unknown = [pk for pk in ids if pk not in found]
        if unknown:
            problems = [f"You have no mention {pk}." for pk in unknown]
            raise InvalidRequest(problems[0], fields={"mentions": problems})
        mentions = mentions.filter(pk__in=ids)
    with transaction.atomic():
        read = mentions.filter(read_at__isnull=True).update(read_at=timezone.now())
        if read:
            tell_inboxes([user.pk])  # the user's other pages
    return read


# Reviews ------------------------------------------------------------------------------------


def _latest_number(pipeline: Pipeline) -> int:
    last = PipelineVersion.objects.filter(pipeline=pipeline).aggregate(last=Max("number"))
    return int(last["last"] or 0)


def review_request_create(
    *, version: PipelineVersion, actor: Actor, reviewers: Sequence[str], message: str = ""
) -> ReviewRequest:
    """Ask workspace members (by username) to review the pipeline's latest version
    (editors and owners)."""
    user = authenticated_user(actor)
    with transaction.atomic():
        pipeline = _locked_pipeline(version.pipeline_id)
        require_role(user=user, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
        latest = _latest_number(pipeline)
        if version.number != latest:
            raise Conflict(
                f"Version {version.number} is not the latest version ({latest}): request a "
                f"review of version {latest}.",
                code="version-superseded",
            )
        if ReviewRequest.objects.filter(version=version).count() >= MAX_REQUESTS_PER_VERSION:
            raise Conflict(
                f"Version {version.number} has {MAX_REQUESTS_PER_VERSION} review requests, as "
                "many as it may.",
                code="too-many-requests",
            )
        members = _members_named(pipeline.workspace_id, reviewers)
        request = ReviewRequest.objects.create(version=version, requested_by=user, message=message)
        ReviewAssignment.objects.bulk_create(
            [ReviewAssignment(request=request, reviewer=member) for member in members]
        )
        tell_inboxes(member.pk for member in members)
        tallies = review_tallies(pipeline=pipeline)
        (body,) = review_request_bodies(
            [review_request_get(version=version, request_id=request.pk)],
            tallies=tallies,
            roles=member_roles(workspace_id=pipeline.workspace_id),
        )
        requested = events.ReviewRequested(
            version=version.number,
            request=body,
            state=review_state(tallies[version.number].state),
        )
        publish_after_commit(pipeline.pk, requested)
    return request


def _members_named(workspace_id: int, usernames: Sequence[str]) -> list[User]:
    """The workspace's members with these usernames (letter case aside), in that order; any
    other name is a 400 naming it."""
    named = Q()
    for name in usernames:
        named |= Q(user__username__iexact=name)
    found = {
        m.user.get_username().casefold(): m.user
        for m in Membership.objects.filter(named, workspace_id=workspace_id).select_related("user")
    }
    unknown = [name for name in usernames if name.casefold() not in found]
    if unknown:
        problems = [f"'{name}' is not a member of this workspace." for name in unknown]
        raise InvalidRequest(problems[0], fields={"reviewers": problems})
    return list({found[name.casefold()].pk: found[name.casefold()] for name in usernames}.values())


def review_verdict_create(
    *,
    request: ReviewRequest,
    actor: Actor,
    verdict: VerdictKind,
    summary: str = "",
    acknowledged: Sequence[str] = (),
) -> ReviewVerdict:
    """Answer a review request you were asked in (any member): approve, request changes or
    comment. An approval acknowledges exactly the operators whose state the version puts at
    risk compared with the pipeline's last approved version (`compiler.state.statecheck`)."""
    user = authenticated_user(actor)
    with transaction.atomic():
        pipeline = _locked_pipeline(request.version.pipeline_id)
        require_role(user=user, workspace=pipeline.workspace_id, minimum=Role.VIEWER)
        version = request.version
        if not ReviewAssignment.objects.filter(request=request, reviewer=user).exists():
            raise PermissionDenied(
                f"You were not asked to review version {version.number} in this request.",
                code="not-a-reviewer",
            )
        latest = _latest_number(pipeline)
        if version.number != latest:
            raise Conflict(
                f"This review of version {version.number} is superseded by version {latest}: "
                f"review version {latest}.",
                code="review-superseded",
            )
        basis = StateBasis(reference=None, savepoint=None, risks=[])
        policy = review_policy(workspace_id=pipeline.workspace_id)
        role = membership_role(user=user, workspace=pipeline.workspace_id)
        assert role is not None  # require_role passed
        weight = verdict_weight(
            verdict=verdict, role=role, is_author=version.author_id == user.pk, policy=policy
        )
        if not weight.allowed:
            raise PermissionDenied(weight.note or "", code="self-approval")
        if verdict == VerdictKind.APPROVE:
            basis = state_check(
                pipeline=pipeline, version=version, tallies=review_tallies(pipeline=pipeline)
            )
            _check_acknowledged(basis, acknowledged, version=version)
        elif acknowledged:
            text = "Only an approval acknowledges state at risk."
            raise InvalidRequest(text, fields={"acknowledged": [text]})
        given = ReviewVerdict.objects.create(
            request=request,
            reviewer=user,
            verdict=verdict,
            summary=summary,
            acknowledged=sorted(set(acknowledged)),
            acknowledged_state=[
                {"operatorId": risk.operator_id, "name": risk.name, "stateBytes": risk.state_bytes}
                for risk in basis.risks
            ],
            reference=basis.reference,
            savepoint=basis.savepoint,
            role=role,
            counts=weight.counts,
        )
        tell_inboxes([user.pk])  # answered: no longer waiting on the reviewer's other pages
        tallies = review_tallies(pipeline=pipeline)
        answered = events.VerdictGiven(
            version=version.number,
            verdict=verdict_body(verdict=given, tallies=tallies),
            state=review_state(tallies[version.number].state),
        )
        publish_after_commit(pipeline.pk, answered)
    return given


def approval_revoke(*, verdict: ReviewVerdict, actor: Actor, reason: str) -> ApprovalRevocation:
    """Take back the effect of a past approval (owners), saying why. The approval stays on
    the record as it was given and the revocation is recorded beside it: the version's state
    is derived again without it, and everyone on the pipeline hears of it."""
    user = authenticated_user(actor)
    reason = reason.strip()
    if not reason:
        text = "Say why the approval is revoked: the reason is kept on the record."
        raise InvalidRequest(text, fields={"reason": [text]})
    if len(reason) > REVOCATION_REASON_MAX:
        text = f"A reason has at most {REVOCATION_REASON_MAX} characters."
        raise InvalidRequest(text, fields={"reason": [text]})
    with transaction.atomic():
        pipeline = _locked_pipeline(verdict.request.version.pipeline_id)
        require_role(user=user, workspace=pipeline.workspace_id, minimum=Role.OWNER)
        already = ApprovalRevocation.objects.filter(verdict=verdict).exists()
        refusal = revocation_refusal(given_verdict(verdict, revoked=already))
        if refusal is not None:
            code, message = refusal
            raise Conflict(message, code=code)
        revocation = ApprovalRevocation.objects.create(
            verdict=verdict, revoked_by=user, reason=reason
        )
        tallies = review_tallies(pipeline=pipeline)
        number = verdict.request.version.number
        revoked = events.ApprovalRevoked(
            version=number,
            verdict=verdict_body(verdict=verdict, tallies=tallies),
            state=review_state(tallies[number].state),
        )
        publish_after_commit(pipeline.pk, revoked)
    return revocation


def _check_acknowledged(
    basis: StateBasis, acknowledged: Sequence[str], *, version: PipelineVersion
) -> None:
    """A 400 listing what to acknowledge unless `acknowledged` names exactly the risks."""
    twice = sorted(
        {operator_id for operator_id in acknowledged if acknowledged.count(operator_id) > 1}
    )
    if twice:
        text = f"{', '.join(twice)} {'is' if len(twice) == 1 else 'are'} listed more than once."
        raise InvalidRequest(f"acknowledged: {text}", fields={"acknowledged": [text]})
    required = {risk.operator_id: risk for risk in basis.risks}
    given = list(acknowledged)
    missing = [risk for operator_id, risk in required.items() if operator_id not in given]
    extra = [operator_id for operator_id in given if operator_id not in required]
    if not missing and not extra:
        return
    problems = [
        f"{_risk_name(risk)}: " + "; ".join(reason.message for reason in risk.reasons)
        for risk in missing
    ] + [f"{operator_id} is not at risk: leave it out." for operator_id in extra]
    if required:
        listed = ", ".join(f"{r.name} ({r.operator_id})" for r in required.values())
        message = (
            f"Approving version {version.number} puts the state of {len(required)} "
            f"operator{'s' if len(required) != 1 else ''} at risk {_compared_with(basis)}: "
            f"acknowledge exactly the state of {listed}."
        )
    else:
        message = f"Approving version {version.number} puts no state at risk: acknowledge nothing."
    diagnostics = [
        Diagnostic(
            "review.state-at-risk",
            f"{risk.name}: " + "; ".join(reason.message for reason in risk.reasons),
            Location(node=risk.node),
        )
        for risk in missing
    ]
    raise InvalidRequest(
        message,
        code="state-not-acknowledged",
        fields={"acknowledged": problems},
        diagnostics=diagnostics,
    )


def _risk_name(risk: StateRisk) -> str:
    where = "" if risk.node is None else f"node {risk.node}, "
    return f"{risk.name} ({where}{risk.operator_id})"


def _compared_with(basis: StateBasis) -> str:
    if basis.savepoint is not None:
        return f"in the current savepoint '{basis.savepoint.label}'"
    assert basis.reference is not None
    return f"compared with version {basis.reference.number}, the last approved one"


def review_policy_update(
    *,
    workspace: Workspace,
    actor: Actor,
    required_approvals: int | None = None,
    allow_self_approval: bool | None = None,
    require_approval_to_run: bool | None = None,
) -> ReviewPolicy:
    """Change the workspace's review policy (owners); what is not given stays."""
    user = authenticated_user(actor)
    if required_approvals is not None and not 0 <= required_approvals <= MAX_REQUIRED_APPROVALS:
        text = f"Between 0 and {MAX_REQUIRED_APPROVALS}."
        raise InvalidRequest(f"requiredApprovals: {text}", fields={"requiredApprovals": [text]})
    with transaction.atomic():
        Workspace.objects.select_for_update().get(pk=workspace.pk)
        require_role(user=user, workspace=workspace, minimum=Role.OWNER)
        policy, _ = ReviewPolicy.objects.get_or_create(workspace=workspace)
        asked: list[tuple[events.PolicyField, str, int | bool | None]] = [
            ("requiredApprovals", "required_approvals", required_approvals),
            ("allowSelfApproval", "allow_self_approval", allow_self_approval),
            ("requireApprovalToRun", "require_approval_to_run", require_approval_to_run),
        ]
        changes = []
        for field, attribute, value in asked:
            before = getattr(policy, attribute)
            if value is not None and value != before:
                setattr(policy, attribute, value)
                changes.append(events.PolicyChange(field=field, before=before, after=value))
        policy.updated_by = user
        policy.save()
        if changes:
            record = events.PolicyChangedRecord(changes=changes)
            audit_record(workspace_id=workspace.pk, actor=user, record=record)
    return policy
