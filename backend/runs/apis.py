"""HTTP endpoints of the runs app: start, list, read, cancel, and the stored journal.

Views parse input with a serializer and call one service or selector; the bodies are
the selectors' dicts, the same the run monitor websocket sends.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Role
from accounts.permissions import authenticated_user, require_role
from config.errors import NotFound
from config.openapi import error_responses
from pipelines.selectors import pipeline_get_for_user
from runs import selectors, services
from runs.clusters import cluster_list
from runs.events import RunDetail, RunSummaries
from runs.models import Run
from runs.serializers import (
    ClusterSerializer,
    JournalEntrySerializer,
    JournalQuerySerializer,
    RunStartSerializer,
)
from runtime.clusters import DEFAULT


def _run(request: Request, run_id: int) -> Run:
    return selectors.run_get_for_user(user=request.user, run_id=run_id)


def _detail(run_id: int) -> dict[str, Any]:
    detail = selectors.run_detail(run_id=run_id)
    if detail is None:
        raise NotFound(selectors.RUN_NOT_FOUND)
    return detail


class RunListApi(APIView):
    @extend_schema(
        operation_id="runs_list",
        tags=["runs"],
        responses={200: RunSummaries, **error_responses(404)},
        summary="A pipeline's runs, newest first",
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        pipeline = pipeline_get_for_user(user=request.user, pipeline_id=pipeline_id)
        runs = selectors.run_list(pipeline=pipeline)
        return Response([selectors.run_summary(run) for run in runs])

    @extend_schema(
        operation_id="runs_start",
        tags=["runs"],
        request=RunStartSerializer,
        responses={201: RunDetail, **error_responses(400, 403, 404)},
        summary="Run a saved version (editors; owners may choose the cluster)",
        description="Checks the version as the editor does (compiled plan, operator "
        "parameters, graph shape) and against the cluster's limits, and queues the run; a "
        "version that cannot run is a 400 `not-runnable` whose diagnostics name the node, "
        "edge and field. Where the workspace's review policy runs approved versions only, an "
        "unapproved one is a 400 `version-not-approved`. Follow the run at `ws/runs/<id>/`.",
    )
    def post(self, request: Request, pipeline_id: int) -> Response:
        pipeline = pipeline_get_for_user(user=request.user, pipeline_id=pipeline_id)
        require_role(user=request.user, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
        data = RunStartSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        run = services.run_start(
            pipeline=pipeline,
            actor=request.user,
            version=data.validated_data["version"],
            cluster=data.validated_data.get("cluster"),
            parameters=data.validated_data.get("parameters"),
        )
        return Response(_detail(run.pk), status=status.HTTP_201_CREATED)


class RunDetailApi(APIView):
    @extend_schema(
        operation_id="runs_retrieve",
        tags=["runs"],
        responses={200: RunDetail, **error_responses(404)},
        summary="A run: status, every vertex and subtask, sink previews",
    )
    def get(self, request: Request, run_id: int) -> Response:
        return Response(_detail(_run(request, run_id).pk))


class RunCancelApi(APIView):
    @extend_schema(
        operation_id="runs_cancel",
        tags=["runs"],
        request=None,
        responses={200: RunDetail, **error_responses(403, 404, 409)},
        summary="Cancel a run (editors)",
        description="A queued run ends CANCELED at once; a running one goes CANCELING, its "
        "Spark work stops and its subtasks end CANCELED. A run that has ended is a 409 "
        "`run-ended`.",
    )
    def post(self, request: Request, run_id: int) -> Response:
        run = _run(request, run_id)
        services.run_cancel(run=run, actor=request.user)
        return Response(_detail(run.pk))


class RunJournalApi(APIView):
    @extend_schema(
        operation_id="runs_journal",
        tags=["runs"],
        parameters=[JournalQuerySerializer],
        responses={200: JournalEntrySerializer(many=True), **error_responses(400, 404)},
        summary="A run's stored journal: the events and changes after `after`, in order",
    )
    def get(self, request: Request, run_id: int) -> Response:
        run = _run(request, run_id)
        query = JournalQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        entries = selectors.run_journal(
            run=run, after=query.validated_data["after"], limit=query.validated_data["limit"]
        )
        return Response(JournalEntrySerializer(entries, many=True).data)


class ClusterListApi(APIView):
    @extend_schema(
        operation_id="clusters_list",
        tags=["runs"],
        responses={200: ClusterSerializer(many=True), **error_responses()},
        summary="The clusters runs may use, by name, with their limits",
    )
    def get(self, request: Request) -> Response:
        authenticated_user(request.user)
        return Response(
            [
                {
                    "name": profile.name,
                    "default": profile.name == DEFAULT,
                    "local": profile.is_local,
                    "maxParallelism": profile.max_parallelism,
                    "maxSubtasks": profile.max_subtasks,
                }
                for profile in cluster_list().values()
            ]
        )
