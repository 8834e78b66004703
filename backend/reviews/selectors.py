"""Reads of comments, reviews, policies and the current user's inbox, as their wire bodies.

The pipeline (and so the workspace) is the caller's, looked up for the user
(`pipelines.selectors.pipeline_get_for_user`): outside the user's workspaces everything is
"not found". Outdatedness and review states are derived here, never read from a column.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Final

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db.models import Exists, OuterRef, Prefetch, QuerySet

from accounts.models import Membership, Role
from accounts.permissions import authenticated_user
from compiler.edits import EdgeKey
from compiler.hashing import to_hex
from compiler.model import NodeId
from compiler.pipeline import compile_document
from compiler.state.statecheck import StateRisk, savepoint_risks, version_risks
from config.cursors import id_cursor, read_id_cursor
from config.errors import NotFound
from config.messages import UserRef
from pipelines.models import Pipeline, PipelineVersion
from pipelines.selectors import WORKING, VersionRef
from reviews import events
from reviews.anchoring import Plans, thread_anchor, thread_causes, thread_outdated
from reviews.models import (
    ApprovalRevocation,
    Comment,
    CommentThread,
    Mention,
    ReviewPolicy,
    ReviewRequest,
    ReviewVerdict,
    ThreadStatus,
    VerdictKind,
)
from reviews.states import (
    APPROVED,
    GivenVerdict,
    Policy,
    Tally,
    revocation_refusal,
    state_words,
    tally,
    verdict_weight,
)
from savepoints.models import Savepoint
from savepoints.selectors import savepoint_current, savepoint_read

THREAD_NOT_FOUND: Final = "Comment thread not found."
REQUEST_NOT_FOUND: Final = "Review request not found."
EXCERPT_CHARS: Final = 200


def user_ref(user: AbstractBaseUser | None) -> UserRef | None:
    return None if user is None else UserRef(id=user.pk, username=user.get_username())


def member_roles(*, workspace_id: int) -> dict[int, Role]:
    """Every member of the workspace with their role now."""
    return {
        user_id: Role(role)
        for user_id, role in Membership.objects.filter(workspace_id=workspace_id).values_list(
            "user_id", "role"
        )
    }


# Comments -----------------------------------------------------------------------------------


def thread_get(*, pipeline: Pipeline, thread_id: int) -> CommentThread:
    """One thread of the pipeline that still has a comment; `NotFound` otherwise."""
    thread = (
        _threads(pipeline)
        .filter(pk=thread_id)
        .select_related("version", "created_by", "resolved_by")
        .defer("version__document")
        .first()
    )
    if thread is None:
        raise NotFound(THREAD_NOT_FOUND)
    return thread


def comment_get(*, thread: CommentThread, comment_id: int) -> Comment:
    comment = Comment.objects.filter(thread=thread, pk=comment_id).select_related("author").first()
    if comment is None:
        raise NotFound("Comment not found.")
    return comment


def _threads(pipeline: Pipeline) -> QuerySet[CommentThread]:
    """The pipeline's threads with a comment left (one whose comments were all deleted is
    gone), newest first."""
    alive = Comment.objects.filter(thread=OuterRef("pk"), deleted_at__isnull=True)
    return CommentThread.objects.filter(Exists(alive), pipeline=pipeline).order_by("-id")


def comment_entry(comment: Comment, mentions: Sequence[User] = ()) -> events.CommentEntry:
    deleted = comment.deleted_at is not None
    return events.CommentEntry(
        id=comment.pk,
        author=user_ref(comment.author),
        body="" if deleted else comment.body,
        mentions=[] if deleted else [UserRef(id=u.pk, username=u.get_username()) for u in mentions],
        createdAt=comment.created_at,
        editedAt=comment.edited_at,
        deleted=deleted,
    )


def comment_entry_of(comment: Comment) -> events.CommentEntry:
    """`comment_entry` with the comment's mentions read."""
    users = [m.user for m in Mention.objects.filter(comment=comment).select_related("user")]
    return comment_entry(comment, users)


_STATUSES: dict[str, events.ThreadStatus] = {"open": "open", "resolved": "resolved"}


