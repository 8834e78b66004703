from django.urls import path

from accounts import apis
from config import converters  # noqa: F401  (registers <id:...>)

urlpatterns = [
    path("auth/register/", apis.RegisterApi.as_view(), name="auth-register"),
    path("auth/token/", apis.TokenApi.as_view(), name="auth-token"),
    path("auth/me/", apis.MeApi.as_view(), name="auth-me"),
    path("auth/socket-ticket/", apis.SocketTicketApi.as_view(), name="auth-socket-ticket"),
    path("workspaces/", apis.WorkspaceListApi.as_view(), name="workspace-list"),
    path(
        "workspaces/<id:workspace_id>/", apis.WorkspaceDetailApi.as_view(), name="workspace-detail"
    ),
    path(
        "workspaces/<id:workspace_id>/leave/",
        apis.WorkspaceLeaveApi.as_view(),
        name="workspace-leave",
    ),
    path("workspaces/<id:workspace_id>/members/", apis.MemberListApi.as_view(), name="member-list"),
    path(
        "workspaces/<id:workspace_id>/members/<id:user_id>/",
        apis.MemberDetailApi.as_view(),
        name="member-detail",
    ),
]
