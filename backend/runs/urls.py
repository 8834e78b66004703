from django.urls import path

from runs import apis

urlpatterns = [
    path("pipelines/<int:pipeline_id>/runs/", apis.RunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", apis.RunDetailApi.as_view(), name="run-detail"),
    path("runs/<int:run_id>/cancel/", apis.RunCancelApi.as_view(), name="run-cancel"),
    path("runs/<int:run_id>/journal/", apis.RunJournalApi.as_view(), name="run-journal"),
]
