"""One error shape for every client error, over REST and websockets alike.

    {"error": {"code": "<stable code>", "message": "<human text>",
               "diagnostics": [<compiler Diagnostic.to_json()>, ...],
               "fields": {"<field>": ["<message>", ...]}}}

Services raise `ApplicationError` subclasses; `exception_handler` (DRF's
`EXCEPTION_HANDLER`) turns those, DRF's own exceptions and Django's
`Http404` / `PermissionDenied` / `ValidationError` / `RequestDataTooBig` into
that shape. A websocket consumer calls `error_payload` and `error_status` on
the same exceptions. `code` is kebab-case and stable: clients match on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.core import exceptions as django_exceptions
from django.db import connections
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults as django_defaults
from rest_framework import exceptions as drf
from rest_framework.response import Response

from compiler.diagnostics import Diagnostic


class ApplicationError(Exception):
    """A client error with a stable code; its subclasses fix the status and code."""

    status_code = 400
    code = "bad-request"
    default_message = "The request is invalid."

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        diagnostics: Sequence[Diagnostic] = (),
        fields: Mapping[str, list[str]] | None = None,
    ) -> None:
        self.message = message or self.default_message
        if code is not None:
            self.code = code
        self.diagnostics = list(diagnostics)
        self.fields = dict(fields or {})
        super().__init__(self.message)


class InvalidRequest(ApplicationError):
    code = "invalid-request"


class MalformedJson(ApplicationError):
    code = "malformed-json"
    default_message = "The request body is not valid JSON."


class NotAuthenticated(ApplicationError):
    status_code = 401
    code = "not-authenticated"
    default_message = "Authentication credentials were not provided."


class PermissionDenied(ApplicationError):
    status_code = 403
    code = "permission-denied"
    default_message = "You do not have permission to do this."


class NotFound(ApplicationError):
    status_code = 404
    code = "not-found"
    default_message = "Not found."


class Conflict(ApplicationError):
    status_code = 409
    code = "conflict"
    default_message = "The request conflicts with the current state."


class ServiceUnavailable(ApplicationError):
    """A service the request needs is away for a moment (Redis); `Retry-After` says when."""

    status_code = 503
    code = "unavailable"
    default_message = "The server cannot do this right now; try again in a few seconds."
    retry_after = 5


class DocumentRejected(ApplicationError):
    """A pipeline document the compiler cannot read; the diagnostics say where."""

    code = "invalid-document"
    default_message = "The document is not a valid streamgraph/v1 document."

    def __init__(self, diagnostics: Sequence[Diagnostic], message: str | None = None) -> None:
        if message is None and diagnostics:
            first, count = diagnostics[0], len(diagnostics)
            message = (
                f"The document has {count} error{'s' if count != 1 else ''}: "
                f"{first.location.describe()}: {first.message}"
            )
        super().__init__(message, diagnostics=diagnostics)


class DocumentTooLarge(ApplicationError):
    code = "document-too-large"
    default_message = "The document is too large."


_DRF_CODES: tuple[tuple[type[drf.APIException], str], ...] = (
    (drf.ParseError, "malformed-json"),
    (drf.ValidationError, "invalid-request"),
    (drf.NotAuthenticated, "not-authenticated"),
    (drf.AuthenticationFailed, "authentication-failed"),
    (drf.PermissionDenied, "permission-denied"),
    (drf.NotFound, "not-found"),
    (drf.MethodNotAllowed, "method-not-allowed"),
    (drf.NotAcceptable, "not-acceptable"),
    (drf.UnsupportedMediaType, "unsupported-media-type"),
    (drf.Throttled, "throttled"),
)


def _plain(detail: Any) -> Any:
    """DRF error details (ErrorDetail, nested lists and dicts) as plain JSON values."""
    if isinstance(detail, dict):
        return {str(key): _plain(value) for key, value in detail.items()}
    if isinstance(detail, list | tuple):
        return [_plain(item) for item in detail]
    return str(detail)


def _first_message(fields: Mapping[str, Any]) -> str:
    for name, value in fields.items():
        while isinstance(value, list | dict) and value:
            value = next(iter(value.values())) if isinstance(value, dict) else value[0]
        text = value if isinstance(value, str) else "invalid"
        return text if name == "non_field_errors" else f"{name}: {text}"
    return InvalidRequest.default_message


def _from_drf(exc: drf.APIException) -> ApplicationError:
    code = next(
        (code for kind, code in _DRF_CODES if isinstance(exc, kind)),
        str(exc.default_code).replace("_", "-"),
    )
    if isinstance(exc, drf.ValidationError):
        detail = _plain(exc.detail)
        fields = detail if isinstance(detail, dict) else {"non_field_errors": detail}
        error = ApplicationError(_first_message(fields), code=code, fields=fields)
    else:
        error = ApplicationError(str(exc.detail), code=code)
    error.status_code = exc.status_code
    return error


def as_application_error(exc: BaseException) -> ApplicationError | None:
    """The client error `exc` stands for; None for a server error."""
    if isinstance(exc, ApplicationError):
        return exc
    if isinstance(exc, drf.APIException):
        return _from_drf(exc)
    if isinstance(exc, Http404):
        return NotFound()
    if isinstance(exc, django_exceptions.PermissionDenied):
        return PermissionDenied()
    if isinstance(exc, django_exceptions.RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
        return DocumentTooLarge(
            f"The request body is larger than {limit} bytes ({limit / 1024 / 1024:g} MB)."
        )
    if isinstance(exc, django_exceptions.ValidationError):
        if hasattr(exc, "error_dict"):
            fields = {name: list(messages) for name, messages in exc.message_dict.items()}
            return InvalidRequest(_first_message(fields), fields=fields)
        return InvalidRequest(" ".join(exc.messages))
    return None


def error_status(exc: BaseException) -> int:
    """The HTTP status of `exc` (500 for anything that is not a client error)."""
    error = as_application_error(exc)
    return 500 if error is None else error.status_code


def error_payload(exc: BaseException) -> dict[str, Any]:
    """The error shape for `exc`; anything unexpected is an opaque `internal-error`."""
    error = as_application_error(exc)
    if error is None:
        error = ApplicationError("Internal server error.", code="internal-error")
    return {
        "error": {
            "code": error.code,
            "message": error.message,
            "diagnostics": [d.to_json() for d in error.diagnostics],
            "fields": error.fields,
        }
    }


def _roll_back_request_transactions() -> None:
    """What DRF's `set_rollback` does (importing `rest_framework.views` here would be circular:
    DRF loads this module while it builds `APIView`)."""
    for connection in connections.all():
        if connection.settings_dict.get("ATOMIC_REQUESTS") and connection.in_atomic_block:
            connection.set_rollback(True)


def exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
    """DRF's `EXCEPTION_HANDLER`: every client error in the one shape; None lets a 500 through."""
    error = as_application_error(exc)
    if error is None:
        return None
    headers: dict[str, str] = {}
    auth_header = getattr(exc, "auth_header", None)
    if isinstance(auth_header, str):
        headers["WWW-Authenticate"] = auth_header
    wait = getattr(exc, "wait", None)
    if isinstance(exc, drf.Throttled) and wait is not None:
        headers["Retry-After"] = str(int(wait))
    if isinstance(error, ServiceUnavailable):
        headers["Retry-After"] = str(error.retry_after)
    _roll_back_request_transactions()
    return Response(error_payload(error), status=error.status_code, headers=headers)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's `handler400` (a Host this server does not answer to, another suspicious
    request): under `/api/` the one error shape, elsewhere Django's page."""
    if not request.path.startswith("/api/"):
        return django_defaults.bad_request(request, exception)
    if isinstance(exception, django_exceptions.DisallowedHost):
        host = request.META.get("HTTP_HOST", "")[:200]
        error = ApplicationError(
            f"This server does not answer to the host {host!r}: use one of its addresses "
            "(ALLOWED_HOSTS).",
            code="disallowed-host",
        )
    else:
        error = ApplicationError("The request is malformed.")
    return JsonResponse(error_payload(error), status=400)
