"""Service: apply a co-editing operation to a pipeline's working copy.

One edit at a time per pipeline (the row is locked), by a user who is an editor or
owner of its workspace at that moment (checked under the lock: the role a socket saw
when it connected proves nothing), against the revision its author saw: an edit on an
older revision is rebased over the edits stored since when it conflicts with none of
them (`compiler.edits.find_conflict`), else it is rejected and nothing changes. An
applied edit is stored with its revision and broadcast, after commit, with the plan
delta it caused.

The live plan is the compiler's (`compiler.liveplan`) with the problems that would stop
a run and the warnings about unpinned state appended to its diagnostics
(`pipelines.documents.with_document_diagnostics`). The working copy of a pipeline being
edited stays parsed and compiled in this process (`pipelines.livemodel.LiveModel`, per
pipeline and revision) and each edit recomputes only what it can change. The database's
revision is the truth: a process whose model is not of the stored revision (another
process edited meanwhile) loads the stored document again.
"""

from __future__ import annotations

import gc
import json
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from accounts.models import Role
from accounts.selectors import membership_role
from compiler.edits import Edit, EditRejected, find_conflict
from compiler.liveplan import live_plan
from compiler.pipeline import compile_document
from config.errors import DocumentTooLarge
from config.messages import ErrorBody, UserRef
from pipelines.documents import (
    document_bytes,
    document_check_size,
    with_document_diagnostics,
)
from pipelines.events import EditApplied, publish_after_commit
from pipelines.livemodel import EditUnreadable, LiveModel
from pipelines.models import Pipeline, PipelineEdit

V = TypeVar("V")

_CACHE_SIZE = 8
# Recent revisions of working copies, parsed and compiled, in this process. A revision
# never changes once written, so an entry is valid for as long as it is kept; consecutive
# revisions share all an edit left alone.
_models: OrderedDict[tuple[int, int], LiveModel] = OrderedDict()
_sizes: OrderedDict[tuple[int, int], int] = OrderedDict()
"""An upper bound of each cached revision's `document_bytes`: edits add to it what they can
add at most, and only a bound beyond the limit costs encoding the whole document."""


def document_live_plan(*, document: dict[str, Any]) -> dict[str, Any]:
    """The `liveplan/v1` of a document: the compiler's, with the run problems and state
    warnings appended."""
    return _with_document_diagnostics(live_plan(compile_document(document)), document)


def pipeline_cached_model(*, pipeline_id: int, revision: int) -> LiveModel | None:
    """This process's model of a pipeline revision, if it holds one."""
    key = (pipeline_id, revision)
    model = _models.get(key)
    if model is not None:
        _models.move_to_end(key)
    return model


def pipeline_live_model(
    *,
    pipeline_id: int,
    revision: int,
    document: dict[str, Any] | None = None,
    pipeline: Pipeline | None = None,
) -> LiveModel:
    """The model of a pipeline revision: this process's, else built from `document`, else
    from `pipeline`'s working copy (a row read whole, at that revision), else from the
    stored one (read under the row lock the caller holds)."""
    model = pipeline_cached_model(pipeline_id=pipeline_id, revision=revision)
    if model is not None:
        return model
    if document is None:
        if pipeline is None:
            pipeline = Pipeline.objects.get(pk=pipeline_id)
        assert pipeline.revision == revision
        document = pipeline.document
    model = LiveModel.build(document)
    key = (pipeline_id, revision)
    size = _size_bound(key, document)
    transaction.on_commit(lambda: _remember_model(key, model, size))
    if len(document.get("nodes", ())) >= FREEZE_NODES:
        _keep_from_the_collector()
    return model


FREEZE_NODES = 1_000
"""A model of this many operators is kept from the cyclic collector's full passes."""


_EDITS_BETWEEN_COLLECTIONS = 1_000
_edits_since_collection = 0


def _remember_edited(key: tuple[int, int], model: LiveModel, size: int) -> None:
    _remember_model(key, model, size)
    if len(model.document.get("nodes", ())) >= FREEZE_NODES:
        _settle()


def _settle() -> None:
    """After an edit of a large model: the objects it made are long-lived too, and full
    passes of the cyclic collector over them paused the edits after it for tens of
    milliseconds, so they are frozen with the rest (`gc.freeze` costs nothing: it moves
    lists). Cycles that become garbage while frozen wait for the full collection every
    `_EDITS_BETWEEN_COLLECTIONS` such edits."""
    global _edits_since_collection
    _edits_since_collection += 1
    if _edits_since_collection >= _EDITS_BETWEEN_COLLECTIONS:
        _edits_since_collection = 0
        _keep_from_the_collector()
    else:
        gc.freeze()


