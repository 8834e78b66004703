"""Where a request comes from: the peer, or the client behind a trusted reverse proxy.

`X-Forwarded-For` and `X-Forwarded-Proto` are written by whoever sends the request, so
they mean something only when the peer is one of `TRUSTED_PROXIES`, which appends the
address it saw on the right. `TrustedProxyMiddleware` is the one place that reads them:
from a trusted proxy it sets `REMOTE_ADDR` to the rightmost address no trusted proxy
wrote; from anyone else it drops the headers, so neither the sign-in limits
(`accounts.attempts`) nor `request.is_secure()` can be steered by a client. The ASGI
server itself believes no forwarded headers (`config.asgi_server`).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable, Mapping

from django.conf import settings
from django.http import HttpRequest, HttpResponse

FORWARDED_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST")


def is_trusted_proxy(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in settings.TRUSTED_PROXIES)


def client_behind(peer: str, forwarded_for: str) -> str:
    """The client's address: walking from the peer leftwards through `X-Forwarded-For`,
    the first hop that is not a trusted proxy (the leftmost if all of them are)."""
    hops = [peer, *reversed([hop.strip() for hop in forwarded_for.split(",") if hop.strip()])]
    for hop in hops:
        if not is_trusted_proxy(hop):
            return hop
    return hops[-1]


def forwarded_values(headers: Mapping[str, str], peer: str) -> tuple[str, str | None]:
    """(client address, forwarded scheme or None) of a request from `peer` with these
    headers (lower-case names): believed only from a trusted proxy."""
    if not is_trusted_proxy(peer):
        return peer, None
    client = client_behind(peer, headers.get("x-forwarded-for", ""))
    proto = headers.get("x-forwarded-proto", "").split(",")[0].strip().lower() or None
    return client, proto


def scope_headers(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """An ASGI scope's headers by lower-case name (the last of repeated ones)."""
    return {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in raw}


class TrustedProxyMiddleware:
    """Believe forwarded headers from trusted proxies only (see the module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        peer = request.META.get("REMOTE_ADDR", "")
        if is_trusted_proxy(peer):
            request.META["REMOTE_ADDR"] = client_behind(
                peer, request.META.get("HTTP_X_FORWARDED_FOR", "")
            )
        else:
            for header in FORWARDED_HEADERS:
                request.META.pop(header, None)
        return self.get_response(request)
