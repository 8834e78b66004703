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

    The document is stored as a snapshot and the co-editing operations stored since it
    (`PipelineEdit`): an edit writes its operation and the revision, not the whole
    document, so its cost does not grow with the document; every so many edits the
    editing service writes a new snapshot. `document` is the working copy of `revision`
    (the snapshot with the operations after it replayed); setting it stores a snapshot.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="pipelines")
    name = models.CharField(max_length=200)
    snapshot = models.JSONField(db_column="document")
    snapshot_revision = models.PositiveIntegerField(null=True, blank=True)
    """The revision `snapshot` is of; null: the current one (`revision`)."""
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

    @property
    def document(self) -> dict[str, Any]:
        """The working copy of `revision`: the snapshot, with the operations stored after
        it applied in order."""
        base = self.snapshot_revision
        if base is None or base == self.revision:
            snapshot: dict[str, Any] = self.snapshot
            return snapshot
        cached = getattr(self, "_replayed", None)
        if cached is not None and cached[0] == (base, self.revision):
            document: dict[str, Any] = cached[1]
            return document
        from compiler.edits import Edit, apply_edit

        operations = list(
            PipelineEdit.objects.filter(
                pipeline_id=self.pk, revision__gt=base, revision__lte=self.revision
            )
            .order_by("revision")
            .values_list("operation", flat=True)
        )
        if len(operations) != self.revision - base:
            raise RuntimeError(
                f"pipeline {self.pk}: the operations after revision {base} up to "
                f"{self.revision} are not all stored"
            )
        document = self.snapshot
        for operation in operations:
            document, _ = apply_edit(document, Edit.from_json(operation))
        self._replayed = ((base, self.revision), document)
        return document

    @document.setter
    def document(self, value: dict[str, Any]) -> None:
        self.snapshot = value
        self.snapshot_revision = None


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
