"""How long credentials live: API tokens expire `API_TOKEN_MAX_AGE_SECONDS` after they were
made (signing in again makes a fresh one; signing out deletes it), and websockets open with
single-use tickets that live `SOCKET_TICKET_SECONDS`, so no lasting secret is ever in a URL.

One rule for each, which every way in asks: REST (`accounts.authentication`), the websocket
handshake and the sockets' rechecks (`accounts.websocket_auth`, `accounts.sockets`).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import Throttled

from accounts.models import SocketTicket


def token_expired(token: Token) -> bool:
    """Whether the API token is past its age (`API_TOKEN_MAX_AGE_SECONDS`)."""
    age = timedelta(seconds=settings.API_TOKEN_MAX_AGE_SECONDS)
    return token.created + age <= timezone.now()


def live_token(key: str) -> Token | None:
    """The API token with this key, with its user, if it exists, has not expired and its
    user is active."""
    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or token_expired(token) or not token.user.is_active:
        return None
    return token


def _digest(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()


MAX_LIVE_TICKETS = 100
"""Unused tickets a user may hold at once: a page asks one per socket it opens."""


def socket_ticket_issue(*, user: User, token_key: str = "", session_key: str = "") -> str:
    """A new ticket for `user`, asked with this token or in this session; expired tickets
    of anyone are cleared on the way, and a user holding `MAX_LIVE_TICKETS` unused ones is
    refused (429) until some are used or expire."""
    now = timezone.now()
    SocketTicket.objects.filter(expires_at__lte=now).delete()
    if SocketTicket.objects.filter(user=user).count() >= MAX_LIVE_TICKETS:
        raise Throttled(
            wait=settings.SOCKET_TICKET_SECONDS,
            detail=f"You hold {MAX_LIVE_TICKETS} unused socket tickets: use or let them expire.",
        )
    ticket = secrets.token_urlsafe(32)
    SocketTicket.objects.create(
        digest=_digest(ticket),
        user=user,
        token_key=token_key,
        session_key=session_key,
        expires_at=now + timedelta(seconds=settings.SOCKET_TICKET_SECONDS),
    )
    return ticket


@dataclass(frozen=True, slots=True)
class Redeemed:
    user: User
    token_key: str
    session_key: str


def socket_ticket_redeem(ticket: str) -> Redeemed | None:
    """Use the ticket up: who it was for and with which credential; None when it does not
    exist, was used, has expired, or its user cannot sign in any more."""
    if not ticket or len(ticket) > 100:
        return None
    with transaction.atomic():
        found = (
            SocketTicket.objects.select_for_update()
            .select_related("user")
            .filter(digest=_digest(ticket))
            .first()
        )
        if found is None:
            return None
        found.delete()
    if found.expires_at <= timezone.now() or not found.user.is_active:
        return None
    return Redeemed(found.user, found.token_key, found.session_key)
