"""The operator catalog at /api/operators/: the runtime's, cacheable by the browser."""

from __future__ import annotations

import pytest

from runtime.catalog import catalog_document
from tests.backend.factories import client_for, make_user

pytestmark = pytest.mark.django_db


def test_the_catalog_is_the_runtimes() -> None:
    response = client_for(make_user()).get("/api/operators/")

    assert response.status_code == 200
    assert response.json() == catalog_document()
    assert response.json()["format"] == "catalog/v1"
    assert response["Cache-Control"] == "private, max-age=300, must-revalidate"
    assert response["ETag"].startswith('"')


def test_the_catalog_is_revalidated_by_its_etag() -> None:
    client = client_for(make_user())
    etag = client.get("/api/operators/")["ETag"]

    again = client.get("/api/operators/", headers={"If-None-Match": etag})
    other = client.get("/api/operators/", headers={"If-None-Match": '"something-else"'})

    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    assert other.status_code == 200
