"""Pipelines: a working copy that changes, and the immutable versions saved from it."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from accounts.models import Workspace


class Pipeline(models.Model):
    """A pipeline's working copy: a `streamgraph/v1` document and its revision.

    `revision` goes up by one with every saved change (a REST update or a
    co-editing operation), so a client can tell which state it saw.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="pipelines")
    name = models.CharField(max_length=200)
    document = models.JSONField()
    revision = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("workspace_id", "name", "id")

    def __str__(self) -> str:
        return self.name


class VersionImmutable(Exception):
    """Raised when code tries to change a saved `PipelineVersion`."""


class PipelineVersion(models.Model):
    """A numbered snapshot of a working copy (1, 2, ... per pipeline). Never changes."""

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    document = models.JSONField()
    revision = models.PositiveIntegerField()
    """The working copy's revision that was saved."""
    message = models.TextField(blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("pipeline_id", "number")
        constraints = (
            models.UniqueConstraint(fields=["pipeline", "number"], name="version_unique_number"),
        )

    def __str__(self) -> str:
        return f"{self.pipeline} v{self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise VersionImmutable(f"version {self.number} of a pipeline is immutable")
        super().save(*args, **kwargs)


class PipelineEdit(models.Model):
    """One co-editing operation applied to a working copy, and the revision it made."""

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="edits")
    revision = models.PositiveIntegerField()
    operation = models.JSONField()
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("pipeline_id", "revision")
        constraints = (
            models.UniqueConstraint(fields=["pipeline", "revision"], name="edit_unique_revision"),
        )

    def __str__(self) -> str:
        return f"{self.pipeline} r{self.revision}"
