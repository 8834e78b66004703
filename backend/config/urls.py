from django.contrib import admin
from django.urls import path

from pipelines import apis

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/health/", apis.health, name="health"),
]
