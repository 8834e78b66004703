"""Review requests, verdicts, the derived review state, the workspace's policy, the
state-loss gate on approvals, and the run gate."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import Role
from accounts.services import membership_change, membership_remove
from reviews.models import ApprovalRevocation, ReviewPolicy, ReviewRequest, ReviewVerdict
from reviews.selectors import version_run_refusal
from tests.backend.factories import (
    SAVEPOINTS,
    Team,
    add_member,
    client_for,
    make_document,
    make_savepoint,
    make_team,
    make_user,
    make_version,
)
from tests.backend.runs_support import make_runnable_version

pytestmark = pytest.mark.django_db


def reviews_url(team: Team, number: int = 1) -> str:
    return f"/api/pipelines/{team.pipeline.pk}/versions/{number}/reviews/"


def request_review(
    team: Team, reviewers: list[str], *, number: int = 1, by: str = "editor"
) -> dict[str, Any]:
    response = team.client(by).post(
        reviews_url(team, number), {"reviewers": reviewers, "message": "Please look"}
    )
    assert response.status_code == 201, response.content
    result: dict[str, Any] = response.json()
    return result


def verdict(
    client: APIClient,
    team: Team,
    request_id: int,
    kind: str = "approve",
    *,
    number: int = 1,
    acknowledged: list[str] | None = None,
) -> Any:
    body: dict[str, Any] = {"verdict": kind, "summary": f"{kind}!"}
    if acknowledged is not None:
        body["acknowledged"] = acknowledged
    return client.post(reviews_url(team, number) + f"{request_id}/verdicts/", body)


def save_version(team: Team, document: dict[str, Any], author: Any = None) -> int:
    team.pipeline.document = document
    team.pipeline.revision += 1
    team.pipeline.save()
    return make_version(pipeline=team.pipeline, author=author or team.editor).number


def state(team: Team, number: int = 1) -> str:
    result: str = team.client("viewer").get(reviews_url(team, number)).json()["state"]
    return result


def set_policy(team: Team, **fields: Any) -> None:
    response = team.client("owner").patch(
        f"/api/workspaces/{team.workspace.pk}/review-policy/", fields
    )
    assert response.status_code == 200, response.content


@pytest.fixture
def team() -> Team:
    """A team whose version 1 is the editor's (so the owner and the viewer may approve it)."""
    team = make_team()
    version = team.pipeline.versions.get()
    version.delete()
    make_version(pipeline=team.pipeline, author=team.editor, message="first")
    return team


# Requests and states --------------------------------------------------------------------------


def test_a_version_is_a_draft_until_a_review_is_requested(team: Team) -> None:
    review = team.client("viewer").get(reviews_url(team)).json()

    assert review["state"] == "draft"
    assert review["requests"] == []
    assert review["author"]["username"] == "eddie"
    assert review["policy"]["requiredApprovals"] == 1
    assert review["stateCheck"] == {"reference": None, "savepoint": None, "operators": []}


def test_an_editor_requests_a_review_from_members(team: Team) -> None:
    review = request_review(team, ["olivia", "VERA"])

    assert review["state"] == "in_review"
    (request,) = review["requests"]
    assert request["requestedBy"]["username"] == "eddie"
    assert request["message"] == "Please look"
    assert request["superseded"] is False
    assert [(r["user"]["username"], r["role"], r["latest"]) for r in request["reviewers"]] == [
        ("olivia", "owner", None),
        ("vera", "viewer", None),
    ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"reviewers": ["oscar"]}, "reviewers"),
        ({"reviewers": ["nobody-at-all"]}, "reviewers"),
        ({"reviewers": []}, "reviewers"),
        ({}, "reviewers"),
        ({"reviewers": ["olivia"], "message": 5}, "message"),
    ],
)
def test_bad_requests_are_400s_naming_the_field(
    team: Team, body: dict[str, Any], field: str
) -> None:
    response = team.client("editor").post(reviews_url(team), body)

    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert not ReviewRequest.objects.exists()


