"""The audit record: what no other table keeps as history (membership and policy changes,
threads resolved and reopened, savepoints made current and deleted, runs the review gate
refused) is appended as it happens, shown in the activity feed and never changed."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Role
from accounts.services import membership_add, membership_change, membership_leave
from audit.models import AuditEvent, AuditImmutable
from tests.backend.factories import (
    Team,
    make_pipeline,
    make_savepoint,
    make_team,
    make_user,
    make_workspace,
)
from tests.backend.runs_support import make_runnable_version

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]


def feed(team: Team, role: str = "viewer") -> list[dict[str, Any]]:
    response = team.client(role).get(f"/api/pipelines/{team.pipeline.pk}/activity/?limit=200")
    assert response.status_code == 200, response.content
    items: list[dict[str, Any]] = response.json()["items"]
    return items


def recorded(team: Team) -> list[dict[str, Any]]:
    """The feed's items read from the audit record, oldest first, without time and id."""
    items = [item for item in feed(team) if "record" in item]
    assert [i["record"] for i in items] == sorted((i["record"] for i in items), reverse=True)
    return [
        {key: value for key, value in item.items() if key not in ("at", "record")}
        for item in reversed(items)
    ]


def user(name: str, team: Team) -> dict[str, Any]:
    found = {u.username: u for u in (team.owner, team.editor, team.viewer, team.outsider)}[name]
    return {"id": found.pk, "username": name}


def test_membership_changes_reach_every_pipeline_of_the_workspace() -> None:
    team = make_team()
    owner = team.client("owner")
    members = f"/api/workspaces/{team.workspace.pk}/members/"

    added = owner.post(members, {"username": "oscar", "role": "viewer"})
    assert added.status_code == 201, added.content
    promoted = owner.patch(members + f"{team.outsider.pk}/", {"role": "editor"})
    assert promoted.status_code == 200, promoted.content
    same = owner.patch(members + f"{team.outsider.pk}/", {"role": "editor"})
    assert same.status_code == 200
    assert owner.delete(members + f"{team.editor.pk}/").status_code == 204
    assert (
        team.client("non-member").post(f"/api/workspaces/{team.workspace.pk}/leave/").status_code
        == 204
    )

    olivia, oscar, eddie = user("olivia", team), user("oscar", team), user("eddie", team)
    assert recorded(team) == [
        {"kind": "member_added", "user": olivia, "member": oscar, "role": "viewer"},
        {
            "kind": "member_role_changed",
            "user": olivia,
            "member": oscar,
            "before": "viewer",
            "after": "editor",
        },
        {
            "kind": "member_removed",
            "user": olivia,
            "member": eddie,
            "role": "editor",
            "left": False,
        },
        {"kind": "member_removed", "user": oscar, "member": oscar, "role": "editor", "left": True},
    ]
    # Another pipeline of the workspace shows them too; one made later does not.
    later = make_pipeline(workspace=team.workspace, created_by=team.owner)
    later_feed = team.client("viewer").get(f"/api/pipelines/{later.pk}/activity/").json()
    assert [item["kind"] for item in later_feed["items"]] == []


def test_another_workspaces_changes_stay_out_of_the_feed() -> None:
    team = make_team()
    stranger = make_user(username="sam")
    other = make_workspace(owner=stranger, name="Other", slug="other")
    make_pipeline(workspace=other, created_by=stranger)
    membership_add(workspace=other, actor=stranger, user=team.viewer, role=Role.EDITOR)
    membership_change(workspace=other, actor=stranger, user_id=team.viewer.pk, role=Role.VIEWER)
    membership_leave(workspace=other, actor=team.viewer)

    assert recorded(team) == []
    assert AuditEvent.objects.filter(workspace=other).count() == 3


def test_a_policy_change_names_only_what_changed() -> None:
    team = make_team()
    policy = f"/api/workspaces/{team.workspace.pk}/review-policy/"
    owner = team.client("owner")

    owner.patch(policy, {"requiredApprovals": 2, "allowSelfApproval": False})
    owner.patch(policy, {"requiredApprovals": 2})  # nothing changes: nothing recorded
    owner.patch(policy, {"requireApprovalToRun": True, "allowSelfApproval": True})

    assert recorded(team) == [
        {
            "kind": "review_policy_changed",
            "user": user("olivia", team),
            "changes": [{"field": "requiredApprovals", "before": 1, "after": 2}],
        },
        {
            "kind": "review_policy_changed",
            "user": user("olivia", team),
            "changes": [
                {"field": "allowSelfApproval", "before": False, "after": True},
                {"field": "requireApprovalToRun", "before": False, "after": True},
            ],
        },
    ]


