"""Registering, tokens, sessions, who am I and signing out; anonymous requests are 401."""

from __future__ import annotations

import ipaddress
import secrets
from typing import Any

import pytest
import redis
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.test import Client, RequestFactory
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import Membership, Role, Workspace
from config.namespacing import redis_namespace
from tests.backend.factories import PASSWORD, client_for, make_user

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


# Registering -------------------------------------------------------------------------

STRONG = "quiet-harbour-lantern"


def _register(username: str = "alice", password: str = STRONG, **extra: str) -> Any:
    body = {"username": username, "password": password, **extra}
    return APIClient().post("/api/auth/register/", body, format="json")


def test_register_creates_the_user_a_token_and_an_owned_workspace() -> None:
    response = _register("alice")

    assert response.status_code == 201
    body = response.json()
    user = User.objects.get(username="alice")
    assert body == {
        "token": Token.objects.get(user=user).key,
        "user": {"id": user.pk, "username": "alice"},
    }
    assert user.check_password(STRONG)
    assert not user.is_staff and not user.is_superuser
    membership = Membership.objects.select_related("workspace").get(user=user)
    assert membership.role == Role.OWNER
    assert membership.workspace.name == "alice's workspace"


def test_the_registered_token_works_at_once() -> None:
    token = _register("alice").json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    workspaces = client.get("/api/workspaces/").json()
    created = client.post(
        "/api/pipelines/", {"workspace": workspaces[0]["id"], "name": "First"}, format="json"
    )

    assert [w["role"] for w in workspaces] == ["owner"]
    assert created.status_code == 201


def test_the_registered_password_signs_in() -> None:
    token = _register("alice").json()["token"]

    response = APIClient().post(
        "/api/auth/token/", {"username": "alice", "password": STRONG}, format="json"
    )

    assert response.json() == {"token": token}


def test_workspace_slugs_of_similar_usernames_do_not_collide() -> None:
    _register("alice")
    _register("alice.")

    slugs = sorted(Workspace.objects.values_list("slug", flat=True))

    assert slugs == ["alices-workspace", "alices-workspace-2"]


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("short1", "too short"),
        ("password123", "too common"),
        ("83749261054", "entirely numeric"),
        ("alice1234", "too similar to the username"),
    ],
)
def test_weak_passwords_are_refused_with_the_reason(password: str, message: str) -> None:
    response = _register("alice", password)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid-request"
    assert set(error["fields"]) == {"password"}
    assert any(message in text for text in error["fields"]["password"])
    assert error["message"].startswith("password: ")
    assert not User.objects.exists()


def test_a_bad_username_and_password_are_both_named() -> None:
    response = _register("not a name!", "short")

    error = response.json()["error"]
    assert response.status_code == 400
    assert set(error["fields"]) == {"username", "password"}
    assert "letters, numbers" in error["fields"]["username"][0]


@pytest.mark.parametrize("body", [{}, {"username": "alice"}, {"password": STRONG}])
def test_missing_fields_are_named_on_register(body: dict[str, str]) -> None:
    response = APIClient().post("/api/auth/register/", body, format="json")

    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"username", "password"} - set(body)


@pytest.mark.parametrize("taken", ["alice", "Alice", "ALICE"])
def test_a_taken_username_is_409_in_any_letter_case(taken: str) -> None:
    make_user(username="alice")

    response = _register(taken)

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "username-taken"
    # The field says what the message says, so the sign-up form's notice says it once.
    assert error["message"] == f"The username '{taken}' is taken."
    assert error["fields"] == {"username": [error["message"]]}
    assert User.objects.count() == 1
    assert not Workspace.objects.exists()


def test_register_ignores_a_stale_token() -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")

    response = client.post(
        "/api/auth/register/", {"username": "alice", "password": STRONG}, format="json"
    )

    assert response.status_code == 201


def test_sign_in_ignores_a_stale_token() -> None:
    make_user(username="alice")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")

    response = client.post(
        "/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json"
    )

    assert response.status_code == 200


# Who am I, and signing out ------------------------------------------------------------


def test_me_is_the_signed_in_user() -> None:
    user = make_user(username="alice")

    response = client_for(user).get("/api/auth/me/")

    assert response.status_code == 200
    assert response.json() == {"id": user.pk, "username": "alice"}


def test_me_with_a_session() -> None:
    user = make_user(username="alice")
    client = APIClient()
    assert client.login(username="alice", password=PASSWORD)

    assert client.get("/api/auth/me/").json() == {"id": user.pk, "username": "alice"}


def test_sign_out_deletes_the_token() -> None:
    user = make_user(username="alice")
    client = client_for(user)

    response = client.delete("/api/auth/token/")

    assert response.status_code == 204
    assert response.content == b""
    assert not Token.objects.filter(user=user).exists()
    again = client.get("/api/auth/me/")
    assert again.status_code == 401
    assert again.json()["error"]["code"] == "authentication-failed"


def test_signing_in_after_signing_out_gives_a_new_token() -> None:
    user = make_user(username="alice")
    client = client_for(user)
    old = Token.objects.get(user=user).key
    client.delete("/api/auth/token/")

    response = APIClient().post(
        "/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json"
    )

    assert response.json()["token"] != old


def test_sign_out_leaves_other_users_signed_in() -> None:
    alice, bob = make_user(username="alice"), make_user(username="bob")
    bobs_client = client_for(bob)

    client_for(alice).delete("/api/auth/token/")

    assert bobs_client.get("/api/auth/me/").status_code == 200


# Password guessing --------------------------------------------------------------------


@pytest.fixture
def address() -> str:
    """A client address of this test alone: counts of earlier runs stay in Redis a while."""
    return f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{secrets.randbelow(256)}"


