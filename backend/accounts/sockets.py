"""Open websockets follow their user's access at once: roles, memberships, signing out.

A check when a socket connects is not enough: a member demoted, removed or signed out
must not keep editing, or reading, over a socket opened before. So:

- every socket is a `MemberSocket`: it accepts the connection, then closes it with a close
  code the client can read if it may not stay (4401 not signed in, 4403 a page of another
  origin, 4404 nothing of yours here), and joins its user's channel-layer group;
- whatever changes a user's access publishes to that group after its transaction commits,
  caught at the root with model and auth signals, so the services, the admin and cascades
  (a deleted workspace, a deleted user) all do: a membership created, changed or deleted
  (`access.changed`), a token deleted, a session signed out or a user deactivated
  (`access.revoked`, naming the credential);
- on either, the socket checks again, from the database, that its credential still signs
  its user in and what the user may do now (`MemberSocket.load_access`), and closes or
  tells its client the new role. It also checks every `RECHECK_SECONDS`, in case a
  message was lost while Redis was away.

The services that act (`pipelines.editing`, ...) check the role themselves, under their
row lock, whatever a socket believes.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable
from typing import Any, Generic, TypeVar, cast

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_out
from django.contrib.sessions.backends.db import SessionStore
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils.crypto import constant_time_compare
from redis.exceptions import RedisError
from rest_framework.authtoken.models import Token

from accounts.models import Membership
from accounts.tokens import live_token
from config.namespacing import redis_namespace

CLOSE_UNAUTHENTICATED = 4401
"""Not signed in: no or bad credentials, signed out, or the token was revoked."""
CLOSE_FORBIDDEN_ORIGIN = 4403
"""A session cookie sent by a page of another origin."""
CLOSE_NOT_FOUND = 4404
"""No such thing for this user: missing, or in a workspace they are not (or no longer) in."""
RECHECK_SECONDS = 30.0

ALL_CREDENTIALS = "all"
TOKEN_CREDENTIAL = "token"


def user_group(user_id: int) -> str:
    return f"{redis_namespace()}.user.{user_id}"


def session_credential(session_key: str) -> str:
    """How a session is named in messages (a digest: the key itself signs its user in)."""
    return "session:" + hashlib.sha256(session_key.encode()).hexdigest()[:32]


# Publishing -------------------------------------------------------------------------------


def _publish(user_id: int, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    # After commit: a socket that checks at once must see the change.
    transaction.on_commit(
        lambda: async_to_sync(layer.group_send)(user_group(user_id), event), robust=True
    )


def access_changed(*, user_id: int, workspace_id: int) -> None:
    """The user's role in the workspace changed, or they joined or left it."""
    _publish(user_id, {"type": "access.changed", "workspace": workspace_id})


def access_revoked(*, user_id: int, credential: str) -> None:
    """A credential of the user no longer signs them in (`ALL_CREDENTIALS`: none does)."""
    _publish(user_id, {"type": "access.revoked", "credential": credential})


@receiver(post_save, sender=Membership, dispatch_uid="accounts.sockets.membership_saved")
@receiver(post_delete, sender=Membership, dispatch_uid="accounts.sockets.membership_deleted")
def _membership_changed(sender: object, instance: Membership, **_: Any) -> None:
    access_changed(user_id=instance.user_id, workspace_id=instance.workspace_id)


@receiver(post_delete, sender=Token, dispatch_uid="accounts.sockets.token_deleted")
def _token_deleted(sender: object, instance: Token, **_: Any) -> None:
    access_revoked(user_id=instance.user_id, credential=TOKEN_CREDENTIAL)


@receiver(user_logged_out, dispatch_uid="accounts.sockets.signed_out")
def _signed_out(sender: object, request: Any, user: Any, **_: Any) -> None:
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if user is not None and session_key:
        access_revoked(user_id=user.pk, credential=session_credential(session_key))


@receiver(post_save, sender=User, dispatch_uid="accounts.sockets.user_saved")
def _user_saved(sender: object, instance: User, created: bool, **_: Any) -> None:
    if not created and not instance.is_active:
        access_revoked(user_id=instance.pk, credential=ALL_CREDENTIALS)


# Checking a socket's credential ---------------------------------------------------------------


