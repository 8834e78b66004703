"""Reads of a pipeline's savepoints. The caller has the pipeline through
`pipelines.selectors.pipeline_get_for_user`, so the user is a member of its workspace."""

from __future__ import annotations

from django.db.models import QuerySet

from compiler.savepoint import Savepoint as SavepointRead
from compiler.savepoint import read_savepoint
from config.errors import NotFound
from config.messages import UserRef
from pipelines.models import Pipeline
from savepoints.events import SavepointDetail, SavepointSummary, operators_of
from savepoints.models import Savepoint


def savepoint_list(*, pipeline: Pipeline) -> QuerySet[Savepoint]:
    """The pipeline's savepoints, newest first, without their files."""
    return (
        Savepoint.objects.filter(pipeline=pipeline)
        .select_related("uploaded_by")
        .defer("data")
        .order_by("-uploaded_at", "-id")
    )


def savepoint_get(*, pipeline: Pipeline, savepoint_id: int) -> Savepoint:
    savepoint = (
        Savepoint.objects.filter(pipeline=pipeline, pk=savepoint_id)
        .select_related("uploaded_by")
        .first()
    )
    if savepoint is None:
        raise NotFound(f"The pipeline has no savepoint {savepoint_id}.")
    return savepoint


def savepoint_current(*, pipeline: Pipeline) -> Savepoint | None:
    """The savepoint marked current, with its file; None when there is none."""
    return Savepoint.objects.filter(pipeline=pipeline, is_current=True).first()


def savepoint_read(*, savepoint: Savepoint) -> SavepointRead:
    """What the stored file holds. It was read when it was uploaded, so it reads again."""
    return read_savepoint(bytes(savepoint.data))


def savepoint_summary(savepoint: Savepoint) -> SavepointSummary:
    user = savepoint.uploaded_by
    return SavepointSummary(
        id=savepoint.pk,
        label=savepoint.label,
        size=savepoint.size,
        sha256=savepoint.sha256,
        formatVersion=savepoint.format_version,
        checkpointId=savepoint.checkpoint_id,
        operatorCount=savepoint.operator_count,
        isCurrent=savepoint.is_current,
        uploadedBy=None if user is None else UserRef(id=user.pk, username=user.get_username()),
        uploadedAt=savepoint.uploaded_at,
    )


def savepoint_detail(*, savepoint: Savepoint) -> SavepointDetail:
    summary = savepoint_summary(savepoint)
    return SavepointDetail(
        **summary.model_dump(), operators=operators_of(savepoint_read(savepoint=savepoint))
    )
