"""A pipeline's savepoints: Flink `_metadata` files a team uploads to check versions against."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from pipelines.models import Pipeline, PipelineVersion


class Savepoint(models.Model):
    """One uploaded `_metadata` file, byte for byte, with what was read from it when it came.

    The bytes are the source; what the reader found in them is kept beside them (`read`,
    by the reader's version `read_by`), so a check needs no second read of a file that may
    take a second to read, and a reader that reads differently later reads each file once
    again (`savepoints.selectors.savepoint_read`). `operator_count` and `checkpoint_id` are
    there to list savepoints without reading anything. At most one savepoint per pipeline is
    current: the one production would restore from, which the plan review's state-loss gate
    checks.
    """

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="savepoints")
    label = models.CharField(max_length=200)
    data = models.BinaryField()
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    format_version = models.PositiveSmallIntegerField()
    checkpoint_id = models.BigIntegerField()
    operator_count = models.PositiveIntegerField()
    read = models.JSONField(null=True, blank=True)
    """`compiler.state.savepoint.Savepoint.to_json` of the file, by the reader `read_by`."""
    read_by = models.PositiveSmallIntegerField(null=True, blank=True)
    """The `READER_VERSION` that read it; null: never read since it was stored."""
    is_current = models.BooleanField(default=False)
    written_by = models.ForeignKey(
        PipelineVersion,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    """The version whose job took it, when the uploader says: a check then explains lost
    state by what changed since (which hash input), and finds changed keys and kinds."""
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("pipeline_id", "-uploaded_at", "-id")
        constraints = (
            models.UniqueConstraint(
                fields=["pipeline"],
                condition=models.Q(is_current=True),
                name="one_current_savepoint_per_pipeline",
            ),
        )

    def __str__(self) -> str:
        return self.label
