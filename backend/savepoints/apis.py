"""HTTP endpoints of a pipeline's savepoints: upload (multipart), list, read, relabel or mark
current, delete, and the restore check of a version against one.

Viewers read and check; editors and owners upload, change and delete (the services check the
role again). Bodies are the wire models of `savepoints.events`.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from drf_spectacular.utils import OpenApiResponse, extend_schema
from pydantic import BaseModel
from rest_framework import status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Role
from accounts.permissions import require_role
from compiler.model import Hash128
from compiler.rescale import Rescale
from config.openapi import error_responses
from config.parsers import JSONParser
from pipelines.models import Pipeline
from pipelines.selectors import WORKING, pipeline_get_for_user
from savepoints import events, selectors, services
from savepoints.models import Savepoint
from savepoints.serializers import (
    RestoreCheckQuerySerializer,
    SavepointUpdateSerializer,
    SavepointUploadSerializer,
)
from savepoints.uploads import SavepointUploadHandler


def _body(model: BaseModel, status_code: int = status.HTTP_200_OK) -> Response:
    return Response(model.model_dump(mode="json"), status=status_code)


def _pipeline(request: Request, pipeline_id: int) -> Pipeline:
    return pipeline_get_for_user(user=request.user, pipeline_id=pipeline_id)


def _savepoint(request: Request, pipeline_id: int, savepoint_id: int) -> Savepoint:
    return selectors.savepoint_get(
        pipeline=_pipeline(request, pipeline_id), savepoint_id=savepoint_id
    )


def _data(serializer_class: type[Any], request: Request) -> dict[str, Any]:
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


class SavepointListApi(APIView):
    parser_classes = (MultiPartParser,)

    def initialize_request(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Request:
        if request.method == "POST":
            # Before authentication: a session's CSRF check reads the body. The file streams
            # into this handler, never past the limit.
            request.upload_handlers = [
                SavepointUploadHandler(settings.SAVEPOINT_MAX_BYTES, request)
            ]
        return super().initialize_request(request, *args, **kwargs)

    @extend_schema(
        operation_id="savepoints_list",
        tags=["savepoints"],
        responses={200: events.SavepointSummaries, **error_responses(404)},
        summary="A pipeline's savepoints, newest first",
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        savepoints = selectors.savepoint_list(pipeline=_pipeline(request, pipeline_id))
        return Response(
            [selectors.savepoint_summary(s).model_dump(mode="json") for s in savepoints]
        )

    @extend_schema(
        operation_id="savepoints_create",
        tags=["savepoints"],
        request={"multipart/form-data": SavepointUploadSerializer},
        responses={
            201: events.SavepointDetail,
            **error_responses(400, 403, 404, 409),
            413: OpenApiResponse(description="The file is larger than SAVEPOINT_MAX_BYTES."),
        },
        summary="Upload a savepoint's _metadata file (editors)",
        description="The file is read before it is stored: one Flink did not write is "
        "refused with the byte offset where it stops making sense (`invalid-savepoint`). "
        "A pipeline keeps at most SAVEPOINTS_PER_PIPELINE savepoints and a workspace "
        "SAVEPOINT_BYTES_PER_WORKSPACE bytes of them: past either, 409 `savepoint-quota`.",
    )
    def post(self, request: Request, pipeline_id: int) -> Response:
        pipeline = _pipeline(request, pipeline_id)
        require_role(user=request.user, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
        data = _data(SavepointUploadSerializer, request)
        savepoint = services.savepoint_upload(
            pipeline=pipeline,
            actor=request.user,
            label=data["label"],
            data=data["file"].read(),
            current=data["current"],
            written_by=data.get("writtenBy"),
        )
        return _body(selectors.savepoint_detail(savepoint=savepoint), status.HTTP_201_CREATED)


class SavepointDetailApi(APIView):
    parser_classes = (JSONParser,)

    @extend_schema(
        operation_id="savepoints_retrieve",
        tags=["savepoints"],
        responses={200: events.SavepointDetail, **error_responses(404)},
        summary="One savepoint with its operators' state, in the file's order",
    )
    def get(self, request: Request, pipeline_id: int, savepoint_id: int) -> Response:
        savepoint = _savepoint(request, pipeline_id, savepoint_id)
        return _body(selectors.savepoint_detail(savepoint=savepoint))

    @extend_schema(
        operation_id="savepoints_partial_update",
        tags=["savepoints"],
        request=SavepointUpdateSerializer,
        responses={200: events.SavepointSummary, **error_responses(400, 403, 404)},
        summary="Relabel a savepoint, or make it the current one (editors)",
    )
    def patch(self, request: Request, pipeline_id: int, savepoint_id: int) -> Response:
        savepoint = _savepoint(request, pipeline_id, savepoint_id)
        require_role(
            user=request.user, workspace=savepoint.pipeline.workspace_id, minimum=Role.EDITOR
        )
        data = _data(SavepointUpdateSerializer, request)
        updated = services.savepoint_update(
            savepoint=savepoint,
            actor=request.user,
            label=data.get("label"),
            current=data.get("isCurrent"),
            **({"written_by": data["writtenBy"]} if "writtenBy" in data else {}),
        )
        return _body(selectors.savepoint_summary(updated))

    @extend_schema(
        operation_id="savepoints_destroy",
        tags=["savepoints"],
        responses={
            204: OpenApiResponse(description="Deleted; no body."),
            **error_responses(403, 404),
        },
        summary="Delete a savepoint (editors)",
    )
    def delete(self, request: Request, pipeline_id: int, savepoint_id: int) -> Response:
        savepoint = _savepoint(request, pipeline_id, savepoint_id)
        services.savepoint_delete(savepoint=savepoint, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class RestoreCheckApi(APIView):
    @extend_schema(
        operation_id="savepoints_check",
        tags=["savepoints"],
        parameters=[RestoreCheckQuerySerializer],
        responses={200: events.RestoreCheck, **error_responses(400, 404, 409)},
        summary="Would this version start from the savepoint? What Flink 2.3 does, before it",
        description="Every operator state of the savepoint mapped to the version's operators "
        "(or not, and why), Flink's verdict and message, the operators that start empty, and "
        "warnings Flink never gives. 409 `plan-not-compiled` when the version does not "
        "compile.",
    )
    def get(self, request: Request, pipeline_id: int, savepoint_id: int) -> Response:
        pipeline = _pipeline(request, pipeline_id)
        savepoint = selectors.savepoint_get(pipeline=pipeline, savepoint_id=savepoint_id)
        query = RestoreCheckQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        given = query.validated_data
        vertex = given.get("vertex")
        check = selectors.savepoint_check(
            pipeline=pipeline,
            savepoint=savepoint,
            ref=given.get("version", WORKING),
            allow_non_restored_state=given["allowNonRestoredState"],
            rescale=None
            if "parallelism" not in given
            else Rescale(
                given["parallelism"], None if vertex is None else Hash128(int(vertex, 16))
            ),
        )
        return _body(check)