def test_viewers_may_not_request_reviews(team: Team) -> None:
    response = team.client("viewer").post(reviews_url(team), {"reviewers": ["olivia"]})

    assert response.status_code == 403


def test_only_the_latest_version_may_be_put_up_for_review(team: Team) -> None:
    save_version(team, make_document(parallelism=3))

    response = team.client("editor").post(reviews_url(team, 1), {"reviewers": ["olivia"]})

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "version-superseded"


def test_an_owners_approval_approves_and_a_viewers_does_not_count(team: Team) -> None:
    request_id = request_review(team, ["olivia", "vera"])["requests"][0]["id"]

    by_viewer = verdict(team.client("viewer"), team, request_id)
    assert by_viewer.status_code == 201
    assert by_viewer.json()["state"] == "in_review"
    viewer_verdict = by_viewer.json()["requests"][0]["reviewers"][1]["latest"]
    assert (viewer_verdict["verdict"], viewer_verdict["counts"]) == ("approve", False)

    by_owner = verdict(team.client("owner"), team, request_id)
    assert by_owner.json()["state"] == "approved"
    assert by_owner.json()["approvals"] == 1


def test_someone_not_asked_may_not_answer(team: Team) -> None:
    request_id = request_review(team, ["vera"])["requests"][0]["id"]

    response = verdict(team.client("owner"), team, request_id)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not-a-reviewer"
    assert not ReviewVerdict.objects.exists()


def test_changes_requested_wins_until_that_reviewer_approves(team: Team) -> None:
    set_policy(team, requiredApprovals=1)
    other_owner = add_member(workspace=team.workspace, role=Role.OWNER)
    request_id = request_review(team, ["olivia", other_owner.username])["requests"][0]["id"]

    verdict(team.client("owner"), team, request_id)
    changes = verdict(client_for(other_owner), team, request_id, "request_changes")
    assert changes.json()["state"] == "changes_requested"

    approved = verdict(client_for(other_owner), team, request_id)
    assert approved.json()["state"] == "approved"
    assert approved.json()["approvals"] == 2


def test_a_comment_verdict_neither_approves_nor_blocks(team: Team) -> None:
    request_id = request_review(team, ["olivia"])["requests"][0]["id"]

    response = verdict(team.client("owner"), team, request_id, "comment")

    assert response.status_code == 201
    assert response.json()["state"] == "in_review"


def test_the_author_may_approve_only_where_the_policy_allows(team: Team) -> None:
    request_id = request_review(team, ["eddie"], by="owner")["requests"][0]["id"]

    refused = verdict(team.client("editor"), team, request_id)
    set_policy(team, allowSelfApproval=True)
    allowed = verdict(team.client("editor"), team, request_id)

    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "self-approval"
    assert allowed.status_code == 201
    assert allowed.json()["state"] == "approved"


def options(team: Team, role: str) -> dict[str, tuple[bool, bool, str | None]]:
    review = team.client(role).get(reviews_url(team)).json()
    return {o["verdict"]: (o["allowed"], o["counts"], o["note"]) for o in review["yourVerdicts"]}


def test_the_review_says_before_sending_what_each_verdict_would_weigh(team: Team) -> None:
    counting = {
        "approve": (True, True, None),
        "request_changes": (True, True, None),
        "comment": (True, False, None),
    }
    assert options(team, "owner") == counting

    # The author (eddie): an approval is refused; a request for changes counts.
    author = options(team, "editor")
    assert author["approve"][:2] == (False, False)
    assert "does not let the author of a version approve it" in (author["approve"][2] or "")
    assert author["request_changes"] == (True, True, None)
    refused = verdict(
        team.client("editor"),
        team,
        request_review(team, ["eddie"], by="owner")["requests"][0]["id"],
    )
    assert refused.json()["error"]["message"] == author["approve"][2]
    set_policy(team, allowSelfApproval=True)
    assert options(team, "editor") == counting

    # A viewer: recorded, never counting, said in words.
    viewer = options(team, "viewer")
    assert {kind: weight[:2] for kind, weight in viewer.items()} == {
        "approve": (True, False),
        "request_changes": (True, False),
        "comment": (True, False),
    }
    assert "You are a viewer" in (viewer["approve"][2] or "")
    assert viewer["comment"][2] is None


