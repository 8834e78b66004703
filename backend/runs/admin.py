"""Admin for runs: read-only; runs change through their services and journal."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from runs.models import Run, RunEvent


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Run)
class RunAdmin(_ReadOnly):
    list_display = (
        "id", "pipeline", "version", "status", "cluster", "started_by", "created_at", "worker",
    )  # fmt: skip
    list_filter = ("status", "cluster")
    list_select_related = ("pipeline", "version__pipeline", "started_by")
    search_fields = ("pipeline__name", "worker", "key")
    readonly_fields = tuple(field.name for field in Run._meta.fields)


@admin.register(RunEvent)
class RunEventAdmin(_ReadOnly):
    list_display = ("run", "seq", "created_at")
    list_select_related = ("run",)
    readonly_fields = ("run", "seq", "events", "changes", "created_at")