def _anchor(thread: CommentThread) -> events.Anchor:
    anchor = thread_anchor(thread)
    vertex = anchor.kind == "vertex"
    return events.Anchor(
        kind=anchor.kind,
        node=anchor.node,
        edge=anchor.edge,
        vertex=anchor.operator_id if vertex else None,
        operatorId=None if vertex else anchor.operator_id,
        sourceOperatorId=anchor.source_operator_id,
        targetOperatorId=anchor.target_operator_id,
        label=anchor.label,
    )


def _bodies(
    threads: Sequence[CommentThread], plans: Plans, at: VersionRef
) -> list[events.CommentThread]:
    """The wire bodies of threads, read at `at`, their comments read in two queries."""
    comments = (
        Comment.objects.filter(thread__in=threads)
        .select_related("author")
        .prefetch_related(
            Prefetch("mentions", queryset=Mention.objects.select_related("user").order_by("id"))
        )
        .order_by("id")
    )
    by_thread: dict[int, list[events.CommentEntry]] = defaultdict(list)
    for comment in comments:
        by_thread[comment.thread_id].append(
            comment_entry(comment, [m.user for m in comment.mentions.all()])
        )
    return [
        events.CommentThread(
            id=thread.pk,
            pipeline=thread.pipeline_id,
            version=None if thread.version is None else thread.version.number,
            revision=thread.revision,
            target=_anchor(thread),
            status=_STATUSES[thread.status],
            resolvedBy=user_ref(thread.resolved_by),
            resolvedAt=thread.resolved_at,
            createdBy=user_ref(thread.created_by),
            createdAt=thread.created_at,
            at=at,
            outdated=bool(causes := thread_causes(thread, plans, at)),
            outdatedCauses=causes,
            comments=by_thread[thread.pk],
        )
        for thread in threads
    ]


def thread_detail(
    *, thread: CommentThread, at: VersionRef = WORKING, plans: Plans | None = None
) -> events.CommentThread:
    """One thread read at `at` (default: the working copy)."""
    plans = plans or Plans(thread.pipeline)
    return _bodies([thread], plans, at)[0]


@dataclass(frozen=True, slots=True)
class ThreadFilter:
    """Which threads a list shows; None: any."""

    written_at: VersionRef | None = None
    status: str | None = None
    outdated: bool | None = None
    kind: str | None = None
    node: int | None = None


def thread_list(
    *,
    pipeline: Pipeline,
    at: VersionRef = WORKING,
    only: ThreadFilter = ThreadFilter(),
    cursor: str | None = None,
    limit: int = 50,
) -> events.CommentThreadPage:
    """A page of the pipeline's threads read at `at`, newest first."""
    plans = Plans(pipeline)
    plans.side(at)  # a missing version is a 404 before anything else
    threads = (
        _threads(pipeline)
        .select_related("version", "created_by", "resolved_by")
        .defer("version__document")  # read once, by `Plans`, if a thread needs it
    )
    if only.written_at == WORKING:
        threads = threads.filter(version__isnull=True)
    elif only.written_at is not None:
        threads = threads.filter(version=plans.version(int(only.written_at)))
    if only.status is not None:
        threads = threads.filter(status=only.status)
    if only.kind is not None:
        threads = threads.filter(kind=only.kind)
    if only.node is not None:
        threads = threads.filter(node=only.node)
    after = read_id_cursor(cursor)
    if after is not None:
        threads = threads.filter(pk__lt=after)
    if only.outdated is None:
        page = list(threads[: limit + 1])
    else:
        # Outdatedness is derived: read every candidate's anchor (ids only, no document of
        # its own compiled), up to the page.
        page = []
        for thread in threads.iterator(chunk_size=500):
            if thread_outdated(thread, plans, at) == only.outdated:
                page.append(thread)
                if len(page) > limit:
                    break
    more = len(page) > limit
    page = page[:limit]
    return events.CommentThreadPage(
        items=_bodies(page, plans, at),
        next=id_cursor(page[-1].pk) if more else None,
    )


@dataclass(slots=True)
class _Counts:
    open: int = 0
    outdated: int = 0
    resolved: int = 0

    def add(self, column: str) -> None:
        setattr(self, column, getattr(self, column) + 1)

    def body(self) -> events.TargetCounts:
        return events.TargetCounts(open=self.open, outdated=self.outdated, resolved=self.resolved)


