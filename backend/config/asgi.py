"""ASGI entry point: HTTP through Django, websockets through Channels."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Django must be set up before anything imports models.
django_application = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from accounts.websocket_auth import websocket_auth_stack  # noqa: E402
from config.body_limit import limit_request_bodies  # noqa: E402
from config.logs import redact_server_logs  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402

redact_server_logs()

# Everything loaded so far lives as long as the process: keep it out of the cyclic
# collector's full passes, which would otherwise walk it on every gen-2 collection and
# show up as pauses in edit broadcasts.
gc.freeze()

application = ProtocolTypeRouter(
    {
        "http": limit_request_bodies(
            django_application, limit=lambda: settings.MAX_REQUEST_BODY_BYTES
        ),
        "websocket": websocket_auth_stack(URLRouter(websocket_urlpatterns)),  # type: ignore[arg-type]
    }
)
