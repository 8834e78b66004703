from django.urls import path

from pipelines import apis

urlpatterns = [
    path("pipelines/", apis.PipelineListApi.as_view(), name="pipeline-list"),
    path("pipelines/import/", apis.ImportApi.as_view(), name="pipeline-import"),
    path("pipelines/<int:pipeline_id>/", apis.PipelineDetailApi.as_view(), name="pipeline-detail"),
    path(
        "pipelines/<int:pipeline_id>/versions/",
        apis.VersionListApi.as_view(),
        name="version-list",
    ),
    path(
        "pipelines/<int:pipeline_id>/versions/<int:number>/",
        apis.VersionDetailApi.as_view(),
        name="version-detail",
    ),
    path("pipelines/<int:pipeline_id>/plan/", apis.PlanApi.as_view(), name="pipeline-plan"),
    path("pipelines/<int:pipeline_id>/diff/", apis.DiffApi.as_view(), name="pipeline-diff"),
    path("pipelines/<int:pipeline_id>/export/", apis.ExportApi.as_view(), name="pipeline-export"),
    path("compile/", apis.CompileApi.as_view(), name="compile"),
    path("operators/", apis.OperatorCatalogApi.as_view(), name="operator-catalog"),
]