def test_two_required_approvals(team: Team) -> None:
    set_policy(team, requiredApprovals=2)
    other_owner = add_member(workspace=team.workspace, role=Role.OWNER)
    request_id = request_review(team, ["olivia", other_owner.username])["requests"][0]["id"]

    first = verdict(team.client("owner"), team, request_id)
    second = verdict(client_for(other_owner), team, request_id)

    assert (first.json()["state"], first.json()["approvals"]) == ("in_review", 1)
    assert (second.json()["state"], second.json()["approvals"]) == ("approved", 2)


def test_with_no_required_approvals_a_requested_review_is_enough(team: Team) -> None:
    set_policy(team, requiredApprovals=0)

    assert state(team) == "draft"
    review = request_review(team, ["olivia"])
    assert review["state"] == "approved"
    changes = verdict(team.client("owner"), team, review["requests"][0]["id"], "request_changes")
    assert changes.json()["state"] == "changes_requested"


def test_role_changes_never_rewrite_a_verdict_already_given(team: Team) -> None:
    other_owner = add_member(workspace=team.workspace, role=Role.OWNER)
    request_id = request_review(team, ["olivia", other_owner.username, "vera"])["requests"][0]["id"]
    verdict(client_for(other_owner), team, request_id)
    verdict(team.client("viewer"), team, request_id)
    set_policy(team, requireApprovalToRun=True)
    assert state(team) == "approved"

    # Demoted, removed, re-added: the approval stands as it was given, with its role.
    membership_change(
        workspace=team.workspace, actor=team.owner, user_id=other_owner.pk, role=Role.VIEWER
    )
    assert state(team) == "approved"
    assert version_run_refusal(version=team.pipeline.versions.get(number=1)) is None
    membership_remove(workspace=team.workspace, actor=team.owner, user_id=other_owner.pk)
    review = team.client("viewer").get(reviews_url(team)).json()
    assert review["state"] == "approved"
    reviewers = {r["user"]["username"]: r for r in review["requests"][0]["reviewers"]}
    gone = reviewers[other_owner.username]
    assert gone["role"] is None  # no longer a member
    assert (gone["latest"]["role"], gone["latest"]["countsWhenGiven"]) == ("owner", True)
    assert gone["latest"]["counts"] is True

    # A viewer's approval, shown as not counting, never starts counting.
    membership_change(
        workspace=team.workspace, actor=team.owner, user_id=team.viewer.pk, role=Role.OWNER
    )
    review = team.client("viewer").get(reviews_url(team)).json()
    vera = {r["user"]["username"]: r for r in review["requests"][0]["reviewers"]}["vera"]
    assert (vera["role"], vera["latest"]["role"]) == ("owner", "viewer")
    assert (vera["latest"]["countsWhenGiven"], vera["latest"]["counts"]) == (False, False)
    assert review["approvals"] == 1


def test_a_viewers_approval_never_approves_after_a_promotion(team: Team) -> None:
    request_id = request_review(team, ["vera"])["requests"][0]["id"]
    verdict(team.client("viewer"), team, request_id)
    assert state(team) == "in_review"

    membership_change(
        workspace=team.workspace, actor=team.owner, user_id=team.viewer.pk, role=Role.EDITOR
    )

    assert state(team) == "in_review"


def revoke(client: APIClient, team: Team, request_id: int, verdict_id: int, reason: str) -> Any:
    url = reviews_url(team) + f"{request_id}/verdicts/{verdict_id}/revoke/"
    return client.post(url, {"reason": reason})


