"""HTTP endpoints of the accounts app: accounts, tokens, workspaces and their members.

Views parse input with a serializer, call one selector or service, and
serialize the result. The services check roles themselves; a view that takes a
body checks the role first too, so a member without the role gets 403 whatever
they send (and learns nothing from validation, such as which usernames exist).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import attempts, selectors, services
from accounts.models import Role
from accounts.permissions import authenticated_user, require_role
from accounts.serializers import (
    MembershipAddSerializer,
    MembershipChangeSerializer,
    MembershipSerializer,
    RegisteredSerializer,
    RegisterSerializer,
    SocketTicketSerializer,
    TokenRequestSerializer,
    TokenSerializer,
    UserRefSerializer,
    WorkspaceCreateSerializer,
    WorkspaceSerializer,
    WorkspaceUpdateSerializer,
)
from accounts.services import InvalidCredentials
from config.openapi import error_responses

_NO_CONTENT = {204: OpenApiResponse(description="Done; no body.")}


class RegisterApi(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)

    @extend_schema(
        operation_id="auth_register",
        tags=["auth"],
        auth=[],
        request=RegisterSerializer,
        responses={201: RegisteredSerializer, **error_responses(400, 409, 429, 503)},
        summary="Create an account; it comes with an API token and a workspace you own",
    )
    def post(self, request: Request) -> Response:
        address = attempts.client_address(request)
        attempts.ensure_allowed(attempts.Attempt.REGISTER, address)
        attempts.record(attempts.Attempt.REGISTER, address)
        data = RegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        registration = services.user_register(
            username=data.validated_data["username"], password=data.validated_data["password"]
        )
        body = {"token": registration.token, "user": UserRefSerializer(registration.user).data}
        return Response(body, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    """Signing in (POST) takes no credentials, so a stale token cannot stand in its way;
    signing out (DELETE) needs them."""

    _signing_in = False

    def initialize_request(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Request:
        self._signing_in = request.method == "POST"
        return super().initialize_request(request, *args, **kwargs)

    def get_authenticators(self) -> list[BaseAuthentication]:
        return [] if self._signing_in else super().get_authenticators()

    def check_permissions(self, request: Request) -> None:
        if not self._signing_in:
            super().check_permissions(request)

    @extend_schema(
        operation_id="auth_token_obtain",
        tags=["auth"],
        auth=[],
        request=TokenRequestSerializer,
        responses={200: TokenSerializer, **error_responses(400, 429, 503)},
        summary="Exchange a username and password for an API token",
    )
    def post(self, request: Request) -> Response:
        data = TokenRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        address = attempts.client_address(request)
        attempts.ensure_allowed(attempts.Attempt.SIGN_IN, address)
        try:
            token = services.token_obtain(
                username=data.validated_data["username"], password=data.validated_data["password"]
            )
        except InvalidCredentials:
            attempts.record(attempts.Attempt.SIGN_IN, address)
            raise
        return Response({"token": token})

    @extend_schema(
        operation_id="auth_token_destroy",
        tags=["auth"],
        responses={**_NO_CONTENT, **error_responses()},
        summary="Sign out: delete your API token (every client using it is signed out)",
    )
    def delete(self, request: Request) -> Response:
        services.token_delete(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SocketTicketApi(APIView):
    @extend_schema(
        operation_id="auth_socket_ticket",
        tags=["auth"],
        request=None,
        responses={201: SocketTicketSerializer, **error_responses(401, 429)},
        summary="A single-use ticket to open one websocket (`?ticket=`)",
        description="Good for SOCKET_TICKET_SECONDS and one socket, which then stands on "
        "the credential this request was made with: signing out closes it. The URL of a "
        "websocket holds no lasting secret this way.",
    )
    def post(self, request: Request) -> Response:
        ticket = services.socket_ticket_create(
            request_user=request.user,
            auth=request.auth,
            session_key=request.session.session_key if request.auth is None else None,
        )
        body = {"ticket": ticket, "expiresIn": settings.SOCKET_TICKET_SECONDS}
        return Response(body, status=status.HTTP_201_CREATED)


class MeApi(APIView):
    @extend_schema(
        operation_id="auth_me",
        tags=["auth"],
        responses={200: UserRefSerializer, **error_responses()},
        summary="Who you are signed in as",
    )
    def get(self, request: Request) -> Response:
        return Response(UserRefSerializer(authenticated_user(request.user)).data)


class WorkspaceListApi(APIView):
    @extend_schema(
        operation_id="workspaces_list",
        tags=["workspaces"],
        responses={200: WorkspaceSerializer(many=True), **error_responses()},
        summary="The workspaces you are a member of",
    )
    def get(self, request: Request) -> Response:
        workspaces = selectors.workspace_list_for_user(user=request.user)
        return Response(WorkspaceSerializer(workspaces, many=True).data)

    @extend_schema(
        operation_id="workspaces_create",
        tags=["workspaces"],
        request=WorkspaceCreateSerializer,
        responses={201: WorkspaceSerializer, **error_responses(400, 409)},
        summary="Create a workspace; you become its owner",
    )
    def post(self, request: Request) -> Response:
        data = WorkspaceCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticated_user(request.user)
        created = services.workspace_create(
            name=data.validated_data["name"], slug=data.validated_data.get("slug"), owner=user
        )
        workspace = selectors.workspace_get_for_user(user=user, workspace_id=created.pk)
        return Response(WorkspaceSerializer(workspace).data, status=status.HTTP_201_CREATED)


class WorkspaceDetailApi(APIView):
    @extend_schema(
        operation_id="workspaces_retrieve",
        tags=["workspaces"],
        responses={200: WorkspaceSerializer, **error_responses(404)},
    )
    def get(self, request: Request, workspace_id: int) -> Response:
        workspace = selectors.workspace_get_for_user(user=request.user, workspace_id=workspace_id)
        return Response(WorkspaceSerializer(workspace).data)

    @extend_schema(
        operation_id="workspaces_update",
        tags=["workspaces"],
        request=WorkspaceUpdateSerializer,
        responses={200: WorkspaceSerializer, **error_responses(400, 403, 404, 409)},
        summary="Rename a workspace or change its slug (owners)",
    )
    def patch(self, request: Request, workspace_id: int) -> Response:
        workspace = selectors.workspace_get_for_user(user=request.user, workspace_id=workspace_id)
        require_role(user=request.user, workspace=workspace, minimum=Role.OWNER)
        data = WorkspaceUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.workspace_update(
            workspace=workspace,
            actor=request.user,
            name=data.validated_data.get("name"),
            slug=data.validated_data.get("slug"),
        )
        return Response(WorkspaceSerializer(workspace).data)

    @extend_schema(
        operation_id="workspaces_destroy",
        tags=["workspaces"],
        responses={**_NO_CONTENT, **error_responses(403, 404)},
        summary="Delete a workspace with all its pipelines (owners)",
    )
    def delete(self, request: Request, workspace_id: int) -> Response:
        workspace = selectors.workspace_get_for_user(user=request.user, workspace_id=workspace_id)
        services.workspace_delete(workspace=workspace, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemberListApi(APIView):
    @extend_schema(
        operation_id="members_list",
        tags=["members"],
        responses={200: MembershipSerializer(many=True), **error_responses(404)},
        summary="The members of a workspace and their roles",
    )
    def get(self, request: Request, workspace_id: int) -> Response:
        workspace = selectors.workspace_get_for_user(user=request.user, workspace_id=workspace_id)
        members = selectors.membership_list(workspace=workspace)
        return Response(MembershipSerializer(members, many=True).data)

    @extend_schema(
        operation_id="members_create",
        tags=["members"],
        request=MembershipAddSerializer,
        responses={201: MembershipSerializer, **error_responses(400, 403, 404, 409)},
        summary="Add a user to the workspace (owners)",
    )
    def post(self, request: Request, workspace_id: int) -> Response:
        workspace = selectors.workspace_get_for_user(user=request.user, workspace_id=workspace_id)
        require_role(user=request.user, workspace=workspace, minimum=Role.OWNER)
        data = MembershipAddSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = services.membership_add(
            workspace=workspace,
            actor=request.user,
            user=data.validated_data["username"],
            role=Role(data.validated_data["role"]),
        )
        return Response(MembershipSerializer(membership).data, status=status.HTTP_201_CREATED)


class MemberDetailApi(APIView):
    @extend_schema(
        operation_id="members_retrieve",
        tags=["members"],
        responses={200: MembershipSerializer, **error_responses(404)},
    )
    def get(self, request: Request, workspace_id: int, user_id: int) -> Response:
        workspace = selectors.workspace_get_for_user(user=request.user, workspace_id=workspace_id)
        membership = selectors.membership_get(workspace=workspace, user_id=user_id)
        return Response(MembershipSerializer(membership).data)

    @extend_schema(
        operation_id="members_update",
        tags=["members"],
        request=MembershipChangeSerializer,
        responses={200: MembershipSerializer, **error_responses(400, 403, 404, 409)},
        summary="Change a member's role (owners; the last owner stays an owner)",
    )
    def patch(self, request: Request, workspace_id: int, user_id: int) -> Response:
        workspace = selectors.workspace_get_for_user(user=request.user, workspace_id=workspace_id)
        require_role(user=request.user, workspace=workspace, minimum=Role.OWNER)
        data = MembershipChangeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = services.membership_change(
            workspace=workspace,
            actor=request.user,
            user_id=user_id,
            role=Role(data.validated_data["role"]),
        )
        return Response(MembershipSerializer(membership).data)

    @extend_schema(
        operation_id="members_destroy",
        tags=["members"],
        responses={**_NO_CONTENT, **error_responses(403, 404, 409)},
        summary="Remove a member (owners; not the last owner)",
    )
    def delete(self, request: Request, workspace_id: int, user_id: int) -> Response:
        workspace = selectors.workspace_get_for_user(user=request.user, workspace_id=workspace_id)
        services.membership_remove(workspace=workspace, actor=request.user, user_id=user_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WorkspaceLeaveApi(APIView):
    @extend_schema(
        operation_id="workspaces_leave",
        tags=["workspaces"],
        request=None,
        responses={**_NO_CONTENT, **error_responses(404, 409)},
        summary="Leave a workspace (any member; the last owner cannot)",
    )
    def post(self, request: Request, workspace_id: int) -> Response:
        workspace = selectors.workspace_get_for_user(user=request.user, workspace_id=workspace_id)
        services.membership_leave(workspace=workspace, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
