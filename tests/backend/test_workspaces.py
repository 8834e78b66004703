"""Workspaces and members over REST: who may do what, and the last-owner rule."""

from __future__ import annotations

import pytest

from accounts.models import Membership, Role, Workspace
from accounts.selectors import membership_role
from pipelines.models import Pipeline, PipelineVersion
from tests.backend.factories import add_member, client_for, make_team, make_user, make_workspace

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
    assert "slug" in response.json()["error"]["fields"]
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
