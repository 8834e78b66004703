from django.urls import path

from config import converters  # noqa: F401  (registers <id:...>)
from runs import apis

urlpatterns = [
    path("pipelines/<id:pipeline_id>/runs/", apis.RunListApi.as_view(), name="run-list"),
    path("runs/<id:run_id>/", apis.RunDetailApi.as_view(), name="run-detail"),
    path("runs/<id:run_id>/cancel/", apis.RunCancelApi.as_view(), name="run-cancel"),
    path("runs/<id:run_id>/journal/", apis.RunJournalApi.as_view(), name="run-journal"),
    path("clusters/", apis.ClusterListApi.as_view(), name="cluster-list"),
]
