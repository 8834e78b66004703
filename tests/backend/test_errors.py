"""The one error shape: malformed JSON, invalid and oversize documents, and nothing changes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.test import APIClient

from compiler.diagnostics import Diagnostic, Location
from config.errors import DocumentRejected, error_payload, error_status
from pipelines.models import Pipeline
from tests.backend.factories import Team, make_document, make_team

pytestmark = pytest.mark.django_db

SHAPE = {"code", "message", "diagnostics", "fields"}


def _error(response: Any) -> dict[str, Any]:
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == SHAPE
    error: dict[str, Any] = body["error"]
    return error


def _snapshot(team: Team) -> tuple[str, Any, int, Any]:
    pipeline = Pipeline.objects.get(pk=team.pipeline.pk)
    return (pipeline.name, pipeline.document, pipeline.revision, pipeline.updated_at)


def _patch_raw(team: Team, body: str | bytes) -> Any:
    return team.client("editor").generic(
        "PATCH", f"/api/pipelines/{team.pipeline.pk}/", body, content_type="application/json"
    )


@pytest.mark.parametrize("body", ["{nope", '{"name": "x",}', "", "[1, 2", "\x00"])
def test_malformed_json_is_400_malformed_json(body: str) -> None:
    team = make_team()
    before = _snapshot(team)

    response = _patch_raw(team, body or "{")

    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == "malformed-json"
    assert error["message"].startswith("The request body is not valid JSON")
    assert "byte offset" in error["message"]
    assert _snapshot(team) == before


def test_a_body_that_is_not_an_object_names_the_problem() -> None:
    team = make_team()

    response = _patch_raw(team, "[1, 2]")

    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == "invalid-request"
    assert "non_field_errors" in error["fields"]


def test_an_unreadable_document_is_400_with_located_diagnostics_and_nothing_changes() -> None:
    team = make_team()
    before = _snapshot(team)
    document = make_document()
    document["edges"][1]["target"] = 99
    document["nodes"][2]["parallelism"] = "four"

    response = team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"name": "Renamed", "document": document}
    )

    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == "invalid-document"
    assert error["message"].startswith("The document has 2 errors: ")
    located = {(d["code"], d["node"], d["edge"], d["field"]) for d in error["diagnostics"]}
    assert ("edge.unknown-node", None, 1, "target") in located
    assert ("field.type", 3, None, "parallelism") in located
    assert all(d["severity"] == "error" for d in error["diagnostics"])
    assert _snapshot(team) == before


def test_an_invalid_document_on_create_stores_no_pipeline() -> None:
    team = make_team()

    response = team.client("editor").post(
        "/api/pipelines/",
        {"workspace": team.workspace.pk, "name": "Broken", "document": {"nodes": "many"}},
    )

    assert response.status_code == 400
    assert _error(response)["code"] == "invalid-document"
    assert Pipeline.objects.count() == 1


def test_field_errors_are_listed_per_field() -> None:
    team = make_team()

    response = team.client("editor").post(
        "/api/pipelines/", {"workspace": "first", "name": "", "document": None}
    )

    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == "invalid-request"
    assert set(error["fields"]) == {"workspace", "name", "document"}
    assert error["message"].startswith("workspace: ")


def _nodes(count: int) -> list[dict[str, Any]]:
    return [{"id": i, "name": f"Map {i}", "operator": "map"} for i in range(1, count + 1)]


def test_more_nodes_than_allowed_is_document_too_large() -> None:
    team = make_team()
    before = _snapshot(team)
    limit = settings.PIPELINE_MAX_NODES
    document = {**make_document(), "nodes": _nodes(limit + 1), "edges": []}

    response = team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"document": document}
    )

    assert limit == 5000
    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == "document-too-large"
    assert error["message"] == "The document has 5001 nodes; at most 5000 are allowed."
    assert error["diagnostics"][0]["field"] == "nodes"
    assert _snapshot(team) == before


def test_more_edges_than_allowed_is_document_too_large() -> None:
    limit = settings.PIPELINE_MAX_EDGES
    edge = {"source": 1, "target": 2, "partitioner": "FORWARD"}
    document = {**make_document(), "nodes": _nodes(2), "edges": [edge] * (limit + 1)}

    response = make_team().client("viewer").post("/api/compile/", document)

    assert limit == 20000
    assert response.status_code == 400
    assert _error(response)["code"] == "document-too-large"


def test_exactly_the_limit_is_accepted() -> None:
    document = {**make_document(), "nodes": _nodes(settings.PIPELINE_MAX_NODES), "edges": []}

    response = make_team().client("viewer").post("/api/compile/", document)

    assert response.status_code == 200


def test_a_body_over_5_mb_is_refused_before_parsing() -> None:
    team = make_team()
    before = _snapshot(team)
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    padding = "x" * limit
    body = json.dumps({"name": "Huge", "document": {**make_document(), "padding": padding}})

    response = _patch_raw(team, body)

    assert limit == 5 * 1024 * 1024
    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == "document-too-large"
    assert "5 MB" in error["message"]
    assert _snapshot(team) == before


def test_a_body_within_5_mb_is_parsed() -> None:
    team = make_team()
    padding = "x" * (4 * 1024 * 1024)
    document = {**make_document(), "meta": {"notes": padding}}

    response = team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"document": document}
    )

    assert response.status_code == 200


def test_other_media_types_are_415() -> None:
    team = make_team()

    response = team.client("editor").generic(
        "PATCH", f"/api/pipelines/{team.pipeline.pk}/", "name=x", content_type="text/plain"
    )

    assert response.status_code == 415
    assert _error(response)["code"] == "unsupported-media-type"


def test_wrong_method_is_405_in_the_shape() -> None:
    response = make_team().client("viewer").put("/api/compile/", {})

    assert response.status_code == 405
    assert _error(response)["code"] == "method-not-allowed"


def test_unknown_api_paths_are_404_in_the_shape() -> None:
    response = make_team().client("viewer").get("/api/pipelines/1/nothing-here/")

    assert response.status_code == 404
    assert _error(response)["code"] == "not-found"


def test_error_payload_is_shared_with_other_transports() -> None:
    rejected = DocumentRejected(
        [Diagnostic("node.name", "a node needs a non-empty 'name'", Location(node=3, field="name"))]
    )

    assert error_status(rejected) == 400
    assert error_payload(rejected) == {
        "error": {
            "code": "invalid-document",
            "message": "The document has 1 error: node 3, field 'name': "
            "a node needs a non-empty 'name'",
            "diagnostics": [
                {
                    "code": "node.name",
                    "severity": "error",
                    "message": "a node needs a non-empty 'name'",
                    "node": 3,
                    "edge": None,
                    "field": "name",
                }
            ],
            "fields": {},
        }
    }
    assert error_payload(DjangoValidationError({"name": ["Too long."]}))["error"]["fields"] == {
        "name": ["Too long."]
    }
    assert error_status(RuntimeError("boom")) == 500
    assert error_payload(RuntimeError("secret detail"))["error"] == {
        "code": "internal-error",
        "message": "Internal server error.",
        "diagnostics": [],
        "fields": {},
    }


def test_anonymous_compile_is_401_not_a_compile() -> None:
    response = APIClient().post("/api/compile/", make_document())

    assert response.status_code == 401
    assert _error(response)["code"] == "not-authenticated"
