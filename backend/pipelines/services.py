"""Writes to pipelines and their versions.

Each service checks the actor's role (editors and owners write), validates its
input completely before it writes, and writes inside one transaction, so a
refused request changes nothing. Changes to a pipeline lock its row (SELECT ...
FOR UPDATE on PostgreSQL; SQLite transactions take the write lock when they
begin, see settings), so revisions and version numbers are handed out one at a
time even under concurrent requests.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import Max

from accounts.models import Role, Workspace
from accounts.permissions import authenticated_user, require_role
from config.errors import Conflict
from config.messages import UserRef
from pipelines.documents import (
    document_empty,
    document_from_import,
    document_validate,
    import_name_from_file,
)
from pipelines.editing import drop_old_edits, pipeline_live_plan
from pipelines.events import DocumentReplaced, VersionSaved, publish_after_commit
from pipelines.models import Pipeline, PipelineVersion

Actor = AbstractBaseUser | AnonymousUser


def pipeline_create(
    *,
    workspace: Workspace | int,
    actor: Actor,
    name: str,
    document: object | None = None,
) -> Pipeline:
    """A new pipeline in a workspace; without a document, an empty one named like it."""
    user = authenticated_user(actor)
    require_role(user=user, workspace=workspace, minimum=Role.EDITOR)
    working_copy = document_empty(name=name) if document is None else document
    document_validate(document=working_copy)
    workspace_id = workspace if isinstance(workspace, int) else workspace.pk
    return Pipeline.objects.create(
        workspace_id=workspace_id, name=name, snapshot=working_copy, created_by=user
    )


def pipeline_import(
    *,
    workspace: Workspace | int,
    actor: Actor,
    content: object,
    name: str | None = None,
    file_name: str | None = None,
) -> tuple[Pipeline, str]:
    """A new pipeline from a `streamgraph/v1` document or a Flink plan, and which it was.

    Named `name`, else as the content names itself (a document's name, a plan's job
    name), else after the file it came from, else "imported".
    """
    user = authenticated_user(actor)
    require_role(user=user, workspace=workspace, minimum=Role.EDITOR)
    file_stem = import_name_from_file(file_name)
    document, source_format = document_from_import(
        content=content, name=name, fallback_name=file_stem
    )
    document_name = document.get("name")
    pipeline_name = (
        name or (document_name if isinstance(document_name, str) else "") or file_stem
    ) or "imported"
    pipeline = pipeline_create(
        workspace=workspace, actor=user, name=pipeline_name[:200], document=document
    )
    return pipeline, source_format


def pipeline_update(
    *,
    pipeline: Pipeline,
    actor: Actor,
    name: str | None = None,
    document: object | None = None,
    base_revision: int | None = None,
) -> Pipeline:
    """Rename a pipeline and/or replace its working copy.

    A new document is validated first and bumps the revision. With
    `base_revision`, the change is refused (`stale-revision`) unless the
    pipeline is still at that revision, so a client never overwrites changes it
    has not seen.
    """
    require_role(user=actor, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
    if document is not None:
        document_validate(document=document)
    with transaction.atomic():
        locked = Pipeline.objects.select_for_update().get(pk=pipeline.pk)
        if base_revision is not None and base_revision != locked.revision:
            raise Conflict(
                f"The pipeline is at revision {locked.revision}, not {base_revision}: "
                "reload it and make your change again.",
                code="stale-revision",
                fields={"revision": [f"The current revision is {locked.revision}."]},
            )
        changed: list[str] = []
        if name is not None and name != locked.name:
            locked.name = name
            changed.append("name")
        if isinstance(document, dict) and document != locked.document:
            locked.document = document
            locked.revision += 1
            changed += ["snapshot", "snapshot_revision", "revision"]
        if changed:
            locked.save(update_fields=[*changed, "updated_at"])
        if "snapshot" in changed:
            drop_old_edits(pipeline_id=locked.pk, snapshot_revision=locked.revision)
            replaced = DocumentReplaced(
                revision=locked.revision,
                document=locked.document,
                plan=pipeline_live_plan(
                    pipeline_id=locked.pk, revision=locked.revision, document=locked.document
                ),
            )
            # Co-editors are told after commit; their pending edits will conflict.
            publish_after_commit(locked.pk, replaced)
    return locked


def pipeline_delete(*, pipeline: Pipeline, actor: Actor) -> None:
    """Delete a pipeline with its versions."""
    require_role(user=actor, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
    pipeline.delete()


def version_create(*, pipeline: Pipeline, actor: Actor, message: str = "") -> PipelineVersion:
    """Save the working copy as the pipeline's next version (1, 2, ...)."""
    user = authenticated_user(actor)
    require_role(user=user, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
    with transaction.atomic():
        # The row lock serialises numbering: the next number is read and used
        # by one transaction at a time.
        locked = Pipeline.objects.select_for_update().get(pk=pipeline.pk)
        last = PipelineVersion.objects.filter(pipeline=locked).aggregate(last=Max("number"))
        version = PipelineVersion.objects.create(
            pipeline=locked,
            number=(last["last"] or 0) + 1,
            document=locked.document,
            revision=locked.revision,
            message=message,
            author=user,
        )
        saved = VersionSaved(
            number=version.number,
            revision=version.revision,
            message=message,
            user=UserRef(id=user.pk, username=user.get_username()),
        )
        publish_after_commit(locked.pk, saved)
        return version
