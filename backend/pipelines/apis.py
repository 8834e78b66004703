"""HTTP endpoints of the pipelines app.

Views parse input with a serializer, call one selector or service, and
serialize the result. The services check roles themselves; a view that takes a
body checks the role first too, so a viewer gets 403 whatever they send.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.http import parse_etags
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Role
from accounts.permissions import authenticated_user, require_role
from config.errors import NotFound, error_payload
from config.openapi import error_responses
from pipelines import events, selectors, services
from pipelines.documents import STREAMGRAPH
from pipelines.models import Pipeline
from pipelines.rates import ensure_rescale_allowed
from pipelines.serializers import (
    VERSION_REF_PATTERN,
    DiffQuerySerializer,
    DiffSerializer,
    ExportQuerySerializer,
    PipelineCreateSerializer,
    PipelineDetailSerializer,
    PipelineEditorSerializer,
    PipelineImportedSerializer,
    PipelineImportSerializer,
    PipelineListQuerySerializer,
    PipelineSerializer,
    PipelineUpdateSerializer,
    PlanSerializer,
    RescaleQuerySerializer,
    VersionCreateSerializer,
    VersionDetailSerializer,
    VersionQuerySerializer,
    VersionSerializer,
)

_NO_CONTENT = {204: OpenApiResponse(description="Done; no body.")}
# The catalog changes only with a deploy: browsers reuse it for a while, then revalidate.
_CATALOG_CACHE_CONTROL = "private, max-age=300, must-revalidate"
_VERSION_REF = {"type": "string", "pattern": VERSION_REF_PATTERN}


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """Liveness probe: answers while the process can serve requests."""
    return JsonResponse({"status": "ok"})


@csrf_exempt  # nothing happens here, so a cookie without a CSRF token changes nothing
def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Any other path under /api/: a 404 in the API's error shape."""
    message = f"No API endpoint at {request.path}."
    if not request.path.endswith("/") and _is_endpoint(f"{request.path}/"):
        message += f" API paths end with a slash: {request.path}/"
    error = NotFound(message)
    return JsonResponse(error_payload(error), status=error.status_code)


def _is_endpoint(path: str) -> bool:
    try:
        return resolve(path).func is not api_not_found
    except Resolver404:
        return False


def _query(serializer_class: type[Any], request: Request) -> dict[str, Any]:
    query = serializer_class(data=request.query_params)
    query.is_valid(raise_exception=True)
    return dict(query.validated_data)


def _pipeline(request: Request, pipeline_id: int) -> Pipeline:
    return selectors.pipeline_get_for_user(user=request.user, pipeline_id=pipeline_id)


class PipelineListApi(APIView):
    @extend_schema(
        operation_id="pipelines_list",
        tags=["pipelines"],
        parameters=[PipelineListQuerySerializer],
        responses={200: PipelineSerializer(many=True), **error_responses(400, 404)},
        summary="Pipelines of your workspaces (documents left out)",
    )
    def get(self, request: Request) -> Response:
        query = _query(PipelineListQuerySerializer, request)
        pipelines = selectors.pipeline_list_for_user(
            user=request.user, workspace_id=query.get("workspace")
        )
        return Response(PipelineSerializer(pipelines, many=True).data)

    @extend_schema(
        operation_id="pipelines_create",
        tags=["pipelines"],
        request=PipelineCreateSerializer,
        responses={201: PipelineDetailSerializer, **error_responses(400, 403, 404)},
        summary="Create a pipeline in a workspace (editors)",
    )
    def post(self, request: Request) -> Response:
        data = PipelineCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        pipeline = services.pipeline_create(
            workspace=data.validated_data["workspace"],
            actor=request.user,
            name=data.validated_data["name"],
            document=data.validated_data.get("document"),
        )
        return Response(PipelineDetailSerializer(pipeline).data, status=status.HTTP_201_CREATED)


