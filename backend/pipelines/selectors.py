"""Reads of pipelines and versions, and what the compiler makes of their documents.

A pipeline outside the user's workspaces is `NotFound`, exactly like one that
does not exist. Nothing here writes.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any, Final, Literal

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.utils.text import slugify

from accounts.models import Role
from accounts.permissions import require_role
from accounts.selectors import membership_role
from compiler.diagnostics import Severity, structural_errors
from compiler.diff import diff_documents
from compiler.document import dump_document
from compiler.execution import ExecutionGraph
from compiler.hashing import to_hex
from compiler.model import Hash128
from compiler.pipeline import Compilation, compile_document
from compiler.render import render_json, render_text
from compiler.rescale import VERTICES_SHOWN, Rescale, RescaleRefused, simulate_rescale
from config.errors import Conflict, DocumentRejected, InvalidRequest, NotFound
from pipelines import events
from pipelines.documents import (
    FLINK_PLAN,
    STREAMGRAPH,
    document_check_size,
    document_extra_diagnostics,
)
from pipelines.models import Pipeline, PipelineVersion
from runtime.catalog import catalog_document
from runtime.imported import import_checklist

PIPELINE_NOT_FOUND = "Pipeline not found."
EXPORT_FORMATS = (STREAMGRAPH, FLINK_PLAN)
WORKING: Final = "working"

VersionRef = int | Literal["working"]
"""A version number, or the working copy."""


def pipeline_list_for_user(
    *, user: AbstractBaseUser | AnonymousUser, workspace_id: int | None = None
) -> QuerySet[Pipeline]:
    """Pipelines of the user's workspaces (of one, if given), without their documents."""
    if not user.is_authenticated:
        return Pipeline.objects.none()
    pipelines = Pipeline.objects.filter(workspace__memberships__user_id=user.pk)
    if workspace_id is not None:
        require_role(user=user, workspace=workspace_id, minimum=Role.VIEWER)
        pipelines = pipelines.filter(workspace_id=workspace_id)
    return (
        pipelines.select_related("created_by")
        .defer("snapshot")
        .order_by("workspace_id", "name", "id")
    )


def pipeline_get_for_user(
    *, user: AbstractBaseUser | AnonymousUser, pipeline_id: int, with_document: bool = True
) -> Pipeline:
    """One pipeline with its working copy (without it: `with_document=False`); `NotFound`
    if missing or not the user's."""
    if not user.is_authenticated:
        raise NotFound(PIPELINE_NOT_FOUND)
    rows = Pipeline.objects.filter(pk=pipeline_id, workspace__memberships__user_id=user.pk)
    if not with_document:
        rows = rows.defer("snapshot")
    pipeline = rows.select_related("created_by").first()
    if pipeline is None:
        raise NotFound(PIPELINE_NOT_FOUND)
    return pipeline


def pipeline_editor_summary(
    *, user: AbstractBaseUser | AnonymousUser, pipeline_id: int
) -> dict[str, Any]:
    """What the editor shows of a pipeline beside the document its socket sends: its
    fields without the working copy, and the user's role (`PipelineEditorSerializer`)."""
    pipeline = pipeline_get_for_user(user=user, pipeline_id=pipeline_id, with_document=False)
    role = membership_role(user=user, workspace=pipeline.workspace_id)
    if role is None:
        raise NotFound(PIPELINE_NOT_FOUND)
    return {
        "id": pipeline.pk,
        "workspace_id": pipeline.workspace_id,
        "name": pipeline.name,
        "revision": pipeline.revision,
        "created_by": pipeline.created_by,
        "created_at": pipeline.created_at,
        "updated_at": pipeline.updated_at,
        "role": role.value,
    }


def version_list(*, pipeline: Pipeline) -> QuerySet[PipelineVersion]:
    """The pipeline's versions, oldest first, without their documents."""
    return (
        PipelineVersion.objects.filter(pipeline=pipeline)
        .select_related("author")
        .defer("document")
        .order_by("number")
    )


