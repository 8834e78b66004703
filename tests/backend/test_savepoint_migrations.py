"""Savepoints stored before the audit record keep their upload in the activity feed: the
migration that moved uploads to the record writes one for each."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.both_databases]

BEFORE = ("savepoints", "0001_initial")
AFTER = ("savepoints", "0002_record_uploads")


def _with_savepoints_at(executor: MigrationExecutor, node: tuple[str, str]) -> list[Any]:
    leaves = executor.loader.graph.leaf_nodes()
    return [leaf for leaf in leaves if leaf[0] != "savepoints"] + [node]


@pytest.fixture
def before() -> Iterator[Any]:
    """The apps before uploads were recorded; migrated to the latest after the test."""
    executor = MigrationExecutor(connection)
    targets = _with_savepoints_at(executor, BEFORE)
    executor.migrate(targets)
    yield executor.loader.project_state(targets).apps
    call_command("migrate", verbosity=0)


def test_every_stored_savepoint_gets_its_upload_recorded(before: Any) -> None:
    uploader = before.get_model("auth", "User").objects.create(username="ada")
    workspace = before.get_model("accounts", "Workspace").objects.create(name="W", slug="w")
    pipeline = before.get_model("pipelines", "Pipeline").objects.create(
        workspace=workspace, name="P", snapshot={}, created_by=uploader
    )
    savepoints = before.get_model("savepoints", "Savepoint")
    fields = {
        "pipeline": pipeline,
        "data": b"",
        "size": 0,
        "sha256": "0" * 64,
        "format_version": 3,
        "checkpoint_id": 1,
        "operator_count": 0,
    }
    old = savepoints.objects.create(label="old", uploaded_by=uploader, **fields)
    current = savepoints.objects.create(label="prod", is_current=True, uploaded_by=None, **fields)

    executor = MigrationExecutor(connection)
    targets = _with_savepoints_at(executor, AFTER)
    executor.migrate(targets)
    events = executor.loader.project_state(targets).apps.get_model("audit", "AuditEvent")

    rows = events.objects.order_by("pk")
    assert [(e.workspace_id, e.pipeline_id, e.actor_id, e.kind, e.details, e.at) for e in rows] == [
        (
            workspace.pk,
            pipeline.pk,
            uploader.pk,
            "savepoint_uploaded",
            {"savepoint": old.pk, "label": "old", "current": False},
            old.uploaded_at,
        ),
        (
            workspace.pk,
            pipeline.pk,
            None,
            "savepoint_uploaded",
            {"savepoint": current.pk, "label": "prod", "current": True},
            current.uploaded_at,
        ),
    ]
