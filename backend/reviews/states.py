"""A version's review state, derived from its requests, the verdicts as they were given and
the workspace's policy; never stored, so it cannot disagree with them.

* draft: nobody was asked to review it;
* changes_requested: a counting latest verdict on it asks for changes;
* approved: otherwise, when enough approvals count (`policy.required_approvals`; with 0, a
  requested review is enough);
* in_review: otherwise;
* superseded: in review or changes requested while a newer version exists. An approved
  version stays approved (it may run, and later versions are checked against it).

A reviewer's latest verdict on the version (over all its requests) is theirs. Whether it
counts is decided once, when it is given (`verdict_weight`): by an editor or owner; the
author's own approval is refused unless the policy then allowed self-approval. It is
stored with the verdict, with the role its author had, and nothing later rewrites it: a
demoted or removed reviewer's approval stands, and a viewer's verdict never starts
counting. Only an owner's recorded revocation, with a reason, takes an
approval's effect away; and only a newer version supersedes a review.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from accounts.models import Role
from reviews.models import VerdictKind

DRAFT = "draft"
IN_REVIEW = "in_review"
CHANGES_REQUESTED = "changes_requested"
APPROVED = "approved"
SUPERSEDED = "superseded"


@dataclass(frozen=True, slots=True)
class Policy:
    required_approvals: int = 1
    allow_self_approval: bool = False
    require_approval_to_run: bool = False


@dataclass(frozen=True, slots=True)
class GivenVerdict:
    """What the derivation reads of a verdict, in the order verdicts were given."""

    id: int
    reviewer_id: int | None
    verdict: str
    counts: bool
    """Its weight, fixed when it was given."""
    revoked: bool = False
    """An owner revoked it (an approval), with a reason on the record."""


@dataclass(frozen=True, slots=True)
class Tally:
    state: str
    approvals: int
    counting: frozenset[int]
    """The ids of the verdicts that count."""


SELF_APPROVAL_REFUSED = (
    "This workspace's review policy does not let the author of a version approve it."
)
VIEWER_VERDICT = (
    "You are a viewer: your verdict is recorded and shown, but it will not count towards "
    "this version's review, now or after any change of your role."
)


@dataclass(frozen=True, slots=True)
class Weight:
    """What a verdict would be if given now."""

    allowed: bool
    """Whether it may be given at all (an author's approval only where the policy allows)."""
    counts: bool
    """Whether it counts towards the version's state: fixed when it is given."""
    note: str | None
    """Why it may not be given, or why it will not count, to the one who would give it."""


def verdict_weight(*, verdict: str, role: Role | None, is_author: bool, policy: Policy) -> Weight:
    """A verdict's weight, decided as it is given by the role its author has then and the
    policy then: an editor's or owner's approval or request for changes counts; the
    author's approval is refused unless the policy allows self-approval; a viewer's verdict
    and a comment never count."""
    if verdict == VerdictKind.APPROVE and is_author and not policy.allow_self_approval:
        return Weight(allowed=False, counts=False, note=SELF_APPROVAL_REFUSED)
    if verdict == VerdictKind.COMMENT:
        return Weight(allowed=True, counts=False, note=None)
    if role is None or not role.allows(Role.EDITOR):
        return Weight(allowed=True, counts=False, note=VIEWER_VERDICT)
    return Weight(allowed=True, counts=True, note=None)


def revocation_refusal(verdict: GivenVerdict) -> tuple[str, str] | None:
    """Why an owner may not revoke this verdict (an error code and the words), or None when
    they may: an approval that had weight when it was given and is not revoked yet. An
    approval without weight never counted, so there is nothing of it to take back."""
    if verdict.verdict != VerdictKind.APPROVE:
        return "not-an-approval", "Only an approval can be revoked; this verdict does not approve."
    if verdict.revoked:
        return "already-revoked", "This approval was already revoked."
    if not verdict.counts:
        return (
            "approval-without-weight",
            "This approval never counted (its weight was fixed when it was given): there is "
            "nothing to revoke.",
        )
    return None


def tally(
    *,
    requested: bool,
    verdicts: Iterable[GivenVerdict],
    policy: Policy,
    newer_exists: bool,
) -> Tally:
    """The state of one version from its verdicts (all its requests', oldest first)."""
    if not requested:
        return Tally(DRAFT, 0, frozenset())
    latest: dict[int, GivenVerdict] = {}
    for verdict in verdicts:
        if verdict.reviewer_id is not None:
            latest[verdict.reviewer_id] = verdict
    counting = [v for v in latest.values() if v.counts and not v.revoked]
    approvals = sum(1 for v in counting if v.verdict == VerdictKind.APPROVE)
    if any(v.verdict == VerdictKind.REQUEST_CHANGES for v in counting):
        state = CHANGES_REQUESTED
    elif approvals >= policy.required_approvals:
        state = APPROVED
    else:
        state = IN_REVIEW
    if newer_exists and state != APPROVED:
        state = SUPERSEDED
    return Tally(state, approvals, frozenset(v.id for v in counting))


_WORDS = {
    DRAFT: "no review was requested",
    IN_REVIEW: "it is in review",
    CHANGES_REQUESTED: "changes were requested",
    SUPERSEDED: "its review was superseded by a newer version",
    APPROVED: "it is approved",
}


def state_words(state: str) -> str:
    return _WORDS[state]
