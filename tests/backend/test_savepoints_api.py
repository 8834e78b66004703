"""A pipeline's savepoints over REST: upload a real `_metadata`, list, read its operators,
relabel and mark current, delete; bad and oversized files refused with where and why."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from compiler.savepoint import StateKind, read_savepoint
from savepoints.events import StateKindName
from savepoints.models import Savepoint
from tests.backend.factories import (
    client_for,
    make_savepoint,
    make_team,
    make_user,
    savepoint_bytes,
)

pytestmark = pytest.mark.django_db


def _upload(client: APIClient, pipeline_id: int, data: bytes, **fields: Any) -> Any:
    body = {
        "file": SimpleUploadedFile("_metadata", data),
        "label": "production 2026-11-20",
        **fields,
    }
    return client.post(f"/api/pipelines/{pipeline_id}/savepoints/", body, format="multipart")


def test_an_editor_uploads_a_real_savepoint_and_sees_its_operators() -> None:
    team = make_team()
    data = savepoint_bytes("counting")

    response = _upload(team.client("editor"), team.pipeline.pk, data)

    assert response.status_code == 201, response.content[:300]
    body = response.json()
    read = read_savepoint(data)
    assert body["label"] == "production 2026-11-20"
    assert body["size"] == len(data)
    assert body["formatVersion"] == read.version
    assert body["checkpointId"] == read.checkpoint_id
    assert body["uploadedBy"] == {"id": team.editor.pk, "username": "eddie"}
    assert body["isCurrent"] is False
    assert [o["operatorId"] for o in body["operators"]] == [o.hex_id for o in read.operators]
    assert any(
        o["hasState"] and "keyed" in [s["kind"] for s in o["sizes"]] for o in body["operators"]
    )
    stored = Savepoint.objects.get()
    assert bytes(stored.data) == data


def test_the_list_is_newest_first_without_operators() -> None:
    team = make_team()
    make_savepoint(pipeline=team.pipeline, label="older")
    make_savepoint(pipeline=team.pipeline, label="newer", case="small-max")

    listed = team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/savepoints/").json()

    assert [s["label"] for s in listed] == ["newer", "older"]
    assert all("operators" not in s for s in listed)


def test_one_savepoint_is_current_at_a_time() -> None:
    team = make_team()
    first = make_savepoint(pipeline=team.pipeline, label="first", current=True)
    second = make_savepoint(pipeline=team.pipeline, label="second")
    client = team.client("editor")
    url = f"/api/pipelines/{team.pipeline.pk}/savepoints/"

    response = client.patch(f"{url}{second.pk}/", {"isCurrent": True}, format="json")

    assert response.status_code == 200
    assert response.json()["isCurrent"] is True
    assert {s["label"]: s["isCurrent"] for s in client.get(url).json()} == {
        "first": False,
        "second": True,
    }
    # Uploading a new current one takes it over too.
    uploaded = _upload(client, team.pipeline.pk, savepoint_bytes(), current="true").json()
    assert [s["id"] for s in client.get(url).json() if s["isCurrent"]] == [uploaded["id"]]
    assert first.pk != uploaded["id"]


def test_a_savepoint_is_relabelled_and_deleted() -> None:
    team = make_team()
    savepoint = make_savepoint(pipeline=team.pipeline)
    client = team.client("editor")
    url = f"/api/pipelines/{team.pipeline.pk}/savepoints/{savepoint.pk}/"

    assert client.patch(url, {"label": "  staging  "}, format="json").json()["label"] == "staging"
    assert client.delete(url).status_code == 204
    assert client.get(url).status_code == 404


def test_a_file_flink_did_not_write_is_refused_with_its_offset() -> None:
    team = make_team()
    data = savepoint_bytes()

    truncated = _upload(team.client("editor"), team.pipeline.pk, data[:100])
    not_one = _upload(team.client("editor"), team.pipeline.pk, b'{"format": "streamgraph/v1"}')

    for response in (truncated, not_one):
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "invalid-savepoint"
        assert "byte " in error["message"]
        assert "byte " in error["fields"]["file"][0]
    assert "byte 0: expected" in not_one.json()["error"]["message"]
    assert Savepoint.objects.count() == 0


def test_a_file_over_the_limit_is_refused_while_it_streams(settings: Any) -> None:
    settings.SAVEPOINT_MAX_BYTES = 1000
    team = make_team()

    response = _upload(team.client("editor"), team.pipeline.pk, savepoint_bytes())

    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "upload-too-large"
    assert "1000 bytes" in error["message"]
    assert Savepoint.objects.count() == 0


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"label": ""}, "label"),
        ({"label": "x" * 201}, "label"),
        ({"current": "maybe"}, "current"),
        ({"extra": "1"}, "extra"),
    ],
)
def test_bad_fields_say_which(fields: dict[str, str], where: str) -> None:
    team = make_team()

    response = _upload(team.client("editor"), team.pipeline.pk, savepoint_bytes(), **fields)

    assert response.status_code == 400
    assert where in response.json()["error"]["fields"]
    assert Savepoint.objects.count() == 0


def test_a_second_file_field_is_refused() -> None:
    team = make_team()
    body = {
        "file": SimpleUploadedFile("_metadata", savepoint_bytes()),
        "other": SimpleUploadedFile("x", b"x"),
        "label": "two files",
    }

    response = team.client("editor").post(
        f"/api/pipelines/{team.pipeline.pk}/savepoints/", body, format="multipart"
    )

    assert response.status_code == 400
    assert "other" in response.json()["error"]["fields"]


def test_another_workspace_never_sees_the_savepoints() -> None:
    team = make_team()
    savepoint = make_savepoint(pipeline=team.pipeline)
    client = client_for(make_user(username="stranger"))
    base = f"/api/pipelines/{team.pipeline.pk}/savepoints/"

    assert client.get(base).status_code == 404
    assert client.get(f"{base}{savepoint.pk}/").status_code == 404
    assert _upload(client, team.pipeline.pk, savepoint_bytes()).status_code == 404


def test_the_wire_names_every_kind_of_state() -> None:
    assert get_args(StateKindName) == tuple(kind.value for kind in StateKind)
