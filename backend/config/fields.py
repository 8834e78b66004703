"""Serializers and fields that take only what the OpenAPI schema says they take.

DRF is lenient where the schema is not: `CharField` turns the number 0 into the string
"0", a body's unknown fields are ignored and `?name=` means "not given". Requests the schema
calls invalid were accepted. The text fields here refuse anything but a JSON string (and
the NUL character, by a pattern the schema shows); request bodies refuse unknown fields
and query parameters empty values, each with an error that names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

# `+`, not `*`: for a field that may be blank, drf-spectacular adds "or empty" to the schema
# (a `oneOf`), which an empty string must match once only.
_NO_NUL = RegexValidator(r"^[^\x00]+$", "Text may not hold the NUL character.")


class _StringsOnly(serializers.CharField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error_messages["not_text"] = "Not a valid string."
        self.validators.append(_NO_NUL)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_text")
        return str(super().to_internal_value(data))


class TextField(_StringsOnly):
    """A JSON string (`CharField`'s options)."""


class SlugTextField(_StringsOnly, serializers.SlugField):
    """A JSON string that is a slug (`SlugField`'s options)."""


class StrictBooleanField(serializers.BooleanField):
    """A JSON `true` or `false` (DRF's also takes "yes", "on", 1 and more)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class FormBooleanField(serializers.BooleanField):
    """`true` or `false` as a form or a query string sends them (text), or as JSON."""

    def to_internal_value(self, data: Any) -> bool:
        if data in ("true", True):
            return True
        if data in ("false", False):
            return False
        self.fail("invalid", input=data)
        raise AssertionError  # fail raises


_UNKNOWN = "This request has no such field."


# A request body: the fields it declares and nothing else. DRF ignores any other field, so
# a misspelt (or retired) one was silently dropped; here it is an error that names it
# (`retired_fields` says what to do instead). The schema says so too: request components
# are closed (`config.openapi.close_request_bodies`). (Comments, not a docstring: the schema
# takes a serializer's docstring, or its base's, as the description of its body.)
class RequestSerializer(serializers.Serializer):  # type: ignore[type-arg]
    retired_fields: ClassVar[Mapping[str, str]] = {}

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = [name for name in data if name not in self.fields]
            if unknown:
                raise serializers.ValidationError(
                    {name: [self.retired_fields.get(name, _UNKNOWN)] for name in unknown}
                )
        return super().to_internal_value(data)


# Query parameters. DRF reads `?name=` (an empty value) as "not given", which the schema
# cannot say; here it is an error naming the parameter. (A comment: see RequestSerializer.)
class QuerySerializer(serializers.Serializer):  # type: ignore[type-arg]
    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            names: list[str] = list(self.fields)
            empty = [name for name in names if data.get(name) == ""]
            if empty:
                raise serializers.ValidationError(
                    {name: ["Give a value, or leave the parameter out."] for name in empty}
                )
        return super().to_internal_value(data)


DOCUMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "A streamgraph/v1 document (docs/STREAMGRAPH.md): `format`, `nodes` "
    "(each with `id`, `name`, `operator`, `params`, `parallelism`, ...), `edges` (`source`, "
    "`target`, `partitioner`, `typeNumber`, ...), `config`.",
    "required": ["format", "nodes"],
    "properties": {
        "format": {"type": "string", "enum": ["streamgraph/v1"]},
        "nodes": {"type": "array", "items": {"type": "object"}},
        "edges": {"type": "array", "items": {"type": "object"}},
        "config": {"type": "object"},
    },
}


@extend_schema_field(DOCUMENT_SCHEMA)
class DocumentField(serializers.JSONField):
    """A JSON object the compiler reads as a streamgraph/v1 document (it checks the rest)."""


@extend_schema_field(
    {"oneOf": [{"type": "object"}, {"type": "string", "maxLength": 5 * 1024 * 1024}]}
)
class PlanContentField(serializers.JSONField):
    """What an import reads: a document or Flink's plan JSON, as an object or as its text."""
