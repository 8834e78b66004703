"""Open sockets follow their user's access at once: a demoted editor's socket turns
read-only and is told so, a removed or signed-out user's sockets close with the documented
code, and the edit service checks the role itself, whatever the socket believes.

Through the full ASGI stack, the real Redis channel layer and the real database; access is
changed the ways a user changes it (the services, REST, the session sign-out) and the ways
an operator does (the admin's saves, deleting rows)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client as HttpClient
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

import accounts.sockets
from accounts.models import Membership, Role
from accounts.services import (
    membership_change,
    membership_leave,
    membership_remove,
    workspace_delete,
)
from accounts.websocket_auth import origin_allowed
from config.asgi import application
from pipelines.access import PipelineAccess, pipeline_access
from pipelines.editing import pipeline_apply_edit
from pipelines.models import Pipeline
from runs.models import RunStatus
from tests.backend.factories import Team, client_for, make_team
from tests.backend.runs_support import make_run, make_runnable_version
from tests.backend.sockets import open_socket, run

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 5


class Socket:
    """One connection and what it received."""

    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.communicator = communicator

    async def receive(self, message_type: str) -> dict[str, Any]:
        while True:
            output = await self.communicator.receive_output(timeout=TIMEOUT)
            assert output["type"] == "websocket.send", output
            message = json.loads(output["text"])
            if message["type"] == message_type:
                return message

    async def closed_with(self) -> int:
        """The close code the server ends the socket with (what came before is skipped)."""
        while True:
            output = await self.communicator.receive_output(timeout=TIMEOUT)
            if output["type"] == "websocket.close":
                return int(output["code"])

    async def send(self, message: dict[str, Any]) -> None:
        await self.communicator.send_to(text_data=json.dumps(message))

    async def edit(self, op_id: str, base: int, edit: dict[str, Any]) -> dict[str, Any]:
        await self.send({"type": "edit", "opId": op_id, "baseRevision": base, "edit": edit})
        while True:
            message = await self.receive_any()
            if message.get("opId") == op_id:
                return message

    async def receive_any(self) -> dict[str, Any]:
        output = await self.communicator.receive_output(timeout=TIMEOUT)
        assert output["type"] == "websocket.send", output
        message: dict[str, Any] = json.loads(output["text"])
        return message

    async def hears_nothing(self) -> bool:
        return bool(await self.communicator.receive_nothing(timeout=0.3))


async def _token(user: User) -> str:
    token, _ = await database_sync_to_async(Token.objects.get_or_create)(user=user)
    return str(token.key)


async def open_pipeline(team: Team, role: str, *, headers: Any = None) -> Socket:
    user = team.user(role)
    assert user is not None
    if not headers:
        headers = [(b"authorization", f"Token {await _token(user)}".encode())]
    communicator = WebsocketCommunicator(
        application, f"/ws/pipelines/{team.pipeline.pk}/", headers=headers
    )
    opened, code = await open_socket(communicator)
    assert opened, code
    socket = Socket(communicator)
    await socket.receive("snapshot")
    return socket


async def open_run(team: Team, role: str, run_id: int) -> Socket:
    user = team.user(role)
    assert user is not None
    headers = [(b"authorization", f"Token {await _token(user)}".encode())]
    communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/", headers=headers)
    opened, code = await open_socket(communicator)
    assert opened, code
    socket = Socket(communicator)
    await socket.receive("snapshot")
    return socket


def set_name(value: str) -> dict[str, Any]:
    return {"kind": "set_field", "element": "node", "nodeId": 2, "field": "name", "value": value}


async def stored_revision(team: Team) -> int:
    pipeline = await database_sync_to_async(Pipeline.objects.get)(pk=team.pipeline.pk)
    return pipeline.revision


@pytest.fixture
def team() -> Team:
    return make_team()


# Roles -----------------------------------------------------------------------------------


def test_a_demoted_editor_turns_read_only_and_is_told(team: Team) -> None:
    async def scenario() -> None:
        eddie = await open_pipeline(team, "editor")
        olivia = await open_pipeline(team, "owner")
        assert (await eddie.edit("before", 0, set_name("A")))["type"] == "edit_applied"
        await database_sync_to_async(membership_change)(
            workspace=team.workspace, actor=team.owner, user_id=team.editor.pk, role=Role.VIEWER
        )
        told = await eddie.receive("access_changed")
        assert told["canEdit"] is False and told["you"]["role"] == "viewer"
        while (seen := await olivia.receive("presence"))["client"]["role"] != "viewer":
            pass
        assert seen["client"]["user"]["username"] == "eddie"
        rejected = await eddie.edit("after", 1, set_name("B"))
        assert rejected["type"] == "edit_rejected" and rejected["reason"] == "forbidden"
        assert await stored_revision(team) == 1
        # A viewer still reads: the socket stays open and follows everyone's edits.
        assert (await olivia.edit("owner", 1, set_name("C")))["type"] == "edit_applied"
        assert (await eddie.receive("edit_applied"))["revision"] == 2

    run(scenario)


def test_a_promoted_viewer_may_edit_at_once(team: Team) -> None:
    async def scenario() -> None:
        vera = await open_pipeline(team, "viewer")
        await database_sync_to_async(membership_change)(
            workspace=team.workspace, actor=team.owner, user_id=team.viewer.pk, role=Role.EDITOR
        )
        told = await vera.receive("access_changed")
        assert told["canEdit"] is True and told["you"]["role"] == "editor"
        assert (await vera.edit("now", 0, set_name("Mine")))["type"] == "edit_applied"

    run(scenario)


def test_the_edit_service_checks_the_role_whatever_the_socket_believes(team: Team) -> None:
    # A role changed without any signal (a bulk update): the socket still thinks "editor",
    # the service refuses, and the socket learns the truth from the refusal.
    async def scenario() -> None:
        eddie = await open_pipeline(team, "editor")
        await database_sync_to_async(
            Membership.objects.filter(workspace=team.workspace, user=team.editor).update
        )(role=Role.VIEWER)
        rejected = await eddie.edit("sneaky", 0, set_name("Mine"))
        assert rejected["reason"] == "forbidden"
        assert rejected["error"]["code"] == "permission-denied"
        assert "viewer now" in rejected["error"]["message"]
        assert (await eddie.receive("access_changed"))["canEdit"] is False
        assert await stored_revision(team) == 0

    run(scenario)


def test_the_edit_service_refuses_a_non_member() -> None:
    team = make_team()

    outcome = pipeline_apply_edit(
        pipeline_id=team.pipeline.pk,
        user=team.outsider,
        base_revision=0,
        edit=set_name("x"),
        op_id="1",
        client_id="c",
    )

    assert outcome.applied is None and outcome.reason == "forbidden"
    assert outcome.error is not None and outcome.error.code == "not-found"
    assert Pipeline.objects.get(pk=team.pipeline.pk).revision == 0


# Removal ---------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["service", "left", "admin-delete", "workspace-deleted"])
def test_a_removed_member_is_closed_out_of_pipeline_and_run_sockets(team: Team, how: str) -> None:
    version = make_runnable_version(pipeline=team.pipeline, author=team.owner)
    active = make_run(version=version, status=RunStatus.RUNNING)

    def remove() -> None:
        if how == "service":
            membership_remove(workspace=team.workspace, actor=team.owner, user_id=team.editor.pk)
        elif how == "left":
            membership_leave(workspace=team.workspace, actor=team.editor)
        elif how == "admin-delete":
            Membership.objects.get(workspace=team.workspace, user=team.editor).delete()
        else:
            workspace_delete(workspace=team.workspace, actor=team.owner)

    async def scenario() -> None:
        pipeline_socket = await open_pipeline(team, "editor")
        run_socket = await open_run(team, "editor", active.pk)
        await database_sync_to_async(remove)()
        assert await pipeline_socket.closed_with() == 4404
        assert await run_socket.closed_with() == 4404

    run(scenario)


def test_a_removed_member_receives_nothing_more(team: Team) -> None:
    async def scenario() -> None:
        eddie = await open_pipeline(team, "editor")
        olivia = await open_pipeline(team, "owner")
        await database_sync_to_async(membership_remove)(
            workspace=team.workspace, actor=team.owner, user_id=team.editor.pk
        )
        assert await eddie.closed_with() == 4404
        await olivia.edit("secret", 0, set_name("After eddie left"))
        assert await eddie.hears_nothing()

    run(scenario)


# Signing out --------------------------------------------------------------------------------


def test_revoking_the_token_closes_its_sockets(team: Team) -> None:
    version = make_runnable_version(pipeline=team.pipeline, author=team.owner)
    active = make_run(version=version, status=RunStatus.RUNNING)
    rest = client_for(team.editor)

    async def scenario() -> None:
        pipeline_socket = await open_pipeline(team, "editor")
        run_socket = await open_run(team, "editor", active.pk)
        signed_out = await database_sync_to_async(rest.delete)("/api/auth/token/")
        assert signed_out.status_code == 204
        assert await pipeline_socket.closed_with() == 4401
        assert await run_socket.closed_with() == 4401

    run(scenario)


def _browser_signed_in_as(user: User) -> HttpClient:
    browser = HttpClient()
    browser.force_login(user)
    return browser


def _cookie_headers(browser: HttpClient) -> list[tuple[bytes, bytes]]:
    name = django_settings.SESSION_COOKIE_NAME
    return [
        (b"cookie", f"{name}={browser.cookies[name].value}".encode()),
        (b"host", b"127.0.0.1:8000"),
        (b"origin", b"http://127.0.0.1:8000"),
    ]


def test_signing_out_a_session_closes_its_sockets_only(team: Team) -> None:
    browser = _browser_signed_in_as(team.editor)
    other_browser = _browser_signed_in_as(team.editor)

    async def scenario() -> None:
        by_session = await open_pipeline(team, "editor", headers=_cookie_headers(browser))
        by_other = await open_pipeline(team, "editor", headers=_cookie_headers(other_browser))
        by_token = await open_pipeline(team, "editor")
        response = await database_sync_to_async(browser.post)("/api/auth/logout/")
        assert response.status_code in (200, 302)
        assert await by_session.closed_with() == 4401
        # The same user's other session and token still sign them in.
        assert (await by_other.edit("other", 0, set_name("A")))["type"] == "edit_applied"
        assert (await by_token.edit("token", 1, set_name("B")))["type"] == "edit_applied"

    run(scenario)


def test_deactivating_a_user_closes_all_their_sockets(team: Team) -> None:
    browser = _browser_signed_in_as(team.editor)

    def deactivate() -> None:
        team.editor.is_active = False
        team.editor.save()

    async def scenario() -> None:
        by_session = await open_pipeline(team, "editor", headers=_cookie_headers(browser))
        by_token = await open_pipeline(team, "editor")
        await database_sync_to_async(deactivate)()
        assert await by_session.closed_with() == 4401
        assert await by_token.closed_with() == 4401

    run(scenario)


def test_a_lost_notice_is_caught_by_the_periodic_check(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Deleting the token with a bulk delete sends no signal: only the periodic check sees it.
    monkeypatch.setattr(accounts.sockets, "RECHECK_SECONDS", 0.2)

    async def scenario() -> None:
        eddie = await open_pipeline(team, "editor")
        await database_sync_to_async(Token.objects.filter(user=team.editor)._raw_delete)("default")
        assert await eddie.closed_with() == 4401

    run(scenario)


# Origins ---------------------------------------------------------------------------------


def _scope(origin: str | None, *, host: str = "127.0.0.1:8000", **extra: Any) -> dict[str, Any]:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "websocket", "scheme": "ws", "headers": headers, **extra}


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        (None, True),  # not a browser
        ("http://127.0.0.1:8000", True),
        ("http://127.0.0.1:6666", False),  # another port
        ("https://127.0.0.1:8000", False),  # another scheme
        ("https://localhost:9999", False),
        ("http://localhost:8000", False),  # another host than the socket's
        ("null", False),
        ("http://127.0.0.1:8000.evil.example", False),
    ],
)
def test_the_origin_must_be_the_sites_own_scheme_host_and_port(
    origin: str | None, allowed: bool
) -> None:
    assert origin_allowed(_scope(origin)) is allowed


def test_a_secure_socket_has_an_https_origin() -> None:
    assert origin_allowed(_scope("https://127.0.0.1:8000", scheme="wss"))
    assert not origin_allowed(_scope("http://127.0.0.1:8000", scheme="wss"))
    assert origin_allowed(_scope("https://localhost", host="localhost", scheme="wss"))


def test_a_host_the_server_does_not_serve_is_no_origin_of_its_own() -> None:
    assert not origin_allowed(_scope("http://evil.example:8000", host="evil.example:8000"))


def test_trusted_origins_are_compared_whole(settings: Any) -> None:
    settings.CSRF_TRUSTED_ORIGINS = ["https://studio.example.com", "https://*.corp.example"]

    assert origin_allowed(_scope("https://studio.example.com"))
    assert origin_allowed(_scope("https://studio.example.com:443"))
    assert not origin_allowed(_scope("http://studio.example.com"))
    assert not origin_allowed(_scope("https://studio.example.com:8443"))
    assert origin_allowed(_scope("https://a.corp.example"))
    assert not origin_allowed(_scope("https://corp.example.evil"))


def test_a_trusted_proxy_may_say_the_socket_is_secure(settings: Any) -> None:
    import ipaddress

    scope = _scope("https://127.0.0.1:8000", client=("10.0.0.2", 5000))
    scope["headers"].append((b"x-forwarded-proto", b"https"))

    assert not origin_allowed(scope)  # anyone may send the header
    settings.TRUSTED_PROXIES = (ipaddress.ip_network("10.0.0.0/8"),)
    assert origin_allowed(scope)


def test_a_cookie_from_another_port_is_closed_with_4403(team: Team) -> None:
    browser = _browser_signed_in_as(team.editor)
    headers = [
        header if header[0] != b"origin" else (b"origin", b"http://127.0.0.1:6666")
        for header in _cookie_headers(browser)
    ]

    async def scenario() -> None:
        communicator = WebsocketCommunicator(
            application, f"/ws/pipelines/{team.pipeline.pk}/", headers=headers
        )
        assert await open_socket(communicator) == (False, 4403)

    run(scenario)


def test_checking_access_reads_the_workspace_not_the_working_copy() -> None:
    """Every socket checks its access when it opens and every `RECHECK_SECONDS`: reading
    the pipeline row whole would parse its working copy each time."""
    team = make_team()
    pipeline_id = team.pipeline.pk
    with CaptureQueriesContext(connection) as captured:
        editor = pipeline_access(user=team.editor, pipeline_id=pipeline_id)
        viewer = pipeline_access(user=team.viewer, pipeline_id=pipeline_id)
        outsider = pipeline_access(user=team.outsider, pipeline_id=pipeline_id)
        gone = pipeline_access(user=team.editor, pipeline_id=pipeline_id + 1000)
    assert editor == PipelineAccess(role="editor", can_edit=True)
    assert viewer == PipelineAccess(role="viewer", can_edit=False)
    assert outsider is None and gone is None
    assert not any('"document"' in query["sql"] for query in captured.captured_queries)
