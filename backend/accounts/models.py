"""Workspaces and who belongs to them, with which role."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Role(models.TextChoices):
    """A member's role in a workspace, from least to most allowed."""

    VIEWER = "viewer", "Viewer"
    EDITOR = "editor", "Editor"
    OWNER = "owner", "Owner"

    @property
    def rank(self) -> int:
        return _RANKS[self]

    def allows(self, minimum: Role) -> bool:
        """Whether this role may do what `minimum` may (viewer < editor < owner)."""
        return self.rank >= minimum.rank


_RANKS = {Role.VIEWER: 0, Role.EDITOR: 1, Role.OWNER: 2}


class Workspace(models.Model):
    """A team's space: its members and its pipelines."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("name", "id")

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """One user's role in one workspace."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("workspace_id", "user_id")
        constraints = (
            models.UniqueConstraint(fields=["workspace", "user"], name="membership_unique_user"),
            models.CheckConstraint(
                condition=models.Q(role__in=Role.values), name="membership_role_valid"
            ),
        )

    def __str__(self) -> str:
        return f"{self.user} in {self.workspace} ({self.role})"


class SocketTicket(models.Model):
    """A single-use pass to open one websocket, so no lasting secret goes in a socket's URL
    (where servers and proxies log it). Only its digest is stored; it is deleted when used
    and good for `SOCKET_TICKET_SECONDS` only (`accounts.tokens`)."""

    digest = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    token_key = models.CharField(max_length=40, blank=True)
    """The API token the ticket was asked with, if any: the socket then lives as long as it."""
    session_key = models.CharField(max_length=40, blank=True)
    """Else the session it was asked in: the socket closes when it signs out."""
    expires_at = models.DateTimeField()

    class Meta:
        indexes = (models.Index(fields=["expires_at"], name="socket_ticket_expiry"),)

    def __str__(self) -> str:
        return f"socket ticket of user {self.user_id}"
