"""Workspaces and members over REST: who may do what, leaving, and the last-owner rule."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.db import connection

from accounts.models import Membership, Role, Workspace
from accounts.selectors import membership_role
from accounts.services import membership_leave, membership_remove
from config.errors import Conflict, NotAuthenticated, NotFound
from pipelines.models import Pipeline, PipelineVersion
from tests.backend.factories import (
    Team,
    add_member,
    client_for,
    make_team,
    make_user,
    make_workspace,
)

pytestmark = pytest.mark.django_db


def test_creator_becomes_owner_and_the_slug_comes_from_the_name() -> None:
    user = make_user()

    response = client_for(user).post("/api/workspaces/", {"name": "Fraud Team"}, format="json")

    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "Fraud Team"
    assert body["slug"] == "fraud-team"
    assert body["role"] == "owner"
    workspace = Workspace.objects.get(pk=body["id"])
    assert membership_role(user=user, workspace=workspace) is Role.OWNER


def test_a_taken_slug_gets_a_suffix() -> None:
    make_workspace(slug="fraud-team")

    response = client_for(make_user()).post(
        "/api/workspaces/", {"name": "Fraud Team"}, format="json"
    )

    assert response.json()["slug"] == "fraud-team-2"


def test_an_explicit_taken_slug_is_409() -> None:
    make_workspace(slug="fraud")

    response = client_for(make_user()).post(
        "/api/workspaces/", {"name": "Fraud", "slug": "fraud"}, format="json"
    )

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "slug-taken"
    error = response.json()["error"]
    assert error["fields"] == {"slug": [error["message"]]}
    assert Workspace.objects.count() == 1


def test_list_shows_only_my_workspaces_with_my_role() -> None:
    me = make_user()
    mine = make_workspace(owner=me, name="B mine")
    shared = make_workspace(name="A shared")
    add_member(workspace=shared, user=me, role=Role.VIEWER)
    make_workspace(name="C other")

    response = client_for(me).get("/api/workspaces/")

    assert [(w["id"], w["role"]) for w in response.json()] == [
        (shared.pk, "viewer"),
        (mine.pk, "owner"),
    ]


def test_owner_renames_workspace() -> None:
    team = make_team()

    response = team.client("owner").patch(
        f"/api/workspaces/{team.workspace.pk}/", {"name": "Billing", "slug": "billing"}
    )

    assert response.status_code == 200
    assert response.json()["name"] == "Billing"
    team.workspace.refresh_from_db()
    assert (team.workspace.name, team.workspace.slug) == ("Billing", "billing")


def test_owner_deletes_workspace_with_its_pipelines_and_versions() -> None:
    team = make_team()

    response = team.client("owner").delete(f"/api/workspaces/{team.workspace.pk}/")

    assert response.status_code == 204
    assert not Workspace.objects.exists()
    assert not Pipeline.objects.exists()
    assert not PipelineVersion.objects.exists()


def test_members_are_listed_for_any_member() -> None:
    team = make_team()

    response = team.client("viewer").get(f"/api/workspaces/{team.workspace.pk}/members/")

    assert response.status_code == 200
    assert [(m["user"]["username"], m["role"]) for m in response.json()] == [
        ("eddie", "editor"),
        ("olivia", "owner"),
        ("vera", "viewer"),
    ]


def test_owner_adds_a_member_by_username() -> None:
    team = make_team()
    newcomer = make_user(username="nina")

    response = team.client("owner").post(
        f"/api/workspaces/{team.workspace.pk}/members/",
        {"username": "nina", "role": "editor"},
        format="json",
    )

    assert response.status_code == 201
    assert response.json()["user"] == {"id": newcomer.pk, "username": "nina"}
    assert membership_role(user=newcomer, workspace=team.workspace) is Role.EDITOR


def test_adding_an_unknown_user_names_the_field() -> None:
    team = make_team()

    response = team.client("owner").post(
        f"/api/workspaces/{team.workspace.pk}/members/",
        {"username": "ghost", "role": "editor"},
        format="json",
    )

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"username": ["No active user is called 'ghost'."]}
    # The message already names the field: the browser shows it alone (`ApiError.detail`).
    assert response.json()["error"]["message"] == "username: No active user is called 'ghost'."


def test_adding_an_existing_member_is_409() -> None:
    team = make_team()

    response = team.client("owner").post(
        f"/api/workspaces/{team.workspace.pk}/members/",
        {"username": "vera", "role": "editor"},
        format="json",
    )

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "already-member"
    error = response.json()["error"]
    assert error["message"] == "vera is already a member of this workspace."
    assert error["fields"] == {"username": [error["message"]]}
    assert membership_role(user=team.viewer, workspace=team.workspace) is Role.VIEWER


def test_adding_with_an_unknown_role_is_400() -> None:
    team = make_team()
    make_user(username="nina")

    response = team.client("owner").post(
        f"/api/workspaces/{team.workspace.pk}/members/",
        {"username": "nina", "role": "admin"},
        format="json",
    )

    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"role"}


def test_owner_changes_a_role_and_removes_a_member() -> None:
    team = make_team()
    client = team.client("owner")
    url = f"/api/workspaces/{team.workspace.pk}/members/{team.editor.pk}/"

    changed = client.patch(url, {"role": "owner"}, format="json")
    removed = client.delete(f"/api/workspaces/{team.workspace.pk}/members/{team.viewer.pk}/")

    assert changed.status_code == 200
    assert changed.json()["role"] == "owner"
    assert removed.status_code == 204
    assert membership_role(user=team.viewer, workspace=team.workspace) is None


def test_the_last_owner_cannot_be_demoted_or_removed() -> None:
    team = make_team()
    client = team.client("owner")
    url = f"/api/workspaces/{team.workspace.pk}/members/{team.owner.pk}/"

    demoted = client.patch(url, {"role": "editor"}, format="json")
    removed = client.delete(url)

    for response in (demoted, removed):
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "last-owner"
        assert "at least one owner" in response.json()["error"]["message"]
    assert membership_role(user=team.owner, workspace=team.workspace) is Role.OWNER


def test_an_owner_may_step_down_when_another_owner_remains() -> None:
    team = make_team()
    Membership.objects.filter(user=team.editor).update(role=Role.OWNER)

    response = team.client("owner").patch(
        f"/api/workspaces/{team.workspace.pk}/members/{team.owner.pk}/",
        {"role": "viewer"},
        format="json",
    )

    assert response.status_code == 200
    assert membership_role(user=team.owner, workspace=team.workspace) is Role.VIEWER


def test_changing_a_non_member_is_404() -> None:
    team = make_team()

    response = team.client("owner").patch(
        f"/api/workspaces/{team.workspace.pk}/members/{team.outsider.pk}/",
        {"role": "viewer"},
        format="json",
    )

    assert response.status_code == 404
    assert response.json()["error"]["message"] == "Member not found."


def test_a_missing_and_a_foreign_workspace_look_the_same() -> None:
    team = make_team()
    client = team.client("non-member")

    foreign = client.get(f"/api/workspaces/{team.workspace.pk}/")
    missing = client.get("/api/workspaces/999999/")

    assert foreign.status_code == missing.status_code == 404
    assert foreign.json() == missing.json()


# Leaving -------------------------------------------------------------------------------------


def _leave(team: Team, role: str) -> Any:
    return team.client(role).post(f"/api/workspaces/{team.workspace.pk}/leave/")


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_a_member_leaves_and_the_workspace_leaves_their_list(role: str) -> None:
    team = make_team()
    member = team.user(role)

    response = _leave(team, role)

    assert response.status_code == 204
    assert membership_role(user=member, workspace=team.workspace) is None
    assert client_for(member).get("/api/workspaces/").json() == []
    assert team.workspace.memberships.count() == 2


def test_an_owner_leaves_when_another_owner_remains() -> None:
    team = make_team()
    Membership.objects.filter(user=team.editor).update(role=Role.OWNER)

    response = _leave(team, "owner")

    assert response.status_code == 204
    assert membership_role(user=team.owner, workspace=team.workspace) is None
    assert membership_role(user=team.editor, workspace=team.workspace) is Role.OWNER


def test_the_last_owner_cannot_leave_and_is_told_what_to_do_instead() -> None:
    team = make_team()

    response = _leave(team, "owner")

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "last-owner"
    assert error["message"] == (
        "You are the last owner of Payments: make another member an owner first, "
        "or delete the workspace."
    )
    assert membership_role(user=team.owner, workspace=team.workspace) is Role.OWNER


def test_a_non_member_cannot_leave_a_workspace_they_are_not_in() -> None:
    team = make_team()

    response = _leave(team, "non-member")

    assert response.status_code == 404
    assert response.json()["error"]["message"] == "Workspace not found."
    assert team.workspace.memberships.count() == 3


def test_leaving_twice_finds_nothing_the_second_time() -> None:
    team = make_team()

    first, second = _leave(team, "viewer"), _leave(team, "viewer")

    assert (first.status_code, second.status_code) == (204, 404)


@pytest.mark.parametrize(
    ("method", "target", "body"),
    [
        ("delete", "viewer", None),
        ("delete", "editor", None),
        ("patch", "editor", {"role": "owner"}),
        ("patch", "viewer", {"role": "editor"}),
    ],
)
def test_changing_or_removing_members_stays_with_owners(
    method: str, target: str, body: dict[str, str] | None
) -> None:
    team = make_team()
    member = team.user(target)
    assert member is not None
    kwargs: dict[str, Any] = {} if body is None else {"data": body, "format": "json"}

    response = getattr(team.client("editor"), method)(
        f"/api/workspaces/{team.workspace.pk}/members/{member.pk}/", **kwargs
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission-denied"
    assert [(m.user.username, m.role) for m in team.workspace.memberships.order_by("user_id")] == [
        ("olivia", "owner"),
        ("eddie", "editor"),
        ("vera", "viewer"),
    ]


def test_the_service_checks_the_actors_current_role() -> None:
    team = make_team()
    membership_remove(workspace=team.workspace, actor=team.owner, user_id=team.viewer.pk)

    with pytest.raises(NotFound):
        membership_leave(workspace=team.workspace, actor=team.viewer)
    with pytest.raises(NotAuthenticated):
        membership_leave(workspace=team.workspace, actor=AnonymousUser())


@pytest.mark.django_db(transaction=True)
def test_two_owners_leaving_at_once_leave_one_owner() -> None:
    team = make_team()
    Membership.objects.filter(user=team.editor).update(role=Role.OWNER)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def leave(user: User) -> None:
        try:
            barrier.wait()
            workspace = Workspace.objects.get(pk=team.workspace.pk)
            membership_leave(workspace=workspace, actor=user)
            outcomes.append("left")
        except Conflict as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=leave, args=(u,)) for u in (team.owner, team.editor)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["last-owner", "left"]
    assert team.workspace.memberships.filter(role=Role.OWNER).count() == 1
