from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from pipelines import apis

api_urlpatterns: list[URLPattern | URLResolver] = [
    path("health/", apis.health, name="health"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    # Session sign-in for the browsable API and the docs page.
    path("auth/", include("rest_framework.urls")),
    path("", include("accounts.urls")),
    path("", include("pipelines.urls")),
    # Anything else under /api/ (after APPEND_SLASH had its chance): 404 in the error shape.
    re_path(r"^(?P<path>.*/)?$", apis.api_not_found),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include(api_urlpatterns)),
]
