"""The base of every shape that crosses to the browser, and the shapes all of them share.

Models built on `WireMessage` are the one source of their shape: `config.wire` collects the
browser's into one JSON Schema, from which its TypeScript types are generated, and the
OpenAPI schema takes the REST bodies among them as they are (drf-spectacular's pydantic
support).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from config.errors import ApplicationError, error_payload


class WireMessage(BaseModel):
    """A shape that crosses to the browser: unknown fields are refused, and the JSON Schema
    (`config.wire`, from which the browser's types are generated) lists every field the
    server sends as required, defaults included."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_serialization_defaults_required=True,
        use_attribute_docstrings=True,
    )


def ts_type(name: str) -> Any:
    """The browser's type for a field the server reads as plain JSON (a document, a plan):
    the generated TypeScript uses `name`, which the browser's own reader checks."""
    return Field(json_schema_extra={"tsType": name})


class UserRef(WireMessage):
    id: int
    username: str


class ErrorBody(WireMessage):
    """The project's one error shape (see `config.errors`)."""

    code: str
    message: str
    diagnostics: Annotated[list[dict[str, Any]], ts_type("ServerDiagnostic[]")] = Field(
        default_factory=list
    )
    fields: Annotated[dict[str, Any], ts_type("JsonObject")] = Field(default_factory=dict)

    @classmethod
    def of(cls, error: ApplicationError) -> ErrorBody:
        return cls.model_validate(error_payload(error)["error"])
