from django.urls import path

from activity import apis
from config import converters  # noqa: F401  (registers <id:...>)

urlpatterns = [
    path("pipelines/<id:pipeline_id>/activity/", apis.ActivityApi.as_view(), name="activity"),
]