def version_get(*, pipeline: Pipeline, number: int) -> PipelineVersion:
    version = (
        PipelineVersion.objects.filter(pipeline=pipeline, number=number)
        .select_related("author")
        .first()
    )
    if version is None:
        raise NotFound(f"The pipeline has no version {number}.")
    return version


def pipeline_document(*, pipeline: Pipeline, ref: VersionRef = WORKING) -> dict[str, Any]:
    """The working copy, or the document of version `ref`."""
    if ref == WORKING:
        return pipeline.document
    return version_get(pipeline=pipeline, number=int(ref)).document


def _execution_summary(compilation: Compilation, execution: ExecutionGraph) -> dict[str, Any]:
    job_graph = compilation.job_graph
    return {
        "totalSubtasks": execution.total_subtasks,
        "slotsRequired": job_graph.slots_required if job_graph is not None else None,
        "vertices": [
            {
                "id": to_hex(vertex.id),
                "name": vertex.job_vertex.name,
                "parallelism": vertex.parallelism,
                "maxParallelism": vertex.max_parallelism,
                "keyGroupRanges": [
                    list(vertex.key_group_range(index)) for index in range(vertex.parallelism)
                ],
            }
            for vertex in execution.vertices
        ],
        "edges": [
            {
                "producer": to_hex(edge.job_edge.producer),
                "consumer": to_hex(edge.job_edge.target),
                "pattern": edge.pattern.value,
                "groups": [
                    {
                        "partitions": [group.partitions[0], group.partitions[-1]],
                        "consumers": [group.consumers[0], group.consumers[-1]],
                    }
                    for group in edge.groups
                ],
            }
            for edge in execution.edges
        ],
    }


def pipeline_plan(*, document: object, reject_unreadable: bool = False) -> dict[str, Any]:
    """The compiled plan of a document, as JSON.

    `ok`, `diagnostics` (the compiler's errors and warnings, then the problems that
    would stop a run, marked `"stage": "run"`, then the warnings about stateful operators
    without a uid or uidHash, marked `"stage": "state"`; only the compiler's decide `ok`),
    `jobGraph` (`jobgraph/v1`), `execution` (a summary of the ExecutionGraph: per
    vertex its parallelism and each subtask's key-group range, per edge its pattern
    and partition groups) and `explain` (`explain/v1`). Without a plan (the document has
    errors) the last three are null. `importChecklist` (`runtime.imported`) is, for a
    pipeline imported from Flink's plan JSON, the catalog kind suggested for each node and
    what is left to fill in before it runs; null for others. With `reject_unreadable`, a
    document the compiler cannot read as a graph is refused (`DocumentRejected`) instead.
    """
    document_check_size(document=document)
    compilation = compile_document(document)
    if reject_unreadable and (blocking := structural_errors(compilation.diagnostics)):
        raise DocumentRejected(blocking)
    plan: dict[str, Any] = {
        "ok": compilation.ok,
        "diagnostics": [d.to_json() for d in compilation.diagnostics]
        + document_extra_diagnostics(document=document),
        "jobGraph": None,
        "execution": None,
        "explain": None,
        "importChecklist": import_checklist(document),
    }
    if compilation.ok and compilation.execution is not None:
        plan["jobGraph"] = render_json(compilation, "jobgraph")
        plan["execution"] = _execution_summary(compilation, compilation.execution)
        plan["explain"] = render_json(compilation, "explain")
    return plan


def pipeline_diff(
    *, pipeline: Pipeline, old: VersionRef | None = None, new: VersionRef | None = None
) -> dict[str, Any]:
    """The `plandiff/v1` between two versions or a version and the working copy.

    `new` defaults to the working copy, `old` to the latest version; before
    the first version is saved, to the working copy without operators, so
    that everything shows as new.
    """
    new_document = pipeline_document(pipeline=pipeline, ref=WORKING if new is None else new)
    if old is None:
        latest = version_list(pipeline=pipeline).last()
        old_document = (
            {**pipeline.document, "nodes": [], "edges": []}
            if latest is None
            else pipeline_document(pipeline=pipeline, ref=latest.number)
        )
    else:
        old_document = pipeline_document(pipeline=pipeline, ref=old)
    diff = diff_documents(old_document, new_document)
    if diff["savepoint"] is not None:  # the shape the browser's types are generated from
        verdict = events.StateVerdict.model_validate(diff["savepoint"])
        diff["savepoint"] = verdict.model_dump(mode="json")
    return diff


