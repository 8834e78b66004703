"""A version's review state, derived from its requests, the verdicts, the members' roles now
and the workspace's policy; never stored, so it cannot disagree with them.

* draft: nobody was asked to review it;
* changes_requested: an editor's or owner's latest verdict on it asks for changes;
* approved: otherwise, when enough approvals count (`policy.required_approvals`; with 0, a
  requested review is enough);
* in_review: otherwise;
* superseded: in review or changes requested while a newer version exists. An approved
  version stays approved (it may run, and later versions are checked against it).

A reviewer's latest verdict on the version counts (over all its requests), and only while
they are an editor or owner: a demoted or removed reviewer's approval stops counting at
once. An approval by the version's author counts only where the policy allows it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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


@dataclass(frozen=True, slots=True)
class Tally:
    state: str
    approvals: int
    counting: frozenset[int]
    """The ids of the verdicts that count."""


def verdict_counts(
    verdict: GivenVerdict, *, author_id: int | None, roles: Mapping[int, Role], policy: Policy
) -> bool:
    """Whether a reviewer's latest verdict counts towards the version's state."""
    if verdict.reviewer_id is None:
        return False
    role = roles.get(verdict.reviewer_id)
    if role is None or not role.allows(Role.EDITOR):
        return False
    if verdict.verdict == VerdictKind.APPROVE:
        return policy.allow_self_approval or verdict.reviewer_id != author_id
    return verdict.verdict == VerdictKind.REQUEST_CHANGES


def tally(
    *,
    requested: bool,
    verdicts: Iterable[GivenVerdict],
    author_id: int | None,
    roles: Mapping[int, Role],
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
    counting = [
        v
        for v in latest.values()
        if verdict_counts(v, author_id=author_id, roles=roles, policy=policy)
    ]
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