def comment_summary(*, pipeline: Pipeline, at: VersionRef = WORKING) -> events.CommentSummary:
    """The pipeline's thread counts read at `at`, in all and per element."""
    plans = Plans(pipeline)
    side = plans.side(at)
    total, whole = _Counts(), _Counts()
    nodes: dict[int, _Counts] = defaultdict(_Counts)
    edges: dict[EdgeKey, _Counts] = defaultdict(_Counts)
    vertices: dict[int, _Counts] = defaultdict(_Counts)
    threads = _threads(pipeline).select_related("version").defer("version__document")
    for thread in threads.iterator(chunk_size=500):
        if thread.status == ThreadStatus.RESOLVED:
            column = "resolved"
        else:
            column = "outdated" if thread_outdated(thread, plans, at) else "open"
        total.add(column)
        anchor = thread_anchor(thread)
        if anchor.kind == "node" and anchor.node is not None:
            nodes[anchor.node].add(column)
        elif anchor.kind == "edge" and anchor.edge is not None:
            edges[anchor.edge].add(column)
        elif anchor.kind == "vertex" and anchor.node is not None:
            vertices[anchor.node].add(column)
        else:
            whole.add(column)
    chains = side.compilation.chains
    heads = set() if chains is None else {chain.head for chain in chains.chains}
    hashes = side.compilation.hashes

    def vertex_id(head: int) -> str | None:
        value = hashes.get(NodeId(head))
        return to_hex(value) if head in heads and value is not None else None

    return events.CommentSummary(
        at=at,
        total=total.body(),
        pipeline=whole.body(),
        nodes=[
            events.NodeCounts(node=node, **asdict(counts)) for node, counts in sorted(nodes.items())
        ],
        edges=[
            events.EdgeCounts(edge=edge, **asdict(counts)) for edge, counts in sorted(edges.items())
        ],
        vertices=[
            events.VertexCounts(head=head, vertex=vertex_id(head), **asdict(counts))
            for head, counts in sorted(vertices.items())
        ],
    )


# Reviews --------------------------------------------------------------------------------------


def review_policy(*, workspace_id: int) -> Policy:
    """The workspace's review policy (the defaults while it has none of its own)."""
    row = ReviewPolicy.objects.filter(workspace_id=workspace_id).first()
    if row is None:
        return Policy()
    return Policy(row.required_approvals, row.allow_self_approval, row.require_approval_to_run)


def review_policy_body(*, workspace_id: int) -> events.ReviewPolicy:
    row = (
        ReviewPolicy.objects.filter(workspace_id=workspace_id).select_related("updated_by").first()
    )
    policy = review_policy(workspace_id=workspace_id)
    return events.ReviewPolicy(
        workspace=workspace_id,
        requiredApprovals=policy.required_approvals,
        allowSelfApproval=policy.allow_self_approval,
        requireApprovalToRun=policy.require_approval_to_run,
        updatedBy=None if row is None else user_ref(row.updated_by),
        updatedAt=None if row is None else row.updated_at,
    )


def review_tallies(*, pipeline: Pipeline) -> dict[int, Tally]:
    """Every version's review state, by number, from a handful of queries."""
    versions = list(
        PipelineVersion.objects.filter(pipeline=pipeline)
        .order_by("number")
        .values_list("pk", "number")
    )
    latest = versions[-1][1] if versions else 0
    requested = set(
        ReviewRequest.objects.filter(version__pipeline=pipeline).values_list(
            "version_id", flat=True
        )
    )
    verdicts: dict[int, list[GivenVerdict]] = defaultdict(list)
    for verdict_id, version_id, reviewer_id, verdict, counts, revoked in (
        ReviewVerdict.objects.filter(request__version__pipeline=pipeline)
        .order_by("pk")
        .values_list(
            "pk", "request__version_id", "reviewer_id", "verdict", "counts", "revocation__id"
        )
    ):
        verdicts[version_id].append(
            GivenVerdict(verdict_id, reviewer_id, verdict, counts, revoked is not None)
        )
    policy = review_policy(workspace_id=pipeline.workspace_id)
    return {
        number: tally(
            requested=pk in requested,
            verdicts=verdicts[pk],
            policy=policy,
            newer_exists=number < latest,
        )
        for pk, number in versions
    }


@dataclass(frozen=True)
class StateBasis:
    """What a version's state-loss check compared with, and what it found at risk: the
    pipeline's current savepoint when it has one (the state production would restore),
    else its last approved version before the version (a savepoint of it, predicted)."""

    reference: PipelineVersion | None
    savepoint: Savepoint | None
    risks: list[StateRisk]


