"""Websocket authentication: the session cookie, a single-use `?ticket=`, or an
`Authorization: Token <token>` header.

A browser's page asks `POST /api/auth/socket-ticket/` for a ticket and opens the socket with
it: the URL, which servers and proxies write to their logs, then holds nothing that signs
anyone in again (`accounts.tokens`). A client that can set headers (a script, a test) may
send its API token in the `Authorization` header instead. A token in the query string is
not read. Browsers also send the session cookie with every socket a page opens, and always
an `Origin` header: a cookie-based connection is only believed from the site's own origin
(the scheme, host and port the socket was opened on) or one of `TRUSTED_ORIGINS`, so a page
on another origin cannot use a signed-in user's cookie (cross-site websocket hijacking).
Scheme, host and port are all compared: `http://127.0.0.1:6666` is not
`http://127.0.0.1:8000`. A ticket or a header is a credential no other page can send on a
user's behalf, so they need no origin check.

The scope also records which credential the connection stands on (`auth_by_token` with
`token_key`, else the session's key, for a ticket the credential it was asked with), so
signing out or revoking a token closes exactly the sockets it opened (`accounts.sockets`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.db import SessionStore
from django.http.request import split_domain_port, validate_host

from accounts.tokens import Redeemed, live_token, socket_ticket_redeem
from config.proxies import forwarded_values, scope_headers

Scope = dict[str, Any]
Origin = tuple[str, str, int]
"""(scheme, host, port), as origins are compared."""

_DEFAULT_PORTS = {"http": 80, "https": 443}


@database_sync_to_async
def _user_for_token(key: str) -> Any:
    token = live_token(key)
    return AnonymousUser() if token is None else token.user


@database_sync_to_async
def _redeem(ticket: str) -> Redeemed | None:
    return socket_ticket_redeem(ticket)


def _header_token(scope: Scope) -> str | None:
    kind, _, key = scope_headers(scope.get("headers", [])).get("authorization", "").partition(" ")
    return key.strip() if kind.lower() == "token" and key.strip() else None


class TokenAuthMiddleware:
    """ASGI middleware: sets `scope["user"]` from a `?ticket=` or an `Authorization` token,
    or drops a foreign origin's cookie."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        tickets = query.get("ticket")
        header_key = _header_token(scope)
        if tickets:
            scope = await _ticket_scope(scope, tickets[0])
        elif header_key is not None:
            user = await _user_for_token(header_key)
            scope = dict(scope, user=user, auth_by_token=True, token_key=header_key)
        elif not origin_allowed(scope):
            # Closed with 4403 if the cookie would have signed someone in, else 4401.
            user = scope.get("user")
            signed_in = user is not None and user.is_authenticated
            scope = dict(scope, user=AnonymousUser(), foreign_origin=signed_in)
        return await self.inner(scope, receive, send)


async def _ticket_scope(scope: Scope, ticket: str) -> Scope:
    """The scope of a socket opened with a ticket: its user, standing on the credential the
    ticket was asked with."""
    redeemed = await _redeem(ticket)
    if redeemed is None:
        return dict(scope, user=AnonymousUser())
    if redeemed.token_key:
        return dict(scope, user=redeemed.user, auth_by_token=True, token_key=redeemed.token_key)
    session = SessionStore(session_key=redeemed.session_key)
    return dict(scope, user=redeemed.user, auth_by_token=False, session=session)


def origin_allowed(scope: Scope) -> bool:
    """Whether a cookie-authenticated socket may be believed: no `Origin` (not a browser),
    or the site's own origin, or a trusted one."""
    headers = scope_headers(scope.get("headers", []))
    origin = headers.get("origin")
    if origin is None:
        return True
    parsed = _origin(origin)
    if parsed is None:
        return False
    return parsed == _site_origin(scope, headers) or any(
        _matches(parsed, trusted) for trusted in settings.CSRF_TRUSTED_ORIGINS
    )


def _origin(url: str) -> Origin | None:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    return scheme, host, port or _DEFAULT_PORTS[scheme]


def _site_origin(scope: Scope, headers: dict[str, str]) -> Origin | None:
    """The origin the socket was opened on: its Host (one of `ALLOWED_HOSTS`) and scheme
    (`wss`, or https as a trusted proxy forwards it)."""
    host = headers.get("host", "")
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    client = scope.get("client") or ("", 0)
    _, forwarded_scheme = forwarded_values(headers, str(client[0]))
    secure = scope.get("scheme") == "wss" or forwarded_scheme == "https"
    return _origin(f"{'https' if secure else 'http'}://{host}")


def _matches(origin: Origin, trusted: str) -> bool:
    """Django's rule for `CSRF_TRUSTED_ORIGINS`: an exact origin, or `scheme://*.domain`
    for its subdomains."""
    scheme, _, rest = trusted.partition("://")
    if rest.startswith("*."):
        pattern = _origin(f"{scheme}://{rest[2:]}")
        return (
            pattern is not None
            and (origin[0], origin[2]) == (pattern[0], pattern[2])
            and origin[1].endswith("." + pattern[1])
        )
    return origin == _origin(trusted)


def websocket_auth_stack(inner: Any) -> Any:
    """Session auth first; a ticket or a token header (or a foreign origin) then overrides
    the user."""
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))