def test_resolving_and_reopening_a_thread_is_recorded_with_its_target() -> None:
    team = make_team()
    base = f"/api/pipelines/{team.pipeline.pk}/comments/"
    thread = team.client("viewer").post(
        base, {"version": 1, "target": {"kind": "node", "node": 3}, "body": "Keyed?"}
    )
    assert thread.status_code == 201, thread.content
    thread_id = thread.json()["id"]
    target = thread.json()["target"]["label"]

    assert team.client("editor").post(base + f"{thread_id}/resolve/").status_code == 200
    assert team.client("editor").post(base + f"{thread_id}/resolve/").status_code == 200
    assert team.client("viewer").post(base + f"{thread_id}/reopen/").status_code == 200

    common = {"thread": thread_id, "version": 1, "target": target}
    assert recorded(team) == [
        {"kind": "thread_resolved", "user": user("eddie", team), **common},
        {"kind": "thread_reopened", "user": user("vera", team), **common},
    ]


def test_a_deleted_savepoint_stays_on_the_record() -> None:
    team = make_team()
    base = f"/api/pipelines/{team.pipeline.pk}/savepoints/"
    first = make_savepoint(pipeline=team.pipeline, label="monday", current=True)
    second = make_savepoint(pipeline=team.pipeline, label="tuesday")
    editor = team.client("editor")

    assert (
        editor.patch(base + f"{second.pk}/", {"isCurrent": True}, format="json").status_code == 200
    )
    assert (
        editor.patch(base + f"{second.pk}/", {"isCurrent": True}, format="json").status_code == 200
    )
    assert (
        editor.patch(base + f"{second.pk}/", {"isCurrent": False}, format="json").status_code == 200
    )
    assert editor.patch(base + f"{second.pk}/", {"label": "tue"}, format="json").status_code == 200
    assert editor.delete(base + f"{first.pk}/").status_code == 204
    assert (
        editor.patch(base + f"{second.pk}/", {"isCurrent": True}, format="json").status_code == 200
    )
    assert editor.delete(base + f"{second.pk}/").status_code == 204

    olivia, eddie = user("olivia", team), user("eddie", team)
    monday, tuesday = {"savepoint": first.pk}, {"savepoint": second.pk}
    assert recorded(team) == [
        {
            "kind": "savepoint_uploaded",
            "user": olivia,
            **monday,
            "label": "monday",
            "current": True,
        },
        {
            "kind": "savepoint_uploaded",
            "user": olivia,
            **tuesday,
            "label": "tuesday",
            "current": False,
        },
        {"kind": "savepoint_marked_current", "user": eddie, **tuesday, "label": "tuesday"},
        {"kind": "savepoint_current_cleared", "user": eddie, **tuesday, "label": "tuesday"},
        {"kind": "savepoint_deleted", "user": eddie, **monday, "label": "monday", "current": False},
        {"kind": "savepoint_marked_current", "user": eddie, **tuesday, "label": "tue"},
        {"kind": "savepoint_deleted", "user": eddie, **tuesday, "label": "tue", "current": True},
    ]


def test_a_run_the_review_gate_refuses_is_recorded_with_the_reason() -> None:
    team = make_team()
    number = make_runnable_version(pipeline=team.pipeline, author=team.editor).number
    team.client("owner").patch(
        f"/api/workspaces/{team.workspace.pk}/review-policy/", {"requireApprovalToRun": True}
    )

    refused = team.client("editor").post(
        f"/api/pipelines/{team.pipeline.pk}/runs/", {"version": number}
    )

    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "version-not-approved"
    last = recorded(team)[-1]
    assert last == {
        "kind": "run_refused",
        "user": user("eddie", team),
        "version": number,
        "code": "version-not-approved",
        "reason": refused.json()["error"]["message"],
    }
    # A viewer's attempt is refused by role before the gate is asked: nothing is recorded.
    denied = team.client("viewer").post(
        f"/api/pipelines/{team.pipeline.pk}/runs/", {"version": number}
    )
    assert denied.status_code == 403
    assert [item["kind"] for item in recorded(team)].count("run_refused") == 1


def test_a_record_is_never_changed() -> None:
    team = make_team()
    make_savepoint(pipeline=team.pipeline)
    event = AuditEvent.objects.get()

    event.details = {"savepoint": 1, "label": "rewritten", "current": False}
    with pytest.raises(AuditImmutable):
        event.save()
    assert AuditEvent.objects.get().details["label"] == "production"
