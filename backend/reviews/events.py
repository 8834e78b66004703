"""Every shape of team review that crosses to the browser: the REST bodies and the messages
everyone on a pipeline receives over its co-editing socket.

The models are the one source of these shapes: the OpenAPI schema documents the REST bodies
with them (`config.openapi`), and the browser's types are generated from them (`make
wire`). The socket messages are `PipelineGroupMessage`s, sent only through
`pipelines.events.publish_after_commit` by the services that made the change; they go to
the pipeline's group, which follows each member's access (`accounts.sockets`).
`docs/COEDITING.md` documents them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from accounts.models import Role
from audit.events import Recorded
from compiler.state.statecheck import RiskCode
from config.messages import UserRef, WireMessage
from pipelines.events import PipelineGroupMessage

AnchorKind = Literal["pipeline", "node", "edge", "vertex"]
ThreadStatus = Literal["open", "resolved"]
ReviewState = Literal["draft", "in_review", "changes_requested", "approved", "superseded"]
VerdictKind = Literal["approve", "request_changes", "comment"]
VersionAt = int | Literal["working"]
"""A version number, or the working copy."""
HexId = Annotated[str, Field(pattern="^[0-9a-f]{32}$")]
EdgeKey = tuple[int, int, int, int]
"""An edge as `[source, target, typeNumber, k]` (k: the earlier edges with those three)."""


# Comments ---------------------------------------------------------------------------------


class Anchor(WireMessage):
    """What a thread is about, as it was when the thread was opened."""

    kind: AnchorKind
    node: int | None
    """`node`: the node's id; `vertex`: the chain's head node; else null."""
    edge: EdgeKey | None
    """`edge`: its key; else null."""
    vertex: HexId | None
    """`vertex`: the JobVertexID; else null."""
    operatorId: HexId | None
    """`node`: its OperatorID then (null on a cycle); else null."""
    sourceOperatorId: HexId | None
    """`edge`: the OperatorID of its source then; else null."""
    targetOperatorId: HexId | None
    """`edge`: the OperatorID of its target then; else null."""
    label: str
    """What the element was called then: a node's or vertex's name, an edge's two ends."""


class CommentEntry(WireMessage):
    """One comment of a thread. A deleted one keeps its place, with an empty body."""

    id: int
    author: UserRef | None
    body: str
    mentions: list[UserRef]
    """The members it names with `@username`."""
    createdAt: datetime
    editedAt: datetime | None
    deleted: bool


class CommentThread(WireMessage):
    """A thread, read at a version of the pipeline or its working copy (`at`)."""

    id: int
    pipeline: int
    version: int | None
    """The version it was written on; null: the working copy."""
    revision: int
    """The working copy's revision it was written on (a version's: the one it saved)."""
    target: Anchor
    status: ThreadStatus
    resolvedBy: UserRef | None
    resolvedAt: datetime | None
    createdBy: UserRef | None
    createdAt: datetime
    at: VersionAt
    """What `outdated` was worked out against."""
    outdated: bool
    """Its element is not in `at`, or no longer has the ids it had (`outdatedCauses`)."""
    outdatedCauses: list[str]
    """Why, in the savepoint verdict's words, e.g. "node 4 (Sink) was removed"."""
    comments: list[CommentEntry]
    """Oldest first; the first one opened the thread."""


class CommentThreadPage(WireMessage):
    """Threads, newest first; `next` is the cursor of the page after this one (null: last)."""

    items: list[CommentThread]
    next: str | None


class TargetCounts(WireMessage):
    """Threads by where they stand: open and current, open and outdated, resolved."""

    open: int
    outdated: int
    resolved: int


class NodeCounts(TargetCounts):
    node: int


class EdgeCounts(TargetCounts):
    edge: EdgeKey


class VertexCounts(TargetCounts):
    head: int
    vertex: HexId | None
    """The JobVertexID its head has at `at` (null: the head is gone or chained into another)."""


class CommentSummary(WireMessage):
    """Thread counts of a pipeline read at `at`, in all and per element (for badges)."""

    at: VersionAt
    total: TargetCounts
    pipeline: TargetCounts
    """The threads about the whole pipeline."""
    nodes: list[NodeCounts]
    edges: list[EdgeCounts]
    vertices: list[VertexCounts]


# Reviews ----------------------------------------------------------------------------------


class _ThreadStatusRecord(Recorded):
    thread: int
    version: int | None
    """The version the thread is on; null: the working copy."""
    target: str
    """What the thread is about, as it was called then."""


class ThreadResolvedRecord(_ThreadStatusRecord):
    kind: Literal["thread_resolved"] = "thread_resolved"


class ThreadReopenedRecord(_ThreadStatusRecord):
    kind: Literal["thread_reopened"] = "thread_reopened"