def test_an_owner_revokes_an_approval_with_a_reason_on_the_record(team: Team) -> None:
    request_id = request_review(team, ["olivia"])["requests"][0]["id"]
    verdict(team.client("owner"), team, request_id)
    given = ReviewVerdict.objects.get()
    assert state(team) == "approved"

    blank = revoke(team.client("owner"), team, request_id, given.pk, "   ")
    by_editor = revoke(team.client("editor"), team, request_id, given.pk, "Wrong plan")
    by_stranger = revoke(client_for(make_user()), team, request_id, given.pk, "Wrong plan")
    done = revoke(team.client("owner"), team, request_id, given.pk, "Approved the wrong plan")
    again = revoke(team.client("owner"), team, request_id, given.pk, "Twice")

    assert blank.status_code == 400
    assert "reason" in blank.json()["error"]["fields"]
    assert by_editor.status_code == 403
    assert by_stranger.status_code == 404
    assert done.status_code == 201, done.content
    assert (again.status_code, again.json()["error"]["code"]) == (409, "already-revoked")
    assert done.json()["state"] == "in_review"
    latest = done.json()["requests"][0]["reviewers"][0]["latest"]
    assert (latest["verdict"], latest["counts"], latest["countsWhenGiven"]) == (
        "approve",
        False,
        True,
    )
    assert latest["revocation"]["reason"] == "Approved the wrong plan"
    assert latest["revocation"]["by"]["username"] == "olivia"
    assert ReviewVerdict.objects.get().verdict == "approve"  # the approval is still there


def test_only_an_approval_can_be_revoked(team: Team) -> None:
    request_id = request_review(team, ["olivia"])["requests"][0]["id"]
    verdict(team.client("owner"), team, request_id, "comment")
    given = ReviewVerdict.objects.get()

    response = revoke(team.client("owner"), team, request_id, given.pk, "No")

    assert (response.status_code, response.json()["error"]["code"]) == (409, "not-an-approval")
    missing = revoke(team.client("owner"), team, request_id, given.pk + 1000, "No")
    assert missing.status_code == 404


def test_an_approval_that_never_counted_cannot_be_revoked(team: Team) -> None:
    request_id = request_review(team, ["olivia", "vera"])["requests"][0]["id"]
    by_viewer = verdict(team.client("viewer"), team, request_id).json()
    by_owner = verdict(team.client("owner"), team, request_id).json()
    reviewers = {r["user"]["username"]: r["latest"] for r in by_owner["requests"][0]["reviewers"]}
    assert by_viewer["requests"][0]["reviewers"][1]["latest"]["revocable"] is False
    assert (reviewers["vera"]["revocable"], reviewers["olivia"]["revocable"]) == (False, True)

    weightless = revoke(team.client("owner"), team, request_id, reviewers["vera"]["id"], "No")

    assert weightless.status_code == 409
    assert weightless.json()["error"]["code"] == "approval-without-weight"
    assert not ApprovalRevocation.objects.exists()
    done = revoke(team.client("owner"), team, request_id, reviewers["olivia"]["id"], "Wrong")
    olivia = {r["user"]["username"]: r for r in done.json()["requests"][0]["reviewers"]}["olivia"]
    assert olivia["latest"]["revocable"] is False  # revoked once, for good


def test_every_versions_state_is_listed_at_once(team: Team) -> None:
    set_policy(team, requiredApprovals=1)
    request_id = request_review(team, ["olivia"])["requests"][0]["id"]
    verdict(team.client("owner"), team, request_id)
    save_version(team, make_document(parallelism=3))
    request_review(team, ["olivia"], number=2)
    save_version(team, make_document(parallelism=4))
    save_version(team, make_document(parallelism=5))

    listed = team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/reviews/").json()

    assert listed["pipeline"] == team.pipeline.pk
    assert listed["requiredApprovals"] == 1
    assert listed["versions"] == [
        {"version": 1, "state": "approved", "approvals": 1},
        {"version": 2, "state": "superseded", "approvals": 0},
        {"version": 3, "state": "draft", "approvals": 0},
        {"version": 4, "state": "draft", "approvals": 0},
    ]
    for number in range(1, 5):
        assert state(team, number) == listed["versions"][number - 1]["state"]


