"""Admin for pipelines: the working copy is read here, changed through the API."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from pipelines.models import Pipeline, PipelineEdit, PipelineVersion


class VersionInline(admin.TabularInline):
    model = PipelineVersion
    extra = 0
    fields = ("number", "message", "author", "revision", "created_at")
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Pipeline)
class PipelineAdmin(admin.ModelAdmin):
    list_display = ("name", "workspace", "revision", "created_by", "updated_at")
    list_filter = ("workspace",)
    search_fields = ("name", "workspace__name")
    # Documents change only through the services, which validate them and move the
    # revision: the stored snapshot and the revision it is of are never edited here.
    exclude = ("snapshot", "snapshot_revision")
    readonly_fields = ("document", "revision", "created_by", "created_at", "updated_at")
    inlines = (VersionInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(PipelineVersion)
class PipelineVersionAdmin(admin.ModelAdmin):
    list_display = ("pipeline", "number", "author", "created_at")
    search_fields = ("pipeline__name", "message")
    readonly_fields = ("pipeline", "number", "document", "revision", "message", "author")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(PipelineEdit)
class PipelineEditAdmin(admin.ModelAdmin):
    list_display = ("pipeline", "revision", "author", "created_at")
    readonly_fields = ("pipeline", "revision", "operation", "author")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
