"""Pipelines over REST: create, read, update, delete, plans, stateless compile and diffs."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from accounts.models import Role
from config.errors import Conflict
from pipelines import services
from pipelines.models import Pipeline
from tests.backend.factories import (
    add_member,
    client_for,
    make_document,
    make_pipeline,
    make_team,
    make_user,
    make_version,
    make_workspace,
)

pytestmark = pytest.mark.django_db


def test_create_without_a_document_starts_from_an_empty_valid_one() -> None:
    team = make_team()

    response = team.client("editor").post(
        "/api/pipelines/", {"workspace": team.workspace.pk, "name": "Fraud alerts"}
    )

    assert response.status_code == 201
    body = response.json()
    assert body["revision"] == 0
    assert body["createdBy"] == {"id": team.editor.pk, "username": "eddie"}
    assert body["document"]["format"] == "streamgraph/v1"
    assert body["document"]["name"] == "Fraud alerts"
    assert (body["document"]["nodes"], body["document"]["edges"]) == ([], [])
    plan = team.client("editor").get(f"/api/pipelines/{body['id']}/plan/").json()
    assert plan["ok"] is True


@pytest.mark.both_databases
def test_create_with_a_document_stores_it_unchanged() -> None:
    team = make_team()
    document = make_document(name="orders", parallelism=3)
    document["meta"] = {"kept": ["unknown", "keys"]}

    response = team.client("editor").post(
        "/api/pipelines/", {"workspace": team.workspace.pk, "name": "Orders", "document": document}
    )

    assert response.status_code == 201
    assert Pipeline.objects.get(pk=response.json()["id"]).document == document


def test_list_shows_pipelines_of_my_workspaces_without_documents() -> None:
    team = make_team()
    other = make_workspace(owner=team.viewer, name="Other")
    second = make_pipeline(workspace=other, name="Second")
    make_pipeline(name="Not mine")

    everything = team.client("viewer").get("/api/pipelines/").json()
    filtered = team.client("viewer").get(f"/api/pipelines/?workspace={other.pk}").json()

    assert sorted(p["id"] for p in everything) == sorted([team.pipeline.pk, second.pk])
    assert all("document" not in p for p in everything)
    assert [p["id"] for p in filtered] == [second.pk]


def test_filtering_by_a_foreign_workspace_is_404_and_by_garbage_400() -> None:
    team = make_team()

    foreign = team.client("non-member").get(f"/api/pipelines/?workspace={team.workspace.pk}")
    garbage = team.client("viewer").get("/api/pipelines/?workspace=abc")

    assert foreign.status_code == 404
    assert garbage.status_code == 400
    assert set(garbage.json()["error"]["fields"]) == {"workspace"}


def test_retrieve_returns_the_working_copy_and_revision() -> None:
    team = make_team()

    body = team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/").json()

    assert body["document"] == team.pipeline.document
    assert body["revision"] == 0
    assert body["workspace"] == team.workspace.pk


def test_the_summary_has_name_revision_and_role_but_no_document() -> None:
    team = make_team()
    url = f"/api/pipelines/{team.pipeline.pk}/summary/"

    viewer = team.client("viewer").get(url).json()
    owner = team.client("owner").get(url).json()

    assert "document" not in viewer
    assert viewer["name"] == team.pipeline.name and viewer["revision"] == 0
    assert (viewer["role"], owner["role"]) == ("viewer", "owner")
    assert team.client("non-member").get(url).status_code == 404


def test_a_new_document_bumps_the_revision_and_a_rename_does_not() -> None:
    team = make_team()
    url = f"/api/pipelines/{team.pipeline.pk}/"
    client = team.client("editor")

    renamed = client.patch(url, {"name": "Orders v2"})
    replaced = client.patch(url, {"document": make_document(parallelism=4)})
    unchanged = client.patch(url, {"document": make_document(parallelism=4)})

    assert (renamed.json()["name"], renamed.json()["revision"]) == ("Orders v2", 0)
    assert replaced.json()["revision"] == 1
    assert unchanged.json()["revision"] == 1
    assert Pipeline.objects.get(pk=team.pipeline.pk).document == make_document(parallelism=4)


@pytest.mark.both_databases
def test_a_change_on_a_stale_revision_is_409_and_changes_nothing() -> None:
    team = make_team()
    url = f"/api/pipelines/{team.pipeline.pk}/"
    client = team.client("editor")
    client.patch(url, {"document": make_document(parallelism=4), "revision": 0})

    response = client.patch(url, {"document": make_document(parallelism=8), "revision": 0})

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "stale-revision"
    pipeline = Pipeline.objects.get(pk=team.pipeline.pk)
    assert (pipeline.revision, pipeline.document) == (1, make_document(parallelism=4))


def test_a_document_with_errors_the_editor_can_show_is_stored() -> None:
    team = make_team()
    document = make_document()
    document["nodes"][0]["parallelism"] = 0  # out of bounds: a diagnostic, not unreadable

    response = team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"document": document}
    )
    plan = team.client("editor").get(f"/api/pipelines/{team.pipeline.pk}/plan/").json()

    assert response.status_code == 200
    assert plan["ok"] is False
    assert plan["jobGraph"] is None
    assert any(
        d["code"] == "node.parallelism-bounds" and d["node"] == 1 for d in plan["diagnostics"]
    )


def test_delete_removes_the_pipeline() -> None:
    team = make_team()

    response = team.client("editor").delete(f"/api/pipelines/{team.pipeline.pk}/")

    assert response.status_code == 204
    assert not Pipeline.objects.filter(pk=team.pipeline.pk).exists()


def test_plan_has_job_graph_execution_summary_and_explanations() -> None:
    team = make_team()

    response = team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/plan/")

    assert response.status_code == 200
    plan = response.json()
    assert set(plan) == {"ok", "diagnostics", "jobGraph", "execution", "explain", "importChecklist"}
    assert plan["ok"] is True
    assert plan["jobGraph"]["format"] == "jobgraph/v1"
    assert plan["explain"]["format"] == "explain/v1"
    execution = plan["execution"]
    assert execution["totalSubtasks"] == sum(v["parallelism"] for v in execution["vertices"])
    for vertex in execution["vertices"]:
        assert set(vertex) == {"id", "name", "parallelism", "maxParallelism", "keyGroupRanges"}
        assert len(vertex["keyGroupRanges"]) == vertex["parallelism"]
    keyed = execution["vertices"][-1]
    assert keyed["keyGroupRanges"] == [[0, 63], [64, 127]]
    assert {e["pattern"] for e in execution["edges"]} == {"ALL_TO_ALL"}


def test_the_execution_summary_stays_small_at_high_parallelism() -> None:
    team = make_team()
    document = make_document(parallelism=4096)

    plan = team.client("viewer").post("/api/compile/", document).json()

    vertices = plan["execution"]["vertices"]
    assert plan["execution"]["totalSubtasks"] == 2 * 4096
    assert all("subtasks" not in v for v in vertices)
    assert vertices[0]["keyGroupRanges"][:2] == [[0, 1], [2, 3]]
    assert all(len(e["groups"]) <= 4096 for e in plan["execution"]["edges"])


@pytest.mark.both_databases
def test_plan_of_a_saved_version() -> None:
    team = make_team()
    team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"document": make_document(parallelism=8)}
    )
    client = team.client("viewer")

    working = client.get(f"/api/pipelines/{team.pipeline.pk}/plan/").json()
    first = client.get(f"/api/pipelines/{team.pipeline.pk}/plan/?version=1").json()
    missing = client.get(f"/api/pipelines/{team.pipeline.pk}/plan/?version=9")

    assert working["execution"]["vertices"][0]["parallelism"] == 8
    assert first["execution"]["vertices"][0]["parallelism"] == 2
    assert missing.status_code == 404


def test_compile_is_stateless_and_open_to_any_user() -> None:
    user = make_user()

    response = client_for(user).post("/api/compile/", make_document())

    assert response.status_code == 200
    assert response.json()["ok"] is True
    assert not Pipeline.objects.exists()


def test_compile_reports_errors_it_can_locate() -> None:
    document = make_document(sink_parallelism=4)
    document["edges"][2]["partitioner"] = "FORWARD"  # FORWARD across parallelism 2 -> 4

    plan = client_for(make_user()).post("/api/compile/", document).json()

    assert plan["ok"] is False
    assert plan["execution"] is None
    compiler_diagnostics = [d for d in plan["diagnostics"] if "stage" not in d]
    assert [d["severity"] for d in compiler_diagnostics] == ["error"]


def test_compile_rejects_an_unreadable_document() -> None:
    response = client_for(make_user()).post("/api/compile/", {"format": "streamgraph/v9"})

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid-document"
    assert error["diagnostics"][0]["field"] == "format"


DIFF_KEYS = {"streamGraph", "jobGraph", "executionGraph", "savepoint"}


def _diff(team: Any, query: str = "") -> Any:
    return team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/diff/{query}")


def test_diff_of_the_working_copy_against_the_latest_version() -> None:
    team = make_team()
    team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"document": make_document(sink_parallelism=4)}
    )

    response = _diff(team)

    assert response.status_code == 200
    assert set(response.json()) >= DIFF_KEYS


@pytest.mark.parametrize(
    "query", ["?from=1", "?from=1&to=2", "?from=2&to=working", "?from=working&to=1", "?to=2"]
)
def test_diff_between_any_two_versions(query: str) -> None:
    team = make_team()
    team.pipeline.document = make_document(uid="orders-source")
    team.pipeline.save()
    make_version(pipeline=team.pipeline)

    response = _diff(team, query)

    assert response.status_code == 200
    assert set(response.json()) >= DIFF_KEYS


def test_diff_before_any_version_treats_everything_as_new() -> None:
    team = make_team()
    team.pipeline.versions.all().delete()

    response = _diff(team)

    assert response.status_code == 200
    assert set(response.json()) >= DIFF_KEYS


@pytest.mark.parametrize(
    ("query", "status"), [("?from=7", 404), ("?to=0", 400), ("?from=latest", 400)]
)
def test_diff_with_a_bad_version(query: str, status: int) -> None:
    team = make_team()

    response = _diff(team, query)

    assert response.status_code == status
    assert set(response.json()) == {"error"}


def test_a_role_change_takes_effect_at_once() -> None:
    team = make_team()
    newcomer = add_member(workspace=team.workspace, role=Role.VIEWER)
    client = client_for(newcomer)
    url = f"/api/pipelines/{team.pipeline.pk}/"

    before = client.patch(url, {"name": "Renamed"})
    team.workspace.memberships.filter(user=newcomer).update(role=Role.EDITOR)
    after = client.patch(url, {"name": "Renamed"})

    assert (before.status_code, after.status_code) == (403, 200)


@pytest.mark.django_db(transaction=True)
def test_concurrent_changes_on_one_revision_let_exactly_one_through() -> None:
    team = make_team()
    outcomes: list[str] = []
    barrier = threading.Barrier(6)

    def change(parallelism: int) -> None:
        try:
            barrier.wait()
            pipeline = Pipeline.objects.get(pk=team.pipeline.pk)
            services.pipeline_update(
                pipeline=pipeline,
                actor=team.editor,
                document=make_document(parallelism=parallelism),
                base_revision=0,
            )
            outcomes.append("applied")
        except Conflict:
            outcomes.append("conflict")
        finally:
            connection.close()

    threads = [threading.Thread(target=change, args=(p,)) for p in range(3, 9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["applied"] + ["conflict"] * 5
    assert Pipeline.objects.get(pk=team.pipeline.pk).revision == 1