@contextmanager
def _collector_paused(model: LiveModel) -> Iterator[None]:
    """The cyclic collector paused while a large model is edited: the edit makes thousands
    of objects that outlive it and no cycles, and the collector's passes over them cost a
    tenth of an edit that breaks a chain of 5,000 operators."""
    if len(model.document.get("nodes", ())) < FREEZE_NODES or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _keep_from_the_collector() -> None:
    """Move every object alive now out of the cyclic collector's reach (`gc.freeze`): a
    large model is long-lived, and full passes walking it paused edits of 5,000 operators
    for tens of milliseconds. What was frozen before is collected first, so a cycle that
    was alive at the last freeze and is garbage now is freed here, not kept for ever (the
    models hold no cycles: refcounting frees them, frozen or not)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def pipeline_live_plan(
    *, pipeline_id: int, revision: int, document: dict[str, Any]
) -> dict[str, Any]:
    """The `liveplan/v1` of a pipeline revision (cached: clients join and edit often)."""
    return pipeline_live_model(pipeline_id=pipeline_id, revision=revision, document=document).plan


def _with_document_diagnostics(plan: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    diagnostics = with_document_diagnostics(plan["diagnostics"], document=document)
    return {**plan, "diagnostics": diagnostics}


def _remember(cache: OrderedDict[tuple[int, int], V], key: tuple[int, int], value: V) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)


def _remember_model(key: tuple[int, int], model: LiveModel, size: int) -> None:
    """Keep `model` of a committed revision (called on commit: a revision that is never
    committed may be written again with another document, which a model kept of it would
    hide), within `_CACHE_SIZE` models and `LIVE_MODEL_CACHE_BYTES` of their documents
    (a model takes about 20 times its document's JSON in memory); the newest is kept."""
    _remember(_sizes, key, size)
    _remember(_models, key, model)
    budget = settings.LIVE_MODEL_CACHE_BYTES
    while len(_models) > 1 and sum(_sizes.get(k, 0) for k in _models) > budget:
        oldest = next(iter(_models))
        del _models[oldest]


def _size_bound(key: tuple[int, int], document: dict[str, Any]) -> int:
    size = _sizes.get(key)
    if size is None:
        size = document_bytes(document)
        _remember(_sizes, key, size)
    return size


def _growth_bound(applied: Edit) -> int:
    """At most what an edit adds to a document's JSON: its own JSON, twice over (a dotted
    field path such as `ui.color` becomes nested objects), plus separators."""
    return 2 * len(json.dumps(applied.to_json(), ensure_ascii=False).encode("utf-8")) + 64


def edits_between_snapshots(document_size: int) -> int:
    """After how many edits stored as operations a working copy of about this many JSON
    bytes is stored whole again (`PIPELINE_SNAPSHOT_BYTES_PER_EDIT`)."""
    sized = document_size // settings.PIPELINE_SNAPSHOT_BYTES_PER_EDIT
    return max(settings.PIPELINE_SNAPSHOT_EDITS, min(sized, settings.PIPELINE_SNAPSHOT_MAX_EDITS))


def drop_old_edits(*, pipeline_id: int, snapshot_revision: int) -> None:
    """After the working copy was stored whole at `snapshot_revision`: delete the stored
    operations of more than `PIPELINE_EDITS_KEPT` revisions before it, so the edit log of
    a pipeline edited for years stays as long as its recent past. Reading the working copy
    starts at the snapshot; a client that is behind rebases onto the operations after its
    revision, and one further behind than what is kept reloads."""
    oldest_kept = snapshot_revision - settings.PIPELINE_EDITS_KEPT
    PipelineEdit.objects.filter(pipeline_id=pipeline_id, revision__lte=oldest_kept).delete()


Reason = Literal["conflict", "invalid", "forbidden"]


@dataclass(frozen=True, slots=True)
class EditOutcome:
    revision: int
    """The revision after the call (unchanged when rejected)."""
    applied: EditApplied | None = None
    reason: Reason | None = None
    error: ErrorBody | None = None


def _edit_refusal(user: User, workspace_id: int) -> tuple[str, str] | None:
    """(code, message) if the user may not edit the workspace's pipelines now."""
    role = membership_role(user=user, workspace=workspace_id)
    if role is None:
        return "not-found", "you are no longer a member of this pipeline's workspace"
    if not role.allows(Role.EDITOR):
        return (
            "permission-denied",
            f"your role in this workspace is {role.label.lower()} now: only editors and "
            "owners may edit",
        )
    return None


def _rejection(
    revision: int,
    reason: Reason,
    code: str,
    message: str,
    diagnostics: list[dict[str, Any]] | None = None,
) -> EditOutcome:
    return EditOutcome(
        revision=revision,
        reason=reason,
        error=ErrorBody(code=code, message=message, diagnostics=diagnostics or []),
    )


def _rejected_edit(revision: int, error: EditRejected) -> EditOutcome:
    location = {"node": error.node, "edge": error.edge, "field": error.field}
    diagnostic = {"code": error.code, "severity": "error", "message": error.message, **location}
    return _rejection(revision, "invalid", error.code, error.message, [diagnostic])


def pipeline_apply_edit(
    *,
    pipeline_id: int,
    user: User,
    base_revision: int,
    edit: dict[str, Any],
    op_id: str,
    client_id: str,
) -> EditOutcome:
    try:
        parsed = Edit.from_json(edit)
    except EditRejected as error:
        stored = Pipeline.objects.values_list("revision", flat=True).filter(pk=pipeline_id)
        return _rejected_edit(stored.first() or 0, error)
    with transaction.atomic():
        # The document is loaded only when this process does not hold that revision.
        pipeline = (
            Pipeline.objects.select_for_update().defer("snapshot").filter(pk=pipeline_id).first()
        )
        if pipeline is None:
            return _rejection(0, "forbidden", "not-found", "the pipeline was deleted")
        current = pipeline.revision
        # The role now, under the row lock: not the one the socket saw when it opened.
        refusal = _edit_refusal(user, pipeline.workspace_id)
        if refusal is not None:
            return _rejection(current, "forbidden", *refusal)
        if base_revision > current:
            return _rejection(
                current,
                "invalid",
                "edit.revision",
                f"revision {base_revision} does not exist yet (the pipeline is at {current})",
            )
        rebased = base_revision < current
        if rebased:
            since = list(
                PipelineEdit.objects.filter(pipeline=pipeline, revision__gt=base_revision)
                .order_by("revision")
                .values_list("revision", "operation")
            )
            if len(since) != current - base_revision:
                return _rejection(
                    current,
                    "conflict",
                    "edit.conflict",
                    f"the changes made after revision {base_revision} are not all stored "
                    "as edits (the document was replaced, or your copy is more than "
                    f"{settings.PIPELINE_EDITS_KEPT} revisions behind); reload it and make "
                    "the edit again",
                )
            reason = find_conflict(parsed, [(r, Edit.from_json(op)) for r, op in since])
            if reason is not None:
                return _rejection(
                    current,
                    "conflict",
                    "edit.conflict",
                    f"conflict: {reason}; your edit was not applied",
                )
        key = (pipeline.pk, current)
        model = pipeline_live_model(pipeline_id=pipeline.pk, revision=current)
        try:
            with _collector_paused(model):
                new_model, applied = model.apply(parsed)
            size = _size_bound(key, model.document) + _growth_bound(applied)
            if size > settings.PIPELINE_MAX_DOCUMENT_BYTES:
                size = document_bytes(new_model.document)
            document_check_size(document=new_model.document, size=size)
        except EditRejected as error:
            return _rejected_edit(current, error)
        except EditUnreadable as error:
            return _rejection(
                current,
                "invalid",
                "invalid-document",
                "the edit would make the document unreadable: " + str(error),
                error.diagnostics,
            )
        except DocumentTooLarge as error:
            return _rejection(
                current,
                "invalid",
                error.code,
                error.message,
                [d.to_json() for d in error.diagnostics],
            )
        new_document = new_model.document
        revision = current + 1
        fields = ["snapshot_revision", "revision", "updated_at"]
        base = current if pipeline.snapshot_revision is None else pipeline.snapshot_revision
        if revision - base >= edits_between_snapshots(size):
            pipeline.document = new_document  # a new snapshot: the log replays from here
            fields.append("snapshot")
        else:
            pipeline.snapshot_revision = base  # the stored operation makes the revision
        pipeline.revision = revision
        pipeline.save(update_fields=fields)
        if "snapshot" in fields:
            drop_old_edits(pipeline_id=pipeline.pk, snapshot_revision=revision)
        PipelineEdit.objects.create(
            pipeline=pipeline, revision=revision, operation=applied.to_json(), author=user
        )
        delta = new_model.delta_from(model)
        message = EditApplied(
            revision=revision,
            clientId=client_id,
            user=UserRef(id=user.pk, username=user.get_username()),
            opId=op_id,
            edit=applied.to_json(),
            rebased=rebased,
            planDelta=delta,
        )
        publish_after_commit(pipeline.pk, message)
        # After the broadcast: keeping the model may evict an old one, and freeing its
        # thousands of objects is nothing the co-editors need to wait for.
        key = (pipeline.pk, revision)
        transaction.on_commit(lambda: _remember_edited(key, new_model, size))
    return EditOutcome(revision=revision, applied=message)
