"""`createsuperuser` and the Django admin pages of the new models."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from rest_framework.test import APIClient

from reviews.services import Target, thread_create
from tests.backend.factories import make_team

pytestmark = pytest.mark.django_db


def test_createsuperuser_makes_an_admin_who_sees_every_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a-long-admin-password")
    call_command("createsuperuser", interactive=False, username="root", email="root@example.com")
    assert User.objects.get(username="root").is_superuser
    team = make_team()
    version = team.pipeline.versions.get()
    thread = thread_create(
        pipeline=team.pipeline, actor=team.owner, target=Target(kind="pipeline"), body="Looks fine"
    )
    client = APIClient()
    assert client.login(username="root", password="a-long-admin-password")

    pages = [
        "/admin/",
        "/admin/accounts/workspace/",
        f"/admin/accounts/workspace/{team.workspace.pk}/change/",
        "/admin/accounts/membership/",
        "/admin/pipelines/pipeline/",
        f"/admin/pipelines/pipeline/{team.pipeline.pk}/change/",
        "/admin/pipelines/pipelineversion/",
        f"/admin/pipelines/pipelineversion/{version.pk}/change/",
        "/admin/pipelines/pipelineedit/",
        "/admin/reviews/commentthread/",
        f"/admin/reviews/commentthread/{thread.pk}/change/",
        "/admin/reviews/reviewrequest/",
        "/admin/reviews/reviewverdict/",
        "/admin/reviews/reviewpolicy/",
    ]
    for page in pages:
        assert client.get(page).status_code == 200, page


def test_admin_cannot_add_versions() -> None:
    User.objects.create_superuser("root", "root@example.com", "a-long-admin-password")
    client = APIClient()
    assert client.login(username="root", password="a-long-admin-password")

    assert client.get("/admin/pipelines/pipelineversion/add/").status_code == 403


def test_admin_cannot_edit_the_stored_working_copy() -> None:
    # The snapshot column and the revision it is of change only through the services: an
    # edit here would bypass validation and leave the revision (and every process's model
    # of it) unchanged.
    User.objects.create_superuser("root", "root@example.com", "a-long-admin-password")
    client = APIClient()
    assert client.login(username="root", password="a-long-admin-password")
    team = make_team()
    page = client.get(f"/admin/pipelines/pipeline/{team.pipeline.pk}/change/")
    assert page.status_code == 200
    fields = page.context["adminform"].form.fields
    assert "snapshot" not in fields and "snapshot_revision" not in fields