PolicyField = Literal["requiredApprovals", "allowSelfApproval", "requireApprovalToRun"]


class PolicyChange(WireMessage):
    field: PolicyField
    before: int | bool
    after: int | bool


class PolicyChangedRecord(Recorded):
    """An owner changed the workspace's review policy: each setting that changed."""

    kind: Literal["review_policy_changed"] = "review_policy_changed"
    changes: list[PolicyChange]


class ReviewPolicy(WireMessage):
    """How a workspace reviews (`GET /api/workspaces/<id>/review-policy/`)."""

    workspace: int
    requiredApprovals: int
    """Approvals by editors or owners that make a version approved, 0 to 5. With 0 a
    version is approved once a review is requested, unless changes are requested."""
    allowSelfApproval: bool
    """Whether the author of a version may approve it."""
    requireApprovalToRun: bool
    """Whether only approved versions may be run."""
    updatedBy: UserRef | None
    updatedAt: datetime | None
    """Null while the workspace has the defaults."""


class SavepointRef(WireMessage):
    """A savepoint of the pipeline (`savepoints.events.SavepointSummary` has the rest)."""

    id: int
    label: str


class Verdict(WireMessage):
    """A reviewer's answer to a review request."""

    id: int
    request: int
    reviewer: UserRef | None
    verdict: VerdictKind
    summary: str
    acknowledged: list[HexId]
    """An approval's acknowledged state at risk: the operators' ids."""
    acknowledgedState: list[AcknowledgedState]
    """The same, by name and with how much state, as the check said when it was given."""
    reference: int | None
    """The approved version an approval's state check compared with (null: none)."""
    savepoint: SavepointRef | None
    """The current savepoint an approval's state check used instead (null: none)."""
    role: Role
    """The reviewer's role when they gave it."""
    countsWhenGiven: bool
    """Its weight, fixed when it was given and never rewritten: by an editor or owner, and
    an approval by the version's author only where the policy then allowed self-approval."""
    counts: bool
    """Whether it counts towards the version's state now: it has its weight, it is the
    reviewer's latest, and it was not revoked."""
    revocation: Revocation | None
    """An owner revoked this approval (null: not revoked)."""
    revocable: bool
    """An owner may revoke it: an approval that had weight when given, not yet revoked."""
    createdAt: datetime


class Revocation(WireMessage):
    """An owner took back the effect of an approval, with a reason, on the record."""

    by: UserRef | None
    reason: str
    at: datetime


class Reviewer(WireMessage):
    user: UserRef
    role: Role | None
    """Their role now (null: no longer a member)."""
    latest: Verdict | None
    """Their latest verdict on this request."""


class ReviewRequest(WireMessage):
    id: int
    version: int
    requestedBy: UserRef | None
    message: str
    createdAt: datetime
    superseded: bool
    """A newer version exists: no more verdicts on this request."""
    reviewers: list[Reviewer]


class StateRiskReason(WireMessage):
    code: RiskCode
    message: str


class StateRisk(WireMessage):
    """A state of the current savepoint, or of the savepoint the reference would write,
    that the version would not restore (`compiler.state.statecheck`)."""

    node: int | None
    """The operator of this version it concerns: the one that would restore it, or for lost
    state the one that should take it over (null: none)."""
    name: str
    operatorId: HexId
    """The id its state is saved under: what an approval acknowledges."""
    stateBytes: int | None
    """How much state it holds, as the current savepoint says (null: predicted, unknown)."""
    reasons: list[StateRiskReason]


class AcknowledgedState(WireMessage):
    """A state an approval acknowledged losing, as the check named it when it was given."""

    operatorId: HexId
    name: str
    stateBytes: int | None


class StateCheck(WireMessage):
    """What an approval of the version must acknowledge: the state of the pipeline's
    current savepoint it would not restore (`savepoint`), or without one, compared with the
    last approved version before it (`reference`; both null: nothing to acknowledge)."""

    reference: int | None
    savepoint: SavepointRef | None
    operators: list[StateRisk]


class VerdictOption(WireMessage):
    """A verdict the signed-in user could give on the version now, and its weight then
    (`reviews.states.verdict_weight`, the rule the server applies when it is given)."""

    verdict: VerdictKind
    allowed: bool
    """False: the server would refuse it (an author's approval without self-approval)."""
    counts: bool
    """Whether it would count towards the version's state, now and after any role change."""
    note: str | None
    """Why it may not be given or will not count, in words for the one who would give it."""


