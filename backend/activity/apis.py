"""HTTP endpoint of a pipeline's activity feed."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from activity.events import ActivityPage
from activity.selectors import activity_list
from config.openapi import error_responses
from pipelines.selectors import pipeline_get_for_user
from reviews.serializers import PageQuerySerializer


class ActivityApi(APIView):
    @extend_schema(
        operation_id="activity_list",
        tags=["activity"],
        parameters=[PageQuerySerializer],
        responses={200: ActivityPage, **error_responses(400, 404)},
        summary="What happened to a pipeline, newest first: versions saved, review requests, "
        "verdicts, comments, runs started and finished",
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        pipeline = pipeline_get_for_user(user=request.user, pipeline_id=pipeline_id)
        query = PageQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        page = activity_list(
            pipeline=pipeline,
            cursor=query.validated_data.get("cursor"),
            limit=query.validated_data["limit"],
        )
        return Response(page.model_dump(mode="json"))