def test_a_newer_version_supersedes_an_open_review_and_refuses_verdicts(team: Team) -> None:
    request_id = request_review(team, ["olivia"])["requests"][0]["id"]
    save_version(team, make_document(parallelism=3))

    response = verdict(team.client("owner"), team, request_id)
    review = team.client("viewer").get(reviews_url(team)).json()

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "review-superseded"
    assert review["state"] == "superseded"
    assert review["requests"][0]["superseded"] is True
    assert state(team, 2) == "draft"


def test_an_approved_version_stays_approved_when_a_newer_one_comes(team: Team) -> None:
    request_id = request_review(team, ["olivia"])["requests"][0]["id"]
    verdict(team.client("owner"), team, request_id)

    save_version(team, make_document(parallelism=3))

    assert state(team, 1) == "approved"


def test_a_verdict_on_a_request_of_another_version_is_a_404(team: Team) -> None:
    request_id = request_review(team, ["olivia"])["requests"][0]["id"]
    save_version(team, make_document(parallelism=3))

    response = verdict(team.client("owner"), team, request_id, number=2)

    assert response.status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "verdict"),
        ({"verdict": "maybe"}, "verdict"),
        ({"verdict": "comment", "acknowledged": ["0" * 32]}, "acknowledged"),
        ({"verdict": "approve", "acknowledged": ["not-hex"]}, "acknowledged"),
    ],
)
def test_bad_verdicts_are_400s_naming_the_field(
    team: Team, body: dict[str, Any], field: str
) -> None:
    request_id = request_review(team, ["olivia"])["requests"][0]["id"]

    response = team.client("owner").post(reviews_url(team) + f"{request_id}/verdicts/", body)

    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert not ReviewVerdict.objects.exists()


# The state-loss gate ------------------------------------------------------------------------------


def approve_version_one(team: Team) -> None:
    request_id = request_review(team, ["olivia"])["requests"][0]["id"]
    assert verdict(team.client("owner"), team, request_id).status_code == 201


def changed_key() -> dict[str, Any]:
    document = make_document()
    document["edges"][1]["key"] = {"fn": "order.customer"}
    return document


def test_the_review_lists_the_state_an_approval_must_acknowledge(team: Team) -> None:
    approve_version_one(team)
    number = save_version(team, changed_key())

    check = team.client("viewer").get(reviews_url(team, number)).json()["stateCheck"]

    assert check["reference"] == 1
    (risk,) = check["operators"]
    assert (risk["node"], risk["name"]) == (3, "Reduce")
    assert [r["code"] for r in risk["reasons"]] == ["key-changed"]
    assert "'order.customer' instead of 'order.id'" in risk["reasons"][0]["message"]


