"""The review record's migrations keep what was stored: verdicts given before a verdict's
weight was stored take the weight they had when the migration ran, and approvals keep
what they acknowledged, by id."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.both_databases]

BEFORE = ("reviews", "0002_verdict_savepoint")
AFTER = ("reviews", "0004_verdict_acknowledged_state")
OPERATOR = "c27dcf7b54ef6bfd6cff02ca8870b681"


@pytest.fixture
def before() -> Iterator[Any]:
    """The apps as they were before the review record's migrations; migrated back to the
    latest after the test, as every other test expects."""
    executor = MigrationExecutor(connection)
    targets = _with_reviews_at(executor, BEFORE)
    executor.migrate(targets)
    yield executor.loader.project_state(targets).apps
    call_command("migrate", verbosity=0)


def _with_reviews_at(executor: MigrationExecutor, node: tuple[str, str]) -> list[tuple[str, str]]:
    """Every app at its latest migration, the reviews app at `node`."""
    leaves = executor.loader.graph.leaf_nodes()
    return [leaf for leaf in leaves if leaf[0] != "reviews"] + [node]


def _migrate_to_after() -> Any:
    executor = MigrationExecutor(connection)
    targets = _with_reviews_at(executor, AFTER)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_past_verdicts_keep_their_weight_and_what_they_acknowledged(before: Any) -> None:
    users = before.get_model("auth", "User")
    author, owner, viewer, gone = (
        users.objects.create(username=name) for name in ("author", "owner", "viewer", "gone")
    )
    workspace = before.get_model("accounts", "Workspace").objects.create(name="W", slug="w")
    memberships = before.get_model("accounts", "Membership")
    for user, role in ((author, "editor"), (owner, "owner"), (viewer, "viewer")):
        memberships.objects.create(workspace=workspace, user=user, role=role)
    pipeline = before.get_model("pipelines", "Pipeline").objects.create(
        workspace=workspace, name="P", snapshot={}, created_by=author
    )
    version = before.get_model("pipelines", "PipelineVersion").objects.create(
        pipeline=pipeline, number=1, document={}, revision=1, author=author
    )
    request = before.get_model("reviews", "ReviewRequest").objects.create(
        version=version, requested_by=author
    )
    verdicts = before.get_model("reviews", "ReviewVerdict")
    given = {
        "owner": verdicts.objects.create(
            request=request, reviewer=owner, verdict="approve", acknowledged=[OPERATOR]
        ),
        "viewer": verdicts.objects.create(request=request, reviewer=viewer, verdict="approve"),
        "author": verdicts.objects.create(request=request, reviewer=author, verdict="approve"),
        "gone": verdicts.objects.create(request=request, reviewer=gone, verdict="request_changes"),
        "comment": verdicts.objects.create(request=request, reviewer=owner, verdict="comment"),
    }

    after = _migrate_to_after().get_model("reviews", "ReviewVerdict")

    weighed = {
        name: (row.role, row.counts)
        for name, row in ((n, after.objects.get(pk=v.pk)) for n, v in given.items())
    }
    assert weighed == {
        "owner": ("owner", True),
        "viewer": ("viewer", False),
        "author": ("editor", False),  # self-approval is off by default
        "gone": ("viewer", False),  # no longer a member
        "comment": ("owner", False),
    }
    assert after.objects.get(pk=given["owner"].pk).acknowledged_state == [
        {"operatorId": OPERATOR, "name": OPERATOR, "stateBytes": None}
    ]
    assert after.objects.get(pk=given["viewer"].pk).acknowledged_state == []