def credential_signs_in(*, user_id: int, token_key: str | None, session_key: str | None) -> bool:
    """Whether the credential a socket connected with still signs its user in: the token
    exists and has not expired, or the session does and names the user with their current
    password's hash."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return False
    if token_key is not None:
        token = live_token(token_key)
        return token is not None and token.user_id == user_id
    if session_key is None:
        return False
    session = SessionStore(session_key=session_key)
    data = session.load()  # empty if the session is gone or expired
    if str(data.get(SESSION_KEY)) != str(user_id) or BACKEND_SESSION_KEY not in data:
        return False
    return constant_time_compare(data.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash())


# The consumers' base ----------------------------------------------------------------------

A = TypeVar("A")
R = TypeVar("R")
logger = logging.getLogger(__name__)


class MemberSocket(AsyncWebsocketConsumer, Generic[A], ABC):
    """A websocket of a signed-in workspace member that follows their access (module
    docstring). Subclasses say what access is (`load_access`), what to do once joined
    (`joined`) and when the access changed but remains (`access_updated`)."""

    user: User
    access: A
    closed: bool = False
    """Set once closing: group messages may still be in flight to us."""
    _group: str | None = None
    _recheck: asyncio.Task[None] | None = None

    @abstractmethod
    async def load_access(self) -> A | None:
        """What the user may do here now (read from the database); None: nothing."""

    async def joined(self) -> None:
        """The socket is open and the user may use it: join groups, send a snapshot."""

    async def access_updated(self, previous: A) -> None:
        """`self.access` changed and still allows the socket (a role went up or down)."""

    async def left(self) -> None:
        """The socket closed (after `joined`): leave groups, presence."""

    # Lifecycle ------------------------------------------------------------------------------

    async def connect(self) -> None:
        # Accept first: a refusal before accepting reaches a browser as an HTTP 403 with
        # no close code, and it could not tell "signed out" from "not yours".
        await self.accept()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            foreign = self.scope.get("foreign_origin", False)
            await self.close_with(CLOSE_FORBIDDEN_ORIGIN if foreign else CLOSE_UNAUTHENTICATED)
            return
        self.user = cast(User, user)
        access = await self.load_access()
        if access is None:
            await self.close_with(CLOSE_NOT_FOUND)
            return
        self.access = access
        self._group = user_group(user.pk)
        await self.best_effort(
            "joining the user's group", self.channel_layer.group_add(self._group, self.channel_name)
        )
        await self.joined()
        if not self.closed:
            self._recheck = asyncio.create_task(self._recheck_forever())

    async def send(  # type: ignore[override]  # as AsyncWebsocketConsumer's, in its stubs
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        """Send to the client, unless it has gone: then the message is dropped and the socket
        counts as closing, and the server's disconnect, which follows, cleans up. Letting the
        error through (the server raises an `OSError` on a send to a closed connection) would
        stop the consumer before that: its tasks would run and its presence stay for ever.
        A message broadcast to everyone meets such a client whenever several leave at once."""
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except OSError:
            self.closed = True

    async def disconnect(self, code: int) -> None:
        self.closed = True
        if self._recheck is not None:
            self._recheck.cancel()
        if self._group is not None:
            await self.best_effort(
                "leaving the user's group",
                self.channel_layer.group_discard(self._group, self.channel_name),
            )
            self._group = None
            await self.left()

    async def best_effort(self, what: str, operation: Awaitable[R]) -> R | None:
        """`operation`'s result, or None if Redis (the channel layer, presence) is away: a
        socket outlives Redis restarts, and catches up from the database once it is back."""
        try:
            return await operation
        except (RedisError, OSError) as error:
            logger.warning("socket %s: %s failed: %s", self.channel_name, what, error)
            return None

    async def close_with(self, code: int) -> None:
        if not self.closed:
            self.closed = True
            await self.close(code=code)

    # Following access ---------------------------------------------------------------------

    async def recheck_access(self) -> bool:
        """Check the credential and access again; close the socket if they are gone.
        True if the socket stays open."""
        if self.closed:
            return False
        if not await self._credential_signs_in():
            await self.close_with(CLOSE_UNAUTHENTICATED)
            return False
        access = await self.load_access()
        if access is None:
            await self.close_with(CLOSE_NOT_FOUND)
            return False
        previous, self.access = self.access, access
        if access != previous:
            await self.access_updated(previous)
        return not self.closed

    async def access_changed(self, event: dict[str, Any]) -> None:
        """Group message: a membership of this user changed."""
        await self.recheck_access()

    async def access_revoked(self, event: dict[str, Any]) -> None:
        """Group message: a credential of this user was revoked."""
        credential = event.get("credential")
        if credential in (ALL_CREDENTIALS, self._credential_name()):
            await self.close_with(CLOSE_UNAUTHENTICATED)

    def _credential_name(self) -> str | None:
        if self.scope.get("auth_by_token"):
            return TOKEN_CREDENTIAL
        session_key = self._session_key()
        return None if session_key is None else session_credential(session_key)

    def _session_key(self) -> str | None:
        session = self.scope.get("session")
        key = getattr(session, "session_key", None)
        return key if isinstance(key, str) else None

    async def _credential_signs_in(self) -> bool:
        by_token = bool(self.scope.get("auth_by_token"))
        token_key = self.scope.get("token_key")
        return bool(
            await database_sync_to_async(credential_signs_in)(
                user_id=self.user.pk,
                token_key=str(token_key) if by_token else None,
                session_key=None if by_token else self._session_key(),
            )
        )

    async def _recheck_forever(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            while not self.closed:
                await asyncio.sleep(RECHECK_SECONDS)
                await self.recheck_access()
