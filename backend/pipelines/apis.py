"""HTTP endpoints of the pipelines app."""

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """Liveness probe: answers while the process can serve requests."""
    return JsonResponse({"status": "ok"})
