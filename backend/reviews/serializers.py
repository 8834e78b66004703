"""Request bodies and query parameters of the reviews API (camelCase, like the documents).

Response bodies are the wire models of `reviews.events`, which the OpenAPI schema and the
browser's types are made from."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from compiler.anchors import ANCHOR_KINDS
from compiler.document import MAX_NODE_ID
from config.converters import MAX_ID
from config.cursors import CURSOR_PATTERN, DEFAULT_LIMIT, MAX_LIMIT
from config.fields import QuerySerializer, RequestSerializer, StrictBooleanField, TextField
from pipelines.serializers import VERSION_REF_PATTERN, VersionRefField
from reviews.models import (
    MAX_REQUIRED_APPROVALS,
    REVOCATION_REASON_MAX,
    ThreadStatus,
    VerdictKind,
)

COMMENT_MAX_CHARS = 10_000
MESSAGE_MAX_CHARS = 2_000
MAX_REVIEWERS = 20
"""A StreamNode id is a Java int."""


class HexIdField(TextField):
    """An OperatorID or JobVertexID: 32 lower-case hex digits."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # First: the schema shows the first pattern a field has.
        self.validators.insert(0, RegexValidator("^[0-9a-f]{32}$", "32 lower-case hex digits."))


class CursorField(TextField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=200, help_text="`next` of the page before.", **kwargs)
        self.validators.insert(0, RegexValidator(CURSOR_PATTERN, "Not a cursor."))


@extend_schema_field({"type": "string", "pattern": VERSION_REF_PATTERN})
class VersionAtField(VersionRefField):
    """A version number or `working`."""


class TargetSerializer(RequestSerializer):
    """What a thread is about: `pipeline`; `node` with `node`; `edge` with `edge`; `vertex`
    with `vertex`."""

    kind = serializers.ChoiceField(choices=list(ANCHOR_KINDS))
    node = serializers.IntegerField(
        min_value=0, max_value=MAX_NODE_ID, required=False, help_text="A node's id."
    )
    edge = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_NODE_ID),
        min_length=4,
        max_length=4,
        required=False,
        help_text="An edge's key: [source, target, typeNumber, k], k counting the earlier "
        "edges with the same three.",
    )
    vertex = HexIdField(required=False, help_text="A JobVertexID of the version's plan.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        kind = attrs["kind"]
        errors: dict[str, list[str]] = {
            name: [f"Not used with kind '{kind}'."]
            for name in ("node", "edge", "vertex")
            if name in attrs and name != kind
        }
        if kind != "pipeline" and kind not in attrs:
            errors[kind] = [f"Required with kind '{kind}'."]
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class ThreadCreateSerializer(RequestSerializer):
    version = serializers.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        required=False,
        allow_null=True,
        help_text="The version the thread is about; null or absent: the working copy.",
    )
    target = TargetSerializer()
    body = TextField(max_length=COMMENT_MAX_CHARS, help_text="`@username` mentions members.")


class CommentBodySerializer(RequestSerializer):
    body = TextField(max_length=COMMENT_MAX_CHARS, help_text="`@username` mentions members.")


class PageQuerySerializer(QuerySerializer):
    cursor = CursorField(required=False)
    limit = serializers.IntegerField(min_value=1, max_value=MAX_LIMIT, default=DEFAULT_LIMIT)


class AtQuerySerializer(QuerySerializer):
    at = VersionAtField(
        required=False, help_text="Read the threads at this version; the working copy if omitted."
    )


class ThreadListQuerySerializer(PageQuerySerializer, AtQuerySerializer):
    writtenAt = VersionAtField(
        required=False, help_text="Only threads written on this version (or `working`)."
    )
    status = serializers.ChoiceField(choices=ThreadStatus.values, required=False)
    outdated = serializers.ChoiceField(
        choices=["true", "false"], required=False, help_text="Only outdated (or current) ones."
    )
    kind = serializers.ChoiceField(choices=list(ANCHOR_KINDS), required=False)
    node = serializers.IntegerField(
        min_value=0,
        max_value=MAX_NODE_ID,
        required=False,
        help_text="Only threads about this node (or the vertex it heads).",
    )


class MentionListQuerySerializer(PageQuerySerializer):
    unread = serializers.ChoiceField(
        choices=["true", "false"], required=False, help_text="Only unread (or read) ones."
    )


class ReviewRequestCreateSerializer(RequestSerializer):
    reviewers = serializers.ListField(
        child=TextField(max_length=150),
        min_length=1,
        max_length=MAX_REVIEWERS,
        help_text="Usernames of workspace members.",
    )
    message = TextField(max_length=MESSAGE_MAX_CHARS, required=False, allow_blank=True, default="")


class VerdictCreateSerializer(RequestSerializer):
    verdict = serializers.ChoiceField(choices=VerdictKind.values)
    summary = TextField(max_length=MESSAGE_MAX_CHARS, required=False, allow_blank=True, default="")
    acknowledged = serializers.ListField(
        child=HexIdField(),
        max_length=5_000,
        required=False,
        default=list,
        help_text="An approval: the ids of exactly the operators whose state the version puts "
        "at risk (`stateCheck.operators` of the version's review). Anything else: empty.",
    )


class ApprovalRevokeSerializer(RequestSerializer):
    reason = TextField(
        max_length=REVOCATION_REASON_MAX,
        help_text="Why the approval no longer stands: kept on the record beside it.",
    )


class ReviewPolicyUpdateSerializer(RequestSerializer):
    requiredApprovals = serializers.IntegerField(
        min_value=0, max_value=MAX_REQUIRED_APPROVALS, required=False
    )
    allowSelfApproval = StrictBooleanField(required=False)
    requireApprovalToRun = StrictBooleanField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs:
            raise serializers.ValidationError(
                {name: ["Give at least one field to change."] for name in list(self.fields)}
            )
        return attrs


class MentionsReadSerializer(RequestSerializer):
    """`mentions` (ids) or `all`: true."""

    def get_fields(self) -> dict[str, serializers.Field]:
        # `all` is a builtin's name, hence the fields declared here.
        return {
            "mentions": serializers.ListField(
                child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
                min_length=1,
                max_length=500,
                required=False,
            ),
            "all": StrictBooleanField(required=False, help_text="Mark every mention read."),
        }

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("mentions" in attrs) == ("all" in attrs):
            raise serializers.ValidationError(
                {
                    "mentions": ["Give either mentions or all."],
                    "all": ["Give either mentions or all."],
                }
            )
        if attrs.get("all") is False:
            raise serializers.ValidationError({"all": ["Give true, or name the mentions."]})
        return attrs