def state_check(
    *, pipeline: Pipeline, version: PipelineVersion, tallies: dict[int, Tally]
) -> StateBasis:
    """The state `version` puts at risk (`compiler.state.statecheck`): that of the
    pipeline's current savepoint it would not restore, or without one, that of the savepoint
    the last approved version before it would write (none approved: nothing)."""
    plans = Plans(pipeline)
    savepoint = savepoint_current(pipeline=pipeline)
    if savepoint is not None:
        written_by = savepoint.written_by
        previous = None if written_by is None else compile_document(written_by.document)
        risks = savepoint_risks(
            savepoint_read(savepoint=savepoint).operators,
            plans.side(version.number).compilation,
            previous=previous if previous is not None and previous.ok else None,
        )
        return StateBasis(reference=None, savepoint=savepoint, risks=risks)
    approved = [n for n, t in tallies.items() if n < version.number and t.state == APPROVED]
    if not approved:
        return StateBasis(reference=None, savepoint=None, risks=[])
    reference = plans.version(max(approved))
    old, new = plans.side(reference.number), plans.side(version.number)
    risks = version_risks(old.compilation, new.compilation)
    return StateBasis(reference=reference, savepoint=None, risks=risks)


def savepoint_ref(savepoint: Savepoint | None) -> events.SavepointRef | None:
    return (
        None if savepoint is None else events.SavepointRef(id=savepoint.pk, label=savepoint.label)
    )


def _verdict(verdict: ReviewVerdict, counting: frozenset[int]) -> events.Verdict:
    revocation = _revocation(verdict)
    return events.Verdict(
        id=verdict.pk,
        request=verdict.request_id,
        reviewer=user_ref(verdict.reviewer),
        verdict=_VERDICTS[verdict.verdict],
        summary=verdict.summary,
        acknowledged=list(verdict.acknowledged),
        acknowledgedState=[
            events.AcknowledgedState.model_validate(entry) for entry in verdict.acknowledged_state
        ],
        reference=None if verdict.reference is None else verdict.reference.number,
        savepoint=savepoint_ref(verdict.savepoint),
        role=Role(verdict.role),
        countsWhenGiven=verdict.counts,
        counts=verdict.pk in counting,
        revocation=revocation,
        revocable=revocation_refusal(given_verdict(verdict, revoked=revocation is not None))
        is None,
        createdAt=verdict.created_at,
    )


def given_verdict(verdict: ReviewVerdict, *, revoked: bool) -> GivenVerdict:
    """What the review rules (`reviews.states`) read of a stored verdict."""
    return GivenVerdict(
        id=verdict.pk,
        reviewer_id=verdict.reviewer_id,
        verdict=verdict.verdict,
        counts=verdict.counts,
        revoked=revoked,
    )


def _revocation(verdict: ReviewVerdict) -> events.Revocation | None:
    # The reverse one-to-one raises an AttributeError subclass when there is none.
    revocation: ApprovalRevocation | None = getattr(verdict, "revocation", None)
    if revocation is None:
        return None
    return events.Revocation(
        by=user_ref(revocation.revoked_by), reason=revocation.reason, at=revocation.created_at
    )


_VERDICTS: dict[str, events.VerdictKind] = {
    "approve": "approve",
    "request_changes": "request_changes",
    "comment": "comment",
}
_STATES: dict[str, events.ReviewState] = {
    "draft": "draft",
    "in_review": "in_review",
    "changes_requested": "changes_requested",
    "approved": "approved",
    "superseded": "superseded",
}


def review_state(state: str) -> events.ReviewState:
    return _STATES[state]


def verdict_body(*, verdict: ReviewVerdict, tallies: dict[int, Tally]) -> events.Verdict:
    number = verdict.request.version.number
    return _verdict(verdict, tallies[number].counting)


