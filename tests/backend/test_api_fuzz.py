"""Schemathesis against the OpenAPI schema of a live server, as a signed-in owner: no server
error, no response outside the schema (status, content type, body, headers), schema-invalid
requests refused and schema-valid ones accepted, over every operation.

Bounded so it stays a test, not a campaign: a fixed seed (a failure reproduces) and 25
examples per operation, in well under a minute. The path parameters name real objects of
the owner's workspace, so operations reach their logic rather than a 404. Left out: the
operations that would delete what the others use (the workspace, the pipeline, the member,
the caller's own membership or token); the permission matrix and the API tests cover them.

Business rules the schema cannot state (a wrong password, a document the compiler cannot
read, an unknown username, a version that cannot run) answer documented 400, 404 and 409
errors to schema-valid requests; for the operations that have them those are accepted.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from rest_framework.authtoken.models import Token

from accounts.models import Role
from config.asgi_server import free_port, uvicorn_command, wait_until_listening
from pipelines.models import Pipeline
from reviews.services import Target, review_policy_update, review_request_create, thread_create
from tests.backend.conftest import FAST_HASHERS
from tests.backend.factories import add_member, make_savepoint, make_user, make_workspace
from tests.backend.runs_support import make_run, make_runnable_version

REPO = Path(__file__).resolve().parents[2]
# PostgreSQL enforces the column limits a fuzzed string meets (SQLite stores any length).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_only]

SEED = 20261125
EXAMPLES = 25
DESTRUCTIVE = [
    "auth_token_destroy",
    "workspaces_destroy",
    "pipelines_destroy",
    "members_destroy",
    "workspaces_leave",
    "comments_destroy",
    "savepoints_destroy",
]
BUSINESS_RULES = [
    "auth_register",
    "auth_token_obtain",
    "compile",
    "pipelines_create",
    "pipelines_import",
    "pipelines_update",
    "versions_create",
    "runs_start",
    "runs_cancel",
    "workspaces_create",
    "workspaces_update",
    "members_create",
    "members_update",
    # A page cursor or version that is not there, a target not in the version, a mention of
    # someone outside the workspace, a review of a version no longer the latest, an approval
    # without its acknowledgement, a policy change that changes nothing.
    "comments_list",
    "comments_summary",
    "comments_retrieve",
    "comments_create",
    "comments_reply",
    "comments_update",
    "reviews_request",
    "reviews_verdict",
    # A verdict that is not an approval, or one already revoked.
    "reviews_revoke",
    "review_policy_update",
    # A file no schema can say is a savepoint's _metadata; a label of only spaces.
    "savepoints_create",
    "savepoints_partial_update",
    # A vertex to rescale without the parallelism to rescale it to.
    "savepoints_check",
    "activity_list",
    "inbox_reviews",
    "inbox_mentions",
    "inbox_mentions_read",
    # A working copy that does not compile, a vertex the version does not have.
    "pipelines_rescale",
]


def _database_url() -> str:
    settings = connection.settings_dict
    if settings["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings['NAME']}"
    host, port = settings.get("HOST") or "127.0.0.1", settings.get("PORT") or 5432
    return f"postgres://{settings.get('USER') or 'postgres'}@{host}:{port}/{settings['NAME']}"


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    with django_db_blocker.unblock():
        database_url = _database_url()
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PYTHONPATH": os.pathsep.join([str(REPO / "backend"), str(REPO)]),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PASSWORD_HASHERS": ",".join(FAST_HASHERS),
        # The fuzzer registers and fails to sign in thousands of times a minute.
        "AUTH_ATTEMPTS_PER_MINUTE": "1000000",
        "RESCALES_PER_MINUTE": "1000000",
    }
    process = subprocess.Popen(
        uvicorn_command(host="127.0.0.1", port=port, log_level="warning"),
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_listening(process, host="127.0.0.1", port=port)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def _config(ids: dict[str, int]) -> str:
    def names(operations: list[str]) -> str:
        return ", ".join(f'"{name}"' for name in operations)

    parameters = "\n".join(f"{name} = {value}" for name, value in ids.items())
    return f"""
seed = {SEED}
max-failures = 30
continue-on-failure = true

[generation]
max-examples = {EXAMPLES}

[parameters]
{parameters}

[[operations]]
include-operation-id = [{names(DESTRUCTIVE)}]
enabled = false

[[operations]]
include-operation-id = [{names(BUSINESS_RULES)}]
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "404", "409"]
"""


def test_the_api_keeps_to_its_schema_under_fuzzing(server: str, tmp_path: Path) -> None:
    owner = make_user(username="fuzz-owner")
    workspace = make_workspace(owner=owner, name="Fuzzed")
    viewer = add_member(workspace=workspace, user=make_user(), role=Role.VIEWER)
    pipeline = Pipeline.objects.create(
        workspace=workspace, name="Fuzzed", snapshot={}, created_by=owner
    )
    version = make_runnable_version(pipeline=pipeline, author=owner)
    run = make_run(version=version)
    # The owner reviews their own version (the policy lets them), so verdicts reach their logic.
    review_policy_update(workspace=workspace, actor=owner, allow_self_approval=True)
    review = review_request_create(version=version, actor=owner, reviewers=[owner.username])
    thread = thread_create(
        pipeline=pipeline, actor=owner, target=Target(kind="pipeline"), body="Fuzzed"
    )
    savepoint = make_savepoint(pipeline=pipeline)
    token = Token.objects.create(user=owner).key
    config = tmp_path / "schemathesis.toml"
    config.write_text(
        _config(
            {
                "workspace_id": workspace.pk,
                "pipeline_id": pipeline.pk,
                "number": version.number,
                "run_id": run.pk,
                "user_id": viewer.pk,
                "thread_id": thread.pk,
                "comment_id": thread.comments.get().pk,
                "request_id": review.pk,
                "savepoint_id": savepoint.pk,
            }
        )
    )

    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "--no-color",
        "run", f"{server}/api/schema/?format=json",
        "--header", f"Authorization: Token {token}",
        "--checks", "all",
    ]  # fmt: skip
    fuzzed = subprocess.run(
        command,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert fuzzed.returncode == 0, fuzzed.stdout[-12_000:] + fuzzed.stderr[-3_000:]
    assert "Tested: 58" in fuzzed.stdout  # every operation but the destructive ones