def test_an_approval_without_the_acknowledgement_is_refused_listing_it(team: Team) -> None:
    approve_version_one(team)
    number = save_version(team, changed_key())
    request_id = request_review(team, ["olivia"], number=number)["requests"][0]["id"]
    risk = team.client("viewer").get(reviews_url(team, number)).json()["stateCheck"]["operators"][0]

    without = verdict(team.client("owner"), team, request_id, number=number)
    extra = verdict(
        team.client("owner"),
        team,
        request_id,
        number=number,
        acknowledged=[risk["operatorId"], "f" * 32],
    )
    twice = verdict(
        team.client("owner"),
        team,
        request_id,
        number=number,
        acknowledged=[risk["operatorId"], risk["operatorId"]],
    )
    exact = verdict(
        team.client("owner"), team, request_id, number=number, acknowledged=[risk["operatorId"]]
    )

    assert twice.status_code == 400
    assert twice.json()["error"]["fields"]["acknowledged"] == [
        f"{risk['operatorId']} is listed more than once."
    ]
    assert without.status_code == 400
    error = without.json()["error"]
    assert error["code"] == "state-not-acknowledged"
    assert f"Reduce ({risk['operatorId']})" in error["message"]
    assert error["fields"]["acknowledged"][0].startswith(f"Reduce (node 3, {risk['operatorId']}):")
    assert [d["node"] for d in error["diagnostics"]] == [3]
    assert extra.status_code == 400
    assert extra.json()["error"]["fields"]["acknowledged"] == [
        f"{'f' * 32} is not at risk: leave it out."
    ]
    assert exact.status_code == 201
    assert exact.json()["state"] == "approved"
    given = exact.json()["requests"][0]["reviewers"][0]["latest"]
    assert (given["acknowledged"], given["reference"]) == ([risk["operatorId"]], 1)
    # By name too, as the check said; how much state a predicted savepoint cannot know.
    assert given["acknowledgedState"] == [
        {"operatorId": risk["operatorId"], "name": risk["name"], "stateBytes": None}
    ]


def test_a_removed_stateful_operator_needs_acknowledging(team: Team) -> None:
    approve_version_one(team)
    document = make_document()
    document["nodes"] = [n for n in document["nodes"] if n["id"] != 3]
    document["edges"] = [document["edges"][0], {"source": 2, "target": 4, "partitioner": "FORWARD"}]
    number = save_version(team, document)

    check = team.client("viewer").get(reviews_url(team, number)).json()["stateCheck"]

    assert {r["name"]: [x["code"] for x in r["reasons"]] for r in check["operators"]} == {
        "Reduce": ["state-lost"]
    }
    (risk,) = check["operators"]
    assert risk["node"] is None  # no operator of the version concerns it
    assert "its operator Reduce (3) was removed" in risk["reasons"][0]["message"]


def test_an_operator_whose_id_changes_needs_acknowledging_with_the_cause(team: Team) -> None:
    approve_version_one(team)
    number = save_version(team, make_document(sink_parallelism=4))

    (risk,) = team.client("viewer").get(reviews_url(team, number)).json()["stateCheck"]["operators"]

    assert risk["name"] == "Reduce"
    (reason,) = risk["reasons"]
    assert reason["code"] == "state-lost"
    assert "chainable out-edges changed from 1 to 0" in reason["message"]


def test_before_any_approval_there_is_nothing_to_acknowledge(team: Team) -> None:
    number = save_version(team, changed_key())

    check = team.client("viewer").get(reviews_url(team, number)).json()["stateCheck"]

    assert check == {"reference": None, "savepoint": None, "operators": []}