def review_request_bodies(
    requests: Iterable[ReviewRequest], *, tallies: dict[int, Tally], roles: dict[int, Role]
) -> list[events.ReviewRequest]:
    """Requests of one pipeline with each reviewer's role now and latest verdict."""
    requests = list(requests)
    latest: dict[tuple[int, int], ReviewVerdict] = {}
    for verdict in (
        ReviewVerdict.objects.filter(request__in=requests)
        .select_related("reviewer", "reference", "savepoint", "revocation__revoked_by")
        .order_by("pk")
    ):
        if verdict.reviewer_id is not None:
            latest[(verdict.request_id, verdict.reviewer_id)] = verdict
    newest = max(tallies, default=0)
    bodies = []
    for request in requests:
        counting = tallies[request.version.number].counting
        reviewers = []
        for assignment in request.assignments.all():
            given = latest.get((request.pk, assignment.reviewer_id))
            reviewers.append(
                events.Reviewer(
                    user=UserRef(
                        id=assignment.reviewer_id, username=assignment.reviewer.get_username()
                    ),
                    role=roles.get(assignment.reviewer_id),
                    latest=None if given is None else _verdict(given, counting),
                )
            )
        bodies.append(
            events.ReviewRequest(
                id=request.pk,
                version=request.version.number,
                requestedBy=user_ref(request.requested_by),
                message=request.message,
                createdAt=request.created_at,
                superseded=request.version.number < newest,
                reviewers=reviewers,
            )
        )
    return bodies


def _requests(version: PipelineVersion) -> QuerySet[ReviewRequest]:
    return (
        ReviewRequest.objects.filter(version=version)
        .select_related("requested_by", "version")
        .defer("version__document")
        .prefetch_related("assignments__reviewer")
        .order_by("pk")
    )


VERDICT_NOT_FOUND = "The review request has no such verdict."


def verdict_get(*, request: ReviewRequest, verdict_id: int) -> ReviewVerdict:
    verdict = (
        ReviewVerdict.objects.filter(request=request, pk=verdict_id)
        .select_related("request__version", "reviewer", "revocation__revoked_by")
        .first()
    )
    if verdict is None:
        raise NotFound(VERDICT_NOT_FOUND)
    return verdict


def review_request_get(*, version: PipelineVersion, request_id: int) -> ReviewRequest:
    request = _requests(version).filter(pk=request_id).first()
    if request is None:
        raise NotFound(REQUEST_NOT_FOUND)
    return request


def _verdict_options(
    *, viewer: AbstractBaseUser, version: PipelineVersion, role: Role | None, policy: Policy
) -> list[events.VerdictOption]:
    options = []
    for kind in VerdictKind:
        is_author = version.author_id == viewer.pk
        weight = verdict_weight(verdict=kind, role=role, is_author=is_author, policy=policy)
        option = events.VerdictOption(
            verdict=_VERDICTS[kind], allowed=weight.allowed, counts=weight.counts, note=weight.note
        )
        options.append(option)
    return options


def version_review(
    *, pipeline: Pipeline, version: PipelineVersion, viewer: AbstractBaseUser | AnonymousUser
) -> events.VersionReview:
    """A version's review: its state, requests, reviewers, what an approval acknowledges,
    and what each verdict of `viewer` would weigh."""
    tallies = review_tallies(pipeline=pipeline)
    roles = member_roles(workspace_id=pipeline.workspace_id)
    basis = state_check(pipeline=pipeline, version=version, tallies=tallies)
    current = tallies[version.number]
    user = authenticated_user(viewer)
    return events.VersionReview(
        pipeline=pipeline.pk,
        version=version.number,
        author=user_ref(version.author),
        latestVersion=max(tallies),
        state=review_state(current.state),
        approvals=current.approvals,
        policy=review_policy_body(workspace_id=pipeline.workspace_id),
        requests=review_request_bodies(_requests(version), tallies=tallies, roles=roles),
        stateCheck=events.StateCheck(
            reference=None if basis.reference is None else basis.reference.number,
            savepoint=savepoint_ref(basis.savepoint),
            operators=[events.StateRisk.model_validate(risk.to_json()) for risk in basis.risks],
        ),
        yourVerdicts=_verdict_options(
            viewer=user,
            version=version,
            role=roles.get(user.pk),
            policy=review_policy(workspace_id=pipeline.workspace_id),
        ),
    )


def review_states(*, pipeline: Pipeline) -> events.ReviewStates:
    """Every version's review state, oldest first, from a handful of queries."""
    tallies = review_tallies(pipeline=pipeline)
    policy = review_policy(workspace_id=pipeline.workspace_id)
    return events.ReviewStates(
        pipeline=pipeline.pk,
        requiredApprovals=policy.required_approvals,
        versions=[
            events.VersionState(
                version=number, state=review_state(tally.state), approvals=tally.approvals
            )
            for number, tally in sorted(tallies.items())
        ],
    )


