from django.urls import path

from config import converters  # noqa: F401  (registers <id:...>)
from savepoints import apis

_SAVEPOINTS = "pipelines/<id:pipeline_id>/savepoints/"

urlpatterns = [
    path(_SAVEPOINTS, apis.SavepointListApi.as_view(), name="savepoints"),
    path(
        _SAVEPOINTS + "<id:savepoint_id>/",
        apis.SavepointDetailApi.as_view(),
        name="savepoint-detail",
    ),
    path(
        _SAVEPOINTS + "<id:savepoint_id>/check/",
        apis.RestoreCheckApi.as_view(),
        name="savepoint-check",
    ),
]
