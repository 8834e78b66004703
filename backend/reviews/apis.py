"""HTTP endpoints of team review: comment threads, version reviews, the workspace's review
policy, and the signed-in user's inbox.

Views parse input with a serializer, call one service or selector, and answer with a wire
model of `reviews.events` (the OpenAPI schema documents those). The services check roles
themselves; a view that takes a body and needs more than membership checks the role first
too, so a member without it gets 403 whatever they send.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from pydantic import BaseModel
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Role
from accounts.permissions import require_role
from accounts.selectors import workspace_get_for_user
from config.openapi import error_responses
from pipelines.models import Pipeline, PipelineVersion
from pipelines.selectors import WORKING, VersionRef, pipeline_get_for_user, version_get
from reviews import events, selectors, services
from reviews.models import CommentThread, VerdictKind
from reviews.serializers import (
    ApprovalRevokeSerializer,
    AtQuerySerializer,
    CommentBodySerializer,
    MentionListQuerySerializer,
    MentionsReadSerializer,
    PageQuerySerializer,
    ReviewPolicyUpdateSerializer,
    ReviewRequestCreateSerializer,
    ThreadCreateSerializer,
    ThreadListQuerySerializer,
    VerdictCreateSerializer,
)

_NO_CONTENT = {204: OpenApiResponse(description="Done; no body.")}


def _body(model: BaseModel, status_code: int = status.HTTP_200_OK) -> Response:
    return Response(model.model_dump(mode="json"), status=status_code)


def _query(serializer_class: type[Any], request: Request) -> dict[str, Any]:
    query = serializer_class(data=request.query_params)
    query.is_valid(raise_exception=True)
    return dict(query.validated_data)


def _data(serializer_class: type[Any], request: Request) -> dict[str, Any]:
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


def _pipeline(request: Request, pipeline_id: int) -> Pipeline:
    return pipeline_get_for_user(user=request.user, pipeline_id=pipeline_id)


def _thread(request: Request, pipeline_id: int, thread_id: int) -> CommentThread:
    return selectors.thread_get(pipeline=_pipeline(request, pipeline_id), thread_id=thread_id)


def _flag(value: str | None) -> bool | None:
    return None if value is None else value == "true"


# Comments -----------------------------------------------------------------------------------


class CommentListApi(APIView):
    @extend_schema(
        operation_id="comments_list",
        tags=["comments"],
        parameters=[ThreadListQuerySerializer],
        responses={200: events.CommentThreadPage, **error_responses(400, 404)},
        summary="A pipeline's comment threads read at a version or the working copy",
        description="Newest first, `limit` a page. Each thread says whether it is outdated at "
        "`at` (its element is gone there, or its ids changed) and why.",
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        pipeline = _pipeline(request, pipeline_id)
        query = _query(ThreadListQuerySerializer, request)
        page = selectors.thread_list(
            pipeline=pipeline,
            at=query.get("at", WORKING),
            only=selectors.ThreadFilter(
                written_at=query.get("writtenAt"),
                status=query.get("status"),
                outdated=_flag(query.get("outdated")),
                kind=query.get("kind"),
                node=query.get("node"),
            ),
            cursor=query.get("cursor"),
            limit=query["limit"],
        )
        return _body(page)

    @extend_schema(
        operation_id="comments_create",
        tags=["comments"],
        request=ThreadCreateSerializer,
        responses={201: events.CommentThread, **error_responses(400, 404, 409)},
        summary="Open a thread on an element of a version or the working copy (members)",
        description="The answer is the thread read at the version it is written on. A target "
        "that is not in that version is a 400 naming `target.<field>`; a mention of "
        "someone outside the workspace a 400 naming them.",
    )
    def post(self, request: Request, pipeline_id: int) -> Response:
        pipeline = _pipeline(request, pipeline_id)
        data = _data(ThreadCreateSerializer, request)
        target = data["target"]
        version = data.get("version")
        thread = services.thread_create(
            pipeline=pipeline,
            actor=request.user,
            version=version,
            target=services.Target(
                kind=target["kind"],
                node=target.get("node"),
                edge=tuple(target["edge"]) if "edge" in target else None,
                vertex=target.get("vertex"),
            ),
            body=data["body"],
        )
        at: VersionRef = WORKING if version is None else int(version)
        return _body(selectors.thread_detail(thread=thread, at=at), status.HTTP_201_CREATED)


class CommentSummaryApi(APIView):
    @extend_schema(
        operation_id="comments_summary",
        tags=["comments"],
        parameters=[AtQuerySerializer],
        responses={200: events.CommentSummary, **error_responses(400, 404)},
        summary="Thread counts read at a version or the working copy, in all and per element",
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        pipeline = _pipeline(request, pipeline_id)
        query = _query(AtQuerySerializer, request)
        return _body(selectors.comment_summary(pipeline=pipeline, at=query.get("at", WORKING)))


class CommentThreadApi(APIView):
    @extend_schema(
        operation_id="comments_retrieve",
        tags=["comments"],
        parameters=[AtQuerySerializer],
        responses={200: events.CommentThread, **error_responses(400, 404)},
        summary="One thread read at a version or the working copy",
    )
    def get(self, request: Request, pipeline_id: int, thread_id: int) -> Response:
        thread = _thread(request, pipeline_id, thread_id)
        query = _query(AtQuerySerializer, request)
        return _body(selectors.thread_detail(thread=thread, at=query.get("at", WORKING)))


class CommentReplyApi(APIView):
    @extend_schema(
        operation_id="comments_reply",
        tags=["comments"],
        request=CommentBodySerializer,
        responses={201: events.CommentEntry, **error_responses(400, 404, 409)},
        summary="Reply in a thread (members)",
    )
    def post(self, request: Request, pipeline_id: int, thread_id: int) -> Response:
        thread = _thread(request, pipeline_id, thread_id)
        data = _data(CommentBodySerializer, request)
        comment = services.thread_reply(thread=thread, actor=request.user, body=data["body"])
        return _body(selectors.comment_entry_of(comment), status.HTTP_201_CREATED)


class CommentDetailApi(APIView):
    @extend_schema(
        operation_id="comments_update",
        tags=["comments"],
        request=CommentBodySerializer,
        responses={200: events.CommentEntry, **error_responses(400, 403, 404, 409)},
        summary="Edit your own comment (any comment of the thread, the first one too)",
    )
    def patch(
        self, request: Request, pipeline_id: int, thread_id: int, comment_id: int
    ) -> Response:
        comment = selectors.comment_get(
            thread=_thread(request, pipeline_id, thread_id), comment_id=comment_id
        )
        data = _data(CommentBodySerializer, request)
        updated = services.comment_update(comment=comment, actor=request.user, body=data["body"])
        return _body(selectors.comment_entry_of(updated))

    @extend_schema(
        operation_id="comments_destroy",
        tags=["comments"],
        responses={**_NO_CONTENT, **error_responses(403, 404)},
        summary="Delete your own comment: it stays in its thread, empty",
    )
    def delete(
        self, request: Request, pipeline_id: int, thread_id: int, comment_id: int
    ) -> Response:
        comment = selectors.comment_get(
            thread=_thread(request, pipeline_id, thread_id), comment_id=comment_id
        )
        services.comment_delete(comment=comment, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ThreadResolveApi(APIView):
    @extend_schema(
        operation_id="comments_resolve",
        tags=["comments"],
        request=None,
        responses={200: events.CommentThread, **error_responses(403, 404)},
        summary="Resolve a thread (editors, owners and its author)",
    )
    def post(self, request: Request, pipeline_id: int, thread_id: int) -> Response:
        thread = services.thread_resolve(
            thread=_thread(request, pipeline_id, thread_id), actor=request.user
        )
        return _body(selectors.thread_detail(thread=thread))


class ThreadReopenApi(APIView):
    @extend_schema(
        operation_id="comments_reopen",
        tags=["comments"],
        request=None,
        responses={200: events.CommentThread, **error_responses(403, 404)},
        summary="Reopen a resolved thread (editors, owners and its author)",
    )
    def post(self, request: Request, pipeline_id: int, thread_id: int) -> Response:
        thread = services.thread_reopen(
            thread=_thread(request, pipeline_id, thread_id), actor=request.user
        )
        return _body(selectors.thread_detail(thread=thread))


# Reviews ------------------------------------------------------------------------------------


def _version(request: Request, pipeline_id: int, number: int) -> tuple[Pipeline, PipelineVersion]:
    pipeline = _pipeline(request, pipeline_id)
    return pipeline, version_get(pipeline=pipeline, number=number)


class ReviewStatesApi(APIView):
    @extend_schema(
        operation_id="reviews_states",
        tags=["reviews"],
        responses={200: events.ReviewStates, **error_responses(404)},
        summary="Every version's review state, oldest first",
    )
    def get(self, request: Request, pipeline_id: int) -> Response:
        return _body(selectors.review_states(pipeline=_pipeline(request, pipeline_id)))


class VersionReviewApi(APIView):
    @extend_schema(
        operation_id="reviews_retrieve",
        tags=["reviews"],
        responses={200: events.VersionReview, **error_responses(404)},
        summary="A version's review: state, requests, reviewers, and what an approval "
        "must acknowledge",
    )
    def get(self, request: Request, pipeline_id: int, number: int) -> Response:
        pipeline, version = _version(request, pipeline_id, number)
        return _body(
            selectors.version_review(pipeline=pipeline, version=version, viewer=request.user)
        )

    @extend_schema(
        operation_id="reviews_request",
        tags=["reviews"],
        request=ReviewRequestCreateSerializer,
        responses={201: events.VersionReview, **error_responses(400, 403, 404, 409)},
        summary="Ask members to review the latest version (editors)",
        description="Answers the version's review with the new request. A version that is "
        "not the latest is a 409 `version-superseded`; a reviewer who is not a member a 400 "
        "naming them.",
    )
    def post(self, request: Request, pipeline_id: int, number: int) -> Response:
        pipeline, version = _version(request, pipeline_id, number)
        require_role(user=request.user, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
        data = _data(ReviewRequestCreateSerializer, request)
        services.review_request_create(
            version=version,
            actor=request.user,
            reviewers=data["reviewers"],
            message=data["message"],
        )
        review = selectors.version_review(pipeline=pipeline, version=version, viewer=request.user)
        return _body(review, status.HTTP_201_CREATED)


class VerdictCreateApi(APIView):
    @extend_schema(
        operation_id="reviews_verdict",
        tags=["reviews"],
        request=VerdictCreateSerializer,
        responses={201: events.VersionReview, **error_responses(400, 403, 404, 409)},
        summary="Answer a review request you were asked in: approve, request changes, comment",
        description="Answers the version's review with the verdict. Only reviewers of the "
        "request may answer (403 `not-a-reviewer`), and only while the version is the latest "
        "(409 `review-superseded`). An approval must acknowledge exactly the operators of "
        "`stateCheck.operators` (400 `state-not-acknowledged`, whose diagnostics name them); "
        "the author approves only where the policy allows it (403 `self-approval`).",
    )
    def post(self, request: Request, pipeline_id: int, number: int, request_id: int) -> Response:
        pipeline, version = _version(request, pipeline_id, number)
        review_request = selectors.review_request_get(version=version, request_id=request_id)
        data = _data(VerdictCreateSerializer, request)
        services.review_verdict_create(
            request=review_request,
            actor=request.user,
            verdict=VerdictKind(data["verdict"]),
            summary=data["summary"],
            acknowledged=data["acknowledged"],
        )
        review = selectors.version_review(pipeline=pipeline, version=version, viewer=request.user)
        return _body(review, status.HTTP_201_CREATED)


class ApprovalRevokeApi(APIView):
    @extend_schema(
        operation_id="reviews_revoke",
        tags=["reviews"],
        request=ApprovalRevokeSerializer,
        responses={201: events.VersionReview, **error_responses(400, 403, 404, 409)},
        summary="Revoke a past approval, with a reason (owners)",
        description="The approval stays on the record as it was given, with the revocation "
        "beside it, and no longer counts towards the version's state. Only owners may "
        "revoke (403); only an approval (409 `not-an-approval`) that had weight when it was "
        "given (409 `approval-without-weight`), once (409 `already-revoked`); a reason is "
        "required (400). A verdict's `revocable` says whether it may be.",
    )
    def post(
        self, request: Request, pipeline_id: int, number: int, request_id: int, verdict_id: int
    ) -> Response:
        pipeline, version = _version(request, pipeline_id, number)
        review_request = selectors.review_request_get(version=version, request_id=request_id)
        verdict = selectors.verdict_get(request=review_request, verdict_id=verdict_id)
        data = _data(ApprovalRevokeSerializer, request)
        services.approval_revoke(verdict=verdict, actor=request.user, reason=data["reason"])
        review = selectors.version_review(pipeline=pipeline, version=version, viewer=request.user)
        return _body(review, status.HTTP_201_CREATED)


class ReviewPolicyApi(APIView):
    @extend_schema(
        operation_id="review_policy_retrieve",
        tags=["reviews"],
        responses={200: events.ReviewPolicy, **error_responses(404)},
        summary="A workspace's review policy",
    )
    def get(self, request: Request, workspace_id: int) -> Response:
        workspace = workspace_get_for_user(user=request.user, workspace_id=workspace_id)
        return _body(selectors.review_policy_body(workspace_id=workspace.pk))

    @extend_schema(
        operation_id="review_policy_update",
        tags=["reviews"],
        request=ReviewPolicyUpdateSerializer,
        responses={200: events.ReviewPolicy, **error_responses(400, 403, 404)},
        summary="Change a workspace's review policy (owners)",
    )
    def patch(self, request: Request, workspace_id: int) -> Response:
        workspace = workspace_get_for_user(user=request.user, workspace_id=workspace_id)
        require_role(user=request.user, workspace=workspace, minimum=Role.OWNER)
        data = _data(ReviewPolicyUpdateSerializer, request)
        services.review_policy_update(
            workspace=workspace,
            actor=request.user,
            required_approvals=data.get("requiredApprovals"),
            allow_self_approval=data.get("allowSelfApproval"),
            require_approval_to_run=data.get("requireApprovalToRun"),
        )
        return _body(selectors.review_policy_body(workspace_id=workspace.pk))


# The signed-in user's inbox -----------------------------------------------------------------


class InboxApi(APIView):
    @extend_schema(
        operation_id="inbox_retrieve",
        tags=["inbox"],
        responses={200: events.Inbox, **error_responses()},
        summary="How many reviews wait for you, and how many mentions you have not read",
    )
    def get(self, request: Request) -> Response:
        return _body(selectors.inbox(user=request.user))


class WaitingReviewsApi(APIView):
    @extend_schema(
        operation_id="inbox_reviews",
        tags=["inbox"],
        parameters=[PageQuerySerializer],
        responses={200: events.WaitingReviewPage, **error_responses(400)},
        summary="The review requests waiting for you, newest first",
    )
    def get(self, request: Request) -> Response:
        query = _query(PageQuerySerializer, request)
        page = selectors.waiting_reviews(
            user=request.user, cursor=query.get("cursor"), limit=query["limit"]
        )
        return _body(page)


class MentionListApi(APIView):
    @extend_schema(
        operation_id="inbox_mentions",
        tags=["inbox"],
        parameters=[MentionListQuerySerializer],
        responses={200: events.MentionPage, **error_responses(400)},
        summary="Comments that mention you, newest first",
    )
    def get(self, request: Request) -> Response:
        query = _query(MentionListQuerySerializer, request)
        page = selectors.mention_list(
            user=request.user,
            unread=_flag(query.get("unread")),
            cursor=query.get("cursor"),
            limit=query["limit"],
        )
        return _body(page)


class MentionsReadApi(APIView):
    @extend_schema(
        operation_id="inbox_mentions_read",
        tags=["inbox"],
        request=MentionsReadSerializer,
        responses={200: events.Inbox, **error_responses(400)},
        summary="Mark mentions read (these, or all); answers the new counts",
    )
    def post(self, request: Request) -> Response:
        data = _data(MentionsReadSerializer, request)
        services.mention_mark_read(
            actor=request.user,
            mention_ids=data.get("mentions"),
            everything=bool(data.get("all")),
        )
        return _body(selectors.inbox(user=request.user))
