from django.urls import path

from config import converters  # noqa: F401  (registers <id:...>)
from reviews import apis

_THREAD = "pipelines/<id:pipeline_id>/comments/<id:thread_id>/"
_REVIEWS = "pipelines/<id:pipeline_id>/versions/<id:number>/reviews/"

urlpatterns = [
    path("pipelines/<id:pipeline_id>/comments/", apis.CommentListApi.as_view(), name="comments"),
    path(
        "pipelines/<id:pipeline_id>/comments/summary/",
        apis.CommentSummaryApi.as_view(),
        name="comments-summary",
    ),
    path(_THREAD, apis.CommentThreadApi.as_view(), name="comment-thread"),
    path(_THREAD + "replies/", apis.CommentReplyApi.as_view(), name="comment-replies"),
    path(_THREAD + "resolve/", apis.ThreadResolveApi.as_view(), name="comment-resolve"),
    path(_THREAD + "reopen/", apis.ThreadReopenApi.as_view(), name="comment-reopen"),
    path(_THREAD + "<id:comment_id>/", apis.CommentDetailApi.as_view(), name="comment-detail"),
    path(
        "pipelines/<id:pipeline_id>/reviews/", apis.ReviewStatesApi.as_view(), name="review-states"
    ),
    path(_REVIEWS, apis.VersionReviewApi.as_view(), name="version-reviews"),
    path(
        _REVIEWS + "<id:request_id>/verdicts/",
        apis.VerdictCreateApi.as_view(),
        name="review-verdicts",
    ),
    path(
        _REVIEWS + "<id:request_id>/verdicts/<id:verdict_id>/revoke/",
        apis.ApprovalRevokeApi.as_view(),
        name="review-verdict-revoke",
    ),
    path(
        "workspaces/<id:workspace_id>/review-policy/",
        apis.ReviewPolicyApi.as_view(),
        name="review-policy",
    ),
    path("me/inbox/", apis.InboxApi.as_view(), name="inbox"),
    path("me/reviews/", apis.WaitingReviewsApi.as_view(), name="inbox-reviews"),
    path("me/mentions/", apis.MentionListApi.as_view(), name="inbox-mentions"),
    path("me/mentions/read/", apis.MentionsReadApi.as_view(), name="inbox-mentions-read"),
]
