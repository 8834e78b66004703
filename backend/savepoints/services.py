"""Writes to a pipeline's savepoints: upload, relabel, mark current, delete.

Each service checks the actor's current role (editors and owners write) and reads the file
completely before anything is stored, so a file Flink did not write is refused with the
byte offset where it stops making sense and nothing is half-stored. Marking a savepoint
current takes the pipeline's row lock, so two at once leave exactly one current. Uploads,
changes of the current savepoint and deletions go to the audit record (`audit`), which
outlives the savepoint.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import Sum

from accounts.models import Role, Workspace
from accounts.permissions import authenticated_user, require_role
from audit.events import Recorded
from audit.services import audit_record
from compiler.state.savepoint import READER_VERSION, SavepointError, read_savepoint
from config.errors import Conflict, InvalidRequest, NotFound
from pipelines.models import Pipeline, PipelineVersion
from pipelines.selectors import version_get
from savepoints.events import (
    SavepointCurrentClearedRecord,
    SavepointDeletedRecord,
    SavepointMarkedCurrentRecord,
    SavepointUploadedRecord,
)
from savepoints.models import Savepoint
from savepoints.uploads import FILE_FIELD

Actor = AbstractBaseUser | AnonymousUser

LABEL_MAX = 200


def _label(label: str) -> str:
    cleaned = label.strip()
    if not cleaned:
        raise InvalidRequest("Give the savepoint a label.", fields={"label": ["Required."]})
    if len(cleaned) > LABEL_MAX:
        raise InvalidRequest(
            f"A label has at most {LABEL_MAX} characters.",
            fields={"label": [f"At most {LABEL_MAX} characters."]},
        )
    return cleaned


def _clear_current(pipeline: Pipeline) -> None:
    """No savepoint of the pipeline is current any more (under its row lock)."""
    Savepoint.objects.filter(pipeline=pipeline, is_current=True).update(is_current=False)


def _record(pipeline: Pipeline, actor: AbstractBaseUser, record: Recorded) -> None:
    audit_record(
        workspace_id=pipeline.workspace_id, pipeline_id=pipeline.pk, actor=actor, record=record
    )


def _version(pipeline: Pipeline, number: int | None) -> PipelineVersion | None:
    """The version named as the savepoint's writer: a number in the body, so an unknown one
    is a bad field, not a missing page."""
    if number is None:
        return None
    try:
        return version_get(pipeline=pipeline, number=number)
    except NotFound as missing:
        raise InvalidRequest(missing.message, fields={"writtenBy": [missing.message]}) from None


def savepoint_upload(
    *,
    pipeline: Pipeline,
    actor: Actor,
    label: str,
    data: bytes,
    current: bool = False,
    written_by: int | None = None,
) -> Savepoint:
    """Store a savepoint's `_metadata` file for the pipeline, read and checked first;
    `written_by` is the number of the version whose job took it, when known."""
    user = authenticated_user(actor)
    require_role(user=user, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
    cleaned = _label(label)
    try:
        read = read_savepoint(data)
    except SavepointError as error:
        raise InvalidRequest(
            f"The file is not a Flink savepoint's _metadata: {error}.",
            code="invalid-savepoint",
            fields={FILE_FIELD: [str(error)]},
        ) from error
    with transaction.atomic():
        # The workspace's row first: its quota counts every pipeline's savepoints.
        Workspace.objects.select_for_update().get(pk=pipeline.workspace_id)
        locked = Pipeline.objects.select_for_update().get(pk=pipeline.pk)
        require_role(user=user, workspace=locked.workspace_id, minimum=Role.EDITOR)
        _check_quota(locked, len(data))
        version = _version(locked, written_by)
        if current:
            _clear_current(locked)
        savepoint = Savepoint.objects.create(
            pipeline=locked,
            label=cleaned,
            data=data,
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            format_version=read.version,
            checkpoint_id=read.checkpoint_id,
            operator_count=len(read.operators),
            read=read.to_json(),
            read_by=READER_VERSION,
            is_current=current,
            written_by=version,
            uploaded_by=user,
        )
        uploaded = SavepointUploadedRecord(
            savepoint=savepoint.pk, label=savepoint.label, current=current
        )
        _record(locked, user, uploaded)
        return savepoint


def _check_quota(pipeline: Pipeline, size: int) -> None:
    """Refuse an upload past the pipeline's number of savepoints or the workspace's bytes
    (`SAVEPOINTS_PER_PIPELINE`, `SAVEPOINT_BYTES_PER_WORKSPACE`), saying how to make room."""
    limit = settings.SAVEPOINTS_PER_PIPELINE
    if Savepoint.objects.filter(pipeline=pipeline).count() >= limit:
        raise Conflict(
            f"This pipeline keeps {limit} savepoints, as many as it may: delete one it no "
            "longer needs first.",
            code="savepoint-quota",
        )
    budget = settings.SAVEPOINT_BYTES_PER_WORKSPACE
    used = (
        Savepoint.objects.filter(pipeline__workspace_id=pipeline.workspace_id).aggregate(
            used=Sum("size")
        )["used"]
        or 0
    )
    if used + size > budget:
        raise Conflict(
            f"The workspace's savepoints take {used:,} of the {budget:,} bytes they may; this "
            f"file of {size:,} bytes does not fit: delete savepoints no longer needed first.",
            code="savepoint-quota",
        )


def savepoint_update(
    *,
    savepoint: Savepoint,
    actor: Actor,
    label: str | None = None,
    current: bool | None = None,
    written_by: int | Literal["keep"] | None = "keep",
) -> Savepoint:
    """Relabel a savepoint, make it (or stop it being) the pipeline's current one, or say
    which version wrote it (None: not known)."""
    user = authenticated_user(actor)
    with transaction.atomic():
        pipeline = Pipeline.objects.select_for_update().get(pk=savepoint.pipeline_id)
        require_role(user=user, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
        locked = Savepoint.objects.defer("data").get(pk=savepoint.pk)
        fields = []
        if label is not None:
            locked.label = _label(label)
            fields.append("label")
        if current is not None and current != locked.is_current:
            if current:
                _clear_current(pipeline)
            locked.is_current = current
            fields.append("is_current")
            recorded = SavepointMarkedCurrentRecord if current else SavepointCurrentClearedRecord
            _record(pipeline, user, recorded(savepoint=locked.pk, label=locked.label))
        if written_by != "keep":
            locked.written_by = _version(pipeline, written_by)
            fields.append("written_by")
        if fields:
            locked.save(update_fields=fields)
        return locked


def savepoint_delete(*, savepoint: Savepoint, actor: Actor) -> None:
    user = authenticated_user(actor)
    with transaction.atomic():
        pipeline = Pipeline.objects.select_for_update().get(pk=savepoint.pipeline_id)
        require_role(user=user, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
        locked = Savepoint.objects.defer("data").filter(pk=savepoint.pk).first()
        if locked is None:
            return
        locked.delete()
        deleted = SavepointDeletedRecord(
            savepoint=savepoint.pk, label=locked.label, current=locked.is_current
        )
        _record(pipeline, user, deleted)
