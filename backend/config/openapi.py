"""OpenAPI pieces shared by every API: the error shape as a schema component, and the
wire models (`config.messages`) as components of their own."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import Direction, OpenApiResponse
from rest_framework import serializers

from compiler.diagnostics import Severity
from config.messages import WireMessage

_DESCRIPTIONS = {
    400: "Invalid request, malformed JSON, invalid or too large document.",
    401: "Not authenticated.",
    403: "Your role in the workspace does not allow this.",
    404: "Not found, or not in one of your workspaces.",
    409: "Conflicts with the current state.",
    429: "Too many attempts from your address; `Retry-After` says when to try again.",
    503: "Unavailable for a moment (a service it needs is away); `Retry-After` says when.",
}


DIAGNOSTIC_SEVERITIES = tuple(severity.value for severity in Severity)


class DiagnosticSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable dotted code, e.g. `edge.unknown-node`.")
    severity = serializers.ChoiceField(choices=list(DIAGNOSTIC_SEVERITIES))
    message = serializers.CharField()
    node = serializers.IntegerField(allow_null=True)
    edge = serializers.IntegerField(allow_null=True, help_text="Index in the edge list.")
    field = serializers.CharField(allow_null=True, help_text="Dotted path inside the element.")
    nodes = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="Every node the problem is about, when it is about several (a cycle's); "
        "`node` is the first.",
    )
    edges = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="Every edge (index in the edge list) the problem is about, when several.",
    )


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


class WireModelExtension(OpenApiSerializerExtension):
    """Pydantic models (`config.messages`) as schema components, in OpenAPI 3.0's dialect:
    pydantic writes JSON Schema 2020-12 (`"type": "null"`, `const`, tuples)."""

    target_class = "pydantic.BaseModel"
    match_subclasses = True
    priority = 1  # before drf-spectacular's own pydantic support

    def get_name(self, auto_schema: AutoSchema, direction: Direction) -> str:
        return str(self.target.__name__)

    def map_serializer(self, auto_schema: AutoSchema, direction: Direction) -> dict[str, Any]:
        schema = self.target.model_json_schema(
            ref_template="#/components/schemas/{model}", mode="serialization"
        )
        for name, definition in schema.pop("$defs", {}).items():
            component = ResolvedComponent(
                name=name,
                type=ResolvedComponent.SCHEMA,
                # The model itself where there is one: a model that is a body of its own
                # and a part of another is then one component, not two of the same name.
                object=_wire_models().get(name, name),
                schema=_oas30(definition),
            )
            auto_schema.registry.register_on_missing(component)
        return _oas30(schema)


def _wire_models() -> dict[str, type[WireMessage]]:
    """Every wire model, by name."""
    found: dict[str, type[WireMessage]] = {}
    pending: list[type[WireMessage]] = [WireMessage]
    while pending:
        model = pending.pop()
        found[model.__name__] = model
        pending.extend(model.__subclasses__())
    return found


def _oas30(schema: Any) -> Any:
    """A pydantic JSON Schema in the dialect of OpenAPI 3.0."""
    if isinstance(schema, list):
        return [_oas30(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {
        key: _oas30(value)
        for key, value in schema.items()
        if key not in ("tsType", "propertyNames", "title") or not isinstance(value, str | dict)
    }
    if "const" in result:
        result["enum"] = [result.pop("const")]
    if "prefixItems" in result:  # a tuple: 3.0 has lists of one item schema
        items = result.pop("prefixItems")
        result["items"] = items[0] if len({str(item) for item in items}) == 1 else {"anyOf": items}
        result["minItems"] = result["maxItems"] = len(items)
    variants = result.get("anyOf")
    if isinstance(variants, list) and {"type": "null"} in variants:
        others = [variant for variant in variants if variant != {"type": "null"}]
        del result["anyOf"]
        if len(others) == 1 and "$ref" not in others[0]:
            result = {**others[0], **result}
        else:
            result["anyOf" if len(others) > 1 else "allOf"] = others
        result["nullable"] = True
    return result
