from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts.backends import LimitedAdminAuthenticationForm
from config import converters, frontend  # noqa: F401  (converters registers <id:...>)
from pipelines import apis

admin.site.login_form = LimitedAdminAuthenticationForm

api_urlpatterns: list[URLPattern | URLResolver] = [
    path("health/", apis.health, name="health"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    # Session sign-in for the browsable API and the docs page.
    path("auth/", include("config.auth_urls")),
    path("", include("accounts.urls")),
    path("", include("pipelines.urls")),
    path("", include("savepoints.urls")),
    path("", include("reviews.urls")),
    path("", include("runs.urls")),
    path("", include("activity.urls")),
    # Anything else under /api/, with or without a slash and whatever cookies come with it:
    # 404 in the error shape (and no redirect to add a slash, which answers HTML).
    re_path(r"^(?P<path>.*)$", apis.api_not_found),
]

# A request Django refuses before any view (a Host not in ALLOWED_HOSTS): JSON under /api/.
handler400 = "config.errors.bad_request"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include(api_urlpatterns)),
    # The browser app: its bundles, and its page for every other path (deep links) except
    # those of the API, the admin, websockets and Django's static files.
    re_path(r"^assets/(?P<path>.+)$", frontend.asset, name="frontend-asset"),
    re_path(r"^(?!(?:api|admin|assets|ws|static)(?:/|$))(?P<path>.*)$", frontend.app, name="app"),
]