def _sign_in(address: str, password: str) -> Any:
    body = {"username": "alice", "password": password}
    return APIClient().post("/api/auth/token/", body, format="json", REMOTE_ADDR=address)


def test_failed_sign_ins_are_limited_per_address(settings: Any, address: str) -> None:
    settings.AUTH_ATTEMPTS_PER_MINUTE = 3
    make_user(username="alice")

    failures = [_sign_in(address, "wrong-guess").status_code for _ in range(3)]
    refused = _sign_in(address, "wrong-guess")
    right_password = _sign_in(address, PASSWORD)
    elsewhere = _sign_in(f"{address}1", PASSWORD)

    assert failures == [400, 400, 400]
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "throttled"
    assert refused.json()["error"]["message"].startswith("Too many failed sign-ins")
    assert 1 <= int(refused["Retry-After"]) <= 60
    # The right password is refused too: a refusal tells a guesser nothing.
    assert right_password.status_code == 429
    assert elsewhere.status_code == 200


def test_successful_sign_ins_do_not_count(settings: Any, address: str) -> None:
    settings.AUTH_ATTEMPTS_PER_MINUTE = 2
    make_user(username="alice")

    statuses = [_sign_in(address, PASSWORD).status_code for _ in range(5)]

    assert statuses == [200] * 5


def test_registrations_are_limited_per_address(settings: Any, address: str) -> None:
    settings.AUTH_ATTEMPTS_PER_MINUTE = 2
    client = APIClient()

    def register(username: str) -> Any:
        body = {"username": username, "password": STRONG}
        return client.post("/api/auth/register/", body, format="json", REMOTE_ADDR=address)

    statuses = [register(name).status_code for name in ("alice", "bob", "carol")]

    assert statuses == [201, 201, 429]
    assert not User.objects.filter(username="carol").exists()


def test_attempt_counts_live_in_redis_under_the_namespace(settings: Any, address: str) -> None:
    settings.AUTH_ATTEMPTS_PER_MINUTE = 5
    make_user(username="alice")

    _sign_in(address, "wrong-guess")

    keys = redis.Redis.from_url(settings.REDIS_URL).keys(f"{redis_namespace()}:cache:*{address}*")
    assert len(keys) == 1


def test_a_forwarded_for_header_does_not_choose_the_counted_address(
    settings: Any, address: str
) -> None:
    # Every guess claims another address; none of them is believed.
    settings.AUTH_ATTEMPTS_PER_MINUTE = 3
    make_user(username="alice")

    def guess(n: int) -> Any:
        body = {"username": "alice", "password": "wrong-guess"}
        return APIClient().post(
            "/api/auth/token/",
            body,
            format="json",
            REMOTE_ADDR=address,
            HTTP_X_FORWARDED_FOR=f"192.0.2.{n}",
        )

    statuses = [guess(n).status_code for n in range(5)]

    assert statuses == [400, 400, 400, 429, 429]


def test_a_trusted_proxy_names_the_client(settings: Any, address: str) -> None:
    settings.AUTH_ATTEMPTS_PER_MINUTE = 2
    settings.TRUSTED_PROXIES = (ipaddress.ip_network("10.255.255.0/24"),)
    make_user(username="alice")

    def guess(client: str) -> int:
        response = APIClient().post(
            "/api/auth/token/",
            {"username": "alice", "password": "wrong-guess"},
            format="json",
            REMOTE_ADDR="10.255.255.7",
            # The client may claim anything on the left; the proxy appends what it saw.
            HTTP_X_FORWARDED_FOR=f"203.0.113.9, {client}",
        )
        return response.status_code

    assert [guess(address) for _ in range(3)] == [400, 400, 429]
    assert guess(f"{address}1") == 400  # another client behind the same proxy


def test_the_session_login_page_is_limited(settings: Any, address: str) -> None:
    settings.AUTH_ATTEMPTS_PER_MINUTE = 2
    make_user(username="alice")
    client = Client(REMOTE_ADDR=address)

    def sign_in(password: str) -> Any:
        return client.post("/api/auth/login/", {"username": "alice", "password": password})

    failures = [sign_in("wrong-guess") for _ in range(2)]
    refused = sign_in(PASSWORD)

    assert [r.status_code for r in failures] == [200, 200]  # the form again, with an error
    assert refused.status_code == 200
    assert b"Too many failed sign-ins from your address" in refused.content
    assert "_auth_user_id" not in client.session
    assert (
        Client(REMOTE_ADDR=f"{address}1")
        .post("/api/auth/login/", {"username": "alice", "password": PASSWORD})
        .status_code
        == 302
    )


def test_the_admin_login_page_is_limited(settings: Any, address: str) -> None:
    settings.AUTH_ATTEMPTS_PER_MINUTE = 2
    User.objects.create_superuser("root", password=PASSWORD)
    client = Client(REMOTE_ADDR=address)

    def sign_in(password: str) -> Any:
        return client.post("/admin/login/", {"username": "root", "password": password})

    for _ in range(2):
        sign_in("wrong-guess")
    refused = sign_in(PASSWORD)

    assert b"Too many failed sign-ins from your address" in refused.content
    assert "_auth_user_id" not in client.session


def test_the_limit_holds_for_any_caller_of_authenticate(settings: Any, address: str) -> None:
    # A sign-in page added later still goes through the backend, which refuses first.
    settings.AUTH_ATTEMPTS_PER_MINUTE = 1
    make_user(username="alice")
    request = RequestFactory().post("/", REMOTE_ADDR=address)

    assert authenticate(request, username="alice", password="wrong-guess") is None
    assert authenticate(request, username="alice", password=PASSWORD) is None
    assert authenticate(None, username="alice", password=PASSWORD) is not None
