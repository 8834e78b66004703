"""A request whose Host this server does not answer to is refused before any view: under
/api/ in the one JSON error shape, like every other refusal there."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]


@pytest.mark.parametrize("path", ["/api/health/", "/api/pipelines/", "/api/nowhere/"])
def test_a_foreign_host_under_the_api_gets_the_json_error_shape(path: str) -> None:
    response = Client().get(path, HTTP_HOST="attacker.example")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert error["code"] == "disallowed-host"
    assert "'attacker.example'" in error["message"]


def test_a_foreign_host_elsewhere_gets_djangos_page() -> None:
    response = Client().get("/pipelines/1", HTTP_HOST="attacker.example")

    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
