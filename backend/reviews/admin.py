"""Admin for team review: read here, written through the API (the services check roles,
anchors and mentions, and tell everyone on the pipeline)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from reviews.models import (
    Comment,
    CommentThread,
    ReviewPolicy,
    ReviewRequest,
    ReviewVerdict,
)


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class CommentInline(admin.TabularInline):
    model = Comment
    extra = 0
    fields = ("author", "body", "created_at", "edited_at", "deleted_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(CommentThread)
class CommentThreadAdmin(_ReadOnly):
    list_display = ("pk", "pipeline", "version", "kind", "label", "status", "created_at")
    list_filter = ("status", "kind")
    search_fields = ("pipeline__name", "label")
    inlines = (CommentInline,)


@admin.register(ReviewRequest)
class ReviewRequestAdmin(_ReadOnly):
    list_display = ("pk", "version", "requested_by", "created_at")
    search_fields = ("version__pipeline__name", "message")


@admin.register(ReviewVerdict)
class ReviewVerdictAdmin(_ReadOnly):
    list_display = ("pk", "request", "reviewer", "verdict", "created_at")
    list_filter = ("verdict",)


@admin.register(ReviewPolicy)
class ReviewPolicyAdmin(_ReadOnly):
    list_display = (
        "workspace",
        "required_approvals",
        "allow_self_approval",
        "require_approval_to_run",
        "updated_at",
    )
