"""The inbox websocket nudges its user whenever what waits for them may have changed, and
nobody else: a review asked of them, answered by them or closed by a newer version, a
mention of them made, edited away, deleted or read, their workspaces changed. It carries
no content and follows its user's credential.

Through the full ASGI stack, the real Redis channel layer and the real database; the
changes are made the ways users make them (the services, REST)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token

from accounts.models import Role
from accounts.services import membership_add, membership_remove
from config.asgi import application
from pipelines.services import version_create
from reviews.models import Comment, Mention, VerdictKind
from reviews.services import (
    Target,
    comment_delete,
    comment_update,
    mention_mark_read,
    review_request_create,
    review_verdict_create,
    thread_create,
)
from tests.backend.factories import Team, make_team, make_user
from tests.backend.sockets import open_socket, run

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 5


class Inbox:
    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.communicator = communicator

    async def nudged(self) -> None:
        output = await self.communicator.receive_output(timeout=TIMEOUT)
        assert output["type"] == "websocket.send", output
        assert json.loads(output["text"]) == {"type": "inbox_changed"}

    async def quiet(self) -> bool:
        return bool(await self.communicator.receive_nothing(timeout=0.3))

    async def closed_with(self) -> int:
        while True:
            output = await self.communicator.receive_output(timeout=TIMEOUT)
            if output["type"] == "websocket.close":
                return int(output["code"])


async def open_inbox(user: User) -> Inbox:
    token, _ = await database_sync_to_async(Token.objects.get_or_create)(user=user)
    headers = [(b"authorization", f"Token {token.key}".encode())]
    communicator = WebsocketCommunicator(application, "/ws/inbox/", headers=headers)
    opened, code = await open_socket(communicator)
    assert opened, code
    inbox = Inbox(communicator)
    await inbox.nudged()  # on opening: read the inbox now
    return inbox


def sync(function: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    return database_sync_to_async(function)


@pytest.fixture
def team() -> Team:
    return make_team()


def test_a_review_asked_answered_and_closed_nudges_the_reviewer_only(team: Team) -> None:
    version = team.pipeline.versions.get()

    async def scenario() -> None:
        vera, eddie = await open_inbox(team.viewer), await open_inbox(team.editor)
        request = await sync(review_request_create)(
            version=version, actor=team.owner, reviewers=["vera"]
        )
        await vera.nudged()
        assert await eddie.quiet()

        await sync(review_verdict_create)(
            request=request, actor=team.viewer, verdict=VerdictKind.COMMENT
        )
        await vera.nudged()  # her other pages: it no longer waits

        await sync(version_create)(pipeline=team.pipeline, actor=team.editor, message="v2")
        await vera.nudged()  # version 1's review is closed
        assert await eddie.quiet()

    run(scenario)


def test_mentions_made_edited_away_deleted_and_read_nudge_who_was_named(team: Team) -> None:
    async def scenario() -> None:
        vera, eddie = await open_inbox(team.viewer), await open_inbox(team.editor)
        thread = await sync(thread_create)(
            pipeline=team.pipeline,
            actor=team.owner,
            target=Target(kind="pipeline"),
            body="@vera have a look",
            version=1,
        )
        await vera.nudged()
        assert await eddie.quiet()
        comment = await sync(Comment.objects.get)(thread=thread)

        await sync(comment_update)(comment=comment, actor=team.owner, body="@eddie rather")
        await vera.nudged()  # no longer named
        await eddie.nudged()  # named now

        mention = await sync(Mention.objects.get)(comment=comment)
        await sync(mention_mark_read)(actor=team.editor, mention_ids=[mention.pk])
        await eddie.nudged()
        await sync(mention_mark_read)(actor=team.editor, mention_ids=[mention.pk])
        assert await eddie.quiet()  # nothing was unread

        await sync(comment_delete)(comment=comment, actor=team.owner)
        await eddie.nudged()
        assert await vera.quiet()

    run(scenario)


def test_a_change_of_workspaces_nudges_and_signing_out_closes(team: Team) -> None:
    async def scenario() -> None:
        newcomer = await sync(make_user)(username="nina")
        nina = await open_inbox(newcomer)  # in no workspace yet: an inbox still
        await sync(membership_add)(
            workspace=team.workspace, actor=team.owner, user=newcomer, role=Role.VIEWER
        )
        await nina.nudged()
        await sync(membership_remove)(
            workspace=team.workspace, actor=team.owner, user_id=newcomer.pk
        )
        await nina.nudged()
        await sync(Token.objects.filter(user=newcomer).delete)()
        assert await nina.closed_with() == 4401

    run(scenario)


def test_a_resync_is_answered_and_anything_else_ignored(team: Team) -> None:
    async def scenario() -> None:
        vera = await open_inbox(team.viewer)
        await vera.communicator.send_to(text_data='{"type": "resync"}')
        await vera.nudged()
        await vera.communicator.send_to(text_data='{"type": "edit"}')
        await vera.communicator.send_to(text_data="x" * 10_000)
        assert await vera.quiet()

    run(scenario)


def test_a_signed_out_browser_is_refused() -> None:
    async def scenario() -> None:
        communicator = WebsocketCommunicator(application, "/ws/inbox/")
        assert await open_socket(communicator) == (False, 4401)

    run(scenario)
