"""Versions: numbered 1, 2, ... per pipeline, immutable, snapshots of the working copy."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from pipelines import services
from pipelines.models import Pipeline, PipelineVersion, VersionImmutable
from tests.backend.factories import make_document, make_pipeline, make_team

pytestmark = pytest.mark.django_db


def test_saving_numbers_versions_and_records_author_message_and_revision() -> None:
    team = make_team()
    client = team.client("editor")
    url = f"/api/pipelines/{team.pipeline.pk}/versions/"
    client.patch(f"/api/pipelines/{team.pipeline.pk}/", {"document": make_document(parallelism=4)})

    response = client.post(url, {"message": "Scale to 4"})

    assert response.status_code == 201
    body = response.json()
    assert body["number"] == 2
    assert body["message"] == "Scale to 4"
    assert body["author"] == {"id": team.editor.pk, "username": "eddie"}
    assert body["revision"] == 1
    assert body["document"] == make_document(parallelism=4)


def test_the_message_is_optional() -> None:
    team = make_team()

    response = team.client("editor").post(f"/api/pipelines/{team.pipeline.pk}/versions/", {})

    assert response.status_code == 201
    assert response.json()["message"] == ""


def test_list_is_oldest_first_without_documents() -> None:
    team = make_team()
    client = team.client("editor")
    url = f"/api/pipelines/{team.pipeline.pk}/versions/"
    client.post(url, {"message": "second"})
    client.post(url, {"message": "third"})

    versions = client.get(url).json()

    assert [(v["number"], v["message"]) for v in versions] == [
        (1, "first"),
        (2, "second"),
        (3, "third"),
    ]
    assert all("document" not in v for v in versions)


def test_numbers_are_per_pipeline() -> None:
    team = make_team()
    other = make_pipeline(workspace=team.workspace, name="Other")

    response = team.client("editor").post(f"/api/pipelines/{other.pk}/versions/", {})

    assert response.json()["number"] == 1


def test_a_version_keeps_its_document_when_the_working_copy_changes() -> None:
    team = make_team()
    client = team.client("editor")
    original = team.pipeline.document
    client.patch(f"/api/pipelines/{team.pipeline.pk}/", {"document": make_document(parallelism=6)})

    version = client.get(f"/api/pipelines/{team.pipeline.pk}/versions/1/")

    assert version.status_code == 200
    assert version.json()["document"] == original


def test_a_missing_version_is_404() -> None:
    team = make_team()

    response = team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/versions/5/")

    assert response.status_code == 404
    assert response.json()["error"]["message"] == "The pipeline has no version 5."


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_there_is_no_way_to_change_a_version_over_http(method: str) -> None:
    team = make_team()

    response = getattr(team.client("owner"), method)(
        f"/api/pipelines/{team.pipeline.pk}/versions/1/", {"message": "rewritten"}
    )

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method-not-allowed"
    assert PipelineVersion.objects.get().message == "first"


def test_a_saved_version_refuses_to_be_saved_again() -> None:
    team = make_team()
    version = PipelineVersion.objects.get(pipeline=team.pipeline)
    version.message = "rewritten"

    with pytest.raises(VersionImmutable):
        version.save()

    assert PipelineVersion.objects.get().message == "first"


@pytest.mark.django_db(transaction=True)
def test_concurrent_saves_get_distinct_consecutive_numbers() -> None:
    team = make_team()
    barrier = threading.Barrier(8)
    failures: list[BaseException] = []

    def save_three() -> None:
        try:
            barrier.wait()
            pipeline = Pipeline.objects.get(pk=team.pipeline.pk)
            for _ in range(3):
                services.version_create(pipeline=pipeline, actor=team.editor, message="race")
        except BaseException as error:
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=save_three) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    numbers = sorted(PipelineVersion.objects.values_list("number", flat=True))
    assert numbers == list(range(1, 26))
