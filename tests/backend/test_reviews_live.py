"""Review activity reaches everyone on the pipeline over its socket, as typed messages, and
stops reaching a member the moment they are removed.

Through the full ASGI stack, the real Redis channel layer and the real database; the changes
are made over REST, as the browser makes them."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from channels.db import database_sync_to_async
from pydantic import Field, TypeAdapter

from accounts.models import Role
from accounts.services import membership_change, membership_remove
from reviews.events import Outbound
from tests.backend.factories import Team, make_team
from tests.backend.test_socket_access import Socket, open_pipeline, run

pytestmark = pytest.mark.django_db(transaction=True)

MESSAGES: TypeAdapter[Any] = TypeAdapter(Annotated[Outbound, Field(discriminator="type")])
ROLES = ("viewer", "editor", "owner")


async def rest(team: Team, role: str, method: str, path: str, body: Any = None) -> Any:
    def call() -> Any:
        response = getattr(team.client(role), method)(path, body, format="json")
        assert response.status_code < 300, response.content
        return response.json() if response.content else None

    return await database_sync_to_async(call)()


async def everyone_receives(sockets: dict[str, Socket], message_type: str) -> dict[str, Any]:
    """The message every socket received (the same text), checked against its model."""
    received = [await socket.receive(message_type) for socket in sockets.values()]
    assert all(message == received[0] for message in received)
    MESSAGES.validate_python(received[0])
    return received[0]


def test_every_member_hears_of_threads_replies_resolutions_requests_and_verdicts() -> None:
    team = make_team()
    comments = f"/api/pipelines/{team.pipeline.pk}/comments/"
    reviews = f"/api/pipelines/{team.pipeline.pk}/versions/1/reviews/"

    async def scenario() -> None:
        sockets = {role: await open_pipeline(team, role) for role in ROLES}

        thread = await rest(
            team, "viewer", "post", comments, {"target": {"kind": "node", "node": 3}, "body": "?"}
        )
        created = await everyone_receives(sockets, "comment_thread_created")
        assert created["thread"] == thread

        reply = await rest(
            team, "editor", "post", comments + f"{thread['id']}/replies/", {"body": "@vera !"}
        )
        added = await everyone_receives(sockets, "comment_added")
        assert added == {"type": "comment_added", "thread": thread["id"], "comment": reply}

        await rest(
            team, "editor", "patch", comments + f"{thread['id']}/{reply['id']}/", {"body": "!"}
        )
        edited = await everyone_receives(sockets, "comment_edited")
        assert edited["comment"]["body"] == "!" and edited["comment"]["mentions"] == []

        await rest(team, "editor", "delete", comments + f"{thread['id']}/{reply['id']}/")
        deleted = await everyone_receives(sockets, "comment_deleted")
        assert deleted["comment"]["deleted"] is True and deleted["comment"]["body"] == ""

        await rest(team, "viewer", "post", comments + f"{thread['id']}/resolve/")
        resolved = await everyone_receives(sockets, "comment_thread_resolved")
        assert resolved["user"]["username"] == "vera"
        await rest(team, "owner", "post", comments + f"{thread['id']}/reopen/")
        assert (await everyone_receives(sockets, "comment_thread_reopened"))["thread"] == thread[
            "id"
        ]

        review = await rest(team, "editor", "post", reviews, {"reviewers": ["olivia"]})
        requested = await everyone_receives(sockets, "review_requested")
        assert requested["state"] == "in_review"
        assert requested["request"] == review["requests"][0]

        request_id = review["requests"][0]["id"]
        await rest(
            team,
            "owner",
            "post",
            reviews + f"{request_id}/verdicts/",
            {"verdict": "request_changes"},
        )
        answered = await everyone_receives(sockets, "review_verdict")
        assert answered["state"] == "changes_requested"
        assert answered["verdict"]["verdict"] == "request_changes"
        assert answered["verdict"]["counts"] is True

    run(scenario)


def test_a_removed_member_stops_hearing_and_a_demoted_one_keeps_hearing() -> None:
    team = make_team()
    comments = f"/api/pipelines/{team.pipeline.pk}/comments/"

    async def scenario() -> None:
        vera = await open_pipeline(team, "viewer")
        eddie = await open_pipeline(team, "editor")
        olivia = await open_pipeline(team, "owner")

        await database_sync_to_async(membership_remove)(
            workspace=team.workspace, actor=team.owner, user_id=team.viewer.pk
        )
        assert await vera.closed_with() == 4404
        await database_sync_to_async(membership_change)(
            workspace=team.workspace, actor=team.owner, user_id=team.editor.pk, role=Role.VIEWER
        )
        await eddie.receive("access_changed")

        await rest(team, "owner", "post", comments, {"target": {"kind": "pipeline"}, "body": "hi"})

        assert (await eddie.receive("comment_thread_created"))["thread"]["comments"][0][
            "body"
        ] == "hi"
        assert (await olivia.receive("comment_thread_created"))["thread"]["createdBy"][
            "username"
        ] == "olivia"
        assert await vera.hears_nothing()

    run(scenario)
