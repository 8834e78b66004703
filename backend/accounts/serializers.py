"""Request and response bodies of the accounts API (camelCase, like the documents)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from drf_spectacular.drainage import set_override
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import Role
from config.fields import RequestSerializer, SlugTextField, TextField


@extend_schema_field({"type": "string", "maxLength": 150, "pattern": r"^[\w.@+-]+$"})
class UsernameTextField(TextField):
    """A new username. The schema states Django's rule for it; the registration service
    checks it with the password, so one answer names every problem of both."""


class TokenRequestSerializer(RequestSerializer):
    username = TextField(max_length=150)
    password = TextField(max_length=4096, style={"input_type": "password"})


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")


class SocketTicketSerializer(serializers.Serializer):
    ticket = serializers.CharField(help_text="Open the socket with `?ticket=<ticket>`.")
    expiresIn = serializers.IntegerField(help_text="Seconds it may wait to be used.")


class RegisterSerializer(TokenRequestSerializer):
    """The same fields as signing in, so what registers is what signs in."""

    username = UsernameTextField(
        max_length=150, help_text="Letters, digits and @ . + - _; not taken in any letter case."
    )
    password = TextField(
        max_length=4096,
        style={"input_type": "password"},
        help_text="Checked by the server's password rules (length, not common, not all digits, "
        "not like the username).",
    )


class UserRefSerializer(serializers.Serializer):
    """`config.messages.UserRef` for DRF responses: the OpenAPI schema has one `UserRef`
    component, the model's (tests/backend/test_schema.py checks the two agree)."""

    id = serializers.IntegerField()
    username = serializers.CharField()


set_override(UserRefSerializer, "suppress_collision_warning", True)


class RegisteredSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")
    user = UserRefSerializer()


class WorkspaceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    slug = serializers.SlugField()
    role = serializers.ChoiceField(
        source="my_role", choices=Role.choices, help_text="Your role in the workspace."
    )
    createdAt = serializers.DateTimeField(source="created_at")


class WorkspaceCreateSerializer(RequestSerializer):
    name = TextField(max_length=200)
    slug = SlugTextField(
        max_length=100, required=False, help_text="Derived from the name when omitted."
    )


class WorkspaceUpdateSerializer(RequestSerializer):
    name = TextField(max_length=200, required=False)
    slug = SlugTextField(max_length=100, required=False)


class MembershipSerializer(serializers.Serializer):
    user = UserRefSerializer()
    role = serializers.ChoiceField(choices=Role.choices)
    joinedAt = serializers.DateTimeField(source="created_at")


class UsernameField(serializers.SlugRelatedField):  # type: ignore[type-arg]
    """An active user, named by a JSON string (not a number that happens to be a name)."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class MembershipAddSerializer(RequestSerializer):
    username = UsernameField(
        slug_field="username",
        queryset=get_user_model().objects.filter(is_active=True),
        error_messages={"does_not_exist": "No active user is called '{value}'."},
    )
    role = serializers.ChoiceField(choices=Role.choices)


class MembershipChangeSerializer(RequestSerializer):
    role = serializers.ChoiceField(choices=Role.choices)
