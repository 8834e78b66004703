"""Websocket URL routes."""

from django.urls import path

from config import converters  # noqa: F401  (registers <id:...>)
from pipelines.consumers import PipelineConsumer
from reviews.consumers import InboxConsumer
from runs.consumers import RunConsumer

websocket_urlpatterns = [
    # Channels' URLRouter takes ASGI apps where django-stubs expects views.
    path("ws/pipelines/<id:pipeline_id>/", PipelineConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/runs/<id:run_id>/", RunConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/inbox/", InboxConsumer.as_asgi()),  # type: ignore[arg-type]
]
