"""Request and response bodies of the accounts API (camelCase, like the documents)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework import serializers

from accounts.models import Role


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, style={"input_type": "password"})


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")


class RegisterSerializer(TokenRequestSerializer):
    """The same fields as signing in, so what registers is what signs in."""

    username = serializers.CharField(
        max_length=150, help_text="Letters, digits and @ . + - _; not taken in any letter case."
    )
    password = serializers.CharField(
        max_length=4096,
        style={"input_type": "password"},
        help_text="Checked by the server's password rules (length, not common, not all digits, "
        "not like the username).",
    )


class UserRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


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


class WorkspaceCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    slug = serializers.SlugField(
        max_length=100, required=False, help_text="Derived from the name when omitted."
    )


class WorkspaceUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False)
    slug = serializers.SlugField(max_length=100, required=False)


class MembershipSerializer(serializers.Serializer):
    user = UserRefSerializer()
    role = serializers.ChoiceField(choices=Role.choices)
    joinedAt = serializers.DateTimeField(source="created_at")


class MembershipAddSerializer(serializers.Serializer):
    username = serializers.SlugRelatedField(
        slug_field="username",
        queryset=get_user_model().objects.filter(is_active=True),
        error_messages={"does_not_exist": "No active user is called '{value}'."},
    )
    role = serializers.ChoiceField(choices=Role.choices)


class MembershipChangeSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Role.choices)