def version_run_refusal(*, version: PipelineVersion) -> str | None:
    """Why the workspace's review policy refuses to run `version`; None if it does not."""
    workspace_id = version.pipeline.workspace_id
    policy = review_policy(workspace_id=workspace_id)
    if not policy.require_approval_to_run:
        return None
    current = review_tallies(pipeline=version.pipeline)[version.number]
    if current.state == APPROVED:
        return None
    return (
        f"Version {version.number} is not approved ({state_words(current.state)}; "
        f"{current.approvals} of {policy.required_approvals} approvals): this workspace's "
        "review policy runs approved versions only."
    )


# The current user's inbox -------------------------------------------------------------------


def _waiting_requests(user: User) -> QuerySet[ReviewRequest]:
    """Requests of latest versions, in the user's workspaces, that ask the user and that
    they have not answered."""
    newer = PipelineVersion.objects.filter(
        pipeline=OuterRef("version__pipeline"), number__gt=OuterRef("version__number")
    )
    member = Membership.objects.filter(
        workspace=OuterRef("version__pipeline__workspace"), user=user
    )
    answered = ReviewVerdict.objects.filter(request=OuterRef("pk"), reviewer=user)
    return ReviewRequest.objects.filter(
        Exists(member), ~Exists(newer), ~Exists(answered), assignments__reviewer=user
    )


def _mentions(user: User) -> QuerySet[Mention]:
    """Mentions of the user, in comments not deleted, in the workspaces they are in now."""
    member = Membership.objects.filter(
        workspace=OuterRef("comment__thread__pipeline__workspace"), user=user
    )
    return Mention.objects.filter(Exists(member), user=user, comment__deleted_at__isnull=True)


def inbox(*, user: AbstractBaseUser | AnonymousUser) -> events.Inbox:
    me = authenticated_user(user)
    return events.Inbox(
        reviewsWaiting=_waiting_requests(me).count(),
        unreadMentions=_mentions(me).filter(read_at__isnull=True).count(),
    )


def waiting_reviews(
    *, user: AbstractBaseUser | AnonymousUser, cursor: str | None = None, limit: int = 50
) -> events.WaitingReviewPage:
    """Review requests waiting for the user, newest first."""
    requests = (
        _waiting_requests(authenticated_user(user))
        .select_related("version__pipeline", "requested_by")
        .defer("version__document", "version__pipeline__snapshot")
        .order_by("-pk")
    )
    after = read_id_cursor(cursor)
    if after is not None:
        requests = requests.filter(pk__lt=after)
    page = list(requests[: limit + 1])
    items = [
        events.WaitingReview(
            request=request.pk,
            workspace=request.version.pipeline.workspace_id,
            pipeline=request.version.pipeline_id,
            pipelineName=request.version.pipeline.name,
            version=request.version.number,
            requestedBy=user_ref(request.requested_by),
            message=request.message,
            createdAt=request.created_at,
        )
        for request in page[:limit]
    ]
    more = len(page) > limit
    return events.WaitingReviewPage(
        items=items, next=id_cursor(page[limit - 1].pk) if more else None
    )


def mention_list(
    *,
    user: AbstractBaseUser | AnonymousUser,
    unread: bool | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> events.MentionPage:
    """Mentions of the user, newest first (only unread ones, or read ones, if asked)."""
    mentions = (
        _mentions(authenticated_user(user))
        .select_related("comment__author", "comment__thread__pipeline")
        .defer("comment__thread__pipeline__snapshot")
        .order_by("-pk")
    )
    if unread is not None:
        mentions = mentions.filter(read_at__isnull=unread)
    after = read_id_cursor(cursor)
    if after is not None:
        mentions = mentions.filter(pk__lt=after)
    page = list(mentions[: limit + 1])
    items = [
        events.MentionItem(
            id=mention.pk,
            workspace=mention.comment.thread.pipeline.workspace_id,
            pipeline=mention.comment.thread.pipeline_id,
            pipelineName=mention.comment.thread.pipeline.name,
            thread=mention.comment.thread_id,
            comment=mention.comment_id,
            author=user_ref(mention.comment.author),
            excerpt=mention.comment.body[:EXCERPT_CHARS],
            createdAt=mention.comment.created_at,
            read=mention.read_at is not None,
        )
        for mention in page[:limit]
    ]
    more = len(page) > limit
    return events.MentionPage(items=items, next=id_cursor(page[limit - 1].pk) if more else None)
