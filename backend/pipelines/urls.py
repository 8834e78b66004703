from django.urls import path

from config import converters  # noqa: F401  (registers <id:...>)
from pipelines import apis

urlpatterns = [
    path("pipelines/", apis.PipelineListApi.as_view(), name="pipeline-list"),
    path("pipelines/import/", apis.ImportApi.as_view(), name="pipeline-import"),
    path("pipelines/<id:pipeline_id>/", apis.PipelineDetailApi.as_view(), name="pipeline-detail"),
    path(
        "pipelines/<id:pipeline_id>/summary/",
        apis.PipelineSummaryApi.as_view(),
        name="pipeline-summary",
    ),
    path(
        "pipelines/<id:pipeline_id>/versions/",
        apis.VersionListApi.as_view(),
        name="version-list",
    ),
    path(
        "pipelines/<id:pipeline_id>/versions/<id:number>/",
        apis.VersionDetailApi.as_view(),
        name="version-detail",
    ),
    path("pipelines/<id:pipeline_id>/plan/", apis.PlanApi.as_view(), name="pipeline-plan"),
    path("pipelines/<id:pipeline_id>/diff/", apis.DiffApi.as_view(), name="pipeline-diff"),
    path("pipelines/<id:pipeline_id>/rescale/", apis.RescaleApi.as_view(), name="pipeline-rescale"),
    path("pipelines/<id:pipeline_id>/export/", apis.ExportApi.as_view(), name="pipeline-export"),
    path("compile/", apis.CompileApi.as_view(), name="compile"),
    path("operators/", apis.OperatorCatalogApi.as_view(), name="operator-catalog"),
]
