"""Websocket URL routes."""

from django.urls import path

from pipelines.consumers import PipelineConsumer
from runs.consumers import RunConsumer

websocket_urlpatterns = [
    # Channels' URLRouter takes ASGI apps where django-stubs expects views.
    path("ws/pipelines/<int:pipeline_id>/", PipelineConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/runs/<int:run_id>/", RunConsumer.as_asgi()),  # type: ignore[arg-type]
]