class PipelineSummaryApi(APIView):
    @extend_schema(
        operation_id="pipelines_summary",
        tags=["pipelines"],
        responses={200: PipelineEditorSerializer, **error_responses(404)},
        summary="A pipeline without its working copy, and your role (what the editor reads)",
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        summary = selectors.pipeline_editor_summary(user=request.user, pipeline_id=pipeline_id)
        return Response(PipelineEditorSerializer(summary).data)


class PipelineDetailApi(APIView):
    @extend_schema(
        operation_id="pipelines_retrieve",
        tags=["pipelines"],
        responses={200: PipelineDetailSerializer, **error_responses(404)},
        summary="A pipeline with its working copy and revision",
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        return Response(PipelineDetailSerializer(_pipeline(request, pipeline_id)).data)

    @extend_schema(
        operation_id="pipelines_update",
        tags=["pipelines"],
        request=PipelineUpdateSerializer,
        responses={200: PipelineDetailSerializer, **error_responses(400, 403, 404, 409)},
        summary="Rename a pipeline or replace its working copy (editors)",
    )
    def patch(self, request: Request, pipeline_id: int) -> Response:
        pipeline = _pipeline(request, pipeline_id)
        require_role(user=request.user, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
        data = PipelineUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        updated = services.pipeline_update(
            pipeline=pipeline,
            actor=request.user,
            name=data.validated_data.get("name"),
            document=data.validated_data.get("document"),
            base_revision=data.validated_data.get("revision"),
        )
        return Response(PipelineDetailSerializer(updated).data)

    @extend_schema(
        operation_id="pipelines_destroy",
        tags=["pipelines"],
        responses={**_NO_CONTENT, **error_responses(403, 404)},
        summary="Delete a pipeline with its versions (editors)",
    )
    def delete(self, request: Request, pipeline_id: int) -> Response:
        services.pipeline_delete(pipeline=_pipeline(request, pipeline_id), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class VersionListApi(APIView):
    @extend_schema(
        operation_id="versions_list",
        tags=["versions"],
        responses={200: VersionSerializer(many=True), **error_responses(404)},
        summary="A pipeline's saved versions, oldest first",
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        versions = selectors.version_list(pipeline=_pipeline(request, pipeline_id))
        return Response(VersionSerializer(versions, many=True).data)

    @extend_schema(
        operation_id="versions_create",
        tags=["versions"],
        request=VersionCreateSerializer,
        responses={201: VersionDetailSerializer, **error_responses(400, 403, 404)},
        summary="Save the working copy as the next immutable version (editors)",
    )
    def post(self, request: Request, pipeline_id: int) -> Response:
        pipeline = _pipeline(request, pipeline_id)
        require_role(user=request.user, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
        data = VersionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        version = services.version_create(
            pipeline=pipeline, actor=request.user, message=data.validated_data["message"]
        )
        return Response(VersionDetailSerializer(version).data, status=status.HTTP_201_CREATED)


class VersionDetailApi(APIView):
    @extend_schema(
        operation_id="versions_retrieve",
        tags=["versions"],
        responses={200: VersionDetailSerializer, **error_responses(404)},
        summary="One saved version with its document",
    )
    def get(self, request: Request, pipeline_id: int, number: int) -> Response:
        version = selectors.version_get(pipeline=_pipeline(request, pipeline_id), number=number)
        return Response(VersionDetailSerializer(version).data)


class PlanApi(APIView):
    @extend_schema(
        operation_id="pipelines_plan",
        tags=["plans"],
        parameters=[VersionQuerySerializer],
        responses={200: PlanSerializer, **error_responses(400, 404)},
        summary="The compiled plan of the working copy or of a version",
        description="`diagnostics` holds the compiler's, then the problems that would stop a "
        'run (`"stage": "run"`), then the warnings about stateful operators without a uid '
        'or uidHash (`"stage": "state"`); only the compiler\'s decide `ok`.',
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        pipeline = _pipeline(request, pipeline_id)
        query = _query(VersionQuerySerializer, request)
        document = selectors.pipeline_document(
            pipeline=pipeline, ref=query.get("version", selectors.WORKING)
        )
        return Response(selectors.pipeline_plan(document=document))


class RescaleApi(APIView):
    @extend_schema(
        operation_id="pipelines_rescale",
        tags=["plans"],
        parameters=[RescaleQuerySerializer],
        responses={200: events.RescaleSimulation, **error_responses(400, 404, 409, 429)},
        summary="Restart a vertex or the whole job from a savepoint at another parallelism",
        description="Per subtask its key groups before and after (as Flink's "
        "`KeyGroupRangeAssignment` assigns them), which old subtasks each new one reads "
        "from and what it keeps, slots, and whether the state's max parallelism allows "
        "it. Without `vertex`, `parallelism` is the job's new default parallelism, which "
        "operators that set their own do not follow. A version that does not compile is a "
        "409 `not-compiled`. The answer judges every vertex but describes a page of them "
        "(`offset`, `limit`). A user may ask RESCALES_PER_MINUTE a minute (429 past it).",
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        pipeline = _pipeline(request, pipeline_id)
        query = _query(RescaleQuerySerializer, request)
        ensure_rescale_allowed(user_id=authenticated_user(request.user).pk)
        simulation = selectors.pipeline_rescale(
            user=request.user,
            pipeline=pipeline,
            ref=query.get("version", selectors.WORKING),
            vertex=query.get("vertex"),
            parallelism=query["parallelism"],
            offset=query["offset"],
            limit=query["limit"],
        )
        return Response(simulation.model_dump(mode="json"))


class OperatorCatalogApi(APIView):
    @extend_schema(
        operation_id="operators_list",
        tags=["operators"],
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="`catalog/v1`: every operator kind the runtime runs, with its "
                "category, inputs, defaults and parameters. Sent with an ETag; cacheable "
                "by the browser.",
            ),
            304: OpenApiResponse(description="Not modified (`If-None-Match`)."),
            **error_responses(),
        },
        summary="The operator catalog the editor's palette and inspector use",
    )
    def get(self, request: Request) -> Response:
        document, etag = selectors.operator_catalog()
        headers = {"ETag": etag, "Cache-Control": _CATALOG_CACHE_CONTROL}
        wanted = parse_etags(request.headers.get("If-None-Match", ""))
        if etag in wanted or "*" in wanted:
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
        return Response(document, headers=headers)


class CompileApi(APIView):
    @extend_schema(
        operation_id="compile",
        tags=["plans"],
        request={"application/json": OpenApiTypes.OBJECT},
        responses={200: PlanSerializer, **error_responses(400)},
        summary="Compile a posted streamgraph/v1 document; nothing is stored",
        description="The body is the document. A document the compiler cannot read is a "
        "400 `invalid-document`; one with other errors compiles to `ok: false` "
        "with its diagnostics.",
    )
    def post(self, request: Request) -> Response:
        plan = selectors.pipeline_plan(document=request.data, reject_unreadable=True)
        return Response(plan)


class ExportApi(APIView):
    def perform_content_negotiation(
        self, request: Request, force: bool = False
    ) -> tuple[BaseRenderer, str]:
        # `format` is the export format here, not DRF's renderer override.
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        operation_id="pipelines_export",
        tags=["import-export"],
        parameters=[ExportQuerySerializer],
        responses={
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="A file download: the streamgraph/v1 document, or Flink's "
                "`getExecutionPlan()` JSON text.",
            ),
            **error_responses(400, 404),
        },
        summary="Download the working copy or a version as streamgraph/v1 or Flink plan JSON",
    )
    def get(self, request: Request, pipeline_id: int) -> HttpResponse:
        pipeline = _pipeline(request, pipeline_id)
        query = _query(ExportQuerySerializer, request)
        text, filename = selectors.pipeline_export(
            pipeline=pipeline,
            export_format=query.get("format", STREAMGRAPH),
            ref=query.get("version", selectors.WORKING),
        )
        response = HttpResponse(text, content_type="application/json; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response


class ImportApi(APIView):
    @extend_schema(
        operation_id="pipelines_import",
        tags=["import-export"],
        request=PipelineImportSerializer,
        responses={201: PipelineImportedSerializer, **error_responses(400, 403, 404)},
        summary="Create a pipeline from a streamgraph/v1 document or a Flink plan (editors)",
    )
    def post(self, request: Request) -> Response:
        data = PipelineImportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        pipeline, source_format = services.pipeline_import(
            workspace=data.validated_data["workspace"],
            actor=request.user,
            content=data.validated_data["content"],
            name=data.validated_data.get("name"),
            file_name=data.validated_data.get("fileName"),
        )
        body = {**PipelineDetailSerializer(pipeline).data, "importedFrom": source_format}
        return Response(body, status=status.HTTP_201_CREATED)


class DiffApi(APIView):
    @extend_schema(
        operation_id="pipelines_diff",
        tags=["plans"],
        parameters=[
            OpenApiParameter(
                "from",
                _VERSION_REF,
                description="A version number or `working`; the latest version if omitted.",
            ),
            OpenApiParameter(
                "to",
                _VERSION_REF,
                description="A version number or `working`; the working copy if omitted.",
            ),
        ],
        responses={200: DiffSerializer, **error_responses(400, 404)},
        summary="What a change does: StreamGraph, JobGraph, ExecutionGraph and savepoint state",
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        pipeline = _pipeline(request, pipeline_id)
        query = _query(DiffQuerySerializer, request)
        diff = selectors.pipeline_diff(
            pipeline=pipeline, old=query.get("from"), new=query.get("to")
        )
        return Response(diff)
