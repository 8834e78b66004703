"""Websocket authentication: the session cookie, or `?token=<API token>`.

Browsers send the session cookie and always an `Origin` header; a cookie-based
connection from a page on another host is refused (cross-site websocket
hijacking). Token connections carry their credential in the URL, so no page
can make them on a user's behalf, and need no origin check.

The scope also records how the connection authenticated (`auth_by_token`, the token's
key; otherwise the session's), so signing out or revoking a token can close exactly the
sockets it opened (`accounts.sockets`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http.request import validate_host
from rest_framework.authtoken.models import Token

Scope = dict[str, Any]


@database_sync_to_async
def _user_for_token(key: str) -> Any:
    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return AnonymousUser()
    return token.user


class TokenAuthMiddleware:
    """ASGI middleware: sets `scope["user"]` from `?token=`, or drops a foreign origin's."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        keys = query.get("token")
        if keys:
            user = await _user_for_token(keys[0])
            scope = dict(scope, user=user, auth_by_token=True, token_key=keys[0])
        elif not _origin_allowed(scope):
            # Closed with 4403 if the cookie would have signed someone in, else 4401.
            user = scope.get("user")
            signed_in = user is not None and user.is_authenticated
            scope = dict(scope, user=AnonymousUser(), foreign_origin=signed_in)
        return await self.inner(scope, receive, send)


def _origin_allowed(scope: Scope) -> bool:
    origin = dict(scope.get("headers", [])).get(b"origin")
    if origin is None:
        return True  # not a browser
    host = urlparse(origin.decode("latin-1")).hostname or ""
    allowed = settings.ALLOWED_HOSTS or ["localhost", "127.0.0.1"]
    return validate_host(host, allowed)


def websocket_auth_stack(inner: Any) -> Any:
    """Session auth first; a `?token=` (or a foreign origin) then overrides the user."""
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))
