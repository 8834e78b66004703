"""Token and session authentication; anonymous requests are 401 with a challenge."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.backend.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db


def test_token_for_username_and_password() -> None:
    user = make_user(username="alice")

    response = APIClient().post(
        "/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json"
    )

    assert response.status_code == 200
    assert response.json() == {"token": Token.objects.get(user=user).key}


def test_the_same_token_is_returned_every_time() -> None:
    make_user(username="alice")
    client = APIClient()
    body = {"username": "alice", "password": PASSWORD}

    first = client.post("/api/auth/token/", body, format="json").json()["token"]
    second = client.post("/api/auth/token/", body, format="json").json()["token"]

    assert first == second


@pytest.mark.parametrize(
    "body",
    [{"username": "alice", "password": "wrong"}, {"username": "nobody", "password": PASSWORD}],
)
def test_wrong_credentials_are_400_invalid_credentials(body: dict[str, str]) -> None:
    make_user(username="alice")

    response = APIClient().post("/api/auth/token/", body, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-credentials"
    assert not Token.objects.exists()


def test_missing_fields_are_named() -> None:
    response = APIClient().post("/api/auth/token/", {"username": "alice"}, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid-request"
    assert set(error["fields"]) == {"password"}


def test_token_authenticates_requests() -> None:
    user = make_user(username="alice")
    token = APIClient().post(
        "/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json"
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")

    response = client.get("/api/workspaces/")

    assert response.status_code == 200
    assert response.wsgi_request.user == user


def test_session_authenticates_requests() -> None:
    make_user(username="alice")
    client = APIClient()
    assert client.login(username="alice", password=PASSWORD)

    assert client.get("/api/workspaces/").status_code == 200


def test_session_writes_need_the_csrf_token() -> None:
    make_user(username="alice")
    client = APIClient(enforce_csrf_checks=True)
    assert client.login(username="alice", password=PASSWORD)

    response = client.post("/api/workspaces/", {"name": "Team"}, format="json")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission-denied"


def test_anonymous_is_401_with_a_token_challenge() -> None:
    response = APIClient().get("/api/workspaces/")

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json() == {
        "error": {
            "code": "not-authenticated",
            "message": "Authentication credentials were not provided.",
            "diagnostics": [],
            "fields": {},
        }
    }


def test_unknown_token_is_401_authentication_failed() -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")

    response = client.get("/api/workspaces/")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication-failed"
