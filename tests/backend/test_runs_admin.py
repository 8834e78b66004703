"""The admin pages of runs and their journals: readable, never editable."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from runs.models import RunEvent, RunStatus
from runs.services import run_cancel
from tests.backend.factories import make_team
from tests.backend.runs_support import make_run, make_runnable_version

pytestmark = pytest.mark.django_db


def test_runs_and_their_journal_are_shown_read_only() -> None:
    team = make_team()
    run = make_run(version=make_runnable_version(pipeline=team.pipeline), status=RunStatus.QUEUED)
    run_cancel(run=run, actor=team.owner)
    entry = RunEvent.objects.get(run=run)
    User.objects.create_superuser("root", "root@example.com", "a-long-admin-password")
    client = APIClient()
    assert client.login(username="root", password="a-long-admin-password")

    for page in (
        "/admin/runs/run/",
        f"/admin/runs/run/{run.pk}/change/",
        "/admin/runs/runevent/",
        f"/admin/runs/runevent/{entry.pk}/change/",
    ):
        assert client.get(page).status_code == 200, page
    assert client.get("/admin/runs/run/add/").status_code == 403
    response = client.post(f"/admin/runs/run/{run.pk}/change/", {"status": "QUEUED"})
    assert response.status_code == 403
    run.refresh_from_db()
    assert run.status == "CANCELED"
