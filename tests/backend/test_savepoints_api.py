"""A pipeline's savepoints over REST: upload a real `_metadata`, list, read its operators,
relabel and mark current, delete; bad and oversized files refused with where and why."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any, get_args

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from compiler.hashing import to_hex
from compiler.pipeline import compile_document
from compiler.state.savepoint import StateKind, read_savepoint
from pipelines.models import Pipeline
from savepoints.events import StateKindName
from savepoints.models import Savepoint
from tests.backend.factories import (
    PASSWORD,
    SAVEPOINTS,
    Team,
    client_for,
    make_pipeline,
    make_savepoint,
    make_team,
    make_user,
    make_workspace,
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


def _session_upload(team: Team) -> Any:
    """An editor's upload through the browser's session, CSRF token and all."""
    client = APIClient(enforce_csrf_checks=True)
    assert client.login(username="eddie", password=PASSWORD)
    client.cookies["csrftoken"] = "c" * 32
    body = {"file": SimpleUploadedFile("_metadata", savepoint_bytes()), "label": "session"}
    return client.post(
        f"/api/pipelines/{team.pipeline.pk}/savepoints/",
        body,
        format="multipart",
        HTTP_X_CSRFTOKEN="c" * 32,
    )


def test_a_session_upload_is_held_to_the_limit_too(settings: Any) -> None:
    # Session authentication reads a POST body for its CSRF check, before the view runs.
    settings.SAVEPOINT_MAX_BYTES = 1000
    response = _session_upload(make_team())

    assert response.status_code == 413, response.content[:300]
    assert response.json()["error"]["code"] == "upload-too-large"
    assert Savepoint.objects.count() == 0


def test_a_session_upload_within_the_limit_is_stored() -> None:
    response = _session_upload(make_team())

    assert response.status_code == 201, response.content[:300]
    assert bytes(Savepoint.objects.get().data) == savepoint_bytes()


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


def test_an_unknown_writer_version_is_named_in_its_field() -> None:
    team = make_team()
    savepoint = make_savepoint(pipeline=team.pipeline)
    client = team.client("editor")

    uploaded = _upload(client, team.pipeline.pk, savepoint_bytes(), writtenBy="99")
    patched = client.patch(
        f"/api/pipelines/{team.pipeline.pk}/savepoints/{savepoint.pk}/",
        {"writtenBy": 99},
        format="json",
    )

    for response in (uploaded, patched):
        assert response.status_code == 400, response.content[:300]
        error = response.json()["error"]
        assert error["fields"]["writtenBy"] == ["The pipeline has no version 99."]
    assert Savepoint.objects.count() == 1
    savepoint.refresh_from_db()
    assert savepoint.written_by is None


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


def _case(name: str) -> dict[str, Any]:
    return json.loads((SAVEPOINTS / f"{name}.streamgraph.json").read_text())


def _restore(name: str) -> dict[str, Any]:
    return json.loads((SAVEPOINTS / f"{name}.restore.json").read_text())


def _check(client: APIClient, pipeline_id: int, savepoint_id: int, query: str = "") -> Any:
    return client.get(f"/api/pipelines/{pipeline_id}/savepoints/{savepoint_id}/check/{query}")


def test_a_viewer_checks_the_working_copy_as_flink_would_start_it() -> None:
    team = make_team()
    Pipeline.objects.filter(pk=team.pipeline.pk).update(
        snapshot=_case("counting--insert-map"), revision=7
    )
    savepoint = make_savepoint(pipeline=team.pipeline)
    expected = _restore("counting--insert-map")

    refused = _check(team.client("viewer"), team.pipeline.pk, savepoint.pk)
    allowed = _check(
        team.client("viewer"), team.pipeline.pk, savepoint.pk, "?allowNonRestoredState=true"
    )

    assert refused.status_code == 200, refused.content[:300]
    body = refused.json()
    assert body["checked"] == "working"
    assert body["revision"] == 7
    assert body["restores"] is expected["restored"] is False
    assert body["restoresAllowingNonRestoredState"] is expected["restoredAllowingNonRestoredState"]
    assert body["failure"]["operatorId"] in expected["error"]
    assert body["verdict"].startswith("Fails: state of ")
    assert body["savepoint"]["id"] == savepoint.pk
    lost = [o for o in body["operators"] if o["outcome"] == "lost"]
    assert lost and all(o["target"] is None and o["reasons"] for o in lost)
    assert allowed.json()["restores"] is True
    assert allowed.json()["verdict"].startswith("Restores")


def test_a_version_is_checked_and_explained_by_the_version_that_wrote_it() -> None:
    team = make_team()
    client = team.client("editor")
    pipeline_url = f"/api/pipelines/{team.pipeline.pk}/"
    for case in ("counting.v1", "counting--insert-map"):
        client.patch(pipeline_url, {"document": _case(case)}, format="json")
        client.post(pipeline_url + "versions/", {"message": case}, format="json")
    uploaded = _upload(client, team.pipeline.pk, savepoint_bytes(), writtenBy="2").json()
    assert uploaded["writtenBy"] == 2

    same = _check(client, team.pipeline.pk, uploaded["id"], "?version=2").json()
    changed = _check(client, team.pipeline.pk, uploaded["id"], "?version=3").json()

    assert same["restores"] is True
    assert same["checked"] == 2
    assert same["revision"] is None
    assert changed["restores"] is False
    assert changed["comparedWith"] == 2
    lost = next(o for o in changed["operators"] if o["outcome"] == "lost")
    assert any("uidHash" in reason for reason in lost["reasons"])
    # Sum was node 5 and is node 6 after the inserted map: that one should take it over.
    assert (lost["name"], lost["suggestedNode"]) == ("Sum", 6)
    assert all(o["suggestedNode"] is None for o in changed["operators"] if o is not lost)


def test_a_version_that_does_not_compile_has_nothing_to_check() -> None:
    team = make_team()
    document = _case("counting.v1")
    document["edges"].append({"source": 3, "target": 2, "partitioner": "FORWARD"})
    Pipeline.objects.filter(pk=team.pipeline.pk).update(snapshot_revision=None, snapshot=document)
    savepoint = make_savepoint(pipeline=team.pipeline)

    response = _check(team.client("viewer"), team.pipeline.pk, savepoint.pk)

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "plan-not-compiled"
    assert error["message"].startswith("The working copy does not compile")
    assert error["diagnostics"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?version=0", "version"),
        ("?version=x", "version"),
        ("?allowNonRestoredState=1", "allowNonRestoredState"),
    ],
)
def test_bad_check_queries_say_which_parameter(query: str, field: str) -> None:
    team = make_team()
    savepoint = make_savepoint(pipeline=team.pipeline)

    response = _check(team.client("viewer"), team.pipeline.pk, savepoint.pk, query)

    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_an_unknown_version_is_not_found() -> None:
    team = make_team()
    savepoint = make_savepoint(pipeline=team.pipeline)

    response = _check(team.client("viewer"), team.pipeline.pk, savepoint.pk, "?version=99")

    assert response.status_code == 404


def _vertex_of(document: dict[str, Any], name: str) -> str:
    compilation = compile_document(document)
    assert compilation.job_graph is not None
    return next(to_hex(v.id) for v in compilation.job_graph.vertices if name in v.name)


def test_a_rescale_is_checked_against_the_savepoint() -> None:
    # Max parallelism 4 set explicitly: rescaling the keyed vertex within it restores; past
    # it Flink does not even build the job (as real Flink did: small-max--*).
    team = make_team()
    document = _case("small-max.v1")
    Pipeline.objects.filter(pk=team.pipeline.pk).update(snapshot_revision=None, snapshot=document)
    savepoint = make_savepoint(pipeline=team.pipeline, case="small-max")
    vertex = _vertex_of(document, "Sum")
    client = team.client("viewer")

    within = _check(
        client, team.pipeline.pk, savepoint.pk, f"?vertex={vertex.upper()}&parallelism=3"
    )
    beyond = _check(client, team.pipeline.pk, savepoint.pk, f"?vertex={vertex}&parallelism=8")

    assert within.status_code == 200
    assert within.json()["rescale"] == {"vertex": vertex, "parallelism": 3}
    assert within.json()["restores"] is True
    assert beyond.status_code == 409
    message = beyond.json()["error"]["message"]
    assert message.startswith(f"The working copy with JobVertex {vertex} at parallelism 8 does not")
    assert "parallelism (8) is higher than the max parallelism (4)" in message


def _wide_keyed_job(vertices: int) -> dict[str, Any]:
    """A source and a chain of keyed reduces, one vertex each, max parallelism 32768."""
    nodes: list[dict[str, Any]] = [
        {"id": 1, "name": "Source", "operator": "source", "params": {}, "factory": "SOURCE"}
    ]
    edges = []
    for node in range(2, vertices + 1):
        nodes.append({"id": node, "name": f"Sum {node}", "operator": "reduce", "params": {}})
        edges.append(
            {"source": node - 1, "target": node, "partitioner": "HASH", "key": {"fn": "x"}}
        )
    return {
        "format": "streamgraph/v1",
        "name": "wide",
        "config": {"defaultParallelism": 2, "maxParallelism": 32768},
        "nodes": nodes,
        "edges": edges,
    }


def test_a_check_at_the_widest_parallelism_answers_at_once() -> None:
    # A viewer chooses the parallelism: the check builds the rescaled job, never every
    # subtask's key groups (50 vertices x 32768 subtasks took over half a minute).
    team = make_team()
    Pipeline.objects.filter(pk=team.pipeline.pk).update(
        snapshot_revision=None, snapshot=_wide_keyed_job(50)
    )
    savepoint = make_savepoint(pipeline=team.pipeline)

    started = time.monotonic()
    response = _check(team.client("viewer"), team.pipeline.pk, savepoint.pk, "?parallelism=32768")

    assert response.status_code == 200, response.content[:300]
    assert response.json()["rescale"] == {"vertex": None, "parallelism": 32768}
    assert time.monotonic() - started < 5


def test_a_vertex_without_a_parallelism_is_refused() -> None:
    team = make_team()
    savepoint = make_savepoint(pipeline=team.pipeline)

    response = _check(team.client("viewer"), team.pipeline.pk, savepoint.pk, "?vertex=" + "a" * 32)

    assert response.status_code == 400
    assert "parallelism" in response.json()["error"]["fields"]


def test_a_stored_savepoint_this_reader_refuses_gives_a_conflict_not_an_error() -> None:
    """Stored by a reader that accepted more than this one does (simulated by storing the
    row directly): every page that reads it says so, and the savepoint can still be listed
    and deleted."""
    team = make_team()
    data = savepoint_bytes()[:100]
    stored = Savepoint.objects.create(
        pipeline=team.pipeline,
        label="from last year",
        data=data,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        format_version=3,
        checkpoint_id=1,
        operator_count=2,
        is_current=True,
        uploaded_by=team.owner,
    )
    client = team.client("viewer")
    base = f"/api/pipelines/{team.pipeline.pk}"

    detail = client.get(f"{base}/savepoints/{stored.pk}/")
    check = _check(client, team.pipeline.pk, stored.pk)
    review = client.get(f"{base}/versions/1/reviews/")

    for response in (detail, check, review):
        assert response.status_code == 409, response.content[:300]
        error = response.json()["error"]
        assert error["code"] == "savepoint-unreadable"
        assert "\u201cfrom last year\u201d no longer reads (byte " in error["message"]
        assert "Delete it" in error["message"]
    listed = client.get(f"{base}/savepoints/")
    assert listed.status_code == 200
    assert [s["label"] for s in listed.json()] == ["from last year"]
    assert team.client("editor").delete(f"{base}/savepoints/{stored.pk}/").status_code == 204
    assert client.get(f"{base}/versions/1/reviews/").status_code == 200


@pytest.mark.both_databases
def test_a_pipeline_keeps_a_bounded_number_of_savepoints(settings: Any) -> None:
    settings.SAVEPOINTS_PER_PIPELINE = 2
    team = make_team()
    client = team.client("editor")
    data = savepoint_bytes()
    assert _upload(client, team.pipeline.pk, data).status_code == 201
    assert _upload(client, team.pipeline.pk, data).status_code == 201

    refused = _upload(client, team.pipeline.pk, data)

    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "savepoint-quota"
    assert "keeps 2 savepoints" in error["message"]
    assert Savepoint.objects.filter(pipeline=team.pipeline).count() == 2
    # Room made, the upload goes in.
    first = Savepoint.objects.filter(pipeline=team.pipeline).first()
    assert first is not None
    assert (
        client.delete(f"/api/pipelines/{team.pipeline.pk}/savepoints/{first.pk}/").status_code
        == 204
    )
    assert _upload(client, team.pipeline.pk, data).status_code == 201


@pytest.mark.both_databases
def test_a_workspace_keeps_a_bounded_number_of_bytes_over_its_pipelines(settings: Any) -> None:
    data = savepoint_bytes()
    settings.SAVEPOINT_BYTES_PER_WORKSPACE = 2 * len(data) + 10
    team = make_team()
    other = make_pipeline(workspace=team.workspace, created_by=team.owner)
    client = team.client("editor")
    assert _upload(client, team.pipeline.pk, data).status_code == 201
    assert _upload(client, other.pk, data).status_code == 201

    refused = _upload(client, other.pk, data)

    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "savepoint-quota"
    assert f"take {2 * len(data):,} of the {2 * len(data) + 10:,} bytes" in error["message"]
    # Another workspace has its own budget.
    stranger = make_user(username="sam")
    elsewhere = make_workspace(owner=stranger, name="Other", slug="other")
    pipeline = make_pipeline(workspace=elsewhere, created_by=stranger)
    assert _upload(client_for(stranger), pipeline.pk, data).status_code == 201
