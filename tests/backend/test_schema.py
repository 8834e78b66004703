"""The OpenAPI 3 schema and its docs page."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.serializers import UserRefSerializer
from activity.events import ActivityItem, ActivityPage
from config.messages import UserRef
from pipelines.events import RescaleSimulation
from reviews.events import CommentThread, CommentThreadPage, ReviewStates, VersionReview
from runs.events import RunDetail
from runs.models import RunStatus
from runtime.events import ExecutionState

pytestmark = pytest.mark.django_db

PATHS = {
    "/api/auth/register/",
    "/api/auth/token/",
    "/api/auth/me/",
    "/api/auth/socket-ticket/",
    "/api/workspaces/",
    "/api/workspaces/{workspace_id}/",
    "/api/workspaces/{workspace_id}/leave/",
    "/api/workspaces/{workspace_id}/members/",
    "/api/workspaces/{workspace_id}/members/{user_id}/",
    "/api/pipelines/",
    "/api/pipelines/import/",
    "/api/pipelines/{pipeline_id}/",
    "/api/pipelines/{pipeline_id}/summary/",
    "/api/pipelines/{pipeline_id}/versions/",
    "/api/pipelines/{pipeline_id}/versions/{number}/",
    "/api/pipelines/{pipeline_id}/plan/",
    "/api/pipelines/{pipeline_id}/diff/",
    "/api/pipelines/{pipeline_id}/rescale/",
    "/api/pipelines/{pipeline_id}/export/",
    "/api/pipelines/{pipeline_id}/runs/",
    "/api/runs/{run_id}/",
    "/api/runs/{run_id}/cancel/",
    "/api/runs/{run_id}/journal/",
    "/api/compile/",
    "/api/operators/",
    "/api/clusters/",
    "/api/pipelines/{pipeline_id}/comments/",
    "/api/pipelines/{pipeline_id}/comments/summary/",
    "/api/pipelines/{pipeline_id}/comments/{thread_id}/",
    "/api/pipelines/{pipeline_id}/comments/{thread_id}/replies/",
    "/api/pipelines/{pipeline_id}/comments/{thread_id}/resolve/",
    "/api/pipelines/{pipeline_id}/comments/{thread_id}/reopen/",
    "/api/pipelines/{pipeline_id}/comments/{thread_id}/{comment_id}/",
    "/api/pipelines/{pipeline_id}/reviews/",
    "/api/pipelines/{pipeline_id}/versions/{number}/reviews/",
    "/api/pipelines/{pipeline_id}/versions/{number}/reviews/{request_id}/verdicts/",
    "/api/pipelines/{pipeline_id}/versions/{number}/reviews/{request_id}/verdicts/{verdict_id}/revoke/",
    "/api/pipelines/{pipeline_id}/activity/",
    "/api/pipelines/{pipeline_id}/savepoints/",
    "/api/pipelines/{pipeline_id}/savepoints/{savepoint_id}/",
    "/api/pipelines/{pipeline_id}/savepoints/{savepoint_id}/check/",
    "/api/workspaces/{workspace_id}/review-policy/",
    "/api/me/inbox/",
    "/api/me/reviews/",
    "/api/me/mentions/",
    "/api/me/mentions/read/",
}


def test_schema_is_an_openapi_3_document_with_every_path() -> None:
    response = APIClient().get("/api/schema/?format=json")

    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert set(schema["paths"]) == PATHS
    assert {"tokenAuth", "cookieAuth"} <= set(schema["components"]["securitySchemes"])


def test_schema_describes_the_error_shape() -> None:
    schema = APIClient().get("/api/schema/?format=json").json()

    body = schema["components"]["schemas"]["ErrorBody"]
    assert set(body["properties"]) == {"code", "message", "diagnostics", "fields"}
    responses = schema["paths"]["/api/pipelines/{pipeline_id}/"]["patch"]["responses"]
    assert {"200", "400", "401", "403", "404", "409"} <= set(responses)


def test_schema_takes_shared_shapes_from_the_wire_models() -> None:
    components = APIClient().get("/api/schema/?format=json").json()["components"]["schemas"]

    detail = components["RunDetail"]
    assert set(detail["properties"]) == set(RunDetail.model_fields)
    assert components["ExecutionState"]["enum"] == [state.value for state in ExecutionState]
    assert components["RunStatus"]["enum"] == list(RunStatus.values)
    # DRF's `UserRefSerializer` is documented as the model's `UserRef`: the two must agree.
    assert set(UserRefSerializer().fields) == set(UserRef.model_fields)
    assert set(components["UserRef"]["properties"]) == set(UserRef.model_fields)


def test_review_bodies_come_from_the_wire_models() -> None:
    components = APIClient().get("/api/schema/?format=json").json()["components"]["schemas"]

    for model in (CommentThread, CommentThreadPage, VersionReview, ReviewStates, ActivityPage):
        assert set(components[model.__name__]["properties"]) == set(model.model_fields)
    items = components["ActivityPage"]["properties"]["items"]["items"]
    assert items["discriminator"]["propertyName"] == "kind"
    union = get_args(ActivityItem)[0]
    assert [one["$ref"].rsplit("/", 1)[1] for one in items["oneOf"]] == [
        model.__name__ for model in get_args(union)
    ]
    assert components["AnchorKind"]["enum"] == ["pipeline", "node", "edge", "vertex"]


def test_the_rescale_body_comes_from_its_wire_model() -> None:
    schema = APIClient().get("/api/schema/?format=json").json()

    components = schema["components"]["schemas"]
    assert set(components["RescaleSimulation"]["properties"]) == set(RescaleSimulation.model_fields)
    operation = schema["paths"]["/api/pipelines/{pipeline_id}/rescale/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"version", "vertex", "parallelism"}
    assert {"200", "400", "401", "404", "409"} <= set(operation["responses"])


def test_docs_page_answers() -> None:
    response = APIClient().get("/api/docs/")

    assert response.status_code == 200
    assert b"swagger" in response.content.lower()


def test_schema_validates_without_warnings(tmp_path: Path) -> None:
    target = tmp_path / "schema.yaml"

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))

    assert target.read_text("utf-8").startswith("openapi: 3.")