def pipeline_export(
    *, pipeline: Pipeline, export_format: str, ref: VersionRef = WORKING
) -> tuple[str, str]:
    """The text and file name of a document export: `streamgraph/v1` or Flink's plan JSON."""
    document = pipeline_document(pipeline=pipeline, ref=ref)
    stem = slugify(pipeline.name) or f"pipeline-{pipeline.pk}"
    if ref != WORKING:
        stem += f"-v{ref}"
    if export_format == STREAMGRAPH:
        return dump_document(document), f"{stem}.streamgraph.json"
    if export_format == FLINK_PLAN:
        compilation = compile_document(document, until="read")
        if compilation.graph is None:
            raise DocumentRejected(compilation.diagnostics)
        return render_text(compilation, "flink-plan"), f"{stem}.plan.json"
    raise ValueError(f"unknown export format {export_format!r}")


def pipeline_rescale(
    *,
    user: AbstractBaseUser | AnonymousUser,
    pipeline: Pipeline,
    ref: VersionRef = WORKING,
    vertex: str | None = None,
    parallelism: int,
    offset: int = 0,
    limit: int = VERTICES_SHOWN,
) -> events.RescaleSimulation:
    """The working copy or version `ref` restarted from a savepoint with `parallelism` for
    the JobVertex `vertex` (its id in hex), or as the whole job's default parallelism
    (`compiler.rescale`), describing `limit` vertices from `offset` on. Any member may
    look; a version that does not compile is a `Conflict` (`not-compiled`), an unknown
    vertex an `InvalidRequest` naming `vertex`."""
    require_role(user=user, workspace=pipeline.workspace_id, minimum=Role.VIEWER)
    document = pipeline_document(pipeline=pipeline, ref=ref)
    compilation = compile_document(document)
    which = "The working copy" if ref == WORKING else f"Version {ref}"
    if not compilation.ok or compilation.execution is None:
        errors = [d for d in compilation.diagnostics if d.severity is Severity.ERROR]
        first = f" ({errors[0].location.describe()}: {errors[0].message})" if errors else ""
        raise Conflict(
            f"{which} does not compile{first}: it has no JobGraph to rescale.",
            code="not-compiled",
            diagnostics=errors,
        )
    rescale = Rescale(parallelism, None if vertex is None else Hash128(int(vertex, 16)))
    try:
        simulation = simulate_rescale(document, rescale, before=compilation)
    except RescaleRefused as refused:
        message = (
            f"{which} has no JobVertex {vertex}."
            if refused.parameter == "vertex"
            else (refused.message)
        )
        raise InvalidRequest(
            f"{refused.parameter}: {message}", fields={refused.parameter: [message]}
        ) from refused
    choices = [
        events.RescaleChoice(
            id=to_hex(v.id),
            name=v.job_vertex.name,
            parallelism=v.parallelism,
            maxParallelism=v.max_parallelism,
            maxParallelismExplicit=not v.max_parallelism_derived,
        )
        for v in compilation.execution.vertices
    ]
    return events.RescaleSimulation.model_validate(
        {
            **simulation.to_json(offset, limit),
            "pipeline": pipeline.pk,
            "version": None if ref == WORKING else int(ref),
            "revision": pipeline.revision if ref == WORKING else None,
            "choices": [choice.model_dump() for choice in choices],
        }
    )


@functools.cache
def operator_catalog() -> tuple[dict[str, Any], str]:
    """The operator catalog (`catalog/v1`, `runtime.catalog`) and its ETag.

    The same for every user for the life of the process: built once.
    """
    document = catalog_document()
    text = json.dumps(document, sort_keys=True, separators=(",", ":"))
    return document, f'"{hashlib.sha256(text.encode()).hexdigest()[:24]}"'
