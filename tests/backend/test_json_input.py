"""JSON from outside is read through one bounded reader: deep nesting and non-finite
numbers are a 400 saying where (byte offset), documents are held to one byte limit."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from pipelines.models import Pipeline
from tests.backend.factories import make_document, make_team

pytestmark = pytest.mark.django_db


def _error(response: Any) -> dict[str, Any]:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    error: dict[str, Any] = response.json()["error"]
    return error


def _nested(depth: int) -> str:
    return '{"name": ' + "[" * depth + "]" * depth + "}"


ANONYMOUS_ENDPOINTS = ["/api/auth/register/", "/api/auth/token/"]


@pytest.mark.parametrize("path", ANONYMOUS_ENDPOINTS)
def test_deep_nesting_is_refused_before_parsing_even_anonymously(path: str) -> None:
    body = _nested(1_000)  # about 2 KB

    response = APIClient().generic("POST", path, body, content_type="application/json")

    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == "malformed-json"
    assert "deeper than 64 levels" in error["message"]
    # The object is level 1: level 65 is the 64th bracket, after the 9 characters before it.
    assert "byte offset 72" in error["message"]
    assert len(response.content) < 1_000


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/compile/"),
        ("POST", "/api/pipelines/"),
        ("PATCH", "/api/pipelines/{p}/"),
        ("POST", "/api/pipelines/import/"),
        ("POST", "/api/pipelines/{p}/versions/"),
        ("POST", "/api/pipelines/{p}/runs/"),
        ("POST", "/api/workspaces/"),
        ("PATCH", "/api/workspaces/{w}/"),
        ("POST", "/api/workspaces/{w}/members/"),
    ],
)
def test_deep_nesting_is_400_on_every_json_endpoint(method: str, path: str) -> None:
    team = make_team()
    before = Pipeline.objects.get(pk=team.pipeline.pk).document
    url = path.format(p=team.pipeline.pk, w=team.workspace.pk)

    response = team.client("owner").generic(
        method, url, _nested(1_000), content_type="application/json"
    )

    assert response.status_code == 400
    assert _error(response)["code"] == "malformed-json"
    assert Pipeline.objects.get(pk=team.pipeline.pk).document == before


def test_nesting_within_the_limit_is_read() -> None:
    team = make_team()
    document = {**make_document(), "meta": {"deep": json.loads("[" * 50 + "]" * 50)}}

    response = team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"document": document}, format="json"
    )

    assert response.status_code == 200


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    team = make_team()
    document = {**make_document(), "meta": {"text": "[" * 5_000 + "{" * 5_000}}

    response = team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"document": document}, format="json"
    )

    assert response.status_code == 200


def test_an_imported_text_nested_too_deep_is_refused_with_its_offset() -> None:
    team = make_team()
    content = '{"format": "streamgraph/v1", "nodes": ' + "[" * 200 + "]" * 200 + "}"

    response = team.client("editor").post(
        "/api/pipelines/import/",
        {"workspace": team.workspace.pk, "content": content},
        format="json",
    )

    assert response.status_code == 400
    error = _error(response)
    assert error["diagnostics"][0]["code"] == "import.not-json"
    assert "deeper than 64 levels" in error["message"]
    assert "byte offset" in error["message"]


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_are_refused_with_their_offset(constant: str) -> None:
    team = make_team()
    before = Pipeline.objects.get(pk=team.pipeline.pk).document
    body = '{"document": {"format": "streamgraph/v1", "x": ' + constant + "}}"

    response = team.client("editor").generic(
        "PATCH", f"/api/pipelines/{team.pipeline.pk}/", body, content_type="application/json"
    )

    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == "malformed-json"
    assert constant.lstrip("-") in error["message"]
    assert f"byte offset {body.index(constant)}" in error["message"]
    assert Pipeline.objects.get(pk=team.pipeline.pk).document == before


def test_a_document_beyond_the_byte_limit_is_refused(settings: Any) -> None:
    settings.PIPELINE_MAX_DOCUMENT_BYTES = 2_000
    team = make_team()
    document = {**make_document(), "meta": {"notes": "x" * 2_000}}

    response = team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"document": document}, format="json"
    )

    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == "document-too-large"
    assert "at most 2,000 bytes" in error["message"]
