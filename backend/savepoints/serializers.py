"""Request bodies and query parameters of the savepoints API. Response bodies are the wire
models of `savepoints.events`."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from compiler.model import UPPER_BOUND_MAX_PARALLELISM
from config.converters import MAX_ID
from config.fields import (
    FormBooleanField,
    QuerySerializer,
    RequestSerializer,
    StrictBooleanField,
    TextField,
)
from savepoints.services import LABEL_MAX


class SavepointUploadSerializer(RequestSerializer):
    """`multipart/form-data`: the `_metadata` file of a savepoint or retained checkpoint."""

    file = serializers.FileField(help_text="The savepoint's `_metadata` file.")
    label = TextField(  # type: ignore[assignment]  # a field named like Field.label
        max_length=LABEL_MAX, help_text='What it is, such as "production 2026-11-20".'
    )
    current = FormBooleanField(
        required=False,
        default=False,
        help_text="Make it the savepoint production restores from (`true` or `false`).",
    )
    writtenBy = serializers.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        required=False,
        help_text="The number of the version whose job took it, if known.",
    )


class SavepointUpdateSerializer(RequestSerializer):
    label = TextField(max_length=LABEL_MAX, required=False)  # type: ignore[assignment]
    isCurrent = StrictBooleanField(
        required=False, help_text="Make it the current savepoint, or stop it being so."
    )
    writtenBy = serializers.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        required=False,
        allow_null=True,
        help_text="The number of the version whose job took it; null: not known.",
    )


class RestoreCheckQuerySerializer(QuerySerializer):
    """The version (or the working copy) to check, and optionally that version rescaled:
    `parallelism` for the JobVertex `vertex`, or as the job's default parallelism."""

    version = serializers.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        required=False,
        help_text="A version number; the working copy if omitted.",
    )
    allowNonRestoredState = FormBooleanField(
        required=False,
        default=False,
        help_text="Start even if some state maps to no operator (Flink's "
        "`--allowNonRestoredState`): `true` or `false`.",
    )
    vertex = serializers.RegexField(
        r"^[0-9a-fA-F]{32}$",
        required=False,
        error_messages={"invalid": "Expected a JobVertexID: 32 hexadecimal digits."},
        help_text="Check the version rescaled: the JobVertexID given `parallelism` (the job's "
        "default parallelism if omitted).",
    )
    parallelism = serializers.IntegerField(
        min_value=1,
        max_value=UPPER_BOUND_MAX_PARALLELISM,
        required=False,
        help_text="Check the version rescaled to this parallelism (see `vertex`).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "vertex" in attrs and "parallelism" not in attrs:
            raise serializers.ValidationError(
                {"parallelism": ["Give the parallelism to rescale the vertex to."]}
            )
        if "vertex" in attrs:
            attrs["vertex"] = attrs["vertex"].lower()
        return attrs