def _savepoint_case(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((SAVEPOINTS / f"{name}.streamgraph.json").read_text())
    return document


def test_a_current_savepoint_is_what_an_approval_acknowledges(team: Team) -> None:
    # The savepoint production runs from, not a prediction from the last approved version:
    # Sum's state in it has no operator once a map is inserted before it.
    approve_version_one(team)
    save_version(team, _savepoint_case("counting.v1"))
    number = save_version(team, _savepoint_case("counting--insert-map"))
    savepoint = make_savepoint(pipeline=team.pipeline, label="production 2026-11-20", current=True)
    request_id = request_review(team, ["olivia"], number=number)["requests"][0]["id"]

    check = team.client("viewer").get(reviews_url(team, number)).json()["stateCheck"]
    without = verdict(team.client("owner"), team, request_id, number=number)
    (risk,) = check["operators"]
    exact = verdict(
        team.client("owner"), team, request_id, number=number, acknowledged=[risk["operatorId"]]
    )

    assert check["reference"] is None
    assert check["savepoint"] == {"id": savepoint.pk, "label": "production 2026-11-20"}
    # Sum of the version under review is the one that should take the state over.
    assert (risk["name"], risk["node"]) == ("Sum", 6)
    assert [r["code"] for r in risk["reasons"]] == ["state-lost"]
    assert without.status_code == 400
    assert "in the current savepoint 'production 2026-11-20'" in without.json()["error"]["message"]
    assert exact.status_code == 201
    given = exact.json()["requests"][0]["reviewers"][0]["latest"]
    assert given["savepoint"] == {"id": savepoint.pk, "label": "production 2026-11-20"}
    assert given["reference"] is None
    assert given["acknowledgedState"] == [
        {"operatorId": risk["operatorId"], "name": "Sum", "stateBytes": risk["stateBytes"]}
    ]
    assert risk["stateBytes"] > 0  # the real savepoint says how much Sum holds


def test_a_version_that_restores_the_current_savepoint_risks_nothing(team: Team) -> None:
    number = save_version(team, _savepoint_case("counting--rescale-all"))
    make_savepoint(pipeline=team.pipeline, current=True)

    check = team.client("viewer").get(reviews_url(team, number)).json()["stateCheck"]

    assert check["operators"] == []
    assert check["savepoint"] is not None


# The policy and the run gate ---------------------------------------------------------------------


def test_owners_set_the_policy_and_others_read_it(team: Team) -> None:
    policy_url = f"/api/workspaces/{team.workspace.pk}/review-policy/"

    default = team.client("viewer").get(policy_url).json()
    by_editor = team.client("editor").patch(policy_url, {"requiredApprovals": 2})
    empty = team.client("owner").patch(policy_url, {})
    too_many = team.client("owner").patch(policy_url, {"requiredApprovals": 6})
    not_bool = team.client("owner").patch(policy_url, {"allowSelfApproval": "yes"})
    changed = team.client("owner").patch(
        policy_url, {"requiredApprovals": 2, "requireApprovalToRun": True}
    )

    assert default == {
        "workspace": team.workspace.pk,
        "requiredApprovals": 1,
        "allowSelfApproval": False,
        "requireApprovalToRun": False,
        "updatedBy": None,
        "updatedAt": None,
    }
    assert by_editor.status_code == 403
    assert empty.status_code == 400
    assert set(empty.json()["error"]["fields"]) == {
        "requiredApprovals",
        "allowSelfApproval",
        "requireApprovalToRun",
    }
    assert too_many.status_code == 400 and "requiredApprovals" in too_many.json()["error"]["fields"]
    assert not_bool.status_code == 400 and "allowSelfApproval" in not_bool.json()["error"]["fields"]
    assert changed.status_code == 200
    assert changed.json()["requiredApprovals"] == 2
    assert changed.json()["requireApprovalToRun"] is True
    assert changed.json()["allowSelfApproval"] is False
    assert changed.json()["updatedBy"]["username"] == "olivia"
    assert ReviewPolicy.objects.get().required_approvals == 2


def test_only_approved_versions_run_where_the_policy_says_so(team: Team) -> None:
    number = make_runnable_version(pipeline=team.pipeline, author=team.editor).number
    runs_url = f"/api/pipelines/{team.pipeline.pk}/runs/"

    unguarded = team.client("editor").post(runs_url, {"version": number})
    set_policy(team, requireApprovalToRun=True)
    refused = team.client("editor").post(runs_url, {"version": number})
    request_id = request_review(team, ["olivia"], number=number)["requests"][0]["id"]
    verdict(team.client("owner"), team, request_id, number=number)
    approved = team.client("editor").post(runs_url, {"version": number})

    assert unguarded.status_code == 201
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "version-not-approved"
    assert error["message"] == (
        f"Version {number} is not approved (no review was requested; 0 of 1 approvals): this "
        "workspace's review policy runs approved versions only."
    )
    assert error["fields"] == {"version": [error["message"]]}
    assert approved.status_code == 201, approved.content
