"""Ids and numbers beyond what the database holds, and unknown API paths: a JSON 404 or
400 that says what, never a 500 or an HTML page."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.backend.factories import Team, make_team

pytestmark = pytest.mark.django_db

HUGE = 10**22
BEYOND_64_BITS = 2**63


def _error(response: Any) -> dict[str, Any]:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    error: dict[str, Any] = response.json()["error"]
    return error


def _routes(patterns: list[URLPattern | URLResolver] | None = None, prefix: str = "") -> list[str]:
    """Every route under /api/ with an id in its path, as Django declares it."""
    found = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            found += _routes(entry.url_patterns, route)
        elif "<id:" in route:
            found.append(route)
    return found


ID_ROUTES = _routes()


def test_every_id_route_is_covered() -> None:
    # The API's routes with ids, so a new route cannot slip past the tests below.
    assert len(ID_ROUTES) == 32
    assert all(route.startswith("api/") for route in ID_ROUTES)


@pytest.mark.parametrize("route", ID_ROUTES)
@pytest.mark.parametrize("number", [HUGE, BEYOND_64_BITS])
@pytest.mark.parametrize("method", ["get", "post", "patch", "delete"])
def test_an_id_beyond_64_bits_is_404_on_every_route(route: str, number: int, method: str) -> None:
    team = make_team()
    path = "/" + re.sub(r"<id:\w+>", str(number), route)

    response = getattr(team.client("owner"), method)(path, {}, format="json")

    assert response.status_code == 404
    assert _error(response)["code"] == "not-found"


def test_the_largest_64_bit_id_is_simply_not_found() -> None:
    response = make_team().client("owner").get(f"/api/workspaces/{2**63 - 1}/members/1/")

    assert response.status_code == 404
    assert _error(response)["message"] == "Workspace not found."


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/api/pipelines/?workspace={n}", None),
        ("get", "/api/pipelines/{p}/plan/?version={n}", None),
        ("get", "/api/pipelines/{p}/export/?version={n}", None),
        ("get", "/api/pipelines/{p}/diff/?from={n}", None),
        ("post", "/api/pipelines/", {"workspace": "{n}", "name": "x"}),
        ("post", "/api/pipelines/import/", {"workspace": "{n}", "content": {}}),
        ("patch", "/api/pipelines/{p}/", {"revision": "{n}"}),
        ("post", "/api/pipelines/{p}/runs/", {"version": "{n}"}),
        (
            "post",
            "/api/pipelines/{p}/comments/",
            {"version": "{n}", "target": {"kind": "pipeline"}, "body": "x"},
        ),
        ("get", "/api/pipelines/{p}/comments/?at={n}", None),
        ("post", "/api/me/mentions/read/", {"mentions": ["{n}"]}),
    ],
)
def test_a_number_beyond_64_bits_in_a_query_or_body_is_400(
    method: str, path: str, body: dict[str, Any] | None
) -> None:
    team = make_team()
    url = path.format(n=HUGE, p=team.pipeline.pk)
    data = None if body is None else json.loads(json.dumps(body).replace('"{n}"', str(HUGE)))

    response = getattr(team.client("owner"), method)(url, data, format="json")

    assert response.status_code == 400, response.content[:300]
    assert _error(response)["code"] == "invalid-request"


# Unknown paths ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", ["/api/nope/", "/api/nope", "/api/workspaces/x/"])
def test_unknown_api_paths_are_a_json_404_whatever_cookies_come(method: str, path: str) -> None:
    # A session cookie without a CSRF token made Django answer an HTML 403 page.
    client = Client(enforce_csrf_checks=True)
    client.cookies["sessionid"] = "not-a-session"
    client.cookies["csrftoken"] = "x" * 32

    response = client.generic(method, path, "{}", content_type="application/json")

    assert response.status_code == 404
    assert _error(response)["code"] == "not-found"


def test_a_missing_slash_is_named_not_redirected() -> None:
    team: Team = make_team()

    response = team.client("viewer").get("/api/workspaces")

    assert response.status_code == 404
    assert _error(response)["message"].endswith("API paths end with a slash: /api/workspaces/")


# What the schema says is what the server takes -------------------------------------------


def test_a_number_where_the_schema_says_text_is_refused() -> None:
    response = make_team().client("owner").post("/api/workspaces/", {"name": "x", "slug": 0})

    assert response.status_code == 400
    assert _error(response)["fields"] == {"slug": ["Not a valid string."]}


def test_an_unknown_body_field_is_named_not_ignored() -> None:
    team = make_team()

    response = team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"name": "x", "nmae": "typo"}, format="json"
    )

    assert response.status_code == 400
    assert _error(response)["fields"] == {"nmae": ["This request has no such field."]}


def test_an_empty_query_parameter_is_named() -> None:
    team = make_team()

    response = team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/plan/?version=")

    assert response.status_code == 400
    assert _error(response)["fields"] == {"version": ["Give a value, or leave the parameter out."]}


def test_request_bodies_are_closed_in_the_schema() -> None:
    schema = Client().get("/api/schema/?format=json").json()
    requests = {
        name: component
        for name, component in schema["components"]["schemas"].items()
        if name.endswith("Request")
    }

    assert len(requests) >= 10
    assert all(component["additionalProperties"] is False for component in requests.values())
    # The bases' notes for developers are not the bodies' descriptions.
    assert not any("retired_fields" in c.get("description", "") for c in requests.values())
