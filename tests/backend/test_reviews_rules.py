"""The rules of team review on their own: which names a comment mentions, and a version's
review state from its verdicts, roles and policy."""

from __future__ import annotations

import pytest

from accounts.models import Role
from reviews.mentions import mentioned_names
from reviews.states import GivenVerdict, Policy, tally, verdict_weight

AUTHOR, OWNER, EDITOR, VIEWER = 1, 2, 3, 4
ROLES = {AUTHOR: Role.EDITOR, OWNER: Role.OWNER, EDITOR: Role.EDITOR, VIEWER: Role.VIEWER}


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("@ann and @bob", ["ann", "bob"]),
        ("@ann, @Ann and @ANN.", ["ann"]),
        ("thanks @ann.", ["ann"]),
        ("@first.last-1+x_y", ["first.last-1+x_y"]),
        ("mail ann@example.com", []),
        ("@@ann", []),
        ("(@ann)", ["ann"]),
        ("@", []),
        ("@élodie", ["élodie"]),
    ],
)
def test_mentioned_names(text: str, names: list[str]) -> None:
    assert mentioned_names(text) == names


DEFAULTS = Policy()


def given(
    n: int, reviewer: int | None, kind: str, *, policy: Policy = DEFAULTS, revoked: bool = False
) -> GivenVerdict:
    """A verdict weighed as it is given: by its author's role then and the policy then."""
    role = None if reviewer is None else ROLES.get(reviewer)
    weight = verdict_weight(verdict=kind, role=role, is_author=reviewer == AUTHOR, policy=policy)
    return GivenVerdict(n, reviewer, kind, weight.counts, revoked)


def state(*verdicts: tuple[int, str], policy: Policy = DEFAULTS, newer: bool = False) -> str:
    weighed = [
        given(n, reviewer, kind, policy=policy) for n, (reviewer, kind) in enumerate(verdicts)
    ]
    return tally(requested=True, verdicts=weighed, policy=policy, newer_exists=newer).state


def test_a_version_without_a_request_is_a_draft() -> None:
    result = tally(requested=False, verdicts=[], policy=Policy(), newer_exists=True)
    assert result.state == "draft"


def test_states() -> None:
    assert state() == "in_review"
    assert state((OWNER, "approve")) == "approved"
    assert state((VIEWER, "approve")) == "in_review"
    assert state((VIEWER, "request_changes")) == "in_review"  # a viewer's does not count
    assert state((OWNER, "approve"), (EDITOR, "request_changes")) == "changes_requested"
    assert state((EDITOR, "request_changes"), (EDITOR, "approve")) == "approved"  # the latest
    assert state((EDITOR, "approve"), (EDITOR, "comment")) == "in_review"
    assert state((AUTHOR, "approve")) == "in_review"
    assert state((AUTHOR, "approve"), policy=Policy(allow_self_approval=True)) == "approved"
    assert state((OWNER, "approve"), policy=Policy(required_approvals=2)) == "in_review"
    assert state(policy=Policy(required_approvals=0)) == "approved"
    assert state((OWNER, "approve"), newer=True) == "approved"
    assert state((OWNER, "comment"), newer=True) == "superseded"
    assert state((OWNER, "request_changes"), newer=True) == "superseded"
    assert state((99, "approve")) == "in_review"  # not a member


def test_the_counting_verdicts_are_each_counting_reviewers_latest() -> None:
    verdicts = [
        given(1, OWNER, "request_changes"),
        given(2, OWNER, "approve"),
        given(3, VIEWER, "approve"),
        given(4, None, "approve"),
    ]

    result = tally(requested=True, verdicts=verdicts, policy=Policy(), newer_exists=False)

    assert (result.state, result.approvals, result.counting) == ("approved", 1, frozenset({2}))


def test_a_verdicts_weight_is_the_one_it_was_given_with() -> None:
    # Weighed when given; the tally reads no role, so no later role change reaches it.
    approval = GivenVerdict(1, VIEWER, "approve", counts=True)
    viewer = GivenVerdict(2, EDITOR, "approve", counts=False)

    assert tally(
        requested=True, verdicts=[approval], policy=DEFAULTS, newer_exists=False
    ).state == ("approved")
    assert tally(requested=True, verdicts=[viewer], policy=DEFAULTS, newer_exists=False).state == (
        "in_review"
    )


def test_a_revoked_approval_no_longer_counts_and_a_later_one_does() -> None:
    revoked = given(1, OWNER, "approve", revoked=True)
    again = given(2, OWNER, "approve")

    assert tally(requested=True, verdicts=[revoked], policy=DEFAULTS, newer_exists=False).state == (
        "in_review"
    )
    assert (
        tally(
            requested=True, verdicts=[revoked, again], policy=DEFAULTS, newer_exists=False
        ).approvals
        == 1
    )