class VersionReview(WireMessage):
    """A version's review (`GET /api/pipelines/<id>/versions/<n>/reviews/`)."""

    pipeline: int
    version: int
    author: UserRef | None
    latestVersion: int
    state: ReviewState
    """draft (no request), in_review, changes_requested (an editor's or owner's latest
    verdict asks for changes), approved (enough approvals, none asking for changes),
    superseded (in review or changes requested, and a newer version exists)."""
    approvals: int
    """Approvals that count (`Verdict.counts`)."""
    policy: ReviewPolicy
    requests: list[ReviewRequest]
    """Oldest first."""
    stateCheck: StateCheck
    yourVerdicts: list[VerdictOption]
    """Approve, request changes and comment, as they would weigh if the signed-in user gave
    them now (whether they were asked is in `requests`)."""


class VersionState(WireMessage):
    """One version's review state, as `VersionReview` has it."""

    version: int
    state: ReviewState
    approvals: int
    """Approvals that count."""


class ReviewStates(WireMessage):
    """Every version's review state (`GET /api/pipelines/<id>/reviews/`), oldest first."""

    pipeline: int
    requiredApprovals: int
    """The workspace's policy now."""
    versions: list[VersionState]


# The current user's inbox -----------------------------------------------------------------


class Inbox(WireMessage):
    """`GET /api/me/inbox/`: what waits for you, over all your workspaces."""

    reviewsWaiting: int
    """Review requests of latest versions that ask you and that you have not answered."""
    unreadMentions: int


class InboxResyncRequest(WireMessage):
    """`ws/inbox/`: ask for an `inbox_changed` (the client missed or could not read one)."""

    type: Literal["resync"]


InboxInbound = Annotated[InboxResyncRequest, Field(discriminator="type")]
INBOX_INBOUND = TypeAdapter(InboxInbound)


class InboxChanged(WireMessage):
    """`ws/inbox/`: what waits for you may have changed (sent too when the socket opens and
    when your workspaces change): read `GET /api/me/inbox/` and its lists again."""

    type: Literal["inbox_changed"] = "inbox_changed"


class WaitingReview(WireMessage):
    request: int
    workspace: int
    pipeline: int
    pipelineName: str
    version: int
    requestedBy: UserRef | None
    message: str
    createdAt: datetime


class WaitingReviewPage(WireMessage):
    """Newest first; `next` is the cursor of the page after this one (null: last)."""

    items: list[WaitingReview]
    next: str | None


class MentionItem(WireMessage):
    id: int
    workspace: int
    pipeline: int
    pipelineName: str
    thread: int
    comment: int
    author: UserRef | None
    excerpt: str
    """The comment's first characters."""
    createdAt: datetime
    read: bool


class MentionPage(WireMessage):
    """Newest first; `next` is the cursor of the page after this one (null: last)."""

    items: list[MentionItem]
    next: str | None


# Socket messages (`ws/pipelines/<id>/`) -------------------------------------------------------


class CommentThreadCreated(PipelineGroupMessage):
    """Someone opened a thread; `thread` is read at the working copy."""

    type: Literal["comment_thread_created"] = "comment_thread_created"
    thread: CommentThread


class CommentAdded(PipelineGroupMessage):
    """Someone replied in a thread."""

    type: Literal["comment_added"] = "comment_added"
    thread: int
    comment: CommentEntry


class CommentEdited(PipelineGroupMessage):
    type: Literal["comment_edited"] = "comment_edited"
    thread: int
    comment: CommentEntry


class CommentDeleted(PipelineGroupMessage):
    """A comment was deleted: `comment` is what is left of it (empty, `deleted`)."""

    type: Literal["comment_deleted"] = "comment_deleted"
    thread: int
    comment: CommentEntry


class CommentThreadResolved(PipelineGroupMessage):
    type: Literal["comment_thread_resolved"] = "comment_thread_resolved"
    thread: int
    user: UserRef
    at: datetime


class CommentThreadReopened(PipelineGroupMessage):
    type: Literal["comment_thread_reopened"] = "comment_thread_reopened"
    thread: int
    user: UserRef
    at: datetime


class ReviewRequested(PipelineGroupMessage):
    """Someone asked for a review of a version; `state` is the version's review state now."""

    type: Literal["review_requested"] = "review_requested"
    version: int
    request: ReviewRequest
    state: ReviewState


class VerdictGiven(PipelineGroupMessage):
    """A reviewer answered; `state` is the version's review state now."""

    type: Literal["review_verdict"] = "review_verdict"
    version: int
    verdict: Verdict
    state: ReviewState


class ApprovalRevoked(PipelineGroupMessage):
    """An owner revoked an approval (`verdict.revocation` says who and why); `state` is the
    version's review state now."""

    type: Literal["approval_revoked"] = "approval_revoked"
    version: int
    verdict: Verdict
    state: ReviewState


Outbound = (
    CommentThreadCreated
    | CommentAdded
    | CommentEdited
    | CommentDeleted
    | CommentThreadResolved
    | CommentThreadReopened
    | ReviewRequested
    | VerdictGiven
    | ApprovalRevoked
)
"""What the reviews app sends to everyone on a pipeline."""
