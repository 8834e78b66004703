"""Builders for the backend tests: users, workspaces, pipelines, documents and clients.

Plain functions that write real rows; every argument has a default that makes
a valid object, so a test names only what it is about.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import Membership, Role, Workspace
from pipelines.models import Pipeline, PipelineVersion
from savepoints.models import Savepoint
from savepoints.services import savepoint_upload

PASSWORD = "correct-horse-battery"
_sequence = itertools.count(1)


def make_user(*, username: str | None = None, password: str = PASSWORD) -> User:
    return User.objects.create_user(
        username=username or f"user{next(_sequence)}", password=password
    )


def make_workspace(
    *, owner: User | None = None, name: str | None = None, slug: str | None = None
) -> Workspace:
    number = next(_sequence)
    workspace = Workspace.objects.create(
        name=name or f"Workspace {number}", slug=slug or f"workspace-{number}"
    )
    Membership.objects.create(workspace=workspace, user=owner or make_user(), role=Role.OWNER)
    return workspace


def add_member(*, workspace: Workspace, user: User | None = None, role: Role) -> User:
    member = user or make_user()
    Membership.objects.create(workspace=workspace, user=member, role=role)
    return member


def make_document(
    *,
    name: str = "orders",
    parallelism: int = 2,
    sink_parallelism: int | None = None,
    uid: str | None = None,
) -> dict[str, Any]:
    """A valid streamgraph/v1 job: source -> map -> keyBy -> reduce -> sink."""

    def node(node_id: int, node_name: str, operator: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": node_id,
            "name": node_name,
            "operator": operator,
            "params": {},
            "parallelism": parallelism,
            **extra,
        }

    def edge(source: int, target: int, partitioner: str, **extra: Any) -> dict[str, Any]:
        return {"source": source, "target": target, "partitioner": partitioner, **extra}

    return {
        "format": "streamgraph/v1",
        "name": name,
        "config": {"defaultParallelism": parallelism, "runtimeMode": "STREAMING"},
        "nodes": [
            node(1, "Source: Orders", "source", factory="SOURCE", uid=uid),
            node(2, "Map", "map"),
            node(3, "Reduce", "reduce"),
            node(4, "Sink: Print", "sink.print", parallelism=sink_parallelism or parallelism),
        ],
        "edges": [
            edge(1, 2, "FORWARD"),
            edge(2, 3, "HASH", key={"fn": "order.id"}),
            edge(3, 4, "FORWARD" if sink_parallelism in (None, parallelism) else "REBALANCE"),
        ],
    }


def make_pipeline(
    *,
    workspace: Workspace | None = None,
    name: str = "Orders",
    document: dict[str, Any] | None = None,
    created_by: User | None = None,
) -> Pipeline:
    return Pipeline.objects.create(
        workspace=workspace or make_workspace(),
        name=name,
        snapshot=document if document is not None else make_document(name=name),
        created_by=created_by,
    )


def make_version(
    *, pipeline: Pipeline, author: User | None = None, message: str = "saved"
) -> PipelineVersion:
    number = PipelineVersion.objects.filter(pipeline=pipeline).count() + 1
    return PipelineVersion.objects.create(
        pipeline=pipeline,
        number=number,
        document=pipeline.document,
        revision=pipeline.revision,
        message=message,
        author=author,
    )


def client_for(user: User | None = None) -> APIClient:
    """An API client that authenticates with the user's token (anonymous without one)."""
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


ROLES = ("anonymous", "non-member", "viewer", "editor", "owner")


@dataclass
class Team:
    """A workspace with one user per role, a pipeline with one saved version, and an outsider."""

    workspace: Workspace
    owner: User
    editor: User
    viewer: User
    outsider: User
    pipeline: Pipeline

    def user(self, role: str) -> User | None:
        return {
            "anonymous": None,
            "non-member": self.outsider,
            "viewer": self.viewer,
            "editor": self.editor,
            "owner": self.owner,
        }[role]

    def client(self, role: str) -> APIClient:
        return client_for(self.user(role))


def make_team() -> Team:
    owner = make_user(username="olivia")
    workspace = make_workspace(owner=owner, name="Payments", slug="payments")
    editor = add_member(workspace=workspace, user=make_user(username="eddie"), role=Role.EDITOR)
    viewer = add_member(workspace=workspace, user=make_user(username="vera"), role=Role.VIEWER)
    outsider = make_user(username="oscar")
    pipeline = make_pipeline(workspace=workspace, created_by=owner)
    make_version(pipeline=pipeline, author=owner, message="first")
    return Team(
        workspace=workspace,
        owner=owner,
        editor=editor,
        viewer=viewer,
        outsider=outsider,
        pipeline=pipeline,
    )


SAVEPOINTS = Path(__file__).resolve().parents[1] / "compiler" / "data" / "savepoints"


def savepoint_bytes(case: str = "counting") -> bytes:
    """The `_metadata` of a real Flink 2.3 savepoint of the shared cases."""
    return (SAVEPOINTS / f"{case}.v1.savepoint").read_bytes()


def make_savepoint(
    *, pipeline: Pipeline, case: str = "counting", label: str = "production", current: bool = False
) -> Savepoint:
    return savepoint_upload(
        pipeline=pipeline,
        actor=pipeline.workspace.memberships.get(role=Role.OWNER).user,
        label=label,
        data=savepoint_bytes(case),
        current=current,
    )
