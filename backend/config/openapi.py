"""OpenAPI pieces shared by every API: the error shape as a schema component."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

_DESCRIPTIONS = {
    400: "Invalid request, malformed JSON, invalid or too large document.",
    401: "Not authenticated.",
    403: "Your role in the workspace does not allow this.",
    404: "Not found, or not in one of your workspaces.",
    409: "Conflicts with the current state.",
    429: "Too many attempts from your address; `Retry-After` says when to try again.",
    503: "Unavailable for a moment (a service it needs is away); `Retry-After` says when.",
}


class DiagnosticSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable dotted code, e.g. `edge.unknown-node`.")
    severity = serializers.ChoiceField(choices=["error", "warning"])
    message = serializers.CharField()
    node = serializers.IntegerField(allow_null=True)
    edge = serializers.IntegerField(allow_null=True, help_text="Index in the edge list.")
    field = serializers.CharField(allow_null=True, help_text="Dotted path inside the element.")


class ErrorBodySerializer(serializers.Serializer):
    # Declared in `get_fields`: a `fields` attribute would hide `Serializer.fields`.
    def get_fields(self) -> dict[str, serializers.Field]:
        return {
            "code": serializers.CharField(
                help_text="Stable kebab-case code, e.g. `invalid-document`."
            ),
            "message": serializers.CharField(),
            "diagnostics": DiagnosticSerializer(many=True),
            "fields": serializers.DictField(
                child=serializers.JSONField(), help_text="Messages per request field."
            ),
        }


class ErrorSerializer(serializers.Serializer):
    error = ErrorBodySerializer()


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """Schema responses in the error shape for these statuses (401 is always added)."""
    return {
        status: OpenApiResponse(ErrorSerializer, description=_DESCRIPTIONS[status])
        for status in sorted({401, *statuses})
    }


def close_request_bodies(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: request bodies take no field they do not declare
    (`config.fields.RequestSerializer`), so their components say `additionalProperties:
    false` (with `COMPONENT_SPLIT_REQUEST`, request components end in `Request`)."""
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request") and component.get("type") == "object":
            component["additionalProperties"] = False
    return result
